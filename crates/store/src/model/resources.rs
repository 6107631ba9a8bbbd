//! Resources, the resource add-on configurations of products, and allocations.

use crate::Timestamp;
use kairos_domain::resource_policies::PolicySet;
use kairos_domain::resources::{
    DurationMode, DurationRule, Positions, Pricing, PricingMode, ResourceType, SharedMode,
};
use serde::Serialize;
use uuid::Uuid;

/// A room, piece of equipment, vehicle or staff member at a site.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Resource {
    pub id: Uuid,
    pub site_id: Uuid,
    pub name: String,
    pub description: String,
    pub resource_type: ResourceType,
    pub shared_mode: SharedMode,
    pub capacity: i32,
    pub is_active: bool,
    /// The group it is in, if any.
    pub group_id: Option<Uuid>,
    /// Its own booking policies (those set; the rest come from its group or the defaults).
    pub policies: PolicySet,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
}

/// A resource as written.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct NewResource {
    pub site_id: Uuid,
    pub name: String,
    pub description: String,
    pub resource_type: ResourceType,
    pub shared_mode: SharedMode,
    pub capacity: i32,
    pub is_active: bool,
    pub policies: PolicySet,
}

/// How a product offers a resource as an add-on (spec Part B 2.3); prices in minor units.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct NewAddonConfig {
    pub addon_id: Uuid,
    pub resource_id: Uuid,
    pub duration_mode: DurationMode,
    pub duration_options: Vec<i32>,
    pub fixed_duration_mins: Option<i32>,
    pub min_duration_mins: Option<i32>,
    pub max_duration_mins: Option<i32>,
    pub duration_step_mins: i32,
    pub default_duration_mins: Option<i32>,
    pub pricing_mode: PricingMode,
    pub flat_price: Option<i64>,
    pub per_hour_price: Option<i64>,
    pub per_person_price: Option<i64>,
    pub base_price: Option<i64>,
    pub allow_before: bool,
    pub allow_during: bool,
    pub allow_after: bool,
    pub buffer_before_mins: i32,
    pub buffer_after_mins: i32,
    pub max_capacity: Option<i32>,
    pub is_active: bool,
}

impl NewAddonConfig {
    /// The durations the configuration allows; None when its mode's fields are missing.
    pub fn rule(&self) -> Option<DurationRule> {
        match self.duration_mode {
            DurationMode::Fixed => self.fixed_duration_mins.map(DurationRule::Fixed),
            DurationMode::Selectable => (!self.duration_options.is_empty())
                .then(|| DurationRule::Selectable(self.duration_options.clone())),
            DurationMode::Custom => Some(DurationRule::Custom {
                min: self.min_duration_mins?,
                max: self.max_duration_mins?,
                step: self.duration_step_mins,
            }),
        }
    }

    pub fn pricing(&self) -> Pricing {
        Pricing {
            mode: self.pricing_mode,
            flat_price: self.flat_price,
            per_hour_price: self.per_hour_price,
            per_person_price: self.per_person_price,
            base_price: self.base_price,
        }
    }

    pub fn positions(&self) -> Positions {
        Positions {
            before: self.allow_before,
            during: self.allow_during,
            after: self.allow_after,
        }
    }
}

/// A stored resource add-on configuration, with the names it shows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct AddonConfig {
    pub id: Uuid,
    pub product_id: Uuid,
    #[serde(flatten)]
    pub config: NewAddonConfig,
    pub addon_name: String,
    pub addon_description: String,
    pub resource_name: String,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
}

/// A resource window to take for a booking, worked out by the caller from the
/// configuration (times, units, price in minor units).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct AllocationRequest {
    pub config_id: Uuid,
    pub resource_id: Uuid,
    pub position: kairos_domain::resources::WindowPosition,
    pub starts_at: Timestamp,
    pub ends_at: Timestamp,
    pub blocked_from: Timestamp,
    pub blocked_until: Timestamp,
    pub duration_mins: i32,
    pub units: i32,
    pub price: i64,
}

/// A resource taken for a booking (spec Part B 2.4).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Allocation {
    pub id: Uuid,
    pub booking_id: Uuid,
    #[serde(flatten)]
    pub request: AllocationRequest,
    pub status: kairos_domain::resources::AllocationStatus,
    pub created_at: Timestamp,
}

/// Resource administration failures.
#[derive(Debug, thiserror::Error)]
pub enum ResourceError {
    #[error("no such site")]
    SiteNotFound,
    #[error("no such resource")]
    ResourceNotFound,
    #[error("no such product")]
    ProductNotFound,
    #[error("no such add-on of the product")]
    AddonNotFound,
    #[error("no such resource add-on configuration")]
    ConfigNotFound,
    /// The add-on is not of type `resource`.
    #[error("the add-on is not a resource add-on")]
    NotResourceAddon,
    /// The resource is at another site than the product (or the group).
    #[error("the resource is at another site")]
    OtherSite,
    #[error("no such resource group")]
    GroupNotFound,
    #[error("no such blackout of the resource")]
    BlackoutNotFound,
    /// The site has a group of this name already.
    #[error("a group of this name exists at the site")]
    GroupNameTaken,
    /// The booking is not a hold (add-ons are taken with a hold).
    #[error("the booking is not a hold")]
    NotHold,
    #[error("no such booking")]
    BookingNotFound,
    /// The resource is not free for the window (its buffers included).
    #[error("the resource is not available for the requested window")]
    Unavailable { resource_id: Uuid },
    #[error(transparent)]
    Store(#[from] crate::StoreError),
}

crate::store_error_from_sqlx!(ResourceError);

/// A window of a resource add-on chosen for a booking (`selections[]` of
/// `POST /bookings/{id}/resource-addons`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct AddonSelection {
    pub config_id: Uuid,
    pub starts_at: Timestamp,
    pub ends_at: Timestamp,
    pub duration_mins: i32,
}

