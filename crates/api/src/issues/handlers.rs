//! The issue endpoints.

use super::dto::IssueDto;
use crate::bookings::{clean, free_text, short_text};
use crate::error::{ApiError, ApiResult, ErrorBody};
use crate::extract::{
    Json, Query, Staff, bool_param, can, choose, optional_choice, page_param, path_id, uuid_param,
};
use crate::state::AppState;
use axum::extract::{Path, State};
use chrono::{DateTime, Utc};
use kairos_domain::FieldErrors;
use kairos_domain::customers::{Email, validate_phone};
use kairos_domain::fees::MAX_FEE;
use kairos_domain::issues::{CompensationMethod, IssueCategory, IssuePriority, IssueStatus};
use kairos_domain::money::from_major;
use kairos_domain::tenancy::Currency;
use kairos_store::{Compensation, IssueContact, IssueFilter, IssuePatch, NewIssue};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

/// Who to reach, as sent.
#[derive(Debug, Default, Deserialize, ToSchema)]
pub struct ContactInfoBody {
    /// At most 200 characters.
    pub name: Option<String>,
    pub email: Option<String>,
    pub phone: Option<String>,
}

/// `POST /admin/issues`.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct NewIssueBody {
    /// The booking it is about (optional: an issue may concern the venue in general).
    #[schema(value_type = Option<uuid::Uuid>)]
    pub booking_id: Option<String>,
    /// safety, service_quality, billing, booking_error, equipment, experience or general
    /// (required): decides the default priority and the response target.
    #[schema(example = "equipment")]
    pub category: Option<String>,
    /// critical, high, medium or low (default: the category's).
    pub priority: Option<String>,
    /// Required, one line, at most 200 characters.
    pub summary: Option<String>,
    /// At most 5000 characters.
    pub description: Option<String>,
    /// Who reported it (a name; at most 100 characters).
    pub reported_by: Option<String>,
    /// When (RFC 3339, not in the future; default now).
    #[schema(value_type = Option<DateTime<Utc>>)]
    pub reported_at: Option<String>,
    /// Default: the booking's customer.
    pub contact_info: Option<ContactInfoBody>,
}

/// `PATCH /admin/issues/{issueId}`: every field optional.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct IssuePatchBody {
    /// open, in_progress, resolved or closed (a closed issue stays closed).
    pub status: Option<String>,
    /// At most 5000 characters.
    pub resolution: Option<String>,
    /// Major units of the issue's currency; given once, with `compensationMethod`.
    #[schema(minimum = 0.01, maximum = 1_000_000, example = 20.0)]
    pub compensation_amount: Option<f64>,
    /// voucher (the default: a credit voucher for the amount, sent to no one: its code is
    /// in the answer) or refund (of the booking's card or bank payment).
    pub compensation_method: Option<String>,
    /// Default when resolved: the signed-in user.
    pub resolved_by: Option<String>,
    /// RFC 3339; default when resolved: now.
    #[schema(value_type = Option<DateTime<Utc>>)]
    pub resolved_at: Option<String>,
    /// 1 to 5.
    #[schema(minimum = 1, maximum = 5)]
    pub customer_satisfaction: Option<i64>,
    pub follow_up_required: Option<bool>,
}

fn when(errors: &mut FieldErrors, field: &str, raw: Option<&str>) -> Option<DateTime<Utc>> {
    let raw = raw.map(str::trim).filter(|s| !s.is_empty())?;
    match DateTime::parse_from_rfc3339(raw) {
        Ok(t) => Some(t.with_timezone(&Utc)),
        Err(_) => {
            errors.add(
                field,
                "must be an RFC 3339 time such as 2026-05-01T18:00:00Z",
            );
            None
        }
    }
}

fn line(errors: &mut FieldErrors, field: &str, raw: Option<&str>, max: usize) -> Option<String> {
    let text = clean(raw);
    if text.as_deref().is_some_and(|t| !short_text(t, max)) {
        errors.add(
            field,
            format!("must be one line of at most {max} characters"),
        );
    }
    text
}

