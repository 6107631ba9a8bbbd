//! Schedules (templates, overrides, blackouts), slot regeneration and slot reads.
//!
//! Every schedule change regenerates the affected slots in its own transaction: a
//! template change from today to the horizon, an override or blackout change over its
//! date range only. Regeneration never touches slots that have started, deletes unbooked
//! slots that no longer match, flags booked ones orphaned (and clears the flag when the
//! schedule matches again), and creates missing ones; running it twice changes nothing.

use super::audit::{self, Change, diff};
use super::{Db, Repo, dialect};
use crate::{
    Actor, Changed, DateRuleKind, DateRuleRecord, DateSpan, NewDateRule, NewTemplate, RegenReport,
    Slot, StoreError, StoreResult, TemplateRecord, Timestamp,
};
use chrono::{Duration, NaiveDate};
use kairos_domain::scheduling::{
    self, Blackout, DateRange, LocalTime, Override, RecurrenceKind, Schedules, SlotPolicy,
    SlotShape, SlotTime, Template,
};
use kairos_domain::tenancy::parse_time_zone;
use kairos_domain::{TenantId, new_id};
use serde_json::json;
use sqlx::types::Json;
use sqlx::{QueryBuilder, Transaction};
use std::collections::{HashMap, HashSet};
use uuid::Uuid;

use super::tenancy::{PRODUCT_COLUMNS, ProductRow};
use crate::Product;

#[derive(sqlx::FromRow)]
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

impl From<TemplateRow> for TemplateRecord {
    fn from(r: TemplateRow) -> Self {
        TemplateRecord {
            id: r.id,
            fields: NewTemplate {
                scope_type: r.scope_type,
                scope_id: r.scope_id,
                day_of_week: r.day_of_week,
                start_time: r.start_time,
                end_time: r.end_time,
                recurrence_kind: r.recurrence_kind,
                by_day: r.by_day,
                by_month: r.by_month,
                by_month_day: r.by_month_day,
                exdates: r.exdates.0,
                valid_from: r.valid_from,
                valid_to: r.valid_to,
            },
            created_at: r.created_at,
            updated_at: r.updated_at,
        }
    }
}

const TEMPLATE_COLUMNS: &str = "id, scope_type, scope_id, day_of_week, start_time, end_time, \
     recurrence_kind, by_day, by_month, by_month_day, exdates, valid_from, valid_to, \
     created_at, updated_at";

#[derive(sqlx::FromRow)]
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

