//! Documentation-only schemas for values the code keeps as text (so that one 400 can name
//! every bad field) but that only take known values.

use std::borrow::Cow;
use utoipa::openapi::{ObjectBuilder, RefOr, Schema, Type};
use utoipa::{PartialSchema, ToSchema};

/// Declares `$schema`, the named string enum `$name` listing every value of the domain
/// enum `$domain` (built from its `ALL`, so the two cannot drift). Use with
/// `#[schema(value_type = $schema)]` (or `Option<$schema>`) on a `String` field.
macro_rules! closed_set {
    ($(#[$meta:meta])* $schema:ident = $domain:ty, $name:literal, $description:literal) => {
        $(#[$meta])*
        pub struct $schema;

        impl PartialSchema for $schema {
            fn schema() -> RefOr<Schema> {
                ObjectBuilder::new()
                    .schema_type(Type::String)
                    .description(Some($description))
                    .enum_values(Some(<$domain>::ALL.iter().map(|v| v.as_str())))
                    .into()
            }
        }

        impl ToSchema for $schema {
            fn name() -> Cow<'static, str> {
                Cow::Borrowed($name)
            }
        }
    };
}

/// Declares `$form`, named `$name`: the create form of the request body `$input`, whose
/// update form leaves every field optional. The fields listed are required, and never
/// `null`. Use as `request_body = $form` on the create operation.
macro_rules! create_form {
    ($(#[$meta:meta])* $form:ident = $input:ty, $name:literal, [$($field:literal),+ $(,)?]) => {
        $(#[$meta])*
        pub struct $form;

        impl utoipa::PartialSchema for $form {
            fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::Schema> {
                $crate::openapi::schemas::with_required(
                    <$input as utoipa::PartialSchema>::schema(),
                    &[$($field),+],
                )
            }
        }

        impl utoipa::ToSchema for $form {
            fn name() -> std::borrow::Cow<'static, str> {
                std::borrow::Cow::Borrowed($name)
            }

            fn schemas(
                schemas: &mut Vec<(String, utoipa::openapi::RefOr<utoipa::openapi::Schema>)>,
            ) {
                <$input as utoipa::ToSchema>::schemas(schemas);
            }
        }
    };
}
pub(crate) use create_form;

/// Declares `$schema`, the named string enum `$name` of `$values`, for values that are
/// not a domain enum (an export format, say).
macro_rules! string_enum {
    ($schema:ident, $name:literal, [$($value:literal),+ $(,)?]) => {
        pub struct $schema;

        impl utoipa::PartialSchema for $schema {
            fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::Schema> {
                utoipa::openapi::ObjectBuilder::new()
                    .schema_type(utoipa::openapi::Type::String)
                    .enum_values(Some([$($value),+]))
                    .into()
            }
        }

        impl utoipa::ToSchema for $schema {
            fn name() -> std::borrow::Cow<'static, str> {
                std::borrow::Cow::Borrowed($name)
            }
        }
    };
}
pub(crate) use string_enum;

/// `schema` (an object) with `fields` required and not nullable.
pub fn with_required(schema: RefOr<Schema>, fields: &[&str]) -> RefOr<Schema> {
    let RefOr::T(Schema::Object(mut object)) = schema else {
        return schema;
    };
    for field in fields {
        if let Some(property) = object.properties.get_mut(*field) {
            match property {
                RefOr::T(Schema::OneOf(one_of)) => {
                    let others: Vec<_> = one_of
                        .items
                        .iter()
                        .filter(|item| {
                            !matches!(item, RefOr::T(Schema::Object(o))
                                if o.schema_type == utoipa::openapi::schema::SchemaType::Type(Type::Null))
                        })
                        .cloned()
                        .collect();
                    if let [only] = others.as_slice() {
                        *property = only.clone();
                    }
                }
                RefOr::T(schema) => super::drop_null(schema),
                RefOr::Ref(_) => {}
            }
        }
        if !object.required.iter().any(|r| r == field) {
            object.required.push((*field).to_owned());
        }
    }
    RefOr::T(Schema::Object(object))
}

closed_set!(
    BookingStatusSchema = kairos_domain::bookings::BookingStatus,
    "BookingStatus",
    "Booking status (see the status machine)."
);
closed_set!(
    CancellationPolicySchema = kairos_domain::catalog::CancellationPolicy,
    "CancellationPolicy",
    "How long before its start a customer may still cancel or move a confirmed booking online: standard (24 h), flexible (until the start) or strict (72 h)."
);
closed_set!(
    FeeTypeSchema = kairos_domain::payments::refund_policy::FeeType,
    "FeeType",
    "How a tenant's cancellation fee is worked out: time_based (the site policy's schedule by notice), flat (a fixed amount) or percentage (a share of what was paid)."
);
closed_set!(
    PriceTypeSchema = kairos_domain::pricing::PriceType,
    "PriceType",
    "How a product's base price applies: per person or per booking."
);
closed_set!(
    SlotPolicySchema = kairos_domain::catalog::SlotPolicyKind,
    "SlotPolicy",
    "How a product's slots are laid out in its opening hours: every slotIntervalMin minutes, or at its fixedSlotTimes."
);
closed_set!(
    VariantPriceModeSchema = kairos_domain::catalog::VariantPriceMode,
    "VariantPriceMode",
    "How a variant's price relates to its product's: none (the product's), adjustment (added, may be negative) or override (instead)."
);
closed_set!(
    AddonTypeSchema = kairos_domain::catalog::AddonType,
    "AddonType",
    "What an add-on is."
);
closed_set!(
    AddonModeSchema = kairos_domain::pricing::AddonMode,
    "AddonMode",
    "How an add-on is chosen: yesno (quantity 1), free_qty (any quantity) or per_participant (one per person)."
);
closed_set!(
    AddonPriceTypeSchema = kairos_domain::catalog::AddonPriceType,
    "AddonPriceType",
    "How an add-on's amount applies: fixed (per unit), per_person (per person per unit) or percentage (of the base price, per unit)."
);
closed_set!(
    ScopeTypeSchema = kairos_domain::scheduling::ScopeType,
    "ScopeType",
    "Whether a schedule belongs to a site (every product of the site), one product, or one resource (its own opening hours: they generate no slots and decide when the resource can be used)."
);
closed_set!(
    RecurrenceKindSchema = kairos_domain::scheduling::RecurrenceKind,
    "RecurrenceKind",
    "How a template repeats: none (once, on validFrom), daily, weekly (byDay or dayOfWeek), monthly (byMonthDay) or annual (byMonth and byMonthDay)."
);
closed_set!(
    DateRecurrenceSchema = kairos_domain::scheduling::DateRecurrence,
    "DateRecurrence",
    "How an override or blackout repeats: none, or annual (the same month days every year)."
);
closed_set!(
    BlackoutKindSchema = kairos_domain::scheduling::BlackoutKind,
    "BlackoutKind",
    "Why a blackout blocks time (reporting only)."
);
closed_set!(
    BookingSourceSchema = kairos_domain::bookings::BookingSource,
    "BookingSource",
    "Where a booking was made: public (a customer's hold) or admin (staff creation)."
);
closed_set!(
    PaymentMethodSchema = kairos_domain::payments::PaymentMethod,
    "PaymentMethod",
    "How a booking is confirmed: poa (pay on arrival: tentative), cardpay or bankpay (online, with paymentMethodId: confirmed), comp or invoice (staff only: confirmed), voucher (the vouchers applied cover the whole total: confirmed, nothing to collect)."
);
closed_set!(
    PaymentStatusSchema = kairos_domain::payments::PaymentStatus,
    "PaymentStatus",
    "Where a payment stands."
);
closed_set!(
    GiftCardValueTypeSchema = kairos_domain::gift_cards::ValueType,
    "GiftCardValueType",
    "How a gift card product's value is chosen: fixed (fixedValue) or custom_range (minValue to maxValue)."
);
closed_set!(
    PurchaseStatusSchema = kairos_domain::gift_cards::PurchaseStatus,
    "GiftCardPurchaseStatus",
    "Where a gift card purchase stands: pending (awaiting payment), payment_failed (declined; paying again makes it pending), paid (voucher issued, delivery email queued), delivered (email sent), cancelled (not paid by the payment deadline, or refunded: its unused voucher withdrawn)."
);
closed_set!(
    NoteCategorySchema = kairos_domain::bookings::NoteCategory,
    "NoteCategory",
    "What a booking note is about."
);
closed_set!(
    NotePrioritySchema = kairos_domain::bookings::NotePriority,
    "NotePriority",
    "How urgent a booking note is."
);
closed_set!(
    PromotionTypeSchema = kairos_domain::promotions::PromotionType,
    "PromotionType",
    "percentage (percent off), fixed_amount (an amount off), buy_x_get_y (of every buy_quantity + discount_value people, discount_value go free) or bundle (every bundle_size people pay discount_value together)."
);
closed_set!(
    IneligibleSchema = kairos_domain::promotions::Ineligible,
    "IneligibleReason",
    "Why a promotion code does not apply, in the order the reasons are checked: not_found, inactive, not_started, expired, usage_limit_reached, per_customer_limit_reached, not_applicable_site, not_applicable_product, min_spend_not_met."
);
closed_set!(
    PromotionStatusSchema = kairos_domain::promotions::PromotionStatus,
    "PromotionStatus",
    "active (switched on and inside its validity window), expired (ended), upcoming (starts later) or all."
);
closed_set!(
    VoucherTypeSchema = kairos_domain::vouchers::VoucherType,
    "VoucherType",
    "single_use (its first use redeems it), multi_use (spent over several bookings), gift_card (bought as a gift; GIFT-XXXX-XXXX) or loyalty_credit (given by the venue)."
);
closed_set!(
    RoleSchema = kairos_domain::auth::Role,
    "Role",
    "A staff role: owner, manager, front_desk or viewer (see the document's description for their permissions)."
);

/// An email address, or the empty string (which clears it, like `null`).
pub struct EmailOrEmptySchema;

impl PartialSchema for EmailOrEmptySchema {
    fn schema() -> RefOr<Schema> {
        utoipa::openapi::schema::AnyOfBuilder::new()
            .item(
                ObjectBuilder::new()
                    .schema_type(Type::String)
                    .format(Some(utoipa::openapi::SchemaFormat::KnownFormat(
                        utoipa::openapi::KnownFormat::Email,
                    )))
                    .max_length(Some(254)),
            )
            .item(
                ObjectBuilder::new()
                    .schema_type(Type::String)
                    .max_length(Some(0)),
            )
            .description(Some("An email address, or empty to clear it (like null)."))
            .into()
    }
}

impl ToSchema for EmailOrEmptySchema {
    fn name() -> Cow<'static, str> {
        Cow::Borrowed("EmailOrEmpty")
    }
}

