//! Resources taken for bookings (spec Part B 2.4, 3.2), inside the booking's write: every
//! window of a request checked against the resource's live allocations under a lock of the
//! resource, so a resource is never given beyond what its shared mode allows; released
//! when the booking ends, confirmed with it after a recheck.
//!
//! Lock order: the booking row (the caller's), then resource rows in id order.

use super::super::write::Write;
use super::super::{Db, dialect};
use crate::{
    AddonConfig, AddonSelection, Allocation, AllocationRequest, AlternativeWindow, Booking,
    BookingAddon, BookingError, BookingRefusal, ConflictReason, ResourceConflict, ResourceError,
    StoreError, StoreResult, Timestamp,
};
use kairos_domain::resource_policies::{Breach, Policies, effective};
use kairos_domain::resources::{
    AllocationStatus, SharedMode, WindowPosition, blocked, fits, peak_use, position_of, units,
    windows,
};
use kairos_domain::{FieldErrors, TenantId, new_id};
use sqlx::Transaction;
use uuid::Uuid;

/// The exclusion constraint of EXCLUSIVE resources (PostgreSQL).
pub(super) const EXCLUSIVE_CONSTRAINT: &str = "resource_allocations_exclusive";

type Tx = Transaction<'static, Db>;

/// The active configuration `id` of `product`, if there is one.
async fn active_config(
    tx: &mut Tx,
    tenant: &TenantId,
    product: Uuid,
    id: Uuid,
) -> StoreResult<Option<AddonConfig>> {
    match super::configs::config_in(tx, tenant, product, id).await {
        Ok(c) if c.config.is_active => Ok(Some(c)),
        Ok(_) | Err(ResourceError::ConfigNotFound) => Ok(None),
        Err(ResourceError::Store(e)) => Err(e),
        Err(e) => Err(StoreError::Corrupt(format!("configuration: {e}"))),
    }
}

/// Works out the allocation requests of `selections` for the locked booking `b` from its
/// product's configurations as they are now: each must be an active add-on of the
/// product, of a length its rule allows (422), and a window before, during or after the
/// activity that the add-on allows; priced for the party.
pub(crate) async fn requests_for(
    w: &mut Write,
    b: &Booking,
    selections: &[AddonSelection],
    by_staff: bool,
) -> Result<Vec<AllocationRequest>, BookingError> {
    let mut errors = FieldErrors::new();
    let mut out = Vec::new();
    for (i, s) in selections.iter().enumerate() {
        let field = |f: &str| format!("selections[{i}].{f}");
        let Some(c) = active_config(&mut w.tx, &w.tenant, b.product_id, s.config_id).await? else {
            return Err(BookingRefusal::AddonConfigNotFound { index: i }.into());
        };
        if (s.ends_at - s.starts_at).num_minutes() != i64::from(s.duration_mins)
            || s.ends_at <= s.starts_at
        {
            errors.add(field("endsAt"), "must be durationMins after startsAt");
            continue;
        }
        let rule = c
            .config
            .rule()
            .ok_or_else(|| StoreError::Corrupt("configuration rule".into()))?;
        if let Err(message) = rule.check(s.duration_mins) {
            return Err(BookingRefusal::DurationNotAllowed {
                field: field("durationMins"),
                message,
            }
            .into());
        }
        let allowed = c.config.positions();
        let position =
            position_of(b.starts_at, b.ends_at, s.starts_at, s.ends_at).filter(|p| match p {
                WindowPosition::Before => allowed.before,
                WindowPosition::During => allowed.during,
                WindowPosition::After => allowed.after,
            });
        let Some(position) = position else {
            errors.add(
                field("startsAt"),
                "is not a window of this add-on: it must end when the activity starts, start \
                 when it starts (and end within it) or start when it ends, as the add-on allows",
            );
            continue;
        };
        if c.config.max_capacity.is_some_and(|m| b.party_size > m) {
            return Err(BookingRefusal::ResourceUnavailable {
                resource_id: c.config.resource_id,
            }
            .into());
        }
        let policies = policies_of(w, c.config.resource_id).await?;
        if let Err(breach) = policies.check(w.now, s.starts_at, s.duration_mins, by_staff) {
            return Err(match breach {
                Breach::TooLong { .. } => BookingRefusal::DurationNotAllowed {
                    field: field("durationMins"),
                    message: breach.message(),
                },
                _ => BookingRefusal::ResourcePolicy {
                    policy: breach.policy(),
                    message: breach.message(),
                },
            }
            .into());
        }
        let price = c
            .config
            .pricing()
            .price(s.duration_mins, b.party_size)
            .ok_or_else(|| StoreError::Corrupt("configuration price".into()))?;
        let (before, after) =
            policies.buffers(c.config.buffer_before_mins, c.config.buffer_after_mins);
        let (blocked_from, blocked_until) = blocked(s.starts_at, s.ends_at, before, after);
        out.push(AllocationRequest {
            config_id: c.id,
            resource_id: c.config.resource_id,
            position,
            starts_at: s.starts_at,
            ends_at: s.ends_at,
            blocked_from,
            blocked_until,
            duration_mins: s.duration_mins,
            units: 1,
            price,
        });
    }
    errors.finish().map_err(BookingError::Invalid)?;
    Ok(out)
}

