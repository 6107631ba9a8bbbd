//! Tests of `quote`: lines, tax, promotions and vouchers, agreed prices, the hash.

use super::*;

fn input() -> PriceInput {
    PriceInput {
        currency: "EUR".into(),
        party_size: 4,
        base_price: 2_000,
        price_type: PriceType::PerPerson,
        participant_types: Vec::new(),
        variant_id: None,
        variant: VariantPrice::Base,
        addons: Vec::new(),
        tax_rate_bp: 2_400,
        prices_include_tax: true,
    }
}

fn addon(id: &str, mode: AddonMode, price: AddonPrice, quantity: u32) -> AddonChoice {
    AddonChoice {
        id: id.into(),
        name: id.into(),
        mode,
        price,
        quantity,
    }
}

#[test]
fn base_price_by_party_with_inclusive_tax() {
    let q = quote(&input());
    assert_eq!(
        (q.base_price, q.subtotal, q.tax, q.total),
        (8_000, 8_000, 1_548, 8_000)
    );
}

#[test]
fn exclusive_tax_is_added_on_top() {
    let q = quote(&PriceInput {
        prices_include_tax: false,
        ..input()
    });
    assert_eq!((q.subtotal, q.tax, q.total), (8_000, 1_920, 9_920));
}

#[test]
fn variants_adjust_or_override_the_unit_price() {
    let cheaper = quote(&PriceInput {
        variant: VariantPrice::Adjustment(-500),
        ..input()
    });
    assert_eq!(cheaper.base_price, 6_000);
    let floor = quote(&PriceInput {
        variant: VariantPrice::Adjustment(-5_000),
        ..input()
    });
    assert_eq!(floor.base_price, 0);
    let flat = quote(&PriceInput {
        variant: VariantPrice::Override(1_000),
        price_type: PriceType::PerBooking,
        ..input()
    });
    assert_eq!(flat.base_price, 1_000);
}

#[test]
fn addons_by_mode_and_price_type() {
    let q = quote(&PriceInput {
        addons: vec![
            addon("photo", AddonMode::YesNo, AddonPrice::Fixed(990), 3),
            addon(
                "shoes",
                AddonMode::PerParticipant,
                AddonPrice::PerPerson(400),
                1,
            ),
            addon("chalk", AddonMode::FreeQty, AddonPrice::Fixed(250), 2),
            addon("guide", AddonMode::YesNo, AddonPrice::PerPerson(500), 1),
            addon("vip", AddonMode::YesNo, AddonPrice::Percentage(1_000), 1),
        ],
        ..input()
    });
    let totals: Vec<(u32, i64)> = q.addons.iter().map(|l| (l.quantity, l.total)).collect();
    assert_eq!(
        totals,
        [(1, 990), (4, 1_600), (2, 500), (1, 2_000), (1, 800)]
    );
    assert_eq!(q.subtotal, 8_000 + 990 + 1_600 + 500 + 2_000 + 800);
}

#[test]
fn the_hash_is_stable_and_changes_with_any_price_input() {
    let a = quote(&input());
    assert_eq!(a.pricing_hash, quote(&input()).pricing_hash);
    assert!(a.pricing_hash.starts_with("ph1_"));
    for changed in [
        PriceInput {
            party_size: 5,
            ..input()
        },
        PriceInput {
            base_price: 2_001,
            ..input()
        },
        PriceInput {
            tax_rate_bp: 2_550,
            ..input()
        },
        PriceInput {
            prices_include_tax: false,
            ..input()
        },
        PriceInput {
            currency: "USD".into(),
            ..input()
        },
        PriceInput {
            variant_id: Some("v1".into()),
            variant: VariantPrice::Adjustment(0),
            ..input()
        },
        PriceInput {
            addons: vec![addon("x", AddonMode::FreeQty, AddonPrice::Fixed(0), 1)],
            ..input()
        },
    ] {
        assert_ne!(quote(&changed).pricing_hash, a.pricing_hash, "{changed:?}");
    }
    // Add-on order does not matter.
    let one = PriceInput {
        addons: vec![
            addon("a", AddonMode::YesNo, AddonPrice::Fixed(1), 1),
            addon("b", AddonMode::YesNo, AddonPrice::Fixed(2), 1),
        ],
        ..input()
    };
    let mut two = one.clone();
    two.addons.reverse();
    assert_eq!(quote(&one).pricing_hash, quote(&two).pricing_hash);
}

fn promo(id: &str, discount: crate::promotions::Discount) -> Promotion {
    Promotion {
        id: id.into(),
        code: id.to_uppercase(),
        discount,
        stackable: true,
    }
}

