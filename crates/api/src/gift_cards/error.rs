//! Gift card failures → HTTP status and code: the area's one table (spec Part A 7 names
//! the codes; their statuses are Kairos' choice, documented in docs/ARCHITECTURE.md, Gift cards).

use crate::error::{ApiError, code};
use axum::http::StatusCode;
use kairos_domain::gift_cards::InvalidAmount;
use kairos_store::GiftCardError;
use serde_json::json;

/// Product missing or inactive (404).
pub const GIFT_CARD_PRODUCT_NOT_FOUND: &str = "GIFT_CARD_PRODUCT_NOT_FOUND";
/// A purchase amount outside the product's range (400).
pub const GIFT_CARD_INVALID_AMOUNT: &str = "GIFT_CARD_INVALID_AMOUNT";
/// No such purchase (404).
pub const GIFT_CARD_PURCHASE_NOT_FOUND: &str = "GIFT_CARD_PURCHASE_NOT_FOUND";
/// The purchase is paid already (409).
pub const GIFT_CARD_ALREADY_PAID: &str = "GIFT_CARD_ALREADY_PAID";
/// No gift card with that code (404).
pub const GIFT_CARD_NOT_FOUND: &str = "GIFT_CARD_NOT_FOUND";

pub(super) fn product_not_found() -> ApiError {
    ApiError::new(
        StatusCode::NOT_FOUND,
        GIFT_CARD_PRODUCT_NOT_FOUND,
        "Gift card product not found",
    )
}

pub(super) fn purchase_not_found() -> ApiError {
    ApiError::new(
        StatusCode::NOT_FOUND,
        GIFT_CARD_PURCHASE_NOT_FOUND,
        "Gift card purchase not found",
    )
}

pub(super) fn gift_card_not_found() -> ApiError {
    ApiError::new(
        StatusCode::NOT_FOUND,
        GIFT_CARD_NOT_FOUND,
        "No gift card has this code",
    )
}

impl From<GiftCardError> for ApiError {
    #[track_caller]
    fn from(e: GiftCardError) -> Self {
        match e {
            GiftCardError::ProductNotFound => product_not_found(),
            GiftCardError::SiteNotFound => ApiError::not_found("Site"),
            GiftCardError::Invalid(errors) => ApiError::validation(errors),
            GiftCardError::InvalidAmount(InvalidAmount::Missing) => ApiError::new(
                StatusCode::BAD_REQUEST,
                GIFT_CARD_INVALID_AMOUNT,
                "amount is required for this gift card (it has a value range)",
            ),
            GiftCardError::InvalidAmount(InvalidAmount::OutOfRange { min, max }) => ApiError::new(
                StatusCode::BAD_REQUEST,
                GIFT_CARD_INVALID_AMOUNT,
                "amount is outside the gift card's range",
            )
            .with_details(json!({"minValueMinor": min, "maxValueMinor": max})),
            GiftCardError::PurchaseNotFound => purchase_not_found(),
            GiftCardError::AlreadyPaid => ApiError::new(
                StatusCode::CONFLICT,
                GIFT_CARD_ALREADY_PAID,
                "This gift card purchase is paid already",
            ),
            GiftCardError::PurchaseCancelled => ApiError::conflict(
                code::INVALID_TRANSITION,
                "This gift card purchase was cancelled (not paid in time): start a new purchase",
            ),
            GiftCardError::NotPaid => ApiError::conflict(
                code::INVALID_TRANSITION,
                "This gift card purchase is not paid yet: there is no voucher to send",
            ),
            GiftCardError::Idempotency(e) => e.into(),
            GiftCardError::Store(e) => e.into(),
        }
    }
}
