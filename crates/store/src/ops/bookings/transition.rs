//! Status changes through the booking status machine, with their audit rows, outbox
//! messages and payment rows.

use super::seats::{reclaim_expired_holds, release_seats, take_seats};
use super::{Change, Repo, Tx, audit, refused};
use crate::{Actor, Booking, BookingRefusal, SeatPolicy, StoreResult, Timestamp};
use kairos_domain::bookings::{BookingStatus, CapacityEffect, Trigger, transition};
use kairos_domain::{TenantId, new_id};
use kairos_store_macros::operations;
use serde_json::{Value, json};
use sqlx::types::Json;
use uuid::Uuid;

#[expect(clippy::too_many_arguments, reason = "one audit row's fields")]
pub(super) async fn audit_status(
    tx: &mut Tx,
    tenant: &TenantId,
    actor: &Actor,
    id: Uuid,
    from: BookingStatus,
    to: BookingStatus,
    trigger: Trigger,
    reason: Option<&str>,
    now: Timestamp,
) -> StoreResult<()> {
    audit::record(
        tx,
        tenant,
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
        now,
    )
    .await?;
    Ok(())
}

pub(super) async fn outbox(
    tx: &mut Tx,
    tenant: &TenantId,
    kind: &str,
    booking: &Booking,
    now: Timestamp,
) -> StoreResult<()> {
    sqlx::query(
        "INSERT INTO outbox (tenant_id, id, kind, payload, status, attempts, next_attempt_at,
                             created_at, updated_at)
         VALUES ($1, $2, $3, $4, 'pending', 0, $5, $5, $5)",
    )
    .bind(tenant.as_str())
    .bind(new_id())
    .bind(kind)
    .bind(Json(json!({
        "bookingId": booking.id,
        "bookingReference": booking.reference,
        "customerEmail": booking.customer.email,
        "customerName": booking.customer.name,
        "status": booking.status.as_str(),
    })))
    .bind(now)
    .execute(&mut **tx)
    .await?;
    Ok(())
}

#[expect(clippy::too_many_arguments, reason = "a payment's fields")]
pub(super) async fn insert_payment(
    tx: &mut Tx,
    tenant: &TenantId,
    booking: &Booking,
    amount: i64,
    method: &str,
    method_reference: Option<&str>,
    status: &str,
    actor: &Actor,
    now: Timestamp,
) -> StoreResult<()> {
    sqlx::query(
        "INSERT INTO payments (tenant_id, id, booking_id, amount, currency, method,
                               method_reference, status, recorded_by, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $10)",
    )
    .bind(tenant.as_str())
    .bind(new_id())
    .bind(booking.id)
    .bind(amount)
    .bind(&booking.price.currency)
    .bind(method)
    .bind(method_reference)
    .bind(status)
    .bind(actor.id.as_deref())
    .bind(now)
    .execute(&mut **tx)
    .await?;
    Ok(())
}

/// Applies one transition of the status machine to a locked booking: the capacity effect,
/// the status column and the audit row. Other columns are the caller's.
pub(super) async fn apply_transition(
    tx: &mut Tx,
    tenant: &TenantId,
    booking: &mut Booking,
    trigger: Trigger,
    actor: &Actor,
    reason: Option<&str>,
    now: Timestamp,
) -> StoreResult<()> {
    let tr = transition(booking.status, trigger)
        .map_err(|e| refused(BookingRefusal::InvalidTransition(e)))?;
    match tr.capacity {
        CapacityEffect::Release => {
            release_seats(tx, tenant, booking.slot_id, booking.party_size, now).await?;
        }
        CapacityEffect::Reserve => {
            reclaim_expired_holds(tx, tenant, booking.slot_id, now).await?;
            if !take_seats(
                tx,
                tenant,
                booking.slot_id,
                booking.party_size,
                SeatPolicy::Checked,
                now,
            )
            .await?
            {
                return Err(refused(BookingRefusal::SlotUnavailable));
            }
        }
        CapacityEffect::None => {}
    }
    let canceled_at = (tr.to == BookingStatus::Canceled).then_some(now);
    sqlx::query(
        "UPDATE bookings SET status = $3, updated_at = $4, canceled_at = COALESCE($5, canceled_at)
         WHERE tenant_id = $1 AND id = $2",
    )
    .bind(tenant.as_str())
    .bind(booking.id)
    .bind(tr.to.as_str())
    .bind(now)
    .bind(canceled_at)
    .execute(&mut **tx)
    .await?;
    audit_status(
        tx, tenant, actor, booking.id, tr.from, tr.to, trigger, reason, now,
    )
    .await?;
    booking.status = tr.to;
    booking.updated_at = now;
    if canceled_at.is_some() {
        booking.canceled_at = canceled_at;
    }
    Ok(())
}

/// Refuses a customer's change inside the policy window (holds may always be released).
pub(super) fn check_window(
    booking: &Booking,
    min_lead: Option<chrono::Duration>,
    now: Timestamp,
) -> StoreResult<()> {
    let Some(lead) = min_lead else {
        return Ok(());
    };
    if matches!(booking.status, BookingStatus::Hold | BookingStatus::Expired) {
        return Ok(());
    }
    if booking.starts_at - now < lead {
        return Err(refused(BookingRefusal::OutsideWindow {
            starts_at: booking.starts_at,
        }));
    }
    Ok(())
}

#[operations]
impl Repo {
    /// The tenant's outbox messages, oldest first: (kind, payload, status).
    pub async fn list_outbox(
        &self,
        tenant: &TenantId,
    ) -> StoreResult<Vec<(String, Value, String)>> {
        let rows: Vec<(String, Json<Value>, String)> = sqlx::query_as(
            "SELECT kind, payload, status FROM outbox WHERE tenant_id = $1 ORDER BY created_at, id",
        )
        .bind(tenant.as_str())
        .fetch_all(&self.read)
        .await?;
        Ok(rows.into_iter().map(|(k, p, s)| (k, p.0, s)).collect())
    }
}
