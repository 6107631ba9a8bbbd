//! Records the store reads and writes, shared by both backends.

use kairos_domain::TenantId;
use kairos_domain::auth::Role;
use serde::Serialize;
use serde_json::Value;
use uuid::Uuid;

/// A UTC instant.
pub type Timestamp = chrono::DateTime<chrono::Utc>;

/// Who performed a change, for the audit log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Actor {
    pub kind: ActorKind,
    pub id: Option<String>,
    pub name: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ActorKind {
    Admin,
    Customer,
    System,
}

impl ActorKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ActorKind::Admin => "admin",
            ActorKind::Customer => "customer",
            ActorKind::System => "system",
        }
    }
}

impl Actor {
    /// The command line, the demo seeder and background workers.
    pub fn system(name: &str) -> Self {
        Self {
            kind: ActorKind::System,
            id: None,
            name: Some(name.to_owned()),
        }
    }

    pub fn admin(id: Uuid, name: &str) -> Self {
        Self {
            kind: ActorKind::Admin,
            id: Some(id.to_string()),
            name: Some(name.to_owned()),
        }
    }

    pub fn customer(id: Uuid, name: Option<&str>) -> Self {
        Self {
            kind: ActorKind::Customer,
            id: Some(id.to_string()),
            name: name.map(str::to_owned),
        }
    }
}

/// A row of the audit log.
#[derive(Debug, Clone)]
pub struct AuditEntry {
    pub id: Uuid,
    pub occurred_at: Timestamp,
    pub actor_type: String,
    pub actor_id: Option<String>,
    pub actor_name: Option<String>,
    pub action: String,
    pub entity_type: String,
    pub entity_id: String,
    /// `{field: {"from": old, "to": new}}` for updates, the created values for creations.
    pub changes: Value,
}

#[derive(Debug, Clone)]
pub struct NewTenant {
    pub id: TenantId,
    pub name: String,
    pub currency: String,
    pub timezone: String,
}

#[derive(Debug, Clone)]
pub struct Tenant {
    pub id: TenantId,
    pub name: String,
    pub currency: String,
    pub timezone: String,
    pub hold_ttl_minutes: i32,
    pub is_active: bool,
    pub created_at: Timestamp,
}

