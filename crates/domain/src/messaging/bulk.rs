//! Bulk sends (spec Part B 4.8 `POST /admin/messaging/bulk`): one message, written by
//! staff, to the customer of every booking in a date range, now or at a set time.
//!
//! ```text
//! scheduled ──sendAt──▶ sending ──every message queued and none left to send──▶ completed
//!     │                    │
//!     └──cancel──▶ canceled ◀──cancel (messages not yet handed to a sender stay unsent)
//! ```
//!
//! The recipients are read when sending starts, not when the send is created: a booking
//! made after a scheduled send was created still gets it, a cancelled one does not.

use crate::bookings::BookingStatus;
use crate::validation::FieldErrors;
use chrono::{DateTime, NaiveDate, Utc};
use jiff::tz::TimeZone;

crate::text_enum! {
    /// Where a bulk send is.
    pub enum BulkStatus {
        /// Waiting for its `sendAt`.
        Scheduled = "scheduled",
        /// Its messages are being queued and delivered.
        Sending = "sending",
        /// Every message was queued and none waits for delivery any more.
        Completed = "completed",
        /// Stopped by staff.
        Canceled = "canceled",
    }
}

/// The bookings whose customers a bulk send reaches: live bookings, from tentative to
/// completed. Holds, cancelled, expired and no-show bookings get nothing.
pub const RECIPIENT_STATUSES: [BookingStatus; 6] = [
    BookingStatus::Tentative,
    BookingStatus::Confirmed,
    BookingStatus::PartPaid,
    BookingStatus::Paid,
    BookingStatus::Arrived,
    BookingStatus::Completed,
];

/// The longest date range one bulk send may cover, in days (both ends counted).
pub const MAX_RANGE_DAYS: i64 = 366;

/// How far in the past a `sendAt` may be (clock skew between staff and server); older
/// is refused rather than sent at once by surprise.
pub const SEND_AT_SKEW_SECS: i64 = 300;

/// Which bookings a bulk send reaches: those starting on a local date (in their site's
/// time zone) from `from` to `to`, both included, at `site_id` or at every site.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RecipientFilter {
    #[serde(rename = "bookingDateFrom")]
    pub from: NaiveDate,
    #[serde(rename = "bookingDateTo")]
    pub to: NaiveDate,
    pub site_id: Option<uuid::Uuid>,
}

impl RecipientFilter {
    /// Checks the range: `to` not before `from`, at most [`MAX_RANGE_DAYS`] days with
    /// both ends counted.
    pub fn check(&self, errors: &mut FieldErrors) {
        if self.to < self.from {
            errors.add(
                "recipientFilter.bookingDateTo",
                "must not be before bookingDateFrom",
            );
        } else if (self.to - self.from).num_days() + 1 > MAX_RANGE_DAYS {
            errors.add(
                "recipientFilter.bookingDateTo",
                format!("makes a range of more than {MAX_RANGE_DAYS} days (both dates count)"),
            );
        }
    }

    /// The UTC instants that surely hold every booking of the range, whatever the site's
    /// time zone (local offsets lie within ±14 hours): a coarse bound for a query, refined
    /// by [`RecipientFilter::includes`].
    pub fn coarse_bounds(&self) -> (DateTime<Utc>, DateTime<Utc>) {
        let day = |d: NaiveDate| d.and_hms_opt(0, 0, 0).unwrap_or_default().and_utc();
        (
            day(self.from) - chrono::Duration::hours(15),
            day(self.to) + chrono::Duration::hours(24 + 15),
        )
    }

    /// Whether a booking starting at `starts_at` at a site in `tz` is in the range.
    pub fn includes(&self, tz: &TimeZone, starts_at: DateTime<Utc>) -> bool {
        let date = crate::scheduling::local_date(tz, starts_at);
        date >= self.from && date <= self.to
    }
}

/// Whether a `sendAt` of `send_at` at `now` is acceptable: not further in the past than
/// [`SEND_AT_SKEW_SECS`].
pub fn send_at_ok(send_at: DateTime<Utc>, now: DateTime<Utc>) -> bool {
    send_at >= now - chrono::Duration::seconds(SEND_AT_SKEW_SECS)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn date(s: &str) -> NaiveDate {
        s.parse().unwrap()
    }

    fn at(s: &str) -> DateTime<Utc> {
        s.parse().unwrap()
    }

    fn filter(from: &str, to: &str) -> RecipientFilter {
        RecipientFilter {
            from: date(from),
            to: date(to),
            site_id: None,
        }
    }

    #[test]
    fn the_range_is_local_dates_of_the_site() {
        let f = filter("2026-12-01", "2026-12-01");
        let helsinki = TimeZone::get("Europe/Helsinki").unwrap();
        let new_york = TimeZone::get("America/New_York").unwrap();
        // 23:30 UTC on Nov 30 is 01:30 on Dec 1 in Helsinki, 18:30 on Nov 30 in New York.
        assert!(f.includes(&helsinki, at("2026-11-30T23:30:00Z")));
        assert!(!f.includes(&new_york, at("2026-11-30T23:30:00Z")));
        // 02:00 UTC on Dec 2 is still Dec 1 in New York, Dec 2 in Helsinki.
        assert!(f.includes(&new_york, at("2026-12-02T02:00:00Z")));
        assert!(!f.includes(&helsinki, at("2026-12-02T02:00:00Z")));
    }

    #[test]
    fn coarse_bounds_hold_every_zone() {
        let f = filter("2026-12-01", "2026-12-02");
        let (lo, hi) = f.coarse_bounds();
        let kiritimati = TimeZone::get("Pacific/Kiritimati").unwrap(); // UTC+14
        let pago = TimeZone::get("Pacific/Pago_Pago").unwrap(); // UTC-11
        // The first instant of Dec 1 in UTC+14, the last of Dec 2 in UTC-11.
        let first = at("2026-11-30T10:00:00Z");
        let last = at("2026-12-03T10:59:59Z");
        assert!(f.includes(&kiritimati, first) && first >= lo);
        assert!(f.includes(&pago, last) && last < hi);
    }

    #[test]
    fn ranges_are_checked() {
        let mut errors = FieldErrors::new();
        filter("2026-12-02", "2026-12-01").check(&mut errors);
        filter("2026-01-01", "2027-01-02").check(&mut errors);
        filter("2026-01-01", "2027-01-01").check(&mut errors);
        filter("2026-01-01", "2026-01-01").check(&mut errors);
        assert_eq!(errors.into_vec().len(), 2);
    }

    #[test]
    fn send_at_may_be_a_little_in_the_past() {
        let now = at("2026-12-01T12:00:00Z");
        assert!(send_at_ok(now - chrono::Duration::seconds(300), now));
        assert!(!send_at_ok(now - chrono::Duration::seconds(301), now));
        assert!(send_at_ok(now + chrono::Duration::days(30), now));
    }
}
