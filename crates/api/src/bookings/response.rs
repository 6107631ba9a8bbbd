//! A booking as the public endpoints show it.

use super::pricing::major;
use crate::openapi::schemas::{BookingStatusSchema, PaymentMethodSchema};
use chrono::{DateTime, Utc};
use kairos_store::{Booking, PriceBreakdown};
use serde::Serialize;
use utoipa::ToSchema;

/// A price breakdown in major units. The words mean one thing everywhere (see the
/// document's introduction, "Prices").
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PriceDto {
    /// The party's places: those of a participant type at its price, the rest at the
    /// activity's (or per booking).
    pub base_price: f64,
    /// The places inside `basePrice` at a participant type's own price; empty when every
    /// place is at the activity's price.
    pub participant_types: Vec<TypedPriceLineDto>,
    pub addons: Vec<AddonLineDto>,
    /// What the items cost as priced, before any discount: tax included when the
    /// product's prices include it.
    pub subtotal: f64,
    /// What the promotions take off the subtotal.
    pub promotion_discount: f64,
    /// The promotions, in the order they were computed (`discountBreakdown[]`).
    pub discounts: Vec<DiscountLineDto>,
    /// How the promotions stacked; absent without promotions.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stacking: Option<StackingDto>,
    /// The tax of the discounted price: inside it (prices including tax) or on top of it.
    pub tax: f64,
    /// What vouchers pay.
    pub voucher_applied: f64,
    pub vouchers: Vec<VoucherPartDto>,
    /// What the customer pays: the discounted price (plus tax when prices exclude it),
    /// less what vouchers pay.
    pub total: f64,
    #[schema(example = "EUR")]
    pub currency: String,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AddonLineDto {
    pub addon_id: String,
    pub name: String,
    pub quantity: u32,
    pub total: f64,
}

/// Places at a participant type's own price.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TypedPriceLineDto {
    #[serde(rename = "type")]
    #[schema(example = "child")]
    pub key: String,
    pub name: String,
    pub quantity: u32,
    pub unit_price: f64,
    pub total: f64,
}

/// One promotion's part of a price.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DiscountLineDto {
    pub promotion_id: String,
    pub code: String,
    pub name: String,
    #[schema(value_type = crate::openapi::schemas::PromotionTypeSchema)]
    #[serde(rename = "type")]
    pub promotion_type: String,
    pub discount_applied: f64,
    pub subtotal_before: f64,
    pub subtotal_after: f64,
}

/// Stacking metadata (spec Part A 4.7 rules 3 and 4).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct StackingDto {
    /// Promotion ids in the order they were computed.
    pub processing_order: Vec<String>,
    /// Codes in the canonical order (bundle, buy_x_get_y, fixed_amount, percentage; by
    /// code inside each type).
    pub canonical_order: Vec<String>,
    pub stacking_stopped: bool,
    /// The id of the non-stackable promotion that stopped stacking.
    pub stopped_by: Option<String>,
    pub reason: Option<String>,
    pub total_discount_amount: f64,
    pub discount_breakdown: Vec<DiscountLineDto>,
}

/// One voucher's part of a price.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct VoucherPartDto {
    pub voucher_id: String,
    pub code: String,
    pub amount: f64,
}

impl From<&PriceBreakdown> for PriceDto {
    fn from(p: &PriceBreakdown) -> Self {
        let m = |v| major(v, &p.currency);
        let discounts = || -> Vec<DiscountLineDto> {
            p.discounts
                .iter()
                .map(|d| DiscountLineDto {
                    promotion_id: d.promotion_id.to_string(),
                    code: d.code.clone(),
                    name: d.name.clone(),
                    promotion_type: d.promotion_type.as_str().to_owned(),
                    discount_applied: m(d.discount_applied),
                    subtotal_before: m(d.subtotal_before),
                    subtotal_after: m(d.subtotal_after),
                })
                .collect()
        };
        PriceDto {
            base_price: m(p.base_price),
            participant_types: p
                .participant_types
                .iter()
                .map(|t| TypedPriceLineDto {
                    key: t.key.clone(),
                    name: t.name.clone(),
                    quantity: t.quantity,
                    unit_price: m(t.unit_price),
                    total: m(t.total),
                })
                .collect(),
            addons: p
                .addons
                .iter()
                .map(|l| AddonLineDto {
                    addon_id: l.addon_id.clone(),
                    name: l.name.clone(),
                    quantity: l.quantity,
                    total: m(l.total),
                })
                .collect(),
            subtotal: m(p.subtotal),
            promotion_discount: m(p.promotion_discount),
            discounts: discounts(),
            stacking: p.stacking.as_ref().map(|s| StackingDto {
                processing_order: s.processing_order.clone(),
                canonical_order: s.canonical_order.clone(),
                stacking_stopped: s.stacking_stopped,
                stopped_by: s.stopped_by.clone(),
                reason: s.reason.clone(),
                total_discount_amount: m(p.promotion_discount),
                discount_breakdown: discounts(),
            }),
            tax: m(p.tax),
            voucher_applied: m(p.voucher_applied),
            vouchers: p
                .vouchers
                .iter()
                .map(|v| VoucherPartDto {
                    voucher_id: v.voucher_id.to_string(),
                    code: v.code.clone(),
                    amount: m(v.amount),
                })
                .collect(),
            total: m(p.total),
            currency: p.currency.clone(),
        }
    }
}

