//! Promotion codes and vouchers on a held group's total (snake_case like the booking
//! flow's, spec Part A 4.7): `POST /booking-groups/{id}/apply-promo`, `DELETE
//! /booking-groups/{id}/promotions/{code}`, `POST /booking-groups/{id}/apply-voucher`.
//!
//! Who may: whoever may confirm the group (its token, its customer, or staff with
//! `manage_bookings`).

use super::dto::BookingGroupDto;
use super::public::{accessible_group, group_actor};
use crate::bookings::{BookingAccess, major};
use crate::error::{ApiError, ApiResult, ErrorBody};
use crate::extract::{Json, can, decode_json};
use crate::openapi::schemas::{PromotionTypeSchema, VoucherTypeSchema};
use crate::promotions::typed_code;
use crate::state::AppState;
use axum::extract::{Path, State};
use chrono::{DateTime, Utc};
use kairos_domain::FieldErrors;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;

/// `POST /booking-groups/{id}/apply-promo`.
#[derive(Debug, Deserialize, ToSchema)]
pub struct GroupPromoRequest {
    /// The code as the customer typed it (any case).
    #[schema(required = true, min_length = 1, max_length = 50)]
    pub promotion_code: Option<String>,
}

/// The promotion applied to the group.
#[derive(Debug, Serialize, ToSchema)]
pub struct GroupAppliedPromotionDto {
    pub id: String,
    pub code: String,
    pub name: String,
    #[serde(rename = "type")]
    #[schema(value_type = PromotionTypeSchema)]
    pub promotion_type: String,
    /// What it takes off the group now: the sum of its parts on the group's bookings.
    pub discount_amount: f64,
    pub applied_at: DateTime<Utc>,
}

/// The answer of applying a code to a group.
#[derive(Debug, Serialize, ToSchema)]
pub struct GroupPromoResponse {
    pub success: bool,
    /// The group re-priced: `pricing` and each booking's price carry the discount.
    pub group: BookingGroupDto,
    pub applied_promotion: GroupAppliedPromotionDto,
    /// True: the group was re-priced (a repeat answers the first application, so true
    /// too).
    pub pricing_recalculated: bool,
}

/// `POST /booking-groups/{id}/apply-voucher`.
#[derive(Debug, Deserialize, ToSchema)]
pub struct GroupVoucherRequest {
    /// The voucher's code (any case).
    #[schema(required = true, min_length = 1, max_length = 50)]
    pub voucher_code: Option<String>,
}

/// The voucher applied to the group.
#[derive(Debug, Serialize, ToSchema)]
pub struct GroupAppliedVoucherDto {
    pub id: String,
    pub code: String,
    #[serde(rename = "type")]
    #[schema(value_type = VoucherTypeSchema)]
    pub voucher_type: String,
    /// What it pays of the group: the smaller of its balance and what was left to pay.
    pub applied_amount: f64,
    pub balance_before: f64,
    pub balance_after: f64,
    pub applied_at: DateTime<Utc>,
}

/// The answer of applying a voucher to a group.
#[derive(Debug, Serialize, ToSchema)]
pub struct GroupVoucherResponse {
    pub success: bool,
    pub group: BookingGroupDto,
    pub applied_voucher: GroupAppliedVoucherDto,
    pub pricing_recalculated: bool,
}

/// The answer of taking a code off a group.
#[derive(Debug, Serialize, ToSchema)]
pub struct GroupPromoRemovedResponse {
    pub success: bool,
    pub group: BookingGroupDto,
    /// The code taken off.
    pub removed_code: String,
}

/// Apply a promotion code to a held group's total.
///
/// The code is checked once against the group (validity window, usage limits in all and
/// per customer, each counting the group once, minimum spend against the group's subtotal)
/// and discounts the activities its sites and products allow: a fixed amount, and a
/// percentage's cap, are split over them in proportion to their prices. It stacks with the
/// group's other codes as on a booking, and applies on top of a package's price or staff's
/// total. Applying a code the group already has answers the first application again.
#[utoipa::path(post, path = "/api/v1/booking-groups/{id}/apply-promo", tag = "booking-groups",
    security(("bookingToken" = []), ("bearer" = [])),
    params(
        ("id" = uuid::Uuid, Path),
        ("x-booking-token" = Option<String>, Header, description = "The group's token from the hold"),
    ),
    request_body = GroupPromoRequest,
    responses(
        (status = 200, body = GroupPromoResponse),
        (status = 400, description = "VALIDATION_ERROR; INVALID_PROMOTION with details.reason (not_found, inactive, not_started, expired, not_applicable_site, not_applicable_product)", body = ErrorBody),
        (status = 403, description = "INSUFFICIENT_PERMISSIONS: staff without manage_bookings", body = ErrorBody),
        (status = 404, description = "NOT_FOUND: no such group, or not the caller's", body = ErrorBody),
        (status = 409, description = "MIN_SPEND_NOT_MET (details.current_subtotal is the group's); USAGE_LIMIT_EXCEEDED; STACKING_VIOLATION; HOLD_EXPIRED; INVALID_TRANSITION when the group is not held or its payment is under way", body = ErrorBody),
    ))]
