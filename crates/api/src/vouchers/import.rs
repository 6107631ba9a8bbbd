//! `POST /api/v1/admin/vouchers/import/preview` and `POST /api/v1/admin/vouchers/import`
//! (spec Part A 4.9, camelCase, `admin:write`).
//!
//! The columns are the export's (see `vouchers/export.rs`); `voucherType` and
//! `originalValue` are required. An empty `code` gets one generated (`GIFT-XXXX-XXXX` for
//! gift cards, `VCHR-XXXX-XXXX` otherwise), listed in `generatedCodes`. `currentBalance`
//! (default: the original value) and `usageCount` (default 0) carry a voucher spent
//! elsewhere; `isRedeemed` follows from them. `customerId`, `issuedAt`, `issuedBy` and `id`
//! are export-only and not imported. Each row is checked by the rules of
//! `POST /admin/vouchers`.

use super::admin::{VoucherInput, tenant_currency, voucher_fields};
use crate::error::{ApiResult, ErrorBody};
use crate::extract::{Staff, can};
use crate::import::{
    Cells, Checked, DuplicateCode, ExecuteResponse, ImportError, ImportUpload, PreviewResponse,
    checked_upload, executed, mark_duplicates, preview,
};
use crate::state::AppState;
use axum::extract::multipart::MultipartRejection;
use axum::extract::{Multipart, State};
use chrono::{DateTime, Utc};
use kairos_domain::money::from_major;
use kairos_domain::tenancy::Currency;
use kairos_domain::vouchers::VoucherType;
use kairos_store::ImportedVoucher;
use std::collections::HashMap;

/// The import reads the export's columns.
const COLUMNS: &[&str] = &super::export::CSV_COLUMNS;
const REQUIRED: &[&str] = &["voucherType", "originalValue"];

fn column(field: &str) -> &'static str {
    match field {
        "code" => "code",
        "type" => "voucherType",
        "original_value" => "originalValue",
        "expires_at" => "expiresAt",
        "usage_limit" => "usageLimit",
        "customer_email" => "customerEmail",
        _ => "code",
    }
}

