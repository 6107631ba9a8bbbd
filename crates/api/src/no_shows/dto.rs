//! The shapes of no-shows and fees. Money is integer minor units here (spec Part A 2:
//! "no-show fees" are stated in minor units; so are the other fees on a booking).

use chrono::{DateTime, Utc};
use kairos_domain::fees::FeeStatus;
use kairos_store::{BookingFee, ContactAttempt, NoShowRecord};
use serde::Serialize;
use utoipa::ToSchema;

/// One attempt to reach the customer.
#[derive(Debug, Serialize, ToSchema)]
pub struct ContactAttemptDto {
    /// phone, sms, email, … (the venue's own word).
    pub method: String,
    pub timestamp: DateTime<Utc>,
    /// no_answer, voicemail, … (the venue's own word).
    pub result: String,
}

impl From<&ContactAttempt> for ContactAttemptDto {
    fn from(c: &ContactAttempt) -> Self {
        ContactAttemptDto {
            method: c.method.clone(),
            timestamp: c.timestamp,
            result: c.result.clone(),
        }
    }
}

/// A charge attempt's failure.
#[derive(Debug, Serialize, ToSchema)]
pub struct FeeErrorDto {
    /// The provider's code (card_declined, authentication_required, …), or
    /// no_card_on_file.
    pub code: String,
    pub message: String,
}

/// A fee on a booking (minor units).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct FeeDto {
    pub id: String,
    pub booking_id: String,
    /// no_show, damage, late_cancellation or other.
    #[schema(example = "no_show")]
    pub fee_type: String,
    #[schema(example = 2500)]
    pub amount: i64,
    #[schema(example = "EUR")]
    pub currency: String,
    /// pending (to charge to the card on file), owed (no card on file: collect it at the
    /// desk), charged, waived, cancelled (the no-show was corrected before it was
    /// charged) or refunded (corrected after).
    #[schema(example = "pending")]
    pub status: String,
    pub reason: Option<String>,
    pub notes: Option<String>,
    /// The provider's PaymentIntent that took it.
    pub charge_id: Option<String>,
    pub charge_attempts: i32,
    /// The last charge attempt's failure.
    pub last_error: Option<FeeErrorDto>,
    pub assessed_by: String,
    pub created_at: DateTime<Utc>,
    pub processed_at: Option<DateTime<Utc>>,
    pub processed_by: Option<String>,
}

impl From<&BookingFee> for FeeDto {
    fn from(f: &BookingFee) -> Self {
        FeeDto {
            id: f.id.to_string(),
            booking_id: f.booking_id.to_string(),
            fee_type: f.kind.as_str().to_owned(),
            amount: f.amount,
            currency: f.currency.clone(),
            status: f.status.as_str().to_owned(),
            reason: f.reason.clone(),
            notes: f.notes.clone(),
            charge_id: f.charge_id.clone(),
            charge_attempts: f.charge_attempts,
            last_error: f.last_error.as_ref().map(|(code, message)| FeeErrorDto {
                code: code.clone(),
                message: message.clone(),
            }),
            assessed_by: f.assessed_by.clone(),
            created_at: f.created_at,
            processed_at: f.processed_at,
            processed_by: f.processed_by.clone(),
        }
    }
}

/// What of a fee was taken: its amount once charged (also after a refund, which
/// `feeStatus` says), else 0.
pub fn charged(fee: Option<&BookingFee>) -> i64 {
    match fee {
        Some(f) if matches!(f.status, FeeStatus::Charged | FeeStatus::Refunded) => f.amount,
        _ => 0,
    }
}

/// The no-show tracking record (spec Part B 2.8; fees in minor units).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct NoShowRecordDto {
    pub id: String,
    pub booking_id: String,
    /// Minutes from the booking's start to when it was marked.
    pub minutes_past_start_time: i32,
    pub detected_at: DateTime<Utc>,
    /// auto (the detection job) or manual (staff).
    #[schema(example = "manual")]
    pub detection_method: String,
    /// What the tenant's no-show fee policy calculated (0 when it is disabled).
    pub fee_calculated: i64,
    /// What was charged to the card on file.
    pub fee_charged: i64,
    /// The fee's status (see `fee`), or none when no fee was assessed.
    #[schema(example = "pending")]
    pub fee_status: String,
    /// A staff user's id, or system:no-show detection.
    pub marked_by: String,
    pub reason: Option<String>,
    pub resolved_at: Option<DateTime<Utc>>,
    pub resolution_notes: Option<String>,
    /// fee_charged, fee_waived, arrived_late or rescheduled; null while open.
    pub resolution: Option<String>,
    /// When the customer was due (default: the booking's start).
    pub no_show_time: DateTime<Utc>,
    pub notes: Option<String>,
    pub contact_attempts: Vec<ContactAttemptDto>,
    pub block_future_bookings: bool,
    pub fee: Option<FeeDto>,
}

impl From<&NoShowRecord> for NoShowRecordDto {
    fn from(r: &NoShowRecord) -> Self {
        NoShowRecordDto {
            id: r.id.to_string(),
            booking_id: r.booking_id.to_string(),
            minutes_past_start_time: r.minutes_past_start_time,
            detected_at: r.detected_at,
            detection_method: r.detection_method.as_str().to_owned(),
            fee_calculated: r.fee_calculated,
            fee_charged: charged(r.fee.as_ref()),
            fee_status: r
                .fee
                .as_ref()
                .map_or("none", |f| f.status.as_str())
                .to_owned(),
            marked_by: r.marked_by.clone(),
            reason: r.reason.clone(),
            resolved_at: r.resolved_at,
            resolution_notes: r.resolution_notes.clone(),
            resolution: r.resolution.map(|x| x.as_str().to_owned()),
            no_show_time: r.no_show_time,
            notes: r.notes.clone(),
            contact_attempts: r.contact_attempts.iter().map(Into::into).collect(),
            block_future_bookings: r.block_future_bookings,
            fee: r.fee.as_ref().map(Into::into),
        }
    }
}