impl From<DateRuleRow> for DateRuleRecord {
    fn from(r: DateRuleRow) -> Self {
        DateRuleRecord {
            id: r.id,
            fields: NewDateRule {
                scope_type: r.scope_type,
                scope_id: r.scope_id,
                kind: r.kind,
                date_from: r.date_from,
                date_to: r.date_to,
                start_time: r.start_time,
                end_time: r.end_time,
                recurrence: r.recurrence,
                reason: r.reason,
            },
            created_at: r.created_at,
            updated_at: r.updated_at,
        }
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

#[derive(sqlx::FromRow)]
struct SlotRow {
    id: Uuid,
    product_id: Uuid,
    site_id: Uuid,
    starts_at: Timestamp,
    ends_at: Timestamp,
    capacity: i32,
    booked: i32,
    is_orphaned: bool,
}

impl From<SlotRow> for Slot {
    fn from(r: SlotRow) -> Self {
        Slot {
            id: r.id,
            product_id: r.product_id,
            site_id: r.site_id,
            starts_at: r.starts_at,
            ends_at: r.ends_at,
            capacity: r.capacity,
            booked: r.booked,
            is_orphaned: r.is_orphaned,
        }
    }
}

const SLOT_COLUMNS: &str =
    "id, product_id, site_id, starts_at, ends_at, capacity, booked, is_orphaned";

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
        kind: RecurrenceKind::parse(&t.recurrence_kind)
            .ok_or_else(|| corrupt("recurrence kind", &t.recurrence_kind))?,
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
        annual: r.recurrence == "annual",
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

async fn load_templates(
    tx: &mut Transaction<'static, Db>,
    tenant: &TenantId,
    scope_type: &str,
    scope_id: Uuid,
) -> StoreResult<Vec<TemplateRecord>> {
    let rows: Vec<TemplateRow> = sqlx::query_as(&format!(
        "SELECT {TEMPLATE_COLUMNS} FROM schedule_templates
         WHERE tenant_id = $1 AND scope_type = $2 AND scope_id = $3 ORDER BY created_at, id"
    ))
    .bind(tenant.as_str())
    .bind(scope_type)
    .bind(scope_id)
    .fetch_all(&mut **tx)
    .await?;
    Ok(rows.into_iter().map(TemplateRecord::from).collect())
}

async fn load_date_rules(
    tx: &mut Transaction<'static, Db>,
    tenant: &TenantId,
    kind: DateRuleKind,
    scope_type: &str,
    scope_id: Uuid,
) -> StoreResult<Vec<DateRuleRecord>> {
    let rows: Vec<DateRuleRow> = sqlx::query_as(&format!(
        "SELECT {} FROM {} WHERE tenant_id = $1 AND scope_type = $2 AND scope_id = $3
         ORDER BY date_from, id",
        date_rule_columns(kind),
        table(kind)
    ))
    .bind(tenant.as_str())
    .bind(scope_type)
    .bind(scope_id)
    .fetch_all(&mut **tx)
    .await?;
    Ok(rows.into_iter().map(DateRuleRecord::from).collect())
}

async fn load_schedules(
    tx: &mut Transaction<'static, Db>,
    tenant: &TenantId,
    scope_type: &str,
    scope_id: Uuid,
) -> StoreResult<Schedules> {
    let templates = load_templates(tx, tenant, scope_type, scope_id)
        .await?
        .iter()
        .map(|t| template_rule(&t.fields))
        .collect::<StoreResult<Vec<_>>>()?;
    let overrides = load_date_rules(tx, tenant, DateRuleKind::Override, scope_type, scope_id)
        .await?
        .iter()
        .map(|r| override_rule(&r.fields))
        .collect::<StoreResult<Vec<_>>>()?;
    let blackouts = load_date_rules(tx, tenant, DateRuleKind::Blackout, scope_type, scope_id)
        .await?
        .iter()
        .map(|r| blackout_rule(&r.fields))
        .collect::<StoreResult<Vec<_>>>()?;
    Ok(Schedules {
        templates,
        overrides,
        blackouts,
    })
}

/// The slot shape of a product.
pub(crate) fn shape_of(p: &Product) -> StoreResult<SlotShape> {
    let policy = if p.slot_policy == "fixed" {
        let times = p
            .fixed_slot_times
            .iter()
            .map(|t| time(t))
            .collect::<StoreResult<Vec<_>>>()?;
        SlotPolicy::Fixed { times }
    } else {
        SlotPolicy::Interval {
            every_mins: u16::try_from(p.slot_interval_min).unwrap_or(30),
        }
    };
    let mins = |v: i32| u16::try_from(v.max(0)).unwrap_or(u16::MAX);
    Ok(SlotShape {
        policy,
        duration_mins: mins(p.duration_mins),
        setup_mins: mins(p.setup_time),
        cleanup_mins: mins(p.cleanup_time),
    })
}

/// Regenerates one product's slots over `span` inside `tx`.
async fn regenerate_product(
    tx: &mut Transaction<'static, Db>,
    tenant: &TenantId,
    product_id: Uuid,
    span: DateSpan,
    now: Timestamp,
    dry_run: bool,
) -> StoreResult<RegenReport> {
    dialect::lock_key(tx, &format!("slots:{tenant}:{product_id}")).await?;
    let product: Product = sqlx::query_as::<_, ProductRow>(&format!(
        "SELECT {PRODUCT_COLUMNS} FROM products WHERE tenant_id = $1 AND id = $2"
    ))
    .bind(tenant.as_str())
    .bind(product_id)
    .fetch_optional(&mut **tx)
    .await?
    .ok_or(StoreError::NotFound)?
    .into();
    let site_tz: String =
        sqlx::query_scalar("SELECT timezone FROM sites WHERE tenant_id = $1 AND id = $2")
            .bind(tenant.as_str())
            .bind(product.site_id)
            .fetch_one(&mut **tx)
            .await?;
    let tz = parse_time_zone(&site_tz).map_err(|e| corrupt("site time zone", e))?;
    let today = scheduling::local_date(&tz, now);
    let horizon = today + Duration::days(scheduling::HORIZON_DAYS);
    let from = span.from.unwrap_or(today).max(today);
    let to = span.to.unwrap_or(horizon).min(horizon);
    let mut report = RegenReport {
        products: 1,
        ..Default::default()
    };
    if from > to {
        return Ok(report);
    }
    let lo = scheduling::start_of_day(&tz, from)
        .ok_or_else(|| corrupt("date", from))?
        .max(now);
    let hi =
        scheduling::start_of_day(&tz, to + Duration::days(1)).ok_or_else(|| corrupt("date", to))?;

    let desired: Vec<SlotTime> = if product.is_active {
        let site = load_schedules(tx, tenant, "site", product.site_id).await?;
        let own = load_schedules(tx, tenant, "product", product.id).await?;
        let shape = shape_of(&product)?;
        scheduling::slots_between(&tz, &site, &own, &shape, from, to)
            .into_iter()
            .filter(|s| s.starts_at >= lo && s.starts_at < hi)
            .collect()
    } else {
        Vec::new()
    };
    let wanted: HashMap<Timestamp, SlotTime> = desired.iter().map(|s| (s.starts_at, *s)).collect();

    let existing: Vec<SlotRow> = sqlx::query_as(&format!(
        "SELECT {SLOT_COLUMNS} FROM slots
         WHERE tenant_id = $1 AND product_id = $2 AND starts_at >= $3 AND starts_at < $4"
    ))
    .bind(tenant.as_str())
    .bind(product_id)
    .bind(lo)
    .bind(hi)
    .fetch_all(&mut **tx)
    .await?;
    let mut present = HashSet::new();
    for slot in existing {
        present.insert(slot.starts_at);
        match wanted.get(&slot.starts_at) {
            Some(want) => {
                report.kept += 1;
                let changed = slot.is_orphaned
                    || slot.ends_at != want.ends_at
                    || slot.capacity != product.capacity
                    || slot.site_id != product.site_id;
                if slot.is_orphaned {
                    report.restored += 1;
                }
                if changed && !dry_run {
                    sqlx::query(
                        "UPDATE slots SET is_orphaned = $3, ends_at = $4, capacity = $5, site_id = $6,
                                          updated_at = $7
                         WHERE tenant_id = $1 AND id = $2",
                    )
                    .bind(tenant.as_str())
                    .bind(slot.id)
                    .bind(false)
                    .bind(want.ends_at)
                    .bind(product.capacity)
                    .bind(product.site_id)
                    .bind(now)
                    .execute(&mut **tx)
                    .await?;
                }
            }
            None if slot.booked > 0 => {
                report.orphaned += 1;
                if report.sample_orphaned.len() < RegenReport::SAMPLES {
                    report.sample_orphaned.push(slot.starts_at);
                }
                if !slot.is_orphaned && !dry_run {
                    sqlx::query("UPDATE slots SET is_orphaned = $3, updated_at = $4 WHERE tenant_id = $1 AND id = $2")
                        .bind(tenant.as_str())
                        .bind(slot.id)
                        .bind(true)
                        .bind(now)
                        .execute(&mut **tx)
                        .await?;
                }
            }
            None => {
                report.deleted += 1;
                if report.sample_deleted.len() < RegenReport::SAMPLES {
                    report.sample_deleted.push(slot.starts_at);
                }
                if !dry_run {
                    // `booked = 0` again here: a hold in between must not lose its slot.
                    sqlx::query(
                        "DELETE FROM slots WHERE tenant_id = $1 AND id = $2 AND booked = 0",
                    )
                    .bind(tenant.as_str())
                    .bind(slot.id)
                    .execute(&mut **tx)
                    .await?;
                }
            }
        }
    }
    let missing: Vec<SlotTime> = desired
        .into_iter()
        .filter(|s| !present.contains(&s.starts_at))
        .collect();
    report.created = missing.len();
    report.sample_created = missing
        .iter()
        .take(RegenReport::SAMPLES)
        .map(|s| s.starts_at)
        .collect();
    if !dry_run {
        for chunk in missing.chunks(200) {
            let mut qb: QueryBuilder<Db> = QueryBuilder::new(
                "INSERT INTO slots (tenant_id, id, product_id, site_id, starts_at, ends_at, capacity,
                                    booked, is_orphaned, created_at, updated_at) ",
            );
            qb.push_values(chunk, |mut b, s| {
                b.push_bind(tenant.as_str())
                    .push_bind(new_id())
                    .push_bind(product.id)
                    .push_bind(product.site_id)
                    .push_bind(s.starts_at)
                    .push_bind(s.ends_at)
                    .push_bind(product.capacity)
                    .push_bind(0_i32)
                    .push_bind(false)
                    .push_bind(now)
                    .push_bind(now);
            });
            qb.push(" ON CONFLICT (tenant_id, product_id, starts_at) DO NOTHING");
            qb.build().execute(&mut **tx).await?;
        }
    }
    Ok(report)
}

/// The products a scope covers: the product itself, or every product of the site.
async fn products_of_scope(
    tx: &mut Transaction<'static, Db>,
    tenant: &TenantId,
    scope_type: &str,
    scope_id: Uuid,
) -> StoreResult<Vec<Uuid>> {
    let sql = if scope_type == "site" {
        "SELECT id FROM products WHERE tenant_id = $1 AND site_id = $2 ORDER BY id"
    } else {
        "SELECT id FROM products WHERE tenant_id = $1 AND id = $2"
    };
    let ids: Vec<Uuid> = sqlx::query_scalar(sql)
        .bind(tenant.as_str())
        .bind(scope_id)
        .fetch_all(&mut **tx)
        .await?;
    Ok(ids)
}

/// `NotFound` unless the scope names a site or product of this tenant.
async fn scope_exists(
    tx: &mut Transaction<'static, Db>,
    tenant: &TenantId,
    scope_type: &str,
    scope_id: Uuid,
) -> StoreResult<()> {
    let sql = if scope_type == "site" {
        "SELECT 1 FROM sites WHERE tenant_id = $1 AND id = $2"
    } else {
        "SELECT 1 FROM products WHERE tenant_id = $1 AND id = $2"
    };
    let found: Option<i32> = sqlx::query_scalar(sql)
        .bind(tenant.as_str())
        .bind(scope_id)
        .fetch_optional(&mut **tx)
        .await?;
    found.map(|_| ()).ok_or(StoreError::NotFound)
}

/// Takes every product lock two scopes need, in one sorted pass, before a change that
/// regenerates both: taking them scope by scope could deadlock against a concurrent change
/// taking them in the other order (PostgreSQL advisory locks are re-entrant, so the
/// per-product lock taken again during regeneration is free).
async fn lock_scopes(
    tx: &mut Transaction<'static, Db>,
    tenant: &TenantId,
    scopes: [(&str, Uuid); 2],
) -> StoreResult<()> {
    let mut products = Vec::new();
    for (scope_type, scope_id) in scopes {
        products.extend(products_of_scope(tx, tenant, scope_type, scope_id).await?);
    }
    products.sort();
    products.dedup();
    for product in products {
        dialect::lock_key(tx, &format!("slots:{tenant}:{product}")).await?;
    }
    Ok(())
}

async fn regenerate_scope(
    tx: &mut Transaction<'static, Db>,
    tenant: &TenantId,
    scope_type: &str,
    scope_id: Uuid,
    span: DateSpan,
    now: Timestamp,
    dry_run: bool,
) -> StoreResult<RegenReport> {
    let mut report = RegenReport::default();
    for product in products_of_scope(tx, tenant, scope_type, scope_id).await? {
        report.absorb(regenerate_product(tx, tenant, product, span, now, dry_run).await?);
    }
    Ok(report)
}

fn rule_span(r: &NewDateRule) -> DateSpan {
    if r.recurrence == "annual" {
        DateSpan {
            from: None,
            to: None,
        }
    } else {
        DateSpan {
            from: Some(r.date_from),
            to: Some(r.date_to),
        }
    }
}

const WHOLE_HORIZON: DateSpan = DateSpan {
    from: None,
    to: None,
};

impl Repo {
    pub async fn create_template(
        &self,
        tenant: &TenantId,
        new: NewTemplate,
        actor: &Actor,
        now: Timestamp,
    ) -> StoreResult<Changed<TemplateRecord>> {
        let mut tx = self.begin_write().await?;
        scope_exists(&mut tx, tenant, &new.scope_type, new.scope_id).await?;
        let id = new_id();
        let row: TemplateRow = sqlx::query_as(&format!(
            "INSERT INTO schedule_templates (tenant_id, id, scope_type, scope_id, day_of_week,
                 start_time, end_time, recurrence_kind, by_day, by_month, by_month_day, exdates,
                 valid_from, valid_to, created_at, updated_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $15)
             RETURNING {TEMPLATE_COLUMNS}"
        ))
        .bind(tenant.as_str())
        .bind(id)
        .bind(&new.scope_type)
        .bind(new.scope_id)
        .bind(new.day_of_week)
        .bind(&new.start_time)
        .bind(&new.end_time)
        .bind(&new.recurrence_kind)
        .bind(new.by_day)
        .bind(new.by_month)
        .bind(new.by_month_day)
        .bind(Json(&new.exdates))
        .bind(new.valid_from)
        .bind(new.valid_to)
        .bind(now)
        .fetch_one(&mut *tx)
        .await?;
        audit::record(
            &mut tx,
            tenant,
            actor,
            Change {
                action: "schedule_template.created",
                entity_type: "schedule_template",
                entity_id: id.to_string(),
                changes: json!(new),
            },
            now,
        )
        .await?;
        let regeneration = regenerate_scope(
            &mut tx,
            tenant,
            &new.scope_type,
            new.scope_id,
            WHOLE_HORIZON,
            now,
            false,
        )
        .await?;
        tx.commit().await?;
        Ok(Changed {
            record: row.into(),
            regeneration,
        })
    }

