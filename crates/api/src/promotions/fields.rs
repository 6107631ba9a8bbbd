//! The promotion fields a request may send, and their validation: one place for create
//! and update (and, later, import).

use crate::extract::{nullable, timestamp_param};
use crate::openapi::schemas::PromotionTypeSchema;
use kairos_domain::FieldErrors;
use kairos_domain::money::{from_major, to_major};
use kairos_domain::pricing::percent_to_bp;
use kairos_domain::promotions::{Discount, PromotionType};
use kairos_domain::tenancy::Currency;
use kairos_store::NewPromotion;
use serde::Deserialize;
use utoipa::ToSchema;
use uuid::Uuid;

/// Most sites or products one promotion may name.
const MAX_SCOPE_ITEMS: usize = 100;
/// Most people `buy_quantity`, a free count or `bundle_size` may name.
const MAX_PEOPLE: i64 = 100;

/// The fields of a discount in the API's units.
pub(super) struct DiscountFields {
    pub value: f64,
    pub buy_quantity: Option<u32>,
    pub bundle_size: Option<u32>,
    pub max_discount: Option<f64>,
}

pub(super) fn discount_fields(discount: &Discount, currency: Currency) -> DiscountFields {
    match *discount {
        Discount::Percentage { basis_points, cap } => DiscountFields {
            value: f64::from(basis_points) / 100.0,
            buy_quantity: None,
            bundle_size: None,
            max_discount: cap.map(|c| to_major(c, currency)),
        },
        Discount::FixedAmount { amount } => DiscountFields {
            value: to_major(amount, currency),
            buy_quantity: None,
            bundle_size: None,
            max_discount: None,
        },
        Discount::BuyXGetY { buy, free } => DiscountFields {
            value: f64::from(free),
            buy_quantity: Some(buy),
            bundle_size: None,
            max_discount: None,
        },
        Discount::Bundle { size, price } => DiscountFields {
            value: to_major(price, currency),
            buy_quantity: None,
            bundle_size: Some(size),
            max_discount: None,
        },
    }
}

/// Promotion fields (snake_case). On create `code`, `name`, `type`, `discount_value` and
/// `starts_at` are required (and `buy_quantity` for buy_x_get_y, `bundle_size` for
/// bundle); on update every field is optional, `null` clears the optional ones, and a
/// change of `type` needs its `discount_value`. `starts_at` must be before `expires_at`;
/// `max_discount_amount` applies to percentage promotions only.
#[derive(Debug, Default, Deserialize, ToSchema)]
pub struct PromotionInput {
    /// What customers type: letters, digits, `-` and `_`; unique in the tenant whatever
    /// its case.
    #[schema(
        min_length = 1,
        max_length = 50,
        pattern = "^[A-Za-z0-9_-]{1,50}$",
        example = "SUMMER10"
    )]
    pub code: Option<String>,
    #[schema(min_length = 1, max_length = 200, example = "Summer 10 %")]
    pub name: Option<String>,
    #[schema(max_length = 5000)]
    pub description: Option<String>,
    #[serde(rename = "type")]
    #[schema(value_type = Option<PromotionTypeSchema>)]
    pub promotion_type: Option<String>,
    /// By type: percent (0 < value ≤ 100), amount (> 0), free people (a whole number from
    /// 1 to 100), or bundle price (> 0).
    #[schema(
        exclusive_minimum = 0,
        maximum = 10000000000000.0,
        multiple_of = 0.01,
        example = 10
    )]
    pub discount_value: Option<f64>,
    /// buy_x_get_y: the people who pay in each group (1 to 100).
    #[serde(default, deserialize_with = "nullable")]
    #[schema(value_type = Option<u32>, minimum = 1, maximum = 100)]
    pub buy_quantity: Option<Option<i64>>,
    /// bundle: the people in one bundle (2 to 100).
    #[serde(default, deserialize_with = "nullable")]
    #[schema(value_type = Option<u32>, minimum = 2, maximum = 100)]
    pub bundle_size: Option<Option<i64>>,
    /// null: no minimum.
    #[serde(default, deserialize_with = "nullable")]
    #[schema(value_type = Option<f64>, minimum = 0, maximum = 10000000000000.0, multiple_of = 0.01)]
    pub min_spend_amount: Option<Option<f64>>,
    /// percentage only; null: no cap.
    #[serde(default, deserialize_with = "nullable")]
    #[schema(value_type = Option<f64>, exclusive_minimum = 0, maximum = 10000000000000.0, multiple_of = 0.01)]
    pub max_discount_amount: Option<Option<f64>>,
    #[schema(value_type = Option<DateTime<Utc>>)]
    pub starts_at: Option<String>,
    /// null: never.
    #[serde(default, deserialize_with = "nullable")]
    #[schema(value_type = Option<DateTime<Utc>>)]
    pub expires_at: Option<Option<String>>,
    /// Default false.
    pub is_stackable: Option<bool>,
    /// null: unlimited.
    #[serde(default, deserialize_with = "nullable")]
    #[schema(value_type = Option<u32>, minimum = 1, maximum = 100000000)]
    pub usage_limit: Option<Option<i64>>,
    /// Uses per customer (the account, else the email); null: unlimited.
    #[serde(default, deserialize_with = "nullable")]
    #[schema(value_type = Option<u32>, minimum = 1, maximum = 100000000)]
    pub per_customer_limit: Option<Option<i64>>,
    /// Site ids; empty: every site.
    #[schema(value_type = Option<Vec<uuid::Uuid>>, max_items = 100)]
    pub applicable_sites: Option<Vec<String>>,
    /// Product ids; empty: every product.
    #[schema(value_type = Option<Vec<uuid::Uuid>>, max_items = 100)]
    pub applicable_products: Option<Vec<String>>,
    /// Default true.
    pub is_active: Option<bool>,
    /// Default true.
    pub is_public: Option<bool>,
}

