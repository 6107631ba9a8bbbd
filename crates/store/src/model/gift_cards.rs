//! Gift cards: products (what a venue sells) and purchases (what customers buy).

use super::Timestamp;
use kairos_domain::FieldErrors;
use kairos_domain::gift_cards::{InvalidAmount, ProductFields, PurchaseStatus};
use kairos_domain::payments::PaymentStatus;
use uuid::Uuid;

/// The gift card area's failures.
#[derive(Debug, thiserror::Error)]
pub enum GiftCardError {
    /// Missing, or (for the public) inactive.
    #[error("gift card product not found")]
    ProductNotFound,
    #[error("no such site")]
    SiteNotFound,
    /// The product after a change breaks its rules.
    #[error("invalid gift card product")]
    Invalid(FieldErrors),
    /// A purchase's amount outside the product's.
    #[error("invalid gift card amount: {0}")]
    InvalidAmount(InvalidAmount),
    #[error("gift card purchase not found")]
    PurchaseNotFound,
    /// The purchase is paid (a voucher exists): nothing more to pay.
    #[error("the gift card purchase is already paid")]
    AlreadyPaid,
    /// The purchase is cancelled: it can no longer be paid.
    #[error("the gift card purchase is cancelled")]
    PurchaseCancelled,
    /// The purchase has no voucher yet (resend before payment).
    #[error("the gift card purchase is not paid yet")]
    NotPaid,
    #[error(transparent)]
    Idempotency(#[from] crate::IdempotencyError),
    #[error(transparent)]
    Store(#[from] crate::StoreError),
}

crate::store_error_from_sqlx!(GiftCardError);

/// A gift card product as stored.
#[derive(Debug, Clone)]
pub struct GiftCardProduct {
    pub id: Uuid,
    pub fields: ProductFields,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
}

/// Which products to list.
#[derive(Debug, Clone, Default)]
pub struct GiftCardProductFilter {
    pub is_active: Option<bool>,
    /// Products of this site and those for every site.
    pub site_id: Option<Uuid>,
    /// From 1.
    pub page: u32,
    pub limit: u32,
}

/// A purchase to record: the product, the amount asked (minor units; custom range only),
/// and who buys it for whom.
#[derive(Debug, Clone)]
pub struct NewGiftCardPurchase {
    pub product_id: Uuid,
    pub amount: Option<i64>,
    pub purchaser_email: String,
    pub purchaser_name: Option<String>,
    pub purchaser_phone: Option<String>,
    /// None: the purchaser.
    pub recipient_email: Option<String>,
    pub recipient_name: Option<String>,
    pub personal_message: Option<String>,
    /// None: deliver once paid.
    pub delivery_date: Option<Timestamp>,
}

/// A gift card purchase as stored, with its voucher and latest payment.
#[derive(Debug, Clone)]
pub struct GiftCardPurchase {
    pub id: Uuid,
    pub product_id: Uuid,
    pub product_name: String,
    pub site_id: Option<Uuid>,
    /// Minor units.
    pub amount: i64,
    pub currency: String,
    pub validity_days: i32,
    pub status: PurchaseStatus,
    pub purchaser_email: String,
    pub purchaser_name: Option<String>,
    pub purchaser_phone: Option<String>,
    pub recipient_email: String,
    pub recipient_name: Option<String>,
    pub personal_message: Option<String>,
    pub delivery_date: Option<Timestamp>,
    pub voucher_id: Option<Uuid>,
    pub voucher_code: Option<String>,
    pub voucher_expires_at: Option<Timestamp>,
    /// The status of its newest payment (None: no payment started).
    pub payment_status: Option<PaymentStatus>,
    pub delivery_message_id: Option<Uuid>,
    pub paid_at: Option<Timestamp>,
    pub delivered_at: Option<Timestamp>,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
}

/// Which purchases to list, newest first.
#[derive(Debug, Clone, Default)]
pub struct GiftCardPurchaseFilter {
    pub status: Option<PurchaseStatus>,
    /// Exact, any case.
    pub purchaser_email: Option<String>,
    /// Made at or after.
    pub from: Option<Timestamp>,
    /// Made before.
    pub to: Option<Timestamp>,
    /// From 1.
    pub page: u32,
    pub limit: u32,
}
