//! Vouchers paying for a hold (snake_case, spec Part A 4.7 rule 6):
//! `POST /bookings/{id}/apply-voucher` and `POST /promotions/vouchers/redeem`.
//!
//! Who may: whoever may confirm the hold (its booking token, the customer who owns it, or
//! staff with `admin:bookings:write`).

use crate::bookings::{BookingAccess, accessible_booking, major};
use crate::error::{ApiError, ApiResult, ErrorBody};
use crate::extract::{Json, can, decode_json};
use crate::openapi::schemas::VoucherTypeSchema;
use crate::promotions::{PricedBookingDto, expected_hash, typed_code};
use crate::state::AppState;
use axum::extract::{Path, State};
use chrono::{DateTime, Utc};
use kairos_domain::FieldErrors;
use kairos_domain::ids::parse_id;
use kairos_store::VoucherApplied;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;

/// `POST /bookings/{id}/apply-voucher`.
#[derive(Debug, Deserialize, ToSchema)]
pub struct ApplyVoucherRequest {
    /// The voucher's code (any case).
    #[schema(required = true, min_length = 1, max_length = 50)]
    pub voucher_code: Option<String>,
    /// The `pricingHash` the customer last saw; when sent and the price has changed since,
    /// nothing is applied and the answer is 409 PRICING_CHANGED with the new price.
    #[schema(max_length = 100)]
    pub expected_pricing_hash: Option<String>,
}

/// `POST /promotions/vouchers/redeem`.
#[derive(Debug, Deserialize, ToSchema)]
pub struct RedeemVoucherRequest {
    /// The voucher's code (any case).
    #[schema(required = true, min_length = 1, max_length = 50)]
    pub code: Option<String>,
    /// The hold the voucher pays for.
    #[schema(required = true, format = Uuid)]
    pub booking_id: Option<String>,
    #[schema(max_length = 100)]
    pub expected_pricing_hash: Option<String>,
}

/// The voucher applied.
#[derive(Debug, Serialize, ToSchema)]
pub struct AppliedVoucherDto {
    pub id: String,
    pub code: String,
    #[serde(rename = "type")]
    #[schema(value_type = VoucherTypeSchema)]
    pub voucher_type: String,
    /// What it pays of this booking: the smaller of its balance and what was left to pay.
    pub applied_amount: f64,
    pub balance_before: f64,
    pub balance_after: f64,
    pub applied_at: DateTime<Utc>,
}

/// The answer of applying a voucher.
#[derive(Debug, Serialize, ToSchema)]
pub struct ApplyVoucherResponse {
    pub success: bool,
    pub booking: PricedBookingDto,
    pub applied_voucher: AppliedVoucherDto,
    /// Whether the hold was re-priced. A repeat of an application (the same voucher on the
    /// same booking) changes nothing and answers the first application again.
    pub pricing_recalculated: bool,
    /// Whether `expected_pricing_hash` was sent and matched.
    pub hash_validated: bool,
}

fn response(a: VoucherApplied) -> ApplyVoucherResponse {
    let m = |v| major(v, &a.booking.price.currency);
    ApplyVoucherResponse {
        success: true,
        booking: PricedBookingDto::of(&a.booking),
        applied_voucher: AppliedVoucherDto {
            id: a.voucher_id.to_string(),
            code: a.code.clone(),
            voucher_type: a.voucher_type.as_str().to_owned(),
            applied_amount: m(a.applied_amount),
            balance_before: m(a.balance_before),
            balance_after: m(a.balance_after),
            applied_at: a.applied_at,
        },
        pricing_recalculated: a.recalculated,
        hash_validated: a.hash_validated,
    }
}

async fn apply(
    state: &AppState,
    access: &BookingAccess<can::WriteBookings>,
    booking_id: &str,
    code: &str,
    hash: Option<String>,
) -> ApiResult<axum::Json<ApplyVoucherResponse>> {
    let booking = accessible_booking(state, access, booking_id).await?;
    let applied = state
        .store
        .apply_voucher(
            access.tenant.id(),
            booking.id,
            code,
            hash.as_deref(),
            &access.actor(&booking),
            state.now(),
        )
        .await?;
    Ok(axum::Json(response(applied)))
}

