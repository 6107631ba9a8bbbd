//! Charging a fee (a no-show's, damage, a late cancellation) to the card the booking was
//! paid with, without the customer present, and returning a charged fee when its no-show
//! is corrected.
//!
//! The charge: begun in the store (a payment row for this attempt), the card found from
//! the booking's own PaymentIntent (its customer and payment method, saved at checkout),
//! the off-session PaymentIntent created with the attempt's payment id as idempotency key,
//! and the answer recorded on the locked fee (or the provider's event, whichever comes
//! first: `store::ops::operations::charges`). A decline is PAYMENT_FAILED and leaves the
//! fee pending; a provider that does not answer leaves the attempt PENDING, and the next
//! try asks again with the same key, so the card is never charged twice.

use crate::App;
use crate::error::AppResult;
use crate::payments::accounts::{account_of_payment, payment_failed, provider_error};
use crate::payments::providers::{IntentStatus, NewIntent, ProviderError};
use crate::payments::refund::refund_owed;
use kairos_domain::TenantId;
use kairos_domain::fees::FeeStatus;
use kairos_domain::payments::credentials::Provider;
use kairos_store::{Actor, BookingFee, FeeChargeOutcome};
use uuid::Uuid;

/// What a charge attempt came to.
#[derive(Debug, Clone)]
pub struct FeeCharged {
    pub fee: BookingFee,
    /// The PaymentIntent that took it; None when the fee is owed (no card on file).
    pub charge_id: Option<String>,
}

/// Charges an open fee off-session from the card on file. No card on file (or the
/// account that took it gone): the fee is `owed` (answered, not refused). A decline:
/// PAYMENT_FAILED, the fee still pending. A charge under way: 409 (retry shortly).
pub async fn charge_fee(
    app: &App,
    tenant: &TenantId,
    fee: Uuid,
    actor: &Actor,
) -> AppResult<FeeCharged> {
    let charge = app
        .store
        .begin_fee_charge(tenant, fee, actor, app.now())
        .await?;
    let Some(card) = charge.card_payment.clone() else {
        return Ok(FeeCharged {
            fee: charge.fee,
            charge_id: None,
        });
    };
    let finish = |outcome: FeeChargeOutcome| {
        let charge = &charge;
        async move {
            app.store
                .finish_fee_charge(tenant, charge, &outcome, actor, app.now())
                .await
        }
    };
    let owed = |fee: BookingFee| FeeCharged {
        fee,
        charge_id: None,
    };
    let Some(account) = account_of_payment(app, tenant, &card).await? else {
        // The account that took the card is no longer configured: nothing can charge it.
        return Ok(owed(finish(FeeChargeOutcome::NoCard).await?));
    };
    let provider = &account.cardpay;
    let paid_with = provider
        .retrieve_intent(card.provider_payment_id.as_deref().unwrap_or_default())
        .await
        .map_err(|e| provider_error(Provider::Cardpay, e))?;
    let (Some(pm), Some(customer)) = (paid_with.payment_method, paid_with.customer) else {
        return Ok(owed(finish(FeeChargeOutcome::NoCard).await?));
    };
    let key = format!("kairos-payment-{}", charge.payment_id);
    let declined = |e: ProviderError| async {
        let (code, message, retry, action) = match e {
            ProviderError::Declined { code, message, .. } => (
                code,
                format!("The card on file was declined: {message}"),
                true,
                "ask the customer to pay at the desk or by another card, or waive the fee",
            ),
            // A request the provider will not take as it is (the card was removed):
            // recorded like a decline, so staff see why.
            ProviderError::Refused { code, message, .. } => (
                code,
                format!("The card on file cannot be charged: {message}"),
                false,
                "collect the fee at the desk, or waive it",
            ),
            // No answer: the attempt stays open and the next try asks again, the same.
            unavailable => return Err(provider_error(Provider::Cardpay, unavailable).into()),
        };
        finish(FeeChargeOutcome::Declined {
            code: code.clone(),
            message: message.clone(),
        })
        .await?;
        Err(payment_failed(Provider::Cardpay, &code, message, retry, action).into())
    };
    let saved = match provider
        .save_payment_method(&pm, &customer, &format!("{key}-save"))
        .await
    {
        Ok(saved) => saved,
        Err(e) => return declined(e).await,
    };
    let metadata = [
        ("tenant_id", tenant.to_string()),
        ("type", "fee".to_owned()),
        ("fee_id", charge.fee.id.to_string()),
        ("booking_id", charge.fee.booking_id.to_string()),
        ("payment_id", charge.payment_id.to_string()),
    ];
    let intent = provider
        .create_intent(
            &NewIntent {
                amount: charge.amount,
                currency: &charge.fee.currency,
                manual_capture: false,
                payment_method: Some(&saved),
                metadata: &metadata,
                customer: Some(&customer),
                save_card: false,
                off_session: true,
            },
            &key,
        )
        .await;
    match intent {
        Ok(intent) if intent.status == IntentStatus::Succeeded => {
            let fee = finish(FeeChargeOutcome::Charged {
                intent: intent.id.clone(),
            })
            .await?;
            refund_returned(app, tenant, &fee).await;
            let charge_id = (fee.status == FeeStatus::Charged).then_some(intent.id);
            Ok(FeeCharged { fee, charge_id })
        }
        // On its way: the provider's event finishes it.
        Ok(intent) if intent.status == IntentStatus::Processing => {
            let fee = finish(FeeChargeOutcome::Processing { intent: intent.id }).await?;
            Ok(owed(fee))
        }
        // Anything else (the bank wants the customer to authenticate): declined.
        Ok(intent) => {
            let (code, message) = intent.last_error.unwrap_or_else(|| {
                (
                    "authentication_required".to_owned(),
                    format!("the payment is {}", intent.status.as_str()),
                )
            });
            declined(ProviderError::Declined {
                code,
                decline_code: None,
                message,
            })
            .await
        }
        Err(e) => declined(e).await,
    }
}

