//! Moving a booking to another slot of its product.

use super::super::resources::following;
use super::seats::{release_seats, take_seats_reclaiming};
use super::transition::check_window;
use super::{Change, Write, load_slot, lock_slots};
use crate::{Actor, Booking, BookingError, BookingRefusal, SeatPolicy};
use kairos_domain::bookings::BookingStatus;
use serde_json::json;
use uuid::Uuid;

/// Moves `b` to `slot_id` (a slot of the same product): takes the new slot's seats and
/// gives the old ones back in the same transaction. With `customer_window`, a confirmed
/// booking must start far enough away by the site's policy.
pub(super) async fn reschedule(
    w: &mut Write,
    b: &mut Booking,
    slot_id: Uuid,
    customer_window: bool,
    actor: &Actor,
) -> Result<(), BookingError> {
    if !matches!(
        b.status,
        BookingStatus::Hold
            | BookingStatus::Tentative
            | BookingStatus::Confirmed
            | BookingStatus::PartPaid
            | BookingStatus::Paid
    ) {
        return Err(BookingRefusal::NotMovable { status: b.status }.into());
    }
    if customer_window {
        check_window(w, b).await?;
    }
    let target = load_slot(&mut w.tx, &w.tenant, slot_id)
        .await?
        .filter(|s| s.product_id == b.product_id)
        .ok_or(BookingError::SlotNotFound)?;
    if target.id == b.slot_id {
        return Ok(());
    }
    lock_slots(&mut w.tx, &w.tenant, &mut [b.slot_id, target.id]).await?;
    // Its resource add-ons move with it, or the move is refused.
    following::follow(w, b, (target.starts_at, target.ends_at)).await?;
    // Given back first, so a session left empty frees what it held for the new one; a
    // refusal rolls both back.
    release_seats(&mut w.tx, &w.tenant, b.slot_id, b.party_size, w.now).await?;
    take_seats_reclaiming(w, target.id, b.party_size, SeatPolicy::Checked).await?;
    sqlx::query(
        "UPDATE bookings SET slot_id = $3, starts_at = $4, ends_at = $5, updated_at = $6
         WHERE tenant_id = $1 AND id = $2",
    )
    .bind(w.tenant.as_str())
    .bind(b.id)
    .bind(target.id)
    .bind(target.starts_at)
    .bind(target.ends_at)
    .bind(w.now)
    .execute(&mut *w.tx)
    .await?;
    w.audit(
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
    );
    b.slot_id = target.id;
    b.starts_at = target.starts_at;
    b.ends_at = target.ends_at;
    b.updated_at = w.now;
    Ok(())
}
