//! Processing a no-show's fee (spec Part B 4.9): `POST /admin/no-show/booking/{id}/process-fee`
//! (charge now or later, override the amount, waive with 0 and a reason) and its fee
//! assessment variant `POST /admin/no-shows/process-fee` (snake case, charged at once).

use super::dto::charged;
use crate::bookings::{booking_not_found, clean, free_text};
use crate::error::{ApiError, ApiResult, ErrorBody, code};
use crate::extract::{Json, Staff, can};
use crate::idempotency;
use crate::state::AppState;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use chrono::{DateTime, Utc};
use kairos_domain::FieldErrors;
use kairos_domain::fees::{FeeStatus, MAX_FEE};
use kairos_domain::ids::parse_id;
use kairos_store::BookingFee;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use utoipa::ToSchema;
use uuid::Uuid;

/// `POST /admin/no-show/booking/{bookingId}/process-fee`.
#[derive(Debug, Default, Deserialize, ToSchema)]
pub struct ProcessFeeRequest {
    /// The fee in minor units instead of the policy's (0 waives it, with `reason`).
    #[schema(minimum = 0, maximum = 100_000_000, example = 2500)]
    pub override_fee_amount: Option<i64>,
    /// Charge the card on file now (default true); false assesses the fee to charge later.
    pub charge_immediately: Option<bool>,
    /// Why (required to waive); at most 500 characters.
    pub reason: Option<String>,
    /// At most 2000 characters.
    pub notes: Option<String>,
}

/// What the provider answered to the charge.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ChargeResponse {
    /// The provider's PaymentIntent.
    pub charge_id: String,
    pub charged_amount: i64,
    /// The provider's own fees, when it reports them (null: not reported).
    pub provider_fees: Option<i64>,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProcessedFee {
    /// The fee's id.
    pub fee_assessment_id: String,
    /// What the tenant's policy calculated (minor units).
    pub calculated_fee: i64,
    pub charged_fee: i64,
    #[schema(example = "no_show")]
    pub fee_type: String,
    /// card_on_file when charged to the card the booking was paid with; null otherwise.
    pub payment_method_used: Option<String>,
    pub charge_response: Option<ChargeResponse>,
    /// pending, owed, charged or waived.
    pub fee_status: String,
    pub processed_at: DateTime<Utc>,
    pub processed_by: String,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct ProcessFeeResponse {
    pub success: bool,
    pub data: ProcessedFee,
}

fn check_text(
    errors: &mut FieldErrors,
    field: &str,
    raw: Option<&str>,
    max: usize,
) -> Option<String> {
    let text = clean(raw);
    if text.as_deref().is_some_and(|t| !free_text(t, max)) {
        errors.add(
            field,
            format!("must be at most {max} characters without control characters"),
        );
    }
    text
}

fn check_amount(errors: &mut FieldErrors, field: &str, amount: Option<i64>) {
    if amount.is_some_and(|a| !(0..=MAX_FEE).contains(&a)) {
        errors.add(field, format!("must be 0 to {MAX_FEE} minor units"));
    }
}

/// Charges `fee` (when asked) and says what came of it.
async fn settle(
    state: &AppState,
    auth: &Staff<can::WriteBookings>,
    fee: BookingFee,
    charge_now: bool,
) -> ApiResult<(BookingFee, Option<String>)> {
    if !charge_now {
        return Ok((fee, None));
    }
    let done =
        kairos_app::fees::charge_fee(&state.app, auth.tenant.id(), fee.id, &auth.actor()).await?;
    Ok((done.fee, done.charge_id))
}

fn processed(
    auth: &Staff<can::WriteBookings>,
    calculated: i64,
    fee: &BookingFee,
    charge_id: Option<String>,
    now: DateTime<Utc>,
) -> ProcessedFee {
    ProcessedFee {
        fee_assessment_id: fee.id.to_string(),
        calculated_fee: calculated,
        charged_fee: charged(Some(fee)),
        fee_type: fee.kind.as_str().to_owned(),
        payment_method_used: charge_id.as_ref().map(|_| "card_on_file".to_owned()),
        charge_response: charge_id.map(|id| ChargeResponse {
            charge_id: id,
            charged_amount: fee.amount,
            provider_fees: None,
        }),
        fee_status: fee.status.as_str().to_owned(),
        processed_at: fee.processed_at.unwrap_or(now),
        processed_by: fee
            .processed_by
            .clone()
            .unwrap_or_else(|| auth.user.id.to_string()),
    }
}

/// Process a no-show's fee: charge it now to the card the booking was paid with
/// (`charge_immediately`, default true: an off-session charge), or leave it pending to
/// charge later; `override_fee_amount` sets the amount (minor units) instead of the
/// policy's, and 0 waives it (with `reason`). Without a card on file the fee becomes
/// owed (collect it at the desk). A declined card is 400 PAYMENT_FAILED (details:
/// provider, provider_error_code, retry_allowed, suggested_action) and leaves the fee
/// pending. Needs `admin:bookings:write`.
#[utoipa::path(post, path = "/api/v1/admin/no-show/booking/{bookingId}/process-fee", tag = "no-shows",
    security(("bearer" = [])),
    params(
        ("bookingId" = uuid::Uuid, Path, description = "Booking id"),
        ("Idempotency-Key" = Option<String>, Header, min_length = 1, max_length = 255, description = "Makes retries safe: one charge per key (24 h)"),
    ),
    request_body = ProcessFeeRequest,
    responses(
        (status = 200, body = ProcessFeeResponse),
        (status = 400, description = "VALIDATION_ERROR; PAYMENT_FAILED (the card on file was declined)", body = ErrorBody),
        (status = 401, body = ErrorBody),
        (status = 403, description = "INSUFFICIENT_PERMISSIONS", body = ErrorBody),
        (status = 404, description = "BOOKING_NOT_FOUND; NO_SHOW_NOT_FOUND", body = ErrorBody),
        (status = 409, description = "NO_SHOW_RESOLVED; FEE_NOT_OPEN; IDEMPOTENCY_KEY_IN_FLIGHT", body = ErrorBody),
        (status = 422, description = "IDEMPOTENCY_KEY_REUSED", body = ErrorBody),
        (status = 502, description = "PROVIDER_ERROR: the provider did not answer; try again (the same charge is asked, never a second)", body = ErrorBody),
    ))]
