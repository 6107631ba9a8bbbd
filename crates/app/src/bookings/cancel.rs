//! Cancelling a booking, with everything a cancellation owes: its seats released and the
//! fee, each payment's refund and the vouchers' part decided in the cancellation's own
//! transaction (`Booking::cancellation`; the vouchers' part restored there, the
//! cancellation message queued there); then, outside it, the card intents nobody paid
//! canceled at the provider (so the customer cannot pay a cancelled booking later) and
//! the card and bank parts asked of their providers through the same path as staff's
//! refunds. A part that cannot be refunded at once (another refund of the payment under
//! way, a provider that did not answer) is answered `Processing` and finished by the
//! owed-refunds job; one the provider refuses leaves its REFUND_FAILED dead letter, with
//! what is still owed, before staff.
//!
//! The customer's cancel, staff's status change to `canceled` and the payment deadline
//! all cancel through [`cancel`].

use crate::App;
use crate::error::{AppResult, code};
use crate::payments::accounts::account_of_payment;
use crate::payments::refund::{RefundOutcome, RefundPart, refund_owed};
use kairos_domain::TenantId;
use kairos_store::{Actor, Booking, BookingAction, Written};
use uuid::Uuid;

/// Who cancels, and how the store's status machine sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Cancellation {
    /// `POST /bookings/{id}/cancel`: by the customer (within the site's policy window,
    /// with its fee) or by staff (always, in full).
    Request {
        reason: Option<String>,
        by_customer: bool,
    },
    /// Staff set the status to `canceled`: in full.
    StatusChange {
        reason: Option<String>,
        admin_notes: Option<String>,
    },
    /// The online payment did not come in time.
    PaymentDeadline { reason: String },
    /// `POST /admin/bookings/{id}/cancel`: staff cancel for one of the reasons of
    /// `kairos_domain::cancellations`, refunding by `refund`; the customer is told when
    /// `notify`.
    Staff {
        reason: Option<String>,
        refund: kairos_domain::cancellations::RefundBasis,
        notify: bool,
    },
    /// A partial cancellation (`reduced_party_size`): the party becomes `party_size`, and
    /// what the smaller party no longer costs is refunded by `refund`. The booking stays.
    ReduceParty {
        party_size: i32,
        /// The smaller party's places by participant type (who left), if staff say.
        types: Option<Vec<kairos_store::ChosenType>>,
        reason: Option<String>,
        refund: kairos_domain::cancellations::RefundBasis,
        notify: bool,
    },
}

impl Cancellation {
    fn action(self) -> BookingAction {
        match self {
            Cancellation::Request {
                reason,
                by_customer,
            } => BookingAction::Cancel {
                reason,
                customer_window: by_customer,
            },
            Cancellation::StatusChange {
                reason,
                admin_notes,
            } => BookingAction::SetStatus {
                status: kairos_domain::bookings::BookingStatus::Canceled,
                reason,
                admin_notes,
            },
            Cancellation::PaymentDeadline { reason } => BookingAction::CancelUnpaid { reason },
            Cancellation::Staff {
                reason,
                refund,
                notify,
            } => BookingAction::StaffCancel {
                reason,
                refund,
                notify,
            },
            Cancellation::ReduceParty {
                party_size,
                types,
                reason,
                refund,
                notify,
            } => BookingAction::ReduceParty {
                party_size,
                types,
                reason,
                refund,
                notify,
            },
        }
    }
}

/// A cancelled booking and what was refunded.
#[derive(Debug, Clone)]
pub struct Cancelled {
    pub booking: Booking,
    /// None when nothing was paid by card, bank or vouchers.
    pub refund: Option<RefundOutcome>,
}

/// Cancels the booking `id` as `how` says, and settles what the cancellation owes.
pub async fn cancel(
    app: &App,
    tenant: &TenantId,
    id: Uuid,
    how: Cancellation,
    actor: &Actor,
) -> AppResult<Cancelled> {
    // The deadline canceled its intent at the provider before deciding; a partial
    // cancellation keeps the booking (and refuses while a payment is under way).
    let keep_intents = matches!(
        how,
        Cancellation::PaymentDeadline { .. } | Cancellation::ReduceParty { .. }
    );
    let written = app
        .store
        .apply_booking_action(tenant, id, how.action(), actor, app.now(), None)
        .await?;
    let Written::Done(booking) = written else {
        return Err(crate::error::Failure::internal("a replay without an Idempotency-Key").into());
    };
    if !keep_intents {
        cancel_at_provider(app, tenant, booking.id).await;
    }
    let refund = refund_cancelled(app, tenant, &booking, actor).await?;
    Ok(Cancelled { booking, refund })
}

/// What cancelling the booking `id` as `how` says would refund, without cancelling it:
/// the cancellation is decided in a transaction that is then rolled back, so the preview
/// and the cancellation are worked out by the same code. `cancellation` of the answer is
/// None when nothing was paid by card, bank or vouchers.
pub async fn preview(
    app: &App,
    tenant: &TenantId,
    id: Uuid,
    how: Cancellation,
    actor: &Actor,
) -> AppResult<Booking> {
    Ok(app
        .store
        .preview_booking_action(tenant, id, how.action(), actor, app.now())
        .await?)
}

/// Refunds what a just-cancelled (or just cheaper) booking owes (see the module): None
/// when nothing was paid by card, bank or vouchers. What a provider refuses now stays
/// owed, for the owed-refunds job.
pub async fn refund_cancelled(
    app: &App,
    tenant: &TenantId,
    booking: &Booking,
    actor: &Actor,
) -> AppResult<Option<RefundOutcome>> {
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
            app,
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
                let failed = e.code() == Some(code::REFUND_FAILED);
                if failed {
                    tracing::warn!(payment_id = %part.payment_id, error = %e.message(), "refund of a cancelled booking failed");
                    outcome.success = false;
                } else {
                    tracing::info!(payment_id = %part.payment_id, reason = %e.message(), "refund of a cancelled booking left to the owed-refunds job");
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

/// Cancels at the provider the intents of a booking's card payments canceled with it, so
/// that the customer cannot pay a cancelled booking later. Best effort: an intent paid
/// in the meantime answers an error here, and its success event records the money for
/// staff (PAID_AFTER_CLOSE).
async fn cancel_at_provider(app: &App, tenant: &TenantId, booking: Uuid) {
    let payments = match app.store.canceled_card_payments(tenant, booking).await {
        Ok(p) => p,
        Err(e) => {
            tracing::warn!(booking_id = %booking, error = %e, "card payments of a cancelled booking");
            return;
        }
    };
    for payment in payments {
        let Some(intent) = payment.provider_payment_id.as_deref() else {
            continue;
        };
        let account = match account_of_payment(app, tenant, &payment).await {
            Ok(Some(a)) => a,
            Ok(None) => continue,
            Err(e) => {
                tracing::warn!(payment_id = %payment.id, error = %e.message(), "account of a canceled payment");
                continue;
            }
        };
        let result = account
            .cardpay
            .cancel_intent(intent, &format!("kairos-cancel-{}", payment.id))
            .await;
        if let Err(e) = result {
            tracing::info!(payment_id = %payment.id, error = %e, "intent of a cancelled booking not canceled at cardpay");
        }
    }
}
