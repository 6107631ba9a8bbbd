//! Two-phase booking moves (spec Part B 4.10): `POST /admin/calendar/precheck-move` says
//! what a move would meet, `POST /admin/calendar/commit-move` makes it in one transaction
//! (10 s at most, locks waited for 5 s at most; Part B 8) or answers
//! MOVE_EXECUTION_FAILED with nothing changed. Bodies and answers are snake case, as the
//! spec writes them.

use super::booking_not_found;
use crate::error::{ApiError, ApiResult, ErrorBody, code};
use crate::extract::{Json, Staff, can};
use crate::idempotency;
use crate::state::AppState;
use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::Response;
use chrono::{DateTime, Utc};
use kairos_domain::FieldErrors;
use kairos_domain::moves::utilization_percent;
use kairos_store::{MoveCheck, MoveConflict, MoveError, MoveRequest};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use std::time::{Duration, Instant};
use utoipa::ToSchema;

/// The longest a move's transaction may take, and the longest it waits for a lock.
const MOVE_TIMEOUT: Duration = Duration::from_secs(10);
const MOVE_LOCK_WAIT: Duration = Duration::from_secs(5);

/// A move: the precheck's and the commit's body.
#[derive(Debug, Default, Deserialize, ToSchema)]
pub struct MoveBody {
    /// Required.
    #[schema(value_type = Option<uuid::Uuid>)]
    pub booking_id: Option<String>,
    /// Required: a slot of the booking's product.
    #[schema(value_type = Option<uuid::Uuid>)]
    pub new_slot_id: Option<String>,
    /// Who asks, as the caller names them (audit; the signed-in user is recorded as the
    /// actor). At most 100 characters.
    pub actor_id: Option<String>,
    /// Why (audit). At most 500 characters.
    pub reason: Option<String>,
    /// Commit only: move despite soft conflicts (default false).
    pub confirmed_override: Option<bool>,
}

fn check_body(body: &MoveBody) -> ApiResult<MoveRequest> {
    let mut errors = FieldErrors::new();
    let mut id = |field: &str, raw: Option<&str>| match raw.map(str::trim) {
        None | Some("") => {
            errors.add(field, "is required (a UUID)");
            None
        }
        Some(s) => s.parse::<uuid::Uuid>().ok().or_else(|| {
            errors.add(field, "must be a UUID");
            None
        }),
    };
    let booking_id = id("booking_id", body.booking_id.as_deref());
    let new_slot_id = id("new_slot_id", body.new_slot_id.as_deref());
    let requested_by = super::clean(body.actor_id.as_deref());
    if requested_by
        .as_deref()
        .is_some_and(|a| !super::short_text(a, 100))
    {
        errors.add("actor_id", "must be one line of at most 100 characters");
    }
    let reason = super::clean(body.reason.as_deref());
    if reason.as_deref().is_some_and(|r| !super::free_text(r, 500)) {
        errors.add(
            "reason",
            "must be at most 500 characters without control characters",
        );
    }
    errors.finish().map_err(ApiError::validation)?;
    match (booking_id, new_slot_id) {
        (Some(booking_id), Some(new_slot_id)) => Ok(MoveRequest {
            booking_id,
            new_slot_id,
            requested_by,
            reason,
            confirmed_override: body.confirmed_override.unwrap_or(false),
        }),
        _ => Err(ApiError::invalid_field("booking_id", "is required")),
    }
}

/// A conflict or a warning.
#[derive(Debug, Serialize, ToSchema)]
pub struct ConflictDto {
    /// Hard: capacity_exceeded, resource_overlap, time_conflict, blackout_window. Soft:
    /// min_gap_violation, preferred_resource_unavailable, overbooking_risk,
    /// policy_deviation.
    #[serde(rename = "type")]
    pub kind: String,
    /// blocking (hard) or warning (soft).
    pub severity: String,
    pub message: String,
    pub details: Value,
}