fn prose(errors: &mut FieldErrors, field: &str, raw: Option<&str>, max: usize) -> Option<String> {
    let text = clean(raw);
    if text.as_deref().is_some_and(|t| !free_text(t, max)) {
        errors.add(
            field,
            format!("must be at most {max} characters without control characters"),
        );
    }
    text
}

/// Log a customer's issue. Its priority is the category's unless given, and its response
/// is due by the category's target after it was reported (safety: at once; service_quality
/// and booking_error: 1 hour; billing: 2 hours; equipment: 4 hours; experience: 24 hours;
/// general: 48 hours). Needs `admin:bookings:write`.
#[utoipa::path(post, path = "/api/v1/admin/issues", tag = "issues", security(("bearer" = [])),
    request_body = NewIssueBody,
    responses(
        (status = 200, body = IssueDto),
        (status = 400, description = "VALIDATION_ERROR", body = ErrorBody),
        (status = 401, body = ErrorBody),
        (status = 403, description = "INSUFFICIENT_PERMISSIONS", body = ErrorBody),
        (status = 404, description = "BOOKING_NOT_FOUND", body = ErrorBody),
    ))]
pub async fn create_issue(
    State(state): State<AppState>,
    auth: Staff<can::WriteBookings>,
    Json(body): Json<NewIssueBody>,
) -> ApiResult<axum::Json<IssueDto>> {
    let now = state.now();
    let mut errors = FieldErrors::new();
    let booking_id = uuid_param(&mut errors, "bookingId", body.booking_id.as_deref());
    let category = choose(
        &mut errors,
        "category",
        body.category.as_deref(),
        IssueCategory::General,
        true,
        IssueCategory::parse,
        IssueCategory::choices(),
    );
    let priority = optional_choice(
        &mut errors,
        "priority",
        body.priority.as_deref(),
        IssuePriority::parse,
        IssuePriority::choices,
    );
    let summary = line(&mut errors, "summary", body.summary.as_deref(), 200);
    if summary.is_none() {
        errors.add("summary", "is required: one line saying what happened");
    }
    let description = prose(
        &mut errors,
        "description",
        body.description.as_deref(),
        5000,
    );
    let reported_by = line(&mut errors, "reportedBy", body.reported_by.as_deref(), 100);
    let reported_at = when(&mut errors, "reportedAt", body.reported_at.as_deref()).unwrap_or(now);
    if reported_at > now + chrono::Duration::minutes(5) {
        errors.add("reportedAt", "must not be in the future");
    }
    let contact = body.contact_info.unwrap_or_default();
    let contact = IssueContact {
        name: line(
            &mut errors,
            "contactInfo.name",
            contact.name.as_deref(),
            200,
        ),
        email: clean(contact.email.as_deref())
            .and_then(|e| errors.check("contactInfo.email", Email::parse(&e)))
            .map(|e| e.as_str().to_owned()),
        phone: clean(contact.phone.as_deref()).and_then(|p| {
            errors
                .check("contactInfo.phone", validate_phone(&p))
                .map(|()| p)
        }),
    };
    errors.finish().map_err(ApiError::validation)?;
    let issue = state
        .store
        .create_issue(
            auth.tenant.id(),
            NewIssue {
                booking_id,
                category,
                priority,
                summary: summary.unwrap_or_default(),
                description,
                reported_by: reported_by.or_else(|| Some(auth.user.display_name.clone())),
                reported_at,
                contact,
            },
            &auth.actor(),
            now,
        )
        .await?;
    Ok(axum::Json(IssueDto::of(&issue, now)))
}

/// An issue updated.
#[derive(Debug, Serialize, ToSchema)]
pub struct IssueUpdate {
    pub issue: IssueDto,
    /// What staff should know (a refund still processing, or refused).
    pub warnings: Vec<String>,
}

