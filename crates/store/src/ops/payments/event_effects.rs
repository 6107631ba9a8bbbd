//! What a provider event does once its effect is decided (`events.rs`): each effect that
//! writes more than one statement, inside the event's transaction.

use super::super::audit::Change;
use super::super::bookings::{Settled, settle_online_payment};
use super::super::dead_letters::{amount_text, open_payment_letter};
use super::super::write::Write;
use super::charges::{self, done};
use crate::{
    Actor, BookingError, EventOutcome, OnlinePayment, PAID_AFTER_CLOSE, PaymentLetter,
    PaymentsError, ProviderEvent, StoreError,
};
use kairos_domain::payments::credentials::Provider;
use kairos_domain::payments::reports::ProviderReport;
use serde_json::json;
use uuid::Uuid;

/// Money reported that is not the payment's amount or currency (or lacks them): not
/// applied, answered (the provider stops sending it) and put before staff: money may have
/// moved that the booking does not show.
pub(super) async fn amount_mismatch(
    w: &mut Write,
    event: &ProviderEvent,
    payment: &OnlinePayment,
    actor: &Actor,
) -> Result<EventOutcome, PaymentsError> {
    let (amount, currency) = match &event.report {
        ProviderReport::Succeeded { amount, currency } => (*amount, currency.as_deref()),
        _ => (None, None),
    };
    let message = format!(
        "{} reported {} {} for payment {} ({} {} expected): not applied; check the payment at the provider",
        event.provider.as_str(),
        amount.map_or_else(|| "no amount".to_owned(), |a| a.to_string()),
        currency.unwrap_or("(no currency)"),
        payment.id,
        payment.amount,
        payment.currency
    );
    let (now, tenant) = (w.now, w.tenant.clone());
    open_payment_letter(
        &mut w.tx,
        &tenant,
        &PaymentLetter {
            kind: event.provider.as_str(),
            error_type: "AMOUNT_MISMATCH",
            message: &message,
            booking_id: payment.booking_id,
            transaction_id: Some(payment.id),
        },
        now,
    )
    .await?;
    w.audit(
        actor,
        Change {
            action: "payment.amount_mismatch",
            entity_type: "payment",
            entity_id: payment.id.to_string(),
            changes: json!({"expected": {"amount": payment.amount, "currency": payment.currency},
                    "reported": {"amount": amount, "currency": currency},
                    "eventId": event.event_id}),
        },
    );
    Ok(done(
        false,
        format!(
            "amount or currency differ from the payment ({} {}): not applied",
            payment.amount, payment.currency
        ),
    ))
}

/// Money collected for `booking`: paid, reinstated, already settled, or arrived after the
/// booking closed (recorded, and put before staff until it is refunded).
pub(super) async fn settle_booking(
    w: &mut Write,
    event: &ProviderEvent,
    payment: &OnlinePayment,
    booking: Uuid,
    actor: &Actor,
) -> Result<EventOutcome, PaymentsError> {
    let settled = settle_online_payment(w, booking, payment.id, payment.amount, actor)
        .await
        .map_err(|e| match e {
            BookingError::Store(s) => PaymentsError::Store(s),
            other => PaymentsError::Store(StoreError::Corrupt(other.to_string())),
        })?;
    Ok(match settled {
        Settled::Paid(status) => done(true, format!("booking {booking} is {status}")),
        Settled::Reinstated(status) => done(
            true,
            format!(
                "booking {booking} was cancelled for want of this payment; its seats were free: it is {status} again"
            ),
        ),
        Settled::Already => done(false, "the payment was settled before".to_owned()),
        Settled::BookingClosed(status) => {
            // Staff decide: take the seats again or refund.
            sqlx::query(
                    "INSERT INTO dead_letters (tenant_id, id, category, kind, error_type,
                         error_message, retry_count, booking_id, transaction_id, status,
                         failed_at, created_at, updated_at)
                     VALUES ($1, $2, 'payment', $7, 'PAID_AFTER_CLOSE', $3, 0, $4,
                             $5, 'open', $6, $6, $6)",
                )
                .bind(w.tenant.as_str())
                .bind(kairos_domain::new_id())
                .bind(match event.provider {
                    Provider::Cardpay => format!(
                        "{} was collected for booking {booking}, which is {status}: it is refunded automatically (if this stays open, the refund did not happen: refund it)",
                        amount_text(payment.amount, &payment.currency)
                    ),
                    Provider::Bankpay => format!(
                        "{} was collected by bank payment for booking {booking}, which is {status}: refund it from the bankpay merchant panel",
                        amount_text(payment.amount, &payment.currency)
                    ),
                })
                .bind(booking)
                .bind(payment.id)
                .bind(w.now)
                .bind(event.provider.as_str())
                .execute(&mut *w.tx)
                .await?;
            w.audit(
                actor,
                Change {
                    action: "payment.after_close",
                    entity_type: "payment",
                    entity_id: payment.id.to_string(),
                    changes: json!({"bookingId": booking, "bookingStatus": status.as_str()}),
                },
            );
            EventOutcome {
                code: Some(PAID_AFTER_CLOSE.to_owned()),
                ..done(
                    true,
                    format!(
                        "payment recorded; booking {booking} is {status}: it is to be refunded"
                    ),
                )
            }
        }
    })
}

/// The attempt failed: the payment becomes FAILED while still open, a gift card purchase
/// `payment_failed`, and staff see why on the booking.
pub(super) async fn payment_failed(
    w: &mut Write,
    event: &ProviderEvent,
    payment: &OnlinePayment,
    (code, message): (String, String),
    actor: &Actor,
) -> Result<EventOutcome, PaymentsError> {
    let failed = sqlx::query(
        "UPDATE payments SET status = 'FAILED', failure_code = $3, failure_message = $4,
                 failed_at = $5, updated_at = $5
             WHERE tenant_id = $1 AND id = $2 AND status IN ('PENDING', 'AUTHORIZED')",
    )
    .bind(w.tenant.as_str())
    .bind(payment.id)
    .bind(&code)
    .bind(&message)
    .bind(w.now)
    .execute(&mut *w.tx)
    .await?;
    if failed.rows_affected() == 0 {
        return Ok(done(
            false,
            format!("payment is {}: unchanged", payment.status),
        ));
    }
    if let Some(purchase) = payment.gift_card_purchase_id {
        sqlx::query(
            "UPDATE gift_card_purchases SET status = 'payment_failed', updated_at = $3
                 WHERE tenant_id = $1 AND id = $2 AND status = 'pending'",
        )
        .bind(w.tenant.as_str())
        .bind(purchase)
        .bind(w.now)
        .execute(&mut *w.tx)
        .await?;
    }
    if let Some(booking) = payment.booking_id {
        // Staff see it on the booking: the customer may pay another way, or the
        // booking is cancelled at the payment deadline.
        let what = format!(
            "The {} payment of {} {} failed ({code}{}): the customer may try again; unpaid, the booking is cancelled at the payment deadline",
            event.provider,
            payment.amount,
            payment.currency,
            if message.is_empty() {
                String::new()
            } else {
                format!(": {message}")
            }
        );
        charges::issue_note(w, booking, event.provider.as_str(), "normal", &what).await?;
    }
    w.audit(
        actor,
        Change {
            action: "payment.failed",
            entity_type: "payment",
            entity_id: payment.id.to_string(),
            changes: json!({"bookingId": payment.booking_id, "code": code, "message": message}),
        },
    );
    Ok(done(true, format!("payment failed: {code}")))
}
