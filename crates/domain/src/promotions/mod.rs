//! Promotions: what each type takes off a booking, and how several stack.
//!
//! Amounts are integer minor units of the booking's currency. The *subtotal* is what the
//! booking's items cost as priced, before any discount (as [`crate::pricing::Totals`]
//! defines it); discounts come off it.
//!
//! Stacking (spec Part A 4.7, rules 1 to 4):
//! - The canonical order is by type, then by code (ascending, case-insensitive): `bundle`
//!   and `buy_x_get_y` first (they change what the people of the party pay), then
//!   `fixed_amount`, then `percentage`. The order in which codes were applied never
//!   matters.
//! - Each promotion is computed on the subtotal left by the previous one; the total
//!   discount never exceeds the subtotal.
//! - A non-stackable promotion is never combined: met first, it applies and stacking stops
//!   after it; met after others have applied, it does not apply and stacking stops there.
//!   Either way the result says `stacking_stopped`, `stopped_by` and why.

use crate::pricing::mul_div_round;

mod eligibility;
pub mod stats;

pub use eligibility::{Context, Ineligible, Rules, eligibility};

crate::text_enum! {
    /// The status filter of the admin promotion list (spec Part A 3.3), computed from the
    /// clock: `active` is switched on and inside its validity window, `upcoming` starts
    /// later, `expired` has ended.
    pub enum PromotionStatus {
        Active = "active",
        Expired = "expired",
        Upcoming = "upcoming",
        All = "all",
    }
}

crate::text_enum! {
    /// What a promotion does (spec Part A 2.5; `buy_x_get_y` and `bundle` from export and
    /// import).
    pub enum PromotionType {
        /// `discount_value` percent off the subtotal left, capped at `max_discount_amount`.
        Percentage = "percentage",
        /// `discount_value` off the subtotal left.
        FixedAmount = "fixed_amount",
        /// Of every `buy + free` people in the party, `free` pay nothing.
        BuyXGetY = "buy_x_get_y",
        /// Every complete group of `size` people pays `discount_value` together instead of
        /// their price.
        Bundle = "bundle",
    }
}

impl PromotionType {
    /// Position in the canonical stacking order.
    fn rank(self) -> u8 {
        match self {
            PromotionType::Bundle => 0,
            PromotionType::BuyXGetY => 1,
            PromotionType::FixedAmount => 2,
            PromotionType::Percentage => 3,
        }
    }
}

/// What a promotion takes off, by type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Discount {
    /// Basis points of the subtotal left (1000 = 10 %), capped at `cap` minor units.
    Percentage { basis_points: i32, cap: Option<i64> },
    /// Minor units.
    FixedAmount { amount: i64 },
    /// Of every `buy + free` people, `free` go free.
    BuyXGetY { buy: u32, free: u32 },
    /// Every complete group of `size` people pays `price` minor units together.
    Bundle { size: u32, price: i64 },
}

impl Discount {
    pub fn promotion_type(&self) -> PromotionType {
        match self {
            Discount::Percentage { .. } => PromotionType::Percentage,
            Discount::FixedAmount { .. } => PromotionType::FixedAmount,
            Discount::BuyXGetY { .. } => PromotionType::BuyXGetY,
            Discount::Bundle { .. } => PromotionType::Bundle,
        }
    }
}

/// A promotion as stacking sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Promotion {
    pub id: String,
    pub code: String,
    pub discount: Discount,
    pub stackable: bool,
}

/// What the promotions apply to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cart<'a> {
    /// Before any discount, in minor units.
    pub subtotal: i64,
    /// People in the party.
    pub party_size: u32,
    /// What one person pays as priced, when the product is priced per person (the people
    /// based types need it; without it they take nothing off).
    pub unit_price: Option<i64>,
    /// Each place's price, cheapest first, when the places differ (participant types
    /// with their own price); empty: every place is at `unit_price`.
    pub places: &'a [i64],
}

/// One promotion's part of a stacked discount (`discountBreakdown[]`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BreakdownLine {
    pub promotion_id: String,
    pub code: String,
    pub promotion_type: PromotionType,
    pub discount_applied: i64,
    pub subtotal_before: i64,
    pub subtotal_after: i64,
}

