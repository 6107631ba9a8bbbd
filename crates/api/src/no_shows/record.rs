//! Marking a no-show with its details, its tracking record, the list of open no-shows and
//! settling one without a fee (spec Part B 2.8, 4.8, 4.9).

use super::dto::NoShowRecordDto;
use crate::bookings::{booking_not_found, free_text, short_text};
use crate::error::{ApiError, ApiResult, ErrorBody};
use crate::extract::{Json, Query, Staff, can, uuid_param};
use crate::idempotency;
use crate::state::AppState;
use axum::extract::{Path, State};
use axum::http::HeaderMap;
use axum::response::Response;
use chrono::{DateTime, Utc};
use kairos_domain::FieldErrors;
use kairos_domain::fees::Resolution;
use kairos_domain::ids::parse_id;
use kairos_domain::money::format_in_locale;
use kairos_domain::tenancy::Currency;
use kairos_store::{BookingAction, ContactAttempt, NoShowMark};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::{IntoParams, ToSchema};

/// One attempt to reach the customer, as sent.
#[derive(Debug, Default, Deserialize, ToSchema)]
pub struct ContactAttemptBody {
    /// phone, sms, email, … (required, at most 50 characters).
    pub method: Option<String>,
    /// When (RFC 3339; required).
    #[schema(value_type = Option<DateTime<Utc>>)]
    pub timestamp: Option<String>,
    /// What came of it (required, at most 200 characters).
    pub result: Option<String>,
}

/// `POST /admin/bookings/{bookingId}/no-show`.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct NoShowDetails {
    /// When the customer was due (RFC 3339; default the booking's start).
    #[schema(value_type = Option<DateTime<Utc>>)]
    pub no_show_time: Option<String>,
    /// At most 20.
    #[schema(max_items = 20)]
    pub contact_attempts: Option<Vec<ContactAttemptBody>>,
    /// At most 2000 characters.
    pub notes: Option<String>,
    /// Assess the tenant's no-show fee (default: when its policy is enabled).
    pub apply_no_show_fee: Option<bool>,
    /// Refuse the customer new online holds until staff lift the block (default false).
    pub block_future_bookings: Option<bool>,
}

/// A no-show recorded.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct NoShowResponse {
    pub success: bool,
    pub booking_id: String,
    /// no_show.
    pub status: String,
    pub no_show: NoShowRecordDto,
    /// What staff should know (a fee charge the card declined, no card on file).
    pub warnings: Vec<String>,
}

fn rfc3339(errors: &mut FieldErrors, field: &str, raw: Option<&str>) -> Option<DateTime<Utc>> {
    let raw = raw?.trim();
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

fn check(req: NoShowDetails) -> ApiResult<NoShowMark> {
    let mut errors = FieldErrors::new();
    let no_show_time = rfc3339(&mut errors, "noShowTime", req.no_show_time.as_deref());
    let attempts = req.contact_attempts.unwrap_or_default();
    if attempts.len() > 20 {
        errors.add("contactAttempts", "must list at most 20 attempts");
    }
    let mut contact_attempts = Vec::new();
    for (i, a) in attempts.iter().enumerate().take(20) {
        let field = |name: &str| format!("contactAttempts[{i}].{name}");
        let method = a.method.as_deref().map(str::trim).unwrap_or_default();
        if method.is_empty() || !short_text(method, 50) {
            errors.add(
                field("method"),
                "is required: at most 50 characters, one line",
            );
        }
        let result = a.result.as_deref().map(str::trim).unwrap_or_default();
        if result.is_empty() || !short_text(result, 200) {
            errors.add(
                field("result"),
                "is required: at most 200 characters, one line",
            );
        }
        let at = match a.timestamp.as_deref() {
            None => {
                errors.add(field("timestamp"), "is required (RFC 3339)");
                None
            }
            Some(t) => rfc3339(&mut errors, &field("timestamp"), Some(t)),
        };
        if let Some(timestamp) = at {
            contact_attempts.push(ContactAttempt {
                method: method.to_owned(),
                timestamp,
                result: result.to_owned(),
            });
        }
    }
    let notes = crate::bookings::clean(req.notes.as_deref());
    if notes.as_deref().is_some_and(|n| !free_text(n, 2000)) {
        errors.add(
            "notes",
            "must be at most 2000 characters without control characters",
        );
    }
    errors.finish().map_err(ApiError::validation)?;
    Ok(NoShowMark {
        reason: Some("marked by staff".to_owned()),
        no_show_time,
        contact_attempts,
        notes,
        apply_fee: req.apply_no_show_fee,
        block_future_bookings: req.block_future_bookings.unwrap_or(false),
        automatic: false,
    })
}

/// Mark a booking a no-show with the details of its tracking record (Part B 2.8): when
/// the customer was due, the attempts to reach them, notes; the tenant's no-show fee
/// (`applyNoShowFee`, default when the policy is enabled: pending with a card on file,
/// owed without; charged at once when the policy's `autoCharge` is on); and
/// `blockFutureBookings`, which refuses the customer new online holds (403
/// CUSTOMER_BLOCKED) until staff lift it. From tentative, confirmed, part_paid, paid or
/// arrived. Needs `admin:bookings:write`.
#[utoipa::path(post, path = "/api/v1/admin/bookings/{bookingId}/no-show", tag = "no-shows",
    security(("bearer" = [])),
    params(
        ("bookingId" = uuid::Uuid, Path, description = "Booking id"),
        ("Idempotency-Key" = Option<String>, Header, min_length = 1, max_length = 255, description = "Makes retries safe: the same request again answers the first answer (24 h)"),
    ),
    request_body = NoShowDetails,
    responses(
        (status = 200, body = NoShowResponse),
        (status = 400, description = "VALIDATION_ERROR", body = ErrorBody),
        (status = 401, body = ErrorBody),
        (status = 403, description = "INSUFFICIENT_PERMISSIONS: needs admin:bookings:write", body = ErrorBody),
        (status = 404, description = "BOOKING_NOT_FOUND", body = ErrorBody),
        (status = 409, description = "INVALID_TRANSITION (already a no-show, cancelled, …); IDEMPOTENCY_KEY_IN_FLIGHT", body = ErrorBody),
        (status = 422, description = "IDEMPOTENCY_KEY_REUSED", body = ErrorBody),
    ))]
