//! The booking status machine (spec Part A 3.1): the single authority every endpoint uses
//! to change a booking's status, and the capacity effect of each change; and the other
//! closed sets a booking carries: where it was made, and its notes' category and priority.

use serde::{Deserialize, Serialize};
use std::fmt;

/// Booking status values, exactly as the spec writes them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BookingStatus {
    Hold,
    Tentative,
    Confirmed,
    PartPaid,
    Paid,
    Arrived,
    Completed,
    Canceled,
    NoShow,
    Expired,
}

impl BookingStatus {
    pub const ALL: [BookingStatus; 10] = [
        BookingStatus::Hold,
        BookingStatus::Tentative,
        BookingStatus::Confirmed,
        BookingStatus::PartPaid,
        BookingStatus::Paid,
        BookingStatus::Arrived,
        BookingStatus::Completed,
        BookingStatus::Canceled,
        BookingStatus::NoShow,
        BookingStatus::Expired,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            BookingStatus::Hold => "hold",
            BookingStatus::Tentative => "tentative",
            BookingStatus::Confirmed => "confirmed",
            BookingStatus::PartPaid => "part_paid",
            BookingStatus::Paid => "paid",
            BookingStatus::Arrived => "arrived",
            BookingStatus::Completed => "completed",
            BookingStatus::Canceled => "canceled",
            BookingStatus::NoShow => "no_show",
            BookingStatus::Expired => "expired",
        }
    }

    pub fn parse(s: &str) -> Option<BookingStatus> {
        Self::ALL.into_iter().find(|st| st.as_str() == s)
    }

    /// Whether a booking in this status occupies seats of its slot. Canceled and expired
    /// bookings do not; a no-show keeps its seats (the slot has started).
    pub fn holds_capacity(self) -> bool {
        !matches!(self, BookingStatus::Canceled | BookingStatus::Expired)
    }

    /// Whether the booking's price counts as revenue (search summaries, a customer's
    /// lifetime value): every booking that is or was going ahead, including no-shows, which
    /// owe their price. Holds, cancellations and expired holds do not.
    pub fn is_revenue(self) -> bool {
        !matches!(
            self,
            BookingStatus::Hold | BookingStatus::Canceled | BookingStatus::Expired
        )
    }

    /// Completed and canceled are terminal (spec 3.1).
    pub fn is_terminal(self) -> bool {
        matches!(self, BookingStatus::Completed | BookingStatus::Canceled)
    }
}

impl fmt::Display for BookingStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

text_enum! {
    /// Where a booking was made.
    pub enum BookingSource {
        /// A customer's hold through the public booking flow.
        Public = "public",
        /// Staff creation (`POST /admin/bookings`).
        Admin = "admin",
    }
}

text_enum! {
    /// Why staff created a booking (spec Part A 4.2, the wizard's created reason).
    pub enum CreatedReason {
        PhoneBooking = "phone_booking",
        WalkIn = "walk_in",
        Comp = "comp",
        Correction = "correction",
        Other = "other",
    }
}

text_enum! {
    /// What a booking note is about (spec Part A 2.3).
    pub enum NoteCategory {
        General = "general",
        SpecialRequest = "special_request",
        Issue = "issue",
        FollowUp = "follow_up",
        Resolution = "resolution",
    }
}

text_enum! {
    /// How urgent a booking note is (spec Part A 2.3).
    pub enum NotePriority {
        Low = "low",
        Normal = "normal",
        High = "high",
        Urgent = "urgent",
    }
}

/// What happens to a booking.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Trigger {
    /// Confirm with an online payment flow.
    ConfirmOnline,
    /// Confirm to pay on arrival.
    ConfirmPayOnArrival,
    /// The hold's time-to-live elapsed.
    HoldExpired,
    /// A payment was recorded; `settles` when it covers the balance.
    PaymentRecorded {
        settles: bool,
    },
    MarkPaid,
    MarkArrived,
    MarkCompleted,
    Cancel,
    MarkNoShow,
    /// Manually hold an expired booking again.
    Rehold,
    /// The payment engine only (not in [`Trigger::ALL`], so no status change staff ask
    /// for maps to it): a booking cancelled because its online payment was late, whose
    /// money arrived after all, takes its seats again (when free) and is confirmed, for
    /// the payment to be recorded.
    Reinstate,
    /// Not in [`Trigger::ALL`] either: a paid booking's price rose above what was paid (a
    /// resource add-on added), so a balance is pending again.
    PriceRaised,
}