pub async fn apply_group_promo(
    State(state): State<AppState>,
    access: BookingAccess<can::ManageBookings>,
    Path(id): Path<String>,
    Json(body): Json<Value>,
) -> ApiResult<axum::Json<GroupPromoResponse>> {
    let group = accessible_group(&state, &access, &id).await?;
    let req: GroupPromoRequest = decode_json(body)?;
    let mut errors = FieldErrors::new();
    let code = typed_code(&mut errors, "promotion_code", req.promotion_code.as_deref());
    errors.finish().map_err(ApiError::validation)?;
    let actor = group_actor(&access, &group);
    let now = state.now();
    let a = state
        .store
        .apply_group_promotion(access.tenant.id(), group.id, &code, &actor, now)
        .await?;
    let currency = a.group.currency.clone();
    Ok(axum::Json(GroupPromoResponse {
        success: true,
        group: BookingGroupDto::of(&a.group, now, access.is_staff()),
        applied_promotion: GroupAppliedPromotionDto {
            id: a.promotion_id.to_string(),
            code: a.code,
            name: a.name,
            promotion_type: a.promotion_type.as_str().to_owned(),
            discount_amount: major(a.discount_amount, &currency),
            applied_at: a.applied_at,
        },
        pricing_recalculated: true,
    }))
}

/// Take a promotion code off a held group.
///
/// Each activity's part of it is taken off and the group re-priced; the promotion's use
/// is given back.
#[utoipa::path(delete, path = "/api/v1/booking-groups/{id}/promotions/{code}", tag = "booking-groups",
    security(("bookingToken" = []), ("bearer" = [])),
    params(
        ("id" = uuid::Uuid, Path),
        ("code" = String, Path, min_length = 1, max_length = 50, description = "The code, any case"),
        ("x-booking-token" = Option<String>, Header, description = "The group's token from the hold"),
    ),
    responses(
        (status = 200, body = GroupPromoRemovedResponse),
        (status = 400, description = "VALIDATION_ERROR", body = ErrorBody),
        (status = 403, description = "INSUFFICIENT_PERMISSIONS: staff without manage_bookings", body = ErrorBody),
        (status = 404, description = "NOT_FOUND: no such group, not the caller's, or the group has no such code", body = ErrorBody),
        (status = 409, description = "HOLD_EXPIRED; INVALID_TRANSITION when the group is not held or its payment is under way", body = ErrorBody),
    ))]
pub async fn remove_group_promo(
    State(state): State<AppState>,
    access: BookingAccess<can::ManageBookings>,
    Path((id, code)): Path<(String, String)>,
) -> ApiResult<axum::Json<GroupPromoRemovedResponse>> {
    let group = accessible_group(&state, &access, &id).await?;
    let mut errors = FieldErrors::new();
    let code = typed_code(&mut errors, "code", Some(&code));
    errors.finish().map_err(ApiError::validation)?;
    let actor = group_actor(&access, &group);
    let now = state.now();
    let g = state
        .store
        .remove_group_promotion(access.tenant.id(), group.id, &code, &actor, now)
        .await?;
    Ok(axum::Json(GroupPromoRemovedResponse {
        success: true,
        group: BookingGroupDto::of(&g, now, access.is_staff()),
        removed_code: code,
    }))
}

/// Pay part or all of a held group with a voucher.
///
/// The smaller of the voucher's balance and what is left to pay comes off its balance,
/// paying the group's activities one after another, as one use of the voucher. Should an
/// activity's hold expire or be cancelled, its part goes back to the voucher. A repeat
/// (the same voucher on the same group) answers the first application.
#[utoipa::path(post, path = "/api/v1/booking-groups/{id}/apply-voucher", tag = "booking-groups",
    security(("bookingToken" = []), ("bearer" = [])),
    params(
        ("id" = uuid::Uuid, Path),
        ("x-booking-token" = Option<String>, Header, description = "The group's token from the hold"),
    ),
    request_body = GroupVoucherRequest,
    responses(
        (status = 200, body = GroupVoucherResponse),
        (status = 400, description = "VALIDATION_ERROR; INVALID_PROMOTION with details.reason (inactive, expired, usage_limit_reached) for a voucher that cannot pay; INSUFFICIENT_FUNDS for an empty voucher", body = ErrorBody),
        (status = 403, description = "INSUFFICIENT_PERMISSIONS: staff without manage_bookings", body = ErrorBody),
        (status = 404, description = "NOT_FOUND: no such group, not the caller's, or no such voucher", body = ErrorBody),
        (status = 409, description = "CONFLICT when nothing is left to pay; HOLD_EXPIRED; INVALID_TRANSITION when the group is not held or its payment is under way", body = ErrorBody),
    ))]
pub async fn apply_group_voucher(
    State(state): State<AppState>,
    access: BookingAccess<can::ManageBookings>,
    Path(id): Path<String>,
    Json(body): Json<Value>,
) -> ApiResult<axum::Json<GroupVoucherResponse>> {
    let group = accessible_group(&state, &access, &id).await?;
    let req: GroupVoucherRequest = decode_json(body)?;
    let mut errors = FieldErrors::new();
    let code = typed_code(&mut errors, "voucher_code", req.voucher_code.as_deref());
    errors.finish().map_err(ApiError::validation)?;
    let actor = group_actor(&access, &group);
    let now = state.now();
    let a = state
        .store
        .apply_group_voucher(access.tenant.id(), group.id, &code, &actor, now)
        .await?;
    let m = |v| major(v, &a.group.currency);
    Ok(axum::Json(GroupVoucherResponse {
        success: true,
        group: BookingGroupDto::of(&a.group, now, access.is_staff()),
        applied_voucher: GroupAppliedVoucherDto {
            id: a.voucher_id.to_string(),
            code: a.code.clone(),
            voucher_type: a.voucher_type.as_str().to_owned(),
            applied_amount: m(a.applied_amount),
            balance_before: m(a.balance_before),
            balance_after: m(a.balance_after),
            applied_at: a.applied_at,
        },
        pricing_recalculated: true,
    }))
}