impl From<&MoveConflict> for ConflictDto {
    fn from(c: &MoveConflict) -> Self {
        ConflictDto {
            kind: c.kind.as_str().to_owned(),
            severity: c.kind.severity().to_owned(),
            message: c.message.clone(),
            details: c.details.clone(),
        }
    }
}

/// Something to know that is not a conflict.
#[derive(Debug, Serialize, ToSchema)]
pub struct WarningDto {
    /// different_day, paid_booking.
    #[serde(rename = "type")]
    pub kind: String,
    pub message: String,
    pub details: Value,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct PrecheckMetadata {
    pub validated_at: DateTime<Utc>,
    pub original_slot_id: String,
    pub new_slot_id: String,
    pub booking_id: String,
    pub validation_duration_ms: u64,
}

/// What a move would meet.
#[derive(Debug, Serialize, ToSchema)]
pub struct PrecheckResponse {
    /// No hard conflict.
    pub is_valid: bool,
    /// No conflict at all: the commit goes through without `confirmed_override`.
    pub can_proceed: bool,
    pub hard_conflicts: Vec<ConflictDto>,
    pub soft_conflicts: Vec<ConflictDto>,
    pub warnings: Vec<WarningDto>,
    pub metadata: PrecheckMetadata,
}

fn conflicts(check: &MoveCheck) -> (Vec<ConflictDto>, Vec<ConflictDto>) {
    (
        check.hard.iter().map(Into::into).collect(),
        check.soft.iter().map(Into::into).collect(),
    )
}

fn refusal(e: MoveError) -> ApiError {
    let failed = |reason: &str, message: String, action: &str, extra: Value| {
        let mut details = json!({"reason": reason, "suggested_action": action});
        if let (Value::Object(d), Value::Object(x)) = (&mut details, extra) {
            d.extend(x);
        }
        let mut e = ApiError::conflict(code::MOVE_EXECUTION_FAILED, message).with_details(details);
        // A failure that passes by itself: a retry with the same Idempotency-Key runs
        // again rather than answering this.
        if matches!(
            reason,
            "lock_timeout" | "transaction_timeout" | "transaction_failed"
        ) {
            e.retry_after = Some(1);
        }
        e
    };
    match e {
        MoveError::BookingNotFound => booking_not_found(),
        MoveError::SlotNotFound => ApiError::not_found("Slot"),
        MoveError::OtherProduct => {
            ApiError::invalid_field("new_slot_id", "must be a slot of the booking's product")
        }
        MoveError::SameSlot => {
            ApiError::invalid_field("new_slot_id", "is the booking's slot already")
        }
        MoveError::Failed {
            reason,
            message,
            suggested_action,
            check,
        } => {
            let extra = match check {
                Some(c) => {
                    let (hard, soft) = conflicts(&c);
                    json!({"hard_conflicts": hard, "soft_conflicts": soft})
                }
                None => json!({}),
            };
            failed(reason, message, suggested_action, extra)
        }
        MoveError::Store(e) => e.into(),
    }
}

/// What moving a booking to another slot of its product would meet, without moving it:
/// hard conflicts (capacity_exceeded, time_conflict: the slot has started or the customer
/// has another booking then, blackout_window: the schedule no longer offers the slot,
/// resource_overlap) block it; soft ones (overbooking_risk: the slot 90 % full after it,
/// min_gap_violation: the customer's other booking under 15 minutes away,
/// policy_deviation: inside the site's change window, preferred_resource_unavailable)
/// need `confirmed_override` at the commit. Needs `admin:bookings:write`.
#[utoipa::path(post, path = "/api/v1/admin/calendar/precheck-move", tag = "admin-bookings",
    security(("bearer" = [])),
    request_body = MoveBody,
    responses(
        (status = 200, body = PrecheckResponse),
        (status = 400, description = "VALIDATION_ERROR (a slot of another product, the booking's own slot)", body = ErrorBody),
        (status = 401, body = ErrorBody),
        (status = 403, description = "INSUFFICIENT_PERMISSIONS", body = ErrorBody),
        (status = 404, description = "BOOKING_NOT_FOUND; NOT_FOUND (the slot)", body = ErrorBody),
        (status = 409, description = "INVALID_TRANSITION: the booking's status does not move", body = ErrorBody),
    ))]
