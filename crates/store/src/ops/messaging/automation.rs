//! The automation scheduler (spec Part B 4.8, 6): fires each active rule once for each
//! booking it comes due for.
//!
//! - A firing is the row `automation_firings (rule, booking, anchor)`, inserted in the
//!   transaction that queues the messages: two workers never both fire it, and a crash
//!   before the commit leaves it to fire again.
//! - Each rule keeps `scanned_until`: a pass looks at due times from there (less a lag
//!   that covers transactions still committing) to now, so a pass after downtime catches
//!   up, as far back as [`CATCH_UP`] and never before the rule was (re)activated.
//! - The anchor is read from the booking as it is now: a rescheduled booking comes due at
//!   its new time (and, if it was already reminded for the old time, again for the new).
//! - Whether a due rule still applies is decided in the firing's transaction, on the
//!   locked booking (`automation::applies`): a cancelled booking gets nothing.

use super::super::Repo;
use super::compose::{ChannelOutcome, Compose, booking_facts, queue_booking_message};
use crate::{AutomationReport, StoreError, StoreResult, Timestamp};
use kairos_domain::TenantId;
use kairos_domain::bookings::BookingStatus;
use kairos_domain::messaging::automation::{
    CATCH_UP, FiringFacts, OffsetUnit, TriggerEvent, applies, due_at, offset_duration, slack,
};
use kairos_store_macros::operations;
use sqlx::QueryBuilder;
use sqlx::types::Json;
use uuid::Uuid;

/// How far behind `scanned_until` a pass looks again: transactions that began before the
/// last pass but committed after it.
const LAG: chrono::Duration = chrono::Duration::minutes(10);

/// Candidates read per rule and pass; a rule with more continues in the next pass.
const CANDIDATES: i64 = 500;

#[derive(kairos_store_macros::FromRow)]
struct ActiveRule {
    tenant_id: String,
    id: Uuid,
    trigger_event: String,
    trigger_offset: i32,
    trigger_offset_unit: String,
    template_key: String,
    template_id: Option<Uuid>,
    product_ids: Json<Vec<Uuid>>,
    site_ids: Json<Vec<Uuid>>,
    active_since: Timestamp,
    scanned_until: Option<Timestamp>,
}

#[derive(kairos_store_macros::FromRow)]
struct Candidate {
    id: Uuid,
    anchor: Timestamp,
    timezone: String,
}

fn anchor_column(trigger: TriggerEvent) -> &'static str {
    match trigger {
        TriggerEvent::BookingCreated => "b.confirmed_at",
        TriggerEvent::BookingConfirmed => "b.paid_at",
        TriggerEvent::BookingCompleted => "b.completed_at",
        TriggerEvent::BookingDate => "b.starts_at",
    }
}

fn tz(name: &str) -> jiff::tz::TimeZone {
    jiff::tz::TimeZone::get(name).unwrap_or(jiff::tz::TimeZone::UTC)
}

#[operations]
impl Repo {
    /// One pass of the scheduler over every tenant's active rules at `now`.
    pub async fn run_automation(&self, now: Timestamp) -> StoreResult<AutomationReport> {
        let rules: Vec<ActiveRule> = sqlx::query_as(
            "SELECT tenant_id, id, trigger_event, trigger_offset, trigger_offset_unit,
                    template_key, template_id, product_ids, site_ids, active_since,
                    scanned_until
             FROM automation_rules WHERE is_active ORDER BY tenant_id, created_at, id",
        )
        .fetch_all(&self.read)
        .await?;
        let mut report = AutomationReport::default();
        for rule in rules {
            self.run_rule(&rule, now, &mut report).await?;
        }
        Ok(report)
    }
}

impl Repo {
    async fn run_rule(
        &self,
        rule: &ActiveRule,
        now: Timestamp,
        report: &mut AutomationReport,
    ) -> Result<(), StoreError> {
        let (Some(trigger), Some(unit)) = (
            TriggerEvent::parse(&rule.trigger_event),
            OffsetUnit::parse(&rule.trigger_offset_unit),
        ) else {
            return Err(StoreError::Corrupt(format!("automation rule {}", rule.id)));
        };
        let tenant = TenantId::parse(&rule.tenant_id)
            .map_err(|e| StoreError::Corrupt(format!("automation rule tenant: {e}")))?;
        let mut from = rule.active_since.max(now - CATCH_UP);
        if let Some(scanned) = rule.scanned_until {
            from = from.max(scanned - LAG);
        }
        // Due = anchor + offset (up to a day either way for local mornings).
        let offset = offset_duration(rule.trigger_offset, unit);
        let wiggle = slack(unit);
        let column = anchor_column(trigger);
        let mut q = QueryBuilder::new(format!(
            "SELECT b.id, {column} AS anchor, s.timezone FROM bookings b
             JOIN sites s ON s.tenant_id = b.tenant_id AND s.id = b.site_id
             WHERE b.tenant_id = "
        ));
        q.push_bind(rule.tenant_id.clone());
        q.push(format!(" AND {column} >= "))
            .push_bind(from - offset - wiggle);
        q.push(format!(" AND {column} <= "))
            .push_bind(now - offset + wiggle);
        q.push(" AND b.status NOT IN ('hold', 'canceled', 'expired')");
        if !rule.product_ids.0.is_empty() {
            q.push(" AND b.product_id IN (");
            let mut list = q.separated(", ");
            for p in &rule.product_ids.0 {
                list.push_bind(*p);
            }
            q.push(")");
        }
        if !rule.site_ids.0.is_empty() {
            q.push(" AND b.site_id IN (");
            let mut list = q.separated(", ");
            for s in &rule.site_ids.0 {
                list.push_bind(*s);
            }
            q.push(")");
        }
        q.push(
            " AND NOT EXISTS (SELECT 1 FROM automation_firings f
               WHERE f.tenant_id = b.tenant_id AND f.rule_id = ",
        )
        .push_bind(rule.id)
        .push(format!(" AND f.booking_id = b.id AND f.anchor = {column})"));
        q.push(format!(" ORDER BY {column}, b.id LIMIT "))
            .push_bind(CANDIDATES);
        let candidates: Vec<Candidate> = q.build_query_as().fetch_all(&self.read).await?;
        let complete = i64::try_from(candidates.len()).unwrap_or(i64::MAX) < CANDIDATES;
        for c in candidates {
            let due = due_at(
                trigger,
                rule.trigger_offset,
                unit,
                c.anchor,
                &tz(&c.timezone),
            );
            if due > now || due < from {
                continue;
            }
            self.fire(&tenant, rule, trigger, c.id, c.anchor, due, now, report)
                .await?;
        }
        if complete {
            sqlx::query(
                "UPDATE automation_rules SET scanned_until = $3
                 WHERE tenant_id = $1 AND id = $2",
            )
            .bind(&rule.tenant_id)
            .bind(rule.id)
            .bind(now)
            .execute(&self.write)
            .await?;
        }
        Ok(())
    }