fn check(
    row_number: usize,
    data: HashMap<String, String>,
    currency: Currency,
    now: DateTime<Utc>,
) -> Checked<ImportedVoucher> {
    let mut c = Cells::new(&data);
    let code = c.optional("code", 50);
    let voucher_type = match c.text("voucherType") {
        None => {
            c.error(
                "voucherType",
                "missing_required_field",
                "voucherType is required",
            );
            None
        }
        Some(t) if VoucherType::parse(t).is_none() => {
            c.error(
                "voucherType",
                "invalid_enum_value",
                format!("voucherType must be {}", VoucherType::choices()),
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
    let original = c.number("originalValue");
    if matches!(original, Ok(None)) {
        c.error(
            "originalValue",
            "missing_required_field",
            "originalValue is required",
        );
    }
    let balance = c.number("currentBalance");
    let expires_at = c.date("expiresAt");
    let usage_count = c.whole("usageCount");
    let usage_limit = c.whole("usageLimit");
    let is_active = c.boolean("isActive");
    let _ = c.boolean("isRedeemed");
    let email = c.optional("customerEmail", 254);
    let mut errors = std::mem::take(&mut c.errors);
    let mut warnings = Vec::new();
    if data.get("customerId").is_some_and(|v| !v.trim().is_empty()) {
        warnings.push("customerId is export-only: not imported".to_owned());
    }
    let value = if errors.is_empty() {
        let input = VoucherInput {
            code: code.clone(),
            voucher_type,
            original_value: original.ok().flatten(),
            expires_at: expires_at.ok().flatten(),
            usage_limit: usage_limit.ok().flatten(),
            customer_email: email,
            is_active: Some(is_active.ok().flatten().unwrap_or(true)),
        };
        match voucher_fields(input, currency, now) {
            Ok(voucher) => {
                let mut extra = |field: &str, message: String| {
                    errors.push(ImportError::new(
                        field,
                        "value_out_of_range",
                        message,
                        data.get(field).map(String::as_str),
                    ));
                };
                let current_balance = match balance.ok().flatten() {
                    None => Some(voucher.original_value),
                    Some(v) => match from_major(v, currency) {
                        Ok(minor) if (0..=voucher.original_value).contains(&minor) => Some(minor),
                        Ok(_) => {
                            extra(
                                "currentBalance",
                                "currentBalance must be from 0 to originalValue".to_owned(),
                            );
                            None
                        }
                        Err(e) => {
                            extra("currentBalance", format!("currentBalance {e}"));
                            None
                        }
                    },
                };
                let uses = usage_count.ok().flatten().unwrap_or(0);
                let limit = voucher.usage_limit.map_or(i64::from(i32::MAX), i64::from);
                let usage_count = if (0..=limit).contains(&uses) {
                    i32::try_from(uses).ok()
                } else {
                    extra(
                        "usageCount",
                        "usageCount must be from 0 to usageLimit".to_owned(),
                    );
                    None
                };
                match (current_balance, usage_count) {
                    (Some(current_balance), Some(usage_count)) => Some(ImportedVoucher {
                        voucher,
                        current_balance,
                        usage_count,
                    }),
                    _ => None,
                }
            }
            Err(field_errors) => {
                for e in field_errors.into_vec() {
                    let col = column(&e.field);
                    let kind = if e.message.starts_with("is required") {
                        "missing_required_field"
                    } else if col == "customerEmail" {
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
        code,
        errors,
        warnings,
        value,
    }
}

async fn checked_rows(
    state: &AppState,
    auth: &Staff<can::Write>,
    multipart: Result<Multipart, MultipartRejection>,
) -> ApiResult<(
    Vec<Checked<ImportedVoucher>>,
    Vec<DuplicateCode>,
    Vec<String>,
)> {
    let currency = tenant_currency(auth)?;
    let now = state.now();
    let (mut rows, warnings) = checked_upload(multipart, COLUMNS, REQUIRED, |n, cells| {
        check(n, cells, currency, now)
    })
    .await?;
    let ctx = state.store.voucher_import_context(auth.tenant.id()).await?;
    let duplicates = mark_duplicates(&mut rows, &ctx.codes);
    Ok((rows, duplicates, warnings))
}

/// Check a voucher CSV without storing anything. Needs `admin:write`.
#[utoipa::path(post, path = "/api/v1/admin/vouchers/import/preview", tag = "vouchers", security(("bearer" = [])),
    request_body(content = ImportUpload, content_type = "multipart/form-data"),
    responses((status = 200, body = PreviewResponse),
        (status = 400, description = "VALIDATION_ERROR: no file field, not UTF-8, or a required column missing", body = ErrorBody),
        (status = 413, description = "PAYLOAD_TOO_LARGE: the file is over 10 MB", body = ErrorBody)))]
pub async fn preview_vouchers(
    State(state): State<AppState>,
    auth: Staff<can::Write>,
    multipart: Result<Multipart, MultipartRejection>,
) -> ApiResult<axum::Json<PreviewResponse>> {
    let (rows, duplicates, warnings) = checked_rows(&state, &auth, multipart).await?;
    Ok(axum::Json(preview(&rows, duplicates, warnings)))
}

/// Import vouchers from CSV. Needs `admin:write`.
///
/// Creates every valid row in one transaction, each with its ledger, and reports each
/// row; `generatedCodes` lists the codes made for rows without one.
#[utoipa::path(post, path = "/api/v1/admin/vouchers/import", tag = "vouchers", security(("bearer" = [])),
    request_body(content = ImportUpload, content_type = "multipart/form-data"),
    responses((status = 200, body = ExecuteResponse),
        (status = 400, description = "VALIDATION_ERROR: no file field, not UTF-8, or a required column missing", body = ErrorBody),
        (status = 413, description = "PAYLOAD_TOO_LARGE: the file is over 10 MB", body = ErrorBody)))]
pub async fn import_vouchers(
    State(state): State<AppState>,
    auth: Staff<can::Write>,
    multipart: Result<Multipart, MultipartRejection>,
) -> ApiResult<axum::Json<ExecuteResponse>> {
    let started = std::time::Instant::now();
    let (rows, _, _) = checked_rows(&state, &auth, multipart).await?;
    let now = state.now();
    let (indexes, values) = crate::import::to_write(&rows);
    let outcomes = state
        .store
        .import_vouchers(auth.tenant.id(), values, &auth.actor(), now)
        .await?;
    let (results, generated) = crate::import::results(rows, indexes, outcomes);
    Ok(axum::Json(executed(
        results,
        started,
        &auth.user.username,
        now,
        Some(generated),
    )))
}
