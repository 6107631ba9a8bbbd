//! The payment deadline and the stale-payment poller (issue: an unpaid booking must not
//! block a slot forever): a booking confirmed for online payment whose payment is still
//! PENDING past the deadline (`KAIROS_PAYMENT_DEADLINE_MINUTES`) is asked about at its
//! provider (cardpay: the PaymentIntent; bankpay: `GET /payments/{transactionId}`).
//! Collected after all (a lost event or callback): it is settled as the event would have.
//! Authorized (manual capture): left for staff to capture. On its way (a card payment
//! `processing`, a bank payment `pending` or `delayed`): asked again on a later pass.
//! Otherwise the card intent is canceled at the provider and the booking cancelled
//! (capacity released, the customer told by the cancellation message); a bank payment
//! paid after that is refunded as late money. An unpaid gift card purchase is cancelled the same
//! way.

use super::bank_redirect::bank_account_of_payment;
use super::cardpay::{IntentStatus, ProviderError};
use super::provider::{Cardpay, account_of_payment};
use crate::state::AppState;
use kairos_domain::TenantId;
use kairos_domain::payments::credentials::Provider;
use kairos_store::{Actor, BookingAction, OnlinePayment, ProviderEvent};

/// Payments looked at per pass.
const BATCH: i64 = 50;

/// What one pass did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DeadlineReport {
    /// Paid at the provider after all: settled.
    pub settled: usize,
    /// Bookings (and gift card purchases) cancelled for want of payment.
    pub canceled: usize,
    /// Left alone this pass (authorized, or the provider could not be asked).
    pub skipped: usize,
}

/// One pass over the payments past their deadline.
pub async fn run_once(state: &AppState) -> Result<DeadlineReport, kairos_store::StoreError> {
    let now = state.now();
    let before =
        now - chrono::Duration::from_std(state.config.payments.deadline).unwrap_or_default();
    let overdue = state.store.overdue_online_payments(before, BATCH).await?;
    let mut report = DeadlineReport::default();
    for (tenant, payment) in overdue {
        match settle_or_cancel(state, &tenant, &payment).await {
            Ok(Outcome::Settled) => report.settled += 1,
            Ok(Outcome::Canceled) => report.canceled += 1,
            Ok(Outcome::Skipped) => report.skipped += 1,
            Err(e) => {
                tracing::warn!(payment_id = %payment.id, error = %e, "payment deadline check failed");
                report.skipped += 1;
            }
        }
    }
    Ok(report)
}

enum Outcome {
    Settled,
    Canceled,
    Skipped,
}

