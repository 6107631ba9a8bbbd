//! `/api/v1/admin/vouchers`: issue, list, read (with the ledger) and deactivate.
//!
//! Amounts are in major units of the tenant's currency.

use crate::error::{ApiError, ApiResult, ErrorBody};
use crate::extract::{Json, Query, Staff, can, page_param, path_id, timestamp_param};
use crate::openapi::schemas::VoucherTypeSchema;
use crate::state::AppState;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use chrono::{DateTime, Utc};
use kairos_domain::FieldErrors;
use kairos_domain::customers::Email;
use kairos_domain::money::{from_major, to_major};
use kairos_domain::tenancy::Currency;
use kairos_domain::vouchers::VoucherType;
use kairos_store::{NewVoucher, Voucher, VoucherFilter, VoucherTransaction};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

/// A voucher (spec Part A 2.6).
#[derive(Debug, Serialize, ToSchema)]
pub struct VoucherDto {
    pub id: String,
    pub code: String,
    #[serde(rename = "type")]
    #[schema(value_type = VoucherTypeSchema)]
    pub voucher_type: String,
    pub original_value: f64,
    pub current_balance: f64,
    pub currency: String,
    pub is_active: bool,
    /// Used up: no balance left, or every use of its limit taken.
    pub is_redeemed: bool,
    /// null: never.
    pub expires_at: Option<DateTime<Utc>>,
    pub usage_count: i32,
    /// null: unlimited.
    pub usage_limit: Option<i32>,
    /// Who it was issued to (not shown by the public balance).
    pub customer_email: Option<String>,
    pub issued_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

pub fn voucher_dto(v: Voucher, currency: Currency) -> VoucherDto {
    VoucherDto {
        id: v.id.to_string(),
        is_redeemed: v.is_redeemed(),
        code: v.code,
        voucher_type: v.voucher_type.as_str().to_owned(),
        original_value: to_major(v.original_value, currency),
        current_balance: to_major(v.current_balance, currency),
        currency: currency.code().to_owned(),
        is_active: v.is_active,
        expires_at: v.expires_at,
        usage_count: v.usage_count,
        usage_limit: v.usage_limit,
        customer_email: v.customer_email,
        issued_at: v.issued_at,
        updated_at: v.updated_at,
    }
}

/// A voucher to issue. `type` and `original_value` are required.
#[derive(Debug, Default, Deserialize, ToSchema)]
pub struct VoucherInput {
    /// Letters, digits and `-`; generated when left out (`GIFT-XXXX-XXXX` for gift cards,
    /// `VCHR-XXXX-XXXX` otherwise). Unique in the tenant whatever its case.
    #[schema(
        min_length = 1,
        max_length = 50,
        pattern = "^[A-Za-z0-9-]{1,50}$",
        example = "SORRY-2026"
    )]
    pub code: Option<String>,
    #[serde(rename = "type")]
    #[schema(value_type = VoucherTypeSchema, required = true)]
    pub voucher_type: Option<String>,
    /// Above 0.
    #[schema(
        exclusive_minimum = 0,
        maximum = 10000000000000.0,
        multiple_of = 0.01,
        required = true,
        example = 50
    )]
    pub original_value: Option<f64>,
    /// null: never.
    #[schema(value_type = Option<DateTime<Utc>>)]
    pub expires_at: Option<String>,
    /// Uses allowed; single_use vouchers always have 1. null: unlimited.
    #[schema(minimum = 1, maximum = 100000000)]
    pub usage_limit: Option<i64>,
    /// Who it is for.
    #[schema(format = Email, max_length = 254)]
    pub customer_email: Option<String>,
    /// Default true.
    pub is_active: Option<bool>,
}

pub(super) fn tenant_currency(auth: &Staff<can::Write>) -> ApiResult<Currency> {
    Currency::parse(&auth.tenant.0.currency).map_err(ApiError::internal)
}

