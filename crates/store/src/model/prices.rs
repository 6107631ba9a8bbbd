//! A booking's price: its lines, the promotions and vouchers that come off it, and what
//! applying one of them to a hold answers.

use super::Timestamp;
use super::bookings::Booking;
use serde::Serialize;
use uuid::Uuid;

/// A priced add-on line of a booking, in minor units.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PriceLine {
    pub addon_id: String,
    pub name: String,
    pub quantity: u32,
    pub total: i64,
}

/// Places priced at a participant type's own price, in minor units.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TypedPriceLine {
    /// The type's key (`child`).
    #[serde(rename = "type")]
    pub key: String,
    pub name: String,
    pub quantity: u32,
    pub unit_price: i64,
    pub total: i64,
}

/// A booking's price breakdown in minor units, as quoted when it was held, changed by a
/// promotion or voucher, or confirmed. The words mean what `kairos_domain::pricing` says.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PriceBreakdown {
    pub base_price: i64,
    /// The places the base price line prices at a participant type's own price; the
    /// booking's choice of types, priced again from the catalog like its add-ons.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub participant_types: Vec<TypedPriceLine>,
    pub addons: Vec<PriceLine>,
    /// Before discounts, as priced.
    pub subtotal: i64,
    #[serde(default)]
    pub promotion_discount: i64,
    /// The promotions that apply, in the canonical stacking order.
    #[serde(default)]
    pub discounts: Vec<DiscountLine>,
    /// How the promotions stacked; None without promotions.
    #[serde(default)]
    pub stacking: Option<StackingInfo>,
    pub tax: i64,
    #[serde(default)]
    pub voucher_applied: i64,
    #[serde(default)]
    pub vouchers: Vec<VoucherPart>,
    /// What the customer pays.
    pub total: i64,
    pub currency: String,
    pub pricing_hash: String,
}

/// One promotion's part of a booking's price (`discountBreakdown[]`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DiscountLine {
    pub promotion_id: Uuid,
    pub code: String,
    pub name: String,
    pub promotion_type: kairos_domain::promotions::PromotionType,
    pub discount_applied: i64,
    pub subtotal_before: i64,
    pub subtotal_after: i64,
}

/// The stacking metadata of a booking's promotions (spec Part A 4.7 rule 4).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StackingInfo {
    pub processing_order: Vec<String>,
    pub canonical_order: Vec<String>,
    pub stacking_stopped: bool,
    pub stopped_by: Option<String>,
    pub reason: Option<String>,
}

/// One voucher's part of a booking's price.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct VoucherPart {
    pub voucher_id: Uuid,
    pub code: String,
    pub amount: i64,
}

/// A promotion applied to a booking, as it was when applied (its use record).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AppliedPromotion {
    pub usage_id: Uuid,
    pub promotion_id: Uuid,
    pub code: String,
    pub name: String,
    pub discount: kairos_domain::promotions::Discount,
    pub is_stackable: bool,
    pub applied_at: Timestamp,
}

/// A voucher paying part of a booking: what its ledger took for the booking.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AppliedVoucher {
    pub voucher_id: Uuid,
    pub code: String,
    pub amount: i64,
}

/// What comes off a booking's price: its promotions and vouchers.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Reductions {
    pub promotions: Vec<AppliedPromotion>,
    pub vouchers: Vec<AppliedVoucher>,
}

impl PriceBreakdown {
    /// The breakdown of a quote, naming its promotions and vouchers from `reductions`.
    pub fn of(q: &kairos_domain::pricing::Quote, reductions: &Reductions) -> Self {
        let discounts = q
            .stacking
            .iter()
            .flat_map(|s| &s.breakdown)
            .filter_map(|line| {
                let p = reductions
                    .promotions
                    .iter()
                    .find(|p| p.promotion_id.to_string() == line.promotion_id)?;
                Some(DiscountLine {
                    promotion_id: p.promotion_id,
                    code: p.code.clone(),
                    name: p.name.clone(),
                    promotion_type: line.promotion_type,
                    discount_applied: line.discount_applied,
                    subtotal_before: line.subtotal_before,
                    subtotal_after: line.subtotal_after,
                })
            })
            .collect();
        let vouchers = q
            .vouchers
            .iter()
            .filter_map(|line| {
                let v = reductions
                    .vouchers
                    .iter()
                    .find(|v| v.voucher_id.to_string() == line.id)?;
                Some(VoucherPart {
                    voucher_id: v.voucher_id,
                    code: v.code.clone(),
                    amount: line.amount,
                })
            })
            .collect();
        PriceBreakdown {
            base_price: q.base_price,
            participant_types: q
                .participant_types
                .iter()
                .map(|t| TypedPriceLine {
                    key: t.key.clone(),
                    name: t.name.clone(),
                    quantity: t.quantity,
                    unit_price: t.unit_price,
                    total: t.total,
                })
                .collect(),
            addons: q
                .addons
                .iter()
                .map(|l| PriceLine {
                    addon_id: l.id.clone(),
                    name: l.name.clone(),
                    quantity: l.quantity,
                    total: l.total,
                })
                .collect(),
            subtotal: q.subtotal,
            promotion_discount: q.promotion_discount,
            discounts,
            stacking: q.stacking.as_ref().map(|s| StackingInfo {
                processing_order: s.processing_order.clone(),
                canonical_order: s.canonical_order.clone(),
                stacking_stopped: s.stacking_stopped,
                stopped_by: s.stopped_by.clone(),
                reason: s.reason.clone(),
            }),
            tax: q.tax,
            voucher_applied: q.voucher_applied,
            vouchers,
            total: q.total,
            currency: q.currency.clone(),
            pricing_hash: q.pricing_hash.clone(),
        }
    }
}

impl From<&kairos_domain::pricing::Quote> for PriceBreakdown {
    fn from(q: &kairos_domain::pricing::Quote) -> Self {
        PriceBreakdown::of(q, &Reductions::default())
    }
}

/// A promotion applied to a hold (`POST /promotions/apply`).
#[derive(Debug, Clone, Serialize)]
pub struct PromotionApplied {
    pub booking: Booking,
    pub promotion_id: Uuid,
    pub code: String,
    pub name: String,
    pub promotion_type: kairos_domain::promotions::PromotionType,
    /// What it takes off now, in minor units.
    pub discount_amount: i64,
    pub applied_at: Timestamp,
    /// True: the hold was re-priced (a repeat answers the first application, so true too).
    pub recalculated: bool,
    /// Whether an expected pricing hash was sent (and matched).
    pub hash_validated: bool,
}

/// A voucher applied to a hold (`POST /bookings/{id}/apply-voucher`).
#[derive(Debug, Clone, Serialize)]
pub struct VoucherApplied {
    pub booking: Booking,
    pub voucher_id: Uuid,
    pub code: String,
    pub voucher_type: kairos_domain::vouchers::VoucherType,
    pub applied_amount: i64,
    pub balance_before: i64,
    pub balance_after: i64,
    pub applied_at: Timestamp,
    /// True: the hold was re-priced (a repeat answers the first application, so true too).
    pub recalculated: bool,
    pub hash_validated: bool,
}
