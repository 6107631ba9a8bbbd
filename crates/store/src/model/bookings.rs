//! Bookings, their prices, actions, notes and payments.

use super::Timestamp;
use super::prices::PriceBreakdown;
use kairos_domain::bookings::{BookingSource, NoteCategory, NotePriority};
use kairos_domain::payments::{PaymentMethod, PaymentStatus};
use serde::Serialize;
use uuid::Uuid;

/// An add-on chosen for a booking.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ChosenAddon {
    pub addon_id: Uuid,
    pub quantity: u32,
}

/// Who a booking is for, as given when it was made.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct BookingCustomer {
    /// The customer account the booking belongs to, if any.
    pub id: Option<Uuid>,
    pub name: String,
    /// Lower case.
    pub email: String,
    pub phone: String,
}

/// How a new booking takes its seats.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SeatPolicy {
    /// Only while the slot has room, is open (not orphaned) and has not started.
    Checked,
    /// The slot may have started or be orphaned (admin `skipAvailabilityCheck`), but
    /// must have room.
    SkipAvailability,
    /// Take the seats even beyond capacity (admin `bypassCapacity`).
    BypassCapacity,
}

/// Which slot a new booking takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SlotChoice {
    /// The slot with this id (public holds).
    Id(Uuid),
    /// The product's slot starting at this instant (staff creation).
    StartingAt(Timestamp),
}

/// How many of a booking's places take a participant type's own price.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct ChosenType {
    /// The product's participant type key.
    pub key: String,
    pub quantity: u32,
}

/// A booking to create, as asked for. The store checks it against the catalog (product,
/// site, variant, add-ons, party size), prices it and takes the seats, all inside one
/// write transaction, so what decides the booking is what the transaction saw.
#[derive(Debug, Clone)]
pub struct NewBooking {
    pub site_id: Uuid,
    pub product_id: Uuid,
    pub slot: SlotChoice,
    pub variant_id: Option<Uuid>,
    pub customer: BookingCustomer,
    pub party_size: i32,
    /// Add-ons as chosen; per-participant ones are stored with one per person.
    pub addons: Vec<ChosenAddon>,
    pub participants: Vec<super::waivers::Participant>,
    /// Places taken at a participant type's own price; the rest are at the activity's.
    pub participant_types: Vec<ChosenType>,
    pub token_hash: String,
    pub source: BookingSource,
    /// `hold` (expiring after the site's or tenant's time-to-live) or `confirmed` (admin
    /// autoConfirm).
    pub status: kairos_domain::bookings::BookingStatus,
    pub admin_notes: Option<String>,
    pub send_confirmation: bool,
    pub seats: SeatPolicy,
    /// Staff book a slot that has started or left the schedule (`skipAvailabilityCheck`).
    pub allow_closed_slot: bool,
    /// Caps on the live holds of the customer and of the client address (public holds;
    /// staff are not capped).
    pub hold_caps: Option<HoldCaps>,
    /// Why staff created it (staff creation only).
    pub created_reason: Option<kairos_domain::bookings::CreatedReason>,
    /// Staff accepted the terms on the customer's behalf: recorded with the acting staff
    /// member and the time.
    pub terms_accepted_on_behalf: bool,
}

/// Caps on concurrent holds in one tenant, so that one client cannot hold the slots of
/// a whole week (counted inside the hold's transaction).
#[derive(Debug, Clone, Default)]
pub struct HoldCaps {
    /// Live holds of one customer (account or email) at once; 0 = no cap.
    pub per_customer: u32,
    /// Live holds from one client address at once; 0 = no cap.
    pub per_address: u32,
    /// The client address the hold comes from, when known.
    pub address: Option<String>,
}

/// Who a hold cap counts holds of.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HoldCapScope {
    Customer,
    Address,
}

impl HoldCapScope {
    pub fn as_str(self) -> &'static str {
        match self {
            HoldCapScope::Customer => "customer",
            HoldCapScope::Address => "address",
        }
    }
}

