//! Messaging: tenants' message templates, automation rules, the message log, the
//! dead-letter queue.

use super::Timestamp;
use kairos_domain::messaging::automation::{OffsetUnit, TriggerEvent};
use kairos_domain::messaging::{Channel, MessageStatus, Priority};
use serde::Serialize;
use uuid::Uuid;

/// A tenant's message template (spec Part B 2.7). Global defaults are not stored.
#[derive(Debug, Clone, Serialize)]
pub struct MessageTemplate {
    pub id: Uuid,
    /// None: tenant-wide.
    pub site_id: Option<Uuid>,
    pub template_key: String,
    pub language_code: String,
    pub template_type: Channel,
    pub subject_template: String,
    pub body_template: String,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
}

/// A template to create.
#[derive(Debug, Clone)]
pub struct NewMessageTemplate {
    pub site_id: Option<Uuid>,
    pub template_key: String,
    pub language_code: String,
    pub template_type: Channel,
    pub subject_template: String,
    pub body_template: String,
}

/// Changes to a template: `None` leaves a field as it is.
#[derive(Debug, Clone, Default)]
pub struct MessageTemplatePatch {
    /// `Some(None)` makes the template tenant-wide.
    pub site_id: Option<Option<Uuid>>,
    pub template_key: Option<String>,
    pub language_code: Option<String>,
    pub template_type: Option<Channel>,
    pub subject_template: Option<String>,
    pub body_template: Option<String>,
}

/// Which of a tenant's templates to list.
#[derive(Debug, Clone, Default)]
pub struct MessageTemplateFilter {
    pub template_key: Option<String>,
    pub language_code: Option<String>,
    pub template_type: Option<Channel>,
    /// Tenant-wide templates plus this site's; `None`: every template.
    pub site_id: Option<Uuid>,
}

/// An automation rule (spec Part B 2.7).
#[derive(Debug, Clone, Serialize)]
pub struct AutomationRule {
    pub id: Uuid,
    pub name: String,
    pub description: String,
    pub trigger_event: TriggerEvent,
    pub trigger_offset: i32,
    pub trigger_offset_unit: OffsetUnit,
    pub template_key: String,
    pub template_id: Option<Uuid>,
    pub product_ids: Vec<Uuid>,
    pub site_ids: Vec<Uuid>,
    pub is_active: bool,
    /// Which default rule of spec 4.8 this is, if any.
    pub default_key: Option<String>,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
}

/// A rule to create.
#[derive(Debug, Clone)]
pub struct NewAutomationRule {
    pub name: String,
    pub description: String,
    pub trigger_event: TriggerEvent,
    pub trigger_offset: i32,
    pub trigger_offset_unit: OffsetUnit,
    pub template_key: String,
    pub template_id: Option<Uuid>,
    pub product_ids: Vec<Uuid>,
    pub site_ids: Vec<Uuid>,
    pub is_active: bool,
}

/// Changes to a rule: `None` leaves a field as it is.
#[derive(Debug, Clone, Default)]
pub struct AutomationRulePatch {
    pub name: Option<String>,
    pub description: Option<String>,
    pub trigger_event: Option<TriggerEvent>,
    pub trigger_offset: Option<i32>,
    pub trigger_offset_unit: Option<OffsetUnit>,
    pub template_key: Option<String>,
    pub template_id: Option<Option<Uuid>>,
    pub product_ids: Option<Vec<Uuid>>,
    pub site_ids: Option<Vec<Uuid>>,
    pub is_active: Option<bool>,
}

/// Which rules to list.
#[derive(Debug, Clone, Default)]
pub struct AutomationRuleFilter {
    pub trigger_event: Option<TriggerEvent>,
    pub is_active: Option<bool>,
    pub template_key: Option<String>,
}

