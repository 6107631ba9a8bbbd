//! `POST /api/v1/payments/authorize`, `/capture` and `/refund` (spec Part A 4.11, Part B
//! 4.6; the bodies are Kairos' design). Each is safe to repeat: the provider calls carry
//! idempotency keys derived from the payment (or refund) they act on, so a retry of the
//! same request has one effect.

use super::cardpay::IntentStatus;
use super::provider::{
    Cardpay, PaymentAction, account_of_payment, deliver_sandbox_events, payment_action,
    provider_error,
};
use crate::bookings::{BookingAccess, accessible_booking};
use crate::error::{ApiError, ApiResult, ErrorBody, code};
use crate::extract::{Json, Staff, can};
use crate::state::AppState;
use axum::extract::State;
use axum::http::StatusCode;
use kairos_domain::FieldErrors;
use kairos_domain::payments::credentials::Provider;
use kairos_store::RefundResult;
use serde::{Deserialize, Serialize};
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
    request_body = AuthorizeBody,
    responses((status = 200, body = PaymentAction),
        (status = 400, description = "VALIDATION_ERROR; PAYMENT_FAILED: declined, or cardpay not configured", body = ErrorBody),
        (status = 404, description = "BOOKING_NOT_FOUND", body = ErrorBody),
        (status = 409, description = "INVALID_TRANSITION: the booking has no card payment to collect", body = ErrorBody),
        (status = 502, description = "PROVIDER_ERROR: retry later", body = ErrorBody)))]
pub async fn authorize(
    State(state): State<AppState>,
    access: BookingAccess<can::WriteBookings>,
    Json(body): Json<AuthorizeBody>,
) -> ApiResult<axum::Json<PaymentAction>> {
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
    let booking = accessible_booking(&state, &access, &booking_id).await?;
    let pm = body
        .payment_method_id
        .as_deref()
        .map(str::trim)
        .filter(|s| !s.is_empty());
    payment_action(
        &state,
        access.tenant.id(),
        booking.id,
        pm,
        manual,
        &super::bank_redirect::ReturnUrls::default(),
    )
    .await?
    .map(axum::Json)
    .ok_or_else(|| {
        ApiError::conflict(
            code::INVALID_TRANSITION,
            "The booking has no card payment to collect (confirm it with cardpay first)",
        )
    })
}

/// The required `paymentId` and an optional positive `amount` (minor units) of a capture
/// or refund.
fn payment_and_amount(
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
    request_body = CaptureBody,
    responses((status = 200, body = CaptureResult),
        (status = 400, description = "VALIDATION_ERROR", body = ErrorBody),
        (status = 404, description = "NOT_FOUND: no such payment", body = ErrorBody),
        (status = 409, description = "INVALID_TRANSITION: nothing authorized to capture", body = ErrorBody),
        (status = 502, description = "PROVIDER_ERROR", body = ErrorBody)))]
pub async fn capture(
    State(state): State<AppState>,
    auth: Staff<can::WriteBookings>,
    Json(body): Json<CaptureBody>,
) -> ApiResult<axum::Json<CaptureResult>> {
    let mut errors = FieldErrors::new();
    let payment_id = payment_and_amount(&mut errors, body.payment_id.as_deref(), body.amount);
    errors.finish().map_err(ApiError::validation)?;
    let tenant = auth.tenant.id();
    let payment = state
        .store
        .online_payment(tenant, payment_id.unwrap_or_default())
        .await?
        .ok_or_else(|| ApiError::not_found("Payment"))?;
    if !matches!(
        payment.status,
        kairos_domain::payments::PaymentStatus::Pending
            | kairos_domain::payments::PaymentStatus::Authorized
    ) {
        return Err(ApiError::conflict(
            code::INVALID_TRANSITION,
            format!("The payment is {}: nothing to capture", payment.status),
        ));
    }
    let (Some(intent), Some(account)) = (
        payment.provider_payment_id.clone(),
        account_of_payment(&state, tenant, &payment).await?,
    ) else {
        return Err(ApiError::conflict(
            code::INVALID_TRANSITION,
            "The payment has nothing authorized at a card provider",
        ));
    };
    if body.amount.is_some_and(|a| a > payment.amount) {
        return Err(ApiError::invalid_field(
            "amount",
            format!(
                "must be at most {} (authorized, minor units)",
                payment.amount
            ),
        ));
    }
    let current = account
        .cardpay
        .retrieve_intent(&intent)
        .await
        .map_err(|e| provider_error(Provider::Cardpay, e))?;
    if current.status != IntentStatus::RequiresCapture {
        return Err(ApiError::conflict(
            code::INVALID_TRANSITION,
            "Nothing is authorized to capture (the customer has not confirmed the card, or it was captured)",
        ));
    }
    let (result, events) = account
        .cardpay
        .capture_intent(
            &intent,
            body.amount,
            &format!("kairos-capture-{}", payment.id),
            state.now().timestamp(),
        )
        .await;
    deliver_sandbox_events(&state, events);
    let captured = result.map_err(|e| provider_error(Provider::Cardpay, e))?;
    state
        .store
        .mark_captured(tenant, payment.id, captured.amount, state.now())
        .await?;
    Ok(axum::Json(CaptureResult {
        payment_id: payment.id,
        status: "CAPTURED".to_owned(),
        provider_status: if captured.status == IntentStatus::Succeeded {
            "succeeded".to_owned()
        } else {
            format!("{:?}", captured.status)
        },
        amount_captured: captured.amount,
    }))
}