    pub async fn get_template(
        &self,
        tenant: &TenantId,
        id: Uuid,
    ) -> StoreResult<Option<TemplateRecord>> {
        let row: Option<TemplateRow> = sqlx::query_as(&format!(
            "SELECT {TEMPLATE_COLUMNS} FROM schedule_templates WHERE tenant_id = $1 AND id = $2"
        ))
        .bind(tenant.as_str())
        .bind(id)
        .fetch_optional(&self.read)
        .await?;
        Ok(row.map(TemplateRecord::from))
    }

    /// Templates of the tenant, optionally of one scope.
    pub async fn list_templates(
        &self,
        tenant: &TenantId,
        scope: Option<(String, Uuid)>,
    ) -> StoreResult<Vec<TemplateRecord>> {
        let rows: Vec<TemplateRow> = match scope {
            Some((scope_type, scope_id)) => sqlx::query_as(&format!(
                "SELECT {TEMPLATE_COLUMNS} FROM schedule_templates
                 WHERE tenant_id = $1 AND scope_type = $2 AND scope_id = $3 ORDER BY created_at, id"
            ))
            .bind(tenant.as_str())
            .bind(scope_type)
            .bind(scope_id)
            .fetch_all(&self.read)
            .await?,
            None => sqlx::query_as(&format!(
                "SELECT {TEMPLATE_COLUMNS} FROM schedule_templates WHERE tenant_id = $1 ORDER BY created_at, id"
            ))
            .bind(tenant.as_str())
            .fetch_all(&self.read)
            .await?,
        };
        Ok(rows.into_iter().map(TemplateRecord::from).collect())
    }

