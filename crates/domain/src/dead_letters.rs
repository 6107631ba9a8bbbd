//! The dead-letter queue (spec Part B 4.11): work that failed for good, kept for staff to
//! retry, resolve by hand or skip with a reason.
//!
//! ```text
//! open ──retry──▶ retrying ──delivered──▶ resolved
//!  │ ▲               │
//!  │ └──failed again─┘
//!  ├──resolve──▶ resolved
//!  └──skip─────▶ skipped
//! ```

crate::text_enum! {
    /// What failed.
    pub enum Category {
        Notification = "notification",
        Payment = "payment",
        BookingOperation = "booking_operation",
    }
}

crate::text_enum! {
    /// Where a dead letter is in its life.
    pub enum Status {
        Open = "open",
        Retrying = "retrying",
        Resolved = "resolved",
        Skipped = "skipped",
    }
}

/// What staff can do with a dead letter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    Retry,
    Resolve,
    Skip,
}

impl Action {
    pub fn past(self) -> &'static str {
        match self {
            Action::Retry => "retried",
            Action::Resolve => "resolved",
            Action::Skip => "skipped",
        }
    }
}

/// The status after `action`, or `None` when a dead letter in `from` cannot take it:
/// only an open one can be acted on (one being retried waits for its outcome).
pub fn after(from: Status, action: Action) -> Option<Status> {
    match (from, action) {
        (Status::Open, Action::Retry) => Some(Status::Retrying),
        (Status::Open, Action::Resolve) => Some(Status::Resolved),
        (Status::Open, Action::Skip) => Some(Status::Skipped),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_open_dead_letters_can_be_acted_on() {
        for action in [Action::Retry, Action::Resolve, Action::Skip] {
            assert!(after(Status::Open, action).is_some());
            for closed in [Status::Retrying, Status::Resolved, Status::Skipped] {
                assert_eq!(after(closed, action), None, "{closed} {action:?}");
            }
        }
        assert_eq!(after(Status::Open, Action::Retry), Some(Status::Retrying));
    }
}
