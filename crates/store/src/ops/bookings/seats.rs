//! Seats: taking and releasing a slot's capacity, reclaiming overdue holds, and the
//! capacity invariant check.

use super::transition::audit_status;
use super::{Repo, Tx, dialect};
use crate::{Actor, SeatPolicy, StoreResult, Timestamp};
use kairos_domain::TenantId;
use kairos_domain::bookings::{BookingStatus, Trigger};
use kairos_store_macros::operations;
use uuid::Uuid;

/// Takes `seats` of a slot under `policy`; false when the slot cannot take them.
pub(super) async fn take_seats(
    tx: &mut Tx,
    tenant: &TenantId,
    slot: Uuid,
    seats: i32,
    policy: SeatPolicy,
    now: Timestamp,
) -> StoreResult<bool> {
    let condition = match policy {
        SeatPolicy::Checked => "AND booked + $3 <= capacity AND NOT is_orphaned AND starts_at > $4",
        SeatPolicy::SkipAvailability => "AND booked + $3 <= capacity",
        SeatPolicy::BypassCapacity => "",
    };
    let done = sqlx::query(&format!(
        "UPDATE slots SET booked = booked + $3, updated_at = $4
         WHERE tenant_id = $1 AND id = $2 {condition}"
    ))
    .bind(tenant.as_str())
    .bind(slot)
    .bind(seats)
    .bind(now)
    .execute(&mut **tx)
    .await?;
    Ok(done.rows_affected() == 1)
}

pub(super) async fn release_seats(
    tx: &mut Tx,
    tenant: &TenantId,
    slot: Uuid,
    seats: i32,
    now: Timestamp,
) -> StoreResult<()> {
    sqlx::query(
        "UPDATE slots SET booked = booked - $3, updated_at = $4 WHERE tenant_id = $1 AND id = $2",
    )
    .bind(tenant.as_str())
    .bind(slot)
    .bind(seats)
    .bind(now)
    .execute(&mut **tx)
    .await?;
    Ok(())
}

/// Expires the overdue holds of one slot and gives their seats back.
///
/// Holds another transaction has locked are skipped (it is canceling, confirming or
/// expiring them and releases their seats itself). So this never waits for a booking row,
/// which may come after the caller has locked slot rows without risking a deadlock.
pub(super) async fn reclaim_expired_holds(
    tx: &mut Tx,
    tenant: &TenantId,
    slot: Uuid,
    now: Timestamp,
) -> StoreResult<()> {
    // The partial index bookings_slot_holds makes this a tiny index scan; usually it
    // finds nothing and the hold goes on after this one statement.
    let expired: Vec<(Uuid, i32)> = sqlx::query_as(&format!(
        "SELECT id, party_size FROM bookings
         WHERE tenant_id = $1 AND slot_id = $2 AND status = 'hold' AND hold_expires_at <= $3
         ORDER BY id{}",
        dialect::FOR_UPDATE_SKIP_LOCKED
    ))
    .bind(tenant.as_str())
    .bind(slot)
    .bind(now)
    .fetch_all(&mut **tx)
    .await?;
    for (id, _) in &expired {
        // Locked above (or under SQLite's write lock): still a hold.
        sqlx::query(
            "UPDATE bookings SET status = 'expired', updated_at = $3
             WHERE tenant_id = $1 AND id = $2",
        )
        .bind(tenant.as_str())
        .bind(id)
        .bind(now)
        .execute(&mut **tx)
        .await?;
    }
    if expired.is_empty() {
        return Ok(());
    }
    let seats: i32 = expired.iter().map(|(_, n)| n).sum();
    release_seats(tx, tenant, slot, seats, now).await?;
    for (id, _) in expired {
        audit_status(
            tx,
            tenant,
            &Actor::system("hold expiry"),
            id,
            BookingStatus::Hold,
            BookingStatus::Expired,
            Trigger::HoldExpired,
            None,
            now,
        )
        .await?;
    }
    Ok(())
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
