//! Starting an online payment at its provider: the PaymentIntent of a card payment made
//! once and found again, and what the customer does next (the confirm answer's
//! `payment`). The provider call runs outside any transaction; its idempotency key is
//! the payment's id, so a retry after a crash finds the same intent.

use super::accounts::{Account, account_of_payment, cardpay_account, provider_error};
use super::bank::{ReturnUrls, bank_action};
use super::providers::{IntentStatus, NewIntent, PaymentIntent};
use crate::App;
use crate::error::{AppResult, Failure};
use kairos_domain::TenantId;
use kairos_domain::payments::credentials::Provider;
use kairos_store::OnlinePayment;
use uuid::Uuid;

/// Makes (once) or finds the PaymentIntent of an online payment, recording its id and
/// account; the intent and the account it is at.
pub async fn ensure_intent(
    app: &App,
    tenant: &TenantId,
    payment: &OnlinePayment,
    manual_capture: bool,
) -> AppResult<(PaymentIntent, Account)> {
    if let Some(id) = &payment.provider_payment_id {
        let account = account_of_payment(app, tenant, payment)
            .await?
            .ok_or_else(|| {
                Failure::internal("the account of a card payment is no longer configured")
            })?;
        let intent = account
            .cardpay
            .retrieve_intent(id)
            .await
            .map_err(|e| provider_error(Provider::Cardpay, e))?;
        return Ok((intent, account));
    }
    let account = cardpay_account(app, tenant, payment.site_id).await?;
    let mut metadata = vec![
        ("tenant_id", tenant.to_string()),
        ("payment_id", payment.id.to_string()),
    ];
    if let Some(purchase) = payment.gift_card_purchase_id {
        // As spec Part A 6 shows the event's metadata.
        metadata.push(("type", "gift_card_purchase".to_owned()));
        metadata.push(("purchase_id", purchase.to_string()));
    } else if let Some(group) = payment.group_id {
        metadata.push(("type", "booking_group".to_owned()));
        metadata.push(("group_id", group.to_string()));
    } else {
        metadata.push(("type", "booking".to_owned()));
    }
    if let Some(b) = payment.booking_id {
        metadata.push(("booking_id", b.to_string()));
    }
    // A booking's card is kept at the provider, with a customer of its own, so that a fee
    // (a no-show, damage) can be charged to it later without the customer present.
    let customer = match payment.booking_id {
        Some(b) => match app.store.get_booking(tenant, b).await? {
            Some(booking) => Some(
                account
                    .cardpay
                    .create_customer(
                        &booking.customer.email,
                        &booking.customer.name,
                        &format!("kairos-customer-{}", payment.id),
                    )
                    .await
                    .map_err(|e| provider_error(Provider::Cardpay, e))?,
            ),
            None => None,
        },
        None => None,
    };
    let intent = account
        .cardpay
        .create_intent(
            &NewIntent {
                amount: payment.amount,
                currency: &payment.currency,
                manual_capture,
                payment_method: None,
                metadata: &metadata,
                save_card: customer.is_some(),
                customer: customer.as_deref(),
                off_session: false,
            },
            &format!("kairos-payment-{}", payment.id),
        )
        .await
        .map_err(|e| provider_error(Provider::Cardpay, e))?;
    app.store
        .attach_provider_payment(
            tenant,
            payment.id,
            &intent.id,
            (account.source, account.site),
            None,
            app.now(),
        )
        .await?;
    Ok((intent, account))
}

/// What the customer does to pay online.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PaymentAction {
    pub payment_id: Uuid,
    pub provider: Provider,
    /// The payment's status (PENDING until the provider confirms it, then COMPLETED).
    pub status: String,
    /// Minor units.
    pub amount: i64,
    /// Lower case, as the provider writes it.
    pub currency: String,
    /// cardpay: the PaymentIntent and its client secret, for the provider's browser
    /// library to collect and confirm the card.
    pub payment_intent_id: Option<String>,
    pub client_secret: Option<String>,
    /// The provider's status of the intent (`requires_payment_method`, `succeeded`, …).
    pub provider_status: Option<String>,
    /// Whether the customer must still act (enter a card, pass 3-D Secure).
    pub requires_action: bool,
    /// Accounts that offer it (the sandbox's): where a test card confirms the payment.
    pub test_confirm_url: Option<String>,
    /// A real cardpay account with a publishable key: the key, and the provider's
    /// browser library to load, for its card element.
    pub publishable_key: Option<String>,
    pub provider_script_url: Option<String>,
    /// bankpay: the provider's page where the customer chooses a bank and pays.
    pub redirect_url: Option<String>,
}