/// A booking just made, with what staff overrode to make it: `slot_started`,
/// `slot_orphaned`, `capacity_exceeded`.
#[derive(Debug, Clone)]
pub struct CreatedBooking {
    pub booking: Booking,
    pub warnings: Vec<&'static str>,
}

/// A booking.
#[derive(Debug, Clone, Serialize)]
pub struct Booking {
    pub id: Uuid,
    pub reference: String,
    pub site_id: Uuid,
    pub product_id: Uuid,
    pub slot_id: Uuid,
    pub starts_at: Timestamp,
    pub ends_at: Timestamp,
    pub variant_id: Option<Uuid>,
    pub customer: BookingCustomer,
    pub party_size: i32,
    pub status: kairos_domain::bookings::BookingStatus,
    pub hold_expires_at: Option<Timestamp>,
    pub addons: Vec<ChosenAddon>,
    pub participants: Vec<super::waivers::Participant>,
    pub price: PriceBreakdown,
    pub paid_amount: i64,
    pub token_hash: String,
    pub source: BookingSource,
    /// The method it was confirmed with.
    pub payment_method: Option<PaymentMethod>,
    pub admin_notes: Option<String>,
    pub send_confirmation: bool,
    pub created_by: Option<String>,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
    pub confirmed_at: Option<Timestamp>,
    pub canceled_at: Option<Timestamp>,
    /// Why staff created it (staff creation only).
    pub created_reason: Option<kairos_domain::bookings::CreatedReason>,
    /// When the customer's terms were accepted on their behalf by staff, and by whom.
    pub terms_accepted_at: Option<Timestamp>,
    pub terms_accepted_by: Option<String>,
    /// What the cancellation that just happened owes back (set by the cancel action
    /// only, never read from the database).
    #[serde(skip)]
    pub cancellation: Option<crate::CancellationRefund>,
}

/// A booking with the names of its site and product, for lists.
#[derive(Debug, Clone, Serialize)]
pub struct BookingView {
    pub booking: Booking,
    pub site_name: String,
    pub product_name: String,
}

/// A change to a booking's status, applied through the status machine in one transaction.
#[derive(Debug, Clone)]
pub enum BookingAction {
    /// Confirm a hold. The booking is re-priced from the catalog as it is now; a price
    /// whose hash differs from `pricing_hash` (the one the client was shown) refuses.
    Confirm {
        pricing_hash: String,
        payment_method: PaymentMethod,
        method_reference: Option<String>,
    },
    /// Cancel. With `customer_window`, a booking past its hold must start far enough
    /// away by the site's cancellation policy.
    Cancel {
        reason: Option<String>,
        customer_window: bool,
    },
    /// Staff cancel (spec Part B 4.8): the refund by `refund` (see
    /// `kairos_domain::cancellations`); the customer is told when `notify`.
    StaffCancel {
        reason: Option<String>,
        refund: kairos_domain::cancellations::RefundBasis,
        notify: bool,
    },
    /// Move to another slot of the same product (capacity moves atomically), within the
    /// site's policy window when `customer_window`.
    Reschedule {
        slot_id: Uuid,
        customer_window: bool,
    },
    /// Cancel a booking whose online payment did not come in time: only while it is
    /// still `confirmed` with nothing paid (decided on the locked booking).
    CancelUnpaid {
        reason: String,
    },
    MarkArrived,
    /// Record a payment (minor units; `None` = the balance) by `method`, the venue's own
    /// word for it (`cash`, `card_terminal`, …: an open set).
    MarkPaid {
        amount: Option<i64>,
        method: String,
    },
    /// Mark a no-show, with the details of its tracking record (spec Part B 2.8).
    MarkNoShow(crate::NoShowMark),
    /// A partial cancellation (spec Part B 4.8 `reduced_party_size`): the party becomes
    /// `party_size` (smaller), the booking is priced again, the seats no longer needed are
    /// released, and what was paid beyond the new total is owed back by `refund`; the
    /// customer is sent a booking update when `notify`. `types`: the smaller party's
    /// places by participant type, when staff say who left (otherwise the untyped places
    /// go first).
    ReduceParty {
        party_size: i32,
        types: Option<Vec<ChosenType>>,
        reason: Option<String>,
        refund: kairos_domain::cancellations::RefundBasis,
        notify: bool,
    },
    /// An administrator sets the status; the status machine picks the trigger.
    SetStatus {
        status: kairos_domain::bookings::BookingStatus,
        reason: Option<String>,
        admin_notes: Option<String>,
    },
}

