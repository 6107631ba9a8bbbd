//! A resource's time off: `/api/v1/admin/resources/{id}/blackouts` (spec Part B 4.12,
//! resource-level schedules).

use crate::catalog::text;
use crate::error::{ApiError, ApiResult, ErrorBody};
use crate::extract::{Json, Staff, can, choose, path_id, timestamp_param};
use crate::openapi::schemas::BlackoutKindSchema;
use crate::state::AppState;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use chrono::{DateTime, Duration, Utc};
use kairos_domain::FieldErrors;
use kairos_domain::scheduling::BlackoutKind;
use kairos_store::{NewBlackout, ResourceBlackout};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

/// The longest blackout: a year and a day.
const MAX_DAYS: i64 = 366;

/// A time the resource is out of use.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct BlackoutDto {
    pub id: Uuid,
    pub resource_id: Uuid,
    #[schema(value_type = BlackoutKindSchema)]
    pub kind: String,
    pub starts_at: DateTime<Utc>,
    pub ends_at: DateTime<Utc>,
    pub reason: String,
    pub created_at: DateTime<Utc>,
}

fn dto(b: ResourceBlackout) -> BlackoutDto {
    BlackoutDto {
        id: b.id,
        resource_id: b.resource_id,
        kind: b.kind.as_str().to_owned(),
        starts_at: b.starts_at,
        ends_at: b.ends_at,
        reason: b.reason,
        created_at: b.created_at,
    }
}

/// `{items}`.
#[derive(Debug, Serialize, ToSchema)]
pub struct BlackoutList {
    pub items: Vec<BlackoutDto>,
}

/// `POST /admin/resources/{id}/blackouts`.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct BlackoutRequest {
    #[schema(value_type = BlackoutKindSchema, required = true)]
    pub kind: Option<String>,
    #[schema(value_type = DateTime<Utc>, required = true)]
    pub starts_at: Option<String>,
    /// After `startsAt`, at most 366 days later.
    #[schema(value_type = DateTime<Utc>, required = true)]
    pub ends_at: Option<String>,
    /// Up to 500 characters.
    pub reason: Option<String>,
}

/// Something the blackout meets and keeps: move it, or it is served as booked.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct BlackoutWarning {
    /// `existing_bookings`.
    pub code: String,
    pub message: String,
    pub starts_at: DateTime<Utc>,
    pub ends_at: DateTime<Utc>,
}

/// The blackout written, with what it meets.
#[derive(Debug, Serialize, ToSchema)]
pub struct BlackoutCreated {
    #[serde(flatten)]
    pub blackout: BlackoutDto,
    pub warnings: Vec<BlackoutWarning>,
}

/// Take a resource out of use for a while (maintenance, a holiday, a closure, an event):
/// no add-on window and no session that needs it is offered or taken over it. What it
/// already serves then is kept and listed in `warnings` (a booking is never cancelled by
/// it). Needs `admin:write`.
#[utoipa::path(post, path = "/api/v1/admin/resources/{id}/blackouts", tag = "resources", security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "Resource id")),
    request_body = BlackoutRequest,
    responses((status = 200, body = BlackoutCreated),
        (status = 400, description = "VALIDATION_ERROR", body = ErrorBody),
        (status = 404, description = "NOT_FOUND: the resource", body = ErrorBody)))]
pub async fn create_blackout(
    State(state): State<AppState>,
    auth: Staff<can::Write>,
    Path(resource): Path<String>,
    Json(req): Json<BlackoutRequest>,
) -> ApiResult<axum::Json<BlackoutCreated>> {
    let resource = path_id(&resource, "Resource")?;
    let mut errors = FieldErrors::new();
    let kind = choose(
        &mut errors,
        "kind",
        req.kind.as_deref(),
        BlackoutKind::Maintenance,
        true,
        BlackoutKind::parse,
        BlackoutKind::choices(),
    );
    let mut at = |field: &str, raw: Option<&str>| match raw {
        None => {
            errors.add(field, "is required");
            None
        }
        Some(raw) => timestamp_param(&mut errors, field, raw),
    };
    let starts = at("startsAt", req.starts_at.as_deref());
    let ends = at("endsAt", req.ends_at.as_deref());
    if let (Some(s), Some(e)) = (starts, ends) {
        if s >= e {
            errors.add("endsAt", "invalid time window: start must be before end");
        } else if e - s > Duration::days(MAX_DAYS) {
            errors.add(
                "endsAt",
                format!("must be at most {MAX_DAYS} days after startsAt"),
            );
        }
    }
    let reason = text(
        &mut errors,
        "reason",
        req.reason.as_deref().unwrap_or_default(),
        500,
    );
    let (Some(starts_at), Some(ends_at), true) = (starts, ends, errors.is_empty()) else {
        return Err(ApiError::validation(errors));
    };
    let written = state
        .store
        .create_resource_blackout(
            auth.tenant.id(),
            resource,
            NewBlackout {
                kind,
                starts_at,
                ends_at,
                reason,
            },
            &auth.actor(),
            state.now(),
        )
        .await?;
    Ok(axum::Json(BlackoutCreated {
        blackout: dto(written.blackout),
        warnings: written
            .overlapping
            .into_iter()
            .map(|(starts_at, ends_at)| BlackoutWarning {
                code: "existing_bookings".into(),
                message: "The resource is booked then; the booking is kept: move it or serve it"
                    .into(),
                starts_at,
                ends_at,
            })
            .collect(),
    }))
}

/// The resource's blackouts that have not ended, by start. Needs `admin:read`.
#[utoipa::path(get, path = "/api/v1/admin/resources/{id}/blackouts", tag = "resources", security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "Resource id")),
    responses((status = 200, body = BlackoutList), (status = 404, description = "NOT_FOUND", body = ErrorBody)))]
pub async fn list_blackouts(
    State(state): State<AppState>,
    auth: Staff<can::Read>,
    Path(resource): Path<String>,
) -> ApiResult<axum::Json<BlackoutList>> {
    let resource = path_id(&resource, "Resource")?;
    let items = state
        .store
        .resource_blackouts(auth.tenant.id(), resource, state.now())
        .await?;
    Ok(axum::Json(BlackoutList {
        items: items.into_iter().map(dto).collect(),
    }))
}

/// End a blackout (it is deleted): the resource is in use again at once. Needs
/// `admin:write`.
#[utoipa::path(delete, path = "/api/v1/admin/resources/{id}/blackouts/{blackoutId}", tag = "resources", security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "Resource id"), ("blackoutId" = Uuid, Path, description = "Blackout id")),
    responses((status = 204, description = "Deleted"), (status = 404, description = "NOT_FOUND", body = ErrorBody)))]
pub async fn delete_blackout(
    State(state): State<AppState>,
    auth: Staff<can::Write>,
    Path((resource, blackout)): Path<(String, String)>,
) -> ApiResult<StatusCode> {
    let resource = path_id(&resource, "Resource")?;
    let blackout = path_id(&blackout, "Blackout")?;
    state
        .store
        .delete_resource_blackout(
            auth.tenant.id(),
            resource,
            blackout,
            &auth.actor(),
            state.now(),
        )
        .await?;
    Ok(StatusCode::NO_CONTENT)
}
