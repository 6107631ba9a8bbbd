//! A group's one online payment arriving (spec Part B 6: "a succeeded event for a booking
//! or group confirms payment"): in the event's transaction every booking of the group is
//! confirmed and paid its share; a booking that closed meanwhile (its hold lapsed, it was
//! cancelled) gets its share back through the owed-refunds job, with a dead letter before
//! staff until it is refunded. And a refund made at the provider outside Kairos, which no
//! booking can be told from.

use super::super::super::dead_letters::open_payment_letter;
use super::super::load_for_update;
use super::super::payments::{Settled, settle_online_payment};
use super::super::transition::apply_transition;
use super::{Write, audit, lock};
use crate::{
    Actor, BookingError, EventOutcome, GroupError, OnlinePayment, PaymentLetter, PaymentsError,
    StoreError,
};
use kairos_domain::bookings::{BookingStatus, Trigger};
use serde_json::json;
use uuid::Uuid;

fn store_error(e: BookingError) -> PaymentsError {
    match e {
        BookingError::Store(s) => PaymentsError::Store(s),
        other => PaymentsError::Store(StoreError::Corrupt(other.to_string())),
    }
}

fn outcome(processed: bool, message: String) -> EventOutcome {
    EventOutcome {
        processed,
        message,
        duplicate: false,
        code: None,
    }
}

/// Confirms and pays one booking's share; whether it was closed (its share is owed back).
async fn settle_share(
    w: &mut Write,
    payment: &OnlinePayment,
    (share, booking, amount): (Uuid, Uuid, i64),
    actor: &Actor,
) -> Result<Option<BookingStatus>, BookingError> {
    let mut b = load_for_update(&mut w.tx, &w.tenant, booking).await?;
    if b.status == BookingStatus::Hold {
        // Held for this payment (an overdue hold not yet swept still has its seats).
        apply_transition(w, &mut b, Trigger::ConfirmOnline, actor, Some("group paid")).await?;
        sqlx::query(
            "UPDATE bookings SET hold_expires_at = NULL, confirmed_at = $3
             WHERE tenant_id = $1 AND id = $2",
        )
        .bind(w.tenant.as_str())
        .bind(b.id)
        .bind(w.now)
        .execute(&mut *w.tx)
        .await?;
    }
    // The share becomes the provider's payment of the booking (its refunds go through the
    // group's provider payment).
    sqlx::query(
        "UPDATE payments SET provider = $3, updated_at = $4 WHERE tenant_id = $1 AND id = $2",
    )
    .bind(w.tenant.as_str())
    .bind(share)
    .bind(payment.provider.as_str())
    .bind(w.now)
    .execute(&mut *w.tx)
    .await?;
    match settle_online_payment(w, booking, share, amount, actor).await? {
        Settled::BookingClosed(status) => {
            sqlx::query(
                "UPDATE payments SET refund_target = amount WHERE tenant_id = $1 AND id = $2",
            )
            .bind(w.tenant.as_str())
            .bind(share)
            .execute(&mut *w.tx)
            .await?;
            let message = format!(
                "{amount} {} of group payment {} was collected for booking {booking}, which is {status}: it is refunded automatically (if this stays open, the refund did not happen: refund it)",
                payment.currency, payment.id
            );
            let (tenant, now) = (w.tenant.clone(), w.now);
            open_payment_letter(
                &mut w.tx,
                &tenant,
                &PaymentLetter {
                    kind: payment.provider.as_str(),
                    error_type: crate::PAID_AFTER_CLOSE,
                    message: &message,
                    booking_id: Some(booking),
                    transaction_id: Some(share),
                },
                now,
            )
            .await?;
            Ok(Some(status))
        }
        Settled::Paid(_) | Settled::Reinstated(_) | Settled::Already => Ok(None),
    }
}

