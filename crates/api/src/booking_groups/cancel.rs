//! `POST /admin/booking-groups/{id}/cancel`: every booking of a group cancelled.

use super::dto::BookingGroupDto;
use crate::bookings::{clean, free_text};
use crate::error::{ApiError, ApiResult, ErrorBody};
use crate::extract::{Json, Staff, can, path_id};
use crate::payments::refunds::RefundOutcome;
use crate::state::AppState;
use axum::extract::{Path, State};
use kairos_app::booking_groups::cancel_group;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct GroupCancelBody {
    /// Why (at most 1000 characters); recorded on every booking cancelled.
    pub reason: Option<String>,
}

/// One booking cancelled with the group.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CancelledBooking {
    pub booking_id: Uuid,
    /// Its status now: canceled.
    pub status: String,
    /// What was refunded in full of what was paid for it; none when nothing was.
    pub refund: Option<RefundOutcome>,
}

/// One booking the group's cancellation left as it is: its status does not allow a
/// cancellation (arrived).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct KeptBooking {
    pub booking_id: Uuid,
    pub status: String,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct GroupCancelled {
    pub group: BookingGroupDto,
    pub cancelled: Vec<CancelledBooking>,
    pub kept: Vec<KeptBooking>,
}

/// Cancel a group: every booking of it that is not over yet (held, confirmed, paid…) is
/// cancelled, its seats released and what was paid for it refunded in full through the
/// booking's own cancellation; bookings already cancelled, expired, completed or no-show
/// stay as they are, and arrived ones are kept (`kept`). A refund the provider refuses or
/// delays is finished as any cancelled booking's is (the refund's status says which).
/// Should it stop part way, the bookings cancelled stay cancelled and the same request
/// again cancels the rest. Needs `manage_bookings`.
#[utoipa::path(post, path = "/api/v1/admin/booking-groups/{id}/cancel", tag = "booking-groups", security(("bearer" = [])),
    params(("id" = uuid::Uuid, Path)),
    request_body = GroupCancelBody,
    responses(
        (status = 200, body = GroupCancelled),
        (status = 400, description = "VALIDATION_ERROR", body = ErrorBody),
        (status = 401, body = ErrorBody),
        (status = 403, description = "INSUFFICIENT_PERMISSIONS", body = ErrorBody),
        (status = 404, description = "NOT_FOUND", body = ErrorBody),
        (status = 409, description = "INVALID_TRANSITION: a DRAFT group holds nothing to cancel (delete it)", body = ErrorBody),
    ))]
pub async fn cancel_group_handler(
    State(state): State<AppState>,
    auth: Staff<can::ManageBookings>,
    Path(id): Path<String>,
    Json(body): Json<GroupCancelBody>,
) -> ApiResult<axum::Json<GroupCancelled>> {
    let id = path_id(&id, "Booking group")?;
    let reason = clean(body.reason.as_deref());
    if reason.as_deref().is_some_and(|r| !free_text(r, 1000)) {
        return Err(ApiError::invalid_field(
            "reason",
            "must be at most 1000 characters without control characters",
        ));
    }
    let done = cancel_group(&state.app, auth.tenant.id(), id, reason, &auth.actor()).await?;
    Ok(axum::Json(GroupCancelled {
        group: BookingGroupDto::of(&done.group, state.now(), true),
        cancelled: done
            .cancelled
            .into_iter()
            .map(|c| CancelledBooking {
                booking_id: c.booking.id,
                status: c.booking.status.as_str().to_owned(),
                refund: c.refund.map(RefundOutcome::from),
            })
            .collect(),
        kept: done
            .kept
            .into_iter()
            .map(|(booking_id, status)| KeptBooking {
                booking_id,
                status: status.as_str().to_owned(),
            })
            .collect(),
    }))
}
