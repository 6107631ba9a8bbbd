//! Sites, products, variants and add-ons.

use super::Timestamp;
use kairos_domain::catalog::{
    AddonPriceType, AddonType, CancellationPolicy, SlotPolicyKind, VariantPriceMode,
};
use kairos_domain::pricing::{AddonMode, PriceType};
use serde::Serialize;
use uuid::Uuid;

#[derive(Debug, Clone, Serialize)]
pub struct NewSite {
    pub name: String,
    pub timezone: String,
    pub currency: String,
    pub locale: String,
    pub address: Option<String>,
    pub contact_email: Option<String>,
    pub contact_phone: Option<String>,
    pub hold_ttl_minutes: Option<i32>,
    pub cancellation_policy: CancellationPolicy,
    /// Minutes after a booking's start without an arrival before the detection job marks
    /// it a no-show; None: off.
    pub no_show_detection_minutes: Option<i32>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Site {
    pub id: Uuid,
    pub name: String,
    pub timezone: String,
    pub currency: String,
    pub locale: String,
    pub address: Option<String>,
    pub contact_email: Option<String>,
    pub contact_phone: Option<String>,
    pub hold_ttl_minutes: Option<i32>,
    pub cancellation_policy: CancellationPolicy,
    /// Minutes after a booking's start without an arrival before the detection job marks
    /// it a no-show; None: off.
    pub no_show_detection_minutes: Option<i32>,
    pub is_active: bool,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
}

/// A participant type with its own price per person (a child's ticket), offered by a
/// per-person product.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ParticipantTypePrice {
    /// Lower-case key (`child`), unique within the product.
    pub key: String,
    pub name: String,
    /// Minor units per person.
    pub price: i64,
}

#[derive(Debug, Clone, Serialize)]
pub struct NewProduct {
    pub site_id: Uuid,
    pub name: String,
    pub description: String,
    pub duration_mins: i32,
    pub capacity: i32,
    /// Minor units.
    pub base_price: i64,
    /// `per_person` or `per_booking`.
    pub price_type: PriceType,
    /// Basis points: 24 % is 2400.
    pub tax_rate_bp: i32,
    pub prices_include_tax: bool,
    /// `interval` or `fixed`.
    pub slot_policy: SlotPolicyKind,
    pub slot_interval_min: i32,
    pub fixed_slot_times: Vec<String>,
    pub setup_time: i32,
    pub cleanup_time: i32,
    pub label_codes: Vec<String>,
    pub requires_waiver: bool,
    /// What check-in does while the booking's waivers are missing.
    pub waiver_check_in: kairos_domain::waivers::WaiverCheckIn,
    /// Participant types with their own price (per-person products only).
    pub participant_types: Vec<ParticipantTypePrice>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Product {
    pub id: Uuid,
    pub site_id: Uuid,
    pub name: String,
    pub description: String,
    pub duration_mins: i32,
    pub capacity: i32,
    pub base_price: i64,
    pub price_type: PriceType,
    pub tax_rate_bp: i32,
    pub prices_include_tax: bool,
    pub slot_policy: SlotPolicyKind,
    pub slot_interval_min: i32,
    pub fixed_slot_times: Vec<String>,
    pub setup_time: i32,
    pub cleanup_time: i32,
    pub label_codes: Vec<String>,
    pub requires_waiver: bool,
    pub waiver_check_in: kairos_domain::waivers::WaiverCheckIn,
    pub participant_types: Vec<ParticipantTypePrice>,
    pub is_active: bool,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
}

/// A product variant. `price_mode`: `none` (base price), `adjustment` (base + amount, may be
/// negative) or `override` (amount replaces the base price).
#[derive(Debug, Clone, Serialize)]
pub struct NewVariant {
    pub name: String,
    pub description: String,
    pub price_mode: VariantPriceMode,
    pub price_amount: i64,
    pub capacity_share: Option<i32>,
    pub display_order: i32,
    pub is_active: bool,
}

#[derive(Debug, Clone, Serialize)]
pub struct Variant {
    pub id: Uuid,
    pub product_id: Uuid,
    pub name: String,
    pub description: String,
    pub price_mode: VariantPriceMode,
    pub price_amount: i64,
    pub capacity_share: Option<i32>,
    pub display_order: i32,
    pub is_active: bool,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
}

/// A product add-on (spec Part B 2.2). `amount` is minor units for `fixed` and
/// `per_person` prices and basis points for `percentage`.
#[derive(Debug, Clone, Serialize)]
pub struct NewAddon {
    pub name: String,
    pub description: String,
    pub addon_type: AddonType,
    pub mode: AddonMode,
    pub price_type: AddonPriceType,
    pub amount: i64,
    pub max_quantity: Option<i32>,
    pub display_order: i32,
    pub is_active: bool,
}

#[derive(Debug, Clone, Serialize)]
pub struct Addon {
    pub id: Uuid,
    pub product_id: Uuid,
    pub name: String,
    pub description: String,
    pub addon_type: AddonType,
    pub mode: AddonMode,
    pub price_type: AddonPriceType,
    pub amount: i64,
    pub max_quantity: Option<i32>,
    pub display_order: i32,
    pub is_active: bool,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
}

/// Why a catalog operation failed.
#[derive(Debug, thiserror::Error)]
pub enum CatalogError {
    #[error("no such site")]
    SiteNotFound,
    #[error("no such product")]
    ProductNotFound,
    #[error("no such variant")]
    VariantNotFound,
    #[error("no such add-on")]
    AddonNotFound,
    #[error("no such package")]
    PackageNotFound,
    /// The record changed between the read a change was made from and its write.
    #[error("changed meanwhile")]
    ChangedMeanwhile,
    #[error(transparent)]
    Store(#[from] crate::StoreError),
}

crate::store_error_from_sqlx!(CatalogError);