/// The result of stacking a set of promotions on a cart.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stacked {
    /// Ids in the order they were considered (the canonical order).
    pub processing_order: Vec<String>,
    /// Codes in the canonical order.
    pub canonical_order: Vec<String>,
    /// The promotions that applied, in order.
    pub breakdown: Vec<BreakdownLine>,
    pub total_discount: i64,
    pub stacking_stopped: bool,
    /// The non-stackable promotion that stopped stacking.
    pub stopped_by: Option<String>,
    pub reason: Option<String>,
}

/// What `discount` takes off when `left` remains of the subtotal (never more than `left`).
pub fn discount_of(discount: &Discount, cart: &Cart, left: i64) -> i64 {
    let left = left.max(0);
    let raw = match *discount {
        Discount::Percentage { basis_points, cap } => {
            let off = mul_div_round(left, i64::from(basis_points), 10_000);
            cap.map_or(off, |cap| off.min(cap.max(0)))
        }
        Discount::FixedAmount { amount } => amount,
        // The free places are the cheapest ones.
        Discount::BuyXGetY { buy, free } => match cart.unit_price {
            Some(unit) if buy + free > 0 => {
                let freed = (cart.party_size / (buy + free)).saturating_mul(free);
                if cart.places.is_empty() {
                    unit.saturating_mul(i64::from(freed))
                } else {
                    let n = usize::try_from(freed).unwrap_or(usize::MAX);
                    cart.places
                        .iter()
                        .take(n)
                        .fold(0i64, |sum, p| sum.saturating_add(*p))
                }
            }
            _ => 0,
        },
        // Each complete group costs the bundle's price instead of its places; the groups
        // take the dearest places (the customer's best), and a group already cheaper than
        // the bundle keeps its price.
        Discount::Bundle { size, price } => match cart.unit_price {
            Some(unit) if size > 0 => {
                let groups = cart.party_size / size;
                if cart.places.is_empty() {
                    let group_price = unit.saturating_mul(i64::from(size));
                    i64::from(groups).saturating_mul((group_price - price).max(0))
                } else {
                    let size = usize::try_from(size).unwrap_or(usize::MAX);
                    let groups = usize::try_from(groups).unwrap_or(0);
                    cart.places
                        .rchunks(size)
                        .take(groups)
                        .filter(|g| g.len() == size)
                        .map(|g| {
                            let sum = g.iter().fold(0i64, |s, p| s.saturating_add(*p));
                            (sum - price).max(0)
                        })
                        .fold(0i64, |sum, d| sum.saturating_add(d))
                }
            }
            _ => 0,
        },
    };
    raw.clamp(0, left)
}

