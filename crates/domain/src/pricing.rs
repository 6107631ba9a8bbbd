//! Prices: base price by party size, and tax inclusive or exclusive (basis points).
//!
//! All arithmetic is in integer minor units; tax rounds half away from zero.
//!
//! The words of a price, one meaning each (docs/ARCHITECTURE.md, "Prices"): the
//! *subtotal* is what the items cost as priced, before discounts; promotions come off it;
//! the *tax* is computed on the discounted price; vouchers pay part of what is left; the
//! *total* is what the customer pays.

use crate::promotions::{Cart, Promotion, Stacked, stack};

crate::text_enum! {
    /// How a product's base price applies.
    pub enum PriceType {
        PerPerson = "per_person",
        PerBooking = "per_booking",
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
pub(crate) fn mul_div_round(value: i64, numerator: i64, denominator: i64) -> i64 {
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

/// How a variant changes the base price.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VariantPrice {
    /// The product's base price.
    Base,
    /// Base price plus this amount (may be negative; the result never goes below zero).
    Adjustment(i64),
    /// This amount instead of the base price.
    Override(i64),
}

crate::text_enum! {
    /// How an add-on is chosen (spec Part B 2.2).
    pub enum AddonMode {
        /// A checkbox: quantity 1.
        YesNo = "yesno",
        /// The customer enters a quantity.
        FreeQty = "free_qty",
        /// One per participant: quantity is the party size.
        PerParticipant = "per_participant",
    }
}

/// How an add-on is priced; amounts in minor units, percentages in basis points.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AddonPrice {
    /// `amount` per unit.
    Fixed(i64),
    /// `amount` per person per unit.
    PerPerson(i64),
    /// A share of the base price line, in basis points, per unit.
    Percentage(i32),
}

/// One chosen add-on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AddonChoice {
    pub id: String,
    pub name: String,
    pub mode: AddonMode,
    pub price: AddonPrice,
    /// As requested; yes/no add-ons count 1 and per-participant ones the party size.
    pub quantity: u32,
}

/// Places of a booking taken by one participant type at that type's own price per
/// person (a child's ticket); the party's other places are at the activity's price.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TypedPlaces {
    /// The type's key (`child`).
    pub key: String,
    pub name: String,
    /// Minor units per person; replaces the activity's (and its variant's) price.
    pub unit_price: i64,
    pub quantity: u32,
}

/// Whether `key` is a participant type's key: 1 to 40 of `a-z`, `0-9` and `_`.
pub fn is_type_key(key: &str) -> bool {
    !key.is_empty()
        && key.len() <= 40
        && key
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
}

/// A priced line of typed places.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TypedLine {
    pub key: String,
    pub name: String,
    pub quantity: u32,
    pub unit_price: i64,
    pub total: i64,
}

/// The base price line of a party: for a per-person product, the typed places at their
/// type's price (never more of them than the party) and the rest at `unit`; a
/// per-booking product's price is the booking's, whoever comes. Returns the line, the
/// typed lines and, when places differ in price, each place's price cheapest first (what
/// people-based promotions count; empty when every place is at `unit`).
pub fn party_line(
    unit: i64,
    price_type: PriceType,
    party_size: u32,
    typed: &[TypedPlaces],
) -> (i64, Vec<TypedLine>, Vec<i64>) {
    if price_type == PriceType::PerBooking {
        return (
            base_price(unit, price_type, party_size),
            Vec::new(),
            Vec::new(),
        );
    }
    let mut left = party_size;
    let lines: Vec<TypedLine> = typed
        .iter()
        .filter_map(|t| {
            let quantity = t.quantity.min(left);
            left -= quantity;
            let unit_price = t.unit_price.max(0);
            (quantity > 0).then(|| TypedLine {
                key: t.key.clone(),
                name: t.name.clone(),
                quantity,
                unit_price,
                total: unit_price.saturating_mul(i64::from(quantity)),
            })
        })
        .collect();
    let rest = left;
    let line = lines
        .iter()
        .fold(base_price(unit, price_type, rest), |sum, l| {
            sum.saturating_add(l.total)
        });
    let places = if lines.is_empty() {
        Vec::new()
    } else {
        let mut places: Vec<i64> = lines
            .iter()
            .flat_map(|l| std::iter::repeat_n(l.unit_price, l.quantity as usize))
            .chain(std::iter::repeat_n(unit, rest as usize))
            .collect();
        places.sort_unstable();
        places
    };
    (line, lines, places)
}