pub async fn precheck_move(
    State(state): State<AppState>,
    auth: Staff<can::WriteBookings>,
    Json(body): Json<MoveBody>,
) -> ApiResult<axum::Json<PrecheckResponse>> {
    let started = Instant::now();
    let req = check_body(&body)?;
    let now = state.now();
    let (check, status, movable) = state
        .store
        .precheck_move(auth.tenant.id(), &req, now, (MOVE_TIMEOUT, MOVE_LOCK_WAIT))
        .await
        .map_err(refusal)?;
    if !movable {
        return Err(ApiError::conflict(
            code::INVALID_TRANSITION,
            format!("A {status} booking cannot be moved (an expired hold neither)"),
        )
        .with_details(json!({"currentStatus": status.as_str()})));
    }
    let (hard, soft) = conflicts(&check);
    Ok(axum::Json(PrecheckResponse {
        is_valid: hard.is_empty(),
        can_proceed: hard.is_empty() && soft.is_empty(),
        hard_conflicts: hard,
        soft_conflicts: soft,
        warnings: check
            .warnings
            .iter()
            .map(|w| WarningDto {
                kind: w.kind.to_owned(),
                message: w.message.clone(),
                details: w.details.clone(),
            })
            .collect(),
        metadata: PrecheckMetadata {
            validated_at: now,
            original_slot_id: check.original_slot_id.to_string(),
            new_slot_id: check.new_slot_id.to_string(),
            booking_id: check.booking_id.to_string(),
            validation_duration_ms: u64::try_from(started.elapsed().as_millis())
                .unwrap_or(u64::MAX),
        },
    }))
}

