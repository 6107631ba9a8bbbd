//! A product's participant types with their own price (a child's ticket), as the API
//! shows and takes them. Pricing: `kairos_domain::pricing::party_line`.

use kairos_domain::FieldErrors;
use kairos_domain::money::{from_major, to_major};
use kairos_domain::tenancy::Currency;
use kairos_store::ParticipantTypePrice;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// Most participant types one product may offer.
pub const MAX_PARTICIPANT_TYPES: usize = 10;

/// A participant type with its own price per person, for some of a booking's places; the
/// party's other places are at the product's base price (or its variant's).
#[derive(Debug, Serialize, ToSchema)]
pub struct ParticipantTypePriceDto {
    /// Lower-case key, unique within the product (`child`).
    #[schema(example = "child")]
    #[serde(rename = "type")]
    pub key: String,
    #[schema(example = "Child (under 12)")]
    pub name: String,
    /// Major units per person, in the product's currency.
    #[schema(example = 12.0)]
    pub price: f64,
}

/// A participant type of a product: all three fields are required.
#[derive(Debug, Deserialize, ToSchema)]
pub struct ParticipantTypePriceInput {
    #[schema(pattern = "^[a-z0-9_]{1,40}$", required = true)]
    #[serde(rename = "type")]
    pub key: Option<String>,
    #[schema(min_length = 1, max_length = 100, required = true)]
    pub name: Option<String>,
    #[schema(
        minimum = 0,
        maximum = 10000000000000.0,
        multiple_of = 0.01,
        required = true
    )]
    pub price: Option<f64>,
}

pub fn participant_types_dto(
    types: &[ParticipantTypePrice],
    currency: Currency,
) -> Vec<ParticipantTypePriceDto> {
    types
        .iter()
        .map(|t| ParticipantTypePriceDto {
            key: t.key.clone(),
            name: t.name.clone(),
            price: to_major(t.price, currency),
        })
        .collect()
}

/// Checks a product's participant types: keys lower_snake_case and unique, names given,
/// prices amounts of `currency`.
pub fn parse_participant_types(
    errors: &mut FieldErrors,
    input: Vec<ParticipantTypePriceInput>,
    currency: Currency,
) -> Vec<ParticipantTypePrice> {
    if !errors.at_most("participantTypes", input.len(), MAX_PARTICIPANT_TYPES) {
        return Vec::new();
    }
    let mut out: Vec<ParticipantTypePrice> = Vec::new();
    for (i, t) in input.into_iter().enumerate() {
        let field = format!("participantTypes[{i}]");
        let key = t.key.unwrap_or_default();
        if !kairos_domain::pricing::is_type_key(&key) {
            errors.add(
                format!("{field}.type"),
                "must be a lower_snake_case key of at most 40 characters (for example child)",
            );
        } else if out.iter().any(|o| o.key == key) {
            errors.add(format!("{field}.type"), "is listed twice");
        }
        let name = super::required_text(errors, &format!("{field}.name"), t.name.as_deref(), 100);
        let price = match t.price {
            None => {
                errors.add(format!("{field}.price"), "is required");
                0
            }
            Some(p) => errors
                .check(&format!("{field}.price"), from_major(p, currency))
                .unwrap_or(0),
        };
        out.push(ParticipantTypePrice { key, name, price });
    }
    out
}