/// Money collected for `group`: every booking of it confirmed and paid its share, in one
/// transaction (the bookings locked in id order); once, however often it is reported.
pub(crate) async fn settle_group_payment(
    w: &mut Write,
    payment: &OnlinePayment,
    group: Uuid,
    actor: &Actor,
) -> Result<EventOutcome, PaymentsError> {
    match lock(w, group).await {
        Ok(_) => {}
        Err(GroupError::Store(e)) => return Err(e.into()),
        Err(other) => return Err(StoreError::Corrupt(other.to_string()).into()),
    }
    let done = sqlx::query(
        "UPDATE payments SET status = 'COMPLETED', completed_at = $3, updated_at = $3
         WHERE tenant_id = $1 AND id = $2
           AND status IN ('PENDING', 'AUTHORIZED', 'CAPTURED', 'FAILED', 'CANCELED')",
    )
    .bind(w.tenant.as_str())
    .bind(payment.id)
    .bind(w.now)
    .execute(&mut *w.tx)
    .await?;
    if done.rows_affected() == 0 {
        return Ok(outcome(false, "the payment was settled before".to_owned()));
    }
    let shares: Vec<(Uuid, Uuid, i64)> = sqlx::query_as(
        "SELECT id, booking_id, amount FROM payments
         WHERE tenant_id = $1 AND parent_payment_id = $2 AND booking_id IS NOT NULL
         ORDER BY booking_id",
    )
    .bind(w.tenant.as_str())
    .bind(payment.id)
    .fetch_all(&mut *w.tx)
    .await?;
    let mut closed = Vec::new();
    for share in &shares {
        if let Some(status) = settle_share(w, payment, *share, actor)
            .await
            .map_err(store_error)?
        {
            closed.push(json!({"bookingId": share.1, "status": status.as_str()}));
        }
    }
    // Bookings with nothing to pay (a zero share) are confirmed with the rest.
    let free: Vec<Uuid> = sqlx::query_scalar(
        "SELECT id FROM bookings b
         WHERE b.tenant_id = $1 AND b.group_id = $2 AND b.status = 'hold'
           AND NOT EXISTS (SELECT 1 FROM payments p WHERE p.tenant_id = b.tenant_id
                           AND p.parent_payment_id = $3 AND p.booking_id = b.id)
         ORDER BY b.id",
    )
    .bind(w.tenant.as_str())
    .bind(group)
    .bind(payment.id)
    .fetch_all(&mut *w.tx)
    .await?;
    for id in free {
        let mut b = load_for_update(&mut w.tx, &w.tenant, id)
            .await
            .map_err(store_error)?;
        apply_transition(w, &mut b, Trigger::ConfirmOnline, actor, Some("group paid"))
            .await
            .map_err(store_error)?;
    }
    sqlx::query(
        "UPDATE booking_groups SET confirmed_at = COALESCE(confirmed_at, $3),
                 hold_expires_at = NULL, updated_at = $3
         WHERE tenant_id = $1 AND id = $2",
    )
    .bind(w.tenant.as_str())
    .bind(group)
    .bind(w.now)
    .execute(&mut *w.tx)
    .await?;
    audit(
        w,
        actor,
        "booking_group.paid",
        group,
        json!({"paymentId": payment.id, "amount": payment.amount, "closed": closed}),
    );
    // A closed booking's share is refunded by the owed-refunds job (not here: the event's
    // own follow-up refunds a booking's whole payment, here the group's).
    Ok(outcome(
        true,
        format!(
            "group {group}: {} bookings paid{}",
            shares.len() - closed.len(),
            if closed.is_empty() {
                String::new()
            } else {
                format!(
                    ", {} closed meanwhile: their shares are refunded",
                    closed.len()
                )
            }
        ),
    ))
}

/// `charge.refunded` on a group's payment: refunds Kairos made go through its bookings'
/// shares (recorded there); more refunded at the provider than they account for was
/// refunded outside Kairos and goes before staff, who know which bookings it was for.
pub(crate) async fn group_charge_refunded(
    w: &mut Write,
    payment: &OnlinePayment,
    refunded: i64,
) -> Result<EventOutcome, PaymentsError> {
    let (recorded, in_progress): (i64, i64) = sqlx::query_as(
        "SELECT COALESCE(SUM(p.refunded_amount), 0),
                COALESCE(SUM(CASE WHEN EXISTS (SELECT 1 FROM refunds r
                    WHERE r.tenant_id = p.tenant_id AND r.payment_id = p.id
                      AND r.status = 'Processing') THEN 1 ELSE 0 END), 0)
         FROM payments p WHERE p.tenant_id = $1 AND p.parent_payment_id = $2",
    )
    .bind(w.tenant.as_str())
    .bind(payment.id)
    .fetch_one(&mut *w.tx)
    .await?;
    if refunded <= recorded {
        return Ok(outcome(false, "the refund is recorded already".to_owned()));
    }
    if in_progress > 0 {
        return Ok(outcome(
            false,
            "a refund Kairos is making accounts for it".to_owned(),
        ));
    }
    let message = format!(
        "{} {} of group payment {} was refunded at the provider, outside Kairos: record it on the group's bookings (mark what each got back)",
        refunded - recorded,
        payment.currency,
        payment.id
    );
    let (tenant, now) = (w.tenant.clone(), w.now);
    open_payment_letter(
        &mut w.tx,
        &tenant,
        &PaymentLetter {
            kind: payment.provider.as_str(),
            error_type: "REFUNDED_AT_PROVIDER",
            message: &message,
            booking_id: None,
            transaction_id: Some(payment.id),
        },
        now,
    )
    .await?;
    Ok(outcome(true, message))
}
