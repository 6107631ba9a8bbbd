//! Messaging: tenants' message templates, automation rules, the message log, the
//! dead-letter queue.

use super::Timestamp;
use kairos_domain::messaging::Channel;
use kairos_domain::messaging::automation::{OffsetUnit, TriggerEvent};
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
    #[error("no such product {0}")]
    ProductNotFound(Uuid),
    #[error("no such customer")]
    CustomerNotFound,
    #[error("no such booking")]
    BookingNotFound,
    #[error("message not found")]
    MessageNotFound,
    #[error("dead letter not found")]
    DeadLetterNotFound,
    #[error("the dead letter is {0}; only an open one can be {1}")]
    DeadLetterClosed(String, &'static str),
    #[error(transparent)]
    Store(#[from] crate::StoreError),
}

crate::store_error_from_sqlx!(MessagingError);