pub(super) fn voucher_fields(
    input: VoucherInput,
    currency: Currency,
    now: DateTime<Utc>,
) -> Result<NewVoucher, FieldErrors> {
    let mut errors = FieldErrors::new();
    let code = input.code.map(|c| c.trim().to_owned());
    if let Some(c) = &code {
        let ok = (1..=50).contains(&c.len())
            && c.chars().all(|ch| ch.is_ascii_alphanumeric() || ch == '-');
        if !ok {
            errors.add("code", "must be 1 to 50 letters, digits or '-'");
        }
    }
    let voucher_type = match input.voucher_type.as_deref() {
        None => {
            errors.add("type", "is required");
            None
        }
        Some(raw) => {
            let parsed = VoucherType::parse(raw);
            if parsed.is_none() {
                errors.add("type", format!("must be {}", VoucherType::choices()));
            }
            parsed
        }
    };
    let original_value = match input.original_value {
        None => {
            errors.add("original_value", "is required");
            None
        }
        Some(v) => match from_major(v, currency) {
            Ok(0) => {
                errors.add("original_value", "must be above 0");
                None
            }
            Ok(minor) => Some(minor),
            Err(e) => {
                errors.add("original_value", e.to_string());
                None
            }
        },
    };
    let expires_at = match input.expires_at.as_deref() {
        None => None,
        Some(raw) => match timestamp_param(&mut errors, "expires_at", raw) {
            Some(t) if t > now => Some(t),
            Some(_) => {
                errors.add("expires_at", "must be in the future");
                None
            }
            None => None,
        },
    };
    let usage_limit = match input.usage_limit {
        None => None,
        Some(n) if (1..=100_000_000).contains(&n) => i32::try_from(n).ok(),
        Some(_) => {
            errors.add("usage_limit", "must be a whole number from 1 to 100000000");
            None
        }
    };
    if voucher_type == Some(VoucherType::SingleUse) && usage_limit.is_some_and(|n| n != 1) {
        errors.add("usage_limit", "is always 1 for a single_use voucher");
    }
    let customer_email = match input.customer_email.as_deref() {
        None => None,
        Some(raw) => match Email::parse(raw) {
            Ok(e) => Some(e.into_string()),
            Err(message) => {
                errors.add("customer_email", message);
                None
            }
        },
    };
    let (Some(voucher_type), Some(original_value)) = (voucher_type, original_value) else {
        return Err(errors);
    };
    errors.finish()?;
    Ok(NewVoucher {
        code,
        voucher_type,
        original_value,
        usage_limit: usage_limit.or(voucher_type.default_usage_limit()),
        expires_at,
        customer_email,
        is_active: input.is_active.unwrap_or(true),
    })
}

/// `{success, voucher}`.
#[derive(Debug, Serialize, ToSchema)]
pub struct VoucherResponse {
    pub success: bool,
    pub voucher: VoucherDto,
}

/// Issue a voucher. Needs `admin:write`.
#[utoipa::path(post, path = "/api/v1/admin/vouchers", tag = "vouchers", security(("bearer" = [])),
    request_body = VoucherInput,
    responses((status = 200, body = VoucherResponse),
        (status = 400, description = "VALIDATION_ERROR naming each bad field", body = ErrorBody),
        (status = 403, description = "INSUFFICIENT_PERMISSIONS", body = ErrorBody),
        (status = 409, description = "CONFLICT: the code is taken (codes ignore case); details.code", body = ErrorBody)))]
pub async fn create_voucher(
    State(state): State<AppState>,
    auth: Staff<can::Write>,
    Json(input): Json<VoucherInput>,
) -> ApiResult<(StatusCode, axum::Json<VoucherResponse>)> {
    let currency = tenant_currency(&auth)?;
    let new = voucher_fields(input, currency, state.now()).map_err(ApiError::validation)?;
    let voucher = state
        .store
        .create_voucher(auth.tenant.id(), new, &auth.actor(), state.now())
        .await?;
    Ok((
        StatusCode::OK,
        axum::Json(VoucherResponse {
            success: true,
            voucher: voucher_dto(voucher, currency),
        }),
    ))
}

/// Query of `GET /admin/vouchers`.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ListQuery {
    #[serde(rename = "type")]
    #[param(rename = "type", value_type = Option<VoucherTypeSchema>, inline)]
    pub voucher_type: Option<String>,
    #[param(value_type = Option<bool>)]
    pub is_active: Option<String>,
    /// Part of the code, any case.
    #[param(max_length = 50)]
    pub search: Option<String>,
    /// The customer's email (any case).
    #[param(max_length = 254)]
    pub customer_email: Option<String>,
    /// From 1 (default 1).
    #[param(value_type = Option<u32>, minimum = 1, maximum = 1000000)]
    pub page: Option<String>,
    /// 1 to 100, default 50.
    #[param(value_type = Option<u32>, minimum = 1, maximum = 100)]
    pub per_page: Option<String>,
}

/// A page of vouchers.
#[derive(Debug, Serialize, ToSchema)]
pub struct VoucherList {
    pub vouchers: Vec<VoucherDto>,
    pub total: u64,
    pub page: u32,
    pub per_page: u32,
    pub total_pages: u64,
}

/// List vouchers, newest first. Needs `admin:write`.
#[utoipa::path(get, path = "/api/v1/admin/vouchers", tag = "vouchers", security(("bearer" = [])),
    params(ListQuery),
    responses((status = 200, body = VoucherList), (status = 400, description = "VALIDATION_ERROR", body = ErrorBody),
        (status = 403, description = "INSUFFICIENT_PERMISSIONS", body = ErrorBody)))]
