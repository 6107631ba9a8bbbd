//! Automation rules (spec Part B 2.7, 4.7, 4.8, 6): when a rule is due for a booking,
//! whether it still applies when it comes due, and the default rules every tenant starts
//! with.
//!
//! A rule counts from an anchor, a time of the booking:
//! - `booking_created`: when the booking was made (a hold turned into a booking, or staff
//!   created it);
//! - `booking_confirmed`: when payment was confirmed (the booking became `paid`);
//! - `booking_completed`: when the booking was completed;
//! - `booking_date`: the booking's start.
//!
//! The offset moves the due time from the anchor; negative is before. `hours` are exact
//! hours. `days` are 24 hours from an event, but from a booking's date they are calendar
//! days in the site's time zone at 08:00 local time (venues do not text at 3 a.m.): `-1
//! days` is 08:00 the day before, `0 days` the morning of the day. A morning due time
//! that would fall after the start (a 07:00 booking) is the start itself.

use crate::bookings::BookingStatus;
use crate::scheduling::{local_date, local_instant};
use chrono::{DateTime, Duration, Utc};
use jiff::tz::TimeZone;

crate::text_enum! {
    /// What a rule counts from.
    pub enum TriggerEvent {
        BookingCreated = "booking_created",
        BookingConfirmed = "booking_confirmed",
        BookingCompleted = "booking_completed",
        BookingDate = "booking_date",
    }
}

crate::text_enum! {
    /// The unit of a rule's offset.
    pub enum OffsetUnit {
        Hours = "hours",
        Days = "days",
    }
}

/// The local time of day (minutes after midnight) of a `days` rule on a booking's date.
pub const MORNING_MINUTES: u16 = 8 * 60;

/// The largest offset a rule may have, in hours (a year).
pub const MAX_OFFSET_HOURS: i64 = 366 * 24;

/// Due times older than this are not caught up after downtime.
pub const CATCH_UP: Duration = Duration::days(7);

/// When a rule with `offset` in `unit` on `trigger` is due for a booking whose anchor is
/// `anchor` (its start for `booking_date`), in a site in `tz`.
pub fn due_at(
    trigger: TriggerEvent,
    offset: i32,
    unit: OffsetUnit,
    anchor: DateTime<Utc>,
    tz: &TimeZone,
) -> DateTime<Utc> {
    match (trigger, unit) {
        (_, OffsetUnit::Hours) => anchor + Duration::hours(i64::from(offset)),
        (TriggerEvent::BookingDate, OffsetUnit::Days) => {
            let day = local_date(tz, anchor) + Duration::days(i64::from(offset));
            // A morning in a daylight saving gap does not exist; none of the world's
            // gaps is at 08:00, but an hour later always does.
            let morning = local_instant(tz, day, MORNING_MINUTES)
                .or_else(|| local_instant(tz, day, MORNING_MINUTES + 60))
                .unwrap_or(anchor);
            if offset <= 0 {
                morning.min(anchor)
            } else {
                morning
            }
        }
        (_, OffsetUnit::Days) => anchor + Duration::days(i64::from(offset)),
    }
}

/// The widest distance between an anchor and its due time for an offset: a candidate
/// search by anchor widens its window by this (a day for the local-morning rule).
pub fn slack(unit: OffsetUnit) -> Duration {
    match unit {
        OffsetUnit::Hours => Duration::zero(),
        OffsetUnit::Days => Duration::days(1),
    }
}

/// The offset as a duration (days as 24 hours), for searching anchors near due times.
pub fn offset_duration(offset: i32, unit: OffsetUnit) -> Duration {
    match unit {
        OffsetUnit::Hours => Duration::hours(i64::from(offset)),
        OffsetUnit::Days => Duration::days(i64::from(offset)),
    }
}

/// Why a due rule sends nothing for a booking.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Skip {
    /// The booking was cancelled, expired or never became a booking.
    NotBooked,
    /// A reminder before the start came due only after the start (the service was down).
    TooLate,
    /// The booking is not in the state the trigger speaks of any more.
    StateChanged,
    /// The tenant chose not to send confirmation for this booking.
    ConfirmationOff,
    /// Nothing in the booking needs it (a waiver reminder with no waiver to sign).
    NotNeeded,
}

impl Skip {
    pub fn as_str(self) -> &'static str {
        match self {
            Skip::NotBooked => "not_booked",
            Skip::TooLate => "too_late",
            Skip::StateChanged => "state_changed",
            Skip::ConfirmationOff => "confirmation_off",
            Skip::NotNeeded => "not_needed",
        }
    }
}

