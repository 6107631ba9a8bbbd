//! A booking as the public endpoints show it.

use super::pricing::major;
use crate::openapi::schemas::{BookingStatusSchema, PaymentMethodSchema};
use chrono::{DateTime, Utc};
use kairos_store::{Booking, PriceBreakdown};
use serde::Serialize;
use serde_json::Value;
use utoipa::ToSchema;

/// A price breakdown in major units.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PriceDto {
    pub base_price: f64,
    pub addons: Vec<AddonLineDto>,
    /// What the items cost as priced, before any discount: tax included when the
    /// product's prices include it.
    pub subtotal: f64,
    /// The tax in the subtotal (prices including tax) or on top of it (prices without).
    pub tax: f64,
    /// What the customer pays.
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

impl From<&PriceBreakdown> for PriceDto {
    fn from(p: &PriceBreakdown) -> Self {
        let m = |v| major(v, &p.currency);
        PriceDto {
            base_price: m(p.base_price),
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
            tax: m(p.tax),
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
    #[schema(value_type = Vec<Object>)]
    pub participants: Value,
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
            participants: b.participants.clone(),
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
        }
    }
}
