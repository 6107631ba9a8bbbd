//! Promotion codes on a hold (snake_case, spec Part A 4.7): `POST /promotions/apply`, its
//! alias `POST /bookings/{id}/apply-promo`, and taking a code off again with
//! `DELETE /bookings/{id}/promotions/{code}`.
//!
//! Who may: whoever may confirm the hold (its booking token, the customer who owns it, or
//! staff with `admin:bookings:write`).

use crate::bookings::{BookingAccess, StackingDto, accessible_booking, major};
use crate::error::{ApiError, ApiResult, ErrorBody};
use crate::extract::{Json, Query, can, decode_json};
use crate::openapi::schemas::{BookingStatusSchema, PromotionTypeSchema};
use crate::state::AppState;
use axum::extract::{Path, State};
use chrono::{DateTime, Utc};
use kairos_domain::FieldErrors;
use kairos_domain::ids::parse_id;
use kairos_store::{Booking, PromotionApplied};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::{IntoParams, ToSchema};

/// A code as typed: trimmed, 1 to 50 characters.
pub fn typed_code(errors: &mut FieldErrors, field: &str, raw: Option<&str>) -> String {
    let code = raw.map(str::trim).unwrap_or_default();
    if code.is_empty() {
        errors.add(field, "is required");
    } else if code.chars().count() > 50 || code.chars().any(char::is_control) {
        errors.add(
            field,
            "must be at most 50 characters without control characters",
        );
    }
    code.to_owned()
}

/// An optional `expected_pricing_hash`: at most 100 characters.
pub fn expected_hash(errors: &mut FieldErrors, raw: Option<String>) -> Option<String> {
    let hash = raw.map(|h| h.trim().to_owned()).filter(|h| !h.is_empty());
    if hash.as_ref().is_some_and(|h| h.chars().count() > 100) {
        errors.add("expected_pricing_hash", "must be at most 100 characters");
    }
    hash
}

/// `POST /promotions/apply`.
#[derive(Debug, Deserialize, ToSchema)]
pub struct ApplyPromotionRequest {
    /// The hold (required here; on `/bookings/{id}/apply-promo` the path names it, and
    /// this must match when sent).
    #[schema(format = Uuid)]
    pub booking_id: Option<String>,
    /// The code as the customer typed it (any case).
    #[schema(required = true, min_length = 1, max_length = 50)]
    pub promotion_code: Option<String>,
    /// The `pricingHash` the customer last saw; when sent and the price has changed since,
    /// nothing is applied and the answer is 409 PRICING_CHANGED with the new price.
    #[schema(max_length = 100)]
    pub expected_pricing_hash: Option<String>,
}

/// A hold's price after a promotion or voucher (snake_case; money in major units).
#[derive(Debug, Serialize, ToSchema)]
pub struct PricedBookingDto {
    pub id: String,
    #[schema(value_type = BookingStatusSchema)]
    pub status: String,
    /// Before discounts, as priced.
    pub subtotal: f64,
    pub promotion_discount: f64,
    pub voucher_applied: f64,
    /// The tax of the discounted price.
    pub tax_amount: f64,
    /// What the customer pays.
    pub total: f64,
    pub currency: String,
    /// Send it to confirm the hold.
    pub pricing_hash: String,
    pub updated_at: DateTime<Utc>,
}

impl PricedBookingDto {
    pub fn of(b: &Booking) -> Self {
        let m = |v| major(v, &b.price.currency);
        PricedBookingDto {
            id: b.id.to_string(),
            status: b.status.as_str().to_owned(),
            subtotal: m(b.price.subtotal),
            promotion_discount: m(b.price.promotion_discount),
            voucher_applied: m(b.price.voucher_applied),
            tax_amount: m(b.price.tax),
            total: m(b.price.total),
            currency: b.price.currency.clone(),
            pricing_hash: b.price.pricing_hash.clone(),
            updated_at: b.updated_at,
        }
    }
}

/// The promotion applied.
#[derive(Debug, Serialize, ToSchema)]
pub struct AppliedPromotionDto {
    pub id: String,
    pub code: String,
    pub name: String,
    #[serde(rename = "type")]
    #[schema(value_type = PromotionTypeSchema)]
    pub promotion_type: String,
    /// What it takes off this booking now.
    pub discount_amount: f64,
    pub applied_at: DateTime<Utc>,
}

