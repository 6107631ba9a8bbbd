//! Fees on a booking (spec Part B 4.8 `apply-fee`): applied by staff (damage, a late
//! cancellation, a no-show), listed with the booking, charged to the card on file or
//! waived.

use super::dto::FeeDto;
use crate::bookings::{booking_not_found, clean, free_text};
use crate::error::{ApiError, ApiResult, ErrorBody};
use crate::extract::{Json, Staff, can, choose, path_id};
use crate::idempotency;
use crate::state::AppState;
use axum::extract::{Path, State};
use axum::http::HeaderMap;
use axum::response::Response;
use kairos_domain::FieldErrors;
use kairos_domain::fees::{FeeKind, MAX_FEE};
use kairos_domain::ids::parse_id;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;

/// `POST /admin/bookings/{bookingId}/apply-fee`.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ApplyFeeRequest {
    /// no_show, damage, late_cancellation or other (required).
    #[schema(example = "damage")]
    pub fee_type: Option<String>,
    /// Minor units, 1 to 100000000 (required).
    #[schema(minimum = 1, maximum = 100_000_000, example = 4000)]
    pub amount: Option<i64>,
    /// Why (required, at most 500 characters): the customer sees it when told.
    pub reason: Option<String>,
    /// Send the customer the fee notice (default false).
    pub notify_customer: Option<bool>,
    /// Charge the card on file at once (default false: the fee waits, pending or owed).
    pub charge_immediately: Option<bool>,
}

/// A fee applied.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ApplyFeeResponse {
    pub fee: FeeDto,
    /// What staff should know (no card on file, a declined charge).
    pub warnings: Vec<String>,
}

/// Apply a fee to a booking: pending when the booking was paid by card (the card on file
/// can be charged: at once with `chargeImmediately`, or later with `POST
/// /admin/fees/{feeId}/charge`), owed when it was not (collect it at the desk). Amounts
/// are minor units. `notifyCustomer` sends the fee notice. Needs `admin:bookings:write`.
#[utoipa::path(post, path = "/api/v1/admin/bookings/{bookingId}/apply-fee", tag = "no-shows",
    security(("bearer" = [])),
    params(
        ("bookingId" = uuid::Uuid, Path, description = "Booking id"),
        ("Idempotency-Key" = Option<String>, Header, min_length = 1, max_length = 255, description = "Makes retries safe: one fee (and charge) per key (24 h)"),
    ),
    request_body = ApplyFeeRequest,
    responses(
        (status = 200, body = ApplyFeeResponse),
        (status = 400, description = "VALIDATION_ERROR", body = ErrorBody),
        (status = 401, body = ErrorBody),
        (status = 403, description = "INSUFFICIENT_PERMISSIONS", body = ErrorBody),
        (status = 404, description = "BOOKING_NOT_FOUND", body = ErrorBody),
        (status = 409, description = "IDEMPOTENCY_KEY_IN_FLIGHT", body = ErrorBody),
        (status = 422, description = "IDEMPOTENCY_KEY_REUSED", body = ErrorBody),
    ))]
pub async fn apply_fee(
    State(state): State<AppState>,
    auth: Staff<can::WriteBookings>,
    Path(id): Path<String>,
    headers: HeaderMap,
    Json(raw): Json<Value>,
) -> ApiResult<Response> {
    idempotency::outside(
        &state,
        &auth.tenant,
        &headers,
        &format!("admin:{}", auth.user.id),
        &format!("/api/v1/admin/bookings/{id}/apply-fee"),
        raw,
        |req: ApplyFeeRequest| apply(&state, &auth, &id, req),
    )
    .await
}

