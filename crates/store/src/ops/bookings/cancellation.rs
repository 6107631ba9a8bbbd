//! What a cancellation owes back (spec Part B 4.6, 4.8), decided in the cancellation's
//! own transaction, on the locked booking: what was paid by card, bank and vouchers and
//! not refunded yet, minus the fee of the cancellation's [`RefundBasis`]: the tenant's flat
//! or percentage fee, by default the site policy's schedule by notice, when the customer
//! cancels; everything when staff do, unless their cancellation names a policy or a
//! no-show (`kairos_domain::cancellations`).
//! Each card or bank payment's part becomes its refund target (`payments.refund_target`):
//! the refund asked right after the commit returns it, and when it cannot (another refund
//! of the payment under way, a provider that did not answer) the owed-refunds job does,
//! so two money operations meeting on one payment never leave the customer short. The
//! vouchers' part is restored here.

use super::super::audit::Change;
use super::super::dialect;
use super::super::payments::refund_policy::read_refund_policy;
use super::Write;
use super::offer::site_policy;
use crate::{
    Actor, Booking, BookingError, CancellationRefund, OwedRefund, RestoredVoucher, stored,
};
use kairos_domain::auth::ActorKind;
use kairos_domain::cancellations::RefundBasis;
use kairos_domain::payments::credentials::Provider;
use kairos_domain::payments::refund_policy::split_refund;
use serde_json::json;
use uuid::Uuid;

/// A collected card or bank payment of the booking being cancelled.
#[derive(kairos_store_macros::FromRow)]
struct PaidPayment {
    id: Uuid,
    provider: String,
    amount: i64,
    refunded_amount: i64,
    /// What refunds under way (Processing) return.
    refunding: i64,
}

/// Decides and records what cancelling `b` (already cancelled in this transaction)
/// owes back; `None` when nothing was paid by card, bank or vouchers.
pub(super) async fn owe_refund(
    w: &mut Write,
    b: &Booking,
    basis: RefundBasis,
    actor: &Actor,
) -> Result<Option<CancellationRefund>, BookingError> {
    owe_refund_beyond(w, b, basis, actor, 0).await
}

/// What a booking owes back of what was paid beyond `keep` (minor units): everything
/// paid for a cancellation (`keep` 0), what a smaller party no longer costs for a
/// partial one (`keep` its new total); the fee of `basis` is on that part.
pub(super) async fn owe_refund_beyond(
    w: &mut Write,
    b: &Booking,
    basis: RefundBasis,
    actor: &Actor,
    keep: i64,
) -> Result<Option<CancellationRefund>, BookingError> {
    // The booking is locked; its payments after it (the lock order of every path).
    let paid: Vec<PaidPayment> = sqlx::query_as(sql!(
        "SELECT p.id, p.provider, p.amount, p.refunded_amount,
                CAST((SELECT COALESCE(SUM(r.amount), 0) FROM refunds r
                      WHERE r.tenant_id = p.tenant_id AND r.payment_id = p.id
                        AND r.status = 'Processing') AS BIGINT) AS refunding
         FROM payments p
         WHERE p.tenant_id = $1 AND p.booking_id = $2 AND p.provider IN ('cardpay', 'bankpay')
           AND p.status IN ('COMPLETED', 'REFUND_PENDING') AND p.amount > p.refunded_amount
         ORDER BY p.created_at, p.id{}",
        dialect::FOR_UPDATE
    ))
    .bind(w.tenant.as_str())
    .bind(b.id)
    .fetch_all(&mut *w.tx)
    .await?;
    // What a refund under way returns counts as returned already: the fee is on what is
    // left. (payment, provider, left to refund, refunded or being refunded)
    let payments: Vec<(Uuid, String, i64, i64)> = paid
        .into_iter()
        .map(|p| {
            let gone = p.refunded_amount + p.refunding;
            (p.id, p.provider, p.amount - gone, gone)
        })
        .filter(|p| p.2 > 0)
        .collect();
    let by_vouchers: Option<i64> = sqlx::query_scalar(
        "SELECT CAST(-SUM(amount) AS BIGINT) FROM voucher_transactions
         WHERE tenant_id = $1 AND booking_id = $2",
    )
    .bind(w.tenant.as_str())
    .bind(b.id)
    .fetch_one(&mut *w.tx)
    .await?;
    let vouchers_paid = by_vouchers.unwrap_or(0).max(0);
    if payments.is_empty() && vouchers_paid == 0 {
        return Ok(None);
    }
    let (policy, _) = site_policy(&mut w.tx, &w.tenant, b.site_id).await?;
    let rule = read_refund_policy(&mut *w.tx, &w.tenant).await?.rule;
    let left: Vec<i64> = payments.iter().map(|p| p.2).collect();
    let paid = (left.iter().sum::<i64>() + vouchers_paid - keep.max(0)).max(0);
    if paid == 0 {
        return Ok(None);
    }
    let fee = basis.fee(rule, policy, paid, b.starts_at - w.now);
    let reason = match basis {
        RefundBasis::InFull => "cancelled by staff: refunded in full".to_owned(),
        RefundBasis::TenantRule if actor.kind != ActorKind::Admin => format!(
            "cancelled by the customer: {}, fee {fee}",
            basis.describe(rule, policy)
        ),
        _ => format!(
            "cancelled by staff: {}, fee {fee}",
            basis.describe(rule, policy)
        ),
    };
    let (parts, voucher_part) = split_refund(paid - fee, &left, vouchers_paid);
    let mut owed = Vec::new();
    for ((payment, provider, left, refunded), part) in payments.into_iter().zip(parts) {
        if part <= 0 {
            continue;
        }
        let target = refunded + part;
        sqlx::query(
            "UPDATE payments SET refund_target = $3, updated_at = $4
             WHERE tenant_id = $1 AND id = $2",
        )
        .bind(w.tenant.as_str())
        .bind(payment)
        .bind(target)
        .bind(w.now)
        .execute(&mut *w.tx)
        .await?;
        w.audit(
            actor,
            Change {
                action: "payment.refund_owed",
                entity_type: "payment",
                entity_id: payment.to_string(),
                changes: json!({"bookingId": b.id, "amount": part, "refundTarget": target,
                    "reason": reason}),
            },
        );
        owed.push(OwedRefund {
            payment_id: payment,
            provider: stored("provider", &provider, Provider::parse)?,
            left,
            owed: part,
        });
    }
    let mut vouchers = Vec::new();
    if voucher_part > 0 {
        for (voucher_id, code, amount, balance_after) in
            super::restore_vouchers(w, b.id, Some(voucher_part)).await?
        {
            w.audit(
                actor,
                Change {
                    action: "voucher.refunded",
                    entity_type: "voucher",
                    entity_id: voucher_id.to_string(),
                    changes: json!({"bookingId": b.id, "amount": amount}),
                },
            );
            vouchers.push(RestoredVoucher {
                voucher_id,
                code,
                amount,
                balance_after,
            });
        }
    }
    Ok(Some(CancellationRefund {
        paid,
        fee,
        reason,
        payments: owed,
        vouchers_paid,
        vouchers,
    }))
}