/// The effective booking policies of `resource` (its own, else its group's, else the
/// defaults), read in the transaction.
async fn policies_of(w: &mut Write, resource: Uuid) -> StoreResult<Policies> {
    let (own, group) = super::groups::policy_sets(&mut w.tx, &w.tenant, resource).await?;
    Ok(effective(&own, group.as_ref()).0)
}

/// The resource's mode, capacity and active flag, locked (PostgreSQL; SQLite's write lock
/// is the transaction's).
pub(super) async fn lock_resource(
    tx: &mut Tx,
    tenant: &TenantId,
    id: Uuid,
) -> StoreResult<Option<(SharedMode, i32, bool)>> {
    let row: Option<(String, i32, bool)> = sqlx::query_as(sql!(
        "SELECT shared_mode, capacity, is_active FROM resources WHERE tenant_id = $1 AND id = $2{}",
        dialect::FOR_UPDATE
    ))
    .bind(tenant.as_str())
    .bind(id)
    .fetch_optional(&mut **tx)
    .await?;
    row.map(|(mode, capacity, active)| {
        Ok((
            crate::stored("shared_mode", &mode, SharedMode::parse)?,
            capacity,
            active,
        ))
    })
    .transpose()
}

/// What holds a resource: its live allocations, the sessions it was given to while they
/// have a booking (a POOLED resource gives a session one unit per person booked), and
/// its blackouts (the whole of it); and one row of `units` [`HOURS_MARK`] when it has
/// opening hours of its own, which [`uses`] replaces by the times it is closed.
/// `$1` tenant, `$2` resource, `[$3, $4)` the range met.
pub(crate) const USES: &str =
    "SELECT blocked_from, blocked_until, units, booking_id, NULL AS slot_id
     FROM resource_allocations
     WHERE tenant_id = $1 AND resource_id = $2 AND status <> 'RELEASED'
       AND blocked_from < $4 AND blocked_until > $3
     UNION ALL
     SELECT u.blocked_from, u.blocked_until,
            CASE WHEN r.shared_mode = 'POOLED' THEN s.booked ELSE 1 END, NULL, u.slot_id
     FROM session_resources u
     JOIN slots s ON s.tenant_id = u.tenant_id AND s.id = u.slot_id
     JOIN resources r ON r.tenant_id = u.tenant_id AND r.id = u.resource_id
     WHERE u.tenant_id = $1 AND u.resource_id = $2 AND s.booked > 0
       AND u.blocked_from < $4 AND u.blocked_until > $3
     UNION ALL
     SELECT x.starts_at, x.ends_at, r.capacity, NULL, NULL
     FROM resource_blackouts x
     JOIN resources r ON r.tenant_id = x.tenant_id AND r.id = x.resource_id
     WHERE x.tenant_id = $1 AND x.resource_id = $2 AND x.starts_at < $4 AND x.ends_at > $3
     UNION ALL
     SELECT $3, $4, -1, NULL, NULL
     WHERE EXISTS (SELECT 1 FROM schedule_templates h WHERE h.tenant_id = $1
                     AND h.scope_type = 'resource' AND h.scope_id = $2)
        OR EXISTS (SELECT 1 FROM schedule_overrides h WHERE h.tenant_id = $1
                     AND h.scope_type = 'resource' AND h.scope_id = $2)
        OR EXISTS (SELECT 1 FROM schedule_blackouts h WHERE h.tenant_id = $1
                     AND h.scope_type = 'resource' AND h.scope_id = $2)";

/// The `units` of the row of [`USES`] saying the resource has opening hours of its own.
const HOURS_MARK: i32 = -1;

/// One use of a resource: a booking's allocation, a session's, or a blackout.
#[derive(kairos_store_macros::FromRow)]
pub(crate) struct Use {
    pub blocked_from: Timestamp,
    pub blocked_until: Timestamp,
    pub units: i32,
    pub booking_id: Option<Uuid>,
    pub slot_id: Option<Uuid>,
}