/// What decides whether a due rule still applies to a booking, read when it fires.
#[derive(Debug, Clone, Copy)]
pub struct FiringFacts<'a> {
    pub trigger: TriggerEvent,
    pub template_key: &'a str,
    pub due: DateTime<Utc>,
    pub now: DateTime<Utc>,
    pub status: BookingStatus,
    pub starts_at: DateTime<Utc>,
    pub send_confirmation: bool,
    /// Waivers the booking still needs signed.
    pub unsigned_waivers: u32,
}

/// Whether a due rule sends for the booking now (`Ok`), or why not.
pub fn applies(f: &FiringFacts<'_>) -> Result<(), Skip> {
    use BookingStatus as S;
    if matches!(f.status, S::Hold | S::Canceled | S::Expired) {
        return Err(Skip::NotBooked);
    }
    match f.trigger {
        TriggerEvent::BookingDate => {
            if f.status == S::NoShow && f.due >= f.starts_at {
                return Err(Skip::StateChanged);
            }
            if f.due <= f.starts_at && f.now >= f.starts_at {
                return Err(Skip::TooLate);
            }
        }
        TriggerEvent::BookingCompleted => {
            if f.status != S::Completed {
                return Err(Skip::StateChanged);
            }
        }
        TriggerEvent::BookingCreated | TriggerEvent::BookingConfirmed => {}
    }
    if f.template_key == "booking_confirmation" && !f.send_confirmation {
        return Err(Skip::ConfirmationOff);
    }
    if f.template_key == "waiver_reminder" && f.unsigned_waivers == 0 {
        return Err(Skip::NotNeeded);
    }
    Ok(())
}

/// One of the rules every tenant starts with (spec Part B 4.8); tenants may switch them
/// off, change or delete them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DefaultRule {
    pub default_key: &'static str,
    pub name: &'static str,
    pub description: &'static str,
    pub trigger: TriggerEvent,
    pub offset: i32,
    pub unit: OffsetUnit,
    pub template_key: &'static str,
}

const fn rule(
    default_key: &'static str,
    name: &'static str,
    description: &'static str,
    trigger: TriggerEvent,
    offset: i32,
    unit: OffsetUnit,
    template_key: &'static str,
) -> DefaultRule {
    DefaultRule {
        default_key,
        name,
        description,
        trigger,
        offset,
        unit,
        template_key,
    }
}

/// The automated notifications of spec Part B 4.8. Migration 0009 gave tenants that
/// existed before it the same rows.
pub const DEFAULT_RULES: &[DefaultRule] = {
    use OffsetUnit::{Days, Hours};
    use TriggerEvent::*;
    &[
        rule(
            "booking_confirmation",
            "Booking confirmation",
            "Email when a booking is made.",
            BookingCreated,
            0,
            Hours,
            "booking_confirmation",
        ),
        rule(
            "payment_receipt",
            "Payment receipt",
            "Email when the booking is paid.",
            BookingConfirmed,
            0,
            Hours,
            "payment_receipt",
        ),
        rule(
            "waiver_reminder_7d",
            "Waiver reminder, 7 days before",
            "While a waiver is unsigned.",
            BookingDate,
            -7,
            Days,
            "waiver_reminder",
        ),
        rule(
            "waiver_reminder_2d",
            "Waiver reminder, 2 days before",
            "While a waiver is unsigned.",
            BookingDate,
            -2,
            Days,
            "waiver_reminder",
        ),
        rule(
            "waiver_reminder_1d",
            "Waiver reminder, 1 day before",
            "While a waiver is unsigned.",
            BookingDate,
            -1,
            Days,
            "waiver_reminder",
        ),
        rule(
            "waiver_reminder_day",
            "Waiver reminder, on the day",
            "While a waiver is unsigned.",
            BookingDate,
            0,
            Days,
            "waiver_reminder",
        ),
        rule(
            "pre_arrival_reminder",
            "Pre-arrival reminder",
            "Email and SMS 24 hours before the start.",
            BookingDate,
            -24,
            Hours,
            "pre_arrival_reminder",
        ),
        rule(
            "arrival_confirmation",
            "Arrival confirmation",
            "SMS on the morning of the day.",
            BookingDate,
            0,
            Days,
            "arrival_confirmation",
        ),
        rule(
            "post_visit_follow_up",
            "Post-visit follow-up",
            "Email 24 hours after completion.",
            BookingCompleted,
            24,
            Hours,
            "post_visit_follow_up",
        ),
        rule(
            "feedback_request",
            "Feedback request",
            "Email 3 days after completion.",
            BookingCompleted,
            3,
            Days,
            "feedback_request",
        ),
    ]
};

#[cfg(test)]
mod tests {
    use super::*;

    fn at(s: &str) -> DateTime<Utc> {
        s.parse().unwrap()
    }

    fn helsinki() -> TimeZone {
        TimeZone::get("Europe/Helsinki").unwrap()
    }

