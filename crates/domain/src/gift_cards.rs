//! Gift card products (spec Part A 2.7, 4.10): what a venue sells as a gift card, and
//! the amount a purchase of one is for. Amounts are minor units here.

use crate::validation::FieldErrors;
use uuid::Uuid;

text_enum! {
    /// How a product's value is chosen.
    pub enum ValueType {
        /// One value (`fixedValue`).
        Fixed = "fixed",
        /// The buyer picks within `minValue`..`maxValue`.
        CustomRange = "custom_range",
    }
}

text_enum! {
    /// Where a gift card purchase stands (spec Part A 3.2).
    pub enum PurchaseStatus {
        /// Awaiting payment.
        Pending = "pending",
        /// The card was declined; paying again (another card) makes it pending.
        PaymentFailed = "payment_failed",
        /// Paid: the voucher exists; its delivery email is queued for `deliveryDate`.
        Paid = "paid",
        /// The delivery email was sent.
        Delivered = "delivered",
        /// Given up (never paid by the payment deadline) or refunded (its unused voucher
        /// withdrawn).
        Cancelled = "cancelled",
    }
}

impl PurchaseStatus {
    /// Whether the purchase was paid (a voucher exists).
    pub fn is_paid(self) -> bool {
        matches!(self, PurchaseStatus::Paid | PurchaseStatus::Delivered)
    }

    /// Whether a payment for it may (still) be made.
    pub fn can_pay(self) -> bool {
        matches!(
            self,
            PurchaseStatus::Pending | PurchaseStatus::PaymentFailed
        )
    }
}

/// Most suggested values a custom-range product shows.
pub const MAX_SUGGESTED: usize = 10;
/// Longest voucher lifetime, in days.
pub const MAX_VALIDITY_DAYS: i32 = 3650;
/// Largest gift card value in minor units (100,000.00).
pub const MAX_VALUE: i64 = 10_000_000;

/// A product's fields.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProductFields {
    /// None: every site.
    pub site_id: Option<Uuid>,
    pub name: String,
    pub description: String,
    pub value_type: ValueType,
    pub fixed_value: Option<i64>,
    pub min_value: Option<i64>,
    pub max_value: Option<i64>,
    pub suggested_values: Vec<i64>,
    pub validity_days: i32,
    pub image_url: Option<String>,
    pub is_active: bool,
    pub display_order: i32,
}

/// Changes to a product: `None` leaves a field; `Some(None)` clears a nullable one.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProductPatch {
    pub site_id: Option<Option<Uuid>>,
    pub name: Option<String>,
    pub description: Option<String>,
    pub value_type: Option<ValueType>,
    pub fixed_value: Option<Option<i64>>,
    pub min_value: Option<Option<i64>>,
    pub max_value: Option<Option<i64>>,
    pub suggested_values: Option<Vec<i64>>,
    pub validity_days: Option<i32>,
    pub image_url: Option<Option<String>>,
    pub is_active: Option<bool>,
    pub display_order: Option<i32>,
}

fn value_ok(v: i64) -> bool {
    v > 0 && v <= MAX_VALUE
}

impl ProductFields {
    /// `self` with `patch` laid over it.
    pub fn patched(self, p: ProductPatch) -> ProductFields {
        ProductFields {
            site_id: p.site_id.unwrap_or(self.site_id),
            name: p.name.unwrap_or(self.name),
            description: p.description.unwrap_or(self.description),
            value_type: p.value_type.unwrap_or(self.value_type),
            fixed_value: p.fixed_value.unwrap_or(self.fixed_value),
            min_value: p.min_value.unwrap_or(self.min_value),
            max_value: p.max_value.unwrap_or(self.max_value),
            suggested_values: p.suggested_values.unwrap_or(self.suggested_values),
            validity_days: p.validity_days.unwrap_or(self.validity_days),
            image_url: p.image_url.unwrap_or(self.image_url),
            is_active: p.is_active.unwrap_or(self.is_active),
            display_order: p.display_order.unwrap_or(self.display_order),
        }
    }

