//! `POST /bookings/{id}/cancel`.

use super::draft::reason_of;
use super::{BookingAccess, BookingResponse, accessible_booking};
use crate::error::{ApiResult, ErrorBody};
use crate::extract::can;
use crate::state::AppState;
use axum::extract::{Path, State};
use kairos_app::bookings::cancel::{Cancellation, cancel as cancel_booking};
use serde::Deserialize;
use utoipa::ToSchema;

/// `POST /bookings/{id}/cancel`.
#[derive(Debug, Default, Deserialize, ToSchema)]
pub struct CancelRequest {
    pub reason: Option<String>,
}

/// Cancel a booking and release its seats.
///
/// Customers and booking-token holders may cancel a hold at any time and a later booking
/// while its start is outside the site's policy window (standard: 24 h before, strict:
/// 72 h, flexible: until the start); otherwise 409 `OUTSIDE_WINDOW`. Staff may always.
/// What was paid by card, bank or vouchers is refunded (`refund` in the answer): minus the
/// tenant's cancellation fee (by default the site policy's: standard none over 48 h before
/// the start, half from 24 to 48 h; flexible none over 24 h, half after; strict a 5 %
/// processing fee over 72 h) when the customer cancels, in full when staff cancel. A part
/// that cannot be refunded at once (another refund of the payment under way, a provider
/// that did not answer) is `Processing`: it is finished within a minute or so by the
/// owed-refunds job.
#[utoipa::path(post, path = "/api/v1/bookings/{id}/cancel", tag = "bookings", security(("bookingToken" = []), ("bearer" = [])),
    params(
        ("id" = uuid::Uuid, Path, description = "Booking id"),
    ),
    request_body(content = Option<CancelRequest>, description = "Optional reason"),
    responses(
        (status = 200, body = BookingResponse),
        (status = 403, description = "INSUFFICIENT_PERMISSIONS: a staff token without admin:bookings:write", body = ErrorBody),
        (status = 404, description = "BOOKING_NOT_FOUND", body = ErrorBody),
        (status = 409, description = "OUTSIDE_WINDOW; INVALID_TRANSITION (already canceled, completed, …)", body = ErrorBody),
    ))]
pub async fn cancel(
    State(state): State<AppState>,
    access: BookingAccess<can::WriteBookings>,
    Path(id): Path<String>,
    body: axum::body::Bytes,
) -> ApiResult<axum::Json<BookingResponse>> {
    let req: CancelRequest = super::optional_body(&body)?;
    let reason = reason_of(req.reason.as_deref())?;
    let b = accessible_booking(&state, &access, &id).await?;
    let cancelled = cancel_booking(
        &state.app,
        access.tenant.id(),
        b.id,
        Cancellation::Request {
            reason,
            by_customer: !access.is_staff(),
        },
        &access.actor(&b),
    )
    .await?;
    Ok(axum::Json(BookingResponse {
        refund: cancelled.refund.map(Into::into),
        ..BookingResponse::of(&cancelled.booking, None)
    }))
}
