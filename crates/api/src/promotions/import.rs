//! `POST /api/v1/admin/promotions/import/preview` and `POST /api/v1/admin/promotions/import`
//! (spec Part A 4.9, camelCase, `admin:write`).
//!
//! The columns are the export's (see `promotions/export.rs`); `code`, `name`,
//! `promotionType`, `discountValue` and `startsAt` are required. `id`, `createdAt`,
//! `updatedAt`, `currentUsageCount` and `scopeType` are read back from an export but not
//! imported: a new promotion starts with no uses, and its scope follows from its lists.
//! Each row is checked by the same rules as `POST /admin/promotions`.

use super::admin::tenant_currency;
use super::fields::{PromotionInput, promotion_fields};
use crate::error::{ApiResult, ErrorBody};
use crate::extract::{Staff, can};
use crate::import::{
    Cells, Checked, ExecuteResponse, ImportError, ImportUpload, PreviewResponse, checked_upload,
    mark_duplicates, preview,
};
use crate::state::AppState;
use axum::extract::multipart::MultipartRejection;
use axum::extract::{Multipart, State};
use kairos_domain::tenancy::Currency;
use kairos_store::{ImportContext, ImportOutcome, NewPromotion};
use std::collections::HashMap;

/// The import reads the export's columns.
const COLUMNS: &[&str] = &super::export::CSV_COLUMNS;
const REQUIRED: &[&str] = &["code", "name", "promotionType", "discountValue", "startsAt"];

/// The column of a field of the create form.
fn column(field: &str) -> &'static str {
    let base = field.split('[').next().unwrap_or(field);
    match base {
        "code" => "code",
        "name" => "name",
        "description" => "description",
        "type" => "promotionType",
        "discount_value" => "discountValue",
        "buy_quantity" => "buyQuantity",
        "bundle_size" => "bundleSize",
        "min_spend_amount" => "minSpendAmount",
        "max_discount_amount" => "maxDiscountAmount",
        "starts_at" => "startsAt",
        "expires_at" => "expiresAt",
        "usage_limit" => "usageLimit",
        "per_customer_limit" => "perCustomerLimit",
        "applicable_sites" => "applicableSites",
        "applicable_products" => "applicableProducts",
        _ => "code",
    }
}

fn list(cells: &mut Cells<'_>, field: &str) -> Option<Vec<String>> {
    cells.text(field).map(|v| {
        v.split(';')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
            .collect()
    })
}

/// Checks one row: typed cells first, then the create form's rules.
fn check(
    row_number: usize,
    data: HashMap<String, String>,
    currency: Currency,
) -> Checked<NewPromotion> {
    let mut c = Cells::new(&data);
    let code = c.required("code", 50);
    let name = c.required("name", 200);
    let description = c.optional("description", 5000);
    let promotion_type = match c.text("promotionType") {
        None => {
            c.error(
                "promotionType",
                "missing_required_field",
                "promotionType is required",
            );
            None
        }
        Some(t) if kairos_domain::promotions::PromotionType::parse(t).is_none() => {
            c.error(
                "promotionType",
                "invalid_enum_value",
                format!(
                    "promotionType must be {}",
                    kairos_domain::promotions::PromotionType::choices()
                ),
            );
            None
        }
        Some(t) => Some(t.to_owned()),
    };
    if let Some(given) = c.text("currency")
        && !given.eq_ignore_ascii_case(currency.code())
    {
        c.error(
            "currency",
            "invalid_enum_value",
            format!("the tenant's amounts are in {}", currency.code()),
        );
    }
    let discount_value = c.number("discountValue");
    if matches!(discount_value, Ok(None)) {
        c.error(
            "discountValue",
            "missing_required_field",
            "discountValue is required",
        );
    }
    let buy_quantity = c.whole("buyQuantity");
    let bundle_size = c.whole("bundleSize");
    let min_spend = c.number("minSpendAmount");
    let max_discount = c.number("maxDiscountAmount");
    let starts_at = c.date("startsAt");
    if matches!(starts_at, Ok(None)) {
        c.error("startsAt", "missing_required_field", "startsAt is required");
    }
    let expires_at = c.date("expiresAt");
    let is_stackable = c.boolean("isStackable");
    let usage_limit = c.whole("usageLimit");
    let per_customer_limit = c.whole("perCustomerLimit");
    let is_active = c.boolean("isActive");
    let is_public = c.boolean("isPublic");
    let _ = c.whole("currentUsageCount");
    let sites = list(&mut c, "applicableSites");
    let products = list(&mut c, "applicableProducts");
    let mut warnings = Vec::new();
    if c.text("currentUsageCount").is_some_and(|n| n != "0") {
        warnings.push(
            "currentUsageCount is not imported: the promotion starts with no uses".to_owned(),
        );
    }
    let mut errors = std::mem::take(&mut c.errors);
    let code_out = code.clone();
    let value = if errors.is_empty() {
        let input = PromotionInput {
            code,
            name,
            description,
            promotion_type,
            discount_value: discount_value.ok().flatten(),
            buy_quantity: Some(buy_quantity.ok().flatten()),
            bundle_size: Some(bundle_size.ok().flatten()),
            min_spend_amount: Some(min_spend.ok().flatten()),
            max_discount_amount: Some(max_discount.ok().flatten()),
            starts_at: starts_at.ok().flatten(),
            expires_at: Some(expires_at.ok().flatten()),
            is_stackable: Some(is_stackable.ok().flatten().unwrap_or(false)),
            usage_limit: Some(usage_limit.ok().flatten()),
            per_customer_limit: Some(per_customer_limit.ok().flatten()),
            applicable_sites: sites,
            applicable_products: products,
            is_active: Some(is_active.ok().flatten().unwrap_or(true)),
            is_public: Some(is_public.ok().flatten().unwrap_or(true)),
        };
        match promotion_fields(input, None, currency) {
            Ok(p) => Some(p),
            Err(field_errors) => {
                for e in field_errors.into_vec() {
                    let col = column(&e.field);
                    let kind = if e.message.starts_with("is required") {
                        "missing_required_field"
                    } else if col == "expiresAt" && e.message.contains("after") {
                        "invalid_date_range"
                    } else if e.message.contains("is not an id") {
                        "invalid_field_type"
                    } else {
                        "value_out_of_range"
                    };
                    errors.push(ImportError::new(
                        col,
                        kind,
                        format!("{col} {}", e.message),
                        data.get(col).map(String::as_str),
                    ));
                }
                None
            }
        }
    } else {
        None
    };
    Checked {
        row_number,
        data,
        code: code_out,
        errors,
        warnings,
        value,
    }
}