pub async fn process_no_show_fee(
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
        &format!("/api/v1/admin/no-show/booking/{id}/process-fee"),
        raw,
        |req: ProcessFeeRequest| process(&state, &auth, &id, req),
    )
    .await
}

async fn process(
    state: &AppState,
    auth: &Staff<can::WriteBookings>,
    id: &str,
    req: ProcessFeeRequest,
) -> ApiResult<ProcessFeeResponse> {
    let booking = parse_id(id).ok_or_else(booking_not_found)?;
    let mut errors = FieldErrors::new();
    check_amount(&mut errors, "override_fee_amount", req.override_fee_amount);
    let reason = check_text(&mut errors, "reason", req.reason.as_deref(), 500);
    let notes = check_text(&mut errors, "notes", req.notes.as_deref(), 2000);
    let waive = req.override_fee_amount == Some(0);
    if waive && reason.is_none() {
        errors.add(
            "reason",
            "is required to waive the fee (override_fee_amount 0)",
        );
    }
    errors.finish().map_err(ApiError::validation)?;
    let tenant = auth.tenant.id();
    state
        .store
        .get_booking(tenant, booking)
        .await?
        .ok_or_else(booking_not_found)?;
    let now = state.now();
    if waive {
        let record = state
            .store
            .no_show_record(tenant, booking)
            .await?
            .ok_or(kairos_store::FeeError::NoRecord)?;
        let reason = reason.unwrap_or_default();
        let fee = match &record.fee {
            Some(fee) => {
                state
                    .store
                    .waive_fee(tenant, fee.id, &reason, &auth.actor(), now)
                    .await?
            }
            None => {
                return Err(ApiError::invalid_field(
                    "override_fee_amount",
                    "no fee was assessed, so there is nothing to waive: settle the no-show with POST /api/v1/admin/no-show/booking/{bookingId}/resolve",
                ));
            }
        };
        return Ok(ProcessFeeResponse {
            success: true,
            data: processed(auth, record.fee_calculated, &fee, None, now),
        });
    }
    let (record, fee) = state
        .store
        .no_show_fee(
            tenant,
            booking,
            req.override_fee_amount,
            notes.as_deref().or(reason.as_deref()),
            &auth.actor(),
            now,
        )
        .await?;
    let (fee, charge_id) = settle(state, auth, fee, req.charge_immediately.unwrap_or(true)).await?;
    Ok(ProcessFeeResponse {
        success: true,
        data: processed(auth, record.fee_calculated, &fee, charge_id, now),
    })
}

