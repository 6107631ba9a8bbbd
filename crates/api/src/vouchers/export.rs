//! `GET /api/v1/admin/vouchers/export` (spec Part A 4.9, camelCase): JSON pages or CSV.
//!
//! CSV columns, in this order (the import reads the same layout): code, voucherType,
//! originalValue, currentBalance, currency, isActive, isRedeemed, expiresAt, usageCount,
//! usageLimit, customerEmail, customerId, issuedAt, issuedBy, id. Empty cell: null.

use super::admin::voucher_dto;
use crate::error::{ApiError, ApiResult, ErrorBody};
use crate::export::{DEFAULT_PAGE_SIZE, Format, MAX_PAGE_SIZE, csv_response};
use crate::extract::{Query, Staff, bool_param, can, page_param, range_bound};
use crate::openapi::schemas::VoucherTypeSchema;
use crate::state::AppState;
use axum::extract::State;
use axum::response::{IntoResponse, Response};
use chrono::{DateTime, Utc};
use kairos_domain::FieldErrors;
use kairos_domain::tenancy::Currency;
use kairos_domain::vouchers::VoucherType;
use kairos_store::{Voucher, VoucherFilter};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

/// The CSV header row.
pub const CSV_COLUMNS: [&str; 15] = [
    "code",
    "voucherType",
    "originalValue",
    "currentBalance",
    "currency",
    "isActive",
    "isRedeemed",
    "expiresAt",
    "usageCount",
    "usageLimit",
    "customerEmail",
    "customerId",
    "issuedAt",
    "issuedBy",
    "id",
];

/// A voucher as exported.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct VoucherExport {
    pub id: String,
    pub code: String,
    #[schema(value_type = VoucherTypeSchema)]
    pub voucher_type: String,
    pub original_value: f64,
    pub current_balance: f64,
    pub currency: String,
    pub is_active: bool,
    pub is_redeemed: bool,
    pub expires_at: Option<DateTime<Utc>>,
    pub usage_count: i32,
    pub usage_limit: Option<i32>,
    pub customer_email: Option<String>,
    pub customer_id: Option<String>,
    pub issued_at: DateTime<Utc>,
    /// The staff member (or system) that issued it.
    pub issued_by: Option<String>,
}

fn export_row(v: Voucher, currency: Currency) -> VoucherExport {
    let customer_id = v.customer_id.map(|id| id.to_string());
    let issued_by = v.issued_by.clone();
    let d = voucher_dto(v, currency);
    VoucherExport {
        id: d.id,
        code: d.code,
        voucher_type: d.voucher_type,
        original_value: d.original_value,
        current_balance: d.current_balance,
        currency: d.currency,
        is_active: d.is_active,
        is_redeemed: d.is_redeemed,
        expires_at: d.expires_at,
        usage_count: d.usage_count,
        usage_limit: d.usage_limit,
        customer_email: d.customer_email,
        customer_id,
        issued_at: d.issued_at,
        issued_by,
    }
}

fn opt<T: ToString>(v: Option<T>) -> String {
    v.map(|v| v.to_string()).unwrap_or_default()
}

fn csv_row(e: VoucherExport) -> Vec<String> {
    vec![
        e.code,
        e.voucher_type,
        e.original_value.to_string(),
        e.current_balance.to_string(),
        e.currency,
        e.is_active.to_string(),
        e.is_redeemed.to_string(),
        opt(e.expires_at.map(|t| t.to_rfc3339())),
        e.usage_count.to_string(),
        opt(e.usage_limit),
        opt(e.customer_email),
        opt(e.customer_id),
        e.issued_at.to_rfc3339(),
        opt(e.issued_by),
        e.id,
    ]
}

/// Query of the voucher export (camelCase).
#[derive(Debug, Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query, rename_all = "camelCase")]
pub struct ExportQuery {
    /// json (default) or csv.
    #[param(value_type = Option<crate::export::ExportFormatSchema>, inline)]
    pub format: Option<String>,
    #[param(value_type = Option<bool>)]
    pub is_active: Option<String>,
    #[param(value_type = Option<bool>)]
    pub is_redeemed: Option<String>,
    #[param(value_type = Option<VoucherTypeSchema>, inline)]
    pub voucher_type: Option<String>,
    /// Exactly (any case).
    #[param(max_length = 254)]
    pub customer_email: Option<String>,
    #[param(value_type = Option<uuid::Uuid>)]
    pub customer_id: Option<String>,
    /// Part of the code, any case.
    #[param(max_length = 50)]
    pub search: Option<String>,
    /// Issued after this (a date or a timestamp).
    #[param(max_length = 40)]
    pub issued_after: Option<String>,
    /// Issued before this (a date or a timestamp).
    #[param(max_length = 40)]
    pub issued_before: Option<String>,
    /// JSON only; default 1.
    #[param(value_type = Option<u32>, minimum = 1, maximum = 1000000)]
    pub page: Option<String>,
    /// JSON only; default 100, at most 1000.
    #[param(value_type = Option<u32>, minimum = 1, maximum = 1000)]
    pub page_size: Option<String>,
}