#[test]
fn tax_is_computed_after_discounts_inside_an_inclusive_price() {
    // 120.00 including 25.5 % VAT, 10 % off: 108.00 paid, of which 21.94 is tax.
    let input = PriceInput {
        party_size: 1,
        base_price: 12_000,
        tax_rate_bp: 2_550,
        ..input()
    };
    let ten = promo(
        "p1",
        crate::promotions::Discount::Percentage {
            basis_points: 1_000,
            cap: None,
        },
    );
    let q = quote_with(&input, &[ten], &[]);
    assert_eq!(
        (q.subtotal, q.promotion_discount, q.tax, q.total),
        (12_000, 1_200, 2_194, 10_800)
    );
    assert_ne!(q.pricing_hash, quote(&input).pricing_hash);
}

#[test]
fn tax_is_added_to_the_discounted_price_when_prices_exclude_it() {
    let input = PriceInput {
        prices_include_tax: false,
        ..input()
    };
    let five = promo(
        "p1",
        crate::promotions::Discount::FixedAmount { amount: 500 },
    );
    let q = quote_with(&input, &[five], &[]);
    // 80.00 - 5.00 = 75.00 net, 24 % tax 18.00, 93.00 to pay.
    assert_eq!(
        (q.subtotal, q.promotion_discount, q.tax, q.total),
        (8_000, 500, 1_800, 9_300)
    );
}

#[test]
fn vouchers_pay_what_is_left_in_order_and_never_more() {
    let v = |id: &str, amount| VoucherLine {
        id: id.into(),
        amount,
    };
    let q = quote_with(&input(), &[], &[v("a", 5_000), v("b", 5_000)]);
    assert_eq!(q.vouchers, [v("a", 5_000), v("b", 3_000)]);
    assert_eq!((q.voucher_applied, q.total, q.tax), (8_000, 0, 1_548));
    let partial = quote_with(&input(), &[], &[v("a", 2_500)]);
    assert_eq!((partial.voucher_applied, partial.total), (2_500, 5_500));
    assert_ne!(partial.pricing_hash, quote(&input()).pricing_hash);
    assert_ne!(partial.pricing_hash, q.pricing_hash);
}

#[test]
fn without_reductions_the_price_and_hash_are_the_plain_ones() {
    let plain = quote(&input());
    let with_nothing = quote_with(&input(), &[], &[]);
    assert_eq!(plain, with_nothing);
    assert_eq!((plain.promotion_discount, plain.voucher_applied), (0, 0));
    assert!(plain.stacking.is_none());
}

#[test]
fn an_agreed_price_replaces_the_subtotal_tax_included_and_takes_discounts() {
    // Tax-exclusive catalog prices: the agreed share is still what is paid before discounts.
    let exclusive = PriceInput {
        prices_include_tax: false,
        ..input()
    };
    let agreed = quote_agreed(&exclusive, Some(6_200), &[], &[]);
    assert_eq!((agreed.subtotal, agreed.total), (6_200, 6_200));
    assert_eq!(agreed.tax, 1_200, "24 % inside 62.00");
    assert_eq!(agreed.base_price, 8_000, "the lines stay the catalog's");
    let ten_off = promo(
        "ten",
        crate::promotions::Discount::Percentage {
            basis_points: 1_000,
            cap: None,
        },
    );
    let voucher = VoucherLine {
        id: "v".into(),
        amount: 1_000,
    };
    let q = quote_agreed(&exclusive, Some(6_200), &[ten_off], &[voucher]);
    assert_eq!(
        (q.subtotal, q.promotion_discount, q.voucher_applied, q.total),
        (6_200, 620, 1_000, 4_580)
    );
    let catalog = quote_with(&exclusive, &[], &[]);
    assert_ne!(agreed.pricing_hash, catalog.pricing_hash);
    assert_ne!(
        agreed.pricing_hash,
        quote_agreed(&exclusive, Some(6_201), &[], &[]).pricing_hash
    );
}

fn typed(key: &str, unit_price: i64, quantity: u32) -> TypedPlaces {
    TypedPlaces {
        key: key.into(),
        name: key.to_uppercase(),
        unit_price,
        quantity,
    }
}

