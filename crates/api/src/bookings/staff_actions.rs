//! Staff actions on a booking: mark-arrived, mark-paid and mark-no-show.

use super::BookingResponse;
use super::draft::{clean, reason_of};
use crate::error::{ApiError, ApiResult, ErrorBody};
use crate::extract::{AdminAuth, Staff, can};
use crate::idempotency::done;
use crate::state::AppState;
use axum::extract::{Path, State};
use kairos_domain::bookings::BookingStatus;
use kairos_domain::ids::parse_id;
use kairos_domain::money::from_major;
use kairos_store::{Booking, BookingAction};
use serde::Deserialize;
use utoipa::ToSchema;

/// Loads a booking for a staff action.
async fn staff_booking(state: &AppState, auth: &AdminAuth, id: &str) -> ApiResult<Booking> {
    let id = parse_id(id).ok_or_else(super::booking_not_found)?;
    state
        .store
        .get_booking(auth.tenant.id(), id)
        .await?
        .ok_or_else(super::booking_not_found)
}

async fn staff_action(
    state: &AppState,
    auth: &AdminAuth,
    id: &str,
    action: BookingAction,
) -> ApiResult<axum::Json<BookingResponse>> {
    let b = staff_booking(state, auth, id).await?;
    let b = done(
        state
            .store
            .apply_booking_action(
                auth.tenant.id(),
                b.id,
                action,
                &auth.actor(),
                state.now(),
                None,
            )
            .await?,
    )?;
    match b.status {
        // A no-show corrected: its charged fee goes back.
        BookingStatus::Arrived => {
            kairos_app::fees::refund_corrected(&state.app, auth.tenant.id(), b.id).await?;
        }
        // Its fee charged at once when the tenant's policy says so (a failure waits for
        // staff on the no-show list).
        BookingStatus::NoShow => {
            kairos_app::fees::after_no_show(&state.app, auth.tenant.id(), b.id, &auth.actor())
                .await?;
        }
        _ => {}
    }
    Ok(axum::Json(BookingResponse::of(&b, None)))
}

/// Mark a booking arrived (staff; from paid or confirmed, or correcting a no-show). While
/// waivers are missing, a product set to warn checks in with `warnings`; one set to refuse
/// answers WAIVERS_INCOMPLETE.
#[utoipa::path(post, path = "/api/v1/bookings/{id}/mark-arrived", tag = "bookings",
    security(("bearer" = [])),
    params(("id" = uuid::Uuid, Path, description = "Booking id")),
    responses(
        (status = 200, body = BookingResponse),
        (status = 401, body = ErrorBody),
        (status = 403, description = "INSUFFICIENT_PERMISSIONS: needs admin:bookings:write", body = ErrorBody),
        (status = 404, description = "BOOKING_NOT_FOUND", body = ErrorBody),
        (status = 409, description = "INVALID_TRANSITION; WAIVERS_INCOMPLETE (the product refuses check-in while waivers are missing; details.missingWaivers)", body = ErrorBody),
    ))]
pub async fn mark_arrived(
    State(state): State<AppState>,
    auth: Staff<can::WriteBookings>,
    Path(id): Path<String>,
) -> ApiResult<axum::Json<BookingResponse>> {
    let axum::Json(mut answer) =
        staff_action(&state, &auth, &id, BookingAction::MarkArrived).await?;
    if let Some(id) = parse_id(&answer.id) {
        answer.warnings = crate::waivers::arrival_warnings(&state, auth.tenant.id(), id).await?;
    }
    Ok(axum::Json(answer))
}

/// `POST /bookings/{id}/mark-paid`.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MarkPaidRequest {
    /// Major units; default the balance due. Less than the balance on a confirmed
    /// booking makes it part_paid.
    pub amount: Option<f64>,
    /// How it was paid, e.g. cash or card_terminal (default `manual`).
    pub payment_method: Option<String>,
}

/// Record a payment taken by staff (tentative → paid; confirmed → paid or part_paid;
/// part_paid → paid, or part_paid again for a further instalment). Each payment is
/// audited.
#[utoipa::path(post, path = "/api/v1/bookings/{id}/mark-paid", tag = "bookings",
    security(("bearer" = [])),
    params(("id" = uuid::Uuid, Path, description = "Booking id")),
    request_body(content = Option<MarkPaidRequest>),
    responses(
        (status = 200, body = BookingResponse),
        (status = 400, description = "VALIDATION_ERROR", body = ErrorBody),
        (status = 401, body = ErrorBody),
        (status = 403, description = "INSUFFICIENT_PERMISSIONS", body = ErrorBody),
        (status = 404, description = "BOOKING_NOT_FOUND", body = ErrorBody),
        (status = 409, description = "INVALID_TRANSITION; AMOUNT_EXCEEDS_BALANCE", body = ErrorBody),
    ))]
pub async fn mark_paid(
    State(state): State<AppState>,
    auth: Staff<can::WriteBookings>,
    Path(id): Path<String>,
    body: axum::body::Bytes,
) -> ApiResult<axum::Json<BookingResponse>> {
    let req: MarkPaidRequest = super::optional_body(&body)?;
    let b = staff_booking(&state, &auth, &id).await?;
    let amount = match req.amount {
        None => None,
        Some(a) => {
            let currency = kairos_domain::tenancy::Currency::parse(&b.price.currency)
                .map_err(ApiError::internal)?;
            match from_major(a, currency) {
                Ok(v) if v > 0 => Some(v),
                _ => {
                    return Err(ApiError::invalid_field(
                        "amount",
                        "must be a positive amount in the currency's minor units (e.g. at most 2 decimals for EUR)",
                    ));
                }
            }
        }
    };
    let method = clean(req.payment_method.as_deref()).unwrap_or_else(|| "manual".to_owned());
    if method.len() > 50 {
        return Err(ApiError::invalid_field(
            "paymentMethod",
            "must be at most 50 characters",
        ));
    }
    staff_action(
        &state,
        &auth,
        &id,
        BookingAction::MarkPaid { amount, method },
    )
    .await
}

/// `PATCH /bookings/{id}/mark-no-show`.
#[derive(Debug, Default, Deserialize, ToSchema)]
pub struct NoShowRequest {
    pub reason: Option<String>,
}

/// Mark a booking no-show (staff). The seats stay taken: the slot has started. Writes the
/// no-show tracking record (with the tenant's no-show fee when its policy is enabled), as
/// `POST /api/v1/admin/bookings/{bookingId}/no-show` does with its details.
#[utoipa::path(patch, path = "/api/v1/bookings/{id}/mark-no-show", tag = "bookings",
    security(("bearer" = [])),
    params(("id" = uuid::Uuid, Path, description = "Booking id")),
    request_body(content = Option<NoShowRequest>),
    responses(
        (status = 200, body = BookingResponse),
        (status = 401, body = ErrorBody),
        (status = 403, description = "INSUFFICIENT_PERMISSIONS", body = ErrorBody),
        (status = 404, description = "BOOKING_NOT_FOUND", body = ErrorBody),
        (status = 409, description = "INVALID_TRANSITION", body = ErrorBody),
    ))]
pub async fn mark_no_show(
    State(state): State<AppState>,
    auth: Staff<can::WriteBookings>,
    Path(id): Path<String>,
    body: axum::body::Bytes,
) -> ApiResult<axum::Json<BookingResponse>> {
    let req: NoShowRequest = super::optional_body(&body)?;
    let reason = reason_of(req.reason.as_deref())?;
    let mark = kairos_store::NoShowMark {
        reason,
        ..Default::default()
    };
    staff_action(&state, &auth, &id, BookingAction::MarkNoShow(mark)).await
}
