//! The payment deadline and the stale-payment poller (an unpaid booking must not block a
//! slot forever): a booking confirmed for online payment whose payment is still
//! PENDING past the deadline (`KAIROS_PAYMENT_DEADLINE_MINUTES`) is asked about at its
//! provider (cardpay: the PaymentIntent; bankpay: `GET /payments/{transactionId}`).
//! Collected after all (a lost event or callback): it is settled as the event would have.
//! Authorized (manual capture): left for staff to capture. On its way (a card payment
//! `processing`, a bank payment `pending` or `delayed`): asked again on a later pass.
//! Otherwise the card intent is canceled at the provider and the booking cancelled
//! (capacity released, the customer told by the cancellation message); a bank payment
//! paid after that is refunded as late money. A `part_paid` booking (an additional charge
//! or the balance unpaid online) keeps its places: only the payment is withdrawn, and
//! staff see on the booking that the rest is taken at the desk. An unpaid gift card purchase is cancelled the same
//! way.

use super::accounts::account_of_payment;
use super::bank::bank_account_of_payment;
use super::card_events::{Receipt, settle};
use super::providers::{IntentStatus, ProviderError};
use crate::App;
use crate::bookings::cancel::{Cancellation, cancel};
use kairos_domain::TenantId;
use kairos_domain::payments::credentials::Provider;
use kairos_domain::payments::reports::ProviderReport;
use kairos_store::{Actor, OnlinePayment, ProviderEvent};

/// Payments looked at per pass.
const BATCH: i64 = 50;

/// What one pass did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DeadlineReport {
    /// Paid at the provider after all: settled.
    pub settled: usize,
    /// Bookings (and gift card purchases) cancelled for want of payment.
    pub canceled: usize,
    /// Left alone this pass (authorized, still on its way at the provider, paid
    /// meanwhile, or the provider could not be asked).
    pub skipped: usize,
}