/// Pay part or all of a hold with a voucher.
///
/// The smaller of the voucher's balance and what is left to pay comes off its balance (a
/// ledger entry), and the hold is re-priced: `voucher_applied` grows, `total` shrinks and
/// the answer carries the new `pricing_hash`. Applying the same voucher to the same booking
/// again answers the first application. Should the hold expire or be cancelled, the amount
/// goes back to the voucher. A hold whose total the vouchers cover is confirmed with
/// `paymentMethod: "voucher"`.
#[utoipa::path(post, path = "/api/v1/bookings/{id}/apply-voucher", tag = "vouchers",
    security(("bookingToken" = []), ("bearer" = [])),
    params(("id" = uuid::Uuid, Path, description = "Booking id")),
    request_body = ApplyVoucherRequest,
    responses(
        (status = 200, body = ApplyVoucherResponse),
        (status = 400, description = "VALIDATION_ERROR; INSUFFICIENT_FUNDS when the balance is used up; INVALID_PROMOTION with details.reason inactive, expired or usage_limit_reached", body = ErrorBody),
        (status = 403, description = "INSUFFICIENT_PERMISSIONS: a staff token without admin:bookings:write", body = ErrorBody),
        (status = 404, description = "BOOKING_NOT_FOUND; NOT_FOUND when no voucher has the code", body = ErrorBody),
        (status = 409, description = "PRICING_CHANGED; HOLD_EXPIRED; INVALID_TRANSITION when the booking is not a hold; CONFLICT when nothing is left to pay", body = ErrorBody),
    ))]
pub async fn apply_voucher(
    State(state): State<AppState>,
    access: BookingAccess<can::WriteBookings>,
    Path(id): Path<String>,
    Json(body): Json<Value>,
) -> ApiResult<axum::Json<ApplyVoucherResponse>> {
    let req: ApplyVoucherRequest = decode_json(body)?;
    let mut errors = FieldErrors::new();
    let code = typed_code(&mut errors, "voucher_code", req.voucher_code.as_deref());
    let hash = expected_hash(&mut errors, req.expected_pricing_hash);
    errors.finish().map_err(ApiError::validation)?;
    apply(&state, &access, &id, &code, hash).await
}

/// Redeem a voucher against a hold.
///
/// Body: `code` (the voucher), `booking_id` (the hold it pays for) and optionally
/// `expected_pricing_hash`. The balance goes down by the booking's amount due, or by all of
/// it when it is smaller; what is left stays usable on later bookings (multi_use,
/// gift_card, loyalty_credit). The same operation as `POST /bookings/{id}/apply-voucher`,
/// with the same answer.
#[utoipa::path(post, path = "/api/v1/promotions/vouchers/redeem", tag = "vouchers",
    security(("bookingToken" = []), ("bearer" = [])),
    request_body = RedeemVoucherRequest,
    responses(
        (status = 200, body = ApplyVoucherResponse),
        (status = 400, description = "VALIDATION_ERROR; INSUFFICIENT_FUNDS; INVALID_PROMOTION with details.reason inactive, expired or usage_limit_reached", body = ErrorBody),
        (status = 403, description = "INSUFFICIENT_PERMISSIONS: a staff token without admin:bookings:write", body = ErrorBody),
        (status = 404, description = "BOOKING_NOT_FOUND; NOT_FOUND when no voucher has the code", body = ErrorBody),
        (status = 409, description = "PRICING_CHANGED; HOLD_EXPIRED; INVALID_TRANSITION when the booking is not a hold; CONFLICT when nothing is left to pay", body = ErrorBody),
    ))]
pub async fn redeem_voucher(
    State(state): State<AppState>,
    access: BookingAccess<can::WriteBookings>,
    Json(body): Json<Value>,
) -> ApiResult<axum::Json<ApplyVoucherResponse>> {
    let req: RedeemVoucherRequest = decode_json(body)?;
    let mut errors = FieldErrors::new();
    let code = typed_code(&mut errors, "code", req.code.as_deref());
    let hash = expected_hash(&mut errors, req.expected_pricing_hash);
    let booking_id = match req.booking_id.as_deref().map(str::trim) {
        None | Some("") => {
            errors.add("booking_id", "is required");
            String::new()
        }
        Some(id) if parse_id(id).is_none() => {
            errors.add("booking_id", "is not an id");
            String::new()
        }
        Some(id) => id.to_owned(),
    };
    errors.finish().map_err(ApiError::validation)?;
    apply(&state, &access, &booking_id, &code, hash).await
}