#[derive(Debug, Clone, Serialize)]
pub struct NewSite {
    pub name: String,
    pub timezone: String,
    pub currency: String,
    pub locale: String,
    pub address: Option<String>,
    pub contact_email: Option<String>,
    pub contact_phone: Option<String>,
    pub hold_ttl_minutes: Option<i32>,
    pub cancellation_policy: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct Site {
    pub id: Uuid,
    pub name: String,
    pub timezone: String,
    pub currency: String,
    pub locale: String,
    pub address: Option<String>,
    pub contact_email: Option<String>,
    pub contact_phone: Option<String>,
    pub hold_ttl_minutes: Option<i32>,
    pub cancellation_policy: String,
    pub is_active: bool,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
}

#[derive(Debug, Clone, Serialize)]
pub struct NewProduct {
    pub site_id: Uuid,
    pub name: String,
    pub description: String,
    pub duration_mins: i32,
    pub capacity: i32,
    /// Minor units.
    pub base_price: i64,
    /// `per_person` or `per_booking`.
    pub price_type: String,
    /// Basis points: 24 % is 2400.
    pub tax_rate_bp: i32,
    pub prices_include_tax: bool,
    /// `interval` or `fixed`.
    pub slot_policy: String,
    pub slot_interval_min: i32,
    pub fixed_slot_times: Vec<String>,
    pub setup_time: i32,
    pub cleanup_time: i32,
    pub label_codes: Vec<String>,
    pub requires_waiver: bool,
}

#[derive(Debug, Clone, Serialize)]
pub struct Product {
    pub id: Uuid,
    pub site_id: Uuid,
    pub name: String,
    pub description: String,
    pub duration_mins: i32,
    pub capacity: i32,
    pub base_price: i64,
    pub price_type: String,
    pub tax_rate_bp: i32,
    pub prices_include_tax: bool,
    pub slot_policy: String,
    pub slot_interval_min: i32,
    pub fixed_slot_times: Vec<String>,
    pub setup_time: i32,
    pub cleanup_time: i32,
    pub label_codes: Vec<String>,
    pub requires_waiver: bool,
    pub is_active: bool,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
}

#[derive(Debug, Clone)]
pub struct NewAdminUser {
    pub username: String,
    pub display_name: String,
    pub email: Option<String>,
    pub password_hash: String,
    pub roles: Vec<Role>,
}

/// A staff account. `roles` is sorted and never empty for an active user.
#[derive(Debug, Clone)]
pub struct AdminUser {
    pub id: Uuid,
    pub tenant_id: TenantId,
    pub username: String,
    pub display_name: String,
    pub email: Option<String>,
    pub password_hash: String,
    pub roles: Vec<Role>,
    pub is_active: bool,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
    pub last_login_at: Option<Timestamp>,
}

/// Fields of a staff account to change; `None` leaves a field as it is.
#[derive(Debug, Clone, Default)]
pub struct AdminUserPatch {
    pub display_name: Option<String>,
    /// `Some(None)` clears the email.
    pub email: Option<Option<String>>,
    pub password_hash: Option<String>,
    pub roles: Option<Vec<Role>>,
    pub is_active: Option<bool>,
}

#[derive(Debug, Clone)]
pub struct NewCustomer {
    pub email: String,
    pub password_hash: Option<String>,
    pub first_name: Option<String>,
    pub last_name: Option<String>,
    pub phone: Option<String>,
    pub marketing_opt_in: bool,
    pub sms_opt_in: bool,
    pub terms_accepted: bool,
    pub privacy_accepted: bool,
}

#[derive(Debug, Clone)]
pub struct Customer {
    pub id: Uuid,
    pub email: String,
    pub password_hash: Option<String>,
    pub first_name: Option<String>,
    pub last_name: Option<String>,
    pub phone: Option<String>,
    pub marketing_opt_in: bool,
    pub sms_opt_in: bool,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
}

impl Customer {
    /// "First Last", or the email when no name is known.
    pub fn display_name(&self) -> String {
        let name = [self.first_name.as_deref(), self.last_name.as_deref()]
            .into_iter()
            .flatten()
            .collect::<Vec<_>>()
            .join(" ");
        if name.is_empty() {
            self.email.clone()
        } else {
            name
        }
    }
}

/// Profile fields a customer may change; `Some(None)` clears an optional field.
#[derive(Debug, Clone, Default)]
pub struct CustomerPatch {
    pub first_name: Option<Option<String>>,
    pub last_name: Option<Option<String>>,
    pub phone: Option<Option<String>>,
    pub marketing_opt_in: Option<bool>,
    pub sms_opt_in: Option<bool>,
}

/// A product variant. `price_mode`: `none` (base price), `adjustment` (base + amount, may be
/// negative) or `override` (amount replaces the base price).
#[derive(Debug, Clone, Serialize)]
pub struct NewVariant {
    pub name: String,
    pub description: String,
    pub price_mode: String,
    pub price_amount: i64,
    pub capacity_share: Option<i32>,
    pub display_order: i32,
    pub is_active: bool,
}

#[derive(Debug, Clone, Serialize)]
pub struct Variant {
    pub id: Uuid,
    pub product_id: Uuid,
    pub name: String,
    pub description: String,
    pub price_mode: String,
    pub price_amount: i64,
    pub capacity_share: Option<i32>,
    pub display_order: i32,
    pub is_active: bool,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
}

/// A product add-on (spec Part B 2.2). `amount` is minor units for `fixed` and
/// `per_person` prices and basis points for `percentage`.
#[derive(Debug, Clone, Serialize)]
pub struct NewAddon {
    pub name: String,
    pub description: String,
    pub addon_type: String,
    pub mode: String,
    pub price_type: String,
    pub amount: i64,
    pub max_quantity: Option<i32>,
    pub display_order: i32,
    pub is_active: bool,
}

#[derive(Debug, Clone, Serialize)]
pub struct Addon {
    pub id: Uuid,
    pub product_id: Uuid,
    pub name: String,
    pub description: String,
    pub addon_type: String,
    pub mode: String,
    pub price_type: String,
    pub amount: i64,
    pub max_quantity: Option<i32>,
    pub display_order: i32,
    pub is_active: bool,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
}

/// Input of a schedule template (times `HH:MM`, site local).
#[derive(Debug, Clone, Serialize)]
pub struct NewTemplate {
    pub scope_type: String,
    pub scope_id: Uuid,
    pub day_of_week: Option<i32>,
    pub start_time: String,
    pub end_time: String,
    pub recurrence_kind: String,
    pub by_day: Option<i32>,
    pub by_month: Option<i32>,
    pub by_month_day: Option<i32>,
    pub exdates: Vec<chrono::NaiveDate>,
    pub valid_from: Option<chrono::NaiveDate>,
    pub valid_to: Option<chrono::NaiveDate>,
}

#[derive(Debug, Clone, Serialize)]
pub struct TemplateRecord {
    pub id: Uuid,
    #[serde(flatten)]
    pub fields: NewTemplate,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
}

/// Input of a schedule override or blackout. Blackouts carry `kind` and may omit times
/// (all day); overrides have no kind and need both times.
#[derive(Debug, Clone, Serialize)]
pub struct NewDateRule {
    pub scope_type: String,
    pub scope_id: Uuid,
    pub kind: Option<String>,
    pub date_from: chrono::NaiveDate,
    pub date_to: chrono::NaiveDate,
    pub start_time: Option<String>,
    pub end_time: Option<String>,
    /// `none` or `annual`.
    pub recurrence: String,
    pub reason: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct DateRuleRecord {
    pub id: Uuid,
    #[serde(flatten)]
    pub fields: NewDateRule,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
}

/// Which of the two date-rule tables.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DateRuleKind {
    Override,
    Blackout,
}

/// A bookable slot.
#[derive(Debug, Clone, Serialize)]
pub struct Slot {
    pub id: Uuid,
    pub product_id: Uuid,
    pub site_id: Uuid,
    pub starts_at: Timestamp,
    pub ends_at: Timestamp,
    pub capacity: i32,
    pub booked: i32,
    pub is_orphaned: bool,
}

/// What a regeneration did (or would do, for a preview).
#[derive(Debug, Clone, Default, Serialize)]
pub struct RegenReport {
    pub products: usize,
    pub created: usize,
    pub deleted: usize,
    pub orphaned: usize,
    pub restored: usize,
    pub kept: usize,
    pub sample_created: Vec<Timestamp>,
    pub sample_deleted: Vec<Timestamp>,
    pub sample_orphaned: Vec<Timestamp>,
}

impl RegenReport {
    pub const SAMPLES: usize = 10;