/// Business rules a booking operation can refuse on.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BookingRefusal {
    /// The customer is blocked from new holds (a no-show with `blockFutureBookings`).
    #[error("the customer may not make new bookings until the venue lifts its block")]
    CustomerBlocked,
    #[error("{0}")]
    InvalidTransition(kairos_domain::bookings::InvalidTransition),
    /// A held booking of a group is confirmed with its group (its price and payment are
    /// the group's).
    #[error("the booking is held as part of group {0}: confirm the group")]
    HeldInGroup(uuid::Uuid),
    #[error("the status machine has no transition from {from} to {to}")]
    NoTransition {
        from: kairos_domain::bookings::BookingStatus,
        to: kairos_domain::bookings::BookingStatus,
    },
    #[error("a {status} booking cannot be moved")]
    NotMovable {
        status: kairos_domain::bookings::BookingStatus,
    },
    #[error("a {status} booking's party cannot be reduced")]
    NotReducible {
        status: kairos_domain::bookings::BookingStatus,
    },
    /// An online payment of the booking is still being made (its amount is the whole
    /// booking's): a partial cancellation waits for it.
    #[error("a payment of the booking is under way")]
    PaymentUnderWay,
    #[error("the hold expired")]
    HoldExpired,
    /// Check-in refused: the product needs every waiver before the start.
    #[error("{missing} waiver(s) missing")]
    WaiversIncomplete { missing: u32 },
    #[error("the slot is no longer available")]
    SlotUnavailable,
    #[error("the slot has started")]
    SlotStarted,
    #[error("outside the policy window")]
    OutsideWindow { starts_at: Timestamp },
    #[error("the amount exceeds the balance")]
    AmountExceedsBalance { balance: i64 },
    /// The product has no slot at the requested start (staff creation).
    #[error("no slot starts at this time")]
    NoSlotAtStart,
    /// The slot has started or left the schedule; staff may book it with
    /// `skipAvailabilityCheck`.
    #[error("the slot has started or left the schedule")]
    SlotClosed { started: bool },
    /// The current price differs from the one the client confirmed.
    #[error("the price changed")]
    PricingChanged { price: Box<PriceBreakdown> },
    /// The product, variant or an add-on of the hold is no longer offered.
    #[error("an item of the booking was withdrawn")]
    ItemWithdrawn,
    /// The customer or the client address already holds as many bookings as allowed.
    #[error("too many holds at once")]
    TooManyHolds { scope: HoldCapScope, limit: u32 },
    /// Promotions and vouchers apply to holds only.
    #[error("a {status} booking is not a hold")]
    NotAHold {
        status: kairos_domain::bookings::BookingStatus,
    },
    /// The code names no promotion that applies (the reason says why).
    #[error("the promotion does not apply: {reason}")]
    InvalidPromotion {
        reason: kairos_domain::promotions::Ineligible,
    },
    /// The booking's subtotal is below the promotion's minimum spend.
    #[error("minimum spend not met")]
    MinSpendNotMet {
        minimum: i64,
        subtotal: i64,
        currency: String,
    },
    /// Every use the promotion allows (in all, or for this customer) is taken.
    #[error("usage limit reached")]
    UsageLimitExceeded {
        reason: kairos_domain::promotions::Ineligible,
        limit: Option<i32>,
    },
    /// A non-stackable promotion is involved: the code cannot join the ones applied.
    #[error("{code} cannot be combined with {conflicts_with}")]
    StackingViolation {
        code: String,
        conflicts_with: String,
    },
    /// The booking has no promotion with this code.
    #[error("no promotion {code} on this booking")]
    PromotionNotApplied { code: String },
    /// No voucher has this code.
    #[error("no such voucher")]
    VoucherNotFound,
    /// The voucher cannot be used: `inactive`, `expired` or `usage_limit_reached`.
    #[error("the voucher cannot be used: {reason}")]
    VoucherUnusable { reason: &'static str },
    /// The voucher's balance is used up.
    #[error("the voucher has no balance left")]
    InsufficientFunds { balance: i64, currency: String },
    /// The booking has nothing left to pay.
    #[error("nothing left to pay")]
    NothingToPay,
    /// Confirming with `voucher` needs vouchers that cover the total.
    #[error("vouchers do not cover the total")]
    VouchersDoNotCover { total: i64, currency: String },
    /// `selections[index]` names no active resource add-on of the booking's product.
    #[error("no such resource add-on configuration")]
    AddonConfigNotFound { index: usize },
    /// A resource add-on's window is not a length it allows (spec Part B 7: 422).
    #[error("{message}")]
    DurationNotAllowed { field: String, message: String },
    /// The resource is not free for the window, buffers included, or the add-on does not
    /// serve a party of this size.
    #[error("the resource is not available for the requested window")]
    ResourceUnavailable { resource_id: Uuid },
    /// The session cannot take the booking: a resource its product needs is taken
    /// (`resource_id`), or no qualified staff member is free for a skill it needs
    /// (`skill_id`).
    #[error("a resource the session needs is not available")]
    SessionUnavailable {
        resource_id: Option<Uuid>,
        skill_id: Option<Uuid>,
    },
    /// A window breaks a booking policy of its resource (lead time, horizon, staff only).
    #[error("{message}")]
    ResourcePolicy {
        policy: &'static str,
        message: String,
    },
    /// The booking's resource add-ons cannot be changed in its status.
    #[error("a {status} booking's resource add-ons cannot be changed")]
    AddonsClosed {
        status: kairos_domain::bookings::BookingStatus,
    },
    /// The booking has no live resource add-on with this allocation id.
    #[error("no such resource add-on of the booking")]
    AllocationNotFound { allocation_id: Uuid },
    /// Confirmation found held add-ons no longer free; nothing changed.
    #[error("a resource add-on is no longer available")]
    ResourceConflict {
        conflicts: Vec<crate::ResourceConflict>,
        pricing_hash: String,
        currency: String,
    },
}

