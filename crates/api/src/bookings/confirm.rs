//! `POST /bookings/{id}/confirm`.

use super::draft::clean;
use super::hold::ok_body;
use super::{BookingAccess, BookingResponse, accessible_booking};
use crate::error::{ApiError, ApiResult, ErrorBody};
use crate::extract::can;
use crate::extract::{Json, decode_json};
use crate::idempotency::{self, RequestKey};
use crate::openapi::schemas::PaymentMethodSchema;
use crate::state::AppState;
use axum::extract::{Path, State};
use axum::http::HeaderMap;
use axum::response::{IntoResponse, Response};
use kairos_domain::FieldErrors;
use kairos_domain::ids::parse_id;
use kairos_domain::payments::PaymentMethod;
use kairos_store::{Booking, BookingAction};
use serde::Deserialize;
use serde_json::Value;
use utoipa::ToSchema;

use kairos_app::payments::bank::ReturnUrls;

/// `POST /bookings/{id}/confirm`.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ConfirmRequest {
    /// Optional; must name the booking of the path when sent.
    #[schema(format = Uuid)]
    pub booking_id: Option<String>,
    /// The `pricingHash` of the hold (or of the latest PRICING_CHANGED answer).
    #[schema(required = true)]
    pub pricing_hash: Option<String>,
    /// `poa` (pay on arrival → tentative), `cardpay` or `bankpay` (online → confirmed, with
    /// `paymentMethodId`); staff may also use `comp` and `invoice` (confirmed, nothing to
    /// collect online).
    #[schema(value_type = Option<PaymentMethodSchema>, required = true)]
    pub payment_method: Option<String>,
    /// The payment provider's method reference; implies `cardpay` when no method is named.
    pub payment_method_id: Option<String>,
    /// cardpay: `automatic` (default) takes the money when the customer confirms the
    /// card; `manual` only holds it until staff capture it (`POST /payments/capture`).
    #[schema(example = "automatic")]
    pub capture_method: Option<String>,
    /// bankpay: where the customer's browser returns after paying (default: the
    /// service's public address with `?booking={id}&payment=success`).
    #[schema(max_length = 2000, example = "https://venue.example.com/booked")]
    pub success_url: Option<String>,
    /// bankpay: where it returns when the customer gives up (default `…&payment=cancel`).
    #[schema(max_length = 2000)]
    pub cancel_url: Option<String>,
}

/// An http(s) URL of at most 2000 characters.
fn return_url(errors: &mut FieldErrors, field: &str, raw: Option<&str>) -> Option<String> {
    let raw = raw.map(str::trim).filter(|s| !s.is_empty())?;
    let ok = kairos_domain::validation::is_web_address(raw);
    if !ok {
        errors.add(field, "must be an http(s) URL of at most 2000 characters");
    }
    ok.then(|| raw.to_owned())
}

/// Confirm a hold.
///
/// Re-prices the booking from the catalog; when the result differs from `pricingHash` the
/// answer is 409 `PRICING_CHANGED` with the new price and hash in `details`. Pay on arrival
/// (`paymentMethod: "poa"`) makes the booking `tentative`; an online method makes it
/// `confirmed` with a pending payment for the amount due. Honours `Idempotency-Key`.
#[utoipa::path(post, path = "/api/v1/bookings/{id}/confirm", tag = "bookings", security(("bookingToken" = []), ("bearer" = [])),
    params(
        ("Idempotency-Key" = Option<String>, Header, min_length = 1, max_length = 255, description = "Makes retries safe: one effect per key and caller for 24 h; use an unguessable value such as a UUID"),
        ("id" = uuid::Uuid, Path, description = "Booking id"),
    ),
    request_body = ConfirmRequest,
    responses(
        (status = 200, body = BookingResponse),
        (status = 400, description = "VALIDATION_ERROR", body = ErrorBody),
        (status = 403, description = "INSUFFICIENT_PERMISSIONS: comp and invoice need a staff token with admin:bookings:create:comp; a staff token without admin:bookings:write", body = ErrorBody),
        (status = 404, description = "BOOKING_NOT_FOUND", body = ErrorBody),
        (status = 409, description = "PRICING_CHANGED; HOLD_EXPIRED; INVALID_TRANSITION when not a hold", body = ErrorBody),
        (status = 422, description = "IDEMPOTENCY_KEY_REUSED", body = ErrorBody),
    ))]