    pub fn absorb(&mut self, other: RegenReport) {
        self.products += other.products;
        self.created += other.created;
        self.deleted += other.deleted;
        self.orphaned += other.orphaned;
        self.restored += other.restored;
        self.kept += other.kept;
        for (into, from) in [
            (&mut self.sample_created, other.sample_created),
            (&mut self.sample_deleted, other.sample_deleted),
            (&mut self.sample_orphaned, other.sample_orphaned),
        ] {
            into.extend(from);
            into.truncate(Self::SAMPLES);
        }
    }
}

/// Dates a regeneration covers; missing ends mean today and today + horizon (site time).
/// Both are clamped to that window.
#[derive(Debug, Clone, Copy, Default)]
pub struct DateSpan {
    pub from: Option<chrono::NaiveDate>,
    pub to: Option<chrono::NaiveDate>,
}

/// A schedule change with the regeneration it caused.
#[derive(Debug, Clone)]
pub struct Changed<T> {
    pub record: T,
    pub regeneration: RegenReport,
}

/// A priced add-on line of a booking, in minor units.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PriceLine {
    pub addon_id: String,
    pub name: String,
    pub quantity: u32,
    pub total: i64,
}

/// A booking's price breakdown in minor units, as quoted when it was held or confirmed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PriceBreakdown {
    pub base_price: i64,
    pub addons: Vec<PriceLine>,
    pub subtotal: i64,
    pub tax: i64,
    pub total: i64,
    pub currency: String,
    pub pricing_hash: String,
}

impl From<&kairos_domain::pricing::Quote> for PriceBreakdown {
    fn from(q: &kairos_domain::pricing::Quote) -> Self {
        PriceBreakdown {
            base_price: q.base_price,
            addons: q
                .addons
                .iter()
                .map(|l| PriceLine {
                    addon_id: l.id.clone(),
                    name: l.name.clone(),
                    quantity: l.quantity,
                    total: l.total,
                })
                .collect(),
            subtotal: q.subtotal,
            tax: q.tax,
            total: q.total,
            currency: q.currency.clone(),
            pricing_hash: q.pricing_hash.clone(),
        }
    }
}

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

/// Where a booking was made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BookingSource {
    Public,
    Admin,
}

impl BookingSource {
    pub fn as_str(self) -> &'static str {
        match self {
            BookingSource::Public => "public",
            BookingSource::Admin => "admin",
        }
    }
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

