//! Packages: products booked together as one booking group (groupType PACKAGE) at a
//! package price. Not in the spec; the design is in docs/ARCHITECTURE.md ("Packages").

use serde::Serialize;

/// Products a package holds: at least two (one is a booking), at most a group's activities.
pub const MIN_PRODUCTS: usize = 2;
pub const MAX_PRODUCTS: usize = crate::booking_groups::MAX_ACTIVITIES;

/// How a package is priced.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE", tag = "type", content = "amount")]
pub enum PackagePrice {
    /// A price per person for all its activities together (minor units).
    PackagePrice(i64),
    /// A percentage off the activities' own prices (basis points, 1 to 10000).
    PercentOff(i32),
}

impl PackagePrice {
    /// `PACKAGE_PRICE` or `PERCENT_OFF`.
    pub fn kind(self) -> &'static str {
        match self {
            PackagePrice::PackagePrice(_) => "PACKAGE_PRICE",
            PackagePrice::PercentOff(_) => "PERCENT_OFF",
        }
    }

    /// What a group of `party` people pays for the package whose activities cost
    /// `catalog_total` at their own prices (minor units; a percentage off rounds the
    /// discount half up).
    pub fn total(self, party: i32, catalog_total: i64) -> i64 {
        match self {
            PackagePrice::PackagePrice(per_person) => per_person.saturating_mul(i64::from(party)),
            PackagePrice::PercentOff(bp) => {
                let off = (i128::from(catalog_total) * i128::from(bp) + 5_000) / 10_000;
                catalog_total - i64::try_from(off).unwrap_or(catalog_total)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_package_price_is_per_person_and_a_percentage_comes_off_the_sum() {
        assert_eq!(PackagePrice::PackagePrice(4_500).total(4, 20_000), 18_000);
        assert_eq!(PackagePrice::PercentOff(1_500).total(4, 20_000), 17_000);
        // 15 % of 99.99 is 14.9985: 15.00 off.
        assert_eq!(PackagePrice::PercentOff(1_500).total(1, 9_999), 8_499);
        assert_eq!(PackagePrice::PercentOff(10_000).total(3, 12_345), 0);
    }
}
