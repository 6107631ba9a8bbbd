//! Pricing a booking from catalog records, and the site policies a booking follows.
//!
//! Pure functions over the records the write transaction read (ARCHITECTURE: decisions
//! inside the transaction); the arithmetic is `kairos_domain::pricing::quote`.

use crate::{Addon, BookingAddon, ChosenAddon, PriceBreakdown, Product, Reductions, Variant};
use kairos_domain::FieldErrors;
use kairos_domain::catalog::{AddonPriceType, AddonType, VariantPriceMode};
use kairos_domain::pricing::{
    AddonChoice, AddonMode, AddonPrice, PriceInput, VariantPrice, VoucherLine, quote_agreed,
};
use kairos_domain::promotions::Promotion;
use kairos_domain::tenancy::Currency;

/// What a booking chose beside its product: catalog add-ons and resource add-ons.
#[derive(Debug, Clone, Copy, Default)]
pub struct Chosen<'a> {
    pub addons: &'a [ChosenAddon],
    pub resources: &'a [BookingAddon],
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
    let input = PriceInput {
        currency: currency.code().to_owned(),
        party_size,
        base_price: product.base_price,
        price_type: product.price_type,
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
