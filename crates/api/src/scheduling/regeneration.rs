//! Slot regeneration and its dry-run preview.

use super::RegenerationDto;
use super::templates::{parse_date, parse_scope};
use crate::error::{ApiError, ApiResult, ErrorBody};
use crate::extract::{Json, Staff, can};
use crate::openapi::schemas::ScopeTypeSchema;
use crate::state::AppState;
use axum::extract::State;
use kairos_domain::FieldErrors;
use kairos_store::DateSpan;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RegenerateRequest {
    #[schema(value_type = Option<ScopeTypeSchema>, required = true)]
    pub scope_type: Option<String>,
    #[schema(format = Uuid, required = true)]
    pub scope_id: Option<String>,
    /// Default today (site time); never before today.
    #[schema(format = Date)]
    pub date_from: Option<String>,
    /// Default today + 60 days; never beyond.
    #[schema(format = Date)]
    pub date_to: Option<String>,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RegenerateResponse {
    pub dry_run: bool,
    #[schema(value_type = ScopeTypeSchema)]
    pub scope_type: String,
    pub scope_id: String,
    #[serde(flatten)]
    pub result: RegenerationDto,
}

async fn regenerate_scope(
    state: AppState,
    auth: Staff<can::Write>,
    body: RegenerateRequest,
    dry_run: bool,
) -> ApiResult<axum::Json<RegenerateResponse>> {
    let mut errors = FieldErrors::new();
    let scope = parse_scope(
        &mut errors,
        body.scope_type.as_deref(),
        body.scope_id.as_deref(),
    );
    let from = body
        .date_from
        .as_deref()
        .and_then(|d| parse_date(&mut errors, "dateFrom", d));
    let to = body
        .date_to
        .as_deref()
        .and_then(|d| parse_date(&mut errors, "dateTo", d));
    if let (Some(f), Some(t)) = (from, to)
        && f > t
    {
        errors.add("dateFrom", "must not be after dateTo");
    }
    errors.finish().map_err(ApiError::validation)?;
    let Some((scope_type, scope_id)) = scope else {
        return Err(ApiError::validation(FieldErrors::new()));
    };
    let report = state
        .store
        .regenerate(
            auth.tenant.id(),
            scope_type,
            scope_id,
            DateSpan { from, to },
            state.now(),
            dry_run,
        )
        .await?;
    Ok(axum::Json(RegenerateResponse {
        dry_run,
        scope_type: scope_type.as_str().to_owned(),
        scope_id: scope_id.to_string(),
        result: report.into(),
    }))
}

/// Preview a regeneration: what would be created, deleted, orphaned and kept. Writes nothing.
#[utoipa::path(post, path = "/api/v1/admin/schedules/regenerate/preview", tag = "schedules", security(("bearer" = [])),
    request_body = RegenerateRequest,
    responses((status = 200, body = RegenerateResponse), (status = 400, description = "VALIDATION_ERROR", body = ErrorBody), (status = 404, description = "NOT_FOUND: scope", body = ErrorBody)))]
pub async fn preview_regeneration(
    State(state): State<AppState>,
    auth: Staff<can::Write>,
    Json(body): Json<RegenerateRequest>,
) -> ApiResult<axum::Json<RegenerateResponse>> {
    regenerate_scope(state, auth, body, true).await
}

/// Regenerate a scope's slots now.
#[utoipa::path(post, path = "/api/v1/admin/schedules/regenerate", tag = "schedules", security(("bearer" = [])),
    request_body = RegenerateRequest,
    responses((status = 200, body = RegenerateResponse), (status = 400, description = "VALIDATION_ERROR", body = ErrorBody), (status = 404, description = "NOT_FOUND: scope", body = ErrorBody)))]
pub async fn regenerate(
    State(state): State<AppState>,
    auth: Staff<can::Write>,
    Json(body): Json<RegenerateRequest>,
) -> ApiResult<axum::Json<RegenerateResponse>> {
    regenerate_scope(state, auth, body, false).await
}