#[derive(Debug, Serialize, ToSchema)]
pub struct BookingUpdate {
    pub booking_id: String,
    pub previous_slot_id: String,
    pub new_slot_id: String,
    pub moved_at: DateTime<Utc>,
    /// The signed-in user who moved it.
    pub moved_by: String,
    pub reason: Option<String>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct CapacityUpdate {
    pub slot_id: String,
    pub previous_count: i32,
    pub new_count: i32,
    pub capacity: i32,
    pub available_capacity: i32,
    pub utilization_percentage: f64,
    /// The slot's projection version after the move (as availability shows it).
    pub projection_version: i64,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct ProjectionUpdate {
    /// The new slot's projection version after the move: availability readers see this
    /// number (or a later one) on the slot.
    pub projection_version: i64,
    pub updated_slots_count: usize,
    pub updated_at: DateTime<Utc>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct CommitMetadata {
    pub execution_time_ms: u64,
    /// The move's id in the audit log.
    pub transaction_id: String,
    /// Soft conflicts were there and `confirmed_override` moved past them.
    pub validation_bypassed: bool,
    pub soft_conflicts_overridden: usize,
}

/// A move made.
#[derive(Debug, Serialize, ToSchema)]
pub struct CommitResponse {
    pub success: bool,
    pub booking_update: BookingUpdate,
    pub capacity_updates: Vec<CapacityUpdate>,
    pub projection_update: ProjectionUpdate,
    pub metadata: CommitMetadata,
}

/// Move a booking to another slot of its product in one transaction: the checks of the
/// precheck run again on the locked booking and slots (hard conflicts stop it; soft ones
/// need `confirmed_override`), the seats are released from the old slot and taken in the
/// new one, all or nothing; at most 10 s, locks waited for at most 5 s. Any failure is 409
/// MOVE_EXECUTION_FAILED (details: `reason` such as hard_conflicts,
/// soft_conflicts_not_confirmed, capacity_exceeded, already_in_slot, booking_not_movable,
/// lock_timeout, transaction_timeout; `suggested_action`; the conflicts) and changes
/// nothing. Every move, made or failed, is in the booking's audit log. Needs
/// `admin:bookings:write`.
#[utoipa::path(post, path = "/api/v1/admin/calendar/commit-move", tag = "admin-bookings",
    security(("bearer" = [])),
    params(("Idempotency-Key" = Option<String>, Header, min_length = 1, max_length = 255, description = "Makes retries safe: the same request again answers the first answer (24 h)")),
    request_body = MoveBody,
    responses(
        (status = 200, body = CommitResponse),
        (status = 400, description = "VALIDATION_ERROR", body = ErrorBody),
        (status = 401, body = ErrorBody),
        (status = 403, description = "INSUFFICIENT_PERMISSIONS", body = ErrorBody),
        (status = 404, description = "BOOKING_NOT_FOUND; NOT_FOUND (the slot)", body = ErrorBody),
        (status = 409, description = "MOVE_EXECUTION_FAILED; IDEMPOTENCY_KEY_IN_FLIGHT", body = ErrorBody),
        (status = 422, description = "IDEMPOTENCY_KEY_REUSED", body = ErrorBody),
    ))]
pub async fn commit_move(
    State(state): State<AppState>,
    auth: Staff<can::WriteBookings>,
    headers: HeaderMap,
    Json(raw): Json<Value>,
) -> ApiResult<Response> {
    idempotency::outside(
        &state,
        &auth.tenant,
        &headers,
        &format!("admin:{}", auth.user.id),
        "/api/v1/admin/calendar/commit-move",
        raw,
        |body: MoveBody| commit(&state, &auth, body),
    )
    .await
}

async fn commit(
    state: &AppState,
    auth: &Staff<can::WriteBookings>,
    body: MoveBody,
) -> ApiResult<CommitResponse> {
    let started = Instant::now();
    let req = check_body(&body)?;
    let done = state
        .store
        .commit_move(
            auth.tenant.id(),
            &req,
            &auth.actor(),
            state.now(),
            (MOVE_TIMEOUT, MOVE_LOCK_WAIT),
        )
        .await
        .map_err(refusal)?;
    let projection_version = done
        .capacity_updates
        .iter()
        .find(|c| c.slot_id == done.booking.slot_id)
        .map_or(0, |c| c.projection_version);
    Ok(CommitResponse {
        success: true,
        booking_update: BookingUpdate {
            booking_id: done.booking.id.to_string(),
            previous_slot_id: done.previous_slot_id.to_string(),
            new_slot_id: done.booking.slot_id.to_string(),
            moved_at: done.moved_at,
            moved_by: auth.user.id.to_string(),
            reason: req.reason.clone(),
        },
        capacity_updates: done
            .capacity_updates
            .iter()
            .map(|c| CapacityUpdate {
                slot_id: c.slot_id.to_string(),
                previous_count: c.previous_count,
                new_count: c.new_count,
                capacity: c.capacity,
                available_capacity: (c.capacity - c.new_count).max(0),
                utilization_percentage: utilization_percent(
                    i64::from(c.new_count),
                    i64::from(c.capacity),
                ),
                projection_version: c.projection_version,
            })
            .collect(),
        projection_update: ProjectionUpdate {
            projection_version,
            updated_slots_count: done.capacity_updates.len(),
            updated_at: done.moved_at,
        },
        metadata: CommitMetadata {
            execution_time_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
            transaction_id: done.transaction_id.to_string(),
            validation_bypassed: req.confirmed_override && !done.check.soft.is_empty(),
            soft_conflicts_overridden: if req.confirmed_override {
                done.check.soft.len()
            } else {
                0
            },
        },
    })
}