/// Everything that determines a booking's price.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PriceInput {
    pub currency: String,
    pub party_size: u32,
    pub base_price: i64,
    pub price_type: PriceType,
    /// Places at a participant type's own price (per-person products only).
    pub participant_types: Vec<TypedPlaces>,
    pub variant_id: Option<String>,
    pub variant: VariantPrice,
    pub addons: Vec<AddonChoice>,
    pub tax_rate_bp: i32,
    pub prices_include_tax: bool,
}

/// A priced add-on line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AddonLine {
    pub id: String,
    pub name: String,
    pub quantity: u32,
    pub total: i64,
}

/// A price breakdown in minor units, with its pricing hash.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Quote {
    pub currency: String,
    /// The base price line (unit price × party, or per booking), typed places included.
    pub base_price: i64,
    /// The typed places inside the base price line.
    pub participant_types: Vec<TypedLine>,
    pub addons: Vec<AddonLine>,
    /// Base price plus add-ons, as priced (tax included when prices include tax), before
    /// any discount.
    pub subtotal: i64,
    /// What the promotions take off the subtotal, stacked (zero without promotions).
    pub promotion_discount: i64,
    /// How the promotions stacked; `None` without promotions.
    pub stacking: Option<Stacked>,
    /// The tax of the discounted price: inside it when prices include tax, on top of it
    /// otherwise.
    pub tax: i64,
    /// What vouchers pay, in the order they were applied, each up to what was left.
    pub vouchers: Vec<VoucherLine>,
    /// The sum of `vouchers`.
    pub voucher_applied: i64,
    /// What the customer pays: the discounted price (plus tax when prices exclude it),
    /// less what vouchers pay.
    pub total: i64,
    /// Deterministic digest of every input and result that makes the price.
    pub pricing_hash: String,
}

/// A voucher's part of a price.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VoucherLine {
    pub id: String,
    /// Minor units.
    pub amount: i64,
}

/// Prices a booking without discounts or vouchers.
pub fn quote(input: &PriceInput) -> Quote {
    quote_with(input, &[], &[])
}

/// Prices a booking with `promotions` stacked on its subtotal (see
/// [`crate::promotions::stack`]) and `vouchers` (id, amount wanted) paying the rest, in the
/// order given, each up to what is left. Tax is computed on the discounted price: vouchers
/// are a way to pay, not a discount, so they do not change the tax.
pub fn quote_with(input: &PriceInput, promotions: &[Promotion], vouchers: &[VoucherLine]) -> Quote {
    quote_agreed(input, None, promotions, vouchers)
}

