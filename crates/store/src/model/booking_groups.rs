//! Booking groups (spec Part B 2.5, 3.3, 4.3).

use super::{BookingError, PriceBreakdown, Timestamp};
use kairos_domain::booking_groups::{Child, GroupStatus, GroupType, derive_status};
use kairos_domain::bookings::{BookingSource, BookingStatus};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

/// One planned activity of a group: while the group is a draft, a line of its plan; once
/// held, the id is its booking's.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GroupItem {
    pub id: Uuid,
    pub product_id: Uuid,
    pub site_id: Uuid,
    pub slot_id: Uuid,
    pub party_size: i32,
}

/// A child booking as its group shows it.
#[derive(Debug, Clone, Serialize)]
pub struct GroupChild {
    pub booking_id: Uuid,
    pub reference: String,
    pub status: BookingStatus,
    pub product_id: Uuid,
    pub site_id: Uuid,
    pub slot_id: Uuid,
    pub party_size: i32,
    pub starts_at: Timestamp,
    pub ends_at: Timestamp,
    pub hold_expires_at: Option<Timestamp>,
    pub price: PriceBreakdown,
    pub paid_amount: i64,
}

/// The customer a group is for.
#[derive(Debug, Clone, Default, Serialize)]
pub struct GroupCustomer {
    pub id: Option<Uuid>,
    pub name: String,
    /// Lower case.
    pub email: String,
    pub phone: String,
}

/// A booking group with its plan and its bookings.
#[derive(Debug, Clone, Serialize)]
pub struct BookingGroup {
    pub id: Uuid,
    pub reference: String,
    pub group_type: GroupType,
    pub package_id: Option<Uuid>,
    pub party_size: i32,
    pub customer: GroupCustomer,
    pub internal_notes: Option<String>,
    /// The plan (its lines' ids are the bookings' once held).
    pub items: Vec<GroupItem>,
    pub held_at: Option<Timestamp>,
    pub hold_expires_at: Option<Timestamp>,
    pub token_hash: String,
    pub source: BookingSource,
    pub created_by: Option<String>,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
    /// Its bookings, in the plan's order.
    pub bookings: Vec<GroupChild>,
    /// The tenant's currency (a group's bookings are priced in their site's).
    pub currency: String,
    /// How it was confirmed (set by the confirmation; a card or bank payment's bookings
    /// stay held until the money arrives).
    pub payment_method: Option<kairos_domain::payments::PaymentMethod>,
    pub confirmed_at: Option<Timestamp>,
    /// A total staff set instead of the sum of its bookings' prices, and why.
    pub custom_total: Option<i64>,
    pub custom_pricing_reason: Option<String>,
}

impl BookingGroup {
    /// How its bookings are priced: CUSTOM once staff set its total, PACKAGE for a
    /// package's group, else SUM.
    pub fn pricing_method(&self) -> &'static str {
        if self.custom_total.is_some() {
            "CUSTOM"
        } else if self.package_id.is_some() {
            "PACKAGE"
        } else {
            "SUM"
        }
    }

    /// Its status at `now`, derived from its bookings (spec Part B 3.3).
    pub fn status(&self, now: Timestamp) -> GroupStatus {
        let children: Vec<Child> = self
            .bookings
            .iter()
            .map(|b| Child {
                status: b.status,
                hold_expires_at: b.hold_expires_at,
            })
            .collect();
        derive_status(&children, now)
    }
}

/// A new group.
#[derive(Debug, Clone)]
pub struct NewGroup {
    pub group_type: GroupType,
    pub package_id: Option<Uuid>,
    pub party_size: i32,
    pub customer: GroupCustomer,
    pub internal_notes: Option<String>,
    pub token_hash: String,
    pub source: BookingSource,
}

/// A new group held at once (the public hold): the group, its activities (their ids
/// become the bookings'), and the caps on live holds it counts against (as one hold).
#[derive(Debug, Clone)]
pub struct NewGroupHold {
    pub group: NewGroup,
    pub items: Vec<GroupItem>,
    pub caps: Option<super::HoldCaps>,
}

/// Changes staff make to a group; `None` leaves a field as it is.
#[derive(Debug, Clone, Default)]
pub struct GroupPatch {
    pub customer_name: Option<String>,
    pub customer_email: Option<String>,
    pub customer_phone: Option<String>,
    /// `Some(None)` clears the notes.
    pub internal_notes: Option<Option<String>>,
}

/// A group's confirmation: how it is paid, and a total staff set instead of the sum of
/// its bookings' prices (`custom`: the total in minor units and why), spread over the
/// bookings in proportion to their own prices.
#[derive(Debug, Clone)]
pub struct GroupConfirm {
    pub method: kairos_domain::payments::PaymentMethod,
    pub custom: Option<(i64, String)>,
    /// How long the bookings stay held for a card or bank payment to arrive.
    pub payment_window: chrono::Duration,
}

/// Filters of the group list.
#[derive(Debug, Clone, Default)]
pub struct GroupFilter {
    pub status: Option<GroupStatus>,
    /// Lower case, exact.
    pub customer_email: Option<String>,
    pub limit: i64,
    pub offset: i64,
}

/// One booking's part of a group's price.
#[derive(Debug, Clone, Serialize)]
pub struct GroupAllocation {
    pub booking_id: Uuid,
    pub allocated_subtotal: i64,
    pub tax_amount: i64,
    pub allocated_total: i64,
}