/// `POST /admin/no-shows/process-fee`: the fee assessment variant.
#[derive(Debug, Default, Deserialize, ToSchema)]
pub struct AssessFeeRequest {
    /// Required.
    #[schema(value_type = Option<uuid::Uuid>)]
    pub booking_id: Option<String>,
    /// When given, the tenant of the request (`x-tenant-id`).
    pub tenant_id: Option<String>,
    /// When given, the booking's customer account.
    #[schema(value_type = Option<uuid::Uuid>)]
    pub customer_id: Option<String>,
    /// Who assessed it, as the venue names them (kept with the fee); the signed-in user
    /// is recorded as the actor. At most 100 characters.
    pub assessed_by: Option<String>,
    /// At most 500 characters.
    pub assessment_reason: Option<String>,
    /// Minor units instead of the policy's fee.
    #[schema(minimum = 1, maximum = 100_000_000)]
    pub override_fee_amount: Option<i64>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct AssessmentCharge {
    pub charge_id: String,
    pub charged_amount: i64,
    pub provider_fees: Option<i64>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct AssessmentMetadata {
    /// The tenant's policy, in words.
    pub policy_applied: String,
    pub calculation_details: Value,
    /// Charge attempts of this fee so far.
    pub payment_attempts: i32,
    pub assessment_timestamp: DateTime<Utc>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct AssessFeeResponse {
    pub success: bool,
    pub fee_assessment_id: String,
    pub calculated_fee_amount: i64,
    pub charged_fee_amount: i64,
    pub fee_type: String,
    pub payment_method_used: Option<String>,
    pub charge_response: Option<AssessmentCharge>,
    /// pending, owed, charged.
    pub fee_status: String,
    pub metadata: AssessmentMetadata,
}

/// Assess and charge a no-show's fee (the fee assessment form of `process-fee`): the
/// policy's fee or `override_fee_amount`, charged at once to the card on file (owed
/// without one). `tenant_id` and `customer_id`, when given, must be the request's tenant
/// and the booking's customer. Needs `admin:bookings:write`.
#[utoipa::path(post, path = "/api/v1/admin/no-shows/process-fee", tag = "no-shows",
    security(("bearer" = [])),
    params(
        ("Idempotency-Key" = Option<String>, Header, min_length = 1, max_length = 255, description = "Makes retries safe: one charge per key (24 h)"),
    ),
    request_body = AssessFeeRequest,
    responses(
        (status = 200, body = AssessFeeResponse),
        (status = 400, description = "VALIDATION_ERROR; PAYMENT_FAILED", body = ErrorBody),
        (status = 401, body = ErrorBody),
        (status = 403, description = "INSUFFICIENT_PERMISSIONS; TENANT_MISMATCH (tenant_id is another tenant)", body = ErrorBody),
        (status = 404, description = "BOOKING_NOT_FOUND; NO_SHOW_NOT_FOUND", body = ErrorBody),
        (status = 409, description = "NO_SHOW_RESOLVED; FEE_NOT_OPEN; IDEMPOTENCY_KEY_IN_FLIGHT", body = ErrorBody),
        (status = 422, description = "IDEMPOTENCY_KEY_REUSED", body = ErrorBody),
        (status = 502, description = "PROVIDER_ERROR", body = ErrorBody),
    ))]
pub async fn assess_no_show_fee(
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
        "/api/v1/admin/no-shows/process-fee",
        raw,
        |req: AssessFeeRequest| assess(&state, &auth, req),
    )
    .await
}

