//! Status changes through the booking status machine, with their audit rows, the times
//! automation rules count from, and payment rows.

use super::super::resources::allocations;
use super::offer::site_policy;
use super::reductions::on_status_change;
use super::seats::{release_seats, take_seats_reclaiming};
use super::{Change, Write};
use crate::{Actor, Booking, BookingError, BookingRefusal, SeatPolicy, StoreError};
use kairos_domain::bookings::{BookingStatus, CapacityEffect, Trigger, transition};
use kairos_domain::new_id;
use kairos_domain::payments::PaymentStatus;
use serde_json::json;
use uuid::Uuid;

/// Records the audit row of a status change.
pub(super) fn audit_status(
    w: &mut Write,
    actor: &Actor,
    id: Uuid,
    from: BookingStatus,
    to: BookingStatus,
    trigger: Trigger,
    reason: Option<&str>,
) {
    w.audit(
        actor,
        Change {
            action: "booking.status_changed",
            entity_type: "booking",
            entity_id: id.to_string(),
            changes: json!({
                "status": {"from": from.as_str(), "to": to.as_str()},
                "trigger": trigger.name(),
                "reason": reason,
            }),
        },
    );
}

/// Writes a payment row of a booking.
pub(super) async fn insert_payment(
    w: &mut Write,
    booking: &Booking,
    amount: i64,
    method: &str,
    method_reference: Option<&str>,
    status: PaymentStatus,
    actor: &Actor,
) -> Result<(), StoreError> {
    sqlx::query(
        "INSERT INTO payments (tenant_id, id, booking_id, amount, currency, method,
                               method_reference, status, recorded_by, created_at, updated_at,
                               provider)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $10,
                 CASE WHEN $6 IN ('cardpay', 'bankpay') THEN $6 END)",
    )
    .bind(w.tenant.as_str())
    .bind(new_id())
    .bind(booking.id)
    .bind(amount)
    .bind(&booking.price.currency)
    .bind(method)
    .bind(method_reference)
    .bind(status.as_str())
    .bind(actor.id.as_deref())
    .bind(w.now)
    .execute(&mut *w.tx)
    .await?;
    Ok(())
}

/// Check-in of a booking whose product refuses it while waivers are missing.
async fn check_waivers(w: &mut Write, booking: uuid::Uuid) -> Result<(), BookingError> {
    let refuses: Option<String> = sqlx::query_scalar(
        "SELECT p.waiver_check_in FROM bookings b
         JOIN products p ON p.tenant_id = b.tenant_id AND p.id = b.product_id
         WHERE b.tenant_id = $1 AND b.id = $2 AND p.requires_waiver",
    )
    .bind(w.tenant.as_str())
    .bind(booking)
    .fetch_optional(&mut *w.tx)
    .await?;
    if refuses.as_deref() == Some(kairos_domain::waivers::WaiverCheckIn::Refuse.as_str()) {
        let missing = super::super::waivers::unsigned_places(w, booking).await?;
        if missing > 0 {
            return Err(BookingRefusal::WaiversIncomplete { missing }.into());
        }
    }
    Ok(())
}

/// Applies one transition of the status machine to a locked booking: the capacity effect,
/// the status column and the audit row. Other columns are the caller's.
pub(super) async fn apply_transition(
    w: &mut Write,
    booking: &mut Booking,
    trigger: Trigger,
    actor: &Actor,
    reason: Option<&str>,
) -> Result<(), BookingError> {
    let tr = transition(booking.status, trigger).map_err(BookingRefusal::InvalidTransition)?;
    if tr.to == BookingStatus::Arrived {
        check_waivers(w, booking.id).await?;
    }
    // Resource add-ons follow the booking (spec Part B 3.2): confirmed with it after a
    // recheck (a conflict refuses before anything is written), released when it ends.
    if tr.from == BookingStatus::Hold
        && !matches!(
            tr.to,
            BookingStatus::Hold | BookingStatus::Expired | BookingStatus::Canceled
        )
    {
        allocations::confirm_held(w, booking).await?;
    }
    if matches!(tr.to, BookingStatus::Expired | BookingStatus::Canceled) {
        allocations::release(w, booking.id, None).await?;
    }
    match tr.capacity {
        CapacityEffect::Release => {
            release_seats(
                &mut w.tx,
                &w.tenant,
                booking.slot_id,
                booking.party_size,
                w.now,
            )
            .await?;
        }
        CapacityEffect::Reserve => {
            take_seats_reclaiming(w, booking.slot_id, booking.party_size, SeatPolicy::Checked)
                .await?;
        }
        CapacityEffect::None => {}
    }
    let now = w.now;
    let canceled_at = (tr.to == BookingStatus::Canceled).then_some(now);
    sqlx::query(
        "UPDATE bookings SET status = $3, updated_at = $4, canceled_at = COALESCE($5, canceled_at)
         WHERE tenant_id = $1 AND id = $2",
    )
    .bind(w.tenant.as_str())
    .bind(booking.id)
    .bind(tr.to.as_str())
    .bind(now)
    .bind(canceled_at)
    .execute(&mut *w.tx)
    .await?;
    // The times automation rules count from (booking_confirmed, booking_completed).
    let stamp = match tr.to {
        BookingStatus::Paid => Some("paid_at"),
        BookingStatus::Completed => Some("completed_at"),
        _ => None,
    };
    if let Some(column) = stamp {
        sqlx::query(sql!(
            "UPDATE bookings SET {column} = COALESCE({column}, $3) WHERE tenant_id = $1 AND id = $2"
        ))
        .bind(w.tenant.as_str())
        .bind(booking.id)
        .bind(now)
        .execute(&mut *w.tx)
        .await?;
    }
    audit_status(w, actor, booking.id, tr.from, tr.to, trigger, reason);
    on_status_change(w, booking.id, tr.from, tr.to).await?;
    booking.status = tr.to;
    booking.updated_at = now;
    if canceled_at.is_some() {
        booking.canceled_at = canceled_at;
    }
    Ok(())
}

/// Refuses a customer's change inside the site's policy window (holds may always be
/// released or moved).
pub(super) async fn check_window(w: &mut Write, booking: &Booking) -> Result<(), BookingError> {
    if matches!(booking.status, BookingStatus::Hold | BookingStatus::Expired) {
        return Ok(());
    }
    let (policy, _) = site_policy(&mut w.tx, &w.tenant, booking.site_id).await?;
    if booking.starts_at - w.now < policy.customer_window() {
        return Err(BookingRefusal::OutsideWindow {
            starts_at: booking.starts_at,
        }
        .into());
    }
    Ok(())
}