/// Starts (or finds again) the provider side of a booking's open online payment and says
/// what the customer does next (cardpay: the client secret; bankpay: the page to pay at,
/// with `returns` for the browser's way back); `None` when the booking has no open online
/// payment.
pub async fn payment_action(
    app: &App,
    tenant: &TenantId,
    booking: Uuid,
    payment_method: Option<&str>,
    manual_capture: bool,
    returns: &ReturnUrls,
) -> AppResult<Option<PaymentAction>> {
    let Some(payment) = app.store.open_online_payment(tenant, booking).await? else {
        return Ok(None);
    };
    match payment.provider {
        Provider::Bankpay => bank_action(app, tenant, &payment, returns).await.map(Some),
        Provider::Cardpay => {
            action_for_payment(app, tenant, &payment, payment_method, manual_capture)
                .await
                .map(Some)
        }
    }
}

/// Starts (or finds again) the provider side of an open cardpay payment (a booking's or
/// a gift card purchase's) and says what the customer does next. A payment method given
/// (`paymentMethodId`) confirms the intent at once: a decline is PAYMENT_FAILED (the
/// failure event makes the payment FAILED).
pub async fn action_for_payment(
    app: &App,
    tenant: &TenantId,
    payment: &OnlinePayment,
    payment_method: Option<&str>,
    manual_capture: bool,
) -> AppResult<PaymentAction> {
    let (mut intent, account) = ensure_intent(app, tenant, payment, manual_capture).await?;
    if let Some(pm) = payment_method
        && matches!(
            intent.status,
            IntentStatus::RequiresPaymentMethod | IntentStatus::RequiresConfirmation
        )
    {
        intent = account
            .cardpay
            .confirm_intent(&intent.id, pm, &format!("kairos-confirm-{}", payment.id))
            .await
            .map_err(|e| provider_error(Provider::Cardpay, e))?;
    }
    let requires_action = matches!(
        intent.status,
        IntentStatus::RequiresPaymentMethod
            | IntentStatus::RequiresConfirmation
            | IntentStatus::RequiresAction
    );
    Ok(PaymentAction {
        payment_id: payment.id,
        provider: payment.provider,
        status: payment.status.as_str().to_owned(),
        amount: payment.amount,
        currency: payment.currency.to_ascii_lowercase(),
        test_confirm_url: account.cardpay.test_confirm_url(&intent.id),
        provider_status: Some(intent.status.as_str().to_owned()),
        payment_intent_id: Some(intent.id),
        client_secret: intent.client_secret,
        requires_action,
        redirect_url: None,
        provider_script_url: account
            .publishable_key
            .as_ref()
            .map(|_| app.payments.cardpay_js_url.clone()),
        publishable_key: account.publishable_key,
    })
}

/// Starts (or finds again) the provider side of a booking group's waiting payment and says
/// what the customer does next, as [`payment_action`] for a booking; `None` when the group
/// has no payment waiting.
pub async fn group_payment_action(
    app: &App,
    tenant: &TenantId,
    group: Uuid,
    payment_method: Option<&str>,
    returns: &ReturnUrls,
) -> AppResult<Option<PaymentAction>> {
    let Some(payment) = app.store.open_group_payment(tenant, group).await? else {
        return Ok(None);
    };
    match payment.provider {
        Provider::Bankpay => bank_action(app, tenant, &payment, returns).await.map(Some),
        Provider::Cardpay => action_for_payment(app, tenant, &payment, payment_method, false)
            .await
            .map(Some),
    }
}
