//! Bulk sends (spec Part B 4.8 `POST /admin/messaging/bulk`): one message, written by
//! staff, to the customer of every live booking starting on a local date in a range (at
//! one site or all), now or at `sendAt`. The subject and body are templates with the
//! booking's variables (`{{customerName}}`, `{{formatDate bookingDateTime "h:mm a"}}` …).
//!
//! Sending is done by a worker in batches; `GET /admin/messaging/bulk/{bulkId}` shows its
//! progress, and the messages are listed by `GET /admin/messaging/messages?bulkId=`.
//! A bulk message is a service message about the booking: email always goes, SMS only to
//! customers who agreed to SMS (the rest are counted in `skipReasons`).

use super::error::invalid;
use super::fields::{BODY_MAX, SMS_MAX, SUBJECT_MAX};
use crate::error::{ApiError, ApiResult, ShapeBBody};
use crate::extract::{
    Json, Query, Staff, can, date_param, decode_json, optional_choice, page_param, path_id,
    timestamp_param, uuid_param,
};
use crate::idempotency::{RequestKey, answer};
use crate::openapi::schemas::TemplateTypeSchema;
use crate::state::AppState;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use chrono::{DateTime, NaiveDate, Utc};
use kairos_domain::FieldErrors;
use kairos_domain::messaging::bulk::{BulkStatus, RecipientFilter, send_at_ok};
use kairos_domain::messaging::{Channel, catalog, render};
use kairos_store::{Bulk, NewBulk};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

/// Whose bookings a bulk send reaches.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct BulkFilterInput {
    /// First local date (in each site's time zone) of the bookings' start.
    #[schema(value_type = Option<NaiveDate>, example = "2026-12-05")]
    pub booking_date_from: Option<String>,
    /// Last local date, included; the range covers at most 366 days.
    #[schema(value_type = Option<NaiveDate>, example = "2026-12-05")]
    pub booking_date_to: Option<String>,
    /// Only bookings at this site; absent or null: every site.
    #[schema(value_type = Option<Uuid>)]
    pub site_id: Option<String>,
}

crate::openapi::schemas::create_form!(
    /// Whose bookings a bulk send reaches.
    BulkFilterForm = BulkFilterInput,
    "BulkRecipientFilter",
    ["bookingDateFrom", "bookingDateTo"]
);

/// The message: templates rendered with each booking's variables (those of
/// `GET /admin/messaging/templates/types`); an unknown variable is refused.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct BulkMessageInput {
    /// Required for email (at most 500 characters); ignored for SMS.
    #[schema(example = "Your visit on {{formatDate bookingDateTime \"MMMM d, yyyy\"}}")]
    pub subject: Option<String>,
    /// HTML for email (at most 100,000 characters), text for SMS (at most 1,600).
    #[schema(
        example = "<p>Hi {{customerName}}, the car park is closed today: please use the north entrance.</p>"
    )]
    pub body: Option<String>,
    /// Default `email`.
    #[schema(value_type = Option<TemplateTypeSchema>)]
    pub channel: Option<String>,
}

crate::openapi::schemas::create_form!(
    /// The message of a bulk send.
    BulkMessageForm = BulkMessageInput,
    "BulkMessage",
    ["body"]
);

/// A bulk send to create.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct BulkInput {
    #[schema(value_type = Option<BulkFilterForm>)]
    pub recipient_filter: Option<BulkFilterInput>,
    #[schema(value_type = Option<BulkMessageForm>)]
    pub message: Option<BulkMessageInput>,
    /// When to send (RFC 3339); absent: now. In the future the send is `scheduled`
    /// until then; more than 5 minutes in the past is refused.
    pub send_at: Option<String>,
}

crate::openapi::schemas::create_form!(
    /// A bulk send to create.
    BulkForm = BulkInput,
    "BulkSend",
    ["recipientFilter", "message"]
);

/// Whose bookings a bulk send reaches, as recorded.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct BulkFilterDto {
    pub booking_date_from: NaiveDate,
    pub booking_date_to: NaiveDate,
    pub site_id: Option<Uuid>,
}

