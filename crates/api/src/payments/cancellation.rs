//! The refund of a cancelled booking (spec Part B 4.6, 4.8). What it owes was decided in
//! the cancellation's transaction (`Booking::cancellation`: the fee, each card or bank
//! payment's part recorded as its refund target, the vouchers' part already restored);
//! here the card and bank parts are asked of their providers through the same path as
//! staff's refunds. A part that cannot be refunded at once (another refund of the payment
//! is under way, the provider did not answer) is answered `Processing` and finished by the
//! owed-refunds job ([`finish_unfinished`]); one the provider refuses leaves its
//! REFUND_FAILED dead letter, with what is still owed, before staff.

use super::refunds::{RefundOutcome, RefundPart, refund_owed, refund_payment};
use crate::error::{ApiResult, code};
use crate::state::AppState;
use kairos_domain::TenantId;
use kairos_store::{Actor, Booking};

/// Refunds what a just-cancelled booking owes (see the module): None when nothing was
/// paid by card, bank or vouchers.
pub async fn refund_cancelled(
    state: &AppState,
    tenant: &TenantId,
    booking: &Booking,
    actor: &Actor,
) -> ApiResult<Option<RefundOutcome>> {
    let Some(owed) = &booking.cancellation else {
        return Ok(None);
    };
    let mut outcome = RefundOutcome {
        success: true,
        refund_id: uuid::Uuid::nil(),
        total_refund_amount: owed.paid,
        fee_deducted: owed.fee,
        net_refund_amount: 0,
        refund_breakdown: Vec::new(),
    };
    // The external payments first.
    for part in &owed.payments {
        match refund_owed(
            state,
            tenant,
            part.payment_id,
            Some(owed.reason.clone()),
            actor,
        )
        .await
        {
            Ok(None) => {
                // Refunded meanwhile by the owed-refunds job (another instance was quicker).
                outcome.net_refund_amount += part.owed;
                outcome.refund_breakdown.push(RefundPart {
                    payment_method: part.provider.as_str().to_owned(),
                    original_amount: part.left,
                    refund_amount: part.owed,
                    provider_refund_id: None,
                    voucher_new_balance: None,
                    status: "Completed".to_owned(),
                });
            }
            Ok(Some(done)) => {
                if outcome.refund_id.is_nil() {
                    outcome.refund_id = done.refund_id;
                }
                outcome.net_refund_amount += done.net_refund_amount;
                outcome.refund_breakdown.extend(done.refund_breakdown);
            }
            Err(e) => {
                // Refused by the provider: in the dead-letter queue. Otherwise (another
                // refund of the payment under way, no answer) the job finishes it.
                let failed = e.code == code::REFUND_FAILED;
                if failed {
                    tracing::warn!(payment_id = %part.payment_id, error = %e.message, "refund of a cancelled booking failed");
                    outcome.success = false;
                } else {
                    tracing::info!(payment_id = %part.payment_id, reason = %e.message, "refund of a cancelled booking left to the owed-refunds job");
                }
                outcome.refund_breakdown.push(RefundPart {
                    payment_method: part.provider.as_str().to_owned(),
                    original_amount: part.left,
                    refund_amount: if failed { 0 } else { part.owed },
                    provider_refund_id: None,
                    voucher_new_balance: None,
                    status: if failed { "Failed" } else { "Processing" }.to_owned(),
                });
            }
        }
    }
    // Then the vouchers' part, restored with the cancellation.
    for v in &owed.vouchers {
        outcome.net_refund_amount += v.amount;
        outcome.refund_breakdown.push(RefundPart {
            payment_method: "voucher".to_owned(),
            original_amount: owed.vouchers_paid,
            refund_amount: v.amount,
            provider_refund_id: None,
            voucher_new_balance: Some(v.balance_after),
            status: "Completed".to_owned(),
        });
    }
    if outcome.refund_id.is_nil() {
        // No provider refund names it (vouchers only, a fee that kept everything, or the
        // provider refunds failed): the cancellation's own refund id, the same each time.
        outcome.refund_id = uuid::Uuid::new_v5(&booking.id, b"kairos:cancellation-refund");
    }
    Ok(Some(outcome))
}

/// Payments one pass of the owed-refunds job looks at.
const UNFINISHED_BATCH: i64 = 100;

/// What one pass of the owed-refunds job did.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct OwedRefunds {
    /// Refunds asked for and completed (or left to a bank's callback).
    pub refunded: usize,
    /// Refunds that could not run now (another still under way, no answer): next pass.
    pub waiting: usize,
    /// Refunds the provider refused: before staff as REFUND_FAILED dead letters.
    pub failed: usize,
    /// Refunds with no outcome for a day, put before staff (REFUND_STALLED) this pass.
    pub stalled: u64,
}

/// The owed-refunds job: asks the providers for what cancellations still owe (a refund
/// that could not run when the booking was cancelled) and resumes card refunds whose
/// outcome was lost; a refund with no outcome for a day goes before staff. Safe with
/// several instances: each refund is begun on the locked payment, and one request at a
/// time asks the provider.
pub async fn finish_unfinished(state: &AppState) -> ApiResult<OwedRefunds> {
    let mut done = OwedRefunds {
        stalled: state.store.flag_stalled_refunds(state.now()).await?,
        ..OwedRefunds::default()
    };
    let actor = Actor::system("owed refunds");
    for unfinished in state
        .store
        .unfinished_refunds(state.now(), UNFINISHED_BATCH)
        .await?
    {
        let reason = "owed by the cancellation of its booking".to_owned();
        let asked = match unfinished.owed {
            Some(_) => refund_owed(
                state,
                &unfinished.tenant,
                unfinished.payment_id,
                Some(reason),
                &actor,
            )
            .await
            .map(|done| done.is_some()),
            // A card refund whose outcome was lost: resumed as it was.
            None => refund_payment(
                state,
                &unfinished.tenant,
                unfinished.payment_id,
                None,
                Some(reason),
                &actor,
            )
            .await
            .map(|_| true),
        };
        match asked {
            Ok(true) => done.refunded += 1,
            Ok(false) => {}
            Err(e) if e.code == code::REFUND_FAILED => done.failed += 1,
            Err(e) => {
                tracing::info!(payment_id = %unfinished.payment_id, reason = %e.message, "owed refund waits for the next pass");
                done.waiting += 1;
            }
        }
    }
    Ok(done)
}