/// Refund a card payment.
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

/// Refund all or part of a collected card payment. Needs `admin:bookings:write`. A
/// provider that fails the refund answers 500 REFUND_FAILED and opens a dead letter for
/// staff to return the money another way.
#[utoipa::path(post, path = "/api/v1/payments/refund", tag = "payments", security(("bearer" = [])),
    request_body = RefundBody,
    responses((status = 200, body = RefundOutcome),
        (status = 400, description = "VALIDATION_ERROR (an amount beyond what is left)", body = ErrorBody),
        (status = 404, description = "NOT_FOUND: no such payment", body = ErrorBody),
        (status = 409, description = "INVALID_TRANSITION: the payment is not collected, or is being refunded", body = ErrorBody),
        (status = 500, description = "REFUND_FAILED: in the dead-letter queue for manual work", body = ErrorBody)))]
pub async fn refund(
    State(state): State<AppState>,
    auth: Staff<can::WriteBookings>,
    Json(body): Json<RefundBody>,
) -> ApiResult<axum::Json<RefundOutcome>> {
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
    refund_payment(
        &state,
        auth.tenant.id(),
        payment_id.unwrap_or_default(),
        body.amount,
        body.reason,
        &auth.actor(),
    )
    .await
    .map(axum::Json)
}

/// Refunds `amount` (default: all that is left) of a collected card payment at its
/// provider, against the account that took it: staff's refund and the automatic refund
/// of money that arrived for a closed booking.
pub async fn refund_payment(
    state: &AppState,
    tenant: &kairos_domain::TenantId,
    payment: Uuid,
    amount: Option<i64>,
    reason: Option<String>,
    actor: &kairos_store::Actor,
) -> ApiResult<RefundOutcome> {
    if let Some(p) = state.store.online_payment(tenant, payment).await?
        && p.provider == Provider::Bankpay
    {
        return Err(ApiError::conflict(
            code::INVALID_TRANSITION,
            "Bank payments are refunded from the bankpay merchant panel: Kairos does not refund them itself",
        ));
    }
    let started = state
        .store
        .begin_refund(tenant, payment, amount, reason, actor, state.now())
        .await?;
    let account = account_of_payment(state, tenant, &started.payment).await?;
    let intent = started
        .payment
        .provider_payment_id
        .clone()
        .unwrap_or_default();
    let (result, events) = match &account {
        Some(a) => {
            a.cardpay
                .refund(
                    &intent,
                    started.amount,
                    &format!("kairos-refund-{}", started.refund_id),
                    state.now().timestamp(),
                )
                .await
        }
        None => (
            Err(super::cardpay::ProviderError::Refused {
                status: 0,
                code: "not_configured".into(),
                message: "the payment's cardpay account is no longer configured".into(),
            }),
            Vec::new(),
        ),
    };
    deliver_sandbox_events(state, events);
    let sandbox = matches!(account.map(|a| a.cardpay), Some(Cardpay::Sandbox { .. }));
    match result {
        Ok(r) => {
            state
                .store
                .finish_refund(
                    tenant,
                    started.refund_id,
                    RefundResult::Completed {
                        provider_refund_id: r.id.clone(),
                    },
                    actor,
                    state.now(),
                )
                .await?;
            tracing::info!(refund_id = %started.refund_id, sandbox, "refund completed");
            Ok(RefundOutcome {
                success: true,
                refund_id: started.refund_id,
                total_refund_amount: started.amount,
                fee_deducted: 0,
                net_refund_amount: started.amount,
                refund_breakdown: vec![RefundPart {
                    payment_method: "cardpay".to_owned(),
                    original_amount: started.collected,
                    refund_amount: started.amount,
                    provider_refund_id: Some(r.id),
                    voucher_new_balance: None,
                }],
            })
        }
        Err(e @ super::cardpay::ProviderError::Unavailable(_)) => {
            // Not known whether the provider refunded: the refund stays Processing, and
            // the same request again asks with the same idempotency key.
            Err(ApiError::new(
                StatusCode::BAD_GATEWAY,
                code::PROVIDER_ERROR,
                format!(
                    "cardpay did not answer the refund ({e}); send the same request again to finish it"
                ),
            ))
        }
        Err(e) => {
            state
                .store
                .finish_refund(
                    tenant,
                    started.refund_id,
                    RefundResult::Failed {
                        message: e.to_string(),
                    },
                    actor,
                    state.now(),
                )
                .await?;
            Err(ApiError::new(
                StatusCode::INTERNAL_SERVER_ERROR,
                code::REFUND_FAILED,
                format!(
                    "The refund failed at cardpay ({e}); it waits in the dead-letter queue for staff to return the money another way"
                ),
            ))
        }
    }
}