crate::openapi::schemas::create_form!(
    /// The create form of [`PromotionInput`].
    PromotionCreate = PromotionInput,
    "PromotionCreate",
    ["code", "name", "type", "discount_value", "starts_at"]
);

fn count_in(
    errors: &mut FieldErrors,
    field: &str,
    value: i64,
    range: std::ops::RangeInclusive<i64>,
) -> Option<i32> {
    if range.contains(&value) {
        i32::try_from(value).ok()
    } else {
        errors.add(
            field,
            format!(
                "must be a whole number from {} to {}",
                range.start(),
                range.end()
            ),
        );
        None
    }
}

fn ids(errors: &mut FieldErrors, field: &str, raw: Vec<String>) -> Vec<Uuid> {
    if !errors.at_most(field, raw.len(), MAX_SCOPE_ITEMS) {
        return Vec::new();
    }
    let mut parsed = Vec::new();
    for (i, r) in raw.iter().enumerate() {
        match kairos_domain::ids::parse_id(r) {
            Some(id) if !parsed.contains(&id) => parsed.push(id),
            Some(_) => {}
            None => errors.add(format!("{field}[{i}]"), "is not an id"),
        }
    }
    parsed
}

/// A major-unit amount in minor units; `positive` refuses zero too.
fn amount(
    errors: &mut FieldErrors,
    field: &str,
    value: f64,
    currency: Currency,
    positive: bool,
) -> Option<i64> {
    match from_major(value, currency) {
        Ok(0) if positive => {
            errors.add(field, "must be above 0");
            None
        }
        Ok(minor) => Some(minor),
        Err(e) => {
            errors.add(field, e.to_string());
            None
        }
    }
}