async fn apply(
    state: &AppState,
    auth: &Staff<can::WriteBookings>,
    id: &str,
    req: ApplyFeeRequest,
) -> ApiResult<ApplyFeeResponse> {
    let booking = parse_id(id).ok_or_else(booking_not_found)?;
    let mut errors = FieldErrors::new();
    let kind = choose(
        &mut errors,
        "feeType",
        req.fee_type.as_deref(),
        FeeKind::Other,
        true,
        FeeKind::parse,
        FeeKind::choices(),
    );
    match req.amount {
        Some(a) if (1..=MAX_FEE).contains(&a) => {}
        Some(_) => errors.add("amount", format!("must be 1 to {MAX_FEE} minor units")),
        None => errors.add("amount", "is required (minor units)"),
    }
    let reason = clean(req.reason.as_deref());
    match &reason {
        None => errors.add("reason", "is required: say what the fee is for"),
        Some(r) if !free_text(r, 500) => {
            errors.add(
                "reason",
                "must be at most 500 characters without control characters",
            );
        }
        Some(_) => {}
    }
    errors.finish().map_err(ApiError::validation)?;
    let tenant = auth.tenant.id();
    let fee = state
        .store
        .apply_fee(
            tenant,
            booking,
            &kairos_store::NewFee {
                kind,
                amount: req.amount.unwrap_or_default(),
                reason,
                notes: None,
            },
            req.notify_customer.unwrap_or(false),
            &auth.actor(),
            state.now(),
        )
        .await?;
    let mut warnings = Vec::new();
    let fee = if req.charge_immediately.unwrap_or(false) {
        match kairos_app::fees::charge_fee(&state.app, tenant, fee.id, &auth.actor()).await {
            Ok(done) => done.fee,
            Err(e) => {
                warnings.push(format!(
                    "the fee was not charged ({}); it stays pending to charge again or waive",
                    e.message()
                ));
                state
                    .store
                    .booking_fee(tenant, fee.id)
                    .await?
                    .unwrap_or(fee)
            }
        }
    } else {
        fee
    };
    if fee.status == kairos_domain::fees::FeeStatus::Owed {
        warnings.push(
            "no card is on file for this booking: the fee is owed, collect it at the desk"
                .to_owned(),
        );
    }
    Ok(ApplyFeeResponse {
        fee: (&fee).into(),
        warnings,
    })
}

/// A booking's fees.
#[derive(Debug, Serialize, ToSchema)]
pub struct FeeList {
    pub fees: Vec<FeeDto>,
}

/// The fees on a booking, oldest first. Needs `admin:bookings:read`.
#[utoipa::path(get, path = "/api/v1/admin/bookings/{bookingId}/fees", tag = "no-shows",
    security(("bearer" = [])),
    params(("bookingId" = uuid::Uuid, Path, description = "Booking id")),
    responses(
        (status = 200, body = FeeList),
        (status = 401, body = ErrorBody),
        (status = 403, description = "INSUFFICIENT_PERMISSIONS", body = ErrorBody),
        (status = 404, description = "BOOKING_NOT_FOUND", body = ErrorBody),
    ))]
pub async fn booking_fees(
    State(state): State<AppState>,
    auth: Staff<can::ReadBookings>,
    Path(id): Path<String>,
) -> ApiResult<axum::Json<FeeList>> {
    let booking = parse_id(&id).ok_or_else(booking_not_found)?;
    let tenant = auth.tenant.id();
    state
        .store
        .get_booking(tenant, booking)
        .await?
        .ok_or_else(booking_not_found)?;
    let fees = state.store.booking_fees(tenant, booking).await?;
    Ok(axum::Json(FeeList {
        fees: fees.iter().map(Into::into).collect(),
    }))
}

/// A fee after staff acted on it.
#[derive(Debug, Serialize, ToSchema)]
pub struct FeeEnvelope {
    pub fee: FeeDto,
}

