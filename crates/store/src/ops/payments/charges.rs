//! What the card provider says about a charge after it was collected: a refund made at
//! the provider (its dashboard, or Kairos' own refund arriving as an event) and a
//! cardholder's dispute. Both run inside the event's transaction
//! (`online.rs::process_provider_event`).

use super::super::audit::Change;
use super::super::dialect;
use super::super::write::Write;
use crate::{Actor, Dispute, EventOutcome, OnlinePayment, PaymentsError};
use kairos_domain::new_id;
use serde_json::json;
use uuid::Uuid;

pub(super) fn done(processed: bool, message: String) -> EventOutcome {
    EventOutcome {
        processed,
        message,
        duplicate: false,
        code: None,
    }
}

/// `charge.refunded`: the provider has refunded `refunded` (minor units, in all) of the
/// payment's charge. What Kairos has not recorded yet is recorded as a completed refund
/// made at the provider; the payment is REFUNDED once nothing is left. A refund Kairos is
/// still making accounts for the amount itself (its own completion records it).
pub(crate) async fn charge_refunded(
    w: &mut Write,
    payment: &OnlinePayment,
    refunded: i64,
) -> Result<EventOutcome, PaymentsError> {
    let (amount, recorded): (i64, i64) = sqlx::query_as(sql!(
        "SELECT amount, refunded_amount FROM payments WHERE tenant_id = $1 AND id = $2{}",
        dialect::FOR_UPDATE
    ))
    .bind(w.tenant.as_str())
    .bind(payment.id)
    .fetch_one(&mut *w.tx)
    .await?;
    let refunded = refunded.clamp(0, amount);
    if refunded <= recorded {
        return Ok(done(false, "the refund is recorded already".to_owned()));
    }
    let in_progress: Option<i32> = sqlx::query_scalar(
        "SELECT 1 FROM refunds WHERE tenant_id = $1 AND payment_id = $2 AND status = 'Processing'",
    )
    .bind(w.tenant.as_str())
    .bind(payment.id)
    .fetch_optional(&mut *w.tx)
    .await?;
    if in_progress.is_some() {
        return Ok(done(
            false,
            "a refund Kairos is making accounts for it".to_owned(),
        ));
    }
    let delta = refunded - recorded;
    sqlx::query(
        "INSERT INTO refunds (tenant_id, id, payment_id, booking_id, amount, fee, currency,
             status, reason, requested_by, created_at, updated_at, completed_at)
         VALUES ($1, $2, $3, $4, $5, 0, $6, 'Completed', 'refunded at the provider',
                 'cardpay', $7, $7, $7)",
    )
    .bind(w.tenant.as_str())
    .bind(new_id())
    .bind(payment.id)
    .bind(payment.booking_id)
    .bind(delta)
    .bind(&payment.currency)
    .bind(w.now)
    .execute(&mut *w.tx)
    .await?;
    sqlx::query(
        "UPDATE payments SET refunded_amount = $3,
             status = CASE WHEN $3 >= amount THEN 'REFUNDED' ELSE status END, updated_at = $4
         WHERE tenant_id = $1 AND id = $2",
    )
    .bind(w.tenant.as_str())
    .bind(payment.id)
    .bind(refunded)
    .bind(w.now)
    .execute(&mut *w.tx)
    .await?;
    w.audit(
        &Actor::system("cardpay"),
        Change {
            action: "payment.refunded_at_provider",
            entity_type: "payment",
            entity_id: payment.id.to_string(),
            changes: json!({"bookingId": payment.booking_id, "amount": delta,
                "refundedInAll": refunded}),
        },
    );
    Ok(done(
        true,
        format!("{delta} refunded at the provider recorded"),
    ))
}

/// `charge.dispute.created`: the cardholder disputes the payment. The payment is marked
/// disputed; its booking gets an urgent internal note and staff a dead letter to act on
/// (answer the dispute at the provider before its deadline).
pub(crate) async fn dispute_created(
    w: &mut Write,
    payment: &OnlinePayment,
    dispute: &Dispute,
) -> Result<EventOutcome, PaymentsError> {
    let marked = sqlx::query(
        "UPDATE payments SET disputed_at = $3, updated_at = $3
         WHERE tenant_id = $1 AND id = $2 AND disputed_at IS NULL",
    )
    .bind(w.tenant.as_str())
    .bind(payment.id)
    .bind(w.now)
    .execute(&mut *w.tx)
    .await?;
    if marked.rows_affected() == 0 {
        return Ok(done(false, "the payment is disputed already".to_owned()));
    }
    let what = format!(
        "The cardholder disputes payment {} ({} {}, reason: {}, dispute {}): answer it at the provider before its deadline",
        payment.id, dispute.amount, dispute.currency, dispute.reason, dispute.id
    );
    if let Some(booking) = payment.booking_id {
        issue_note(w, booking, "cardpay", "urgent", &what).await?;
    }
    sqlx::query(
        "INSERT INTO dead_letters (tenant_id, id, category, kind, error_type, error_message,
             retry_count, booking_id, transaction_id, status, failed_at, created_at, updated_at)
         VALUES ($1, $2, 'payment', 'cardpay', 'DISPUTED', $3, 0, $4, $5, 'open', $6, $6, $6)",
    )
    .bind(w.tenant.as_str())
    .bind(new_id())
    .bind(&what)
    .bind(payment.booking_id)
    .bind(payment.id)
    .bind(w.now)
    .execute(&mut *w.tx)
    .await?;
    w.audit(
        &Actor::system("cardpay"),
        Change {
            action: "payment.disputed",
            entity_type: "payment",
            entity_id: payment.id.to_string(),
            changes: json!({"bookingId": payment.booking_id, "disputeId": dispute.id,
                "amount": dispute.amount, "currency": dispute.currency,
                "reason": dispute.reason}),
        },
    );
    Ok(done(true, format!("dispute {} recorded", dispute.id)))
}

/// An internal `issue` note on a booking, written by a provider (`system:{provider}`), in
/// the event's transaction: what staff must know about its payment.
pub(crate) async fn issue_note(
    w: &mut Write,
    booking: Uuid,
    provider: &str,
    priority: &str,
    content: &str,
) -> Result<(), PaymentsError> {
    sqlx::query(
        "INSERT INTO booking_notes (tenant_id, id, booking_id, content, category, priority,
             is_internal, created_by, created_by_name, created_at, updated_at)
         VALUES ($1, $2, $3, $4, 'issue', $5, TRUE, $6, $7, $8, $8)",
    )
    .bind(w.tenant.as_str())
    .bind(new_id())
    .bind(booking)
    .bind(content)
    .bind(priority)
    .bind(format!("system:{provider}"))
    .bind(provider)
    .bind(w.now)
    .execute(&mut *w.tx)
    .await?;
    Ok(())
}
