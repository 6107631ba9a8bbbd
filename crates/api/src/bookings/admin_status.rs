//! `PATCH /admin/bookings/{id}/status`: a status change through the status machine (spec Part A 4.4).

use super::admin_detail::load;
use crate::error::{ApiError, ApiResult, ErrorBody};
use crate::extract::{Json, Staff, can};
use crate::idempotency::done;
use crate::openapi::schemas::BookingStatusSchema;
use crate::state::AppState;
use axum::extract::{Path, State};
use chrono::{DateTime, Utc};
use kairos_app::bookings::cancel::{Cancellation, cancel};
use kairos_domain::bookings::BookingStatus;
use kairos_store::BookingAction;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// `PATCH /admin/bookings/{id}/status`.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct StatusRequest {
    /// The status to move to; the status machine decides whether it may.
    #[schema(value_type = Option<BookingStatusSchema>, required = true)]
    pub status: Option<String>,
    pub reason: Option<String>,
    /// Replaces the booking's internal notes when given.
    pub admin_notes: Option<String>,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct UpdatedBy {
    pub id: String,
    pub name: String,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct StatusResponse {
    pub booking_id: String,
    #[schema(value_type = BookingStatusSchema)]
    pub previous_status: String,
    #[schema(value_type = BookingStatusSchema)]
    pub status: String,
    pub reason: Option<String>,
    pub admin_notes: Option<String>,
    pub hold_expires_at: Option<DateTime<Utc>>,
    pub updated_at: DateTime<Utc>,
    pub updated_by: UpdatedBy,
    /// Only when the change cancelled a booking something was paid for (by card, bank
    /// or vouchers): its refund, in full, as `POST /bookings/{id}/cancel` by staff makes
    /// it (Part B 2.8; minor units).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub refund: Option<crate::payments::refunds::RefundOutcome>,
    /// What staff should know (a booking checked in with waivers missing).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

/// Change a booking's status through the status machine (spec Part A 3.1).
///
/// The target must be reachable from the current status by one row of the table (for
/// example paid → arrived, arrived → completed, expired → hold, which takes the seats
/// again); anything else is 409 `INVALID_TRANSITION` and changes nothing. Canceling
/// releases the seats and refunds what was paid in full, as staff's cancel does
/// (`refund` in the answer). Every change is audited with actor, time, from, to and reason.
#[utoipa::path(patch, path = "/api/v1/admin/bookings/{id}/status", tag = "admin-bookings",
    security(("bearer" = [])),
    params(("id" = uuid::Uuid, Path, description = "Booking id")),
    request_body = StatusRequest,
    responses(
        (status = 200, body = StatusResponse),
        (status = 400, description = "VALIDATION_ERROR", body = ErrorBody),
        (status = 401, body = ErrorBody),
        (status = 403, description = "INSUFFICIENT_PERMISSIONS: needs admin:bookings:write", body = ErrorBody),
        (status = 404, description = "BOOKING_NOT_FOUND", body = ErrorBody),
        (status = 409, description = "INVALID_TRANSITION (with details.groupId: a held booking of a group is confirmed with its group); SLOT_UNAVAILABLE when re-holding a full slot", body = ErrorBody),
    ))]
pub async fn set_status(
    State(state): State<AppState>,
    auth: Staff<can::WriteBookings>,
    Path(id): Path<String>,
    Json(req): Json<StatusRequest>,
) -> ApiResult<axum::Json<StatusResponse>> {
    let status = match req.status.as_deref().map(str::trim) {
        None | Some("") => return Err(ApiError::invalid_field("status", "is required")),
        Some(s) => BookingStatus::parse(s).ok_or_else(|| {
            ApiError::invalid_field(
                "status",
                "must be hold, tentative, confirmed, part_paid, paid, arrived, completed, canceled, no_show or expired",
            )
        })?,
    };
    if status == BookingStatus::PartPaid {
        // Part payment needs its amount: there is nothing to derive it from.
        return Err(ApiError::invalid_field(
            "status",
            "part_paid is reached by recording the payment: POST /api/v1/bookings/{id}/mark-paid with its amount",
        ));
    }
    let reason = super::draft::reason_of(req.reason.as_deref())?;
    let admin_notes = req
        .admin_notes
        .as_deref()
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_owned);
    if admin_notes
        .as_ref()
        .is_some_and(|n| !super::free_text(n, 5000))
    {
        return Err(ApiError::invalid_field(
            "adminNotes",
            "must be at most 5000 characters without control characters",
        ));
    }
    let view = load(&state, &auth, &id).await?;
    let previous = view.booking.status;
    let (b, refund) = if status == BookingStatus::Canceled {
        let cancelled = cancel(
            &state.app,
            auth.tenant.id(),
            view.booking.id,
            Cancellation::StatusChange {
                reason: reason.clone(),
                admin_notes,
            },
            &auth.actor(),
        )
        .await?;
        (cancelled.booking, cancelled.refund.map(Into::into))
    } else {
        let b = done(
            state
                .store
                .apply_booking_action(
                    auth.tenant.id(),
                    view.booking.id,
                    BookingAction::SetStatus {
                        status,
                        reason: reason.clone(),
                        admin_notes,
                    },
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
            // Its fee charged at once when the tenant's policy says so.
            BookingStatus::NoShow => {
                kairos_app::fees::after_no_show(&state.app, auth.tenant.id(), b.id, &auth.actor())
                    .await?;
            }
            _ => {}
        }
        (b, None)
    };
    Ok(axum::Json(StatusResponse {
        booking_id: b.id.to_string(),
        previous_status: previous.as_str().to_owned(),
        status: b.status.as_str().to_owned(),
        reason,
        admin_notes: b.admin_notes.clone(),
        hold_expires_at: b.hold_expires_at,
        updated_at: b.updated_at,
        updated_by: UpdatedBy {
            id: auth.user.id.to_string(),
            name: auth.user.display_name.clone(),
        },
        warnings: if b.status == BookingStatus::Arrived && previous != BookingStatus::Arrived {
            crate::waivers::arrival_warnings(&state, auth.tenant.id(), b.id).await?
        } else {
            Vec::new()
        },
        refund,
    }))
}
