//! The shapes of a booking group (spec Part B 2.5) and its price.

use crate::bookings::major;
use chrono::{DateTime, Utc};
use kairos_domain::bookings::BookingStatus;
use kairos_store::{BookingGroup, GroupPricing};
use serde::Serialize;
use utoipa::ToSchema;
use uuid::Uuid;

/// One booking of a group.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct GroupBookingDto {
    pub booking_id: Uuid,
    pub reference: String,
    /// The booking's status (Part A 3.1).
    #[schema(example = "hold")]
    pub status: String,
    pub product_id: Uuid,
    pub site_id: Uuid,
    pub slot_id: Uuid,
    pub party_size: i32,
    pub starts_at: DateTime<Utc>,
    pub ends_at: DateTime<Utc>,
    /// What the booking costs (major units).
    pub total: f64,
}

/// One planned activity of a group: the plan a DRAFT group is held from. Once the group
/// is held, each activity's `bookingId` is its booking's id.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct GroupActivityDto {
    pub booking_id: Uuid,
    pub product_id: Uuid,
    pub site_id: Uuid,
    pub slot_id: Uuid,
    pub party_size: i32,
}

/// One booking's part of the group's price (major units); the parts sum exactly to the
/// group's grand total.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct GroupAllocationDto {
    pub booking_id: Uuid,
    /// The booking's part of the discounted price, before tax is added to a price that
    /// excludes it (with tax when prices include it).
    pub allocated_subtotal: f64,
    /// The tax in its part.
    pub tax_amount: f64,
    /// What the booking's part costs.
    pub allocated_total: f64,
}

/// A group's price (major units; the words as in bookings: subtotal before discounts,
/// tax, total what is paid).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct GroupPricingDto {
    /// What the group costs: the sum of the allocations' totals.
    pub grand_total: f64,
    /// The activities' subtotals, before any discount.
    pub subtotal: f64,
    pub tax_total: f64,
    /// SUM (each activity at its own price), PACKAGE (the package's price spread over
    /// them by their own prices) or CUSTOM (staff's total spread the same way).
    #[schema(example = "SUM")]
    pub pricing_method: String,
    #[schema(example = "EUR")]
    pub currency: String,
    pub allocations: Vec<GroupAllocationDto>,
    /// What the group's promotion codes take off its subtotal.
    pub promotion_discount: f64,
    /// What its vouchers pay (they are a way to pay: the tax stays).
    pub voucher_applied: f64,
    /// The codes on the group, each with what it takes off.
    pub promotions: Vec<GroupCodeAmountDto>,
    /// The vouchers paying for the group, each with what it pays.
    pub vouchers: Vec<GroupCodeAmountDto>,
}

/// A code on a group and its amount.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct GroupCodeAmountDto {
    pub code: String,
    pub amount: f64,
}

impl GroupPricingDto {
    pub fn of(p: &GroupPricing) -> Self {
        let m = |amount: i64| major(amount, &p.currency);
        GroupPricingDto {
            grand_total: m(p.grand_total),
            subtotal: m(p.subtotal),
            tax_total: m(p.tax_total),
            pricing_method: p.pricing_method.to_owned(),
            currency: p.currency.clone(),
            allocations: p
                .allocations
                .iter()
                .map(|a| GroupAllocationDto {
                    booking_id: a.booking_id,
                    allocated_subtotal: m(a.allocated_subtotal),
                    tax_amount: m(a.tax_amount),
                    allocated_total: m(a.allocated_total),
                })
                .collect(),
            promotion_discount: m(p.promotion_discount),
            voucher_applied: m(p.voucher_applied),
            promotions: codes(&p.promotions, m),
            vouchers: codes(&p.vouchers, m),
        }
    }
}

fn codes(list: &[(String, i64)], m: impl Fn(i64) -> f64) -> Vec<GroupCodeAmountDto> {
    list.iter()
        .map(|(code, amount)| GroupCodeAmountDto {
            code: code.clone(),
            amount: m(*amount),
        })
        .collect()
}