/// The discount of `input` over `base` (None: creating).
fn discount(
    errors: &mut FieldErrors,
    input: &PromotionInput,
    base: Option<&Discount>,
    currency: Currency,
) -> Option<Discount> {
    let base_type = base.map(Discount::promotion_type);
    if base.is_none() && input.discount_value.is_none() {
        // Named even when the type is missing too: every missing field at once.
        errors.add("discount_value", "is required");
    }
    let kind = match (input.promotion_type.as_deref(), base_type) {
        (None, None) => {
            errors.add("type", "is required");
            None
        }
        (None, Some(kind)) => Some(kind),
        (Some(raw), _) => {
            let parsed = PromotionType::parse(raw);
            if parsed.is_none() {
                errors.add("type", format!("must be {}", PromotionType::choices()));
            }
            parsed
        }
    }?;
    let base_same = base.filter(|b| b.promotion_type() == kind);
    let base_fields = base_same.map(|b| discount_fields(b, currency));
    let value = match (input.discount_value, &base_fields) {
        (Some(v), _) => Some(v),
        (None, Some(b)) => Some(b.value),
        (None, None) => {
            if base.is_some() {
                errors.add("discount_value", "is required when the type changes");
            }
            None
        }
    };
    let given = |field: &Option<Option<i64>>, base: Option<u32>| match field {
        None => base.map(i64::from),
        Some(v) => *v,
    };
    let buy = given(
        &input.buy_quantity,
        base_fields.as_ref().and_then(|b| b.buy_quantity),
    );
    let size = given(
        &input.bundle_size,
        base_fields.as_ref().and_then(|b| b.bundle_size),
    );
    let cap = match &input.max_discount_amount {
        None => base_fields.as_ref().and_then(|b| b.max_discount),
        Some(v) => *v,
    };
    if kind != PromotionType::BuyXGetY && input.buy_quantity.flatten().is_some() {
        errors.add("buy_quantity", "applies to buy_x_get_y promotions only");
    }
    if kind != PromotionType::Bundle && input.bundle_size.flatten().is_some() {
        errors.add("bundle_size", "applies to bundle promotions only");
    }
    if kind != PromotionType::Percentage && input.max_discount_amount.flatten().is_some() {
        errors.add(
            "max_discount_amount",
            "applies to percentage promotions only",
        );
    }
    let value = value?;
    match kind {
        PromotionType::Percentage => {
            let bp = percent_to_bp(value).filter(|bp| *bp > 0);
            if bp.is_none() {
                errors.add(
                    "discount_value",
                    "must be a percentage above 0 and at most 100, with at most two decimals",
                );
            }
            let cap = match cap {
                None => None,
                Some(c) => Some(amount(errors, "max_discount_amount", c, currency, true)?),
            };
            Some(Discount::Percentage {
                basis_points: bp?,
                cap,
            })
        }
        PromotionType::FixedAmount => {
            let off = amount(errors, "discount_value", value, currency, true)?;
            Some(Discount::FixedAmount { amount: off })
        }
        PromotionType::BuyXGetY => {
            let free = if value.fract() == 0.0 && (1.0..=100.0).contains(&value) {
                u32::try_from(value as i64).ok()
            } else {
                errors.add(
                    "discount_value",
                    "must be a whole number of free people from 1 to 100",
                );
                None
            };
            let buy = match buy {
                None => {
                    errors.add("buy_quantity", "is required for buy_x_get_y");
                    None
                }
                Some(b) => count_in(errors, "buy_quantity", b, 1..=MAX_PEOPLE),
            };
            Some(Discount::BuyXGetY {
                buy: u32::try_from(buy?).ok()?,
                free: free?,
            })
        }
        PromotionType::Bundle => {
            let price = amount(errors, "discount_value", value, currency, true);
            let size = match size {
                None => {
                    errors.add("bundle_size", "is required for bundle");
                    None
                }
                Some(s) => count_in(errors, "bundle_size", s, 2..=MAX_PEOPLE),
            };
            Some(Discount::Bundle {
                size: u32::try_from(size?).ok()?,
                price: price?,
            })
        }
    }
}