impl Trigger {
    /// Every trigger, for sweeps.
    pub const ALL: [Trigger; 11] = [
        Trigger::ConfirmOnline,
        Trigger::ConfirmPayOnArrival,
        Trigger::HoldExpired,
        Trigger::PaymentRecorded { settles: true },
        Trigger::PaymentRecorded { settles: false },
        Trigger::MarkPaid,
        Trigger::MarkArrived,
        Trigger::MarkCompleted,
        Trigger::Cancel,
        Trigger::MarkNoShow,
        Trigger::Rehold,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Trigger::ConfirmOnline => "confirm",
            Trigger::ConfirmPayOnArrival => "confirm_pay_on_arrival",
            Trigger::HoldExpired => "expire",
            Trigger::PaymentRecorded { settles: true } => "payment_recorded",
            Trigger::PaymentRecorded { settles: false } => "partial_payment_recorded",
            Trigger::MarkPaid => "mark_paid",
            Trigger::MarkArrived => "mark_arrived",
            Trigger::MarkCompleted => "mark_completed",
            Trigger::Cancel => "cancel",
            Trigger::MarkNoShow => "mark_no_show",
            Trigger::Rehold => "rehold",
            Trigger::Reinstate => "reinstate",
            Trigger::PriceRaised => "price_raised",
        }
    }
}

/// How a transition changes the seats a booking occupies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CapacityEffect {
    None,
    /// Give the seats back to the slot, in the same transaction.
    Release,
    /// Take the seats again (conditional on room, like a new hold).
    Reserve,
}

/// An allowed transition.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Transition {
    pub from: BookingStatus,
    pub to: BookingStatus,
    pub capacity: CapacityEffect,
}

/// A (status, trigger) pair the table does not allow.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("a {} booking cannot {}", from, trigger.name())]
pub struct InvalidTransition {
    pub from: BookingStatus,
    pub trigger: Trigger,
}

/// The transition table of spec Part A 3.1, row by row.
pub fn transition(from: BookingStatus, trigger: Trigger) -> Result<Transition, InvalidTransition> {
    use BookingStatus as S;
    use Trigger as T;
    let to = match (from, trigger) {
        (S::Hold, T::ConfirmOnline) => S::Confirmed,
        (S::Hold, T::ConfirmPayOnArrival) => S::Tentative,
        (S::Hold, T::HoldExpired) => S::Expired,
        (S::Confirmed, T::PaymentRecorded { settles: true }) => S::Paid,
        (S::Confirmed, T::PaymentRecorded { settles: false }) => S::PartPaid,
        (S::PartPaid, T::PaymentRecorded { settles: true }) => S::Paid,
        (S::Tentative, T::MarkPaid) => S::Paid,
        (S::Paid | S::Confirmed, T::MarkArrived) => S::Arrived,
        (S::Arrived, T::MarkCompleted) => S::Completed,
        (S::Hold | S::Tentative | S::Confirmed | S::PartPaid | S::Paid, T::Cancel) => S::Canceled,
        (S::Tentative | S::Confirmed | S::PartPaid | S::Paid | S::Arrived, T::MarkNoShow) => {
            S::NoShow
        }
        (S::NoShow, T::MarkArrived) => S::Arrived,
        (S::Expired, T::Rehold) => S::Hold,
        (S::Expired, T::Cancel) => S::Canceled,
        (S::Canceled, T::Reinstate) => S::Confirmed,
        (S::Paid, T::PriceRaised) => S::PartPaid,
        _ => return Err(InvalidTransition { from, trigger }),
    };
    let capacity = match (from.holds_capacity(), to.holds_capacity()) {
        (true, false) => CapacityEffect::Release,
        (false, true) => CapacityEffect::Reserve,
        _ => CapacityEffect::None,
    };
    Ok(Transition { from, to, capacity })
}

/// The trigger an administrator's `PATCH …/status {status}` stands for, when one does.
pub fn trigger_for_target(from: BookingStatus, to: BookingStatus) -> Option<Trigger> {
    Trigger::ALL
        .into_iter()
        .find(|t| transition(from, *t).is_ok_and(|tr| tr.to == to))
}

#[cfg(test)]
mod tests {
    use super::*;
    use BookingStatus as S;
    use Trigger as T;

    #[test]
    fn every_booking_value_parses_back_from_its_text() {
        for s in BookingSource::ALL {
            assert_eq!(BookingSource::parse(s.as_str()), Some(*s));
        }
        for c in NoteCategory::ALL {
            assert_eq!(NoteCategory::parse(c.as_str()), Some(*c));
        }
        for p in NotePriority::ALL {
            assert_eq!(NotePriority::parse(p.as_str()), Some(*p));
        }
        assert_eq!(BookingSource::parse("Admin"), None);
        assert_eq!(BookingSource::choices(), "public or admin");
        assert_eq!(NoteCategory::parse("GENERAL"), None);
        assert_eq!(
            NoteCategory::choices(),
            "general, special_request, issue, follow_up or resolution"
        );
        assert_eq!(NotePriority::choices(), "low, normal, high or urgent");
    }