#[derive(Debug, thiserror::Error)]
pub enum MessagingError {
    #[error("template not found")]
    TemplateNotFound,
    #[error("a template with this key, language, type and site already exists")]
    TemplateExists,
    #[error("automation rule not found")]
    RuleNotFound,
    #[error("no such site")]
    SiteNotFound,
    #[error("no such site {0}")]
    RuleSiteNotFound(Uuid),
    #[error("no such product {0}")]
    ProductNotFound(Uuid),
    #[error("no such customer")]
    CustomerNotFound,
    #[error("no such booking")]
    BookingNotFound,
    #[error("message not found")]
    MessageNotFound,
    #[error("no {0} template of this key")]
    NoTemplate(Channel),
    #[error("not sent: {0}")]
    Withheld(&'static str),
    #[error("the template could not be rendered with these variables")]
    RenderFailed,
    #[error("dead letter not found")]
    DeadLetterNotFound,
    #[error("the dead letter is {0}; only an open one can be {1}")]
    DeadLetterClosed(String, &'static str),
    #[error("bulk send not found")]
    BulkNotFound,
    #[error("the bulk send is {0}; only a scheduled or sending one can be canceled")]
    BulkClosed(&'static str),
    #[error(transparent)]
    Idempotency(#[from] crate::IdempotencyError),
    #[error(transparent)]
    Store(#[from] crate::StoreError),
}

crate::store_error_from_sqlx!(MessagingError);

/// A message to send. Rendered already: delivery sends it as it is.
#[derive(Debug, Clone)]
pub struct NewMessage {
    pub channel: Channel,
    pub template_key: Option<String>,
    /// What made it: `automation`, `booking`, `send`, `bulk`.
    pub source: &'static str,
    /// An email address or a phone number.
    pub recipient: String,
    pub recipient_name: String,
    pub customer_id: Option<Uuid>,
    pub booking_id: Option<Uuid>,
    pub rule_id: Option<Uuid>,
    pub bulk_id: Option<Uuid>,
    pub subject: String,
    pub body: String,
    pub priority: Priority,
    pub track_delivery: bool,
    /// Not sent before.
    pub send_after: Timestamp,
}

/// A message of the log, with its delivery state.
#[derive(Debug, Clone, Serialize)]
pub struct Message {
    pub id: Uuid,
    pub channel: Channel,
    pub template_key: Option<String>,
    pub source: String,
    pub recipient: String,
    pub recipient_name: String,
    pub customer_id: Option<Uuid>,
    pub booking_id: Option<Uuid>,
    pub rule_id: Option<Uuid>,
    pub bulk_id: Option<Uuid>,
    pub subject: String,
    pub body: String,
    pub priority: Priority,
    pub track_delivery: bool,
    pub status: MessageStatus,
    pub send_after: Timestamp,
    pub sent_at: Option<Timestamp>,
    pub delivered_at: Option<Timestamp>,
    pub opened_at: Option<Timestamp>,
    pub clicked_at: Option<Timestamp>,
    pub failed_at: Option<Timestamp>,
    pub last_error: Option<String>,
    /// Delivery attempts since it was queued (or last retried from the dead-letter queue).
    pub attempts: i32,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
}

/// Which messages to list, newest first.
#[derive(Debug, Clone, Default)]
pub struct MessageFilter {
    pub booking_id: Option<Uuid>,
    pub customer_id: Option<Uuid>,
    pub channel: Option<Channel>,
    pub status: Option<MessageStatus>,
    pub bulk_id: Option<Uuid>,
    pub limit: u32,
}

/// A message claimed for one delivery attempt.
#[derive(Debug, Clone)]
pub struct Delivery {
    pub tenant: kairos_domain::TenantId,
    pub id: Uuid,
    /// This attempt's number, from 1.
    pub attempt: i32,
    pub channel: Channel,
    pub recipient: String,
    pub recipient_name: String,
    pub subject: String,
    pub body: String,
    pub track_delivery: bool,
}

/// How one delivery attempt went.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DeliveryResult {
    Delivered,
    /// Worth another attempt (a connection failure, a 4xx SMTP reply, a 5xx from the SMS
    /// provider): retried after a backoff until the attempts run out.
    Transient {
        error_type: String,
        message: String,
    },
    /// Will not work however often it is tried (a 5xx SMTP reply, a bad address): to the
    /// dead-letter queue at once.
    Permanent {
        error_type: String,
        message: String,
    },
}

/// What happened to a message after an attempt was recorded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Recorded {
    Delivered,
    /// Another attempt at this time.
    Retrying(Timestamp),
    DeadLettered,
    /// The claim was no longer ours (another worker took the message after the lease ran
    /// out): nothing recorded.
    Stale,
}

/// A dead letter (spec Part B 4.11).
#[derive(Debug, Clone, Serialize)]
pub struct DeadLetter {
    pub id: Uuid,
    pub category: kairos_domain::dead_letters::Category,
    pub kind: String,
    pub error_type: String,
    pub error_message: String,
    pub retry_count: i32,
    pub outbox_id: Option<Uuid>,
    pub booking_id: Option<Uuid>,
    pub transaction_id: Option<Uuid>,
    pub status: kairos_domain::dead_letters::Status,
    pub resolution: Option<String>,
    pub resolved_by: Option<String>,
    pub resolved_at: Option<Timestamp>,
    pub failed_at: Timestamp,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
}

/// Which dead letters to list, newest failure first.
#[derive(Debug, Clone, Default)]
pub struct DeadLetterFilter {
    pub category: Option<kairos_domain::dead_letters::Category>,
    pub kind: Option<String>,
    pub status: Option<kairos_domain::dead_letters::Status>,
    pub booking_id: Option<Uuid>,
    /// From 1.
    pub page: u32,
    pub per_page: u32,
}

/// What one scheduler pass did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct AutomationReport {
    /// Firings that queued at least one message.
    pub fired: usize,
    /// Firings recorded without a message (cancelled, too late, opted out, …).
    pub skipped: usize,
    /// Messages queued.
    pub messages: usize,
}

/// A customer's message choices (spec Part B 4.8) as stored.
#[derive(Debug, Clone)]
pub struct CustomerPreferences {
    pub customer_id: Uuid,
    pub prefs: kairos_domain::messaging::Preferences,
    pub language: Option<String>,
    pub timezone: Option<String>,
    pub updated_at: Timestamp,
}

/// Changes to a customer's choices: `None` leaves a field as it is.
#[derive(Debug, Clone, Default)]
pub struct PreferencesPatch {
    pub sms_opt_in: Option<bool>,
    pub marketing_opt_in: Option<bool>,
    pub email_booking_confirmation: Option<bool>,
    pub email_reminders: Option<bool>,
    pub email_follow_up: Option<bool>,
    pub sms_reminders: Option<bool>,
    pub sms_arrival_confirmation: Option<bool>,
    /// `Some(None)` clears it.
    pub language: Option<Option<String>>,
    pub timezone: Option<Option<String>>,
}

/// Whom staff send a message to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SendTo {
    Customer(Uuid),
    Booking(Uuid),
}

/// A message staff send (spec Part B 4.8 `POST /admin/messaging/send`).
#[derive(Debug, Clone)]
pub struct SendRequest {
    pub to: SendTo,
    pub channel: Channel,
    pub template_key: String,
    /// Laid over the recipient's variables (`message`, say).
    pub variables: Option<serde_json::Value>,
    pub priority: Priority,
    pub track_delivery: bool,
}

/// Message counts of one channel and template key in a period.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MessageCounts {
    pub channel: Channel,
    pub template_key: Option<String>,
    /// Queued in the period.
    pub queued: i64,
    pub delivered: i64,
    pub failed: i64,
    pub opened: i64,
    pub clicked: i64,
}