    /// Every rule of a product, each broken one named by its field.
    pub fn check(&self) -> Result<(), FieldErrors> {
        let mut e = FieldErrors::new();
        let name = self.name.trim();
        if name.is_empty() || name.chars().count() > 200 {
            e.add("name", "must be 1 to 200 characters");
        }
        if self.description.chars().count() > 2000 {
            e.add("description", "must be at most 2000 characters");
        }
        let range = format!("must be more than 0 and at most {}", MAX_VALUE / 100);
        match self.value_type {
            ValueType::Fixed => {
                match self.fixed_value {
                    None => e.add("fixedValue", "is required for a fixed product"),
                    Some(v) if !value_ok(v) => e.add("fixedValue", range.clone()),
                    Some(_) => {}
                }
                for (field, v) in [("minValue", self.min_value), ("maxValue", self.max_value)] {
                    if v.is_some() {
                        e.add(field, "is only for custom_range products");
                    }
                }
                if !self.suggested_values.is_empty() {
                    e.add("suggestedValues", "is only for custom_range products");
                }
            }
            ValueType::CustomRange => {
                if self.fixed_value.is_some() {
                    e.add("fixedValue", "is only for fixed products");
                }
                match (self.min_value, self.max_value) {
                    (None, _) => e.add("minValue", "is required for a custom_range product"),
                    (Some(v), _) if !value_ok(v) => e.add("minValue", range.clone()),
                    _ => {}
                }
                match (self.min_value, self.max_value) {
                    (_, None) => e.add("maxValue", "is required for a custom_range product"),
                    (_, Some(v)) if !value_ok(v) => e.add("maxValue", range.clone()),
                    (Some(min), Some(max)) if max < min => {
                        e.add("maxValue", "must not be less than minValue");
                    }
                    _ => {}
                }
                if self.suggested_values.len() > MAX_SUGGESTED {
                    e.add(
                        "suggestedValues",
                        format!("must have at most {MAX_SUGGESTED} values"),
                    );
                } else if let (Some(min), Some(max)) = (self.min_value, self.max_value)
                    && self.suggested_values.iter().any(|v| *v < min || *v > max)
                {
                    e.add("suggestedValues", "must lie within minValue and maxValue");
                }
            }
        }
        if !(1..=MAX_VALIDITY_DAYS).contains(&self.validity_days) {
            e.add("validityDays", format!("must be 1 to {MAX_VALIDITY_DAYS}"));
        }
        if let Some(url) = &self.image_url
            && !crate::validation::is_web_address(url)
        {
            e.add(
                "imageUrl",
                "must be an http(s) address of at most 2000 characters",
            );
        }
        if self.display_order < 0 {
            e.add("displayOrder", "must not be negative");
        }
        e.finish()
    }

    /// The value of a gift card bought from this product: the fixed value, or the
    /// requested amount within the range (spec GIFT_CARD_INVALID_AMOUNT otherwise).
    pub fn purchase_amount(&self, requested: Option<i64>) -> Result<i64, InvalidAmount> {
        match self.value_type {
            ValueType::Fixed => self.fixed_value.ok_or(InvalidAmount::Missing),
            ValueType::CustomRange => {
                let (Some(min), Some(max)) = (self.min_value, self.max_value) else {
                    return Err(InvalidAmount::Missing);
                };
                let amount = requested.ok_or(InvalidAmount::Missing)?;
                if amount < min || amount > max {
                    return Err(InvalidAmount::OutOfRange { min, max });
                }
                Ok(amount)
            }
        }
    }
}

/// Why a purchase amount was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum InvalidAmount {
    #[error("an amount is required")]
    Missing,
    #[error("the amount must be from {min} to {max} (minor units)")]
    OutOfRange { min: i64, max: i64 },
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixed() -> ProductFields {
        ProductFields {
            site_id: None,
            name: "Escape for two".into(),
            description: String::new(),
            value_type: ValueType::Fixed,
            fixed_value: Some(5000),
            min_value: None,
            max_value: None,
            suggested_values: Vec::new(),
            validity_days: 365,
            image_url: None,
            is_active: true,
            display_order: 0,
        }
    }

    fn fields_of(r: Result<(), FieldErrors>) -> Vec<String> {
        r.err()
            .map(|e| e.into_vec().into_iter().map(|f| f.field).collect())
            .unwrap_or_default()
    }

    #[test]
    fn a_fixed_product_has_one_value_and_no_range() {
        assert_eq!(fixed().check(), Ok(()));
        let p = ProductFields {
            fixed_value: None,
            min_value: Some(1),
            suggested_values: vec![100],
            ..fixed()
        };
        assert_eq!(
            fields_of(p.check()),
            ["fixedValue", "minValue", "suggestedValues"]
        );
        assert_eq!(fixed().purchase_amount(Some(1)), Ok(5000));
    }

    #[test]
    fn a_custom_range_holds_its_suggestions_and_purchases() {
        let p = fixed().patched(ProductPatch {
            value_type: Some(ValueType::CustomRange),
            fixed_value: Some(None),
            min_value: Some(Some(2000)),
            max_value: Some(Some(20000)),
            suggested_values: Some(vec![2500, 5000]),
            ..ProductPatch::default()
        });
        assert_eq!(p.check(), Ok(()));
        assert_eq!(p.purchase_amount(Some(7500)), Ok(7500));
        assert_eq!(
            p.purchase_amount(Some(1999)),
            Err(InvalidAmount::OutOfRange {
                min: 2000,
                max: 20000
            })
        );
        assert_eq!(p.purchase_amount(None), Err(InvalidAmount::Missing));
        let bad = ProductFields {
            max_value: Some(1000),
            suggested_values: vec![30000],
            ..p.clone()
        };
        assert_eq!(fields_of(bad.check()), ["maxValue", "suggestedValues"]);
        let too_many = ProductFields {
            suggested_values: vec![2500; 11],
            ..p
        };
        assert_eq!(fields_of(too_many.check()), ["suggestedValues"]);
    }

    #[test]
    fn names_lifetimes_and_images_are_checked() {
        let p = ProductFields {
            name: " ".into(),
            validity_days: 0,
            image_url: Some("ftp://x".into()),
            display_order: -1,
            ..fixed()
        };
        assert_eq!(
            fields_of(p.check()),
            ["name", "validityDays", "imageUrl", "displayOrder"]
        );
    }
}