    pub async fn update_template(
        &self,
        tenant: &TenantId,
        id: Uuid,
        new: NewTemplate,
        actor: &Actor,
        now: Timestamp,
    ) -> StoreResult<Changed<TemplateRecord>> {
        let mut tx = self.begin_write().await?;
        let before: TemplateRecord = sqlx::query_as::<_, TemplateRow>(&format!(
            "SELECT {TEMPLATE_COLUMNS} FROM schedule_templates WHERE tenant_id = $1 AND id = $2"
        ))
        .bind(tenant.as_str())
        .bind(id)
        .fetch_optional(&mut *tx)
        .await?
        .ok_or(StoreError::NotFound)?
        .into();
        scope_exists(&mut tx, tenant, &new.scope_type, new.scope_id).await?;
        let row: TemplateRow = sqlx::query_as(&format!(
            "UPDATE schedule_templates SET scope_type = $3, scope_id = $4, day_of_week = $5,
                 start_time = $6, end_time = $7, recurrence_kind = $8, by_day = $9, by_month = $10,
                 by_month_day = $11, exdates = $12, valid_from = $13, valid_to = $14, updated_at = $15
             WHERE tenant_id = $1 AND id = $2
             RETURNING {TEMPLATE_COLUMNS}"
        ))
        .bind(tenant.as_str())
        .bind(id)
        .bind(&new.scope_type)
        .bind(new.scope_id)
        .bind(new.day_of_week)
        .bind(&new.start_time)
        .bind(&new.end_time)
        .bind(&new.recurrence_kind)
        .bind(new.by_day)
        .bind(new.by_month)
        .bind(new.by_month_day)
        .bind(Json(&new.exdates))
        .bind(new.valid_from)
        .bind(new.valid_to)
        .bind(now)
        .fetch_one(&mut *tx)
        .await?;
        let after = TemplateRecord::from(row);
        audit::record(
            &mut tx,
            tenant,
            actor,
            Change {
                action: "schedule_template.updated",
                entity_type: "schedule_template",
                entity_id: id.to_string(),
                changes: diff(&before.fields, &after.fields),
            },
            now,
        )
        .await?;
        lock_scopes(
            &mut tx,
            tenant,
            [
                (&before.fields.scope_type, before.fields.scope_id),
                (&new.scope_type, new.scope_id),
            ],
        )
        .await?;
        let mut regeneration = regenerate_scope(
            &mut tx,
            tenant,
            &new.scope_type,
            new.scope_id,
            WHOLE_HORIZON,
            now,
            false,
        )
        .await?;
        if (before.fields.scope_type.as_str(), before.fields.scope_id)
            != (new.scope_type.as_str(), new.scope_id)
        {
            regeneration.absorb(
                regenerate_scope(
                    &mut tx,
                    tenant,
                    &before.fields.scope_type,
                    before.fields.scope_id,
                    WHOLE_HORIZON,
                    now,
                    false,
                )
                .await?,
            );
        }
        tx.commit().await?;
        Ok(Changed {
            record: after,
            regeneration,
        })
    }