async fn settle_or_cancel(
    state: &AppState,
    tenant: &TenantId,
    payment: &OnlinePayment,
) -> Result<Outcome, String> {
    let checked = |authorized: bool| async move {
        state
            .store
            .note_payment_checked(tenant, payment.id, authorized, state.now())
            .await
            .map_err(|e| e.to_string())
    };
    if payment.provider == Provider::Bankpay
        && let Some(transaction) = &payment.provider_payment_id
        && let Some(client) = bank_account_of_payment(state, tenant, payment)
            .await
            .map_err(|e| e.to_string())?
    {
        match client.get_payment(transaction).await {
            Ok(found) if found.status == "ok" => {
                // The callback was lost: settle as it would have (its key, so that the
                // callback arriving after all is a duplicate; the amount and currency the
                // provider reports are checked against the payment).
                let event = ProviderEvent {
                    provider: Provider::Bankpay,
                    event_id: format!("{transaction}:ok"),
                    event_type: "payment_intent.succeeded".to_owned(),
                    payment_intent: Some(transaction.clone()),
                    amount: Some(found.amount),
                    currency: Some(found.currency),
                    failure: None,
                    amount_refunded: None,
                    dispute: None,
                };
                state
                    .store
                    .process_provider_event(tenant, &event, state.now())
                    .await
                    .map_err(|e| e.to_string())?;
                return Ok(Outcome::Settled);
            }
            Ok(found) if matches!(found.status.as_str(), "pending" | "delayed") => {
                // The bank has the money on its way: it is not given up.
                checked(false).await?;
                return Ok(Outcome::Skipped);
            }
            // `new` (never paid), `fail`, or unknown to the provider: nobody pays it now.
            Ok(_) | Err(ProviderError::Refused { status: 404, .. }) => {}
            Err(e) => {
                checked(false).await?;
                return Err(format!("asking bankpay: {e}"));
            }
        }
    }
    if payment.provider == Provider::Cardpay
        && let Some(intent_id) = &payment.provider_payment_id
    {
        let account = account_of_payment(state, tenant, payment)
            .await
            .map_err(|e| e.to_string())?;
        if let Some(account) = account {
            let intent = match account.cardpay.retrieve_intent(intent_id).await {
                Ok(intent) => Some(intent),
                // The provider does not know it (a sandbox restarted): nobody can pay it.
                Err(ProviderError::Refused { status: 404, .. }) => None,
                Err(e) => {
                    checked(false).await?;
                    return Err(format!("asking cardpay: {e}"));
                }
            };
            match intent.as_ref().map(|i| &i.status) {
                Some(IntentStatus::Succeeded) => {
                    let Some(found) = intent else {
                        return Ok(Outcome::Skipped);
                    };
                    // The event was lost: settle as it would have (the amount and
                    // currency the provider reports are checked against the payment).
                    let event = ProviderEvent {
                        provider: Provider::Cardpay,
                        event_id: format!("poll:{}:succeeded", found.id),
                        event_type: "payment_intent.succeeded".to_owned(),
                        payment_intent: Some(found.id.clone()),
                        amount: Some(found.amount),
                        currency: Some(found.currency.clone()),
                        failure: None,
                        amount_refunded: None,
                        dispute: None,
                    };
                    state
                        .store
                        .process_provider_event(tenant, &event, state.now())
                        .await
                        .map_err(|e| e.to_string())?;
                    return Ok(Outcome::Settled);
                }
                Some(IntentStatus::RequiresCapture) => {
                    // Held for staff to capture: no longer waiting for the customer.
                    checked(true).await?;
                    return Ok(Outcome::Skipped);
                }
                Some(IntentStatus::Processing) => {
                    checked(false).await?;
                    return Ok(Outcome::Skipped);
                }
                Some(_) => {
                    // Nobody pays it now: the customer cannot pay it later either.
                    let key = format!("kairos-deadline-{}", payment.id);
                    let canceled = match &account.cardpay {
                        Cardpay::Http(c) => c.cancel_intent(intent_id, &key).await.map(|_| ()),
                        Cardpay::Sandbox { sandbox, key } => {
                            sandbox.cancel(key, intent_id).map(|_| ())
                        }
                    };
                    if let Err(e) = canceled {
                        // Paid in the meantime? The next pass finds out.
                        checked(false).await?;
                        return Err(format!("canceling the intent: {e}"));
                    }
                }
                None => {}
            }
        }
    }
    let Some(booking) = payment.booking_id else {
        let Some(purchase) = payment.gift_card_purchase_id else {
            return Ok(Outcome::Skipped);
        };
        // A gift card nobody paid: the purchase is given up.
        let canceled = state
            .store
            .cancel_unpaid_gift_card(tenant, purchase, payment.id, state.now())
            .await
            .map_err(|e| e.to_string())?;
        if !canceled {
            checked(false).await?;
        }
        return Ok(if canceled {
            Outcome::Canceled
        } else {
            Outcome::Skipped
        });
    };
    let result = state
        .store
        .apply_booking_action(
            tenant,
            booking,
            BookingAction::CancelUnpaid {
                reason: "payment_deadline: not paid in time".to_owned(),
            },
            &Actor::system("payments"),
            state.now(),
            None,
        )
        .await;
    match result {
        Ok(_) => Ok(Outcome::Canceled),
        Err(e) => {
            // Paid meanwhile (at the desk, say): it stays.
            checked(false).await?;
            tracing::info!(booking_id = %booking, reason = %e, "unpaid booking kept");
            Ok(Outcome::Skipped)
        }
    }
}
