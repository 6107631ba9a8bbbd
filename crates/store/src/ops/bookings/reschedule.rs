//! Moving a booking to another slot of its product.

use super::seats::{reclaim_expired_holds, release_seats, take_seats};
use super::transition::check_window;
use super::{Change, Tx, audit, load_slot, lock_slots, refused};
use crate::{Actor, Booking, BookingRefusal, SeatPolicy, StoreError, StoreResult, Timestamp};
use kairos_domain::TenantId;
use kairos_domain::bookings::BookingStatus;
use serde_json::json;
use uuid::Uuid;

pub(super) async fn reschedule(
    tx: &mut Tx,
    tenant: &TenantId,
    b: &mut Booking,
    slot_id: Uuid,
    min_lead: Option<chrono::Duration>,
    actor: &Actor,
    now: Timestamp,
) -> StoreResult<()> {
    if !matches!(
        b.status,
        BookingStatus::Hold
            | BookingStatus::Tentative
            | BookingStatus::Confirmed
            | BookingStatus::PartPaid
            | BookingStatus::Paid
    ) {
        return Err(refused(BookingRefusal::NotMovable { status: b.status }));
    }
    check_window(b, min_lead, now)?;
    let target = load_slot(tx, tenant, slot_id)
        .await?
        .filter(|s| s.product_id == b.product_id)
        .ok_or(StoreError::NotFound)?;
    if target.id == b.slot_id {
        return Ok(());
    }
    lock_slots(tx, tenant, &mut [b.slot_id, target.id]).await?;
    reclaim_expired_holds(tx, tenant, target.id, now).await?;
    if !take_seats(
        tx,
        tenant,
        target.id,
        b.party_size,
        SeatPolicy::Checked,
        now,
    )
    .await?
    {
        return Err(refused(BookingRefusal::SlotUnavailable));
    }
    release_seats(tx, tenant, b.slot_id, b.party_size, now).await?;
    sqlx::query(
        "UPDATE bookings SET slot_id = $3, starts_at = $4, ends_at = $5, updated_at = $6
             WHERE tenant_id = $1 AND id = $2",
    )
    .bind(tenant.as_str())
    .bind(b.id)
    .bind(target.id)
    .bind(target.starts_at)
    .bind(target.ends_at)
    .bind(now)
    .execute(&mut **tx)
    .await?;
    audit::record(
        tx,
        tenant,
        actor,
        Change {
            action: "booking.rescheduled",
            entity_type: "booking",
            entity_id: b.id.to_string(),
            changes: json!({
                "slotId": {"from": b.slot_id, "to": target.id},
                "startTime": {"from": b.starts_at, "to": target.starts_at},
            }),
        },
        now,
    )
    .await?;
    b.slot_id = target.id;
    b.starts_at = target.starts_at;
    b.ends_at = target.ends_at;
    b.updated_at = now;
    Ok(())
}
