//! Slot regeneration: expands a product's schedules into slots over a span of dates.
//!
//! Regeneration never touches slots that have started, deletes unbooked slots that no
//! longer match, flags booked ones orphaned (and clears the flag when the schedule matches
//! again), and creates missing ones; running it twice changes nothing.

use super::super::availability::{SLOT_COLUMNS, SlotRow};
use super::super::catalog::{PRODUCT_COLUMNS, ProductRow};
use super::{
    DateRuleRow, Db, Repo, TEMPLATE_COLUMNS, TemplateRow, blackout_rule, corrupt,
    date_rule_columns, dialect, override_rule, table, template_rule, time,
};
use crate::{
    DateRuleKind, DateRuleRecord, DateSpan, NewDateRule, Product, RegenReport, ScheduleError,
    StoreResult, TemplateRecord, Timestamp,
};
use chrono::Duration;
use kairos_domain::TenantId;
use kairos_domain::catalog::SlotPolicyKind;
use kairos_domain::new_id;
use kairos_domain::scheduling::{
    self, DateRecurrence, Schedules, ScopeType, SlotPolicy, SlotShape, SlotTime,
};
use kairos_domain::tenancy::parse_time_zone;
use kairos_store_macros::operations;
use sqlx::{QueryBuilder, Transaction};
use std::collections::{HashMap, HashSet};
use uuid::Uuid;

pub(super) async fn load_templates(
    conn: &mut <Db as sqlx::Database>::Connection,
    tenant: &TenantId,
    scope_type: ScopeType,
    scope_id: Uuid,
) -> StoreResult<Vec<TemplateRecord>> {
    let rows: Vec<TemplateRow> = sqlx::query_as(sql!(
        "SELECT {TEMPLATE_COLUMNS} FROM schedule_templates
         WHERE tenant_id = $1 AND scope_type = $2 AND scope_id = $3 ORDER BY created_at, id"
    ))
    .bind(tenant.as_str())
    .bind(scope_type.as_str())
    .bind(scope_id)
    .fetch_all(&mut *conn)
    .await?;
    rows.into_iter().map(TemplateRecord::try_from).collect()
}

pub(super) async fn load_date_rules(
    conn: &mut <Db as sqlx::Database>::Connection,
    tenant: &TenantId,
    kind: DateRuleKind,
    scope_type: ScopeType,
    scope_id: Uuid,
) -> StoreResult<Vec<DateRuleRecord>> {
    let rows: Vec<DateRuleRow> = sqlx::query_as(sql!(
        "SELECT {} FROM {} WHERE tenant_id = $1 AND scope_type = $2 AND scope_id = $3
         ORDER BY date_from, id",
        date_rule_columns(kind),
        table(kind)
    ))
    .bind(tenant.as_str())
    .bind(scope_type.as_str())
    .bind(scope_id)
    .fetch_all(&mut *conn)
    .await?;
    rows.into_iter().map(DateRuleRecord::try_from).collect()
}