/// One pass over the payments past their deadline.
pub async fn run_once(app: &App) -> Result<DeadlineReport, kairos_store::StoreError> {
    let now = app.now();
    let before = now - chrono::Duration::from_std(app.payments.deadline).unwrap_or_default();
    let overdue = app.store.overdue_online_payments(before, BATCH).await?;
    let mut report = DeadlineReport::default();
    for (tenant, payment) in overdue {
        match settle_or_cancel(app, &tenant, &payment).await {
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
    app: &App,
    tenant: &TenantId,
    payment: &OnlinePayment,
) -> Result<Outcome, String> {
    let asked = match payment.provider {
        Provider::Bankpay => ask_bankpay(app, tenant, payment).await,
        Provider::Cardpay => ask_cardpay(app, tenant, payment).await,
    };
    match asked {
        Ok(Asked::Settled) => return Ok(Outcome::Settled),
        Ok(Asked::Waiting { authorized }) => {
            checked(app, tenant, payment, authorized).await?;
            return Ok(Outcome::Skipped);
        }
        Ok(Asked::Unpaid) => {}
        Err(e) => {
            checked(app, tenant, payment, false).await?;
            return Err(e);
        }
    }
    if payment.group_id.is_some() && payment.booking_id.is_none() {
        // A group's payment: its bookings' holds lapse with it; only the payment is
        // withdrawn (money arriving later is refunded booking by booking).
        app.store
            .withdraw_group_payment(tenant, payment.id, app.now())
            .await
            .map_err(|e| e.to_string())?;
        return Ok(Outcome::Canceled);
    }
    let Some(booking) = payment.booking_id else {
        let Some(purchase) = payment.gift_card_purchase_id else {
            return Ok(Outcome::Skipped);
        };
        // A gift card nobody paid: the purchase is given up.
        let canceled = app
            .store
            .cancel_unpaid_gift_card(tenant, purchase, payment.id, app.now())
            .await
            .map_err(|e| e.to_string())?;
        if !canceled {
            checked(app, tenant, payment, false).await?;
        }
        return Ok(if canceled {
            Outcome::Canceled
        } else {
            Outcome::Skipped
        });
    };
    // A part-paid booking keeps its places: only the payment nobody made is withdrawn,
    // and what it owes is taken at the desk.
    if app
        .store
        .give_up_unpaid_charge(tenant, booking, payment.id, app.now())
        .await
        .map_err(|e| e.to_string())?
    {
        return Ok(Outcome::Canceled);
    }
    let result = cancel(
        app,
        tenant,
        booking,
        Cancellation::PaymentDeadline {
            reason: "payment_deadline: not paid in time".to_owned(),
        },
        &Actor::system("payments"),
    )
    .await;
    match result {
        Ok(_) => Ok(Outcome::Canceled),
        Err(e) => {
            // Paid meanwhile (at the desk, say): it stays.
            checked(app, tenant, payment, false).await?;
            tracing::info!(booking_id = %booking, reason = %e.message(), "unpaid booking kept");
            Ok(Outcome::Skipped)
        }
    }
}

/// What the provider said of an overdue payment.
enum Asked {
    /// Collected after all: settled as its lost event would have been.
    Settled,
    /// Still on its way (`authorized`: funds held for staff to capture): asked again later.
    Waiting { authorized: bool },
    /// Nobody pays it now: the booking (or gift card purchase) is given up.
    Unpaid,
}

/// Notes that the payment was looked at (`authorized`: its funds are held), so the next
/// pass looks at others first.
async fn checked(
    app: &App,
    tenant: &TenantId,
    payment: &OnlinePayment,
    authorized: bool,
) -> Result<(), String> {
    app.store
        .note_payment_checked(tenant, payment.id, authorized, app.now())
        .await
        .map_err(|e| e.to_string())
}

/// A bank payment, by `GET /payments/{transactionId}`: `ok` is settled (under the
/// callback's own key, so that the callback arriving after all is a duplicate), `pending`
/// and `delayed` wait (the bank has the money on its way); `new`, `fail` or unknown to the
/// provider are unpaid (a bank payment cannot be withdrawn: paid after all, it is refunded
/// as late money).
async fn ask_bankpay(
    app: &App,
    tenant: &TenantId,
    payment: &OnlinePayment,
) -> Result<Asked, String> {
    let Some(transaction) = &payment.provider_payment_id else {
        return Ok(Asked::Unpaid);
    };
    let Some(client) = bank_account_of_payment(app, tenant, payment)
        .await
        .map_err(|e| e.to_string())?
    else {
        return Ok(Asked::Unpaid);
    };
    match client.get_payment(transaction).await {
        Ok(found) if found.status == "ok" => {
            let key = format!("{transaction}:ok");
            settle_lost(
                app,
                tenant,
                Provider::Bankpay,
                key,
                transaction,
                found.amount,
                found.currency,
            )
            .await
        }
        Ok(found) if matches!(found.status.as_str(), "pending" | "delayed") => {
            Ok(Asked::Waiting { authorized: false })
        }
        Ok(_) | Err(ProviderError::Refused { status: 404, .. }) => Ok(Asked::Unpaid),
        Err(e) => Err(format!("asking bankpay: {e}")),
    }
}

/// A card payment, by its PaymentIntent: succeeded is settled, funds held wait for staff,
/// processing waits; otherwise the intent is canceled at the provider (so the customer
/// cannot pay it later) and the payment is unpaid. Unknown to the provider (a sandbox
/// restarted): unpaid.
async fn ask_cardpay(
    app: &App,
    tenant: &TenantId,
    payment: &OnlinePayment,
) -> Result<Asked, String> {
    let Some(intent_id) = &payment.provider_payment_id else {
        return Ok(Asked::Unpaid);
    };
    let Some(account) = account_of_payment(app, tenant, payment)
        .await
        .map_err(|e| e.to_string())?
    else {
        return Ok(Asked::Unpaid);
    };
    let intent = match account.cardpay.retrieve_intent(intent_id).await {
        Ok(intent) => intent,
        Err(ProviderError::Refused { status: 404, .. }) => return Ok(Asked::Unpaid),
        Err(e) => return Err(format!("asking cardpay: {e}")),
    };
    match intent.status {
        IntentStatus::Succeeded => {
            let key = format!("poll:{}:succeeded", intent.id);
            settle_lost(
                app,
                tenant,
                Provider::Cardpay,
                key,
                &intent.id,
                intent.amount,
                intent.currency,
            )
            .await
        }
        IntentStatus::RequiresCapture => Ok(Asked::Waiting { authorized: true }),
        IntentStatus::Processing => Ok(Asked::Waiting { authorized: false }),
        // Canceled before (by another instance, or a pass whose cancellation did not
        // save): nobody can pay it.
        IntentStatus::Canceled => Ok(Asked::Unpaid),
        _ => {
            let key = format!("kairos-deadline-{}", payment.id);
            // Not canceled: paid in the meantime? The next pass finds out.
            account
                .cardpay
                .cancel_intent(intent_id, &key)
                .await
                .map(|()| Asked::Unpaid)
                .map_err(|e| format!("canceling the intent: {e}"))
        }
    }
}

/// Settles a payment its provider reports collected whose event was lost, as that event
/// would have: processed once under `event_id`, the amount and currency the provider
/// reports checked against the payment, money for a booking closed meanwhile refunded at
/// once.
async fn settle_lost(
    app: &App,
    tenant: &TenantId,
    provider: Provider,
    event_id: String,
    provider_payment_id: &str,
    amount: i64,
    currency: String,
) -> Result<Asked, String> {
    let event = ProviderEvent {
        provider,
        event_id,
        event_type: "payment_intent.succeeded".to_owned(),
        payment_intent: Some(provider_payment_id.to_owned()),
        payment_id: None,
        report: ProviderReport::Succeeded {
            amount: Some(amount),
            currency: Some(currency),
        },
    };
    match settle(app, tenant, &event).await {
        Receipt::Answered(_) => Ok(Asked::Settled),
        Receipt::Failed(a) => Err(a.message),
        Receipt::Refused(e) => Err(e.message()),
    }
}
