//! Capturing a card payment whose funds are held (authorized): asked of the account that
//! took it, with an idempotency key derived from the payment, so a retry captures once.

use super::accounts::{account_of_payment, provider_error};
use super::providers::IntentStatus;
use crate::App;
use crate::error::{AppResult, Failure, code};
use kairos_domain::TenantId;
use kairos_domain::payments::PaymentStatus;
use kairos_domain::payments::credentials::Provider;
use uuid::Uuid;

/// What a capture did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Captured {
    pub payment_id: Uuid,
    /// The provider's status of the intent after the capture.
    pub provider_status: String,
    /// Minor units.
    pub amount_captured: i64,
}

/// Captures `amount` (default all) of the authorized card payment `payment_id`.
pub async fn capture(
    app: &App,
    tenant: &TenantId,
    payment_id: Uuid,
    amount: Option<i64>,
) -> AppResult<Captured> {
    let payment = app
        .store
        .online_payment(tenant, payment_id)
        .await?
        .ok_or_else(|| Failure::not_found("Payment"))?;
    if !matches!(
        payment.status,
        PaymentStatus::Pending | PaymentStatus::Authorized
    ) {
        return Err(Failure::conflict(
            code::INVALID_TRANSITION,
            format!("The payment is {}: nothing to capture", payment.status),
        )
        .into());
    }
    let (Some(intent), Some(account)) = (
        payment.provider_payment_id.clone(),
        account_of_payment(app, tenant, &payment).await?,
    ) else {
        return Err(Failure::conflict(
            code::INVALID_TRANSITION,
            "The payment has nothing authorized at a card provider",
        )
        .into());
    };
    if amount.is_some_and(|a| a > payment.amount) {
        return Err(Failure::invalid_field(
            "amount",
            format!(
                "must be at most {} (authorized, minor units)",
                payment.amount
            ),
        )
        .into());
    }
    let current = account
        .cardpay
        .retrieve_intent(&intent)
        .await
        .map_err(|e| provider_error(Provider::Cardpay, e))?;
    if current.status != IntentStatus::RequiresCapture {
        return Err(Failure::conflict(
            code::INVALID_TRANSITION,
            "Nothing is authorized to capture (the customer has not confirmed the card, or it was captured)",
        )
        .into());
    }
    let captured = account
        .cardpay
        .capture_intent(&intent, amount, &format!("kairos-capture-{}", payment.id))
        .await
        .map_err(|e| provider_error(Provider::Cardpay, e))?;
    app.store
        .mark_captured(tenant, payment.id, captured.amount, app.now())
        .await?;
    Ok(Captured {
        payment_id: payment.id,
        provider_status: captured.status.as_str().to_owned(),
        amount_captured: captured.amount,
    })
}
