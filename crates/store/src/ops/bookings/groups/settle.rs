//! A group's one online payment arriving (spec Part B 6: "a succeeded event for a booking
//! or group confirms payment"): in the event's transaction every booking of the group is
//! confirmed and paid its share; a booking that closed meanwhile (its hold lapsed, it was
//! cancelled) gets its share back through the owed-refunds job, with a dead letter before
//! staff until it is refunded. And a refund made at the provider outside Kairos, which no
//! booking can be told from.

use super::super::super::dead_letters::{amount_text, open_payment_letter};
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

/// Money for one booking that cannot take it (closed meanwhile, or its confirmation was
/// refused): its share is recorded as collected and owed back, for the owed-refunds job,
/// with a dead letter before staff until it is refunded.
async fn owe_share_back(
    w: &mut Write,
    payment: &OnlinePayment,
    (share, booking, amount): (Uuid, Uuid, i64),
    why: &str,
) -> Result<(), StoreError> {
    sqlx::query(
        "UPDATE payments SET status = 'COMPLETED', completed_at = COALESCE(completed_at, $3),
                 provider = $4, refund_target = amount, updated_at = $3
         WHERE tenant_id = $1 AND id = $2",
    )
    .bind(w.tenant.as_str())
    .bind(share)
    .bind(w.now)
    .bind(payment.provider.as_str())
    .execute(&mut *w.tx)
    .await?;
    let message = format!(
        "{} of group payment {} was collected for booking {booking}, which {why}: it is refunded automatically (if this stays open, the refund did not happen: refund it)",
        amount_text(amount, &payment.currency),
        payment.id
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
    .await
}

/// Confirms a held booking of the group now that its money is here.
async fn confirm_held(
    w: &mut Write,
    b: &mut crate::Booking,
    actor: &Actor,
) -> Result<(), BookingError> {
    // Held for this payment (an overdue hold not yet swept still has its seats).
    apply_transition(w, b, Trigger::ConfirmOnline, actor, Some("group paid")).await?;
    sqlx::query(
        "UPDATE bookings SET hold_expires_at = NULL, confirmed_at = $3
         WHERE tenant_id = $1 AND id = $2",
    )
    .bind(w.tenant.as_str())
    .bind(b.id)
    .bind(w.now)
    .execute(&mut *w.tx)
    .await?;
    Ok(())
}

/// Confirms and pays one booking (its share, if it has one); the booking's status when
/// it could not take the money (its share is owed back).
async fn settle_booking_share(
    w: &mut Write,
    payment: &OnlinePayment,
    booking: Uuid,
    share: Option<(Uuid, i64)>,
    actor: &Actor,
) -> Result<Option<String>, BookingError> {
    let mut b = load_for_update(&mut w.tx, &w.tenant, booking).await?;
    if b.status == BookingStatus::Hold {
        match confirm_held(w, &mut b, actor).await {
            Ok(()) => {}
            Err(BookingError::Refused(why)) => {
                let why = format!("could not be confirmed ({why})");
                if let Some((id, amount)) = share {
                    owe_share_back(w, payment, (id, booking, amount), &why).await?;
                }
                return Ok(Some(why));
            }
            Err(e) => return Err(e),
        }
    }
    let Some((id, amount)) = share else {
        return Ok(None);
    };
    // The share becomes the provider's payment of the booking (its refunds go through the
    // group's provider payment).
    sqlx::query(
        "UPDATE payments SET provider = $3, updated_at = $4 WHERE tenant_id = $1 AND id = $2",
    )
    .bind(w.tenant.as_str())
    .bind(id)
    .bind(payment.provider.as_str())
    .bind(w.now)
    .execute(&mut *w.tx)
    .await?;
    match settle_online_payment(w, booking, id, amount, actor).await? {
        Settled::BookingClosed(status) => {
            let why = format!("is {status}");
            owe_share_back(w, payment, (id, booking, amount), &why).await?;
            Ok(Some(why))
        }
        Settled::Paid(_) | Settled::Reinstated(_) | Settled::Already => Ok(None),
    }
}

/// A group payment withdrawn before its money came (another confirmation replaced it,
/// or the payment deadline passed): nothing is confirmed by it; it is owed back whole.
async fn paid_after_withdrawal(
    w: &mut Write,
    payment: &OnlinePayment,
    group: Uuid,
) -> Result<EventOutcome, PaymentsError> {
    sqlx::query(
        "UPDATE payments SET status = 'COMPLETED', completed_at = $3, refund_target = amount,
                 updated_at = $3
         WHERE tenant_id = $1 AND id = $2",
    )
    .bind(w.tenant.as_str())
    .bind(payment.id)
    .bind(w.now)
    .execute(&mut *w.tx)
    .await?;
    let message = format!(
        "{} was collected for group {group} by a payment withdrawn before it was paid: it is refunded automatically (if this stays open, the refund did not happen: refund it)",
        amount_text(payment.amount, &payment.currency)
    );
    let (tenant, now) = (w.tenant.clone(), w.now);
    open_payment_letter(
        &mut w.tx,
        &tenant,
        &PaymentLetter {
            kind: payment.provider.as_str(),
            error_type: crate::PAID_AFTER_CLOSE,
            message: &message,
            booking_id: None,
            transaction_id: Some(payment.id),
        },
        now,
    )
    .await?;
    Ok(outcome(true, message))
}

/// Money collected for `group`: every held booking of it confirmed and paid its share, in
/// one transaction (the group row, then its bookings in id order); once, however often
/// it is reported.
pub(crate) async fn settle_group_payment(
    w: &mut Write,
    payment: &OnlinePayment,
    group: Uuid,
    actor: &Actor,
) -> Result<EventOutcome, PaymentsError> {
    let locked = match lock(w, group).await {
        Ok(g) => g,
        Err(GroupError::Store(e)) => return Err(e.into()),
        Err(other) => return Err(StoreError::Corrupt(other.to_string()).into()),
    };
    // Read under the group's lock: confirmations and withdrawals hold it too.
    let status: String =
        sqlx::query_scalar("SELECT status FROM payments WHERE tenant_id = $1 AND id = $2")
            .bind(w.tenant.as_str())
            .bind(payment.id)
            .fetch_one(&mut *w.tx)
            .await?;
    match status.as_str() {
        "CANCELED" => return paid_after_withdrawal(w, payment, group).await,
        "PENDING" | "AUTHORIZED" | "CAPTURED" | "FAILED" => {}
        _ => return Ok(outcome(false, "the payment was settled before".to_owned())),
    }
    sqlx::query(
        "UPDATE payments SET status = 'COMPLETED', completed_at = $3, updated_at = $3
         WHERE tenant_id = $1 AND id = $2",
    )
    .bind(w.tenant.as_str())
    .bind(payment.id)
    .bind(w.now)
    .execute(&mut *w.tx)
    .await?;
    let shares: Vec<(Uuid, Uuid, i64)> = sqlx::query_as(
        "SELECT id, booking_id, amount FROM payments
         WHERE tenant_id = $1 AND parent_payment_id = $2 AND booking_id IS NOT NULL",
    )
    .bind(w.tenant.as_str())
    .bind(payment.id)
    .fetch_all(&mut *w.tx)
    .await?;
    let mut bookings: Vec<Uuid> = locked.bookings.iter().map(|b| b.booking_id).collect();
    bookings.sort();
    let (mut paid, mut closed) = (0, Vec::new());
    for booking in bookings {
        let share = shares
            .iter()
            .find(|(_, b, _)| *b == booking)
            .map(|(id, _, amount)| (*id, *amount));
        let held = locked
            .bookings
            .iter()
            .any(|b| b.booking_id == booking && b.status == BookingStatus::Hold);
        if share.is_none() && !held {
            continue;
        }
        match settle_booking_share(w, payment, booking, share, actor)
            .await
            .map_err(store_error)?
        {
            None => paid += 1,
            Some(why) => closed.push(json!({"bookingId": booking, "why": why})),
        }
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
            "group {group}: {paid} bookings confirmed{}",
            if closed.is_empty() {
                String::new()
            } else {
                format!(
                    ", {} could not take their share: it is refunded",
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
        "SELECT CAST(COALESCE(SUM(p.refunded_amount), 0) AS BIGINT),
                CAST(COALESCE(SUM(CASE WHEN EXISTS (SELECT 1 FROM refunds r
                    WHERE r.tenant_id = p.tenant_id AND r.payment_id = p.id
                      AND r.status = 'Processing') THEN 1 ELSE 0 END), 0) AS BIGINT)
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
        "{} of group payment {} was refunded at the provider, outside Kairos: record it on the group's bookings (mark what each got back)",
        amount_text(refunded - recorded, &payment.currency),
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
