//! `GET /api/v1/admin/promotions/export` (spec Part A 4.9, camelCase): JSON pages or CSV.
//!
//! CSV columns, in this order (the import reads the same layout): code, name,
//! description, promotionType, discountValue, buyQuantity, bundleSize, minSpendAmount,
//! maxDiscountAmount, currency, startsAt, expiresAt, isStackable, usageLimit,
//! perCustomerLimit, currentUsageCount, isActive, isPublic, scopeType, applicableSites,
//! applicableProducts (ids joined with `;`), id, createdAt, updatedAt. Empty cell: null.

use super::admin::promotion_dto;
use crate::error::{ApiError, ApiResult, ErrorBody};
use crate::export::{DEFAULT_PAGE_SIZE, Format, MAX_PAGE_SIZE, csv_response};
use crate::extract::{Query, Staff, bool_param, can, page_param, range_bound};
use crate::openapi::schemas::PromotionTypeSchema;
use crate::state::AppState;
use axum::extract::State;
use axum::response::{IntoResponse, Response};
use chrono::{DateTime, Utc};
use kairos_domain::FieldErrors;
use kairos_domain::promotions::{PromotionStatus, PromotionType};
use kairos_domain::tenancy::Currency;
use kairos_store::{Promotion, PromotionFilter, PromotionScope};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

/// The CSV header row.
pub const CSV_COLUMNS: [&str; 24] = [
    "code",
    "name",
    "description",
    "promotionType",
    "discountValue",
    "buyQuantity",
    "bundleSize",
    "minSpendAmount",
    "maxDiscountAmount",
    "currency",
    "startsAt",
    "expiresAt",
    "isStackable",
    "usageLimit",
    "perCustomerLimit",
    "currentUsageCount",
    "isActive",
    "isPublic",
    "scopeType",
    "applicableSites",
    "applicableProducts",
    "id",
    "createdAt",
    "updatedAt",
];

/// A promotion as exported.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PromotionExport {
    pub id: String,
    pub code: String,
    pub name: String,
    pub description: String,
    #[schema(value_type = PromotionTypeSchema)]
    pub promotion_type: String,
    pub discount_value: f64,
    pub buy_quantity: Option<u32>,
    pub bundle_size: Option<u32>,
    pub min_spend_amount: Option<f64>,
    pub max_discount_amount: Option<f64>,
    pub currency: String,
    pub starts_at: DateTime<Utc>,
    pub expires_at: Option<DateTime<Utc>>,
    pub is_stackable: bool,
    pub usage_limit: Option<i32>,
    pub per_customer_limit: Option<i32>,
    pub current_usage_count: i32,
    pub is_active: bool,
    pub is_public: bool,
    /// product (it names products), site (it names sites only) or booking (neither).
    #[schema(example = "booking")]
    pub scope_type: String,
    pub applicable_sites: Vec<String>,
    pub applicable_products: Vec<String>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

fn export_row(p: Promotion, currency: Currency) -> PromotionExport {
    let scope = PromotionScope::of(&p.settings).as_str().to_owned();
    let d = promotion_dto(p, "", currency);
    PromotionExport {
        id: d.id,
        code: d.code,
        name: d.name,
        description: d.description,
        promotion_type: d.promotion_type,
        discount_value: d.discount_value,
        buy_quantity: d.buy_quantity,
        bundle_size: d.bundle_size,
        min_spend_amount: d.min_spend_amount,
        max_discount_amount: d.max_discount_amount,
        currency: d.currency,
        starts_at: d.starts_at,
        expires_at: d.expires_at,
        is_stackable: d.is_stackable,
        usage_limit: d.usage_limit,
        per_customer_limit: d.per_customer_limit,
        current_usage_count: d.usage_count,
        is_active: d.is_active,
        is_public: d.is_public,
        scope_type: scope,
        applicable_sites: d.applicable_sites,
        applicable_products: d.applicable_products,
        created_at: d.created_at,
        updated_at: d.updated_at,
    }
}

fn opt<T: ToString>(v: Option<T>) -> String {
    v.map(|v| v.to_string()).unwrap_or_default()
}

fn csv_row(e: PromotionExport) -> Vec<String> {
    vec![
        e.code,
        e.name,
        e.description,
        e.promotion_type,
        e.discount_value.to_string(),
        opt(e.buy_quantity),
        opt(e.bundle_size),
        opt(e.min_spend_amount),
        opt(e.max_discount_amount),
        e.currency,
        e.starts_at.to_rfc3339(),
        opt(e.expires_at.map(|t| t.to_rfc3339())),
        e.is_stackable.to_string(),
        opt(e.usage_limit),
        opt(e.per_customer_limit),
        e.current_usage_count.to_string(),
        e.is_active.to_string(),
        e.is_public.to_string(),
        e.scope_type,
        e.applicable_sites.join(";"),
        e.applicable_products.join(";"),
        e.id,
        e.created_at.to_rfc3339(),
        e.updated_at.to_rfc3339(),
    ]
}

