//! Pricing a booking from catalog records, and the site policies a booking follows.
//!
//! Pure functions over the records the write transaction read (ARCHITECTURE: decisions
//! inside the transaction); the arithmetic is `kairos_domain::pricing::quote`.

use crate::{
    Addon, BookingAddon, ChosenAddon, ChosenType, PriceBreakdown, Product, Reductions, Variant,
};
use kairos_domain::FieldErrors;
use kairos_domain::catalog::{AddonPriceType, AddonType, VariantPriceMode};
use kairos_domain::pricing::{
    AddonChoice, AddonMode, AddonPrice, PriceInput, PriceType, TypedPlaces, VariantPrice,
    VoucherLine, quote_agreed,
};
use kairos_domain::promotions::Promotion;
use kairos_domain::tenancy::Currency;

/// What a booking chose beside its product: catalog add-ons and resource add-ons.
#[derive(Debug, Clone, Copy, Default)]
pub struct Chosen<'a> {
    pub addons: &'a [ChosenAddon],
    pub resources: &'a [BookingAddon],
    /// Places at a participant type's own price; a type the product no longer offers is
    /// priced as any other place (callers refuse it first: `withdrawn_type`).
    pub types: &'a [ChosenType],
    /// The booking's share of its group's agreed price, which replaces its subtotal
    /// (`kairos_domain::pricing::quote_agreed`) but for its resource add-ons, priced on top.
    pub agreed: Option<i64>,
}

/// Prices a booking from the catalog as it is now. `chosen` add-ons must exist, be
/// active and belong to the product (checked by the caller for new bookings; on confirm an
/// add-on that disappeared simply changes the price). `reductions` are the booking's
/// promotions and vouchers. `resources` are the booking's live resource add-ons, each a
/// line at the price it was taken for.
pub fn price_booking(
    product: &Product,
    variant: Option<&Variant>,
    catalog: &[Addon],
    Chosen {
        addons: chosen,
        resources,
        types,
        agreed,
    }: Chosen<'_>,
    party_size: u32,
    currency: Currency,
    reductions: &Reductions,
) -> PriceBreakdown {
    let variant_price = match variant.map(|v| (v.price_mode, v.price_amount)) {
        None | Some((VariantPriceMode::None, _)) => VariantPrice::Base,
        Some((VariantPriceMode::Adjustment, amount)) => VariantPrice::Adjustment(amount),
        Some((VariantPriceMode::Override, amount)) => VariantPrice::Override(amount),
    };
    let addons = chosen
        .iter()
        .filter_map(|c| {
            let a = catalog.iter().find(|a| a.id == c.addon_id && a.is_active)?;
            let mode = a.mode;
            let price = match a.price_type {
                AddonPriceType::Fixed => AddonPrice::Fixed(a.amount),
                AddonPriceType::PerPerson => AddonPrice::PerPerson(a.amount),
                // Percentages are stored in basis points, validated when the add-on was saved.
                AddonPriceType::Percentage => {
                    AddonPrice::Percentage(i32::try_from(a.amount).unwrap_or(i32::MAX))
                }
            };
            Some(AddonChoice {
                id: a.id.to_string(),
                name: a.name.clone(),
                mode,
                price,
                quantity: c.quantity,
            })
        })
        .chain(resources.iter().map(|r| AddonChoice {
            id: r.addon_id.to_string(),
            name: r.addon_name.clone(),
            mode: AddonMode::YesNo,
            price: AddonPrice::Fixed(r.allocation.request.price),
            quantity: 1,
        }))
        .collect();
    // What was agreed covers the booking as agreed; resource add-ons taken since are
    // priced on top of it.
    let agreed = agreed.map(|a| {
        resources
            .iter()
            .fold(a, |sum, r| sum.saturating_add(r.allocation.request.price))
    });
    let participant_types = types
        .iter()
        .filter_map(|c| {
            let t = product.participant_types.iter().find(|t| t.key == c.key)?;
            Some(TypedPlaces {
                key: t.key.clone(),
                name: t.name.clone(),
                unit_price: t.price,
                quantity: c.quantity,
            })
        })
        .collect();
    let input = PriceInput {
        currency: currency.code().to_owned(),
        party_size,
        base_price: product.base_price,
        price_type: product.price_type,
        participant_types,
        variant_id: variant.map(|v| v.id.to_string()),
        variant: variant_price,
        addons,
        tax_rate_bp: product.tax_rate_bp,
        prices_include_tax: product.prices_include_tax,
    };
    let promotions: Vec<Promotion> = reductions
        .promotions
        .iter()
        .map(|p| Promotion {
            id: p.promotion_id.to_string(),
            code: p.code.clone(),
            discount: p.discount,
            stackable: p.is_stackable,
        })
        .collect();
    let vouchers: Vec<VoucherLine> = reductions
        .vouchers
        .iter()
        .map(|v| VoucherLine {
            id: v.voucher_id.to_string(),
            amount: v.amount,
        })
        .collect();
    PriceBreakdown::of(
        &quote_agreed(&input, agreed, &promotions, &vouchers),
        reductions,
    )
}