    /// Fires `rule` for `booking` due at `due` from `anchor`, once.
    #[expect(clippy::too_many_arguments, reason = "one firing's facts, passed once")]
    async fn fire(
        &self,
        tenant: &TenantId,
        rule: &ActiveRule,
        trigger: TriggerEvent,
        booking: Uuid,
        anchor: Timestamp,
        due: Timestamp,
        now: Timestamp,
        report: &mut AutomationReport,
    ) -> Result<(), StoreError> {
        let mut w = self.begin(tenant, now).await?;
        let Some(b) = booking_facts(&mut w, booking).await? else {
            return Ok(());
        };
        let current_anchor = match trigger {
            TriggerEvent::BookingCreated => b.confirmed_at,
            TriggerEvent::BookingConfirmed => b.paid_at,
            TriggerEvent::BookingCompleted => b.completed_at,
            TriggerEvent::BookingDate => Some(b.starts_at),
        };
        if current_anchor != Some(anchor) {
            // Moved since it was read: the next pass finds it at its new time.
            return Ok(());
        }
        let status = BookingStatus::parse(&b.status)
            .ok_or_else(|| StoreError::Corrupt(format!("booking status {}", b.status)))?;
        let unsigned_waivers = if rule.template_key == "waiver_reminder" {
            super::super::waivers::unsigned_places(&mut w, booking).await?
        } else {
            0
        };
        let verdict = applies(&FiringFacts {
            trigger,
            template_key: &rule.template_key,
            due,
            now,
            status,
            starts_at: b.starts_at,
            send_confirmation: b.send_confirmation,
            unsigned_waivers,
        });
        let claimed = sqlx::query(
            "INSERT INTO automation_firings (tenant_id, rule_id, booking_id, anchor, fired_at,
                 outcome, messages)
             VALUES ($1, $2, $3, $4, $5, 'pending', 0)
             ON CONFLICT (tenant_id, rule_id, booking_id, anchor) DO NOTHING",
        )
        .bind(tenant.as_str())
        .bind(rule.id)
        .bind(booking)
        .bind(anchor)
        .bind(now)
        .execute(&mut *w.tx)
        .await?;
        if claimed.rows_affected() == 0 {
            // Another worker fired it.
            return Ok(());
        }
        let (outcome, queued) = match verdict {
            Err(skip) => (skip.as_str().to_owned(), 0),
            Ok(()) => {
                let outcomes = queue_booking_message(
                    &mut w,
                    &b,
                    Compose {
                        template_id: rule.template_id,
                        rule_id: Some(rule.id),
                        ..Compose::of(&rule.template_key, "automation", now)
                    },
                )
                .await?;
                let queued = outcomes
                    .iter()
                    .filter(|(_, o)| matches!(o, ChannelOutcome::Queued(_)))
                    .count();
                let outcome = if queued > 0 {
                    "sent".to_owned()
                } else {
                    outcomes
                        .iter()
                        .map(|(channel, o)| format!("{channel}:{}", outcome_text(*o)))
                        .collect::<Vec<_>>()
                        .join(",")
                };
                (outcome, queued)
            }
        };
        sqlx::query(
            "UPDATE automation_firings SET outcome = $5, messages = $6
             WHERE tenant_id = $1 AND rule_id = $2 AND booking_id = $3 AND anchor = $4",
        )
        .bind(tenant.as_str())
        .bind(rule.id)
        .bind(booking)
        .bind(anchor)
        .bind(&outcome)
        .bind(i32::try_from(queued).unwrap_or(i32::MAX))
        .execute(&mut *w.tx)
        .await?;
        w.commit(None).await?;
        if queued > 0 {
            report.fired += 1;
            report.messages += queued;
        } else {
            report.skipped += 1;
        }
        Ok(())
    }
}

fn outcome_text(o: ChannelOutcome) -> &'static str {
    match o {
        ChannelOutcome::Queued(_) => "queued",
        ChannelOutcome::Withheld(w) => w.as_str(),
        ChannelOutcome::NoTemplate => "no_template",
        ChannelOutcome::RenderFailed => "render_failed",
    }
}