pub async fn list_vouchers(
    State(state): State<AppState>,
    auth: Staff<can::Write>,
    Query(q): Query<ListQuery>,
) -> ApiResult<axum::Json<VoucherList>> {
    let currency = tenant_currency(&auth)?;
    let mut errors = FieldErrors::new();
    let voucher_type = match q.voucher_type.as_deref().filter(|s| !s.is_empty()) {
        None => None,
        Some(raw) => {
            let parsed = VoucherType::parse(raw);
            if parsed.is_none() {
                errors.add("type", format!("must be {}", VoucherType::choices()));
            }
            parsed
        }
    };
    let is_active = q
        .is_active
        .as_deref()
        .filter(|s| !s.is_empty())
        .map(|raw| crate::extract::bool_param(&mut errors, "is_active", Some(raw), true));
    let search = q
        .search
        .map(|s| s.trim().to_owned())
        .filter(|s| !s.is_empty());
    if search.as_ref().is_some_and(|s| s.chars().count() > 50) {
        errors.add("search", "must be at most 50 characters");
    }
    let customer_email = q
        .customer_email
        .map(|s| s.trim().to_owned())
        .filter(|s| !s.is_empty());
    if customer_email
        .as_ref()
        .is_some_and(|s| s.chars().count() > 254)
    {
        errors.add("customer_email", "must be at most 254 characters");
    }
    let page = page_param(&mut errors, "page", q.page.as_deref(), 1, 1_000_000);
    let per_page = page_param(&mut errors, "per_page", q.per_page.as_deref(), 50, 100);
    errors.finish().map_err(ApiError::validation)?;
    let (items, total) = state
        .store
        .list_vouchers(
            auth.tenant.id(),
            VoucherFilter {
                voucher_type,
                is_active,
                search,
                customer_email,
                customer_id: None,
                is_redeemed: None,
                issued_after: None,
                issued_before: None,
                page,
                per_page,
            },
        )
        .await?;
    Ok(axum::Json(VoucherList {
        vouchers: items
            .into_iter()
            .map(|v| voucher_dto(v, currency))
            .collect(),
        total,
        page,
        per_page,
        total_pages: total.div_ceil(u64::from(per_page)),
    }))
}

/// One ledger entry.
#[derive(Debug, Serialize, ToSchema)]
pub struct TransactionDto {
    pub id: String,
    /// issue, redeem or reverse.
    pub kind: String,
    /// Signed: a redemption is negative.
    pub amount: f64,
    pub balance_after: f64,
    pub booking_id: Option<String>,
    pub created_at: DateTime<Utc>,
}

fn transaction_dto(t: VoucherTransaction, currency: Currency) -> TransactionDto {
    TransactionDto {
        id: t.id.to_string(),
        kind: t.kind.as_str().to_owned(),
        amount: to_major(t.amount, currency),
        balance_after: to_major(t.balance_after, currency),
        booking_id: t.booking_id.map(|b| b.to_string()),
        created_at: t.created_at,
    }
}

/// A voucher with its ledger.
#[derive(Debug, Serialize, ToSchema)]
pub struct VoucherDetails {
    pub voucher: VoucherDto,
    /// Oldest first; the balance is the sum of the amounts.
    pub transactions: Vec<TransactionDto>,
}

/// Read a voucher and its ledger. Needs `admin:write`.
#[utoipa::path(get, path = "/api/v1/admin/vouchers/{id}", tag = "vouchers", security(("bearer" = [])),
    params(("id" = uuid::Uuid, Path, description = "Voucher id")),
    responses((status = 200, body = VoucherDetails), (status = 404, description = "NOT_FOUND", body = ErrorBody)))]
pub async fn get_voucher(
    State(state): State<AppState>,
    auth: Staff<can::Write>,
    Path(id): Path<String>,
) -> ApiResult<axum::Json<VoucherDetails>> {
    let currency = tenant_currency(&auth)?;
    let id = path_id(&id, "Voucher")?;
    let voucher = state.store.voucher(auth.tenant.id(), id).await?;
    let transactions = state
        .store
        .voucher_transactions(auth.tenant.id(), id)
        .await?
        .into_iter()
        .map(|t| transaction_dto(t, currency))
        .collect();
    Ok(axum::Json(VoucherDetails {
        voucher: voucher_dto(voucher, currency),
        transactions,
    }))
}

/// Deactivate a voucher: it can no longer be applied; its balance and ledger stay.
/// Needs `admin:write`.
#[utoipa::path(delete, path = "/api/v1/admin/vouchers/{id}", tag = "vouchers", security(("bearer" = [])),
    params(("id" = uuid::Uuid, Path, description = "Voucher id")),
    responses((status = 200, body = VoucherResponse), (status = 404, description = "NOT_FOUND", body = ErrorBody)))]
pub async fn deactivate_voucher(
    State(state): State<AppState>,
    auth: Staff<can::Write>,
    Path(id): Path<String>,
) -> ApiResult<axum::Json<VoucherResponse>> {
    let currency = tenant_currency(&auth)?;
    let id = path_id(&id, "Voucher")?;
    let voucher = state
        .store
        .deactivate_voucher(auth.tenant.id(), id, &auth.actor(), state.now())
        .await?;
    Ok(axum::Json(VoucherResponse {
        success: true,
        voucher: voucher_dto(voucher, currency),
    }))
}