/// A booking to create.
#[derive(Debug, Clone)]
pub struct NewBooking {
    pub site_id: Uuid,
    pub product_id: Uuid,
    pub slot_id: Uuid,
    pub variant_id: Option<Uuid>,
    pub customer: BookingCustomer,
    pub party_size: i32,
    pub addons: Vec<ChosenAddon>,
    pub participants: Value,
    pub price: PriceBreakdown,
    pub token_hash: String,
    pub source: BookingSource,
    /// `hold` with `hold_expires_at`, or `confirmed` (admin autoConfirm).
    pub status: kairos_domain::bookings::BookingStatus,
    pub hold_expires_at: Option<Timestamp>,
    pub payment_method: Option<String>,
    pub admin_notes: Option<String>,
    pub send_confirmation: bool,
    pub seats: SeatPolicy,
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
    pub participants: Value,
    pub price: PriceBreakdown,
    pub paid_amount: i64,
    pub token_hash: String,
    pub source: String,
    pub payment_method: Option<String>,
    pub admin_notes: Option<String>,
    pub send_confirmation: bool,
    pub created_by: Option<String>,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
    pub confirmed_at: Option<Timestamp>,
    pub canceled_at: Option<Timestamp>,
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
    /// Confirm a hold. `price` is the breakdown re-quoted for the confirmation; the
    /// caller has checked the client's pricing hash against it.
    Confirm {
        pay_on_arrival: bool,
        payment_method: String,
        method_reference: Option<String>,
        price: PriceBreakdown,
    },
    /// Cancel. With `min_lead`, a booking past its hold must start at least that long
    /// after now (the customer's policy window).
    Cancel {
        reason: Option<String>,
        min_lead: Option<chrono::Duration>,
    },
    /// Move to another slot of the same product (capacity moves atomically).
    Reschedule {
        slot_id: Uuid,
        min_lead: Option<chrono::Duration>,
    },
    MarkArrived,
    /// Record a payment (minor units; `None` = the balance) by `method`.
    MarkPaid {
        amount: Option<i64>,
        method: String,
    },
    MarkNoShow {
        reason: Option<String>,
    },
    /// An administrator sets the status; the status machine picks the trigger.
    SetStatus {
        status: kairos_domain::bookings::BookingStatus,
        reason: Option<String>,
        admin_notes: Option<String>,
        hold_ttl: chrono::Duration,
    },
}

/// Business rules a booking operation can refuse on.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BookingRefusal {
    #[error("{0}")]
    InvalidTransition(kairos_domain::bookings::InvalidTransition),
    #[error("the status machine has no transition from {from} to {to}")]
    NoTransition {
        from: kairos_domain::bookings::BookingStatus,
        to: kairos_domain::bookings::BookingStatus,
    },
    #[error("a {status} booking cannot be moved")]
    NotMovable {
        status: kairos_domain::bookings::BookingStatus,
    },
    #[error("the hold expired")]
    HoldExpired,
    #[error("the slot is no longer available")]
    SlotUnavailable,
    #[error("the slot has started")]
    SlotStarted,
    #[error("outside the policy window")]
    OutsideWindow { starts_at: Timestamp },
    #[error("the amount exceeds the balance")]
    AmountExceedsBalance { balance: i64 },
}

/// A booking note (spec Part A 2.3).
#[derive(Debug, Clone, Serialize)]
pub struct BookingNote {
    pub id: Uuid,
    pub booking_id: Uuid,
    pub content: String,
    pub category: String,
    pub priority: String,
    pub is_internal: bool,
    pub created_by: String,
    pub created_by_name: String,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
}

#[derive(Debug, Clone)]
pub struct NewNote {
    pub content: String,
    pub category: String,
    pub priority: String,
    pub is_internal: bool,
}

/// A payment recorded against a booking (minor units).
#[derive(Debug, Clone, Serialize, sqlx::FromRow)]
pub struct Payment {
    pub id: Uuid,
    pub booking_id: Uuid,
    pub amount: i64,
    pub currency: String,
    pub method: String,
    pub method_reference: Option<String>,
    pub status: String,
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

/// Hands a stored idempotent response to the operation that makes it, so the response
/// is recorded in the same transaction as its effect.
pub struct IdempotentFinish<'a> {
    pub key: &'a str,
    /// Renders the response (status, JSON body) of the created or changed booking.
    pub render: &'a (dyn Fn(&Booking) -> (u16, String) + Send + Sync),
}

impl std::fmt::Debug for IdempotentFinish<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("IdempotentFinish")
            .field("key", &self.key)
            .finish_non_exhaustive()
    }
}

/// What an idempotency key says about a request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IdempotencyClaim {
    /// First use (or a retry after an abandoned attempt): go ahead.
    Fresh,
    /// Done before with the same request: answer this.
    Replay { status: u16, body: String },
    /// Used before for a different request.
    Mismatch,
    /// The first request with this key is still running.
    InFlight,
}