/// Stacks `promotions` on `cart` in the canonical order (see the module).
pub fn stack(cart: &Cart, promotions: &[Promotion]) -> Stacked {
    let mut ordered: Vec<&Promotion> = promotions.iter().collect();
    ordered.sort_by(|a, b| {
        (
            a.discount.promotion_type().rank(),
            a.code.to_lowercase(),
            &a.id,
        )
            .cmp(&(
                b.discount.promotion_type().rank(),
                b.code.to_lowercase(),
                &b.id,
            ))
    });
    let mut result = Stacked {
        processing_order: ordered.iter().map(|p| p.id.clone()).collect(),
        canonical_order: ordered.iter().map(|p| p.code.clone()).collect(),
        breakdown: Vec::new(),
        total_discount: 0,
        stacking_stopped: false,
        stopped_by: None,
        reason: None,
    };
    let mut left = cart.subtotal.max(0);
    for promotion in ordered {
        if !promotion.stackable && !result.breakdown.is_empty() {
            result.stacking_stopped = true;
            result.stopped_by = Some(promotion.id.clone());
            result.reason = Some(format!(
                "{} is not stackable and cannot be combined with the promotions before it",
                promotion.code
            ));
            break;
        }
        let off = discount_of(&promotion.discount, cart, left);
        result.breakdown.push(BreakdownLine {
            promotion_id: promotion.id.clone(),
            code: promotion.code.clone(),
            promotion_type: promotion.discount.promotion_type(),
            discount_applied: off,
            subtotal_before: left,
            subtotal_after: left - off,
        });
        left -= off;
        result.total_discount += off;
        if !promotion.stackable {
            result.stacking_stopped = true;
            result.stopped_by = Some(promotion.id.clone());
            result.reason = Some(format!(
                "{} is not stackable: no further promotion applies",
                promotion.code
            ));
            break;
        }
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn promo(id: &str, code: &str, discount: Discount, stackable: bool) -> Promotion {
        Promotion {
            id: id.to_owned(),
            code: code.to_owned(),
            discount,
            stackable,
        }
    }

    fn cart(subtotal: i64) -> Cart<'static> {
        Cart {
            subtotal,
            party_size: 1,
            unit_price: Some(subtotal),
            places: &[],
        }
    }

    #[test]
    fn percentage_takes_its_share_of_what_is_left_up_to_its_cap() {
        let ten = Discount::Percentage {
            basis_points: 1000,
            cap: None,
        };
        assert_eq!(discount_of(&ten, &cart(12_000), 12_000), 1200);
        // Half a cent rounds away from zero.
        assert_eq!(discount_of(&ten, &cart(12_345), 12_345), 1235);
        let capped = Discount::Percentage {
            basis_points: 5000,
            cap: Some(1000),
        };
        assert_eq!(discount_of(&capped, &cart(12_000), 12_000), 1000);
    }

    #[test]
    fn fixed_amount_never_takes_more_than_is_left() {
        let five = Discount::FixedAmount { amount: 500 };
        assert_eq!(discount_of(&five, &cart(12_000), 12_000), 500);
        assert_eq!(discount_of(&five, &cart(300), 300), 300);
    }

    #[test]
    fn buy_x_get_y_frees_one_of_every_group() {
        // "Bring 4, one goes free": buy 3, get 1.
        let deal = Discount::BuyXGetY { buy: 3, free: 1 };
        let party = |n: u32| Cart {
            subtotal: 2500 * i64::from(n),
            party_size: n,
            unit_price: Some(2500),
            places: &[],
        };
        assert_eq!(discount_of(&deal, &party(3), 7500), 0);
        assert_eq!(discount_of(&deal, &party(4), 10_000), 2500);
        assert_eq!(discount_of(&deal, &party(7), 17_500), 2500);
        assert_eq!(discount_of(&deal, &party(8), 20_000), 5000);
        // Priced per booking: there is no person to make free.
        let per_booking = Cart {
            subtotal: 10_000,
            party_size: 8,
            unit_price: None,
            places: &[],
        };
        assert_eq!(discount_of(&deal, &per_booking, 10_000), 0);
    }

    #[test]
    fn a_bundle_prices_each_complete_group() {
        // "Family of four for 80 €" at 25 € a person.
        let family = Discount::Bundle {
            size: 4,
            price: 8000,
        };
        let party = |n: u32| Cart {
            subtotal: 2500 * i64::from(n),
            party_size: n,
            unit_price: Some(2500),
            places: &[],
        };
        assert_eq!(discount_of(&family, &party(3), 7500), 0);
        assert_eq!(discount_of(&family, &party(4), 10_000), 2000);
        assert_eq!(discount_of(&family, &party(9), 22_500), 4000);
        // A bundle dearer than its people takes nothing off (and adds nothing).
        let dear = Discount::Bundle {
            size: 2,
            price: 6000,
        };
        assert_eq!(discount_of(&dear, &party(2), 5000), 0);
    }

    #[test]
    fn fixed_amounts_come_first_then_percentages_each_by_code() {
        let promotions = [
            promo(
                "p1",
                "TENOFF",
                Discount::Percentage {
                    basis_points: 1000,
                    cap: None,
                },
                true,
            ),
            promo("p2", "FIVE", Discount::FixedAmount { amount: 500 }, true),
            promo(
                "p3",
                "ALPHA",
                Discount::Percentage {
                    basis_points: 500,
                    cap: None,
                },
                true,
            ),
            promo("p4", "BONUS", Discount::FixedAmount { amount: 1000 }, true),
        ];
        let s = stack(&cart(12_000), &promotions);
        assert_eq!(s.canonical_order, ["BONUS", "FIVE", "ALPHA", "TENOFF"]);
        assert_eq!(s.processing_order, ["p4", "p2", "p3", "p1"]);
        // 120.00 - 10 - 5 = 105.00; 5 % = 5.25 → 99.75; 10 % = 9.98 (9.975 rounded) → 89.77.
        let applied: Vec<i64> = s.breakdown.iter().map(|l| l.discount_applied).collect();
        assert_eq!(applied, [1000, 500, 525, 998]);
        assert_eq!(s.breakdown[3].subtotal_after, 12_000 - 3023);
        assert_eq!(s.total_discount, 3023);
        assert!(!s.stacking_stopped);
    }

    #[test]
    fn a_non_stackable_promotion_is_never_combined() {
        let lone = promo("lone", "LONE", Discount::FixedAmount { amount: 700 }, false);
        let other = promo("other", "AAA", Discount::FixedAmount { amount: 100 }, true);
        let late = promo(
            "late",
            "ZZZ",
            Discount::Percentage {
                basis_points: 1000,
                cap: None,
            },
            true,
        );

        // Met after another: it does not apply, and stacking stops there.
        let s = stack(&cart(10_000), &[lone.clone(), other.clone(), late.clone()]);
        assert_eq!(s.breakdown.len(), 1);
        assert_eq!(s.breakdown[0].code, "AAA");
        assert!(s.stacking_stopped);
        assert_eq!(s.stopped_by.as_deref(), Some("lone"));
        assert!(s.reason.is_some());

        // Met first: it applies alone.
        let s = stack(&cart(10_000), &[late, lone]);
        assert_eq!(s.breakdown.len(), 1);
        assert_eq!(s.breakdown[0].code, "LONE");
        assert_eq!(s.total_discount, 700);
        assert_eq!(s.stopped_by.as_deref(), Some("lone"));
    }

    fn any_discount() -> impl Strategy<Value = Discount> {
        prop_oneof![
            (1..=10_000i32, proptest::option::of(0..100_000i64))
                .prop_map(|(basis_points, cap)| Discount::Percentage { basis_points, cap }),
            (1..200_000i64).prop_map(|amount| Discount::FixedAmount { amount }),
            (1..5u32, 1..3u32).prop_map(|(buy, free)| Discount::BuyXGetY { buy, free }),
            (1..6u32, 0..50_000i64).prop_map(|(size, price)| Discount::Bundle { size, price }),
        ]
    }

    fn any_promotions() -> impl Strategy<Value = Vec<Promotion>> {
        proptest::collection::vec((any_discount(), any::<bool>(), "[A-Z]{1,6}"), 0..6).prop_map(
            |items| {
                items
                    .into_iter()
                    .enumerate()
                    .map(|(i, (discount, stackable, code))| Promotion {
                        id: format!("p{i}"),
                        code,
                        discount,
                        stackable,
                    })
                    .collect()
            },
        )
    }

    fn any_cart() -> impl Strategy<Value = Cart<'static>> {
        (1..30u32, 0..20_000i64, any::<bool>()).prop_map(|(party_size, unit, per_person)| Cart {
            subtotal: unit * i64::from(party_size),
            party_size,
            unit_price: per_person.then_some(unit),
            places: &[],
        })
    }

    proptest! {
        #[test]
        fn the_discount_never_exceeds_the_subtotal(cart in any_cart(), promotions in any_promotions()) {
            let s = stack(&cart, &promotions);
            prop_assert!(s.total_discount >= 0);
            prop_assert!(s.total_discount <= cart.subtotal);
            prop_assert_eq!(s.total_discount, s.breakdown.iter().map(|l| l.discount_applied).sum::<i64>());
            let mut left = cart.subtotal;
            for line in &s.breakdown {
                prop_assert_eq!(line.subtotal_before, left);
                prop_assert!(line.discount_applied >= 0);
                left = line.subtotal_after;
            }
        }

        #[test]
        fn the_order_codes_were_applied_in_does_not_matter(
            cart in any_cart(),
            (promotions, shuffled) in any_promotions()
                .prop_flat_map(|p| (Just(p.clone()), Just(p).prop_shuffle())),
        ) {
            prop_assert_eq!(stack(&cart, &promotions), stack(&cart, &shuffled));
        }

        #[test]
        fn the_canonical_order_is_by_type_then_code(cart in any_cart(), promotions in any_promotions()) {
            let s = stack(&cart, &promotions);
            let keys: Vec<(u8, String)> = s
                .processing_order
                .iter()
                .filter_map(|id| promotions.iter().find(|p| &p.id == id))
                .map(|p| (p.discount.promotion_type().rank(), p.code.to_lowercase()))
                .collect();
            let mut sorted = keys.clone();
            sorted.sort();
            prop_assert_eq!(keys, sorted);
        }
    }
}