/// A group's price (`calculate-pricing`), in minor units.
#[derive(Debug, Clone, Serialize)]
pub struct GroupPricing {
    pub grand_total: i64,
    pub subtotal: i64,
    pub tax_total: i64,
    /// SUM (each activity at its own price), PACKAGE (the package's price spread over
    /// them) or CUSTOM (staff's total spread over them).
    pub pricing_method: &'static str,
    pub currency: String,
    pub allocations: Vec<GroupAllocation>,
    /// What the group's promotion codes take off, and what its vouchers pay.
    pub promotion_discount: i64,
    pub voucher_applied: i64,
    /// Each code on the group with what it takes off (summed over its bookings), in the
    /// order first met; each voucher with what it pays.
    pub promotions: Vec<(String, i64)>,
    pub vouchers: Vec<(String, i64)>,
}

/// A group's price from its bookings' prices (each booking's allocation is its own price,
/// so they sum to the total exactly): `method` SUM when each is at its own price, PACKAGE
/// or CUSTOM when a package price or staff's total was spread over them.
pub fn group_pricing(
    currency: &str,
    method: &'static str,
    prices: &[(Uuid, &PriceBreakdown)],
) -> GroupPricing {
    let allocations: Vec<GroupAllocation> = prices
        .iter()
        .map(|(id, p)| GroupAllocation {
            booking_id: *id,
            allocated_subtotal: p.subtotal - p.promotion_discount,
            tax_amount: p.tax,
            allocated_total: p.total,
        })
        .collect();
    GroupPricing {
        grand_total: allocations.iter().map(|a| a.allocated_total).sum(),
        subtotal: prices.iter().map(|(_, p)| p.subtotal).sum(),
        tax_total: allocations.iter().map(|a| a.tax_amount).sum(),
        pricing_method: method,
        currency: prices
            .first()
            .map_or_else(|| currency.to_owned(), |(_, p)| p.currency.clone()),
        allocations,
        promotion_discount: prices.iter().map(|(_, p)| p.promotion_discount).sum(),
        voucher_applied: prices.iter().map(|(_, p)| p.voucher_applied).sum(),
        promotions: summed(prices.iter().flat_map(|(_, p)| {
            p.discounts
                .iter()
                .map(|d| (d.code.clone(), d.discount_applied))
        })),
        vouchers: summed(
            prices
                .iter()
                .flat_map(|(_, p)| p.vouchers.iter().map(|v| (v.code.clone(), v.amount))),
        ),
    }
}

/// Amounts summed by name, in the order first met.
fn summed(parts: impl Iterator<Item = (String, i64)>) -> Vec<(String, i64)> {
    let mut out: Vec<(String, i64)> = Vec::new();
    for (name, amount) in parts {
        match out.iter_mut().find(|(n, _)| *n == name) {
            Some((_, sum)) => *sum += amount,
            None => out.push((name, amount)),
        }
    }
    out
}

/// Why a group operation was refused.
#[derive(Debug, thiserror::Error)]
pub enum GroupError {
    #[error("no such booking group")]
    NotFound,
    /// The operation needs a DRAFT group.
    #[error("the group is {0}, not DRAFT")]
    NotDraft(GroupStatus),
    /// No booking (plan line) of that id in the group.
    #[error("no such booking in the group")]
    BookingNotFound,
    /// A DRAFT group holds nothing to cancel (it is deleted instead).
    #[error("a draft group holds nothing to cancel")]
    NothingHeld,
    #[error("the group has no activities to hold")]
    Empty,
    /// The package named is not the tenant's, or no longer offered.
    #[error("no such package")]
    PackageNotFound,
    /// The activities are not the package's (each of its products once).
    #[error("a package's group books each of its products once: {0}")]
    NotThePackage(String),
    /// Confirming needs a held group.
    #[error("the group is {0}, not HOLD")]
    NotHeld(GroupStatus),

    /// Vouchers already pay all the group costs.
    #[error("nothing is left to pay on the group")]
    NothingToPay,
    /// The group has no such promotion code to take off.
    #[error("the group has no promotion {0}")]
    CodeNotApplied(String),
    /// A payment for the group is under way: its codes and vouchers stay as they are.
    #[error("a payment for the group is under way")]
    PaymentUnderWay,
    #[error("a group holds at most {0} activities")]
    TooManyActivities(usize),
    /// One activity could not be held (or planned); nothing was.
    #[error("activity {index} (slot {slot_id}): {error}")]
    Activity {
        index: usize,
        slot_id: Uuid,
        error: Box<BookingError>,
    },
    #[error(transparent)]
    Booking(#[from] BookingError),
    #[error(transparent)]
    Idempotency(#[from] crate::IdempotencyError),
    #[error(transparent)]
    Store(#[from] crate::StoreError),
}

crate::store_error_from_sqlx!(GroupError);

/// A promotion code applied to a held group.
#[derive(Debug, Clone)]
pub struct GroupPromotionApplied {
    pub group: BookingGroup,
    pub promotion_id: Uuid,
    pub code: String,
    pub name: String,
    pub promotion_type: kairos_domain::promotions::PromotionType,
    /// What it takes off the group now, in minor units (the sum of its bookings' parts).
    pub discount_amount: i64,
    pub applied_at: Timestamp,
}

/// A voucher applied to a held group.
#[derive(Debug, Clone)]
pub struct GroupVoucherApplied {
    pub group: BookingGroup,
    pub voucher_id: Uuid,
    pub code: String,
    pub voucher_type: kairos_domain::vouchers::VoucherType,
    /// What it pays of the group, over its bookings.
    pub applied_amount: i64,
    pub balance_before: i64,
    pub balance_after: i64,
    pub applied_at: Timestamp,
}

impl From<super::BookingRefusal> for GroupError {
    fn from(r: super::BookingRefusal) -> Self {
        GroupError::Booking(r.into())
    }
}