/// Why a booking operation failed.
#[derive(Debug, thiserror::Error)]
pub enum BookingError {
    #[error("no such booking")]
    BookingNotFound,
    /// The slot does not exist or belongs to another product.
    #[error("no such slot of this product")]
    SlotNotFound,
    /// The product does not exist, is inactive, or is not at the named site.
    #[error("no such product at this site")]
    ProductNotFound,
    #[error("no such site")]
    SiteNotFound,
    #[error("no such variant")]
    VariantNotFound,
    #[error("no such note")]
    NoteNotFound,
    /// The request does not fit the catalog (party size, add-ons): every bad field.
    #[error("invalid booking")]
    Invalid(kairos_domain::FieldErrors),
    /// A business rule refused; nothing changed (apart from an overdue hold expiring).
    #[error(transparent)]
    Refused(#[from] BookingRefusal),
    #[error(transparent)]
    Idempotency(#[from] crate::IdempotencyError),
    #[error(transparent)]
    Store(#[from] crate::StoreError),
}

crate::store_error_from_sqlx!(BookingError);

/// A booking note (spec Part A 2.3).
#[derive(Debug, Clone, Serialize)]
pub struct BookingNote {
    pub id: Uuid,
    pub booking_id: Uuid,
    pub content: String,
    pub category: NoteCategory,
    pub priority: NotePriority,
    pub is_internal: bool,
    pub created_by: String,
    pub created_by_name: String,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
}

#[derive(Debug, Clone)]
pub struct NewNote {
    pub content: String,
    pub category: NoteCategory,
    pub priority: NotePriority,
    pub is_internal: bool,
}

/// A payment recorded against a booking (minor units).
#[derive(Debug, Clone, Serialize)]
pub struct Payment {
    pub id: Uuid,
    pub booking_id: Uuid,
    pub amount: i64,
    pub currency: String,
    /// A confirmation's method (`cardpay`, …) or what staff recorded with mark-paid
    /// (`cash`, `manual`, …): an open set, kept as text.
    pub method: String,
    pub method_reference: Option<String>,
    pub status: PaymentStatus,
    /// Minor units refunded so far.
    pub refunded_amount: i64,
    pub created_at: Timestamp,
}

/// Booking customer fields an administrator changes; `None` leaves a field.
#[derive(Debug, Clone, Default)]
pub struct BookingCustomerPatch {
    pub name: Option<String>,
    pub email: Option<String>,
    pub phone: Option<String>,
}

/// Filters of a booking search; every one optional.
#[derive(Debug, Clone, Default)]
pub struct BookingFilter {
    /// Partial, case-insensitive.
    pub email_contains: Option<String>,
    /// Compared by digits.
    pub phone: Option<String>,
    /// Partial, case-insensitive.
    pub name_contains: Option<String>,
    pub statuses: Vec<kairos_domain::bookings::BookingStatus>,
    pub site_id: Option<Uuid>,
    pub product_id: Option<Uuid>,
    pub customer_id: Option<Uuid>,
    /// On the slot's start time: `from <= starts_at < to`.
    pub starts_from: Option<Timestamp>,
    pub starts_before: Option<Timestamp>,
    /// Minor units, on the grand total.
    pub min_total: Option<i64>,
    pub max_total: Option<i64>,
}

/// Orderings of a booking search.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BookingSort {
    CreatedAt,
    StartTime,
    GrandTotal,
    CustomerName,
    Status,
    Reference,
}

/// A page of a search with the summary of the whole filtered set.
#[derive(Debug, Clone)]
pub struct BookingPage {
    pub items: Vec<BookingView>,
    pub total: u64,
    /// (status, count, sum of grand totals in minor units) per status present.
    pub by_status: Vec<(kairos_domain::bookings::BookingStatus, u64, i64)>,
}

/// A site's day: its slots and the bookings starting in it (see `Repo::day_sheet`).
#[derive(Debug, Clone)]
pub struct DaySheet {
    pub slots: Vec<DaySheetSlot>,
    pub bookings: Vec<DaySheetBooking>,
    /// The rooms, equipment and staff in use: each session's (`booking_id` none) and each
    /// booking's resource add-ons.
    pub resources: Vec<DaySheetResource>,
}

/// A resource in use on the day sheet.
#[derive(Debug, Clone, kairos_store_macros::FromRow)]
pub struct DaySheetResource {
    pub slot_id: Uuid,
    /// The booking whose add-on it is; none: the session's.
    pub booking_id: Option<Uuid>,
    pub resource_id: Uuid,
    pub name: String,
    pub resource_type: String,
    /// The skill a staff member was chosen for.
    pub skill_name: Option<String>,
    pub starts_at: crate::Timestamp,
    pub ends_at: crate::Timestamp,
}

/// A slot of the day sheet with its product's name.
#[derive(Debug, Clone)]
pub struct DaySheetSlot {
    pub slot: crate::Slot,
    pub product_name: String,
}

/// A booking of the day sheet with what staff should see at a glance.
#[derive(Debug, Clone)]
pub struct DaySheetBooking {
    pub booking: Booking,
    /// Notes on the booking.
    pub notes: i64,
    /// Issues on the booking still open or in progress.
    pub open_issues: i64,
}