/// As [`quote_with`], for a booking whose price before discounts was agreed rather than
/// taken from its lines: its share of a booking group's package price or of staff's total
/// for the group. `agreed` replaces the subtotal and, like every agreed total, includes
/// tax, whichever way the product's prices are shown; promotions and vouchers apply to it
/// as to any subtotal. The lines stay the catalog's, so the breakdown still says what was
/// booked.
pub fn quote_agreed(
    input: &PriceInput,
    agreed: Option<i64>,
    promotions: &[Promotion],
    vouchers: &[VoucherLine],
) -> Quote {
    let unit = match input.variant {
        VariantPrice::Base => input.base_price,
        VariantPrice::Adjustment(delta) => input.base_price.saturating_add(delta).max(0),
        VariantPrice::Override(amount) => amount.max(0),
    };
    let party = i64::from(input.party_size);
    let (base_line, typed, places) = party_line(
        unit,
        input.price_type,
        input.party_size,
        &input.participant_types,
    );
    let addons: Vec<AddonLine> = input
        .addons
        .iter()
        .map(|a| {
            let quantity = match a.mode {
                AddonMode::YesNo => a.quantity.min(1),
                AddonMode::FreeQty => a.quantity,
                AddonMode::PerParticipant => input.party_size,
            };
            let q = i64::from(quantity);
            let total = match a.price {
                AddonPrice::Fixed(amount) => amount.saturating_mul(q),
                AddonPrice::PerPerson(amount) => match a.mode {
                    // One unit per participant is already per person.
                    AddonMode::PerParticipant => amount.saturating_mul(q),
                    _ => amount.saturating_mul(q).saturating_mul(party),
                },
                AddonPrice::Percentage(bp) => {
                    mul_div_round(base_line, i64::from(bp), 10_000).saturating_mul(q)
                }
            };
            AddonLine {
                id: a.id.clone(),
                name: a.name.clone(),
                quantity,
                total,
            }
        })
        .collect();
    let subtotal = agreed.map_or_else(
        || {
            addons
                .iter()
                .fold(base_line, |acc, l| acc.saturating_add(l.total))
        },
        |a| a.max(0),
    );
    let unit = match agreed {
        Some(a) if input.party_size > 0 => a.max(0) / party,
        _ => unit,
    };
    let stacking = (!promotions.is_empty()).then(|| {
        let cart = Cart {
            subtotal,
            party_size: input.party_size,
            unit_price: (input.price_type == PriceType::PerPerson).then_some(unit),
            // An agreed price is shared equally by the party.
            places: if agreed.is_some() { &[] } else { &places },
        };
        stack(&cart, promotions)
    });
    let promotion_discount = stacking.as_ref().map_or(0, |s| s.total_discount);
    let mut totals = tax_of(
        subtotal - promotion_discount,
        input.tax_rate_bp,
        input.prices_include_tax || agreed.is_some(),
    );
    totals.subtotal = subtotal;
    let mut left = totals.total;
    let vouchers: Vec<VoucherLine> = vouchers
        .iter()
        .map(|v| {
            let amount = v.amount.clamp(0, left);
            left -= amount;
            VoucherLine {
                id: v.id.clone(),
                amount,
            }
        })
        .collect();
    let voucher_applied = totals.total - left;
    totals.total = left;
    let reductions = Reductions {
        stacking: stacking.as_ref(),
        vouchers: &vouchers,
    };
    let pricing_hash = hash(
        input,
        (base_line, agreed),
        (&typed, &addons),
        &reductions,
        totals,
    );
    Quote {
        currency: input.currency.clone(),
        base_price: base_line,
        participant_types: typed,
        addons,
        subtotal,
        promotion_discount,
        stacking,
        tax: totals.tax,
        vouchers,
        voucher_applied,
        total: totals.total,
        pricing_hash,
    }
}

/// What comes off a price, for its hash.
struct Reductions<'a> {
    stacking: Option<&'a Stacked>,
    vouchers: &'a [VoucherLine],
}

fn hash(
    input: &PriceInput,
    (base_line, agreed): (i64, Option<i64>),
    (typed, addons): (&[TypedLine], &[AddonLine]),
    reductions: &Reductions<'_>,
    totals: Totals,
) -> String {
    use sha2::{Digest, Sha256};
    let mut canonical = format!(
        "v1|{}|party={}|base={}|type={}|variant={}:{:?}|tax={}:{}|line={}",
        input.currency,
        input.party_size,
        input.base_price,
        input.price_type.as_str(),
        input.variant_id.as_deref().unwrap_or("-"),
        input.variant,
        input.tax_rate_bp,
        input.prices_include_tax,
        base_line
    );
    // Without typed places the digest is the one of a price before participant types.
    for t in typed {
        canonical.push_str(&format!(
            "|ptype={}x{}@{}={}",
            t.key, t.quantity, t.unit_price, t.total
        ));
    }
    let mut lines: Vec<&AddonLine> = addons.iter().collect();
    lines.sort_by(|a, b| a.id.cmp(&b.id));
    for l in lines {
        canonical.push_str(&format!("|addon={}x{}={}", l.id, l.quantity, l.total));
    }
    if let Some(agreed) = agreed {
        canonical.push_str(&format!("|agreed={agreed}"));
    }
    // Without discounts or vouchers the digest is the one of a plain price.
    if let Some(stacking) = reductions.stacking {
        for line in &stacking.breakdown {
            canonical.push_str(&format!(
                "|promo={}:{}:{}",
                line.promotion_id,
                line.promotion_type.as_str(),
                line.discount_applied
            ));
        }
    }
    for v in reductions.vouchers {
        canonical.push_str(&format!("|voucher={}={}", v.id, v.amount));
    }
    canonical.push_str(&format!(
        "|sub={}|taxed={}|total={}",
        totals.subtotal, totals.tax, totals.total
    ));
    let digest = Sha256::digest(canonical.as_bytes());
    format!("ph1_{}", hex::encode(&digest[..16]))
}

#[cfg(test)]
#[path = "pricing_tests.rs"]
mod quote_tests;
