//! Actions on a booking (confirm, cancel, mark-*, staff status changes), each through
//! the status machine in one transaction.

use super::payments::record_payment;
use super::reschedule::reschedule;
use super::transition::{apply_transition, check_window, insert_payment, outbox};
use super::{Repo, Tx, idempotency, load_for_update, refused};
use crate::{
    Actor, Booking, BookingAction, BookingRefusal, IdempotentFinish, StoreError, StoreResult,
    Timestamp,
};
use kairos_domain::TenantId;
use kairos_domain::bookings::{BookingStatus, Trigger, transition, trigger_for_target};
use kairos_store_macros::operations;
use sqlx::types::Json;
use uuid::Uuid;

#[operations]
impl Repo {
    /// Changes a booking through the status machine in one transaction. An overdue hold is
    /// expired first (and stays expired even when the action is then refused).
    pub async fn apply_booking_action(
        &self,
        tenant: &TenantId,
        id: Uuid,
        action: BookingAction,
        actor: &Actor,
        now: Timestamp,
        idem: Option<IdempotentFinish<'_>>,
    ) -> StoreResult<Booking> {
        let mut tx = self.begin_write().await?;
        let mut b = load_for_update(&mut tx, tenant, id).await?;
        let overdue =
            b.status == BookingStatus::Hold && b.hold_expires_at.is_some_and(|t| t <= now);
        if overdue {
            apply_transition(
                &mut tx,
                tenant,
                &mut b,
                Trigger::HoldExpired,
                &Actor::system("hold expiry"),
                None,
                now,
            )
            .await?;
        }
        let result = if b.status == BookingStatus::Expired
            && matches!(action, BookingAction::Confirm { .. })
        {
            Err(refused(BookingRefusal::HoldExpired))
        } else {
            act(&mut tx, tenant, &mut b, action, actor, now).await
        };
        match result {
            Ok(()) => {
                if let Some(idem) = idem {
                    let (status, body) = (idem.render)(&b);
                    idempotency::finish(&mut tx, tenant, idem.key, status, &body).await?;
                }
                tx.commit().await?;
                Ok(b)
            }
            // Refusals come before the action writes anything: committing keeps only the
            // expiry of the overdue hold.
            Err(e @ StoreError::Refused(_)) if overdue => {
                tx.commit().await?;
                Err(e)
            }
            Err(e) => Err(e),
        }
    }
}