pub async fn mark_no_show(
    State(state): State<AppState>,
    auth: Staff<can::WriteBookings>,
    Path(id): Path<String>,
    headers: HeaderMap,
    Json(raw): Json<Value>,
) -> ApiResult<Response> {
    idempotency::outside(
        &state,
        &auth.tenant,
        &headers,
        &format!("admin:{}", auth.user.id),
        &format!("/api/v1/admin/bookings/{id}/no-show"),
        raw,
        |req: NoShowDetails| mark(&state, &auth, &id, req),
    )
    .await
}

async fn mark(
    state: &AppState,
    auth: &Staff<can::WriteBookings>,
    id: &str,
    req: NoShowDetails,
) -> ApiResult<NoShowResponse> {
    let booking = parse_id(id).ok_or_else(booking_not_found)?;
    let mark = check(req)?;
    let tenant = auth.tenant.id();
    let b = crate::idempotency::done(
        state
            .store
            .apply_booking_action(
                tenant,
                booking,
                BookingAction::MarkNoShow(mark),
                &auth.actor(),
                state.now(),
                None,
            )
            .await?,
    )?;
    let warnings = kairos_app::fees::after_no_show(&state.app, tenant, b.id, &auth.actor()).await?;
    let record = state
        .store
        .no_show_record(tenant, b.id)
        .await?
        .ok_or_else(|| ApiError::internal("a no-show without its tracking record"))?;
    Ok(NoShowResponse {
        success: true,
        booking_id: b.id.to_string(),
        status: b.status.as_str().to_owned(),
        no_show: (&record).into(),
        warnings,
    })
}

/// A tracking record in the spec's envelope.
#[derive(Debug, Serialize, ToSchema)]
pub struct NoShowEnvelope {
    pub success: bool,
    pub data: NoShowRecordDto,
}

/// The no-show tracking record of a booking (Part B 2.8), with its fee. Needs
/// `admin:bookings:read`.
#[utoipa::path(get, path = "/api/v1/admin/no-show/booking/{bookingId}", tag = "no-shows",
    security(("bearer" = [])),
    params(("bookingId" = uuid::Uuid, Path, description = "Booking id")),
    responses(
        (status = 200, body = NoShowEnvelope),
        (status = 401, body = ErrorBody),
        (status = 403, description = "INSUFFICIENT_PERMISSIONS", body = ErrorBody),
        (status = 404, description = "BOOKING_NOT_FOUND; NO_SHOW_NOT_FOUND (the booking was never marked a no-show)", body = ErrorBody),
    ))]
pub async fn no_show_record(
    State(state): State<AppState>,
    auth: Staff<can::ReadBookings>,
    Path(id): Path<String>,
) -> ApiResult<axum::Json<NoShowEnvelope>> {
    let tenant = auth.tenant.id();
    let booking = parse_id(&id).ok_or_else(booking_not_found)?;
    state
        .store
        .get_booking(tenant, booking)
        .await?
        .ok_or_else(booking_not_found)?;
    let record = state
        .store
        .no_show_record(tenant, booking)
        .await?
        .ok_or(kairos_store::FeeError::NoRecord)?;
    Ok(axum::Json(NoShowEnvelope {
        success: true,
        data: (&record).into(),
    }))
}

