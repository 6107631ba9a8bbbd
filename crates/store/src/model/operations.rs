//! Daily operations: no-shows, fees on bookings, customers blocked from new holds.

use super::{Actor, Timestamp};
use kairos_domain::auth::ActorKind;
use kairos_domain::fees::{DetectionMethod, FeeKind, FeeStatus, NoShowPolicy, Resolution};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

/// How an actor is named in `markedBy`, `assessedBy` and `processedBy`: a staff user's id,
/// a customer's id, or `system:<job>`.
pub fn actor_label(actor: &Actor) -> String {
    match (actor.kind, &actor.id, &actor.name) {
        (ActorKind::System, _, Some(name)) => format!("system:{name}"),
        (_, Some(id), _) => id.clone(),
        (_, None, Some(name)) => name.clone(),
        (_, None, None) => "system".to_owned(),
    }
}

/// One attempt to reach the customer before a booking was marked a no-show.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ContactAttempt {
    /// phone, sms, email, … (the venue's own word).
    pub method: String,
    pub timestamp: Timestamp,
    /// What came of it (no_answer, voicemail, …).
    pub result: String,
}

/// The details of marking a booking a no-show (staff's, or the detection job's).
#[derive(Debug, Clone, Default)]
pub struct NoShowMark {
    pub reason: Option<String>,
    /// When the customer was due and did not come; default the booking's start.
    pub no_show_time: Option<Timestamp>,
    pub contact_attempts: Vec<ContactAttempt>,
    pub notes: Option<String>,
    /// Assess the tenant's no-show fee; None: when the tenant's policy is enabled.
    pub apply_fee: Option<bool>,
    /// Refuse the customer new holds until staff lift the block.
    pub block_future_bookings: bool,
    /// Found by the detection job rather than staff.
    pub automatic: bool,
}

/// A fee to assess on a booking (minor units).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewFee {
    pub kind: FeeKind,
    pub amount: i64,
    pub reason: Option<String>,
    pub notes: Option<String>,
}

/// A fee on a booking.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BookingFee {
    pub id: Uuid,
    pub booking_id: Uuid,
    pub kind: FeeKind,
    /// Minor units.
    pub amount: i64,
    pub currency: String,
    pub status: FeeStatus,
    pub reason: Option<String>,
    pub notes: Option<String>,
    /// The off-session charge's payment, once one was attempted.
    pub payment_id: Option<Uuid>,
    /// The provider's PaymentIntent of the charge that took it.
    pub charge_id: Option<String>,
    pub charge_attempts: i32,
    /// The last charge attempt's failure: code and message.
    pub last_error: Option<(String, String)>,
    pub assessed_by: String,
    pub created_at: Timestamp,
    pub processed_at: Option<Timestamp>,
    pub processed_by: Option<String>,
}

/// The no-show tracking record (spec Part B 2.8).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NoShowRecord {
    pub id: Uuid,
    pub booking_id: Uuid,
    pub no_show_time: Timestamp,
    pub minutes_past_start_time: i32,
    pub detected_at: Timestamp,
    pub detection_method: DetectionMethod,
    /// Minor units: what the tenant's policy calculated.
    pub fee_calculated: i64,
    pub fee: Option<BookingFee>,
    pub marked_by: String,
    pub reason: Option<String>,
    pub notes: Option<String>,
    pub contact_attempts: Vec<ContactAttempt>,
    pub block_future_bookings: bool,
    pub resolution: Option<Resolution>,
    pub resolved_at: Option<Timestamp>,
    pub resolution_notes: Option<String>,
}

/// A no-show still open (no resolution), with its booking's customer and time, for the
/// pending list.
#[derive(Debug, Clone)]
pub struct PendingNoShow {
    pub record: NoShowRecord,
    pub customer_id: Option<Uuid>,
    pub customer_name: String,
    pub booking_time: Timestamp,
}

/// A page of open no-shows, with the total count and the sum of their open fees per
/// currency (minor units).
#[derive(Debug, Clone)]
pub struct PendingNoShows {
    pub items: Vec<PendingNoShow>,
    pub total: i64,
    pub pending_fees: Vec<(String, i64)>,
}

/// A tenant's no-show fee policy; `updated_at` None: never set (disabled).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct StoredNoShowPolicy {
    pub policy: NoShowPolicy,
    pub updated_at: Option<Timestamp>,
}

/// A customer refused new holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CustomerBlock {
    pub id: Uuid,
    /// Lower case.
    pub email: String,
    pub customer_id: Option<Uuid>,
    pub booking_id: Option<Uuid>,
    pub reason: String,
    pub created_at: Timestamp,
    pub created_by: String,
    pub lifted_at: Option<Timestamp>,
    pub lifted_by: Option<String>,
    pub lift_reason: Option<String>,
}

/// A fee charge begun: the payment that carries it (its id is the provider call's
/// idempotency key, so a retry after a lost answer finds the same charge) and the
/// booking's card payment whose card is charged.
#[derive(Debug, Clone)]
pub struct FeeCharge {
    pub fee: BookingFee,
    pub payment_id: Uuid,
    /// What this attempt charges (minor units): fixed when it began, so a retry asks the
    /// provider the same question.
    pub amount: i64,
    /// The booking's card payment whose saved card pays the fee; None: no card on file.
    pub card_payment: Option<crate::OnlinePayment>,
}

/// How a fee charge ended at the provider.
#[derive(Debug, Clone)]
pub enum FeeChargeOutcome {
    /// Taken: the PaymentIntent's id.
    Charged { intent: String },
    /// The provider is still processing it: its event finishes it.
    Processing { intent: String },
    /// Declined (or refused): the fee stays pending with this code and message.
    Declined { code: String, message: String },
    /// No card on file any more: the fee is owed.
    NoCard,
}

/// Why a fee operation was refused.
#[derive(Debug, thiserror::Error)]
pub enum FeeError {
    #[error("no such fee")]
    NotFound,
    #[error("no such booking")]
    BookingNotFound,
    #[error("the fee is {0}: it cannot be {1}")]
    NotOpen(FeeStatus, &'static str),
    #[error("the booking has no no-show record")]
    NoRecord,
    #[error("the fee comes to nothing: give an amount")]
    Nothing,
    #[error("a charge of the fee is under way")]
    ChargeInProgress,
    #[error("the no-show is already resolved ({0})")]
    Resolved(Resolution),
    #[error(transparent)]
    Store(#[from] crate::StoreError),
    #[error(transparent)]
    Idempotency(#[from] crate::IdempotencyError),
}

impl From<sqlx::Error> for FeeError {
    fn from(e: sqlx::Error) -> Self {
        FeeError::Store(e.into())
    }
}
