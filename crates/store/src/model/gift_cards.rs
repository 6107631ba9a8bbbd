//! Gift cards: products (what a venue sells).

use super::Timestamp;
use kairos_domain::FieldErrors;
use kairos_domain::gift_cards::ProductFields;
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