/// Query of `GET /admin/no-show/pending`.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct PendingQuery {
    /// 1 to 100, default 20.
    #[param(value_type = Option<u32>, minimum = 1, maximum = 100)]
    pub limit: Option<String>,
    /// From 0 (default 0).
    #[param(value_type = Option<u32>, minimum = 0, maximum = 1000000)]
    pub offset: Option<String>,
    /// Only this site's no-shows, the amounts formatted in its currency and locale.
    #[serde(rename = "siteId")]
    #[param(rename = "siteId", value_type = Option<uuid::Uuid>)]
    pub site_id: Option<String>,
}

/// An open no-show.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PendingItem {
    pub booking_id: String,
    pub customer_id: Option<String>,
    pub customer_name: String,
    pub no_show_time: DateTime<Utc>,
    /// The booking's start.
    pub booking_time: DateTime<Utc>,
    /// Minutes past the start when it was marked.
    pub minutes_past: i32,
    /// Minor units.
    pub calculated_fee: i64,
    /// no_show when a fee was assessed, else null.
    pub fee_type: Option<String>,
    /// The fee's status (pending, owed, …), or none.
    pub status: String,
    /// Who marked it: a staff user's id, or system:no-show detection.
    pub detected_by: String,
    pub detected_at: DateTime<Utc>,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PendingData {
    pub items: Vec<PendingItem>,
    pub total: i64,
    /// The open fees of every open no-show (minor units).
    pub pending_fee_amount: i64,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct PendingMetadata {
    pub total_items: i64,
    pub pending_fee_amount: i64,
    /// In the site's currency and locale (`siteId`), else the tenant's currency.
    #[schema(example = "€45.00")]
    pub pending_fee_amount_formatted: String,
    pub items_returned: usize,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct PendingResponse {
    pub success: bool,
    pub data: PendingData,
    pub metadata: PendingMetadata,
}

/// Open no-shows (not yet resolved), newest first, with their fees: what the desk still
/// has to settle (Part B 4.9). Needs `admin:bookings:read`.
#[utoipa::path(get, path = "/api/v1/admin/no-show/pending", tag = "no-shows",
    security(("bearer" = [])),
    params(PendingQuery),
    responses(
        (status = 200, body = PendingResponse),
        (status = 400, description = "VALIDATION_ERROR", body = ErrorBody),
        (status = 401, body = ErrorBody),
        (status = 403, description = "INSUFFICIENT_PERMISSIONS", body = ErrorBody),
        (status = 404, description = "NOT_FOUND: no such site", body = ErrorBody),
    ))]
pub async fn pending_no_shows(
    State(state): State<AppState>,
    auth: Staff<can::ReadBookings>,
    Query(q): Query<PendingQuery>,
) -> ApiResult<axum::Json<PendingResponse>> {
    let mut errors = FieldErrors::new();
    let limit = crate::extract::page_param(&mut errors, "limit", q.limit.as_deref(), 20, 100);
    let offset = match q.offset.as_deref().map(str::trim).filter(|s| !s.is_empty()) {
        None => 0,
        Some(s) => s
            .parse::<u32>()
            .ok()
            .filter(|n| *n <= 1_000_000)
            .unwrap_or_else(|| {
                errors.add("offset", "must be a whole number from 0 to 1000000");
                0
            }),
    };
    let site = uuid_param(&mut errors, "siteId", q.site_id.as_deref());
    errors.finish().map_err(ApiError::validation)?;
    let tenant = auth.tenant.id();
    let (currency, locale) = match site {
        Some(id) => {
            let s = state
                .store
                .get_site(tenant, id)
                .await?
                .ok_or_else(|| ApiError::not_found("Site"))?;
            (s.currency, s.locale)
        }
        None => (auth.tenant.0.currency.clone(), "en".to_owned()),
    };
    let page = state
        .store
        .pending_no_shows(tenant, site, i64::from(limit), i64::from(offset))
        .await?;
    let (currency, pending_fee_amount) = match page.pending_fees.as_slice() {
        [] => (currency, 0),
        [(c, amount)] => (c.clone(), *amount),
        _ => {
            return Err(ApiError::invalid_field(
                "siteId",
                "is required: the open fees are in several currencies (one list per site)",
            ));
        }
    };
    let currency = Currency::parse(&currency).map_err(ApiError::internal)?;
    let items: Vec<PendingItem> = page
        .items
        .iter()
        .map(|p| PendingItem {
            booking_id: p.record.booking_id.to_string(),
            customer_id: p.customer_id.map(|c| c.to_string()),
            customer_name: p.customer_name.clone(),
            no_show_time: p.record.no_show_time,
            booking_time: p.booking_time,
            minutes_past: p.record.minutes_past_start_time,
            calculated_fee: p.record.fee_calculated,
            fee_type: p.record.fee.as_ref().map(|f| f.kind.as_str().to_owned()),
            status: p
                .record
                .fee
                .as_ref()
                .map_or("none", |f| f.status.as_str())
                .to_owned(),
            detected_by: p.record.marked_by.clone(),
            detected_at: p.record.detected_at,
        })
        .collect();
    let returned = items.len();
    Ok(axum::Json(PendingResponse {
        success: true,
        metadata: PendingMetadata {
            total_items: page.total,
            pending_fee_amount,
            pending_fee_amount_formatted: format_in_locale(pending_fee_amount, currency, &locale),
            items_returned: returned,
        },
        data: PendingData {
            items,
            total: page.total,
            pending_fee_amount,
        },
    }))
}

