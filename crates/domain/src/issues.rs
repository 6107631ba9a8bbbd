//! Customer issues staff log against a booking (spec Part B 4.8): the category decides the
//! priority and the response target, and an issue nobody has responded to by its due time
//! is overdue.
//!
//! | category | priority | response target |
//! |---|---|---|
//! | safety | critical | immediate (due when reported) |
//! | service_quality | high | 1 hour |
//! | billing | high | 2 hours |
//! | booking_error | high | 1 hour |
//! | equipment | medium | 4 hours |
//! | experience | medium | 24 hours |
//! | general | low | 48 hours |

use chrono::{DateTime, Duration, Utc};

crate::text_enum! {
    /// What an issue is about.
    pub enum IssueCategory {
        Safety = "safety",
        ServiceQuality = "service_quality",
        Billing = "billing",
        BookingError = "booking_error",
        Equipment = "equipment",
        Experience = "experience",
        General = "general",
    }
}

crate::text_enum! {
    /// How urgent an issue is.
    pub enum IssuePriority {
        Critical = "critical",
        High = "high",
        Medium = "medium",
        Low = "low",
    }
}

crate::text_enum! {
    /// Where an issue stands: `open` until someone responds (`in_progress`), then
    /// `resolved`, and `closed` for good.
    pub enum IssueStatus {
        Open = "open",
        InProgress = "in_progress",
        Resolved = "resolved",
        Closed = "closed",
    }
}

crate::text_enum! {
    /// How a compensation reaches the customer.
    pub enum CompensationMethod {
        /// A credit voucher (`loyalty_credit`) for the amount.
        Voucher = "voucher",
        /// The amount refunded to the booking's card or bank payment.
        Refund = "refund",
    }
}

impl IssueCategory {
    /// The category's priority (the table above).
    pub fn priority(self) -> IssuePriority {
        match self {
            IssueCategory::Safety => IssuePriority::Critical,
            IssueCategory::ServiceQuality
            | IssueCategory::Billing
            | IssueCategory::BookingError => IssuePriority::High,
            IssueCategory::Equipment | IssueCategory::Experience => IssuePriority::Medium,
            IssueCategory::General => IssuePriority::Low,
        }
    }

    /// How soon someone must respond (the table above; safety: at once).
    pub fn response_target(self) -> Duration {
        match self {
            IssueCategory::Safety => Duration::zero(),
            IssueCategory::ServiceQuality | IssueCategory::BookingError => Duration::hours(1),
            IssueCategory::Billing => Duration::hours(2),
            IssueCategory::Equipment => Duration::hours(4),
            IssueCategory::Experience => Duration::hours(24),
            IssueCategory::General => Duration::hours(48),
        }
    }

    /// When an issue reported at `reported_at` is due a response.
    pub fn due_at(self, reported_at: DateTime<Utc>) -> DateTime<Utc> {
        reported_at + self.response_target()
    }
}

impl IssueStatus {
    /// Whether an issue may go from `self` to `to`: any change but out of `closed`.
    pub fn may_become(self, to: IssueStatus) -> bool {
        self != IssueStatus::Closed || to == IssueStatus::Closed
    }
}

/// Whether an issue is overdue at `now`: nobody has responded yet (still `open`, and
/// never moved out of it) and its due time has passed.
pub fn is_overdue(
    status: IssueStatus,
    responded: bool,
    due_at: DateTime<Utc>,
    now: DateTime<Utc>,
) -> bool {
    status == IssueStatus::Open && !responded && now > due_at
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    #[test]
    fn each_category_has_the_priority_and_target_of_the_table() {
        let at = Utc.with_ymd_and_hms(2026, 5, 1, 12, 0, 0).unwrap();
        let rows = [
            (IssueCategory::Safety, IssuePriority::Critical, 0),
            (IssueCategory::ServiceQuality, IssuePriority::High, 1),
            (IssueCategory::Billing, IssuePriority::High, 2),
            (IssueCategory::BookingError, IssuePriority::High, 1),
            (IssueCategory::Equipment, IssuePriority::Medium, 4),
            (IssueCategory::Experience, IssuePriority::Medium, 24),
            (IssueCategory::General, IssuePriority::Low, 48),
        ];
        for (category, priority, hours) in rows {
            assert_eq!(category.priority(), priority, "{category}");
            assert_eq!(
                category.due_at(at),
                at + Duration::hours(hours),
                "{category}"
            );
        }
    }

    #[test]
    fn only_an_open_issue_past_its_due_time_is_overdue_and_closed_is_final() {
        let due = Utc.with_ymd_and_hms(2026, 5, 1, 12, 0, 0).unwrap();
        let later = due + Duration::minutes(1);
        assert!(is_overdue(IssueStatus::Open, false, due, later));
        assert!(!is_overdue(IssueStatus::Open, false, due, due));
        assert!(!is_overdue(IssueStatus::InProgress, false, due, later));
        // Reopened after a response: answered in time, not overdue.
        assert!(!is_overdue(IssueStatus::Open, true, due, later));
        assert!(IssueStatus::Resolved.may_become(IssueStatus::InProgress));
        assert!(!IssueStatus::Closed.may_become(IssueStatus::Open));
        assert!(IssueStatus::Closed.may_become(IssueStatus::Closed));
    }
}