/// Query of the promotion export (camelCase).
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
    pub is_public: Option<String>,
    #[param(value_type = Option<PromotionTypeSchema>, inline)]
    pub promotion_type: Option<String>,
    /// site, product or booking.
    #[param(value_type = Option<ScopeTypeExportSchema>, inline)]
    pub scope_type: Option<String>,
    /// Part of the code or the name, any case.
    #[param(max_length = 200)]
    pub search: Option<String>,
    /// Promotions starting after this (a date or a timestamp).
    #[param(max_length = 40)]
    pub start_date: Option<String>,
    /// Promotions expiring before this (a date or a timestamp).
    #[param(max_length = 40)]
    pub end_date: Option<String>,
    /// JSON only; default 1.
    #[param(value_type = Option<u32>, minimum = 1, maximum = 1000000)]
    pub page: Option<String>,
    /// JSON only; default 100, at most 1000.
    #[param(value_type = Option<u32>, minimum = 1, maximum = 1000)]
    pub page_size: Option<String>,
}

crate::openapi::schemas::string_enum!(
    ScopeTypeExportSchema,
    "PromotionScopeType",
    ["site", "product", "booking"]
);

/// A JSON export page.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PromotionExportPage {
    pub data: Vec<PromotionExport>,
    pub total: u64,
    pub page: u32,
    pub page_size: u32,
    pub total_pages: u64,
    pub generated_at: DateTime<Utc>,
}

/// Export promotions (never deleted ones), newest first: a JSON page, or every matching
/// promotion as CSV (`format=csv`; the column layout is in the module documentation of
/// the API and `docs/ARCHITECTURE.md`). Needs `admin:read`.
#[utoipa::path(get, path = "/api/v1/admin/promotions/export", tag = "promotions", security(("bearer" = [])),
    params(ExportQuery),
    responses((status = 200, description = "A JSON page, or a CSV attachment (text/csv)",
            content((PromotionExportPage = "application/json"), (String = "text/csv"))),
        (status = 400, description = "VALIDATION_ERROR naming each bad parameter", body = ErrorBody),
        (status = 403, description = "INSUFFICIENT_PERMISSIONS", body = ErrorBody)))]
pub async fn export_promotions(
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
    let is_public = flag(&mut errors, "isPublic", q.is_public.as_deref());
    let promotion_type = match q.promotion_type.as_deref().filter(|s| !s.is_empty()) {
        None => None,
        Some(raw) => {
            let parsed = PromotionType::parse(raw);
            if parsed.is_none() {
                errors.add(
                    "promotionType",
                    format!("must be {}", PromotionType::choices()),
                );
            }
            parsed
        }
    };
    let scope = match q.scope_type.as_deref().filter(|s| !s.is_empty()) {
        None => None,
        Some(raw) => {
            let parsed = PromotionScope::parse(raw);
            if parsed.is_none() {
                errors.add("scopeType", "must be site, product or booking");
            }
            parsed
        }
    };
    let search = q
        .search
        .map(|s| s.trim().to_owned())
        .filter(|s| !s.is_empty());
    if search.as_ref().is_some_and(|s| s.chars().count() > 200) {
        errors.add("search", "must be at most 200 characters");
    }
    let starts_after = range_bound(&mut errors, "startDate", q.start_date.as_deref(), false);
    let expires_before = range_bound(&mut errors, "endDate", q.end_date.as_deref(), false);
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
    let filter = |page: u32, per_page: u32| PromotionFilter {
        status: PromotionStatus::All,
        promotion_type,
        search: search.clone(),
        is_active,
        is_public,
        scope,
        starts_after,
        expires_before,
        page,
        per_page,
    };
    match format {
        Format::Json => {
            let (items, total) = state
                .store
                .list_promotions(auth.tenant.id(), filter(page, page_size), now)
                .await?;
            Ok(axum::Json(PromotionExportPage {
                data: items.into_iter().map(|p| export_row(p, currency)).collect(),
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
                    .list_promotions(auth.tenant.id(), filter(page, MAX_PAGE_SIZE), now)
                    .await?;
                let done = items.is_empty() || u64::from(page) * u64::from(MAX_PAGE_SIZE) >= total;
                rows.extend(items.into_iter().map(|p| csv_row(export_row(p, currency))));
                if done {
                    break;
                }
            }
            csv_response(
                &format!("promotions-{}.csv", now.format("%Y%m%d")),
                &CSV_COLUMNS,
                rows,
            )
        }
    }
}