impl Use {
    pub(crate) fn triple(&self) -> (Timestamp, Timestamp, i32) {
        (self.blocked_from, self.blocked_until, self.units)
    }
}

/// Every use of `resource` meeting `[from, to)` ([`USES`]), the times it is closed
/// included.
pub(crate) async fn uses(
    conn: &mut <Db as sqlx::Database>::Connection,
    tenant: &TenantId,
    resource: Uuid,
    (from, to): (Timestamp, Timestamp),
) -> StoreResult<Vec<Use>> {
    let mut all: Vec<Use> = sqlx::query_as(USES)
        .bind(tenant.as_str())
        .bind(resource)
        .bind(from)
        .bind(to)
        .fetch_all(&mut *conn)
        .await?;
    if let Some(i) = all.iter().position(|u| u.units == HOURS_MARK) {
        all.swap_remove(i);
        all.extend(super::hours::closed(conn, tenant, resource, (from, to)).await?);
    }
    Ok(all)
}

/// The uses of `resource` meeting `[from, to)`, as (blocked from, blocked until, units),
/// leaving out `exclude_booking`'s own allocations.
pub(super) async fn use_of(
    tx: &mut Tx,
    tenant: &TenantId,
    resource: Uuid,
    range: (Timestamp, Timestamp),
    exclude_booking: Option<Uuid>,
) -> StoreResult<Vec<(Timestamp, Timestamp, i32)>> {
    Ok(uses(tx, tenant, resource, range)
        .await?
        .iter()
        .filter(|u| exclude_booking.is_none() || u.booking_id != exclude_booking)
        .map(Use::triple)
        .collect())
}

/// Takes every request for the locked booking `booking` of `party` people, with
/// `status`, or none of them: a resource not free for a window (buffers included) is
/// [`BookingRefusal::ResourceUnavailable`] and the caller's transaction is rolled back.
pub(crate) async fn take(
    w: &mut Write,
    booking: Uuid,
    party: i32,
    requests: Vec<AllocationRequest>,
    status: AllocationStatus,
) -> Result<Vec<Allocation>, BookingError> {
    let mut ids: Vec<Uuid> = requests.iter().map(|r| r.resource_id).collect();
    ids.sort();
    ids.dedup();
    let mut modes = Vec::new();
    for id in ids {
        match lock_resource(&mut w.tx, &w.tenant, id).await? {
            Some((mode, capacity, true)) => modes.push((id, mode, capacity)),
            _ => return Err(BookingRefusal::ResourceUnavailable { resource_id: id }.into()),
        }
    }
    let mut made = Vec::new();
    for mut r in requests {
        let Some(&(_, mode, capacity)) = modes.iter().find(|m| m.0 == r.resource_id) else {
            return Err(StoreError::Corrupt("resource not locked".into()).into());
        };
        r.units = units(mode, party);
        let range = (r.blocked_from, r.blocked_until);
        let taken = use_of(&mut w.tx, &w.tenant, r.resource_id, range, None).await?;
        if !fits(mode, capacity, peak_use(&taken, range.0, range.1), r.units) {
            return Err(BookingRefusal::ResourceUnavailable {
                resource_id: r.resource_id,
            }
            .into());
        }
        let id = new_id();
        let inserted = sqlx::query(
            "INSERT INTO resource_allocations (tenant_id, id, booking_id, config_id,
                 resource_id, position, starts_at, ends_at, blocked_from, blocked_until,
                 duration_mins, units, exclusive, price, status, created_at, updated_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15,
                 $16, $16)",
        )
        .bind(w.tenant.as_str())
        .bind(id)
        .bind(booking)
        .bind(r.config_id)
        .bind(r.resource_id)
        .bind(r.position.as_str())
        .bind(r.starts_at)
        .bind(r.ends_at)
        .bind(r.blocked_from)
        .bind(r.blocked_until)
        .bind(r.duration_mins)
        .bind(r.units)
        .bind(mode == SharedMode::Exclusive)
        .bind(r.price)
        .bind(status.as_str())
        .bind(w.now)
        .execute(&mut *w.tx)
        .await;
        match inserted {
            Err(e) if dialect::violates_exclusion(&e, EXCLUSIVE_CONSTRAINT) => {
                return Err(BookingRefusal::ResourceUnavailable {
                    resource_id: r.resource_id,
                }
                .into());
            }
            other => other.map_err(StoreError::from)?,
        };
        made.push(Allocation {
            id,
            booking_id: booking,
            request: r,
            status,
            created_at: w.now,
        });
    }
    Ok(made)
}