/// The answer of `POST /promotions/apply`.
#[derive(Debug, Serialize, ToSchema)]
pub struct ApplyPromotionResponse {
    pub success: bool,
    pub booking: PricedBookingDto,
    pub applied_promotion: AppliedPromotionDto,
    /// False when the code was already on the booking: nothing changed.
    pub pricing_recalculated: bool,
    /// Whether `expected_pricing_hash` was sent and matched.
    pub hash_validated: bool,
    /// How the booking's promotions stack now (camelCase, spec Part A 4.7 rule 4).
    pub stacking: Option<StackingDto>,
}

fn applied_response(a: PromotionApplied) -> ApplyPromotionResponse {
    let price = crate::bookings::PriceDto::from(&a.booking.price);
    ApplyPromotionResponse {
        success: true,
        booking: PricedBookingDto::of(&a.booking),
        applied_promotion: AppliedPromotionDto {
            id: a.promotion_id.to_string(),
            code: a.code,
            name: a.name,
            promotion_type: a.promotion_type.as_str().to_owned(),
            discount_amount: major(a.discount_amount, &a.booking.price.currency),
            applied_at: a.applied_at,
        },
        pricing_recalculated: a.recalculated,
        hash_validated: a.hash_validated,
        stacking: price.stacking,
    }
}

async fn apply(
    state: &AppState,
    access: &BookingAccess<can::WriteBookings>,
    path_id: Option<&str>,
    body: Value,
) -> ApiResult<axum::Json<ApplyPromotionResponse>> {
    let req: ApplyPromotionRequest = decode_json(body)?;
    let mut errors = FieldErrors::new();
    let code = typed_code(&mut errors, "promotion_code", req.promotion_code.as_deref());
    let hash = expected_hash(&mut errors, req.expected_pricing_hash);
    let booking_id = match (path_id, req.booking_id.as_deref()) {
        (Some(path), Some(body)) if parse_id(body) != parse_id(path) => {
            errors.add("booking_id", "does not match the booking in the path");
            None
        }
        (Some(path), _) => Some(path.to_owned()),
        (None, Some(body)) if parse_id(body).is_none() => {
            errors.add("booking_id", "is not an id");
            None
        }
        (None, Some(body)) => Some(body.to_owned()),
        (None, None) => {
            errors.add("booking_id", "is required");
            None
        }
    };
    errors.finish().map_err(ApiError::validation)?;
    let booking = accessible_booking(state, access, &booking_id.unwrap_or_default()).await?;
    let applied = state
        .store
        .apply_promotion(
            access.tenant.id(),
            booking.id,
            &code,
            hash.as_deref(),
            &access.actor(&booking),
            state.now(),
        )
        .await?;
    Ok(axum::Json(applied_response(applied)))
}

const APPLY_DESCRIPTION: &str = "Checks the code against the hold (validity window, usage limits in all and per customer, minimum spend against the subtotal, site and product), stacks it with the hold's other promotions in the canonical order and takes one use of it. The use becomes final when the hold is confirmed and is given back when it expires, is cancelled or the code is removed. Applying a code the hold already has changes nothing and answers the first application again (before any price check: a retry after a lost answer carries the hash the first one changed).";

/// Apply a promotion code to a hold.
#[utoipa::path(post, path = "/api/v1/promotions/apply", tag = "promotions",
    security(("bookingToken" = []), ("bearer" = [])),
    description = APPLY_DESCRIPTION,
    request_body = ApplyPromotionRequest,
    responses(
        (status = 200, body = ApplyPromotionResponse),
        (status = 400, description = "VALIDATION_ERROR; INVALID_PROMOTION with details.reason (not_found, inactive, not_started, expired, not_applicable_site, not_applicable_product)", body = ErrorBody),
        (status = 403, description = "INSUFFICIENT_PERMISSIONS: a staff token without admin:bookings:write", body = ErrorBody),
        (status = 404, description = "BOOKING_NOT_FOUND", body = ErrorBody),
        (status = 409, description = "PRICING_CHANGED; MIN_SPEND_NOT_MET with details {minimum_spend, current_subtotal}; USAGE_LIMIT_EXCEEDED with details.reason usage_limit_reached or per_customer_limit_reached; STACKING_VIOLATION; HOLD_EXPIRED; INVALID_TRANSITION when the booking is not a hold", body = ErrorBody),
    ))]
