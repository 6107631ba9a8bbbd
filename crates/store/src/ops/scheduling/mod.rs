//! Schedules (templates, overrides, blackouts) and slot regeneration.
//!
//! Every schedule change regenerates the affected slots in its own transaction: a
//! template change from today to the horizon, an override or blackout change over its
//! date range only. Regeneration never touches slots that have started, deletes unbooked
//! slots that no longer match, flags booked ones orphaned (and clears the flag when the
//! schedule matches again), and creates missing ones; running it twice changes nothing.

mod date_rules;
mod regeneration;
mod templates;

use super::audit::{Change, diff};
use super::{Db, Repo, dialect};
use crate::{
    DateRuleKind, DateRuleRecord, NewDateRule, NewTemplate, StoreError, StoreResult,
    TemplateRecord, Timestamp, stored,
};
use chrono::NaiveDate;
use kairos_domain::scheduling::{
    Blackout, BlackoutKind, DateRange, DateRecurrence, LocalTime, Override, RecurrenceKind,
    ScopeType, Template,
};
pub(crate) use regeneration::load_schedules;
use regeneration::{WHOLE_HORIZON, lock_scopes, regenerate_scope, rule_span, scope_exists};
use sqlx::types::Json;
use uuid::Uuid;

#[derive(kairos_store_macros::FromRow)]
struct TemplateRow {
    id: Uuid,
    scope_type: String,
    scope_id: Uuid,
    day_of_week: Option<i32>,
    start_time: String,
    end_time: String,
    recurrence_kind: String,
    by_day: Option<i32>,
    by_month: Option<i32>,
    by_month_day: Option<i32>,
    exdates: Json<Vec<NaiveDate>>,
    valid_from: Option<NaiveDate>,
    valid_to: Option<NaiveDate>,
    created_at: Timestamp,
    updated_at: Timestamp,
}

impl TryFrom<TemplateRow> for TemplateRecord {
    type Error = StoreError;

    fn try_from(r: TemplateRow) -> Result<Self, StoreError> {
        Ok(TemplateRecord {
            id: r.id,
            fields: NewTemplate {
                scope_type: stored("scope_type", &r.scope_type, ScopeType::parse)?,
                scope_id: r.scope_id,
                day_of_week: r.day_of_week,
                start_time: r.start_time,
                end_time: r.end_time,
                recurrence_kind: stored(
                    "recurrence_kind",
                    &r.recurrence_kind,
                    RecurrenceKind::parse,
                )?,
                by_day: r.by_day,
                by_month: r.by_month,
                by_month_day: r.by_month_day,
                exdates: r.exdates.0,
                valid_from: r.valid_from,
                valid_to: r.valid_to,
            },
            created_at: r.created_at,
            updated_at: r.updated_at,
        })
    }
}

const TEMPLATE_COLUMNS: &str = "id, scope_type, scope_id, day_of_week, start_time, end_time, \
     recurrence_kind, by_day, by_month, by_month_day, exdates, valid_from, valid_to, \
     created_at, updated_at";

#[derive(kairos_store_macros::FromRow)]
struct DateRuleRow {
    id: Uuid,
    scope_type: String,
    scope_id: Uuid,
    kind: Option<String>,
    date_from: NaiveDate,
    date_to: NaiveDate,
    start_time: Option<String>,
    end_time: Option<String>,
    recurrence: String,
    reason: Option<String>,
    created_at: Timestamp,
    updated_at: Timestamp,
}

impl TryFrom<DateRuleRow> for DateRuleRecord {
    type Error = StoreError;

    fn try_from(r: DateRuleRow) -> Result<Self, StoreError> {
        Ok(DateRuleRecord {
            id: r.id,
            fields: NewDateRule {
                scope_type: stored("scope_type", &r.scope_type, ScopeType::parse)?,
                scope_id: r.scope_id,
                kind: r
                    .kind
                    .map(|k| stored("kind", &k, BlackoutKind::parse))
                    .transpose()?,
                date_from: r.date_from,
                date_to: r.date_to,
                start_time: r.start_time,
                end_time: r.end_time,
                recurrence: stored("recurrence", &r.recurrence, DateRecurrence::parse)?,
                reason: r.reason,
            },
            created_at: r.created_at,
            updated_at: r.updated_at,
        })
    }
}

fn table(kind: DateRuleKind) -> &'static str {
    match kind {
        DateRuleKind::Override => "schedule_overrides",
        DateRuleKind::Blackout => "schedule_blackouts",
    }
}

/// `kind` is a column of blackouts only; overrides read it as NULL.
fn date_rule_columns(kind: DateRuleKind) -> &'static str {
    match kind {
        DateRuleKind::Override => {
            "id, scope_type, scope_id, NULL AS kind, date_from, date_to, \
             start_time, end_time, recurrence, reason, created_at, updated_at"
        }
        DateRuleKind::Blackout => {
            "id, scope_type, scope_id, kind, date_from, date_to, \
             start_time, end_time, recurrence, reason, created_at, updated_at"
        }
    }
}

fn corrupt(what: &str, e: impl std::fmt::Display) -> StoreError {
    StoreError::Corrupt(format!("{what}: {e}"))
}

fn time(s: &str) -> StoreResult<LocalTime> {
    LocalTime::parse(s).map_err(|e| corrupt("schedule time", e))
}

fn u8_of(v: Option<i32>) -> Option<u8> {
    v.and_then(|x| u8::try_from(x).ok())
}

/// The domain form of a stored template.
pub(crate) fn template_rule(t: &NewTemplate) -> StoreResult<Template> {
    Ok(Template {
        day_of_week: u8_of(t.day_of_week),
        start: time(&t.start_time)?,
        end: time(&t.end_time)?,
        kind: t.recurrence_kind,
        by_day: u8_of(t.by_day),
        by_month: u8_of(t.by_month),
        by_month_day: u8_of(t.by_month_day),
        exdates: t.exdates.clone(),
        valid_from: t.valid_from,
        valid_to: t.valid_to,
    })
}

fn date_range(r: &NewDateRule) -> DateRange {
    DateRange {
        from: r.date_from,
        to: r.date_to,
        annual: r.recurrence.is_annual(),
    }
}

fn override_rule(r: &NewDateRule) -> StoreResult<Override> {
    Ok(Override {
        dates: date_range(r),
        start: time(r.start_time.as_deref().unwrap_or("00:00"))?,
        end: time(r.end_time.as_deref().unwrap_or("23:59"))?,
    })
}

fn blackout_rule(r: &NewDateRule) -> StoreResult<Blackout> {
    let hours = match (&r.start_time, &r.end_time) {
        (Some(s), Some(e)) => Some((time(s)?, time(e)?)),
        _ => None,
    };
    Ok(Blackout {
        dates: date_range(r),
        hours,
    })
}