/// A JSON export page.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct VoucherExportPage {
    pub data: Vec<VoucherExport>,
    pub total: u64,
    pub page: u32,
    pub page_size: u32,
    pub total_pages: u64,
    pub generated_at: DateTime<Utc>,
}

/// Export vouchers, newest first: a JSON page, or every matching voucher as CSV
/// (`format=csv`). Needs `admin:read`.
#[utoipa::path(get, path = "/api/v1/admin/vouchers/export", tag = "vouchers", security(("bearer" = [])),
    params(ExportQuery),
    responses((status = 200, description = "A JSON page, or a CSV attachment (text/csv)",
            content((VoucherExportPage = "application/json"), (String = "text/csv"))),
        (status = 400, description = "VALIDATION_ERROR naming each bad parameter", body = ErrorBody),
        (status = 403, description = "INSUFFICIENT_PERMISSIONS", body = ErrorBody)))]
pub async fn export_vouchers(
    State(state): State<AppState>,
    auth: Staff<can::Read>,
    Query(q): Query<ExportQuery>,
) -> ApiResult<Response> {
    let currency = Currency::parse(&auth.tenant.0.currency).map_err(ApiError::internal)?;
    let mut errors = FieldErrors::new();
    let format = Format::parse(&mut errors, q.format.as_deref());
    let flag = |errors: &mut FieldErrors, field: &str, raw: Option<&str>| {
        raw.filter(|s| !s.trim().is_empty())
            .map(|raw| bool_param(errors, field, Some(raw), true))
    };
    let is_active = flag(&mut errors, "isActive", q.is_active.as_deref());
    let is_redeemed = flag(&mut errors, "isRedeemed", q.is_redeemed.as_deref());
    let voucher_type = match q.voucher_type.as_deref().filter(|s| !s.is_empty()) {
        None => None,
        Some(raw) => {
            let parsed = VoucherType::parse(raw);
            if parsed.is_none() {
                errors.add("voucherType", format!("must be {}", VoucherType::choices()));
            }
            parsed
        }
    };
    let customer_email = q
        .customer_email
        .map(|s| s.trim().to_owned())
        .filter(|s| !s.is_empty());
    if customer_email
        .as_ref()
        .is_some_and(|s| s.chars().count() > 254)
    {
        errors.add("customerEmail", "must be at most 254 characters");
    }
    let customer_id = match q.customer_id.as_deref().filter(|s| !s.trim().is_empty()) {
        None => None,
        Some(raw) => {
            let id = kairos_domain::ids::parse_id(raw);
            if id.is_none() {
                errors.add("customerId", "is not an id");
            }
            id
        }
    };
    let search = q
        .search
        .map(|s| s.trim().to_owned())
        .filter(|s| !s.is_empty());
    if search.as_ref().is_some_and(|s| s.chars().count() > 50) {
        errors.add("search", "must be at most 50 characters");
    }
    let issued_after = range_bound(&mut errors, "issuedAfter", q.issued_after.as_deref(), false);
    let issued_before = range_bound(
        &mut errors,
        "issuedBefore",
        q.issued_before.as_deref(),
        false,
    );
    let page = page_param(&mut errors, "page", q.page.as_deref(), 1, 1_000_000);
    let page_size = page_param(
        &mut errors,
        "pageSize",
        q.page_size.as_deref(),
        DEFAULT_PAGE_SIZE,
        MAX_PAGE_SIZE,
    );
    errors.finish().map_err(ApiError::validation)?;
    let now = state.now();
    let filter = |page: u32, per_page: u32| VoucherFilter {
        voucher_type,
        is_active,
        search: search.clone(),
        customer_email: customer_email.clone(),
        customer_id,
        is_redeemed,
        issued_after,
        issued_before,
        page,
        per_page,
    };
    match format {
        Format::Json => {
            let (items, total) = state
                .store
                .list_vouchers(auth.tenant.id(), filter(page, page_size))
                .await?;
            Ok(axum::Json(VoucherExportPage {
                data: items.into_iter().map(|v| export_row(v, currency)).collect(),
                total,
                page,
                page_size,
                total_pages: total.div_ceil(u64::from(page_size)),
                generated_at: now,
            })
            .into_response())
        }
        Format::Csv => {
            let mut rows = Vec::new();
            for page in 1.. {
                let (items, total) = state
                    .store
                    .list_vouchers(auth.tenant.id(), filter(page, MAX_PAGE_SIZE))
                    .await?;
                let done = items.is_empty() || u64::from(page) * u64::from(MAX_PAGE_SIZE) >= total;
                rows.extend(items.into_iter().map(|v| csv_row(export_row(v, currency))));
                if done {
                    break;
                }
            }
            csv_response(
                &format!("vouchers-{}.csv", now.format("%Y%m%d")),
                &CSV_COLUMNS,
                rows,
            )
        }
    }
}