    #[test]
    fn hours_are_exact_across_daylight_saving() {
        // Helsinki moves from +02:00 to +03:00 on 2026-03-29 at 03:00 local.
        let start = at("2026-03-29T15:00:00Z");
        let due = due_at(
            TriggerEvent::BookingDate,
            -24,
            OffsetUnit::Hours,
            start,
            &helsinki(),
        );
        assert_eq!(due, at("2026-03-28T15:00:00Z"));
    }

    #[test]
    fn days_from_a_booking_date_are_local_mornings() {
        // 18:00 local (+03:00) on 2026-03-29; the day before is still +02:00.
        let start = at("2026-03-29T15:00:00Z");
        let tz = helsinki();
        let day_before = due_at(TriggerEvent::BookingDate, -1, OffsetUnit::Days, start, &tz);
        assert_eq!(day_before, at("2026-03-28T06:00:00Z"), "08:00 at +02:00");
        let same_day = due_at(TriggerEvent::BookingDate, 0, OffsetUnit::Days, start, &tz);
        assert_eq!(same_day, at("2026-03-29T05:00:00Z"), "08:00 at +03:00");
        let ny = TimeZone::get("America/New_York").unwrap();
        // New York moves to -04:00 on 2026-03-08; the 7th is still -05:00.
        let week = due_at(
            TriggerEvent::BookingDate,
            -7,
            OffsetUnit::Days,
            at("2026-03-14T14:00:00Z"),
            &ny,
        );
        assert_eq!(week, at("2026-03-07T13:00:00Z"));
    }

    #[test]
    fn a_morning_after_an_early_start_is_the_start() {
        let start = at("2026-06-10T04:00:00Z"); // 07:00 in Helsinki
        let due = due_at(
            TriggerEvent::BookingDate,
            0,
            OffsetUnit::Days,
            start,
            &helsinki(),
        );
        assert_eq!(due, start);
    }

    #[test]
    fn days_after_an_event_are_whole_days() {
        let done = at("2026-06-10T17:30:00Z");
        let due = due_at(
            TriggerEvent::BookingCompleted,
            3,
            OffsetUnit::Days,
            done,
            &helsinki(),
        );
        assert_eq!(due, at("2026-06-13T17:30:00Z"));
    }

    fn facts(trigger: TriggerEvent, status: BookingStatus) -> FiringFacts<'static> {
        FiringFacts {
            trigger,
            template_key: "pre_arrival_reminder",
            due: at("2026-06-09T12:00:00Z"),
            now: at("2026-06-09T12:00:05Z"),
            status,
            starts_at: at("2026-06-10T12:00:00Z"),
            send_confirmation: true,
            unsigned_waivers: 0,
        }
    }

    #[test]
    fn cancelled_bookings_get_no_reminder() {
        let f = facts(TriggerEvent::BookingDate, BookingStatus::Canceled);
        assert_eq!(applies(&f), Err(Skip::NotBooked));
        let f = facts(TriggerEvent::BookingDate, BookingStatus::Confirmed);
        assert_eq!(applies(&f), Ok(()));
    }

    #[test]
    fn a_reminder_caught_up_after_the_start_is_dropped() {
        let mut f = facts(TriggerEvent::BookingDate, BookingStatus::Paid);
        f.now = f.starts_at + Duration::minutes(1);
        assert_eq!(applies(&f), Err(Skip::TooLate));
    }

    #[test]
    fn completion_messages_need_a_completed_booking() {
        let f = facts(TriggerEvent::BookingCompleted, BookingStatus::Arrived);
        assert_eq!(applies(&f), Err(Skip::StateChanged));
        let f = facts(TriggerEvent::BookingCompleted, BookingStatus::Completed);
        assert_eq!(applies(&f), Ok(()));
    }

    #[test]
    fn confirmation_and_waiver_reminders_have_their_own_conditions() {
        let mut f = facts(TriggerEvent::BookingCreated, BookingStatus::Confirmed);
        f.template_key = "booking_confirmation";
        f.send_confirmation = false;
        assert_eq!(applies(&f), Err(Skip::ConfirmationOff));
        let mut f = facts(TriggerEvent::BookingDate, BookingStatus::Confirmed);
        f.template_key = "waiver_reminder";
        assert_eq!(applies(&f), Err(Skip::NotNeeded));
        f.unsigned_waivers = 2;
        assert_eq!(applies(&f), Ok(()));
    }

    #[test]
    fn default_rules_have_unique_keys_and_known_templates() {
        let mut keys: Vec<_> = DEFAULT_RULES.iter().map(|r| r.default_key).collect();
        keys.sort_unstable();
        keys.dedup();
        assert_eq!(keys.len(), DEFAULT_RULES.len());
        for r in DEFAULT_RULES {
            assert!(
                super::super::catalog::kind(r.template_key).is_some(),
                "{r:?}"
            );
        }
    }
}