async fn act(
    tx: &mut Tx,
    tenant: &TenantId,
    b: &mut Booking,
    action: BookingAction,
    actor: &Actor,
    now: Timestamp,
) -> StoreResult<()> {
    match action {
        BookingAction::Confirm {
            pay_on_arrival,
            payment_method,
            method_reference,
            price,
        } => {
            if b.status == BookingStatus::Hold && b.starts_at <= now {
                return Err(refused(BookingRefusal::SlotStarted));
            }
            let trigger = if pay_on_arrival {
                Trigger::ConfirmPayOnArrival
            } else {
                Trigger::ConfirmOnline
            };
            apply_transition(tx, tenant, b, trigger, actor, None, now).await?;
            sqlx::query(
                "UPDATE bookings SET payment_method = $3, price = $4, total = $5,
                         pricing_hash = $6, hold_expires_at = NULL, confirmed_at = $7
                     WHERE tenant_id = $1 AND id = $2",
            )
            .bind(tenant.as_str())
            .bind(b.id)
            .bind(&payment_method)
            .bind(Json(&price))
            .bind(price.total)
            .bind(&price.pricing_hash)
            .bind(now)
            .execute(&mut **tx)
            .await?;
            b.price = price;
            b.payment_method = Some(payment_method.clone());
            b.hold_expires_at = None;
            b.confirmed_at = Some(now);
            if !pay_on_arrival {
                let total = b.price.total;
                insert_payment(
                    tx,
                    tenant,
                    b,
                    total,
                    &payment_method,
                    method_reference.as_deref(),
                    "pending",
                    actor,
                    now,
                )
                .await?;
            }
            if b.send_confirmation {
                outbox(tx, tenant, "booking_confirmation", b, now).await?;
            }
        }
        BookingAction::Cancel { reason, min_lead } => {
            // An impossible cancellation says so before any window question.
            transition(b.status, Trigger::Cancel)
                .map_err(|e| refused(BookingRefusal::InvalidTransition(e)))?;
            check_window(b, min_lead, now)?;
            let notify = !matches!(b.status, BookingStatus::Hold | BookingStatus::Expired);
            apply_transition(
                tx,
                tenant,
                b,
                Trigger::Cancel,
                actor,
                reason.as_deref(),
                now,
            )
            .await?;
            if notify {
                outbox(tx, tenant, "booking_cancellation", b, now).await?;
            }
        }
        BookingAction::Reschedule { slot_id, min_lead } => {
            reschedule(tx, tenant, b, slot_id, min_lead, actor, now).await?;
        }
        BookingAction::MarkArrived => {
            apply_transition(tx, tenant, b, Trigger::MarkArrived, actor, None, now).await?;
        }
        BookingAction::MarkNoShow { reason } => {
            apply_transition(
                tx,
                tenant,
                b,
                Trigger::MarkNoShow,
                actor,
                reason.as_deref(),
                now,
            )
            .await?;
        }
        BookingAction::MarkPaid { amount, method } => {
            let balance = (b.price.total - b.paid_amount).max(0);
            let amount = amount.unwrap_or(balance);
            if amount > balance {
                return Err(refused(BookingRefusal::AmountExceedsBalance { balance }));
            }
            let settles = amount == balance;
            if b.status == BookingStatus::PartPaid && !settles {
                // Another instalment: money is recorded, the status stays part_paid.
            } else {
                let trigger = if b.status == BookingStatus::Tentative && settles {
                    Trigger::MarkPaid
                } else {
                    Trigger::PaymentRecorded { settles }
                };
                apply_transition(tx, tenant, b, trigger, actor, None, now).await?;
            }
            record_payment(tx, tenant, b, amount, &method, actor, now).await?;
        }
        BookingAction::SetStatus {
            status,
            reason,
            admin_notes,
            hold_ttl,
        } => {
            let trigger = trigger_for_target(b.status, status).ok_or(refused(
                BookingRefusal::NoTransition {
                    from: b.status,
                    to: status,
                },
            ))?;
            apply_transition(tx, tenant, b, trigger, actor, reason.as_deref(), now).await?;
            match trigger {
                Trigger::Rehold => {
                    let expires = now + hold_ttl;
                    sqlx::query(
                        "UPDATE bookings SET hold_expires_at = $3 WHERE tenant_id = $1 AND id = $2",
                    )
                    .bind(tenant.as_str())
                    .bind(b.id)
                    .bind(expires)
                    .execute(&mut **tx)
                    .await?;
                    b.hold_expires_at = Some(expires);
                }
                Trigger::ConfirmOnline | Trigger::ConfirmPayOnArrival => {
                    sqlx::query(
                        "UPDATE bookings SET hold_expires_at = NULL, confirmed_at = $3
                             WHERE tenant_id = $1 AND id = $2",
                    )
                    .bind(tenant.as_str())
                    .bind(b.id)
                    .bind(now)
                    .execute(&mut **tx)
                    .await?;
                    b.hold_expires_at = None;
                    b.confirmed_at = Some(now);
                }
                Trigger::MarkPaid | Trigger::PaymentRecorded { settles: true } => {
                    let balance = (b.price.total - b.paid_amount).max(0);
                    record_payment(tx, tenant, b, balance, "manual", actor, now).await?;
                }
                _ => {}
            }
            if let Some(notes) = admin_notes {
                sqlx::query(
                    "UPDATE bookings SET admin_notes = $3 WHERE tenant_id = $1 AND id = $2",
                )
                .bind(tenant.as_str())
                .bind(b.id)
                .bind(&notes)
                .execute(&mut **tx)
                .await?;
                b.admin_notes = Some(notes);
            }
        }
    }
    Ok(())
}