/// The schedules of one scope: its templates, overrides and blackouts.
pub(crate) async fn load_schedules(
    conn: &mut <Db as sqlx::Database>::Connection,
    tenant: &TenantId,
    scope_type: ScopeType,
    scope_id: Uuid,
) -> StoreResult<Schedules> {
    let templates = load_templates(conn, tenant, scope_type, scope_id)
        .await?
        .iter()
        .map(|t| template_rule(&t.fields))
        .collect::<StoreResult<Vec<_>>>()?;
    let overrides = load_date_rules(conn, tenant, DateRuleKind::Override, scope_type, scope_id)
        .await?
        .iter()
        .map(|r| override_rule(&r.fields))
        .collect::<StoreResult<Vec<_>>>()?;
    let blackouts = load_date_rules(conn, tenant, DateRuleKind::Blackout, scope_type, scope_id)
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
    let policy = if p.slot_policy == SlotPolicyKind::Fixed {
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
pub(super) async fn regenerate_product(
    tx: &mut Transaction<'static, Db>,
    tenant: &TenantId,
    product_id: Uuid,
    span: DateSpan,
    now: Timestamp,
    dry_run: bool,
) -> Result<RegenReport, ScheduleError> {
    dialect::lock_key(tx, &format!("slots:{tenant}:{product_id}")).await?;
    let product: Product = sqlx::query_as::<_, ProductRow>(sql!(
        "SELECT {PRODUCT_COLUMNS} FROM products WHERE tenant_id = $1 AND id = $2"
    ))
    .bind(tenant.as_str())
    .bind(product_id)
    .fetch_optional(&mut **tx)
    .await?
    .ok_or(ScheduleError::ProductNotFound)?
    .try_into()?;
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
        let site = load_schedules(tx, tenant, ScopeType::Site, product.site_id).await?;
        let own = load_schedules(tx, tenant, ScopeType::Product, product.id).await?;
        let shape = shape_of(&product)?;
        scheduling::slots_between(&tz, &site, &own, &shape, from, to)
            .into_iter()
            .filter(|s| s.starts_at >= lo && s.starts_at < hi)
            .collect()
    } else {
        Vec::new()
    };
    let wanted: HashMap<Timestamp, SlotTime> = desired.iter().map(|s| (s.starts_at, *s)).collect();

    let existing: Vec<SlotRow> = sqlx::query_as(sql!(
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
                                          updated_at = $7,
                                          projection_version = projection_version + 1
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
                    sqlx::query("UPDATE slots SET is_orphaned = $3, updated_at = $4, projection_version = projection_version + 1 WHERE tenant_id = $1 AND id = $2")
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
pub(super) async fn products_of_scope(
    tx: &mut Transaction<'static, Db>,
    tenant: &TenantId,
    scope_type: ScopeType,
    scope_id: Uuid,
) -> StoreResult<Vec<Uuid>> {
    let sql = match scope_type {
        ScopeType::Site => {
            "SELECT id FROM products WHERE tenant_id = $1 AND site_id = $2 ORDER BY id"
        }
        ScopeType::Product => "SELECT id FROM products WHERE tenant_id = $1 AND id = $2",
        // A resource's hours generate no slots: they decide, when availability is read
        // and seats are taken, which sessions its products are offered.
        ScopeType::Resource => return Ok(Vec::new()),
    };
    let ids: Vec<Uuid> = sqlx::query_scalar(sql)
        .bind(tenant.as_str())
        .bind(scope_id)
        .fetch_all(&mut **tx)
        .await?;
    Ok(ids)
}

/// `NotFound` unless the scope names a site or product of this tenant.
pub(super) async fn scope_exists(
    tx: &mut Transaction<'static, Db>,
    tenant: &TenantId,
    scope_type: ScopeType,
    scope_id: Uuid,
) -> Result<(), ScheduleError> {
    let sql = match scope_type {
        ScopeType::Site => "SELECT 1 FROM sites WHERE tenant_id = $1 AND id = $2",
        ScopeType::Product => "SELECT 1 FROM products WHERE tenant_id = $1 AND id = $2",
        ScopeType::Resource => "SELECT 1 FROM resources WHERE tenant_id = $1 AND id = $2",
    };
    let found: Option<i32> = sqlx::query_scalar(sql)
        .bind(tenant.as_str())
        .bind(scope_id)
        .fetch_optional(&mut **tx)
        .await?;
    found.map(|_| ()).ok_or(ScheduleError::ScopeNotFound)
}

/// Takes every product lock two scopes need, in one sorted pass, before a change that
/// regenerates both: taking them scope by scope could deadlock against a concurrent change
/// taking them in the other order (PostgreSQL advisory locks are re-entrant, so the
/// per-product lock taken again during regeneration is free).
pub(super) async fn lock_scopes(
    tx: &mut Transaction<'static, Db>,
    tenant: &TenantId,
    scopes: [(ScopeType, Uuid); 2],
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

pub(super) async fn regenerate_scope(
    tx: &mut Transaction<'static, Db>,
    tenant: &TenantId,
    scope_type: ScopeType,
    scope_id: Uuid,
    span: DateSpan,
    now: Timestamp,
    dry_run: bool,
) -> Result<RegenReport, ScheduleError> {
    let mut report = RegenReport::default();
    for product in products_of_scope(tx, tenant, scope_type, scope_id).await? {
        report.absorb(regenerate_product(tx, tenant, product, span, now, dry_run).await?);
    }
    Ok(report)
}

pub(super) fn rule_span(r: &NewDateRule) -> DateSpan {
    match r.recurrence {
        // An annual rule recurs on dates far beyond its own range: the whole horizon.
        DateRecurrence::Annual => WHOLE_HORIZON,
        DateRecurrence::None => DateSpan {
            from: Some(r.date_from),
            to: Some(r.date_to),
        },
    }
}

pub(super) const WHOLE_HORIZON: DateSpan = DateSpan {
    from: None,
    to: None,
};

#[operations]
impl Repo {
    /// Regenerates (or, with `dry_run`, previews) the slots of a scope over a date span.
    pub async fn regenerate(
        &self,
        tenant: &TenantId,
        scope_type: ScopeType,
        scope_id: Uuid,
        span: DateSpan,
        now: Timestamp,
        dry_run: bool,
    ) -> Result<RegenReport, ScheduleError> {
        let mut w = self.begin(tenant, now).await?;
        scope_exists(&mut w.tx, tenant, scope_type, scope_id).await?;
        let report =
            regenerate_scope(&mut w.tx, tenant, scope_type, scope_id, span, now, dry_run).await?;
        if dry_run {
            // A preview: dropping the write rolls it back.
            return Ok(report);
        }
        w.commit(None).await?;
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
}
