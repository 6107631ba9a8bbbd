//! Listing and reading dead letters.

use crate::error::{ApiError, ApiResult, ShapeBBody};
use crate::extract::{Query, Staff, can, optional_choice, page_param, path_id, uuid_param};
use crate::state::AppState;
use axum::extract::{Path, State};
use chrono::{DateTime, Utc};
use kairos_domain::FieldErrors;
use kairos_domain::dead_letters::{Category, Status};
use kairos_store::{DeadLetter, DeadLetterFilter};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

/// A piece of work that failed for good.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DeadLetterDto {
    pub id: Uuid,
    /// notification, payment or booking_operation.
    #[serde(rename = "type")]
    #[schema(example = "notification")]
    pub category: String,
    /// What failed: `email`, `sms`, …
    pub kind: String,
    /// For example `smtp_rejected`, `smtp_unavailable`, `sms_rejected`.
    pub error_type: String,
    pub error_message: String,
    /// When it failed (the last time).
    pub failed_at: DateTime<Utc>,
    /// Attempts made in all.
    pub retry_count: i32,
    /// open, retrying, resolved or skipped.
    #[schema(example = "open")]
    pub status: String,
    pub booking_id: Option<Uuid>,
    /// A payment's id, for payment failures.
    pub transaction_id: Option<Uuid>,
    /// The message, for notifications.
    pub message_id: Option<Uuid>,
    /// How it was resolved, or why it was skipped.
    pub resolution: Option<String>,
    pub resolved_by: Option<String>,
    pub resolved_at: Option<DateTime<Utc>>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

pub(super) fn dto(d: DeadLetter) -> DeadLetterDto {
    DeadLetterDto {
        id: d.id,
        category: d.category.as_str().to_owned(),
        message_id: (d.category == Category::Notification)
            .then_some(d.outbox_id)
            .flatten(),
        kind: d.kind,
        error_type: d.error_type,
        error_message: d.error_message,
        failed_at: d.failed_at,
        retry_count: d.retry_count,
        status: d.status.as_str().to_owned(),
        booking_id: d.booking_id,
        transaction_id: d.transaction_id,
        resolution: d.resolution,
        resolved_by: d.resolved_by,
        resolved_at: d.resolved_at,
        created_at: d.created_at,
        updated_at: d.updated_at,
    }
}

/// Query of `GET /admin/dead-letters`.
#[derive(Debug, Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query, rename_all = "camelCase")]
pub struct ListQuery {
    /// notification, payment or booking_operation.
    #[serde(rename = "type")]
    #[param(rename = "type", max_length = 20)]
    pub category: Option<String>,
    /// open, retrying, resolved or skipped.
    #[param(max_length = 20)]
    pub status: Option<String>,
    #[param(value_type = Option<Uuid>)]
    pub booking_id: Option<String>,
    /// From 1 (default 1).
    #[param(value_type = Option<u32>, minimum = 1, maximum = 1000000)]
    pub page: Option<String>,
    /// 1 to 100, default 50.
    #[param(value_type = Option<u32>, minimum = 1, maximum = 100)]
    pub per_page: Option<String>,
}

/// A page of dead letters, newest failure first.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DeadLetterList {
    pub dead_letters: Vec<DeadLetterDto>,
    pub total: u64,
    pub page: u32,
    pub per_page: u32,
}

/// List dead letters. Needs `admin:read`.
#[utoipa::path(get, path = "/api/v1/admin/dead-letters", tag = "dead-letters", security(("bearer" = [])),
    params(ListQuery),
    responses((status = 200, body = DeadLetterList),
        (status = 400, description = "Shape B with errors[]", body = ShapeBBody)))]
pub async fn list_dead_letters(
    State(state): State<AppState>,
    auth: Staff<can::Read>,
    Query(q): Query<ListQuery>,
) -> ApiResult<axum::Json<DeadLetterList>> {
    let mut errors = FieldErrors::new();
    let category = optional_choice(
        &mut errors,
        "type",
        q.category.as_deref(),
        Category::parse,
        Category::choices,
    );
    let status = optional_choice(
        &mut errors,
        "status",
        q.status.as_deref(),
        Status::parse,
        Status::choices,
    );
    let booking_id = uuid_param(&mut errors, "bookingId", q.booking_id.as_deref());
    let page = page_param(&mut errors, "page", q.page.as_deref(), 1, 1_000_000);
    let per_page = page_param(&mut errors, "perPage", q.per_page.as_deref(), 50, 100);
    errors
        .finish()
        .map_err(|e| ApiError::validation(e).shape_b())?;
    let (items, total) = state
        .store
        .list_dead_letters(
            auth.tenant.id(),
            &DeadLetterFilter {
                category,
                kind: None,
                status,
                booking_id,
                page,
                per_page,
            },
        )
        .await?;
    Ok(axum::Json(DeadLetterList {
        dead_letters: items.into_iter().map(dto).collect(),
        total,
        page,
        per_page,
    }))
}

pub(super) fn letter_id(raw: &str) -> ApiResult<Uuid> {
    path_id(raw, "Dead letter").map_err(ApiError::shape_b)
}

/// Read a dead letter. Needs `admin:read`.
#[utoipa::path(get, path = "/api/v1/admin/dead-letters/{id}", tag = "dead-letters", security(("bearer" = [])),
    params(("id" = Uuid, Path)),
    responses((status = 200, body = DeadLetterDto),
        (status = 404, description = "Dead letter not found (shape B)", body = ShapeBBody)))]
pub async fn get_dead_letter(
    State(state): State<AppState>,
    auth: Staff<can::Read>,
    Path(id): Path<String>,
) -> ApiResult<axum::Json<DeadLetterDto>> {
    let id = letter_id(&id)?;
    let d = state
        .store
        .get_dead_letter(auth.tenant.id(), id)
        .await?
        .ok_or_else(|| ApiError::not_found("Dead letter").shape_b())?;
    Ok(axum::Json(dto(d)))
}