/// Merges `input` over `base` (None: creating) and validates the result.
pub(super) fn promotion_fields(
    input: PromotionInput,
    base: Option<&NewPromotion>,
    currency: Currency,
) -> Result<NewPromotion, FieldErrors> {
    let mut errors = FieldErrors::new();
    let discount = discount(&mut errors, &input, base.map(|b| &b.discount), currency);
    let code = match (&input.code, base) {
        (None, Some(b)) => b.code.clone(),
        (None, None) => {
            errors.add("code", "is required");
            String::new()
        }
        (Some(c), _) => {
            let c = c.trim();
            let ok = (1..=50).contains(&c.len())
                && c.chars()
                    .all(|ch| ch.is_ascii_alphanumeric() || ch == '-' || ch == '_');
            if !ok {
                errors.add(
                    "code",
                    "must be 1 to 50 letters, digits, '-' or '_' (for example SUMMER10)",
                );
            }
            c.to_owned()
        }
    };
    let name = match (&input.name, base) {
        (None, Some(b)) => b.name.clone(),
        (n, _) => {
            let n = n.as_deref().map(str::trim).unwrap_or_default();
            if n.is_empty() || n.chars().count() > 200 {
                errors.add("name", "is required: 1 to 200 characters");
            }
            n.to_owned()
        }
    };
    let description = match &input.description {
        None => base.map(|b| b.description.clone()).unwrap_or_default(),
        Some(d) => {
            if d.chars().count() > 5000 {
                errors.add("description", "must be at most 5000 characters");
            }
            d.trim().to_owned()
        }
    };
    let min_spend = match input.min_spend_amount {
        None => base.and_then(|b| b.min_spend),
        Some(None) => None,
        Some(Some(v)) => amount(&mut errors, "min_spend_amount", v, currency, false),
    };
    let starts_at = match (&input.starts_at, base) {
        (None, Some(b)) => Some(b.starts_at),
        (None, None) => {
            errors.add("starts_at", "is required");
            None
        }
        (Some(raw), _) => timestamp_param(&mut errors, "starts_at", raw),
    };
    let expires_at = match &input.expires_at {
        None => base.and_then(|b| b.expires_at),
        Some(None) => None,
        Some(Some(raw)) => timestamp_param(&mut errors, "expires_at", raw),
    };
    if let (Some(start), Some(end)) = (starts_at, expires_at)
        && start >= end
    {
        errors.add("expires_at", "must be after starts_at");
    }
    let limit =
        |errors: &mut FieldErrors, field: &str, given: Option<Option<i64>>, base| match given {
            None => base,
            Some(None) => None,
            Some(Some(v)) => count_in(errors, field, v, 1..=100_000_000),
        };
    let usage_limit = limit(
        &mut errors,
        "usage_limit",
        input.usage_limit,
        base.and_then(|b| b.usage_limit),
    );
    let per_customer_limit = limit(
        &mut errors,
        "per_customer_limit",
        input.per_customer_limit,
        base.and_then(|b| b.per_customer_limit),
    );
    let applicable_sites = match input.applicable_sites {
        None => base.map(|b| b.applicable_sites.clone()).unwrap_or_default(),
        Some(raw) => ids(&mut errors, "applicable_sites", raw),
    };
    let applicable_products = match input.applicable_products {
        None => base
            .map(|b| b.applicable_products.clone())
            .unwrap_or_default(),
        Some(raw) => ids(&mut errors, "applicable_products", raw),
    };
    let (Some(discount), Some(starts_at)) = (discount, starts_at) else {
        // Every path that leaves either unset records an error first.
        if errors.is_empty() {
            errors.add("body", "is incomplete");
        }
        return Err(errors);
    };
    errors.finish()?;
    Ok(NewPromotion {
        code,
        name,
        description,
        discount,
        min_spend,
        starts_at,
        expires_at,
        is_stackable: input
            .is_stackable
            .unwrap_or(base.is_some_and(|b| b.is_stackable)),
        usage_limit,
        per_customer_limit,
        applicable_sites,
        applicable_products,
        is_active: input.is_active.unwrap_or(base.is_none_or(|b| b.is_active)),
        is_public: input.is_public.unwrap_or(base.is_none_or(|b| b.is_public)),
    })
}
