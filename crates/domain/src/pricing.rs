//! Prices: base price by party size, and tax inclusive or exclusive (basis points).
//!
//! All arithmetic is in integer minor units; tax rounds half away from zero.

use serde::{Deserialize, Serialize};

/// How a product's base price applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PriceType {
    PerPerson,
    PerBooking,
}

impl PriceType {
    pub fn as_str(self) -> &'static str {
        match self {
            PriceType::PerPerson => "per_person",
            PriceType::PerBooking => "per_booking",
        }
    }

    pub fn parse(s: &str) -> Option<PriceType> {
        match s {
            "per_person" => Some(PriceType::PerPerson),
            "per_booking" => Some(PriceType::PerBooking),
            _ => None,
        }
    }
}

/// Subtotal, tax and total in minor units.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Totals {
    /// What the items cost as priced (gross when prices include tax, net otherwise).
    pub subtotal: i64,
    pub tax: i64,
    /// What the customer pays.
    pub total: i64,
}

/// `value × numerator / denominator`, rounded half away from zero, in i128.
fn mul_div_round(value: i64, numerator: i64, denominator: i64) -> i64 {
    if denominator == 0 {
        return 0;
    }
    let v = i128::from(value) * i128::from(numerator);
    let d = i128::from(denominator);
    let q = (v.abs() + d / 2) / d;
    let q = if v < 0 { -q } else { q };
    i64::try_from(q).unwrap_or(if q < 0 { i64::MIN } else { i64::MAX })
}

/// Tax of `amount` at `rate_bp` basis points.
pub fn tax_of(amount: i64, rate_bp: i32, inclusive: bool) -> Totals {
    let rate = i64::from(rate_bp);
    if inclusive {
        let tax = mul_div_round(amount, rate, 10_000 + rate);
        Totals {
            subtotal: amount,
            tax,
            total: amount,
        }
    } else {
        let tax = mul_div_round(amount, rate, 10_000);
        Totals {
            subtotal: amount,
            tax,
            total: amount.saturating_add(tax),
        }
    }
}

/// The price of `party_size` at `base_price` minor units with tax applied.
pub fn base_price(base_price: i64, price_type: PriceType, party_size: u32) -> i64 {
    match price_type {
        PriceType::PerPerson => base_price.saturating_mul(i64::from(party_size)),
        PriceType::PerBooking => base_price,
    }
}

/// Percentage with two decimals (24.5 %) to basis points (2450).
pub fn percent_to_bp(percent: f64) -> Option<i32> {
    if !percent.is_finite() || !(0.0..=100.0).contains(&percent) {
        return None;
    }
    let bp = (percent * 100.0).round();
    ((percent * 100.0 - bp).abs() < 1e-6).then_some(bp as i32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inclusive_tax_is_extracted_from_the_gross_price() {
        // 120.00 including 25.5 % VAT: 24.38 tax.
        assert_eq!(
            tax_of(12_000, 2_550, true),
            Totals {
                subtotal: 12_000,
                tax: 2_438,
                total: 12_000
            }
        );
    }

    #[test]
    fn exclusive_tax_is_added() {
        assert_eq!(
            tax_of(1_000, 2_400, false),
            Totals {
                subtotal: 1_000,
                tax: 240,
                total: 1_240
            }
        );
        assert_eq!(tax_of(1_005, 1_000, false).tax, 101, "half rounds up");
        assert_eq!(tax_of(0, 2_400, false), Totals::default());
    }

    #[test]
    fn base_price_by_party() {
        assert_eq!(base_price(1_800, PriceType::PerPerson, 4), 7_200);
        assert_eq!(base_price(12_000, PriceType::PerBooking, 4), 12_000);
    }

    #[test]
    fn percentages_to_basis_points() {
        assert_eq!(percent_to_bp(24.0), Some(2_400));
        assert_eq!(percent_to_bp(25.5), Some(2_550));
        assert_eq!(percent_to_bp(10.125), None);
        assert_eq!(percent_to_bp(-1.0), None);
        assert_eq!(percent_to_bp(101.0), None);
    }
}
