//! The payment objects of the API's answers, made from the application's results.

use kairos_app::payments::{intents, mixed};
use serde::Serialize;
use utoipa::ToSchema;
use uuid::Uuid;

/// What the customer does to pay a booking online (the `payment` of a confirm answer).
#[derive(Debug, Clone, serde::Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PaymentAction {
    pub payment_id: Uuid,
    #[schema(example = "cardpay")]
    pub provider: String,
    /// The payment's status (PENDING until the provider confirms it, then COMPLETED).
    #[schema(example = "PENDING")]
    pub status: String,
    /// Minor units.
    pub amount: i64,
    /// Lower case, as the provider writes it.
    #[schema(example = "eur")]
    pub currency: String,
    /// cardpay: the PaymentIntent and its client secret, for the provider's browser
    /// library to collect and confirm the card.
    pub payment_intent_id: Option<String>,
    pub client_secret: Option<String>,
    /// The provider's status of the intent (`requires_payment_method`, `succeeded`, …).
    pub provider_status: Option<String>,
    /// Whether the customer must still act (enter a card, pass 3-D Secure).
    pub requires_action: bool,
    /// Sandbox accounts only: where a test card confirms the payment
    /// (`POST` with `client_secret` and `payment_method=pm_card_visa`).
    pub sandbox_confirm_url: Option<String>,
    /// bankpay: the provider's page where the customer chooses a bank and pays.
    pub redirect_url: Option<String>,
    /// cardpay through the venue's own account with a publishable key: the key, and the
    /// provider's browser library (Stripe.js) that draws the card element and confirms
    /// `clientSecret` with it.
    #[schema(example = "pk_test_51H…")]
    pub publishable_key: Option<String>,
    #[schema(example = "https://js.stripe.com/v3/")]
    pub provider_script_url: Option<String>,
}

impl From<intents::PaymentAction> for PaymentAction {
    fn from(a: intents::PaymentAction) -> Self {
        PaymentAction {
            payment_id: a.payment_id,
            provider: a.provider.as_str().to_owned(),
            status: a.status,
            amount: a.amount,
            currency: a.currency,
            payment_intent_id: a.payment_intent_id,
            client_secret: a.client_secret,
            provider_status: a.provider_status,
            requires_action: a.requires_action,
            sandbox_confirm_url: a.test_confirm_url,
            redirect_url: a.redirect_url,
            publishable_key: a.publishable_key,
            provider_script_url: a.provider_script_url,
        }
    }
}

/// The voucher's part (minor units).
#[derive(Debug, Serialize, ToSchema)]
pub struct VoucherPayment {
    pub voucher_code: String,
    /// The ledger entry of the redemption.
    pub voucher_transaction_id: Option<Uuid>,
    pub amount_redeemed: i64,
    pub remaining_voucher_balance: i64,
}

/// The provider's part (minor units).
#[derive(Debug, Serialize, ToSchema)]
pub struct ExternalPayment {
    #[schema(example = "cardpay")]
    pub provider: String,
    pub payment_intent_id: Option<String>,
    pub amount_charged: i64,
    pub requires_action: bool,
    pub client_secret: Option<String>,
}

/// A booking paid by a voucher and a provider together (spec Part B 2.8).
#[derive(Debug, Serialize, ToSchema)]
pub struct MixedTender {
    pub success: bool,
    /// The voucher's and the provider's parts together (minor units).
    pub total_amount_charged: i64,
    /// The first voucher applied (every one is in the booking's `price.vouchers`).
    pub voucher_payment: VoucherPayment,
    pub external_payment: ExternalPayment,
}

impl From<mixed::MixedTender> for MixedTender {
    fn from(m: mixed::MixedTender) -> Self {
        MixedTender {
            success: m.success,
            total_amount_charged: m.total_amount_charged,
            voucher_payment: VoucherPayment {
                voucher_code: m.voucher_payment.voucher_code,
                voucher_transaction_id: m.voucher_payment.voucher_transaction_id,
                amount_redeemed: m.voucher_payment.amount_redeemed,
                remaining_voucher_balance: m.voucher_payment.remaining_voucher_balance,
            },
            external_payment: ExternalPayment {
                provider: m.external_payment.provider.as_str().to_owned(),
                payment_intent_id: m.external_payment.payment_intent_id,
                amount_charged: m.external_payment.amount_charged,
                requires_action: m.external_payment.requires_action,
                client_secret: m.external_payment.client_secret,
            },
        }
    }
}

/// Amends a successful JSON answer after it was rendered (or replayed from its
/// idempotency record): `amend` gets the answer's JSON and gives it back changed, or
/// `None` to leave it as it is. Any other answer is returned untouched. How confirm and a
/// booking's add-on change add what the customer does to pay, once the provider's side
/// is started.
pub(crate) async fn amend_answer<F, Fut>(
    response: axum::response::Response,
    amend: F,
) -> crate::error::ApiResult<axum::response::Response>
where
    F: FnOnce(serde_json::Value) -> Fut,
    Fut: std::future::Future<Output = crate::error::ApiResult<Option<serde_json::Value>>>,
{
    use crate::error::ApiError;
    if response.status() != axum::http::StatusCode::OK {
        return Ok(response);
    }
    let (mut parts, body) = response.into_parts();
    let bytes = axum::body::to_bytes(body, usize::MAX)
        .await
        .map_err(|e| ApiError::internal(format!("answer: {e}")))?;
    let json: serde_json::Value =
        serde_json::from_slice(&bytes).map_err(|e| ApiError::internal(format!("answer: {e}")))?;
    let Some(json) = amend(json).await? else {
        return Ok(axum::response::Response::from_parts(
            parts,
            axum::body::Body::from(bytes),
        ));
    };
    let body = serde_json::to_vec(&json).map_err(|e| ApiError::internal(e.to_string()))?;
    parts.headers.remove(axum::http::header::CONTENT_LENGTH);
    Ok(axum::response::Response::from_parts(
        parts,
        axum::body::Body::from(body),
    ))
}