/// A resource add-on of a booking (spec Part B 2.4's booking add-on record): its
/// allocation with the add-on's and the resource's names.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct BookingAddon {
    pub allocation: Allocation,
    pub addon_id: Uuid,
    pub addon_name: String,
    pub resource_name: String,
}

/// What a payment must do after a confirmed booking's add-ons changed, in minor units.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum PaymentAdjustment {
    /// Nothing: the total did not change.
    None,
    /// The total went up by this much; the booking owes it (at the desk).
    AdditionalCharge(i64),
    /// The total went up by this much and a payment of it was opened with the provider
    /// that collected the booking's online payment.
    ChargeOpened(i64),
    /// The total went down by this much: owed back by the cancellation rules.
    Refund(i64),
    /// The total went down by this much and nothing was paid yet: less is due.
    DueReduced(i64),
}

/// A booking's resource add-ons after a change, with its price before and after.
#[derive(Debug, Clone)]
pub struct AddonsChanged {
    pub booking: crate::Booking,
    /// The allocations this change made.
    pub added: Vec<Allocation>,
    /// Every live add-on of the booking now.
    pub addons: Vec<BookingAddon>,
    pub before: crate::PriceBreakdown,
    pub adjustment: PaymentAdjustment,
}

/// Why a held resource add-on cannot be confirmed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConflictReason {
    /// The resource was deactivated.
    ResourceInactive,
    /// The add-on's configuration was deactivated.
    AddonWithdrawn,
    /// The resource's capacity no longer covers the window with the other bookings.
    CapacityExceeded,
}

impl ConflictReason {
    pub fn as_str(self) -> &'static str {
        match self {
            ConflictReason::ResourceInactive => "resource_inactive",
            ConflictReason::AddonWithdrawn => "addon_withdrawn",
            ConflictReason::CapacityExceeded => "capacity_exceeded",
        }
    }
}

/// Another window of the same add-on that is free, offered instead (minor units).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AlternativeWindow {
    pub position: kairos_domain::resources::WindowPosition,
    pub starts_at: Timestamp,
    pub ends_at: Timestamp,
    pub duration_mins: i32,
    pub price: i64,
}

/// A held add-on that confirmation found no longer free (spec Part B 4.2's
/// `resourceConflict.conflicts[]`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResourceConflict {
    pub allocation_id: Uuid,
    pub addon_id: Uuid,
    pub addon_name: String,
    pub resource_id: Uuid,
    pub resource_name: String,
    pub requested_starts_at: Timestamp,
    pub requested_ends_at: Timestamp,
    pub reason: ConflictReason,
    pub alternatives: Vec<AlternativeWindow>,
}

/// How a customer settles a resource conflict (`resolve-conflict`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ConflictResolution {
    /// Move the allocation to another window of its add-on.
    SelectAlternative {
        allocation_id: Uuid,
        starts_at: Timestamp,
        ends_at: Timestamp,
    },
    /// Confirm without these add-ons (they are released).
    ProceedWithout { release: Vec<Uuid> },
}

/// A change of a booking's resource add-ons (`PATCH`): windows to take, allocations to
/// give back.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AddonChange {
    pub add: Vec<AddonSelection>,
    pub remove: Vec<Uuid>,
}

/// How a resource conflict is settled, at what price, paid how.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Settlement {
    pub resolution: ConflictResolution,
    /// The `pricingHash` the customer saw with the conflict.
    pub expected_hash: String,
    pub payment_method: kairos_domain::payments::PaymentMethod,
}

/// Resources of a site under one set of booking policies (Part A 4.11).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ResourceGroup {
    pub id: Uuid,
    pub site_id: Uuid,
    pub name: String,
    pub description: String,
    pub policies: PolicySet,
    /// How many resources are in it.
    pub resource_count: i64,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
}

/// A resource group as written.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct NewResourceGroup {
    pub site_id: Uuid,
    pub name: String,
    pub description: String,
}

/// A resource add-on configuration as the public windows read it: offered now (it, its
/// add-on, resource, product and site active), with its resource's mode and capacity,
/// the resource's effective booking policies and the site's currency.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OfferedAddon {
    pub config: AddonConfig,
    pub shared_mode: SharedMode,
    pub capacity: i32,
    pub policies: kairos_domain::resource_policies::Policies,
    pub currency: String,
}

/// A resource every session of a product needs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ProductResource {
    pub resource_id: Uuid,
    pub name: String,
    pub resource_type: ResourceType,
    pub shared_mode: SharedMode,
    pub is_active: bool,
}

/// A resource's time off: while it lasts the resource gives nothing.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ResourceBlackout {
    pub id: Uuid,
    pub resource_id: Uuid,
    pub kind: kairos_domain::scheduling::BlackoutKind,
    pub starts_at: Timestamp,
    pub ends_at: Timestamp,
    pub reason: String,
    pub created_at: Timestamp,
}

/// A blackout as written, with how many live uses (bookings' add-ons, sessions with a
/// booking) it meets: they are kept, and staff should move them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct BlackoutWritten {
    pub blackout: ResourceBlackout,
    pub overlapping: Vec<(Timestamp, Timestamp)>,
}

/// A blackout to write.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct NewBlackout {
    pub kind: kairos_domain::scheduling::BlackoutKind,
    pub starts_at: Timestamp,
    pub ends_at: Timestamp,
    pub reason: String,
}
