//! `POST /bookings/{id}/reschedule`.

use super::{BookingAccess, BookingResponse, accessible_booking};
use crate::error::{ApiError, ApiResult, ErrorBody};
use crate::extract::Json;
use crate::extract::can;
use crate::idempotency::done;
use crate::state::AppState;
use axum::extract::{Path, State};
use kairos_domain::ids::parse_id;
use kairos_store::BookingAction;
use serde::Deserialize;
use utoipa::ToSchema;
use uuid::Uuid;

/// `POST /bookings/{id}/reschedule`.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RescheduleRequest {
    /// A slot of the same product.
    #[schema(format = Uuid, required = true)]
    pub slot_id: Option<String>,
}

/// Move a booking to another slot of its product; the seats move atomically.
///
/// The same policy window as cancellation applies to customers (409 `OUTSIDE_WINDOW`).
/// A full, started or closed target slot is 409 `SLOT_UNAVAILABLE`; a slot of another
/// product is 404.
#[utoipa::path(post, path = "/api/v1/bookings/{id}/reschedule", tag = "bookings", security(("bookingToken" = []), ("bearer" = [])),
    params(
        ("id" = uuid::Uuid, Path, description = "Booking id"),
    ),
    request_body = RescheduleRequest,
    responses(
        (status = 200, body = BookingResponse),
        (status = 400, description = "VALIDATION_ERROR", body = ErrorBody),
        (status = 403, description = "INSUFFICIENT_PERMISSIONS: a staff token without admin:bookings:write", body = ErrorBody),
        (status = 404, description = "BOOKING_NOT_FOUND; NOT_FOUND for the slot", body = ErrorBody),
        (status = 409, description = "SLOT_UNAVAILABLE; OUTSIDE_WINDOW; INVALID_TRANSITION", body = ErrorBody),
    ))]
pub async fn reschedule(
    State(state): State<AppState>,
    access: BookingAccess<can::WriteBookings>,
    Path(id): Path<String>,
    Json(req): Json<RescheduleRequest>,
) -> ApiResult<axum::Json<BookingResponse>> {
    let b = accessible_booking(&state, &access, &id).await?;
    let slot_id: Uuid = match req.slot_id.as_deref() {
        None => return Err(ApiError::invalid_field("slotId", "is required")),
        Some(raw) => parse_id(raw).ok_or_else(|| ApiError::not_found("Slot"))?,
    };
    let b = done(
        state
            .store
            .apply_booking_action(
                access.tenant.id(),
                b.id,
                BookingAction::Reschedule {
                    slot_id,
                    customer_window: !access.is_staff(),
                },
                &access.actor(&b),
                state.now(),
                None,
            )
            .await?,
    )?;
    Ok(axum::Json(BookingResponse::of(&b, None)))
}