/// Update an issue: its status (the first move out of `open` is its response; `resolved`
/// records who and when), resolution, the customer's satisfaction, a follow-up, and a
/// compensation, given once: a credit voucher for the amount (its code in the answer), or
/// a refund of the booking's card or bank payment. Needs `admin:bookings:write`.
#[utoipa::path(patch, path = "/api/v1/admin/issues/{issueId}", tag = "issues", security(("bearer" = [])),
    params(("issueId" = uuid::Uuid, Path, description = "Issue id")),
    request_body = IssuePatchBody,
    responses(
        (status = 200, body = IssueUpdate),
        (status = 400, description = "VALIDATION_ERROR (a refund the booking's payments cannot make)", body = ErrorBody),
        (status = 401, body = ErrorBody),
        (status = 403, description = "INSUFFICIENT_PERMISSIONS", body = ErrorBody),
        (status = 404, description = "NOT_FOUND: no such issue", body = ErrorBody),
        (status = 409, description = "INVALID_TRANSITION (a closed issue); CONFLICT (compensated already)", body = ErrorBody),
    ))]
pub async fn update_issue(
    State(state): State<AppState>,
    auth: Staff<can::WriteBookings>,
    Path(id): Path<String>,
    Json(body): Json<IssuePatchBody>,
) -> ApiResult<axum::Json<IssueUpdate>> {
    let id = path_id(&id, "Issue")?;
    let tenant = auth.tenant.id();
    let current = state
        .store
        .issue(tenant, id)
        .await?
        .ok_or_else(|| ApiError::not_found("Issue"))?;
    let mut errors = FieldErrors::new();
    let status = optional_choice(
        &mut errors,
        "status",
        body.status.as_deref(),
        IssueStatus::parse,
        IssueStatus::choices,
    );
    let method = optional_choice(
        &mut errors,
        "compensationMethod",
        body.compensation_method.as_deref(),
        CompensationMethod::parse,
        CompensationMethod::choices,
    );
    let currency = Currency::parse(&current.currency).map_err(ApiError::internal)?;
    let compensation = match (body.compensation_amount, method) {
        (None, None) => None,
        (Some(a), Some(method)) => match from_major(a, currency) {
            Ok(amount) if (1..=MAX_FEE).contains(&amount) => Some(Compensation { amount, method }),
            _ => {
                errors.add(
                    "compensationAmount",
                    "must be more than 0 and at most 1000000, in the currency's minor units (e.g. at most 2 decimals for EUR)",
                );
                None
            }
        },
        // The spec's PATCH names no method: a credit voucher unless a refund is asked for.
        (Some(a), None) if body.compensation_method.is_none() => match from_major(a, currency) {
            Ok(amount) if (1..=MAX_FEE).contains(&amount) => Some(Compensation {
                amount,
                method: CompensationMethod::Voucher,
            }),
            _ => {
                errors.add(
                    "compensationAmount",
                    "must be more than 0 and at most 1000000, in the currency's minor units (e.g. at most 2 decimals for EUR)",
                );
                None
            }
        },
        (Some(_), None) => None,
        (None, Some(_)) => {
            errors.add("compensationAmount", "is required with compensationMethod");
            None
        }
    };
    let satisfaction = match body.customer_satisfaction {
        None => None,
        Some(s) if (1..=5).contains(&s) => i32::try_from(s).ok(),
        Some(_) => {
            errors.add("customerSatisfaction", "must be 1 to 5");
            None
        }
    };
    let patch = IssuePatch {
        status,
        resolution: prose(&mut errors, "resolution", body.resolution.as_deref(), 5000),
        compensation,
        resolved_by: line(&mut errors, "resolvedBy", body.resolved_by.as_deref(), 100),
        resolved_at: when(&mut errors, "resolvedAt", body.resolved_at.as_deref()),
        customer_satisfaction: satisfaction,
        follow_up_required: body.follow_up_required,
    };
    errors.finish().map_err(ApiError::validation)?;
    let done =
        kairos_app::issues::update_issue(&state.app, tenant, id, patch, &auth.actor()).await?;
    Ok(axum::Json(IssueUpdate {
        issue: IssueDto::of(&done.issue, state.now()),
        warnings: done.warnings,
    }))
}