#[derive(kairos_store_macros::FromRow)]
struct AddonRow {
    id: Uuid,
    config_id: Uuid,
    resource_id: Uuid,
    position: String,
    starts_at: Timestamp,
    ends_at: Timestamp,
    blocked_from: Timestamp,
    blocked_until: Timestamp,
    duration_mins: i32,
    units: i32,
    price: i64,
    status: String,
    created_at: Timestamp,
    addon_id: Uuid,
    addon_name: String,
    resource_name: String,
}

/// The live (HELD or CONFIRMED) resource add-ons of `booking`, in time order.
pub(crate) async fn live_addons<'e, E>(
    db: E,
    tenant: &TenantId,
    booking: Uuid,
) -> StoreResult<Vec<BookingAddon>>
where
    E: sqlx::Executor<'e, Database = Db>,
{
    let rows: Vec<AddonRow> = sqlx::query_as(
        "SELECT a.id, a.config_id, a.resource_id, a.position, a.starts_at, a.ends_at,
                a.blocked_from, a.blocked_until, a.duration_mins, a.units, a.price, a.status,
                a.created_at, c.addon_id, p.name AS addon_name, r.name AS resource_name
         FROM resource_allocations a
         JOIN resource_addon_configs c ON c.tenant_id = a.tenant_id AND c.id = a.config_id
         JOIN product_addons p ON p.tenant_id = c.tenant_id AND p.id = c.addon_id
         JOIN resources r ON r.tenant_id = a.tenant_id AND r.id = a.resource_id
         WHERE a.tenant_id = $1 AND a.booking_id = $2 AND a.status <> 'RELEASED'
         ORDER BY a.starts_at, a.id",
    )
    .bind(tenant.as_str())
    .bind(booking)
    .fetch_all(db)
    .await?;
    rows.into_iter()
        .map(|r| {
            Ok(BookingAddon {
                allocation: Allocation {
                    id: r.id,
                    booking_id: booking,
                    request: AllocationRequest {
                        config_id: r.config_id,
                        resource_id: r.resource_id,
                        position: crate::stored("position", &r.position, WindowPosition::parse)?,
                        starts_at: r.starts_at,
                        ends_at: r.ends_at,
                        blocked_from: r.blocked_from,
                        blocked_until: r.blocked_until,
                        duration_mins: r.duration_mins,
                        units: r.units,
                        price: r.price,
                    },
                    status: crate::stored("status", &r.status, AllocationStatus::parse)?,
                    created_at: r.created_at,
                },
                addon_id: r.addon_id,
                addon_name: r.addon_name,
                resource_name: r.resource_name,
            })
        })
        .collect()
}

/// Releases the booking's live allocations (`only` these, when given); how many.
pub(crate) async fn release(
    w: &mut Write,
    booking: Uuid,
    only: Option<&[Uuid]>,
) -> StoreResult<u64> {
    let mut released = 0;
    let ids: Vec<Option<Uuid>> = match only {
        None => vec![None],
        Some(list) => list.iter().copied().map(Some).collect(),
    };
    for id in ids {
        released += sqlx::query(
            "UPDATE resource_allocations SET status = 'RELEASED', updated_at = $3
             WHERE tenant_id = $1 AND booking_id = $2 AND status <> 'RELEASED'
               AND ($4 IS NULL OR id = $4)",
        )
        .bind(w.tenant.as_str())
        .bind(booking)
        .bind(w.now)
        .bind(id)
        .execute(&mut *w.tx)
        .await?
        .rows_affected();
    }
    Ok(released)
}