/// What follows a booking made a no-show (by any path): its fee charged at once when
/// the tenant's policy says so. Answers what staff should know (no card on file, a charge
/// that failed and waits for them).
pub async fn after_no_show(
    app: &App,
    tenant: &TenantId,
    booking: Uuid,
    actor: &Actor,
) -> AppResult<Vec<String>> {
    let mut warnings = Vec::new();
    let Some(fee) = app
        .store
        .no_show_record(tenant, booking)
        .await?
        .and_then(|r| r.fee)
    else {
        return Ok(warnings);
    };
    if fee.status == FeeStatus::Owed {
        warnings.push(
            "no card is on file for this booking: the fee is owed, collect it at the desk"
                .to_owned(),
        );
    } else if fee.status == FeeStatus::Pending
        && app.store.no_show_policy(tenant).await?.policy.auto_charge
    {
        match charge_fee(app, tenant, fee.id, actor).await {
            Ok(done) if done.fee.status == FeeStatus::Owed => warnings.push(
                "the card the booking was paid with cannot be charged: the fee is owed, collect it at the desk"
                    .to_owned(),
            ),
            Ok(_) => {}
            Err(e) => warnings.push(format!(
                "the fee was not charged ({}); it stays pending for staff to charge again or waive",
                e.message()
            )),
        }
    }
    Ok(warnings)
}

/// Refunds a fee's charge that the fee no longer wants (waived or corrected while it was
/// being charged, or corrected after): what the owed-refunds job would otherwise do at
/// its next pass.
async fn refund_returned(app: &App, tenant: &TenantId, fee: &BookingFee) {
    if fee.status.is_open() || fee.status == FeeStatus::Charged {
        return;
    }
    if let Some(payment) = fee.payment_id {
        let actor = Actor::system("fee refund");
        if let Err(e) = refund_owed(
            app,
            tenant,
            payment,
            Some("fee returned".to_owned()),
            &actor,
        )
        .await
        {
            tracing::warn!(fee = %fee.id, error = %e, "fee refund not finished; the owed-refunds job retries it");
        }
    }
}

/// After a booking's no-show was corrected (arrived late): refunds its charged no-show
/// fee, if any (the owed-refunds job finishes what this cannot).
pub async fn refund_corrected(app: &App, tenant: &TenantId, booking: Uuid) -> AppResult<()> {
    for fee in app.store.booking_fees(tenant, booking).await? {
        if fee.status == FeeStatus::Refunded {
            refund_returned(app, tenant, &fee).await;
        }
    }
    Ok(())
}
