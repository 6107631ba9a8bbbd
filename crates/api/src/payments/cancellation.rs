//! The refund of a cancelled booking (spec Part B 4.6, 4.8): what the customer paid (by
//! card and by vouchers) minus the cancellation fee (the tenant's flat or percentage fee,
//! or by default the schedule of the site's policy by notice) when the customer
//! (or the booking token's holder) cancels; everything when staff cancel (the venue's
//! decision). The card and bank payments are refunded first, through the same path as
//! staff's refunds, then the vouchers' balance is restored with the rest. A refund the provider
//! refuses leaves its REFUND_FAILED dead letter, and the cancellation stands.

use super::refunds::{RefundOutcome, RefundPart, refund_payment};
use crate::error::ApiResult;
use crate::state::AppState;
use kairos_domain::TenantId;
use kairos_domain::catalog::CancellationPolicy;
use kairos_domain::payments::refund_policy::FeeRule;
use kairos_store::{Actor, Booking};

/// Refunds what a just-cancelled booking's payments call for: the amount paid (by card,
/// bank and vouchers) minus the fee, the card and bank payments first, then the
/// vouchers' balance with the rest (spec Part B 4.6). None when nothing was paid.
pub async fn refund_cancelled(
    state: &AppState,
    tenant: &TenantId,
    booking: &Booking,
    by_staff: bool,
    actor: &Actor,
) -> ApiResult<Option<RefundOutcome>> {
    let payments = state
        .store
        .refundable_provider_payments(tenant, booking.id)
        .await?;
    let by_vouchers = state.store.booking_voucher_paid(tenant, booking.id).await?;
    if payments.is_empty() && by_vouchers == 0 {
        return Ok(None);
    }
    let policy = state
        .store
        .get_site(tenant, booking.site_id)
        .await?
        .map_or(CancellationPolicy::Standard, |s| s.cancellation_policy);
    let rule = state.store.refund_policy(tenant).await?.rule;
    let paid = payments.iter().map(|(_, _, left)| left).sum::<i64>() + by_vouchers;
    let fee = if by_staff {
        0
    } else {
        rule.fee(policy, paid, booking.starts_at - state.now())
    };
    let mut outcome = RefundOutcome {
        success: true,
        refund_id: uuid::Uuid::nil(),
        total_refund_amount: paid,
        fee_deducted: fee,
        net_refund_amount: 0,
        refund_breakdown: Vec::new(),
    };
    let reason = if by_staff {
        "cancelled by staff: refunded in full".to_owned()
    } else {
        match rule {
            FeeRule::TimeBased => format!("cancelled by the customer: {policy} policy, fee {fee}"),
            FeeRule::Flat(_) => format!("cancelled by the customer: flat fee {fee}"),
            FeeRule::Percentage(p) => {
                format!("cancelled by the customer: {p} % fee, {fee}")
            }
        }
    };
    // The external payments first.
    let mut left_to_refund = paid - fee;
    for (payment, method, left) in payments {
        let amount = left.min(left_to_refund);
        if amount <= 0 {
            break;
        }
        left_to_refund -= amount;
        match refund_payment(
            state,
            tenant,
            payment,
            Some(amount),
            Some(reason.clone()),
            actor,
        )
        .await
        {
            Ok(done) => {
                if outcome.refund_id.is_nil() {
                    outcome.refund_id = done.refund_id;
                }
                outcome.net_refund_amount += done.net_refund_amount;
                outcome.refund_breakdown.extend(done.refund_breakdown);
            }
            Err(e) => {
                tracing::warn!(payment_id = %payment, error = %e.message, "refund of a cancelled booking failed");
                outcome.success = false;
                outcome.refund_breakdown.push(RefundPart {
                    payment_method: method,
                    original_amount: left,
                    refund_amount: 0,
                    provider_refund_id: None,
                    voucher_new_balance: None,
                    status: "Failed".to_owned(),
                });
            }
        }
    }
    // Then the vouchers' balance with the rest.
    if left_to_refund > 0 && by_vouchers > 0 {
        let restored = state
            .store
            .restore_booking_vouchers(tenant, booking.id, left_to_refund, actor, state.now())
            .await?;
        for v in restored {
            outcome.net_refund_amount += v.amount;
            outcome.refund_breakdown.push(RefundPart {
                payment_method: "voucher".to_owned(),
                original_amount: by_vouchers,
                refund_amount: v.amount,
                provider_refund_id: None,
                voucher_new_balance: Some(v.balance_after),
                status: "Completed".to_owned(),
            });
        }
    }
    if outcome.refund_id.is_nil() {
        // No provider refund names it (vouchers only, a fee that kept everything, or the
        // provider refunds failed): the cancellation's own refund id, the same each time.
        outcome.refund_id = uuid::Uuid::new_v5(&booking.id, b"kairos:cancellation-refund");
    }
    Ok(Some(outcome))
}