async fn assess(
    state: &AppState,
    auth: &Staff<can::WriteBookings>,
    req: AssessFeeRequest,
) -> ApiResult<AssessFeeResponse> {
    let mut errors = FieldErrors::new();
    let booking = match req.booking_id.as_deref().map(str::trim) {
        None | Some("") => {
            errors.add("booking_id", "is required");
            None
        }
        Some(raw) => {
            let id = raw.parse::<Uuid>().ok();
            if id.is_none() {
                errors.add("booking_id", "must be a UUID");
            }
            id
        }
    };
    let customer = match req.customer_id.as_deref().map(str::trim) {
        None | Some("") => None,
        Some(raw) => {
            let id = raw.parse::<Uuid>().ok();
            if id.is_none() {
                errors.add("customer_id", "must be a UUID");
            }
            id
        }
    };
    if req
        .override_fee_amount
        .is_some_and(|a| !(1..=MAX_FEE).contains(&a))
    {
        errors.add(
            "override_fee_amount",
            format!("must be 1 to {MAX_FEE} minor units"),
        );
    }
    let assessed_by = clean(req.assessed_by.as_deref());
    if assessed_by
        .as_deref()
        .is_some_and(|a| !crate::bookings::short_text(a, 100))
    {
        errors.add("assessed_by", "must be at most 100 characters, one line");
    }
    let reason = check_text(
        &mut errors,
        "assessment_reason",
        req.assessment_reason.as_deref(),
        500,
    );
    errors.finish().map_err(ApiError::validation)?;
    if let Some(t) = clean(req.tenant_id.as_deref())
        && t != auth.tenant.id().as_str()
    {
        return Err(ApiError::new(
            StatusCode::FORBIDDEN,
            code::TENANT_MISMATCH,
            "tenant_id names another tenant than x-tenant-id",
        ));
    }
    let booking = booking.ok_or_else(booking_not_found)?;
    let tenant = auth.tenant.id();
    let b = state
        .store
        .get_booking(tenant, booking)
        .await?
        .ok_or_else(booking_not_found)?;
    if customer.is_some() && customer != b.customer.id {
        return Err(ApiError::invalid_field(
            "customer_id",
            "is not the booking's customer account",
        ));
    }
    let notes = match (&assessed_by, &reason) {
        (Some(by), Some(r)) => Some(format!("{r} (assessed by {by})")),
        (Some(by), None) => Some(format!("assessed by {by}")),
        (None, r) => r.clone(),
    };
    let now = state.now();
    let (record, fee) = state
        .store
        .no_show_fee(
            tenant,
            booking,
            req.override_fee_amount,
            notes.as_deref(),
            &auth.actor(),
            now,
        )
        .await?;
    let policy = state.store.no_show_policy(tenant).await?.policy;
    let (fee, charge_id) = settle(state, auth, fee, true).await?;
    let (fee_type, flat, percentage) = policy.rule.parts();
    Ok(AssessFeeResponse {
        success: true,
        fee_assessment_id: fee.id.to_string(),
        calculated_fee_amount: record.fee_calculated,
        charged_fee_amount: charged(Some(&fee)),
        fee_type: fee.kind.as_str().to_owned(),
        payment_method_used: charge_id.as_ref().map(|_| "card_on_file".to_owned()),
        charge_response: charge_id.map(|id| AssessmentCharge {
            charge_id: id,
            charged_amount: fee.amount,
            provider_fees: None,
        }),
        fee_status: fee.status.as_str().to_owned(),
        metadata: AssessmentMetadata {
            policy_applied: policy.describe(),
            calculation_details: json!({
                "booking_total": b.price.total,
                "policy_enabled": policy.enabled,
                "policy_fee_type": fee_type.as_str(),
                "policy_flat_fee": flat,
                "policy_percentage": percentage,
                "override_fee_amount": req.override_fee_amount,
                "fee_amount": fee.amount,
                "owed": fee.status == FeeStatus::Owed,
            }),
            payment_attempts: fee.charge_attempts,
            assessment_timestamp: now,
        },
    })
}
