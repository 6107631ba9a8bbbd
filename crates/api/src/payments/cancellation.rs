//! The refund of a cancelled booking's card payments (spec Part B 4.6, 4.8): what the
//! customer paid minus the cancellation fee of the site's policy when the customer (or
//! the booking token's holder) cancels; everything when staff cancel (the venue's
//! decision). Made right after the cancellation, through the same path as staff's
//! refunds; a refund the provider refuses leaves its REFUND_FAILED dead letter, and the
//! cancellation stands.

use super::actions::{RefundOutcome, RefundPart, refund_payment};
use crate::error::ApiResult;
use crate::state::AppState;
use kairos_domain::TenantId;
use kairos_domain::catalog::CancellationPolicy;
use kairos_domain::payments::refund_policy::cancellation_fee;
use kairos_store::{Actor, Booking};

/// Refunds what a just-cancelled booking's card payments call for; None when nothing was
/// collected by card.
pub async fn refund_cancelled(
    state: &AppState,
    tenant: &TenantId,
    booking: &Booking,
    by_staff: bool,
    actor: &Actor,
) -> ApiResult<Option<RefundOutcome>> {
    let payments = state
        .store
        .refundable_card_payments(tenant, booking.id)
        .await?;
    if payments.is_empty() {
        return Ok(None);
    }
    let policy = state
        .store
        .get_site(tenant, booking.site_id)
        .await?
        .map_or(CancellationPolicy::Standard, |s| s.cancellation_policy);
    let notice = booking.starts_at - state.now();
    let mut outcome = RefundOutcome {
        success: true,
        refund_id: uuid::Uuid::nil(),
        total_refund_amount: 0,
        fee_deducted: 0,
        net_refund_amount: 0,
        refund_breakdown: Vec::new(),
    };
    for (payment, left) in payments {
        let fee = if by_staff {
            0
        } else {
            cancellation_fee(policy, left, notice)
        };
        outcome.total_refund_amount += left;
        outcome.fee_deducted += fee;
        let amount = left - fee;
        if amount <= 0 {
            continue;
        }
        let reason = if by_staff {
            "cancelled by staff: refunded in full".to_owned()
        } else {
            format!("cancelled by the customer: {policy} policy, fee {fee}")
        };
        match refund_payment(state, tenant, payment, Some(amount), Some(reason), actor).await {
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
                    payment_method: "cardpay".to_owned(),
                    original_amount: left,
                    refund_amount: 0,
                    provider_refund_id: None,
                    voucher_new_balance: None,
                });
            }
        }
    }
    Ok(Some(outcome))
}