/// How far a bulk send got.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct BulkProgress {
    /// Bookings to reach: as counted when sending started (0 before); once every message
    /// is written, the bookings reached.
    pub total: i64,
    /// Bookings looked at so far (messages written plus skipped).
    pub processed: i64,
    /// Bookings that got no message.
    pub skipped: i64,
    /// Why, by reason: `no_sms_opt_in`, `no_recipient` (no address or phone),
    /// `booking_canceled`, `moved_out_of_range`, `render_failed`.
    pub skip_reasons: BTreeMap<String, i64>,
    /// Messages waiting to be sent.
    pub queued: i64,
    /// Messages accepted by the mail server or SMS provider.
    pub delivered: i64,
    /// Messages whose every attempt failed (in the dead-letter queue).
    pub failed: i64,
    /// Messages stopped by canceling the send.
    pub canceled: i64,
    /// Share of `total` whose outcome is final (delivered, failed, canceled or skipped),
    /// 0 to 100.
    pub percent: i64,
}

/// A bulk send.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct BulkDto {
    pub bulk_id: Uuid,
    /// scheduled, sending, completed or canceled.
    #[schema(example = "sending")]
    pub status: String,
    #[schema(value_type = TemplateTypeSchema)]
    pub channel: String,
    pub recipient_filter: BulkFilterDto,
    pub subject: String,
    pub body: String,
    pub send_at: DateTime<Utc>,
    pub progress: BulkProgress,
    /// The staff member who created it.
    pub created_by: Option<String>,
    pub created_at: DateTime<Utc>,
    pub started_at: Option<DateTime<Utc>>,
    /// When every recipient's message was written (delivery may still be going on).
    pub prepared_at: Option<DateTime<Utc>>,
    /// When it completed or was canceled.
    pub finished_at: Option<DateTime<Utc>>,
}

fn bulk_dto(b: Bulk) -> BulkDto {
    let settled = b.delivered + b.failed + b.canceled + b.skipped;
    let percent = match b.status {
        BulkStatus::Completed => 100,
        _ if b.total > 0 => (settled * 100 / b.total).clamp(0, 100),
        _ => 0,
    };
    BulkDto {
        bulk_id: b.id,
        status: b.status.as_str().to_owned(),
        channel: b.channel.as_str().to_owned(),
        recipient_filter: BulkFilterDto {
            booking_date_from: b.filter.from,
            booking_date_to: b.filter.to,
            site_id: b.filter.site_id,
        },
        subject: b.subject,
        body: b.body,
        send_at: b.send_at,
        progress: BulkProgress {
            total: b.total,
            processed: b.processed,
            skipped: b.skipped,
            skip_reasons: b.skip_reasons,
            queued: b.queued,
            delivered: b.delivered,
            failed: b.failed,
            canceled: b.canceled,
            percent,
        },
        created_by: b.created_by,
        created_at: b.created_at,
        started_at: b.started_at,
        prepared_at: b.prepared_at,
        finished_at: b.finished_at,
    }
}

fn accepted(b: Bulk) -> Response {
    let location = format!("/api/v1/admin/messaging/bulk/{}", b.id);
    let mut response = (StatusCode::ACCEPTED, axum::Json(bulk_dto(b))).into_response();
    if let Ok(value) = HeaderValue::from_str(&location) {
        response.headers_mut().insert(header::LOCATION, value);
    }
    response
}