/// A consent that must be given: `true`.
pub struct AcceptedSchema;

impl PartialSchema for AcceptedSchema {
    fn schema() -> RefOr<Schema> {
        ObjectBuilder::new()
            .schema_type(Type::Boolean)
            .enum_values(Some([true]))
            .description(Some("Must be true."))
            .into()
    }
}

impl ToSchema for AcceptedSchema {
    fn name() -> Cow<'static, str> {
        Cow::Borrowed("Accepted")
    }
}

/// A product label code: lower_snake_case, 1 to 40 characters.
pub struct LabelCodeSchema;

impl PartialSchema for LabelCodeSchema {
    fn schema() -> RefOr<Schema> {
        ObjectBuilder::new()
            .schema_type(Type::String)
            .pattern(Some("^[a-z0-9_]{1,40}$"))
            .examples([serde_json::json!("beginner_friendly")])
            .into()
    }
}

impl ToSchema for LabelCodeSchema {
    fn name() -> Cow<'static, str> {
        Cow::Borrowed("LabelCode")
    }
}

closed_set!(
    ActorKindSchema = kairos_domain::auth::ActorKind,
    "ActorKind",
    "Who performed a change: admin (a staff member), customer or system."
);

closed_set!(
    TemplateTypeSchema = kairos_domain::messaging::Channel,
    "TemplateType",
    "How a message is delivered: email or sms."
);
closed_set!(
    TriggerEventSchema = kairos_domain::messaging::automation::TriggerEvent,
    "TriggerEvent",
    "What an automation rule counts from: booking_created (the booking was made), booking_confirmed (payment confirmed), booking_completed, booking_date (the booking's start)."
);
closed_set!(
    OffsetUnitSchema = kairos_domain::messaging::automation::OffsetUnit,
    "OffsetUnit",
    "Unit of triggerOffset: hours, or days (from a booking's date: 08:00 local time on that day)."
);
closed_set!(
    ResourceTypeSchema = kairos_domain::resources::ResourceType,
    "ResourceType",
    "What a resource is (grouping and reporting only; no effect on booking logic)."
);
closed_set!(
    SharedModeSchema = kairos_domain::resources::SharedMode,
    "SharedMode",
    "How bookings share a resource at one time: EXCLUSIVE (one booking), SHARED (bookings up to its capacity), POOLED (people up to its capacity)."
);
closed_set!(
    DurationModeSchema = kairos_domain::resources::DurationMode,
    "DurationMode",
    "How a resource add-on's length is chosen: FIXED, SELECTABLE (one of durationOptions) or CUSTOM (min to max in steps)."
);
closed_set!(
    PricingModeSchema = kairos_domain::resources::PricingMode,
    "PricingMode",
    "How a resource add-on is priced: FLAT, PER_HOUR, PER_PERSON or COMPOSITE (base + per person)."
);
closed_set!(
    WindowPositionSchema = kairos_domain::resources::WindowPosition,
    "WindowPosition",
    "Where an add-on's window lies against the activity: BEFORE (ending at its start), DURING (from its start) or AFTER (from its end)."
);
closed_set!(
    AllocationStatusSchema = kairos_domain::resources::AllocationStatus,
    "AllocationStatus",
    "A resource allocation's status: HELD with a hold, CONFIRMED with the booking, RELEASED when given back."
);
string_enum!(
    ConflictActionSchema,
    "ResourceConflictAction",
    ["SELECT_ALTERNATIVE", "PROCEED_WITHOUT"]
);
string_enum!(
    ConflictPaymentModeSchema,
    "ConflictPaymentMode",
    ["cardpay", "poa"]
);
string_enum!(
    PaymentAdjustmentTypeSchema,
    "PaymentAdjustmentType",
    ["NONE", "ADDITIONAL_CHARGE", "REFUND", "AMOUNT_DUE_REDUCED"]
);
string_enum!(
    ConflictReasonSchema,
    "ResourceConflictReason",
    ["resource_inactive", "addon_withdrawn", "capacity_exceeded"]
);