/// An issue. Needs `admin:bookings:read`.
#[utoipa::path(get, path = "/api/v1/admin/issues/{issueId}", tag = "issues", security(("bearer" = [])),
    params(("issueId" = uuid::Uuid, Path, description = "Issue id")),
    responses(
        (status = 200, body = IssueDto),
        (status = 401, body = ErrorBody),
        (status = 403, description = "INSUFFICIENT_PERMISSIONS", body = ErrorBody),
        (status = 404, description = "NOT_FOUND", body = ErrorBody),
    ))]
pub async fn get_issue(
    State(state): State<AppState>,
    auth: Staff<can::ReadBookings>,
    Path(id): Path<String>,
) -> ApiResult<axum::Json<IssueDto>> {
    let id = path_id(&id, "Issue")?;
    let issue = state
        .store
        .issue(auth.tenant.id(), id)
        .await?
        .ok_or_else(|| ApiError::not_found("Issue"))?;
    Ok(axum::Json(IssueDto::of(&issue, state.now())))
}

/// Query of `GET /admin/issues`.
#[derive(Debug, Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query, rename_all = "camelCase")]
pub struct IssuesQuery {
    /// open, in_progress, resolved or closed.
    #[param(max_length = 20)]
    pub status: Option<String>,
    #[param(max_length = 20)]
    pub category: Option<String>,
    #[param(max_length = 20)]
    pub priority: Option<String>,
    #[param(value_type = Option<uuid::Uuid>)]
    pub booking_id: Option<String>,
    /// true: only issues still open past their due time.
    #[param(value_type = Option<bool>)]
    pub overdue: Option<String>,
    /// From 1 (default 1).
    #[param(value_type = Option<u32>, minimum = 1, maximum = 1000000)]
    pub page: Option<String>,
    /// 1 to 100, default 50.
    #[param(value_type = Option<u32>, minimum = 1, maximum = 100)]
    pub per_page: Option<String>,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct IssueList {
    pub issues: Vec<IssueDto>,
    pub total: i64,
    pub page: u32,
    pub per_page: u32,
}

/// Issues, newest reported first, with the filters status, category, priority, bookingId
/// and overdue. Needs `admin:bookings:read`.
#[utoipa::path(get, path = "/api/v1/admin/issues", tag = "issues", security(("bearer" = [])),
    params(IssuesQuery),
    responses(
        (status = 200, body = IssueList),
        (status = 400, description = "VALIDATION_ERROR", body = ErrorBody),
        (status = 401, body = ErrorBody),
        (status = 403, description = "INSUFFICIENT_PERMISSIONS", body = ErrorBody),
    ))]
pub async fn list_issues(
    State(state): State<AppState>,
    auth: Staff<can::ReadBookings>,
    Query(q): Query<IssuesQuery>,
) -> ApiResult<axum::Json<IssueList>> {
    let now = state.now();
    let mut errors = FieldErrors::new();
    let status = optional_choice(
        &mut errors,
        "status",
        q.status.as_deref(),
        IssueStatus::parse,
        IssueStatus::choices,
    );
    let category = optional_choice(
        &mut errors,
        "category",
        q.category.as_deref(),
        IssueCategory::parse,
        IssueCategory::choices,
    );
    let priority = optional_choice(
        &mut errors,
        "priority",
        q.priority.as_deref(),
        IssuePriority::parse,
        IssuePriority::choices,
    );
    let booking_id = uuid_param(&mut errors, "bookingId", q.booking_id.as_deref());
    let overdue = bool_param(&mut errors, "overdue", q.overdue.as_deref(), false);
    let page = page_param(&mut errors, "page", q.page.as_deref(), 1, 1_000_000);
    let per_page = page_param(&mut errors, "perPage", q.per_page.as_deref(), 50, 100);
    errors.finish().map_err(ApiError::validation)?;
    let (issues, total) = state
        .store
        .list_issues(
            auth.tenant.id(),
            &IssueFilter {
                status,
                category,
                priority,
                booking_id,
                overdue_at: overdue.then_some(now),
                limit: i64::from(per_page),
                offset: i64::from(page - 1) * i64::from(per_page),
            },
        )
        .await?;
    Ok(axum::Json(IssueList {
        issues: issues.iter().map(|i| IssueDto::of(i, now)).collect(),
        total,
        page,
        per_page,
    }))
}