#[test]
fn typed_places_are_priced_at_their_type_and_the_rest_at_the_activity() {
    // 4 people at 20.00, two of them children at 12.00: 2 × 20.00 + 2 × 12.00.
    let kids = PriceInput {
        participant_types: vec![typed("child", 1_200, 2)],
        variant: VariantPrice::Adjustment(500),
        ..input()
    };
    let q = quote(&kids);
    assert_eq!(
        q.base_price,
        2 * 2_500 + 2 * 1_200,
        "the variant prices the rest only"
    );
    assert_eq!(q.participant_types.len(), 1);
    assert_eq!(
        (
            q.participant_types[0].quantity,
            q.participant_types[0].total
        ),
        (2, 2_400)
    );
    // Per-participant add-ons still count every place; percentage ones the whole line.
    let with_addons = quote(&PriceInput {
        addons: vec![
            addon(
                "helmet",
                AddonMode::PerParticipant,
                AddonPrice::PerPerson(300),
                0,
            ),
            addon("photos", AddonMode::YesNo, AddonPrice::Percentage(1_000), 1),
        ],
        ..kids.clone()
    });
    assert_eq!(with_addons.subtotal, 7_400 + 4 * 300 + 740);
    // The hash tells a child's ticket from an adult's, and a price without types keeps the
    // digest it had before participant types existed.
    let plain = quote(&PriceInput {
        variant: VariantPrice::Adjustment(500),
        ..input()
    });
    assert_ne!(q.pricing_hash, plain.pricing_hash);
    let other_price = quote(&PriceInput {
        participant_types: vec![typed("child", 1_100, 2)],
        ..kids.clone()
    });
    assert_ne!(q.pricing_hash, other_price.pricing_hash);
    let empty = quote(&PriceInput {
        participant_types: vec![typed("child", 1_200, 0)],
        variant: VariantPrice::Adjustment(500),
        ..input()
    });
    assert_eq!(empty.pricing_hash, plain.pricing_hash);
}

#[test]
fn typed_places_never_price_more_people_than_the_party_and_not_a_per_booking_price() {
    let all = party_line(
        2_000,
        PriceType::PerPerson,
        3,
        &[typed("child", 1_000, 1), typed("senior", 1_500, 2)],
    );
    assert_eq!(
        (all.0, all.2),
        (1_000 + 3_000, vec![1_000, 1_500, 1_500]),
        "no place left at 20.00"
    );
    // More typed places than people are never priced: the party is.
    let over = party_line(2_000, PriceType::PerPerson, 3, &[typed("child", 1_000, 5)]);
    assert_eq!((over.0, over.1[0].quantity), (3_000, 3));
    let flat = party_line(
        12_000,
        PriceType::PerBooking,
        6,
        &[typed("child", 1_000, 2)],
    );
    assert_eq!((flat.0, flat.1.len()), (12_000, 0));
}

#[test]
fn a_free_place_of_a_people_promotion_is_the_cheapest_place() {
    // Buy 3 get 1 free on 2 adults at 20.00 and 2 children at 12.00: one child is free.
    let kids = PriceInput {
        participant_types: vec![typed("child", 1_200, 2)],
        prices_include_tax: true,
        ..input()
    };
    let deal = promo(
        "b3g1",
        crate::promotions::Discount::BuyXGetY { buy: 3, free: 1 },
    );
    let q = quote_with(&kids, &[deal], &[]);
    assert_eq!((q.subtotal, q.promotion_discount), (6_400, 1_200));
}

#[test]
fn a_childs_ticket_never_makes_a_people_promotion_dearer() {
    let adults = input();
    let one_child = PriceInput {
        participant_types: vec![typed("child", 1_200, 1)],
        ..input()
    };
    let total = |i: &PriceInput, d| quote_with(i, &[promo("p", d)], &[]).total;
    // Buy 1 get 1: the two cheapest places are free (the child and an adult).
    let b1g1 = crate::promotions::Discount::BuyXGetY { buy: 1, free: 1 };
    assert_eq!(total(&adults, b1g1), 4_000);
    assert_eq!(total(&one_child, b1g1), 7_200 - 1_200 - 2_000);
    // A family of four for 60.00: the group costs the bundle's price.
    let family = crate::promotions::Discount::Bundle {
        size: 4,
        price: 6_000,
    };
    assert_eq!(total(&adults, family), 6_000);
    assert_eq!(total(&one_child, family), 6_000);
    // Five people, one a child: the bundle takes the four dearest places, the child pays
    // a child's ticket.
    let five = PriceInput {
        party_size: 5,
        ..one_child.clone()
    };
    assert_eq!(total(&five, family), 6_000 + 1_200);
    // A bundle dearer than the group's places leaves them as priced.
    let kids = PriceInput {
        participant_types: vec![typed("child", 1_200, 4)],
        ..input()
    };
    assert_eq!(total(&kids, family), 4_800);
}