pub async fn apply_promotion(
    State(state): State<AppState>,
    access: BookingAccess<can::WriteBookings>,
    Json(body): Json<Value>,
) -> ApiResult<axum::Json<ApplyPromotionResponse>> {
    apply(&state, &access, None, body).await
}

/// Apply a promotion code to a hold (alias of `POST /promotions/apply`).
///
/// The body is the one of `POST /promotions/apply`; `booking_id` may be left out.
#[utoipa::path(post, path = "/api/v1/bookings/{id}/apply-promo", tag = "promotions",
    security(("bookingToken" = []), ("bearer" = [])),
    description = APPLY_DESCRIPTION,
    params(("id" = uuid::Uuid, Path, description = "Booking id")),
    request_body = ApplyPromotionRequest,
    responses(
        (status = 200, body = ApplyPromotionResponse),
        (status = 400, description = "VALIDATION_ERROR; INVALID_PROMOTION with details.reason", body = ErrorBody),
        (status = 403, description = "INSUFFICIENT_PERMISSIONS: a staff token without admin:bookings:write", body = ErrorBody),
        (status = 404, description = "BOOKING_NOT_FOUND", body = ErrorBody),
        (status = 409, description = "PRICING_CHANGED; MIN_SPEND_NOT_MET; USAGE_LIMIT_EXCEEDED; STACKING_VIOLATION; HOLD_EXPIRED; INVALID_TRANSITION when the booking is not a hold", body = ErrorBody),
    ))]
pub async fn apply_promo_alias(
    State(state): State<AppState>,
    access: BookingAccess<can::WriteBookings>,
    Path(id): Path<String>,
    Json(body): Json<Value>,
) -> ApiResult<axum::Json<ApplyPromotionResponse>> {
    apply(&state, &access, Some(&id), body).await
}

/// Query of `DELETE /bookings/{id}/promotions/{code}`.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct RemoveQuery {
    /// As for applying: when sent and the price has changed, nothing is removed (409).
    #[param(max_length = 100)]
    pub expected_pricing_hash: Option<String>,
}

/// The answer of taking a code off.
#[derive(Debug, Serialize, ToSchema)]
pub struct RemovePromotionResponse {
    pub success: bool,
    pub booking: PricedBookingDto,
    /// The code taken off.
    pub removed_code: String,
    pub stacking: Option<StackingDto>,
}

/// Take a promotion code off a hold.
///
/// Its use is given back and the hold re-priced; the answer carries the new
/// `pricing_hash`.
#[utoipa::path(delete, path = "/api/v1/bookings/{id}/promotions/{code}", tag = "promotions",
    security(("bookingToken" = []), ("bearer" = [])),
    params(
        ("id" = uuid::Uuid, Path, description = "Booking id"),
        ("code" = String, Path, min_length = 1, max_length = 50, description = "The code, any case"),
        RemoveQuery,
    ),
    responses(
        (status = 200, body = RemovePromotionResponse),
        (status = 400, description = "VALIDATION_ERROR", body = ErrorBody),
        (status = 403, description = "INSUFFICIENT_PERMISSIONS: a staff token without admin:bookings:write", body = ErrorBody),
        (status = 404, description = "BOOKING_NOT_FOUND; NOT_FOUND when the hold has no such code", body = ErrorBody),
        (status = 409, description = "PRICING_CHANGED; HOLD_EXPIRED; INVALID_TRANSITION when the booking is not a hold", body = ErrorBody),
    ))]
pub async fn remove_promotion(
    State(state): State<AppState>,
    access: BookingAccess<can::WriteBookings>,
    Path((id, code)): Path<(String, String)>,
    Query(q): Query<RemoveQuery>,
) -> ApiResult<axum::Json<RemovePromotionResponse>> {
    let mut errors = FieldErrors::new();
    let code = typed_code(&mut errors, "code", Some(&code));
    let hash = expected_hash(&mut errors, q.expected_pricing_hash);
    errors.finish().map_err(ApiError::validation)?;
    let booking = accessible_booking(&state, &access, &id).await?;
    let b = state
        .store
        .remove_promotion(
            access.tenant.id(),
            booking.id,
            &code,
            hash.as_deref(),
            &access.actor(&booking),
            state.now(),
        )
        .await?;
    let price = crate::bookings::PriceDto::from(&b.price);
    Ok(axum::Json(RemovePromotionResponse {
        success: true,
        booking: PricedBookingDto::of(&b),
        removed_code: code,
        stacking: price.stacking,
    }))
}