    /// The spec's table, written out independently of `transition`.
    const ALLOWED: &[(S, T, S)] = &[
        (S::Hold, T::ConfirmOnline, S::Confirmed),
        (S::Hold, T::ConfirmPayOnArrival, S::Tentative),
        (S::Hold, T::HoldExpired, S::Expired),
        (S::Confirmed, T::PaymentRecorded { settles: true }, S::Paid),
        (
            S::Confirmed,
            T::PaymentRecorded { settles: false },
            S::PartPaid,
        ),
        (S::PartPaid, T::PaymentRecorded { settles: true }, S::Paid),
        (S::Tentative, T::MarkPaid, S::Paid),
        (S::Paid, T::MarkArrived, S::Arrived),
        (S::Confirmed, T::MarkArrived, S::Arrived),
        (S::Arrived, T::MarkCompleted, S::Completed),
        (S::Hold, T::Cancel, S::Canceled),
        (S::Tentative, T::Cancel, S::Canceled),
        (S::Confirmed, T::Cancel, S::Canceled),
        (S::PartPaid, T::Cancel, S::Canceled),
        (S::Paid, T::Cancel, S::Canceled),
        (S::Tentative, T::MarkNoShow, S::NoShow),
        (S::Confirmed, T::MarkNoShow, S::NoShow),
        (S::PartPaid, T::MarkNoShow, S::NoShow),
        (S::Paid, T::MarkNoShow, S::NoShow),
        (S::Arrived, T::MarkNoShow, S::NoShow),
        (S::NoShow, T::MarkArrived, S::Arrived),
        (S::Expired, T::Rehold, S::Hold),
        (S::Expired, T::Cancel, S::Canceled),
    ];

    #[test]
    fn revenue_is_every_booking_going_ahead() {
        let revenue: Vec<S> = S::ALL.into_iter().filter(|s| s.is_revenue()).collect();
        assert_eq!(
            revenue,
            [
                S::Tentative,
                S::Confirmed,
                S::PartPaid,
                S::Paid,
                S::Arrived,
                S::Completed,
                S::NoShow
            ]
        );
    }

    #[test]
    fn every_row_of_the_table_is_allowed() {
        for (from, trigger, to) in ALLOWED {
            let t = transition(*from, *trigger).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(t.to, *to, "{from} + {}", trigger.name());
        }
    }

    #[test]
    fn every_other_pair_is_rejected() {
        let mut rejected = 0;
        for from in S::ALL {
            for trigger in T::ALL {
                let allowed = ALLOWED.iter().any(|(f, t, _)| *f == from && *t == trigger);
                let result = transition(from, trigger);
                assert_eq!(result.is_ok(), allowed, "{from} + {}", trigger.name());
                if !allowed {
                    rejected += 1;
                    assert_eq!(result, Err(InvalidTransition { from, trigger }));
                }
            }
        }
        assert_eq!(rejected, S::ALL.len() * T::ALL.len() - ALLOWED.len());
    }

    #[test]
    fn only_a_paid_booking_whose_price_rose_owes_again() {
        for from in S::ALL {
            let result = transition(from, T::PriceRaised).map(|t| (t.to, t.capacity));
            if from == S::Paid {
                assert_eq!(result, Ok((S::PartPaid, CapacityEffect::None)));
            } else {
                assert!(result.is_err(), "{from}");
            }
        }
    }

    #[test]
    fn terminal_statuses_have_no_way_out() {
        for trigger in T::ALL {
            assert!(transition(S::Completed, trigger).is_err());
            assert!(transition(S::Canceled, trigger).is_err());
        }
    }

    #[test]
    fn cancel_and_expiry_release_capacity_and_rehold_reserves_it() {
        assert_eq!(
            transition(S::Hold, T::HoldExpired).map(|t| t.capacity),
            Ok(CapacityEffect::Release)
        );
        for from in [S::Hold, S::Tentative, S::Confirmed, S::PartPaid, S::Paid] {
            assert_eq!(
                transition(from, T::Cancel).map(|t| t.capacity),
                Ok(CapacityEffect::Release)
            );
        }
        assert_eq!(
            transition(S::Expired, T::Cancel).map(|t| t.capacity),
            Ok(CapacityEffect::None)
        );
        assert_eq!(
            transition(S::Expired, T::Rehold).map(|t| t.capacity),
            Ok(CapacityEffect::Reserve)
        );
        assert_eq!(
            transition(S::Paid, T::MarkArrived).map(|t| t.capacity),
            Ok(CapacityEffect::None)
        );
        assert_eq!(
            transition(S::Paid, T::MarkNoShow).map(|t| t.capacity),
            Ok(CapacityEffect::None)
        );
    }

    #[test]
    fn admin_targets_map_to_triggers() {
        assert_eq!(
            trigger_for_target(S::Paid, S::Arrived),
            Some(T::MarkArrived)
        );
        assert_eq!(trigger_for_target(S::Tentative, S::Paid), Some(T::MarkPaid));
        assert_eq!(trigger_for_target(S::Completed, S::Arrived), None);
        assert_eq!(trigger_for_target(S::Hold, S::Paid), None);
    }

    #[test]
    fn status_names_round_trip() {
        for s in S::ALL {
            assert_eq!(BookingStatus::parse(s.as_str()), Some(s));
        }
        assert_eq!(BookingStatus::parse("cancelled"), None);
    }
}