/// Checks a bulk send's fields at `now`.
fn check(input: BulkInput, now: DateTime<Utc>) -> Result<NewBulk, ApiError> {
    let mut errors = FieldErrors::new();
    let filter = input.recipient_filter.unwrap_or_else(|| {
        errors.add("recipientFilter", "is required");
        BulkFilterInput::default()
    });
    let date = |field: &str, raw: Option<&str>, errors: &mut FieldErrors| match raw {
        None => {
            errors.add(field, "is required");
            None
        }
        Some(raw) => date_param(errors, field, raw),
    };
    let from = date(
        "recipientFilter.bookingDateFrom",
        filter.booking_date_from.as_deref(),
        &mut errors,
    );
    let to = date(
        "recipientFilter.bookingDateTo",
        filter.booking_date_to.as_deref(),
        &mut errors,
    );
    let filter_dates = match (from, to) {
        (Some(from), Some(to)) => {
            let range = RecipientFilter {
                from,
                to,
                site_id: None,
            };
            range.check(&mut errors);
            Some((from, to))
        }
        _ => None,
    };
    let site_id = uuid_param(
        &mut errors,
        "recipientFilter.siteId",
        filter.site_id.as_deref(),
    );
    let message = input.message.unwrap_or_else(|| {
        errors.add("message", "is required");
        BulkMessageInput::default()
    });
    let channel = optional_choice(
        &mut errors,
        "message.channel",
        message.channel.as_deref(),
        Channel::parse,
        Channel::choices,
    )
    .unwrap_or(Channel::Email);
    let subject = match channel {
        Channel::Email => message.subject.unwrap_or_default(),
        Channel::Sms => String::new(),
    };
    let body = message.body.unwrap_or_default();
    if channel == Channel::Email {
        if subject.trim().is_empty() {
            errors.add("message.subject", "is required for email");
        } else if subject.chars().count() > SUBJECT_MAX {
            errors.add(
                "message.subject",
                format!("must be at most {SUBJECT_MAX} characters"),
            );
        }
    }
    let body_max = match channel {
        Channel::Email => BODY_MAX,
        Channel::Sms => SMS_MAX,
    };
    if body.trim().is_empty() {
        errors.add("message.body", "is required");
    } else if body.chars().count() > body_max {
        errors.add(
            "message.body",
            format!("must be at most {body_max} characters for {channel}"),
        );
    }
    if errors.is_empty() {
        check_message(&mut errors, &subject, &body, channel);
    }
    let send_at = match input.send_at.as_deref() {
        None => now,
        Some(raw) => match timestamp_param(&mut errors, "sendAt", raw) {
            Some(t) if !send_at_ok(t, now) => {
                errors.add(
                    "sendAt",
                    "is in the past: leave it out to send now, or give a future time",
                );
                now
            }
            Some(t) => t.max(now),
            None => now,
        },
    };
    errors.finish().map_err(invalid)?;
    let Some((from, to)) = filter_dates else {
        return Err(invalid(FieldErrors::new()));
    };
    let filter = RecipientFilter { from, to, site_id };
    Ok(NewBulk {
        filter,
        channel,
        subject,
        body,
        send_at,
    })
}

/// The subject and body parse, render with sample values, and name only booking
/// variables: a misspelt variable would render empty for every recipient.
fn check_message(errors: &mut FieldErrors, subject: &str, body: &str, channel: Channel) {
    let known = catalog::BOOKING_VARIABLES;
    match render::render(subject, body, channel, &catalog::sample_data(), known) {
        Err(p) => {
            let field = match p.field {
                "subjectTemplate" => "message.subject",
                _ => "message.body",
            };
            errors.add(field, p.message);
        }
        Ok(_) => {
            for (field, source) in [("message.subject", subject), ("message.body", body)] {
                let unknown: Vec<String> = render::variables(source)
                    .into_iter()
                    .filter(|v| !known.contains(&v.as_str()) && v != "timezone")
                    .collect();
                if !unknown.is_empty() {
                    errors.add(
                        field,
                        format!(
                            "uses unknown variables ({}); the booking's variables are {}",
                            unknown.join(", "),
                            known.join(", ")
                        ),
                    );
                }
            }
        }
    }
}

/// Send a message to the customer of every booking in a date range, now or at `sendAt`.
///
/// Answers 202 at once with the send (`scheduled`); a worker sends it in batches (status
/// `sending`, then `completed`), and `GET /admin/messaging/bulk/{bulkId}` shows progress.
/// Each live booking (tentative to completed) starting on a local date in the range gets
/// one message to its customer; SMS only to customers who agreed to SMS. Needs
/// `admin:write`. Honours `Idempotency-Key`.
#[utoipa::path(post, path = "/api/v1/admin/messaging/bulk", tag = "messaging", security(("bearer" = [])),
    params(("Idempotency-Key" = Option<String>, Header, min_length = 1, max_length = 255, description = "Makes retries safe: one send per key and caller for 24 h; use an unguessable value such as a UUID")),
    request_body = BulkForm,
    responses((status = 202, body = BulkDto, headers(("Location" = String, description = "The send's progress"))),
        (status = 400, description = "Shape B with errors[]: a missing or bad field, an unknown variable, a range longer than 366 days, sendAt in the past", body = ShapeBBody),
        (status = 404, description = "The site does not exist (shape B)", body = ShapeBBody),
        (status = 409, description = "IDEMPOTENCY_KEY_IN_FLIGHT (shape B)", body = ShapeBBody),
        (status = 422, description = "IDEMPOTENCY_KEY_REUSED (shape B)", body = ShapeBBody)))]
