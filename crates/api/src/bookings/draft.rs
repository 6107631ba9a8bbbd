//! A new booking's input checked for form (hold and staff creation).

pub use super::participants::Participant;
use super::participants::check_participant;
use crate::error::{ApiError, ApiResult};
use kairos_domain::FieldErrors;
use kairos_domain::bookings::{BookingSource, BookingStatus};
use kairos_domain::customers::{Email, validate_phone};
use kairos_domain::ids::parse_id;
use kairos_store::{BookingCustomer, ChosenAddon, ChosenType, NewBooking, SeatPolicy, SlotChoice};
use serde::Deserialize;
use utoipa::ToSchema;
use uuid::Uuid;

/// Most add-on lines one booking may choose.
pub const MAX_ADDONS: usize = 50;
/// Most participants one booking may list (never more than its party).
pub const MAX_PARTICIPANTS: usize = 1000;

/// An add-on chosen for a booking.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AddonRequest {
    #[schema(format = Uuid, required = true)]
    pub addon_id: Option<String>,
    #[schema(minimum = 1, maximum = 100)]
    pub quantity: Option<i64>,
}

/// Most participant types one booking may name (a product offers at most 10).
pub const MAX_PARTICIPANT_TYPES: usize = 10;

/// How many of the party's places are of a participant type with its own price (a
/// child's ticket); the other places are at the activity's price.
#[derive(Debug, Deserialize, ToSchema)]
pub struct ParticipantTypeRequest {
    /// One of the product's `participantTypes[].type`.
    #[schema(example = "child", pattern = "^[a-z0-9_]{1,40}$", required = true)]
    #[serde(rename = "type")]
    pub key: Option<String>,
    #[schema(minimum = 1, maximum = 10000, required = true)]
    pub quantity: Option<i64>,
}

/// Who the booking is for.
#[derive(Debug, Deserialize, ToSchema)]
pub struct CustomerInput {
    #[schema(min_length = 1, max_length = 200)]
    pub name: Option<String>,
    #[schema(format = Email, max_length = 254)]
    pub email: Option<String>,
    #[schema(pattern = "^(|\\+?[ ().-]*([0-9][ ().-]*){6,20})$")]
    pub phone: Option<String>,
}

/// `POST /bookings/hold`.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct HoldRequest {
    #[schema(format = Uuid, required = true)]
    pub site_id: Option<String>,
    #[schema(format = Uuid, required = true)]
    pub product_id: Option<String>,
    #[schema(format = Uuid, required = true)]
    pub slot_id: Option<String>,
    #[schema(example = 2, minimum = 1, maximum = 10000, required = true)]
    pub party_size: Option<i64>,
    #[schema(format = Uuid)]
    pub variant_id: Option<String>,
    #[schema(max_items = 50)]
    pub addons: Option<Vec<AddonRequest>>,
    pub customer: Option<CustomerInput>,
    #[schema(max_items = 1000)]
    pub participants: Option<Vec<Participant>>,
    /// Places at a participant type's own price (at most partySize in all).
    #[schema(max_items = 10)]
    pub participant_types: Option<Vec<ParticipantTypeRequest>>,
}

/// A new booking's input, checked for form; the store checks it against the catalog and
/// prices it inside the write transaction.
pub(super) struct Draft {
    pub site_id: Uuid,
    pub product_id: Uuid,
    pub variant_id: Option<Uuid>,
    pub chosen: Vec<ChosenAddon>,
    pub party_size: i32,
    pub customer: BookingCustomer,
    pub participants: Vec<kairos_store::Participant>,
    pub participant_types: Vec<ChosenType>,
}

/// What a new booking names, as sent.
pub(super) struct DraftInput<'a> {
    pub site_id: Option<&'a str>,
    pub product_id: Option<&'a str>,
    pub variant_id: Option<&'a str>,
    pub party_size: Option<i64>,
    pub addons: &'a [AddonRequest],
    pub customer: Option<&'a CustomerInput>,
    /// Name and email are required (admin creation); otherwise optional.
    pub customer_required: bool,
    pub participants: &'a [Participant],
    pub participant_types: &'a [ParticipantTypeRequest],
    /// Field name of the customer object in error messages.
    pub customer_field: &'a str,
}

impl Draft {
    /// The booking of this draft in `slot`: a hold, seats checked, confirmation email on;
    /// callers set what differs.
    pub(super) fn into_booking(
        self,
        slot: SlotChoice,
        token_hash: String,
        source: BookingSource,
    ) -> NewBooking {
        NewBooking {
            site_id: self.site_id,
            product_id: self.product_id,
            slot,
            variant_id: self.variant_id,
            customer: self.customer,
            party_size: self.party_size,
            addons: self.chosen,
            participants: self.participants,
            participant_types: self.participant_types,
            token_hash,
            source,
            status: BookingStatus::Hold,
            admin_notes: None,
            send_confirmation: true,
            seats: SeatPolicy::Checked,
            allow_closed_slot: false,
            hold_caps: None,
            created_reason: None,
            terms_accepted_on_behalf: false,
        }
    }
}

/// An optional reason: trimmed, at most 1000 characters of free text.
pub(super) fn reason_of(raw: Option<&str>) -> ApiResult<Option<String>> {
    let reason = clean(raw);
    if reason.as_ref().is_some_and(|r| !super::free_text(r, 1000)) {
        return Err(ApiError::invalid_field(
            "reason",
            "must be at most 1000 characters without control characters",
        ));
    }
    Ok(reason)
}

pub(super) fn clean(s: Option<&str>) -> Option<String> {
    s.map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
}