pub async fn confirm(
    State(state): State<AppState>,
    access: BookingAccess<can::WriteBookings>,
    headers: HeaderMap,
    Path(id): Path<String>,
    Json(body): Json<Value>,
) -> ApiResult<Response> {
    // Access first: a stored answer is replayed only to callers who may see the booking.
    let booking = accessible_booking(&state, &access, &id).await?;
    let key = RequestKey::of(
        &headers,
        &access.caller_key(),
        "POST",
        &format!("/api/v1/bookings/{id}/confirm"),
        &body,
    )?;
    let render = |b: &Booking| ok_body(b);
    let body_copy = body.clone();
    let result = async {
        let req: ConfirmRequest = decode_json(body)?;
        let mut errors = FieldErrors::new();
        if req
            .booking_id
            .as_deref()
            .is_some_and(|b| parse_id(b) != Some(booking.id))
        {
            errors.add("bookingId", "does not match the booking in the path");
        }
        let pricing_hash = clean(req.pricing_hash.as_deref());
        if pricing_hash.is_none() {
            errors.add("pricingHash", "is required");
        }
        if let Some(c) = req.capture_method.as_deref()
            && c != "automatic"
            && c != "manual"
        {
            errors.add("captureMethod", "must be automatic or manual");
        }
        return_url(&mut errors, "successUrl", req.success_url.as_deref());
        return_url(&mut errors, "cancelUrl", req.cancel_url.as_deref());
        let method_ref = clean(req.payment_method_id.as_deref());
        if method_ref
            .as_ref()
            .is_some_and(|m| !super::short_text(m, 200))
        {
            errors.add(
                "paymentMethodId",
                "must be at most 200 characters without control characters",
            );
        }
        let method = match (clean(req.payment_method.as_deref()), &method_ref) {
            (Some(m), _) => PaymentMethod::parse(&m).or_else(|| {
                errors.add(
                    "paymentMethod",
                    format!("must be {}", PaymentMethod::choices()),
                );
                None
            }),
            (None, Some(_)) => Some(PaymentMethod::Cardpay),
            (None, None) => {
                errors.add("paymentMethod", "is required (or paymentMethodId)");
                None
            }
        };
        if let Some(m) = method
            && let Some(permission) = m.staff_permission()
        {
            match &access.caller {
                super::Caller::Admin(admin) => admin.require(permission)?,
                _ => {
                    return Err(ApiError::forbidden(
                        "Only staff may confirm with comp or invoice",
                    ));
                }
            }
        }
        let (Some(payment_method), true) = (method, errors.is_empty()) else {
            return Err(ApiError::validation(errors));
        };
        // Refused before anything changes when the venue cannot take the method.
        if payment_method == PaymentMethod::Cardpay {
            kairos_app::payments::accounts::cardpay_account(
                &state.app,
                access.tenant.id(),
                Some(booking.site_id),
            )
            .await?;
        }
        if payment_method == PaymentMethod::Bankpay {
            kairos_app::payments::bank::bankpay_ready(
                &state.app,
                access.tenant.id(),
                Some(booking.site_id),
            )
            .await?;
        }
        Ok(state
            .store
            .apply_booking_action(
                access.tenant.id(),
                booking.id,
                BookingAction::Confirm {
                    pricing_hash: pricing_hash.unwrap_or_default(),
                    payment_method,
                    method_reference: method_ref,
                },
                &access.actor(&booking),
                state.now(),
                key.as_ref().map(|k| k.for_store(&render)),
            )
            .await?)
    }
    .await;
    let response = idempotency::answer(&state, &access.tenant, key.as_ref(), result, |b| {
        axum::Json(BookingResponse::of(&b, None)).into_response()
    })
    .await?;
    let manual = body_copy.get("captureMethod").and_then(Value::as_str) == Some("manual");
    let url = |field: &str| {
        body_copy
            .get(field)
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
    };
    let returns = ReturnUrls {
        success: url("successUrl"),
        cancel: url("cancelUrl"),
    };
    with_payment_action(
        &state,
        access.tenant.id(),
        booking.id,
        (method_ref_of(&body_copy), manual),
        &returns,
        response,
    )
    .await
}

/// The `paymentMethodId` of a confirm body, if it gave one.
fn method_ref_of(body: &Value) -> Option<String> {
    body.get("paymentMethodId")
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
}

/// Adds what the customer does to pay (`payment`) to a successful confirm answer of a
/// booking with an open card payment, starting the provider's side the first time (a
/// replayed answer finds the same PaymentIntent: its idempotency key is the payment's id).
async fn with_payment_action(
    state: &AppState,
    tenant: &kairos_domain::TenantId,
    booking: uuid::Uuid,
    (payment_method, manual_capture): (Option<String>, bool),
    returns: &ReturnUrls,
    response: Response,
) -> ApiResult<Response> {
    crate::payments::dto::amend_answer(response, |mut json| async move {
        let Some((action, mixed)) = kairos_app::payments::mixed::start_payment(
            &state.app,
            tenant,
            booking,
            (payment_method.as_deref(), manual_capture),
            returns,
        )
        .await?
        else {
            return Ok(None);
        };
        if let Some(mixed) = mixed {
            json["mixedTender"] =
                serde_json::to_value(crate::payments::dto::MixedTender::from(mixed))
                    .map_err(|e| ApiError::internal(format!("mixed tender: {e}")))?;
        }
        json["payment"] = serde_json::to_value(crate::payments::dto::PaymentAction::from(action))
            .map_err(|e| ApiError::internal(format!("payment action: {e}")))?;
        Ok(Some(json))
    })
    .await
}
