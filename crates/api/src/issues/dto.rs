//! The shapes of issues. The compensation is in major units of the issue's currency (its
//! booking's, else the tenant's).

use chrono::{DateTime, Utc};
use kairos_domain::issues::is_overdue;
use kairos_domain::money::to_major;
use kairos_domain::tenancy::Currency;
use kairos_store::Issue;
use serde::Serialize;
use utoipa::ToSchema;

/// Who to reach about an issue.
#[derive(Debug, Serialize, ToSchema)]
pub struct ContactInfo {
    pub name: Option<String>,
    pub email: Option<String>,
    pub phone: Option<String>,
}

/// An issue.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct IssueDto {
    pub id: String,
    pub booking_id: Option<String>,
    /// safety, service_quality, billing, booking_error, equipment, experience, general.
    #[schema(example = "equipment")]
    pub category: String,
    /// critical, high, medium, low.
    #[schema(example = "medium")]
    pub priority: String,
    /// open, in_progress, resolved, closed.
    #[schema(example = "open")]
    pub status: String,
    pub summary: String,
    pub description: Option<String>,
    pub reported_by: Option<String>,
    pub reported_at: DateTime<Utc>,
    pub contact_info: ContactInfo,
    /// When a response is due: reported + the category's response target.
    pub due_at: DateTime<Utc>,
    /// The category's response target in minutes (0: immediate).
    pub response_target_minutes: i64,
    /// When someone first responded (the issue left `open`).
    pub responded_at: Option<DateTime<Utc>>,
    /// Still open past its due time.
    pub overdue: bool,
    pub resolution: Option<String>,
    /// Major units of `currency`.
    pub compensation_amount: Option<f64>,
    /// voucher or refund.
    pub compensation_method: Option<String>,
    /// issued (voucher), refunded, pending (a refund the provider has yet to report), failed.
    pub compensation_status: Option<String>,
    /// The credit voucher's code, when compensated with one.
    pub compensation_voucher_code: Option<String>,
    pub compensation_refund_id: Option<String>,
    #[schema(example = "EUR")]
    pub currency: String,
    pub resolved_by: Option<String>,
    pub resolved_at: Option<DateTime<Utc>>,
    /// 1 to 5.
    pub customer_satisfaction: Option<i32>,
    pub follow_up_required: bool,
    pub created_by: String,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

impl IssueDto {
    pub fn of(i: &Issue, now: DateTime<Utc>) -> Self {
        let major = |minor: i64| {
            Currency::parse(&i.currency)
                .map(|c| to_major(minor, c))
                .unwrap_or_default()
        };
        IssueDto {
            id: i.id.to_string(),
            booking_id: i.booking_id.map(|b| b.to_string()),
            category: i.category.as_str().to_owned(),
            priority: i.priority.as_str().to_owned(),
            status: i.status.as_str().to_owned(),
            summary: i.summary.clone(),
            description: i.description.clone(),
            reported_by: i.reported_by.clone(),
            reported_at: i.reported_at,
            contact_info: ContactInfo {
                name: i.contact.name.clone(),
                email: i.contact.email.clone(),
                phone: i.contact.phone.clone(),
            },
            due_at: i.due_at,
            response_target_minutes: i.category.response_target().num_minutes(),
            responded_at: i.responded_at,
            overdue: is_overdue(i.status, i.responded_at.is_some(), i.due_at, now),
            resolution: i.resolution.clone(),
            compensation_amount: i.compensation_amount.map(major),
            compensation_method: i.compensation_method.map(|m| m.as_str().to_owned()),
            compensation_status: i.compensation_status.clone(),
            compensation_voucher_code: i.compensation_voucher_code.clone(),
            compensation_refund_id: i.compensation_refund_id.map(|r| r.to_string()),
            currency: i.currency.clone(),
            resolved_by: i.resolved_by.clone(),
            resolved_at: i.resolved_at,
            customer_satisfaction: i.customer_satisfaction,
            follow_up_required: i.follow_up_required,
            created_by: i.created_by.clone(),
            created_at: i.created_at,
            updated_at: i.updated_at,
        }
    }
}

/// An issue as a booking's detail lists it.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct IssueSummary {
    pub id: String,
    pub category: String,
    pub priority: String,
    pub status: String,
    pub summary: String,
    pub due_at: DateTime<Utc>,
    pub overdue: bool,
    /// issued, refunded, pending, failed; null without a compensation.
    pub compensation_status: Option<String>,
}

impl IssueSummary {
    pub fn of(i: &Issue, now: DateTime<Utc>) -> Self {
        IssueSummary {
            id: i.id.to_string(),
            category: i.category.as_str().to_owned(),
            priority: i.priority.as_str().to_owned(),
            status: i.status.as_str().to_owned(),
            summary: i.summary.clone(),
            due_at: i.due_at,
            overdue: is_overdue(i.status, i.responded_at.is_some(), i.due_at, now),
            compensation_status: i.compensation_status.clone(),
        }
    }
}