/// Checks chosen add-ons against the product's catalog: each must exist for the product,
/// be active and appear once; quantities follow the add-on's mode.
pub fn check_addons(errors: &mut FieldErrors, catalog: &[Addon], chosen: &[ChosenAddon]) {
    for (i, c) in chosen.iter().enumerate() {
        let field = format!("addons[{i}]");
        if chosen[..i].iter().any(|o| o.addon_id == c.addon_id) {
            errors.add(format!("{field}.addonId"), "is listed twice");
            continue;
        }
        let Some(addon) = catalog.iter().find(|a| a.id == c.addon_id && a.is_active) else {
            errors.add(
                format!("{field}.addonId"),
                "is not an active add-on of this product",
            );
            continue;
        };
        if addon.addon_type == AddonType::Resource {
            errors.add(
                format!("{field}.addonId"),
                "is a resource add-on: choose its window with POST /bookings/{id}/resource-addons",
            );
            continue;
        }
        match addon.mode {
            AddonMode::YesNo if c.quantity != 1 => {
                errors.add(format!("{field}.quantity"), "must be 1 for a yes/no add-on");
            }
            _ if c.quantity == 0 => errors.add(format!("{field}.quantity"), "must be at least 1"),
            _ => {
                if let Some(max) = addon.max_quantity
                    && i64::from(c.quantity) > i64::from(max)
                {
                    errors.add(
                        format!("{field}.quantity"),
                        format!("must be at most {max}"),
                    );
                }
            }
        }
    }
}

/// The booking's choice of participant types, read back from its price.
pub fn chosen_types(price: &PriceBreakdown) -> Vec<ChosenType> {
    price
        .participant_types
        .iter()
        .map(|t| ChosenType {
            key: t.key.clone(),
            quantity: t.quantity,
        })
        .collect()
}

/// Whether a chosen participant type is no longer offered by the product.
pub fn withdrawn_type(product: &Product, chosen: &[ChosenType]) -> bool {
    chosen
        .iter()
        .any(|c| !product.participant_types.iter().any(|t| t.key == c.key))
}

/// Checks a new booking's participant types against its product: each offered by the
/// product and listed once, at least 1 place, and no more typed places than the party.
pub fn check_types(errors: &mut FieldErrors, product: &Product, chosen: &[ChosenType], party: u32) {
    if !chosen.is_empty() && product.price_type != PriceType::PerPerson {
        errors.add(
            "participantTypes",
            "this product is priced per booking: its price does not depend on who comes",
        );
        return;
    }
    let mut typed = 0u32;
    for (i, c) in chosen.iter().enumerate() {
        let field = format!("participantTypes[{i}]");
        if chosen[..i].iter().any(|o| o.key == c.key) {
            errors.add(format!("{field}.type"), "is listed twice");
        } else if !product.participant_types.iter().any(|t| t.key == c.key) {
            let offered: Vec<&str> = product
                .participant_types
                .iter()
                .map(|t| t.key.as_str())
                .collect();
            errors.add(
                format!("{field}.type"),
                if offered.is_empty() {
                    "this product has no participant types".to_owned()
                } else {
                    format!("must be one of: {}", offered.join(", "))
                },
            );
        }
        if c.quantity == 0 {
            errors.add(format!("{field}.quantity"), "must be at least 1");
        }
        typed = typed.saturating_add(c.quantity);
    }
    if typed > party {
        errors.add(
            "participantTypes",
            format!("name {typed} places by type, more than the party of {party}"),
        );
    }
}

/// A party made smaller keeps its participant types as far as they fit: the places
/// without a type go first, then the last-listed types' places.
pub fn shrink_types(chosen: &[ChosenType], party: u32) -> Vec<ChosenType> {
    let mut left = party;
    chosen
        .iter()
        .filter_map(|c| {
            let quantity = c.quantity.min(left);
            left -= quantity;
            (quantity > 0).then(|| ChosenType {
                key: c.key.clone(),
                quantity,
            })
        })
        .collect()
}

/// The places by type staff give for a smaller party (`newParticipantTypes`), checked
/// against the party `before` (its size and places by type): nobody is added, so each
/// type keeps at most the places it had, and the untyped places at most theirs.
pub fn check_fewer_types(
    (before_party, before): (u32, &[ChosenType]),
    chosen: &[ChosenType],
    party: u32,
) -> Result<Vec<ChosenType>, FieldErrors> {
    let mut errors = FieldErrors::new();
    let mut typed = 0u32;
    for (i, c) in chosen.iter().enumerate() {
        let field = format!("newParticipantTypes[{i}]");
        let had = before
            .iter()
            .find(|b| b.key == c.key)
            .map_or(0, |b| b.quantity);
        if chosen[..i].iter().any(|o| o.key == c.key) {
            errors.add(format!("{field}.type"), "is listed twice");
        } else if c.quantity > had {
            errors.add(
                format!("{field}.quantity"),
                format!(
                    "the booking has {had} {} places: a smaller party keeps at most those",
                    c.key
                ),
            );
        }
        typed = typed.saturating_add(c.quantity);
    }
    let before_typed = before
        .iter()
        .fold(0u32, |n, b| n.saturating_add(b.quantity));
    let untyped_before = before_party.saturating_sub(before_typed);
    if typed > party {
        errors.add(
            "newParticipantTypes",
            format!("name {typed} places by type, more than the party of {party}"),
        );
    } else if party - typed > untyped_before {
        errors.add(
            "newParticipantTypes",
            format!(
                "leave {} places at the full price, but the booking has {untyped_before}: say which typed places stay",
                party - typed
            ),
        );
    }
    errors.finish()?;
    Ok(chosen.iter().filter(|c| c.quantity > 0).cloned().collect())
}
