//! `POST /api/v1/payments/refund`; the refund itself is the application's
//! (`kairos_app::payments::refund`), shared with cancellations and
//! the automatic refund of late money (spec Part B 2.8, 4.6, 4.11): the refund recorded
//! Processing, asked of the provider the payment was made with, against the same account
//! (cardpay: Stripe's refunds, the refund's id as idempotency key; bankpay: Paytrail's
//! `POST /payments/{transactionId}/refund`, the refund's id as `refundStamp`), then
//! finished: Completed, or Failed with a REFUND_FAILED dead letter. A bank refund the
//! provider answers `pending` stays Processing until its callback
//! (`bank_callback.rs`).

use super::actions::payment_and_amount;
use crate::error::{ApiError, ApiResult, ErrorBody};
use crate::extract::{Json, Staff, can};
use crate::idempotency;
use crate::state::AppState;
use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::Response;
use kairos_domain::FieldErrors;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;
use uuid::Uuid;

/// Refund a card or bank payment.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RefundBody {
    #[schema(value_type = Uuid)]
    pub payment_id: Option<String>,
    /// Minor units; default all that is left.
    pub amount: Option<i64>,
    #[schema(max_length = 500)]
    pub reason: Option<String>,
}

/// One payment's part of a refund (spec Part B 2.8).
#[derive(Debug, Serialize, ToSchema)]
pub struct RefundPart {
    pub payment_method: String,
    /// Minor units the payment collected.
    pub original_amount: i64,
    pub refund_amount: i64,
    pub provider_refund_id: Option<String>,
    /// For a voucher payment: its balance after the refund.
    pub voucher_new_balance: Option<i64>,
    /// The refund status of this part (spec Part B 3.5): `Completed`; `Processing` while
    /// the bank provider has yet to report (its callback finishes it); `Failed` when the
    /// provider refused (a REFUND_FAILED dead letter asks staff to act).
    #[schema(example = "Completed")]
    pub status: String,
}

/// A refund's result (spec Part B 2.8; minor units).
#[derive(Debug, Serialize, ToSchema)]
pub struct RefundOutcome {
    pub success: bool,
    pub refund_id: Uuid,
    pub total_refund_amount: i64,
    pub fee_deducted: i64,
    pub net_refund_amount: i64,
    pub refund_breakdown: Vec<RefundPart>,
}

/// Refund all or part of a collected card or bank payment. Needs `admin:bookings:write`.
/// A provider that fails the refund answers 500 REFUND_FAILED and opens a dead letter for
/// staff to return the money another way. A bank refund the provider reports on later
/// answers its part `Processing` (the payment REFUND_PENDING until the callback).
#[utoipa::path(post, path = "/api/v1/payments/refund", tag = "payments", security(("bearer" = [])),
    params(("Idempotency-Key" = Option<String>, Header, min_length = 1, max_length = 255, description = "Makes retries safe: one refund per key and caller for 24 h (the same request again answers the first answer); use an unguessable value such as a UUID")),
    request_body = RefundBody,
    responses((status = 200, body = RefundOutcome),
        (status = 400, description = "VALIDATION_ERROR (an amount beyond what is left)", body = ErrorBody),
        (status = 404, description = "NOT_FOUND: no such payment", body = ErrorBody),
        (status = 409, description = "INVALID_TRANSITION: the payment is not collected, or its refund is being asked of the provider right now (with Retry-After; not kept as the answer of an Idempotency-Key); IDEMPOTENCY_KEY_IN_FLIGHT", body = ErrorBody),
        (status = 422, description = "IDEMPOTENCY_KEY_REUSED: the key was used for another request", body = ErrorBody),
        (status = 500, description = "REFUND_FAILED: in the dead-letter queue for manual work", body = ErrorBody),
        (status = 502, description = "PROVIDER_ERROR: the provider did not answer; the same request again finishes it", body = ErrorBody)))]
pub async fn refund(
    State(state): State<AppState>,
    auth: Staff<can::WriteBookings>,
    headers: HeaderMap,
    Json(raw): Json<Value>,
) -> ApiResult<Response> {
    idempotency::outside(
        &state,
        &auth.tenant,
        &headers,
        &format!("admin:{}", auth.user.id),
        "/api/v1/payments/refund",
        raw,
        |body: RefundBody| staff_refund(&state, &auth, body),
    )
    .await
}

async fn staff_refund(
    state: &AppState,
    auth: &Staff<can::WriteBookings>,
    body: RefundBody,
) -> ApiResult<RefundOutcome> {
    let mut errors = FieldErrors::new();
    let payment_id = payment_and_amount(&mut errors, body.payment_id.as_deref(), body.amount);
    if body
        .reason
        .as_deref()
        .is_some_and(|r| r.chars().count() > 500)
    {
        errors.add("reason", "must be at most 500 characters");
    }
    errors.finish().map_err(ApiError::validation)?;
    let outcome = kairos_app::payments::refund::refund_payment(
        &state.app,
        auth.tenant.id(),
        payment_id.unwrap_or_default(),
        body.amount,
        body.reason,
        &auth.actor(),
    )
    .await?;
    Ok(outcome.into())
}

impl From<kairos_app::payments::refund::RefundPart> for RefundPart {
    fn from(p: kairos_app::payments::refund::RefundPart) -> Self {
        RefundPart {
            payment_method: p.payment_method,
            original_amount: p.original_amount,
            refund_amount: p.refund_amount,
            provider_refund_id: p.provider_refund_id,
            voucher_new_balance: p.voucher_new_balance,
            status: p.status,
        }
    }
}

impl From<kairos_app::payments::refund::RefundOutcome> for RefundOutcome {
    fn from(o: kairos_app::payments::refund::RefundOutcome) -> Self {
        RefundOutcome {
            success: o.success,
            refund_id: o.refund_id,
            total_refund_amount: o.total_refund_amount,
            fee_deducted: o.fee_deducted,
            net_refund_amount: o.net_refund_amount,
            refund_breakdown: o.refund_breakdown.into_iter().map(Into::into).collect(),
        }
    }
}