/// Confirms the locked booking's HELD allocations after checking each again: its resource
/// still active, its add-on still offered, and the resource's capacity still covering it
/// beside every other live allocation. Any that fail answer
/// [`BookingRefusal::ResourceConflict`] with the other windows of the add-on that are free.
pub(crate) async fn confirm_held(w: &mut Write, b: &Booking) -> Result<(), BookingError> {
    let held: Vec<BookingAddon> = live_addons(&mut *w.tx, &w.tenant, b.id)
        .await?
        .into_iter()
        .filter(|a| a.allocation.status == AllocationStatus::Held)
        .collect();
    if held.is_empty() {
        return Ok(());
    }
    let mut ids: Vec<Uuid> = held
        .iter()
        .map(|a| a.allocation.request.resource_id)
        .collect();
    ids.sort();
    ids.dedup();
    let mut locked = Vec::new();
    for id in ids {
        locked.push((id, lock_resource(&mut w.tx, &w.tenant, id).await?));
    }
    let mut conflicts = Vec::new();
    for a in &held {
        let r = &a.allocation.request;
        let resource = locked
            .iter()
            .find(|l| l.0 == r.resource_id)
            .and_then(|l| l.1);
        let config = active_config(&mut w.tx, &w.tenant, b.product_id, r.config_id).await?;
        let reason = match (resource, &config) {
            (None | Some((_, _, false)), _) => Some(ConflictReason::ResourceInactive),
            (_, None) => Some(ConflictReason::AddonWithdrawn),
            (Some((mode, capacity, true)), Some(_)) => {
                let range = (r.blocked_from, r.blocked_until);
                let others = use_of(&mut w.tx, &w.tenant, r.resource_id, range, Some(b.id)).await?;
                let own: Vec<_> = held
                    .iter()
                    .filter(|o| o.allocation.id != a.allocation.id)
                    .filter(|o| o.allocation.request.resource_id == r.resource_id)
                    .map(|o| {
                        let q = &o.allocation.request;
                        (q.blocked_from, q.blocked_until, q.units)
                    })
                    .collect();
                let all = [others, own].concat();
                (!fits(mode, capacity, peak_use(&all, range.0, range.1), r.units))
                    .then_some(ConflictReason::CapacityExceeded)
            }
        };
        let Some(reason) = reason else { continue };
        let alternatives = match (resource, &config) {
            (Some((mode, capacity, true)), Some(c)) => {
                free_windows(w, b, c, (mode, capacity), a.allocation.id).await?
            }
            _ => Vec::new(),
        };
        conflicts.push(ResourceConflict {
            allocation_id: a.allocation.id,
            addon_id: a.addon_id,
            addon_name: a.addon_name.clone(),
            resource_id: r.resource_id,
            resource_name: a.resource_name.clone(),
            requested_starts_at: r.starts_at,
            requested_ends_at: r.ends_at,
            reason,
            alternatives,
        });
    }
    if !conflicts.is_empty() {
        return Err(BookingRefusal::ResourceConflict {
            conflicts,
            pricing_hash: b.price.pricing_hash.clone(),
            currency: b.price.currency.clone(),
        }
        .into());
    }
    sqlx::query(
        "UPDATE resource_allocations SET status = 'CONFIRMED', updated_at = $3
         WHERE tenant_id = $1 AND booking_id = $2 AND status = 'HELD'",
    )
    .bind(w.tenant.as_str())
    .bind(b.id)
    .bind(w.now)
    .execute(&mut *w.tx)
    .await?;
    Ok(())
}

/// The windows of add-on `c` around the booking that its resource could give instead of
/// allocation `instead_of` (its other live allocations counted, that one not).
async fn free_windows(
    w: &mut Write,
    b: &Booking,
    c: &AddonConfig,
    (mode, capacity): (SharedMode, i32),
    instead_of: Uuid,
) -> Result<Vec<AlternativeWindow>, BookingError> {
    let Some(rule) = c.config.rule() else {
        return Ok(Vec::new());
    };
    let policies = policies_of(w, c.config.resource_id).await?;
    let (before, after) = policies.buffers(c.config.buffer_before_mins, c.config.buffer_after_mins);
    let mut out = Vec::new();
    for win in windows(b.starts_at, b.ends_at, &rule, c.config.positions()) {
        // Offered to whoever holds the booking: the staff-only rule was met when it was taken.
        if policies
            .check(w.now, win.starts_at, win.duration_mins, true)
            .is_err()
        {
            continue;
        }
        let (from, to) = blocked(win.starts_at, win.ends_at, before, after);
        let others = use_of(
            &mut w.tx,
            &w.tenant,
            c.config.resource_id,
            (from, to),
            Some(b.id),
        )
        .await?;
        let own: Vec<(Timestamp, Timestamp, i32)> = sqlx::query_as(
            "SELECT blocked_from, blocked_until, units FROM resource_allocations
             WHERE tenant_id = $1 AND booking_id = $2 AND resource_id = $3
               AND status <> 'RELEASED' AND id <> $4",
        )
        .bind(w.tenant.as_str())
        .bind(b.id)
        .bind(c.config.resource_id)
        .bind(instead_of)
        .fetch_all(&mut *w.tx)
        .await?;
        let all = [others, own].concat();
        let units = units(mode, b.party_size);
        if fits(mode, capacity, peak_use(&all, from, to), units)
            && let Some(price) = c.config.pricing().price(win.duration_mins, b.party_size)
        {
            out.push(AlternativeWindow {
                position: win.position,
                starts_at: win.starts_at,
                ends_at: win.ends_at,
                duration_mins: win.duration_mins,
                price,
            });
        }
    }
    Ok(out)
}
