//! `GET /bookings/{id}`.

use super::{BookingAccess, BookingResponse, accessible_booking};
use crate::error::{ApiResult, ErrorBody};
use crate::extract::can;
use crate::state::AppState;
use axum::extract::{Path, State};

/// A booking, for its booking token, its customer or staff.
#[utoipa::path(get, path = "/api/v1/bookings/{id}", tag = "bookings", security(("bookingToken" = []), ("bearer" = [])),
    params(
        ("id" = uuid::Uuid, Path, description = "Booking id"),
    ),
    responses(
        (status = 200, body = BookingResponse),
        (status = 403, description = "INSUFFICIENT_PERMISSIONS: a staff token without admin:bookings:read", body = ErrorBody),
        (status = 404, description = "BOOKING_NOT_FOUND: no such booking, or the caller may not see it", body = ErrorBody),
    ))]
pub async fn get_booking(
    State(state): State<AppState>,
    access: BookingAccess<can::ReadBookings>,
    Path(id): Path<String>,
) -> ApiResult<axum::Json<BookingResponse>> {
    let b = accessible_booking(&state, &access, &id).await?;
    Ok(axum::Json(BookingResponse::of(&b, None)))
}
