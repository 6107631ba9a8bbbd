//! Seats: taking and releasing a slot's capacity, reclaiming overdue holds, and the
//! capacity invariant check.

use super::reductions::on_status_change;
use super::transition::audit_status;
use super::{Repo, Tx, Write, dialect};
use crate::{Actor, BookingError, BookingRefusal, SeatPolicy, StoreError, StoreResult, Timestamp};
use kairos_domain::TenantId;
use kairos_domain::bookings::{BookingStatus, Trigger};
use kairos_store_macros::operations;
use uuid::Uuid;

/// A slot's seats after a booking took some.
pub(super) struct Booked {
    pub booked: i32,
    pub capacity: i32,
}

/// Takes `seats` of a slot under `policy` with one conditional statement; `None` when the
/// slot cannot take them.
async fn take_seats(
    tx: &mut Tx,
    tenant: &TenantId,
    slot: Uuid,
    seats: i32,
    policy: SeatPolicy,
    now: Timestamp,
) -> Result<Option<Booked>, StoreError> {
    let condition = match policy {
        SeatPolicy::Checked => "AND booked + $3 <= capacity AND NOT is_orphaned AND starts_at > $4",
        SeatPolicy::SkipAvailability => "AND booked + $3 <= capacity",
        SeatPolicy::BypassCapacity => "",
    };
    let row: Option<(i32, i32)> = sqlx::query_as(sql!(
        "UPDATE slots SET booked = booked + $3, updated_at = $4,
             projection_version = projection_version + 1
         WHERE tenant_id = $1 AND id = $2 {condition}
         RETURNING booked, capacity"
    ))
    .bind(tenant.as_str())
    .bind(slot)
    .bind(seats)
    .bind(now)
    .fetch_optional(&mut **tx)
    .await?;
    Ok(row.map(|(booked, capacity)| Booked { booked, capacity }))
}

/// Takes `seats` of a slot; when the slot looks full, expires its overdue holds and tries
/// once more, so an expired hold never blocks capacity. `SlotUnavailable` when the slot
/// still cannot take them. The session is first given what its product needs (rooms,
/// staff), or the seats are refused.
pub(super) async fn take_seats_reclaiming(
    w: &mut Write,
    slot: Uuid,
    seats: i32,
    policy: SeatPolicy,
) -> Result<Booked, BookingError> {
    super::super::resources::sessions::claim(w, slot, seats).await?;
    if let Some(booked) = take_seats(&mut w.tx, &w.tenant, slot, seats, policy, w.now).await? {
        return Ok(booked);
    }
    if reclaim_expired_holds(w, slot).await? > 0
        && let Some(booked) = take_seats(&mut w.tx, &w.tenant, slot, seats, policy, w.now).await?
    {
        return Ok(booked);
    }
    Err(BookingRefusal::SlotUnavailable.into())
}

pub(super) async fn release_seats(
    tx: &mut Tx,
    tenant: &TenantId,
    slot: Uuid,
    seats: i32,
    now: Timestamp,
) -> Result<(), StoreError> {
    sqlx::query(
        "UPDATE slots SET booked = booked - $3, updated_at = $4,
             projection_version = projection_version + 1
         WHERE tenant_id = $1 AND id = $2",
    )
    .bind(tenant.as_str())
    .bind(slot)
    .bind(seats)
    .bind(now)
    .execute(&mut **tx)
    .await?;
    Ok(())
}

/// Expires the overdue holds of one slot and gives their seats back; returns how many.
///
/// Holds another transaction has locked are skipped (it is canceling, confirming or
/// expiring them and releases their seats itself). So this never waits for a booking row,
/// which may come after the caller has locked slot rows without risking a deadlock.
async fn reclaim_expired_holds(w: &mut Write, slot: Uuid) -> Result<usize, StoreError> {
    // The partial index bookings_slot_holds makes this a tiny index scan. No ORDER BY:
    // SKIP LOCKED never waits, so lock order does not matter here, and sorting by id let
    // PostgreSQL's generic plan (kept for the connection's life) walk the primary key over
    // every booking of the tenant instead.
    let expired: Vec<(Uuid, i32)> = sqlx::query_as(sql!(
        "SELECT id, party_size FROM bookings
         WHERE tenant_id = $1 AND slot_id = $2 AND status = 'hold' AND hold_expires_at <= $3{}",
        dialect::FOR_UPDATE_SKIP_LOCKED
    ))
    .bind(w.tenant.as_str())
    .bind(slot)
    .bind(w.now)
    .fetch_all(&mut *w.tx)
    .await?;
    if expired.is_empty() {
        return Ok(0);
    }
    for (id, _) in &expired {
        // Locked above (or under SQLite's write lock): still a hold.
        sqlx::query(
            "UPDATE bookings SET status = 'expired', updated_at = $3
             WHERE tenant_id = $1 AND id = $2",
        )
        .bind(w.tenant.as_str())
        .bind(id)
        .bind(w.now)
        .execute(&mut *w.tx)
        .await?;
    }
    let seats: i32 = expired.iter().map(|(_, n)| n).sum();
    release_seats(&mut w.tx, &w.tenant, slot, seats, w.now).await?;
    for (id, _) in &expired {
        on_status_change(w, *id, BookingStatus::Hold, BookingStatus::Expired).await?;
        audit_status(
            w,
            &Actor::system("hold expiry"),
            *id,
            BookingStatus::Hold,
            BookingStatus::Expired,
            Trigger::HoldExpired,
            None,
        );
    }
    Ok(expired.len())
}

#[operations]
impl Repo {
    /// Slots whose `booked` differs from the seats of the bookings holding them:
    /// (slot id, booked, seats held). Empty when the capacity invariant holds.
    pub async fn capacity_mismatches(
        &self,
        tenant: &TenantId,
    ) -> StoreResult<Vec<(Uuid, i64, i64)>> {
        Ok(sqlx::query_as(
            "SELECT s.id, CAST(s.booked AS BIGINT), CAST(COALESCE(SUM(b.party_size), 0) AS BIGINT)
             FROM slots s
             LEFT JOIN bookings b ON b.tenant_id = s.tenant_id AND b.slot_id = s.id
                  AND b.status NOT IN ('canceled', 'expired')
             WHERE s.tenant_id = $1
             GROUP BY s.id, s.booked
             HAVING s.booked <> COALESCE(SUM(b.party_size), 0)",
        )
        .bind(tenant.as_str())
        .fetch_all(&self.read)
        .await?)
    }
}
