//! `POST /api/v1/payments/authorize` and `/capture` (spec Part A 4.11, Part B
//! 4.6; the bodies are Kairos' design). Each is safe to repeat: the provider calls carry
//! idempotency keys derived from the payment they act on, so a retry of the
//! same request has one effect.

use super::dto::PaymentAction;
use crate::bookings::{BookingAccess, accessible_booking};
use crate::error::{ApiError, ApiResult, ErrorBody, code};
use crate::extract::{Json, Staff, can};
use crate::idempotency;
use crate::state::AppState;
use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::Response;
use kairos_app::payments::bank::ReturnUrls;
use kairos_app::payments::intents::payment_action;
use kairos_domain::FieldErrors;
use kairos_domain::TenantId;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;
use uuid::Uuid;

/// Start or resume a booking's card payment.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AuthorizeBody {
    /// A booking confirmed with `cardpay`.
    #[schema(value_type = Uuid)]
    pub booking_id: Option<String>,
    /// A payment method to confirm with at once (else the browser confirms with the
    /// client secret).
    pub payment_method_id: Option<String>,
    /// `manual` (default): the funds are only held until `POST /payments/capture`;
    /// `automatic`: captured at once. Applies when the provider's payment is created;
    /// a payment already started keeps its own.
    #[schema(example = "manual")]
    pub capture_method: Option<String>,
}

/// Start (or find again) the card payment of a booking confirmed with `cardpay`, holding
/// the funds for a later capture by default. Answers what the customer does next (client
/// secret, or the result of `paymentMethodId`). The booking token, its customer or staff
/// with `admin:bookings:write`.
#[utoipa::path(post, path = "/api/v1/payments/authorize", tag = "payments", security(("bookingToken" = []), ("bearer" = [])),
    params(("Idempotency-Key" = Option<String>, Header, min_length = 1, max_length = 255, description = "Makes retries safe: the same request again answers the first answer for 24 h; use an unguessable value such as a UUID")),
    request_body = AuthorizeBody,
    responses((status = 200, body = PaymentAction),
        (status = 400, description = "VALIDATION_ERROR; PAYMENT_FAILED: declined, or cardpay not configured", body = ErrorBody),
        (status = 404, description = "BOOKING_NOT_FOUND", body = ErrorBody),
        (status = 409, description = "INVALID_TRANSITION: the booking has no card payment to collect; IDEMPOTENCY_KEY_IN_FLIGHT", body = ErrorBody),
        (status = 422, description = "IDEMPOTENCY_KEY_REUSED: the key was used for another request", body = ErrorBody),
        (status = 502, description = "PROVIDER_ERROR: retry later", body = ErrorBody)))]
pub async fn authorize(
    State(state): State<AppState>,
    access: BookingAccess<can::WriteBookings>,
    headers: HeaderMap,
    Json(raw): Json<Value>,
) -> ApiResult<Response> {
    idempotency::outside(
        &state,
        &access.tenant,
        &headers,
        &access.caller_key(),
        "/api/v1/payments/authorize",
        raw,
        |body: AuthorizeBody| authorize_booking(&state, &access, body),
    )
    .await
}

async fn authorize_booking(
    state: &AppState,
    access: &BookingAccess<can::WriteBookings>,
    body: AuthorizeBody,
) -> ApiResult<PaymentAction> {
    let mut errors = FieldErrors::new();
    let booking_id = match body.booking_id.as_deref() {
        None => {
            errors.add("bookingId", "is required");
            String::new()
        }
        Some(b) => b.to_owned(),
    };
    let manual = match body.capture_method.as_deref() {
        None | Some("manual") => true,
        Some("automatic") => false,
        Some(_) => {
            errors.add("captureMethod", "must be manual or automatic");
            true
        }
    };
    errors.finish().map_err(ApiError::validation)?;
    let booking = accessible_booking(state, access, &booking_id).await?;
    let pm = body
        .payment_method_id
        .as_deref()
        .map(str::trim)
        .filter(|s| !s.is_empty());
    payment_action(
        &state.app,
        access.tenant.id(),
        booking.id,
        pm,
        manual,
        &ReturnUrls::default(),
    )
    .await?
    .map(PaymentAction::from)
    .ok_or_else(|| {
        ApiError::conflict(
            code::INVALID_TRANSITION,
            "The booking has no card payment to collect (confirm it with cardpay first)",
        )
    })
}

/// The required `paymentId` and an optional positive `amount` (minor units) of a capture
/// or refund.
pub(super) fn payment_and_amount(
    errors: &mut FieldErrors,
    payment_id: Option<&str>,
    amount: Option<i64>,
) -> Option<Uuid> {
    if payment_id.is_none() {
        errors.add("paymentId", "is required");
    }
    let id = crate::extract::uuid_param(errors, "paymentId", payment_id);
    if amount.is_some_and(|a| a <= 0) {
        errors.add("amount", "must be more than 0 (minor units)");
    }
    id
}

/// Capture an authorized card payment.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CaptureBody {
    #[schema(value_type = Uuid)]
    pub payment_id: Option<String>,
    /// Minor units, at most what was authorized; default all.
    pub amount: Option<i64>,
}

/// A capture's result.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CaptureResult {
    pub payment_id: Uuid,
    /// CAPTURED; COMPLETED (and the booking `paid`) once the provider's event arrives.
    pub status: String,
    pub provider_status: String,
    /// Minor units.
    pub amount_captured: i64,
}

/// Capture a card payment whose funds are held (authorized). Needs
/// `admin:bookings:write`.
#[utoipa::path(post, path = "/api/v1/payments/capture", tag = "payments", security(("bearer" = [])),
    params(("Idempotency-Key" = Option<String>, Header, min_length = 1, max_length = 255, description = "Makes retries safe: the same request again answers the first answer for 24 h; use an unguessable value such as a UUID")),
    request_body = CaptureBody,
    responses((status = 200, body = CaptureResult),
        (status = 400, description = "VALIDATION_ERROR", body = ErrorBody),
        (status = 404, description = "NOT_FOUND: no such payment", body = ErrorBody),
        (status = 409, description = "INVALID_TRANSITION: nothing authorized to capture; IDEMPOTENCY_KEY_IN_FLIGHT", body = ErrorBody),
        (status = 422, description = "IDEMPOTENCY_KEY_REUSED: the key was used for another request", body = ErrorBody),
        (status = 502, description = "PROVIDER_ERROR", body = ErrorBody)))]
pub async fn capture(
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
        "/api/v1/payments/capture",
        raw,
        |body: CaptureBody| capture_payment(&state, auth.tenant.id(), body),
    )
    .await
}

async fn capture_payment(
    state: &AppState,
    tenant: &TenantId,
    body: CaptureBody,
) -> ApiResult<CaptureResult> {
    let mut errors = FieldErrors::new();
    let payment_id = payment_and_amount(&mut errors, body.payment_id.as_deref(), body.amount);
    errors.finish().map_err(ApiError::validation)?;
    let captured = kairos_app::payments::capture::capture(
        &state.app,
        tenant,
        payment_id.unwrap_or_default(),
        body.amount,
    )
    .await?;
    Ok(CaptureResult {
        payment_id: captured.payment_id,
        status: "CAPTURED".to_owned(),
        provider_status: captured.provider_status,
        amount_captured: captured.amount_captured,
    })
}