/// Checks a new booking's input for form: 400 naming every bad field, 404 for ids that
/// cannot name anything. What depends on the catalog is the store's to check.
pub(super) fn draft(input: DraftInput<'_>, today: chrono::NaiveDate) -> ApiResult<Draft> {
    let mut errors = FieldErrors::new();
    if input.site_id.is_none() {
        errors.add("siteId", "is required");
    }
    if input.product_id.is_none() {
        errors.add("productId", "is required");
    }
    let party = match input.party_size {
        None => {
            errors.add("partySize", "is required");
            0
        }
        Some(n) if !(1..=10_000).contains(&n) => {
            errors.add("partySize", "must be between 1 and 10000");
            0
        }
        Some(n) => i32::try_from(n).unwrap_or(0),
    };
    let mut chosen = Vec::new();
    let addons = if errors.at_most("addons", input.addons.len(), MAX_ADDONS) {
        input.addons
    } else {
        &[]
    };
    for (i, a) in addons.iter().enumerate() {
        let id = match a.addon_id.as_deref() {
            None => {
                errors.add(format!("addons[{i}].addonId"), "is required");
                continue;
            }
            Some(raw) => match parse_id(raw) {
                Some(id) => id,
                None => {
                    errors.add(
                        format!("addons[{i}].addonId"),
                        "is not an active add-on of this product",
                    );
                    continue;
                }
            },
        };
        let quantity = match a.quantity {
            None => 1,
            Some(q) if (0..=10_000).contains(&q) => u32::try_from(q).unwrap_or(0),
            Some(_) => {
                errors.add(
                    format!("addons[{i}].quantity"),
                    "must be between 1 and 10000",
                );
                continue;
            }
        };
        chosen.push(ChosenAddon {
            addon_id: id,
            quantity,
        });
    }
    let cf = input.customer_field;
    let customer = input.customer;
    let name = clean(customer.and_then(|c| c.name.as_deref()));
    let email = clean(customer.and_then(|c| c.email.as_deref()));
    let phone = clean(customer.and_then(|c| c.phone.as_deref()));
    if input.customer_required && customer.is_none() {
        errors.add(cf, "is required");
    }
    if input.customer_required && customer.is_some() && name.is_none() {
        errors.add(format!("{cf}.name"), "is required");
    }
    if input.customer_required && customer.is_some() && email.is_none() {
        errors.add(format!("{cf}.email"), "is required");
    }
    if name.as_ref().is_some_and(|n| !super::short_text(n, 200)) {
        errors.add(
            format!("{cf}.name"),
            "must be at most 200 characters without control characters",
        );
    }
    let email = match email.as_deref().map(Email::parse) {
        None => None,
        Some(Ok(e)) => Some(e.into_string()),
        Some(Err(message)) => {
            errors.add(format!("{cf}.email"), message);
            None
        }
    };
    if let Some(Err(message)) = phone.as_deref().map(validate_phone) {
        errors.add(format!("{cf}.phone"), message);
    }
    if party > 0 && input.participants.len() > usize::try_from(party).unwrap_or(0) {
        errors.add("participants", "must not list more people than partySize");
    }
    let participants = if errors.at_most("participants", input.participants.len(), MAX_PARTICIPANTS)
    {
        input.participants
    } else {
        &[]
    };
    let participants: Vec<kairos_store::Participant> = participants
        .iter()
        .enumerate()
        .map(|(i, p)| {
            check_participant(&mut errors, &format!("participants[{i}]"), p, today)
                .into_participant(kairos_domain::new_id())
        })
        .collect();
    let participant_types =
        participant_types(&mut errors, "participantTypes", input.participant_types);
    if !errors.is_empty() {
        return Err(ApiError::validation(errors));
    }
    let product_id = input
        .product_id
        .and_then(parse_id)
        .ok_or_else(|| ApiError::not_found("Product"))?;
    let site_id = input
        .site_id
        .and_then(parse_id)
        .ok_or_else(|| ApiError::not_found("Product at this site"))?;
    let variant_id = match input.variant_id {
        None => None,
        Some(raw) => Some(parse_id(raw).ok_or_else(|| ApiError::not_found("Variant"))?),
    };
    Ok(Draft {
        site_id,
        product_id,
        variant_id,
        chosen,
        party_size: party,
        customer: BookingCustomer {
            id: None,
            name: name.unwrap_or_default(),
            email: email.unwrap_or_default(),
            phone: phone.unwrap_or_default(),
        },
        participants,
        participant_types,
    })
}

/// The participant types a booking names, checked for form (the product's types and the
/// party are the store's to check).
pub(super) fn participant_types(
    errors: &mut FieldErrors,
    name: &str,
    input: &[ParticipantTypeRequest],
) -> Vec<ChosenType> {
    if !errors.at_most(name, input.len(), MAX_PARTICIPANT_TYPES) {
        return Vec::new();
    }
    let mut out = Vec::new();
    for (i, t) in input.iter().enumerate() {
        let field = format!("{name}[{i}]");
        let key = t.key.as_deref().unwrap_or_default();
        if !kairos_domain::pricing::is_type_key(key) {
            errors.add(
                format!("{field}.type"),
                "is required: one of the product's participant types (a lower_snake_case key)",
            );
        }
        let quantity = match t.quantity {
            Some(q) if (1..=10_000).contains(&q) => u32::try_from(q).unwrap_or(0),
            _ => {
                errors.add(format!("{field}.quantity"), "must be between 1 and 10000");
                0
            }
        };
        out.push(ChosenType {
            key: key.to_owned(),
            quantity,
        });
    }
    out
}