/// Charge a pending fee now to the card the booking was paid with (an off-session
/// charge). No card on file: the fee becomes owed (answered, not refused). A decline is
/// 400 PAYMENT_FAILED and leaves the fee pending. Needs `admin:bookings:write`.
#[utoipa::path(post, path = "/api/v1/admin/fees/{feeId}/charge", tag = "no-shows",
    security(("bearer" = [])),
    params(
        ("feeId" = uuid::Uuid, Path, description = "Fee id"),
        ("Idempotency-Key" = Option<String>, Header, min_length = 1, max_length = 255, description = "Makes retries safe: one charge per key (24 h)"),
    ),
    responses(
        (status = 200, body = FeeEnvelope),
        (status = 400, description = "PAYMENT_FAILED", body = ErrorBody),
        (status = 401, body = ErrorBody),
        (status = 403, description = "INSUFFICIENT_PERMISSIONS", body = ErrorBody),
        (status = 404, description = "NOT_FOUND: no such fee", body = ErrorBody),
        (status = 409, description = "FEE_NOT_OPEN (charged, waived, …); IDEMPOTENCY_KEY_IN_FLIGHT", body = ErrorBody),
        (status = 422, description = "IDEMPOTENCY_KEY_REUSED", body = ErrorBody),
        (status = 502, description = "PROVIDER_ERROR: try again (the same charge is asked)", body = ErrorBody),
    ))]
pub async fn charge_fee(
    State(state): State<AppState>,
    auth: Staff<can::WriteBookings>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> ApiResult<Response> {
    idempotency::outside(
        &state,
        &auth.tenant,
        &headers,
        &format!("admin:{}", auth.user.id),
        &format!("/api/v1/admin/fees/{id}/charge"),
        Value::Object(serde_json::Map::new()),
        |_: Value| async {
            let fee = path_id(&id, "Fee")?;
            let done =
                kairos_app::fees::charge_fee(&state.app, auth.tenant.id(), fee, &auth.actor())
                    .await?;
            Ok(FeeEnvelope {
                fee: (&done.fee).into(),
            })
        },
    )
    .await
}

/// `POST /admin/fees/{feeId}/waive`.
#[derive(Debug, Default, Deserialize, ToSchema)]
pub struct WaiveRequest {
    /// Why (required, at most 500 characters).
    pub reason: Option<String>,
}

/// Waive a pending or owed fee, with a reason (its no-show, if any, is resolved
/// fee_waived). Needs `admin:bookings:write`.
#[utoipa::path(post, path = "/api/v1/admin/fees/{feeId}/waive", tag = "no-shows",
    security(("bearer" = [])),
    params(("feeId" = uuid::Uuid, Path, description = "Fee id")),
    request_body = WaiveRequest,
    responses(
        (status = 200, body = FeeEnvelope),
        (status = 400, description = "VALIDATION_ERROR", body = ErrorBody),
        (status = 401, body = ErrorBody),
        (status = 403, description = "INSUFFICIENT_PERMISSIONS", body = ErrorBody),
        (status = 404, description = "NOT_FOUND: no such fee", body = ErrorBody),
        (status = 409, description = "FEE_NOT_OPEN", body = ErrorBody),
    ))]
pub async fn waive_fee(
    State(state): State<AppState>,
    auth: Staff<can::WriteBookings>,
    Path(id): Path<String>,
    Json(req): Json<WaiveRequest>,
) -> ApiResult<axum::Json<FeeEnvelope>> {
    let fee = path_id(&id, "Fee")?;
    let reason = clean(req.reason.as_deref());
    let reason = match reason {
        Some(r) if free_text(&r, 500) => r,
        Some(_) => {
            return Err(ApiError::invalid_field(
                "reason",
                "must be at most 500 characters without control characters",
            ));
        }
        None => {
            return Err(ApiError::invalid_field(
                "reason",
                "is required: say why the fee is waived",
            ));
        }
    };
    let fee = state
        .store
        .waive_fee(auth.tenant.id(), fee, &reason, &auth.actor(), state.now())
        .await?;
    Ok(axum::Json(FeeEnvelope { fee: (&fee).into() }))
}
