//! Customers blocked from new online holds after a no-show (`blockFutureBookings`):
//! listed, and lifted by staff.

use crate::bookings::{clean, free_text};
use crate::error::{ApiError, ApiResult, ErrorBody};
use crate::extract::{Json, Query, Staff, bool_param, can, page_param, path_id};
use crate::state::AppState;
use axum::extract::{Path, State};
use chrono::{DateTime, Utc};
use kairos_domain::FieldErrors;
use kairos_store::CustomerBlock;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

/// A customer refused new online holds.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CustomerBlockDto {
    pub id: String,
    /// Lower case: holds with this email are refused.
    pub email: String,
    /// Holds by this customer account are refused too.
    pub customer_id: Option<String>,
    /// The no-show that caused it.
    pub booking_id: Option<String>,
    pub reason: String,
    pub created_at: DateTime<Utc>,
    pub created_by: String,
    /// Null while the block is in force.
    pub lifted_at: Option<DateTime<Utc>>,
    pub lifted_by: Option<String>,
    pub lift_reason: Option<String>,
}

impl From<&CustomerBlock> for CustomerBlockDto {
    fn from(b: &CustomerBlock) -> Self {
        CustomerBlockDto {
            id: b.id.to_string(),
            email: b.email.clone(),
            customer_id: b.customer_id.map(|c| c.to_string()),
            booking_id: b.booking_id.map(|c| c.to_string()),
            reason: b.reason.clone(),
            created_at: b.created_at,
            created_by: b.created_by.clone(),
            lifted_at: b.lifted_at,
            lifted_by: b.lifted_by.clone(),
            lift_reason: b.lift_reason.clone(),
        }
    }
}

/// Query of `GET /admin/customer-blocks`.
#[derive(Debug, Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query, rename_all = "camelCase")]
pub struct BlocksQuery {
    /// true: lifted blocks too (default false: those in force).
    #[param(value_type = Option<bool>)]
    pub include_lifted: Option<String>,
    /// From 1 (default 1).
    #[param(value_type = Option<u32>, minimum = 1, maximum = 1000000)]
    pub page: Option<String>,
    /// 1 to 100, default 50.
    #[param(value_type = Option<u32>, minimum = 1, maximum = 100)]
    pub per_page: Option<String>,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct BlockList {
    pub blocks: Vec<CustomerBlockDto>,
    pub total: i64,
    pub page: u32,
    pub per_page: u32,
}

/// Customers blocked from new online holds, newest first. Needs `admin:customers:read`.
#[utoipa::path(get, path = "/api/v1/admin/customer-blocks", tag = "no-shows",
    security(("bearer" = [])),
    params(BlocksQuery),
    responses(
        (status = 200, body = BlockList),
        (status = 400, description = "VALIDATION_ERROR", body = ErrorBody),
        (status = 401, body = ErrorBody),
        (status = 403, description = "INSUFFICIENT_PERMISSIONS", body = ErrorBody),
    ))]
pub async fn list_blocks(
    State(state): State<AppState>,
    auth: Staff<can::ReadCustomers>,
    Query(q): Query<BlocksQuery>,
) -> ApiResult<axum::Json<BlockList>> {
    let mut errors = FieldErrors::new();
    let all = bool_param(
        &mut errors,
        "includeLifted",
        q.include_lifted.as_deref(),
        false,
    );
    let page = page_param(&mut errors, "page", q.page.as_deref(), 1, 1_000_000);
    let per_page = page_param(&mut errors, "perPage", q.per_page.as_deref(), 50, 100);
    errors.finish().map_err(ApiError::validation)?;
    let (blocks, total) = state
        .store
        .customer_blocks(
            auth.tenant.id(),
            all,
            i64::from(per_page),
            i64::from(page - 1) * i64::from(per_page),
        )
        .await?;
    Ok(axum::Json(BlockList {
        blocks: blocks.iter().map(Into::into).collect(),
        total,
        page,
        per_page,
    }))
}

/// `POST /admin/customer-blocks/{blockId}/lift`.
#[derive(Debug, Default, Deserialize, ToSchema)]
pub struct LiftRequest {
    /// Why (optional, at most 500 characters).
    pub reason: Option<String>,
}

/// Lift a block: the customer may book online again. Lifting a block already lifted
/// answers it as it is. Needs `admin:bookings:write`.
#[utoipa::path(post, path = "/api/v1/admin/customer-blocks/{blockId}/lift", tag = "no-shows",
    security(("bearer" = [])),
    params(("blockId" = uuid::Uuid, Path, description = "Block id")),
    request_body = LiftRequest,
    responses(
        (status = 200, body = CustomerBlockDto),
        (status = 400, description = "VALIDATION_ERROR", body = ErrorBody),
        (status = 401, body = ErrorBody),
        (status = 403, description = "INSUFFICIENT_PERMISSIONS", body = ErrorBody),
        (status = 404, description = "NOT_FOUND: no such block", body = ErrorBody),
    ))]
pub async fn lift_block(
    State(state): State<AppState>,
    auth: Staff<can::WriteBookings>,
    Path(id): Path<String>,
    Json(req): Json<LiftRequest>,
) -> ApiResult<axum::Json<CustomerBlockDto>> {
    let id = path_id(&id, "Block")?;
    let reason = clean(req.reason.as_deref());
    if reason.as_deref().is_some_and(|r| !free_text(r, 500)) {
        return Err(ApiError::invalid_field(
            "reason",
            "must be at most 500 characters without control characters",
        ));
    }
    let block = state
        .store
        .lift_customer_block(
            auth.tenant.id(),
            id,
            reason.as_deref(),
            &auth.actor(),
            state.now(),
        )
        .await?
        .ok_or_else(|| ApiError::not_found("Block"))?;
    Ok(axum::Json((&block).into()))
}
