//! Promotion failures → HTTP status and code: the area's one table.

use crate::error::{ApiError, code};
use kairos_domain::FieldErrors;
use kairos_store::PromotionError;
use serde_json::json;

impl From<PromotionError> for ApiError {
    #[track_caller]
    fn from(e: PromotionError) -> Self {
        match e {
            PromotionError::NotFound => ApiError::not_found("Promotion"),
            PromotionError::CodeTaken(c) => ApiError::conflict(
                code::CONFLICT,
                format!("A promotion with code {c} already exists (codes ignore case)"),
            )
            .with_details(json!({"field": "code", "code": c})),
            PromotionError::SiteNotFound(id) => {
                let mut errors = FieldErrors::new();
                errors.add("applicable_sites", format!("no site {id} in this tenant"));
                ApiError::validation(errors)
            }
            PromotionError::ProductNotFound(id) => {
                let mut errors = FieldErrors::new();
                errors.add(
                    "applicable_products",
                    format!("no product {id} in this tenant"),
                );
                ApiError::validation(errors)
            }
            PromotionError::LimitBelowUses(uses) => ApiError::invalid_field(
                "usage_limit",
                format!("must be at least the {uses} uses already taken"),
            ),
            PromotionError::Store(e) => e.into(),
        }
    }
}