/// Reads and checks every row of the upload against the tenant.
async fn checked_rows(
    state: &AppState,
    auth: &Staff<can::Write>,
    multipart: Result<Multipart, MultipartRejection>,
) -> ApiResult<(
    Vec<Checked<NewPromotion>>,
    Vec<crate::import::DuplicateCode>,
    Vec<String>,
)> {
    let currency = tenant_currency(auth)?;
    let (mut rows, warnings) = checked_upload(multipart, COLUMNS, REQUIRED, |n, cells| {
        check(n, cells, currency)
    })
    .await?;
    let ctx: ImportContext = state
        .store
        .promotion_import_context(auth.tenant.id())
        .await?;
    let duplicates = mark_duplicates(&mut rows, &ctx.codes);
    for row in &mut rows {
        if let Some(p) = &row.value
            && let Some(ImportOutcome::Failed {
                field,
                error_type,
                message,
            }) = ctx.refusal(p)
            && error_type != "code_already_exists"
        {
            let value = row.data.get(field).cloned();
            row.errors.push(ImportError {
                field: field.to_owned(),
                error_type,
                message,
                value,
            });
        }
    }
    Ok((rows, duplicates, warnings))
}

/// Check a promotion CSV without storing anything. Needs `admin:write`.
///
/// Every row is checked as the import would check it; the answer lists the first 50 rows
/// with their errors, a summary by column and error type, the codes the file repeats or
/// the tenant has already, and whether importing would create anything.
#[utoipa::path(post, path = "/api/v1/admin/promotions/import/preview", tag = "promotions", security(("bearer" = [])),
    request_body(content = ImportUpload, content_type = "multipart/form-data"),
    responses((status = 200, body = PreviewResponse),
        (status = 400, description = "VALIDATION_ERROR: no file field, not UTF-8, or a required column missing", body = ErrorBody),
        (status = 413, description = "PAYLOAD_TOO_LARGE: the file is over 10 MB", body = ErrorBody)))]
pub async fn preview_promotions(
    State(state): State<AppState>,
    auth: Staff<can::Write>,
    multipart: Result<Multipart, MultipartRejection>,
) -> ApiResult<axum::Json<PreviewResponse>> {
    let (rows, duplicates, warnings) = checked_rows(&state, &auth, multipart).await?;
    Ok(axum::Json(preview(&rows, duplicates, warnings)))
}

/// Import promotions from CSV. Needs `admin:write`.
///
/// Creates every valid row in one transaction and reports each row: created, or failed
/// with its errors. A code the file repeats is created once (its first row).
#[utoipa::path(post, path = "/api/v1/admin/promotions/import", tag = "promotions", security(("bearer" = [])),
    request_body(content = ImportUpload, content_type = "multipart/form-data"),
    responses((status = 200, body = ExecuteResponse),
        (status = 400, description = "VALIDATION_ERROR: no file field, not UTF-8, or a required column missing", body = ErrorBody),
        (status = 413, description = "PAYLOAD_TOO_LARGE: the file is over 10 MB", body = ErrorBody)))]
pub async fn import_promotions(
    State(state): State<AppState>,
    auth: Staff<can::Write>,
    multipart: Result<Multipart, MultipartRejection>,
) -> ApiResult<axum::Json<ExecuteResponse>> {
    let started = std::time::Instant::now();
    let (rows, _, _) = checked_rows(&state, &auth, multipart).await?;
    let now = state.now();
    // The valid rows, in order; the store checks codes and references again inside its
    // transaction.
    let (indexes, values) = crate::import::to_write(&rows);
    let outcomes = state
        .store
        .import_promotions(auth.tenant.id(), values, &auth.actor(), now)
        .await?;
    let (results, _) = crate::import::results(rows, indexes, outcomes);
    Ok(axum::Json(crate::import::executed(
        results,
        started,
        &auth.user.username,
        now,
        None,
    )))
}
