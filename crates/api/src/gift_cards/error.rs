//! Gift card failures → HTTP status and code: the area's one table.

use crate::error::ApiError;
use axum::http::StatusCode;
use kairos_store::GiftCardError;

/// Product missing or inactive (spec Part A 7).
pub const GIFT_CARD_PRODUCT_NOT_FOUND: &str = "GIFT_CARD_PRODUCT_NOT_FOUND";

pub(super) fn product_not_found() -> ApiError {
    ApiError::new(
        StatusCode::NOT_FOUND,
        GIFT_CARD_PRODUCT_NOT_FOUND,
        "Gift card product not found",
    )
}

impl From<GiftCardError> for ApiError {
    #[track_caller]
    fn from(e: GiftCardError) -> Self {
        match e {
            GiftCardError::ProductNotFound => product_not_found(),
            GiftCardError::SiteNotFound => ApiError::not_found("Site"),
            GiftCardError::Invalid(errors) => ApiError::validation(errors),
            GiftCardError::Store(e) => e.into(),
        }
    }
}
