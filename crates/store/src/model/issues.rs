//! Customer issues (spec Part B 4.8).

use super::Timestamp;
use kairos_domain::issues::{CompensationMethod, IssueCategory, IssuePriority, IssueStatus};
use uuid::Uuid;

/// Who to reach about an issue.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct IssueContact {
    pub name: Option<String>,
    pub email: Option<String>,
    pub phone: Option<String>,
}

/// An issue to log. Missing contact details are taken from the booking's customer.
#[derive(Debug, Clone)]
pub struct NewIssue {
    pub booking_id: Option<Uuid>,
    pub category: IssueCategory,
    /// None: the category's.
    pub priority: Option<IssuePriority>,
    pub summary: String,
    pub description: Option<String>,
    pub reported_by: Option<String>,
    pub reported_at: Timestamp,
    pub contact: IssueContact,
}

/// A compensation asked for with an issue's update (minor units).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Compensation {
    pub amount: i64,
    pub method: CompensationMethod,
}

/// A refund an issue's compensation asks for: from which payment, how much.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CompensationRefund {
    pub payment_id: Uuid,
    pub amount: i64,
}

/// Changes to an issue; None leaves a field as it is.
#[derive(Debug, Clone, Default)]
pub struct IssuePatch {
    pub status: Option<IssueStatus>,
    pub resolution: Option<String>,
    pub compensation: Option<Compensation>,
    pub resolved_by: Option<String>,
    pub resolved_at: Option<Timestamp>,
    pub customer_satisfaction: Option<i32>,
    pub follow_up_required: Option<bool>,
}

/// An issue.
#[derive(Debug, Clone)]
pub struct Issue {
    pub id: Uuid,
    pub booking_id: Option<Uuid>,
    pub category: IssueCategory,
    pub priority: IssuePriority,
    pub status: IssueStatus,
    pub summary: String,
    pub description: Option<String>,
    pub reported_by: Option<String>,
    pub reported_at: Timestamp,
    pub contact: IssueContact,
    pub due_at: Timestamp,
    pub responded_at: Option<Timestamp>,
    pub resolution: Option<String>,
    pub compensation_amount: Option<i64>,
    pub compensation_method: Option<CompensationMethod>,
    /// issued (a voucher), pending (a refund being made), refunded, failed.
    pub compensation_status: Option<String>,
    pub compensation_voucher_id: Option<Uuid>,
    /// The voucher's code, when compensated with one.
    pub compensation_voucher_code: Option<String>,
    pub compensation_refund_id: Option<Uuid>,
    /// The currency of the compensation (the booking's, else the tenant's).
    pub currency: String,
    pub resolved_by: Option<String>,
    pub resolved_at: Option<Timestamp>,
    pub customer_satisfaction: Option<i32>,
    pub follow_up_required: bool,
    pub created_by: String,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
}

/// Filters of the issue list; every one optional.
#[derive(Debug, Clone, Default)]
pub struct IssueFilter {
    pub status: Option<IssueStatus>,
    pub category: Option<IssueCategory>,
    pub priority: Option<IssuePriority>,
    pub booking_id: Option<Uuid>,
    /// Only issues overdue at this time (still open past their due time).
    pub overdue_at: Option<Timestamp>,
    pub limit: i64,
    pub offset: i64,
}

/// Why an issue operation was refused.
#[derive(Debug, thiserror::Error)]
pub enum IssueError {
    #[error("no such issue")]
    NotFound,
    #[error("no such booking")]
    BookingNotFound,
    #[error("a closed issue stays closed")]
    Closed,
    #[error("the issue is compensated already")]
    Compensated,
    #[error("the booking has no card or bank payment to refund")]
    NothingToRefund,
    #[error("a voucher is in the tenant's currency, not the booking's")]
    VoucherCurrency,
    #[error(transparent)]
    Voucher(#[from] crate::VoucherError),
    #[error(transparent)]
    Store(#[from] crate::StoreError),
}

impl From<sqlx::Error> for IssueError {
    fn from(e: sqlx::Error) -> Self {
        IssueError::Store(e.into())
    }
}