    pub async fn delete_template(
        &self,
        tenant: &TenantId,
        id: Uuid,
        actor: &Actor,
        now: Timestamp,
    ) -> StoreResult<Changed<TemplateRecord>> {
        let mut tx = self.begin_write().await?;
        let before: TemplateRecord = sqlx::query_as::<_, TemplateRow>(&format!(
            "DELETE FROM schedule_templates WHERE tenant_id = $1 AND id = $2 RETURNING {TEMPLATE_COLUMNS}"
        ))
        .bind(tenant.as_str())
        .bind(id)
        .fetch_optional(&mut *tx)
        .await?
        .ok_or(StoreError::NotFound)?
        .into();
        audit::record(
            &mut tx,
            tenant,
            actor,
            Change {
                action: "schedule_template.deleted",
                entity_type: "schedule_template",
                entity_id: id.to_string(),
                changes: json!(before.fields),
            },
            now,
        )
        .await?;
        let regeneration = regenerate_scope(
            &mut tx,
            tenant,
            &before.fields.scope_type,
            before.fields.scope_id,
            WHOLE_HORIZON,
            now,
            false,
        )
        .await?;
        tx.commit().await?;
        Ok(Changed {
            record: before,
            regeneration,
        })
    }

    pub async fn create_date_rule(
        &self,
        tenant: &TenantId,
        kind: DateRuleKind,
        new: NewDateRule,
        actor: &Actor,
        now: Timestamp,
    ) -> StoreResult<Changed<DateRuleRecord>> {
        let mut tx = self.begin_write().await?;
        scope_exists(&mut tx, tenant, &new.scope_type, new.scope_id).await?;
        let id = new_id();
        let (columns, values) = match kind {
            DateRuleKind::Override => ("", ""),
            DateRuleKind::Blackout => (", kind", ", $12"),
        };
        let row: DateRuleRow = sqlx::query_as(&format!(
            "INSERT INTO {} (tenant_id, id, scope_type, scope_id, date_from, date_to, start_time,
                 end_time, recurrence, reason, created_at, updated_at{columns})
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $11{values})
             RETURNING {}",
            table(kind),
            date_rule_columns(kind)
        ))
        .bind(tenant.as_str())
        .bind(id)
        .bind(&new.scope_type)
        .bind(new.scope_id)
        .bind(new.date_from)
        .bind(new.date_to)
        .bind(&new.start_time)
        .bind(&new.end_time)
        .bind(&new.recurrence)
        .bind(&new.reason)
        .bind(now)
        .bind(&new.kind)
        .fetch_one(&mut *tx)
        .await?;
        let entity = match kind {
            DateRuleKind::Override => "schedule_override",
            DateRuleKind::Blackout => "schedule_blackout",
        };
        audit::record(
            &mut tx,
            tenant,
            actor,
            Change {
                action: &format!("{entity}.created"),
                entity_type: entity,
                entity_id: id.to_string(),
                changes: json!(new),
            },
            now,
        )
        .await?;
        let regeneration = regenerate_scope(
            &mut tx,
            tenant,
            &new.scope_type,
            new.scope_id,
            rule_span(&new),
            now,
            false,
        )
        .await?;
        tx.commit().await?;
        Ok(Changed {
            record: row.into(),
            regeneration,
        })
    }

    /// Replaces an override's or blackout's fields; regenerates its old and new dates.
    pub async fn update_date_rule(
        &self,
        tenant: &TenantId,
        kind: DateRuleKind,
        id: Uuid,
        new: NewDateRule,
        actor: &Actor,
        now: Timestamp,
    ) -> StoreResult<Changed<DateRuleRecord>> {
        let mut tx = self.begin_write().await?;
        let before: DateRuleRecord = sqlx::query_as::<_, DateRuleRow>(&format!(
            "SELECT {} FROM {} WHERE tenant_id = $1 AND id = $2",
            date_rule_columns(kind),
            table(kind)
        ))
        .bind(tenant.as_str())
        .bind(id)
        .fetch_optional(&mut *tx)
        .await?
        .ok_or(StoreError::NotFound)?
        .into();
        scope_exists(&mut tx, tenant, &new.scope_type, new.scope_id).await?;
        let kind_column = match kind {
            DateRuleKind::Override => "",
            DateRuleKind::Blackout => ", kind = $12",
        };
        let row: DateRuleRow = sqlx::query_as(&format!(
            "UPDATE {} SET scope_type = $3, scope_id = $4, date_from = $5, date_to = $6,
                 start_time = $7, end_time = $8, recurrence = $9, reason = $10, updated_at = $11{kind_column}
             WHERE tenant_id = $1 AND id = $2
             RETURNING {}",
            table(kind),
            date_rule_columns(kind)
        ))
        .bind(tenant.as_str())
        .bind(id)
        .bind(&new.scope_type)
        .bind(new.scope_id)
        .bind(new.date_from)
        .bind(new.date_to)
        .bind(&new.start_time)
        .bind(&new.end_time)
        .bind(&new.recurrence)
        .bind(&new.reason)
        .bind(now)
        .bind(&new.kind)
        .fetch_one(&mut *tx)
        .await?;
        let after = DateRuleRecord::from(row);
        let entity = match kind {
            DateRuleKind::Override => "schedule_override",
            DateRuleKind::Blackout => "schedule_blackout",
        };
        audit::record(
            &mut tx,
            tenant,
            actor,
            Change {
                action: &format!("{entity}.updated"),
                entity_type: entity,
                entity_id: id.to_string(),
                changes: diff(&before.fields, &after.fields),
            },
            now,
        )
        .await?;
        lock_scopes(
            &mut tx,
            tenant,
            [
                (&before.fields.scope_type, before.fields.scope_id),
                (&after.fields.scope_type, after.fields.scope_id),
            ],
        )
        .await?;
        let mut regeneration = regenerate_scope(
            &mut tx,
            tenant,
            &before.fields.scope_type,
            before.fields.scope_id,
            rule_span(&before.fields),
            now,
            false,
        )
        .await?;
        let second = regenerate_scope(
            &mut tx,
            tenant,
            &after.fields.scope_type,
            after.fields.scope_id,
            rule_span(&after.fields),
            now,
            false,
        )
        .await?;
        regeneration.absorb(second);
        tx.commit().await?;
        Ok(Changed {
            record: after,
            regeneration,
        })
    }

    pub async fn get_date_rule(
        &self,
        tenant: &TenantId,
        kind: DateRuleKind,
        id: Uuid,
    ) -> StoreResult<Option<DateRuleRecord>> {
        let row: Option<DateRuleRow> = sqlx::query_as(&format!(
            "SELECT {} FROM {} WHERE tenant_id = $1 AND id = $2",
            date_rule_columns(kind),
            table(kind)
        ))
        .bind(tenant.as_str())
        .bind(id)
        .fetch_optional(&self.read)
        .await?;
        Ok(row.map(DateRuleRecord::from))
    }

    pub async fn list_date_rules(
        &self,
        tenant: &TenantId,
        kind: DateRuleKind,
        scope: Option<(String, Uuid)>,
    ) -> StoreResult<Vec<DateRuleRecord>> {
        let base = format!(
            "SELECT {} FROM {} WHERE tenant_id = $1",
            date_rule_columns(kind),
            table(kind)
        );
        let rows: Vec<DateRuleRow> = match scope {
            Some((scope_type, scope_id)) => {
                sqlx::query_as(&format!(
                    "{base} AND scope_type = $2 AND scope_id = $3 ORDER BY date_from, id"
                ))
                .bind(tenant.as_str())
                .bind(scope_type)
                .bind(scope_id)
                .fetch_all(&self.read)
                .await?
            }
            None => {
                sqlx::query_as(&format!("{base} ORDER BY date_from, id"))
                    .bind(tenant.as_str())
                    .fetch_all(&self.read)
                    .await?
            }
        };
        Ok(rows.into_iter().map(DateRuleRecord::from).collect())
    }

    pub async fn delete_date_rule(
        &self,
        tenant: &TenantId,
        kind: DateRuleKind,
        id: Uuid,
        actor: &Actor,
        now: Timestamp,
    ) -> StoreResult<Changed<DateRuleRecord>> {
        let mut tx = self.begin_write().await?;
        let before: DateRuleRecord = sqlx::query_as::<_, DateRuleRow>(&format!(
            "DELETE FROM {} WHERE tenant_id = $1 AND id = $2 RETURNING {}",
            table(kind),
            date_rule_columns(kind)
        ))
        .bind(tenant.as_str())
        .bind(id)
        .fetch_optional(&mut *tx)
        .await?
        .ok_or(StoreError::NotFound)?
        .into();
        let entity = match kind {
            DateRuleKind::Override => "schedule_override",
            DateRuleKind::Blackout => "schedule_blackout",
        };
        audit::record(
            &mut tx,
            tenant,
            actor,
            Change {
                action: &format!("{entity}.deleted"),
                entity_type: entity,
                entity_id: id.to_string(),
                changes: json!(before.fields),
            },
            now,
        )
        .await?;
        let regeneration = regenerate_scope(
            &mut tx,
            tenant,
            &before.fields.scope_type,
            before.fields.scope_id,
            rule_span(&before.fields),
            now,
            false,
        )
        .await?;
        tx.commit().await?;
        Ok(Changed {
            record: before,
            regeneration,
        })
    }

    /// Regenerates (or, with `dry_run`, previews) the slots of a scope over a date span.
    pub async fn regenerate(
        &self,
        tenant: &TenantId,
        scope_type: &str,
        scope_id: Uuid,
        span: DateSpan,
        now: Timestamp,
        dry_run: bool,
    ) -> StoreResult<RegenReport> {
        let mut tx = self.begin_write().await?;
        scope_exists(&mut tx, tenant, scope_type, scope_id).await?;
        let report =
            regenerate_scope(&mut tx, tenant, scope_type, scope_id, span, now, dry_run).await?;
        if dry_run {
            tx.rollback().await?;
        } else {
            tx.commit().await?;
        }
        Ok(report)
    }

    /// Every (tenant, product) pair, for the daily generation worker.
    pub async fn all_products(&self) -> StoreResult<Vec<(TenantId, Uuid)>> {
        let rows: Vec<(String, Uuid)> =
            sqlx::query_as("SELECT tenant_id, id FROM products ORDER BY tenant_id, id")
                .fetch_all(&self.read)
                .await?;
        rows.into_iter()
            .map(|(t, id)| {
                Ok((
                    TenantId::parse(&t).map_err(|e| corrupt("tenant id", e))?,
                    id,
                ))
            })
            .collect()
    }

    /// Slots of a product open to a party: not started, not orphaned, with room.
    pub async fn open_slots(
        &self,
        tenant: &TenantId,
        product: Uuid,
        from: Timestamp,
        to: Timestamp,
        party_size: i32,
        now: Timestamp,
    ) -> StoreResult<Vec<Slot>> {
        let rows: Vec<SlotRow> = sqlx::query_as(&format!(
            "SELECT {SLOT_COLUMNS} FROM slots
             WHERE tenant_id = $1 AND product_id = $2 AND starts_at >= $3 AND starts_at < $4
               AND is_orphaned = $5 AND capacity - booked >= $6
             ORDER BY starts_at"
        ))
        .bind(tenant.as_str())
        .bind(product)
        .bind(from.max(now))
        .bind(to)
        .bind(false)
        .bind(party_size)
        .fetch_all(&self.read)
        .await?;
        Ok(rows.into_iter().map(Slot::from).collect())
    }

    /// Every slot of a product in a range, orphaned or full ones included (administration).
    pub async fn list_slots(
        &self,
        tenant: &TenantId,
        product: Uuid,
        from: Timestamp,
        to: Timestamp,
    ) -> StoreResult<Vec<Slot>> {
        let rows: Vec<SlotRow> = sqlx::query_as(&format!(
            "SELECT {SLOT_COLUMNS} FROM slots
             WHERE tenant_id = $1 AND product_id = $2 AND starts_at >= $3 AND starts_at < $4
             ORDER BY starts_at"
        ))
        .bind(tenant.as_str())
        .bind(product)
        .bind(from)
        .bind(to)
        .fetch_all(&self.read)
        .await?;
        Ok(rows.into_iter().map(Slot::from).collect())
    }
}