/// A booking group (spec Part B 2.5).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct BookingGroupDto {
    pub id: Uuid,
    #[schema(example = "K7Q2MX9D4R")]
    pub reference: String,
    /// DRAFT, HOLD, CONFIRMED, COMPLETED, PARTIALLY_CANCELED, CANCELED or EXPIRED, derived
    /// from its bookings (spec Part B 3.3).
    #[schema(example = "HOLD")]
    pub status: String,
    /// PACKAGE or CUSTOM.
    #[schema(example = "CUSTOM")]
    pub group_type: String,
    pub package_id: Option<Uuid>,
    pub party_size: i32,
    pub customer_name: String,
    pub customer_email: String,
    pub customer_phone: String,
    /// When every hold of the group lapses together; null before the group is held.
    pub hold_expires_at: Option<DateTime<Utc>>,
    /// Its bookings, in the plan's order (none while DRAFT).
    pub bookings: Vec<GroupBookingDto>,
    /// The plan.
    pub activities: Vec<GroupActivityDto>,
    /// What its bookings cost now (cancelled ones and lapsed holds left out, so a
    /// cancelled group's is 0); null while DRAFT (see calculate-pricing).
    pub pricing: Option<GroupPricingDto>,
    /// Staff only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub internal_notes: Option<String>,
    /// Returned once, by the public hold: send it as `x-booking-token` to read and
    /// confirm the group.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub group_token: Option<String>,
    /// How the group was confirmed (CARDPAY, BANKPAY, INVOICE, COMP); null before. A card
    /// or bank payment's bookings stay held until the money arrives.
    #[schema(example = "CARDPAY")]
    pub payment_method: Option<String>,
    /// When its bookings were confirmed (for a card or bank payment: when it arrived).
    pub confirmed_at: Option<DateTime<Utc>>,
    /// A total staff set instead of the sum of its bookings' prices, before the group's
    /// codes and vouchers (major units), spread over the bookings in proportion to their
    /// own prices; with why.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub custom_total: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub custom_pricing_reason: Option<String>,
    /// The confirm answer of a card payment: the PaymentIntent's client secret, for the
    /// provider's browser library (the same as `payment.clientSecret`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cardpay_client_secret: Option<String>,
    /// The confirm answer of a card or bank payment: what the customer does to pay.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub payment: Option<crate::payments::dto::PaymentAction>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

impl BookingGroupDto {
    /// The group at `now`; `staff` shows its internal notes.
    pub fn of(g: &BookingGroup, now: DateTime<Utc>, staff: bool) -> Self {
        let pricing = (!g.bookings.is_empty()).then(|| {
            // What the group costs now: its cancelled bookings and lapsed holds cost
            // nothing (what was paid for them is their own refund's business).
            let prices: Vec<_> = g
                .bookings
                .iter()
                .filter(|b| !matches!(b.status, BookingStatus::Canceled | BookingStatus::Expired))
                .map(|b| (b.booking_id, &b.price))
                .collect();
            GroupPricingDto::of(&kairos_store::group_pricing(
                &g.currency,
                g.pricing_method(),
                &prices,
            ))
        });
        BookingGroupDto {
            id: g.id,
            reference: g.reference.clone(),
            status: g.status(now).as_str().to_owned(),
            group_type: g.group_type.as_str().to_owned(),
            package_id: g.package_id,
            party_size: g.party_size,
            customer_name: g.customer.name.clone(),
            customer_email: g.customer.email.clone(),
            customer_phone: g.customer.phone.clone(),
            hold_expires_at: g.hold_expires_at,
            bookings: g
                .bookings
                .iter()
                .map(|b| GroupBookingDto {
                    booking_id: b.booking_id,
                    reference: b.reference.clone(),
                    status: b.status.as_str().to_owned(),
                    product_id: b.product_id,
                    site_id: b.site_id,
                    slot_id: b.slot_id,
                    party_size: b.party_size,
                    starts_at: b.starts_at,
                    ends_at: b.ends_at,
                    total: major(b.price.total, &b.price.currency),
                })
                .collect(),
            activities: g
                .items
                .iter()
                .map(|i| GroupActivityDto {
                    booking_id: i.id,
                    product_id: i.product_id,
                    site_id: i.site_id,
                    slot_id: i.slot_id,
                    party_size: i.party_size,
                })
                .collect(),
            pricing,
            internal_notes: if staff {
                g.internal_notes.clone()
            } else {
                None
            },
            group_token: None,
            payment_method: g.payment_method.map(|m| m.as_str().to_ascii_uppercase()),
            confirmed_at: g.confirmed_at,
            custom_total: g.custom_total.map(|t| {
                let currency = g
                    .bookings
                    .first()
                    .map_or(g.currency.as_str(), |b| b.price.currency.as_str());
                major(t, currency)
            }),
            custom_pricing_reason: g.custom_pricing_reason.clone(),
            cardpay_client_secret: None,
            payment: None,
            created_at: g.created_at,
            updated_at: g.updated_at,
        }
    }
}