#[derive(Debug, Serialize, ToSchema)]
pub struct CustomerDto {
    pub name: String,
    pub email: String,
    pub phone: String,
}

/// A booking as the public endpoints show it (camelCase, money in major units).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct BookingResponse {
    pub id: String,
    #[schema(example = "K7QXM2PA")]
    pub reference: String,
    #[schema(value_type = BookingStatusSchema, example = "hold")]
    pub status: String,
    pub site_id: String,
    pub product_id: String,
    pub slot_id: String,
    pub variant_id: Option<String>,
    pub start_time: DateTime<Utc>,
    pub end_time: DateTime<Utc>,
    pub party_size: i32,
    /// Set while the booking is a hold.
    pub hold_expires_at: Option<DateTime<Utc>>,
    pub customer: CustomerDto,
    pub addons: Vec<ChosenAddonDto>,
    /// Medical conditions and dietary restrictions are left out here: staff read them in
    /// the booking's detail and participant list.
    pub participants: Vec<super::participants::ParticipantDto>,
    pub price: PriceDto,
    /// Send back on confirm; a different current price makes confirm answer PRICING_CHANGED.
    pub pricing_hash: String,
    pub paid_amount: f64,
    pub balance_due: f64,
    /// The method the booking was confirmed with.
    #[schema(value_type = Option<PaymentMethodSchema>)]
    pub payment_method: Option<String>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    pub confirmed_at: Option<DateTime<Utc>>,
    pub canceled_at: Option<DateTime<Utc>>,
    /// Only in the response that made the hold: authorises later public calls on this
    /// booking through the `x-booking-token` header. Keep it secret.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub booking_token: Option<String>,
    /// Only in the answer of a confirm with an online method: what the customer does to
    /// pay (cardpay: the PaymentIntent's client secret for the provider's browser library).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub payment: Option<crate::payments::dto::PaymentAction>,
    /// Only in the answer of a cancellation of a booking paid by card: the refund made
    /// (the amount paid minus the site policy's fee when the customer cancels; all of it
    /// when staff cancel). `success` false: the provider refused, staff see it in the
    /// dead-letter queue.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub refund: Option<crate::payments::refunds::RefundOutcome>,
    /// Only in the answer of a confirm with an online method of a booking vouchers paid
    /// part of: both parts (spec Part B 2.8; minor units).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mixed_tender: Option<crate::payments::dto::MixedTender>,
    /// What staff should know (a booking checked in with waivers missing).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ChosenAddonDto {
    pub addon_id: String,
    pub quantity: u32,
}

impl BookingResponse {
    pub fn of(b: &Booking, booking_token: Option<String>) -> Self {
        let currency = &b.price.currency;
        BookingResponse {
            id: b.id.to_string(),
            reference: b.reference.clone(),
            status: b.status.as_str().to_owned(),
            site_id: b.site_id.to_string(),
            product_id: b.product_id.to_string(),
            slot_id: b.slot_id.to_string(),
            variant_id: b.variant_id.map(|v| v.to_string()),
            start_time: b.starts_at,
            end_time: b.ends_at,
            party_size: b.party_size,
            hold_expires_at: b.hold_expires_at,
            customer: CustomerDto {
                name: b.customer.name.clone(),
                email: b.customer.email.clone(),
                phone: b.customer.phone.clone(),
            },
            addons: b
                .addons
                .iter()
                .map(|a| ChosenAddonDto {
                    addon_id: a.addon_id.to_string(),
                    quantity: a.quantity,
                })
                .collect(),
            participants: super::participants::ParticipantDto::list(&b.participants, false),
            price: PriceDto::from(&b.price),
            pricing_hash: b.price.pricing_hash.clone(),
            paid_amount: major(b.paid_amount, currency),
            balance_due: major((b.price.total - b.paid_amount).max(0), currency),
            payment_method: b.payment_method.map(|m| m.as_str().to_owned()),
            created_at: b.created_at,
            updated_at: b.updated_at,
            confirmed_at: b.confirmed_at,
            canceled_at: b.canceled_at,
            booking_token,
            payment: None,
            refund: None,
            mixed_tender: None,
            warnings: Vec::new(),
        }
    }
}