/// A bulk send to create (spec Part B 4.8 `POST /admin/messaging/bulk`): its subject and
/// body are templates rendered with each booking's variables.
#[derive(Debug, Clone)]
pub struct NewBulk {
    pub filter: kairos_domain::messaging::bulk::RecipientFilter,
    pub channel: Channel,
    /// Empty for SMS.
    pub subject: String,
    pub body: String,
    /// When sending starts (now when not set by staff).
    pub send_at: Timestamp,
}

/// A bulk send and how far it got.
#[derive(Debug, Clone)]
pub struct Bulk {
    pub id: Uuid,
    pub filter: kairos_domain::messaging::bulk::RecipientFilter,
    pub channel: Channel,
    pub subject: String,
    pub body: String,
    pub send_at: Timestamp,
    pub status: kairos_domain::messaging::bulk::BulkStatus,
    /// Bookings the filter matched when sending started (0 before); once every message
    /// is written, the bookings reached (messages plus skipped).
    pub total: i64,
    /// Bookings that got no message, and why (`no_sms_opt_in`, `no_recipient`,
    /// `booking_canceled`, `moved_out_of_range`, `render_failed`).
    pub skipped: i64,
    pub skip_reasons: std::collections::BTreeMap<String, i64>,
    /// Bookings looked at so far: messages written plus bookings skipped.
    pub processed: i64,
    /// Its messages by status (queued: waiting to be sent).
    pub queued: i64,
    pub delivered: i64,
    pub failed: i64,
    pub canceled: i64,
    pub created_by: Option<String>,
    pub created_at: Timestamp,
    pub started_at: Option<Timestamp>,
    /// When every recipient's message was written (delivery may still be going on).
    pub prepared_at: Option<Timestamp>,
    /// When it completed or was canceled.
    pub finished_at: Option<Timestamp>,
}

/// What one pass over the bulk sends did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct BulkReport {
    /// Sends that started in this pass.
    pub started: usize,
    /// Messages queued.
    pub messages: usize,
    /// Bookings skipped.
    pub skipped: usize,
    /// Sends that completed.
    pub completed: usize,
}