pub async fn create_bulk(
    State(state): State<AppState>,
    auth: Staff<can::Write>,
    headers: HeaderMap,
    Json(body): Json<Value>,
) -> ApiResult<Response> {
    let key = RequestKey::of(
        &headers,
        &format!("admin:{}", auth.user.id),
        "POST",
        "/api/v1/admin/messaging/bulk",
        &body,
    )?;
    let render = |b: &Bulk| -> (u16, String) {
        (
            StatusCode::ACCEPTED.as_u16(),
            serde_json::to_string(&bulk_dto(b.clone())).unwrap_or_default(),
        )
    };
    let now = state.now();
    let result = async {
        let input: BulkInput = decode_json(body).map_err(ApiError::shape_b)?;
        let new = check(input, now)?;
        Ok(state
            .store
            .create_bulk(
                auth.tenant.id(),
                new,
                &auth.actor(),
                now,
                key.as_ref().map(|k| k.for_store(&render)),
            )
            .await?)
    }
    .await;
    answer(&state, &auth.tenant, key.as_ref(), result, accepted).await
}

/// Query of `GET /admin/messaging/bulk`.
#[derive(Debug, Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query, rename_all = "camelCase")]
pub struct BulkListQuery {
    /// scheduled, sending, completed or canceled.
    #[param(max_length = 20)]
    pub status: Option<String>,
    /// 1 to 200, default 50.
    #[param(value_type = Option<u32>, minimum = 1, maximum = 200)]
    pub limit: Option<String>,
}

/// `{bulkSends}`, newest first.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct BulkList {
    pub bulk_sends: Vec<BulkDto>,
}

/// The tenant's bulk sends with their progress, newest first. Needs `admin:bookings:read`.
#[utoipa::path(get, path = "/api/v1/admin/messaging/bulk", tag = "messaging", security(("bearer" = [])),
    params(BulkListQuery),
    responses((status = 200, body = BulkList),
        (status = 400, description = "Shape B with errors[]", body = ShapeBBody)))]
pub async fn list_bulks(
    State(state): State<AppState>,
    auth: Staff<can::ReadBookings>,
    Query(q): Query<BulkListQuery>,
) -> ApiResult<axum::Json<BulkList>> {
    let mut errors = FieldErrors::new();
    let status = optional_choice(
        &mut errors,
        "status",
        q.status.as_deref(),
        BulkStatus::parse,
        BulkStatus::choices,
    );
    let limit = page_param(&mut errors, "limit", q.limit.as_deref(), 50, 200);
    errors.finish().map_err(invalid)?;
    let sends = state
        .store
        .list_bulks(auth.tenant.id(), status, limit)
        .await?;
    Ok(axum::Json(BulkList {
        bulk_sends: sends.into_iter().map(bulk_dto).collect(),
    }))
}

/// A bulk send and its progress. Needs `admin:bookings:read`.
#[utoipa::path(get, path = "/api/v1/admin/messaging/bulk/{bulkId}", tag = "messaging", security(("bearer" = [])),
    params(("bulkId" = Uuid, Path)),
    responses((status = 200, body = BulkDto),
        (status = 404, description = "Bulk send not found (shape B)", body = ShapeBBody)))]
pub async fn get_bulk(
    State(state): State<AppState>,
    auth: Staff<can::ReadBookings>,
    Path(id): Path<String>,
) -> ApiResult<axum::Json<BulkDto>> {
    let id = path_id(&id, "Bulk send").map_err(ApiError::shape_b)?;
    let bulk = state
        .store
        .get_bulk(auth.tenant.id(), id)
        .await?
        .ok_or_else(|| ApiError::not_found("Bulk send").shape_b())?;
    Ok(axum::Json(bulk_dto(bulk)))
}

/// Stop a scheduled or sending bulk send: no more of its messages are written, and those
/// no sender has picked up yet are canceled (one being sent or waiting for a retry still
/// goes). Needs `admin:write`.
#[utoipa::path(post, path = "/api/v1/admin/messaging/bulk/{bulkId}/cancel", tag = "messaging", security(("bearer" = [])),
    params(("bulkId" = Uuid, Path)),
    responses((status = 200, body = BulkDto),
        (status = 404, description = "Bulk send not found (shape B)", body = ShapeBBody),
        (status = 409, description = "INVALID_TRANSITION: the send is completed or canceled already (shape B)", body = ShapeBBody)))]
pub async fn cancel_bulk(
    State(state): State<AppState>,
    auth: Staff<can::Write>,
    Path(id): Path<String>,
) -> ApiResult<axum::Json<BulkDto>> {
    let id = path_id(&id, "Bulk send").map_err(ApiError::shape_b)?;
    let bulk = state
        .store
        .cancel_bulk(auth.tenant.id(), id, &auth.actor(), state.now())
        .await?;
    Ok(axum::Json(bulk_dto(bulk)))
}
