//! How long signed waivers are kept (`/api/v1/admin/waivers/retention`): 7 years unless
//! the venue's local regulations say otherwise (spec Part B 8); counted from each
//! signature, then the hourly purge deletes them and records it in the audit log.

use crate::error::{ApiError, ApiResult, ErrorBody};
use crate::extract::{Json, Staff, can};
use crate::state::AppState;
use axum::extract::State;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// The retention.
#[derive(Debug, Default, Deserialize, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct WaiverRetention {
    /// Whole years, 1 to 100 (default 7).
    #[schema(minimum = 1, maximum = 100, example = 7)]
    pub retention_years: Option<i64>,
}

/// How many years signed waivers are kept. Needs `admin:read`.
#[utoipa::path(get, path = "/api/v1/admin/waivers/retention", tag = "waivers", security(("bearer" = [])),
    responses(
        (status = 200, body = WaiverRetention),
        (status = 403, description = "INSUFFICIENT_PERMISSIONS", body = ErrorBody),
    ))]
pub async fn get_retention(
    State(state): State<AppState>,
    auth: Staff<can::Read>,
) -> ApiResult<axum::Json<WaiverRetention>> {
    let years = state.store.waiver_retention_years(auth.tenant.id()).await?;
    Ok(axum::Json(WaiverRetention {
        retention_years: Some(i64::from(years)),
    }))
}

/// Set how many years signed waivers are kept (signatures older than that are purged
/// within the hour). Needs `admin:write`.
#[utoipa::path(put, path = "/api/v1/admin/waivers/retention", tag = "waivers", security(("bearer" = [])),
    request_body = WaiverRetention,
    responses(
        (status = 200, body = WaiverRetention),
        (status = 400, description = "VALIDATION_ERROR", body = ErrorBody),
        (status = 403, description = "INSUFFICIENT_PERMISSIONS", body = ErrorBody),
    ))]
pub async fn set_retention(
    State(state): State<AppState>,
    auth: Staff<can::Write>,
    Json(body): Json<WaiverRetention>,
) -> ApiResult<axum::Json<WaiverRetention>> {
    let years = match body.retention_years {
        Some(y) if (1..=100).contains(&y) => i32::try_from(y).unwrap_or(7),
        Some(_) => {
            return Err(ApiError::invalid_field(
                "retentionYears",
                "must be a whole number of years from 1 to 100",
            ));
        }
        None => return Err(ApiError::invalid_field("retentionYears", "is required")),
    };
    let years = state
        .store
        .set_waiver_retention_years(auth.tenant.id(), years, &auth.actor(), state.now())
        .await?;
    Ok(axum::Json(WaiverRetention {
        retention_years: Some(i64::from(years)),
    }))
}
