//! Voucher failures → HTTP status and code: the area's one table.

use crate::error::{ApiError, code};
use kairos_store::VoucherError;
use serde_json::json;

impl From<VoucherError> for ApiError {
    #[track_caller]
    fn from(e: VoucherError) -> Self {
        match e {
            VoucherError::NotFound => ApiError::not_found("Voucher"),
            VoucherError::CodeTaken(c) => ApiError::conflict(
                code::CONFLICT,
                format!("A voucher with code {c} already exists (codes ignore case)"),
            )
            .with_details(json!({"field": "code", "code": c})),
            VoucherError::Store(e) => e.into(),
        }
    }
}