/// `POST /admin/no-show/booking/{bookingId}/resolve`.
#[derive(Debug, Default, Deserialize, ToSchema)]
pub struct ResolveRequest {
    /// fee_waived or rescheduled. (A late arrival is `mark-arrived`, which corrects the
    /// booking; a charged fee resolves it as fee_charged.)
    #[schema(example = "rescheduled")]
    pub resolution: Option<String>,
    /// Required with fee_waived (why); with rescheduled, say which booking replaces it.
    /// At most 2000 characters.
    pub notes: Option<String>,
}

/// Settle an open no-show without charging: `fee_waived` (its fee waived, with the reason
/// in `notes`) or `rescheduled` (the customer was given another booking: an open fee is
/// cancelled). Needs `admin:bookings:write`.
#[utoipa::path(post, path = "/api/v1/admin/no-show/booking/{bookingId}/resolve", tag = "no-shows",
    security(("bearer" = [])),
    params(("bookingId" = uuid::Uuid, Path, description = "Booking id")),
    request_body = ResolveRequest,
    responses(
        (status = 200, body = NoShowEnvelope),
        (status = 400, description = "VALIDATION_ERROR", body = ErrorBody),
        (status = 401, body = ErrorBody),
        (status = 403, description = "INSUFFICIENT_PERMISSIONS", body = ErrorBody),
        (status = 404, description = "BOOKING_NOT_FOUND; NO_SHOW_NOT_FOUND", body = ErrorBody),
        (status = 409, description = "NO_SHOW_RESOLVED; FEE_NOT_OPEN (a charged fee cannot be waived: refund it)", body = ErrorBody),
    ))]
pub async fn resolve_no_show(
    State(state): State<AppState>,
    auth: Staff<can::WriteBookings>,
    Path(id): Path<String>,
    Json(req): Json<ResolveRequest>,
) -> ApiResult<axum::Json<NoShowEnvelope>> {
    let booking = parse_id(&id).ok_or_else(booking_not_found)?;
    let mut errors = FieldErrors::new();
    let resolution = match req.resolution.as_deref().map(str::trim) {
        Some("fee_waived") => Some(Resolution::FeeWaived),
        Some("rescheduled") => Some(Resolution::Rescheduled),
        _ => {
            errors.add("resolution", "must be fee_waived or rescheduled");
            None
        }
    };
    let notes = crate::bookings::clean(req.notes.as_deref());
    if notes.as_deref().is_some_and(|n| !free_text(n, 2000)) {
        errors.add(
            "notes",
            "must be at most 2000 characters without control characters",
        );
    }
    if resolution == Some(Resolution::FeeWaived) && notes.is_none() {
        errors.add(
            "notes",
            "is required with fee_waived: say why the fee is waived",
        );
    }
    errors.finish().map_err(ApiError::validation)?;
    let resolution =
        resolution.ok_or_else(|| ApiError::invalid_field("resolution", "is required"))?;
    let tenant = auth.tenant.id();
    state
        .store
        .get_booking(tenant, booking)
        .await?
        .ok_or_else(booking_not_found)?;
    let record = state
        .store
        .resolve_no_show(
            tenant,
            booking,
            resolution,
            notes.as_deref(),
            &auth.actor(),
            state.now(),
        )
        .await?;
    Ok(axum::Json(NoShowEnvelope {
        success: true,
        data: (&record).into(),
    }))
}
