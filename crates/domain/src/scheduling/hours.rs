//! A resource's own opening hours (spec Part B 4.12: "resource-level schedules are
//! independent of product schedules").
//!
//! A resource with templates or overrides of its own is open only within them (on a date
//! an override covers, the overrides replace the templates, as for sites and products),
//! less its schedule blackouts; a resource with neither is open at all hours, less its
//! blackouts. Its hours are in its site's local time. Outside them it gives nothing: the
//! time counts as wholly used wherever the resource's use is read.

use super::{Schedules, Window, local_date, local_instant, start_of_day, subtract, union};
use chrono::{DateTime, NaiveDate, Utc};
use jiff::tz::TimeZone;

/// Minutes in a day.
const DAY: u16 = 24 * 60;

/// Whether the schedules restrict the resource at all.
pub fn has_hours(s: &Schedules) -> bool {
    !(s.templates.is_empty() && s.overrides.is_empty() && s.blackouts.is_empty())
}

/// The ranges within `[from, to)` when a resource with schedules `s` is closed, sorted and
/// merged, in UTC.
pub fn closed_ranges(
    s: &Schedules,
    tz: &TimeZone,
    from: DateTime<Utc>,
    to: DateTime<Utc>,
) -> Vec<(DateTime<Utc>, DateTime<Utc>)> {
    let mut out: Vec<(DateTime<Utc>, DateTime<Utc>)> = Vec::new();
    if from >= to || !has_hours(s) {
        return out;
    }
    let always = s.templates.is_empty() && s.overrides.is_empty();
    let last = local_date(tz, to);
    let days = local_date(tz, from).iter_days().take_while(|d| *d <= last);
    for date in days {
        let open = if always {
            vec![Window { start: 0, end: DAY }]
        } else {
            union(s.own_windows(date))
        };
        let open = subtract(open, &union(s.blocked(date)));
        for (a, b) in complement(&open) {
            let (Some(f), Some(u)) = (instant(tz, date, a), instant(tz, date, b)) else {
                continue;
            };
            let (f, u) = (f.max(from), u.min(to));
            if f >= u {
                continue;
            }
            match out.last_mut() {
                Some(prev) if prev.1 >= f => prev.1 = prev.1.max(u),
                _ => out.push((f, u)),
            }
        }
    }
    out
}

/// The minutes of a day outside the sorted, merged `open` windows.
fn complement(open: &[Window]) -> Vec<(u16, u16)> {
    let mut closed = Vec::new();
    let mut cursor = 0;
    for w in open {
        if w.start > cursor {
            closed.push((cursor, w.start));
        }
        cursor = cursor.max(w.end);
    }
    if cursor < DAY {
        closed.push((cursor, DAY));
    }
    closed
}

/// The instant of local `date` + `minutes`: midnight and the end of the day as the day's
/// bounds, and a time inside a daylight-saving gap as the first instant after the gap.
fn instant(tz: &TimeZone, date: NaiveDate, minutes: u16) -> Option<DateTime<Utc>> {
    if minutes == 0 {
        return start_of_day(tz, date);
    }
    if minutes >= DAY {
        return start_of_day(tz, date.succ_opt()?);
    }
    (minutes..DAY)
        .find_map(|m| local_instant(tz, date, m))
        .or_else(|| start_of_day(tz, date.succ_opt()?))
}

#[cfg(test)]
mod tests {
    use super::super::tests::{d, t, utc};
    use super::super::{Blackout, DateRange, Override, RecurrenceKind, Template};
    use super::*;

    fn helsinki() -> TimeZone {
        TimeZone::get("Europe/Helsinki").unwrap_or_else(|e| panic!("{e}"))
    }

    fn template(kind: RecurrenceKind, by_day: Option<u8>, start: &str, end: &str) -> Template {
        Template {
            day_of_week: None,
            start: t(start),
            end: t(end),
            kind,
            by_day,
            by_month: None,
            by_month_day: None,
            exdates: vec![],
            valid_from: None,
            valid_to: None,
        }
    }

    /// Monday to Friday (bits 1 to 5), 09:00 to 17:00.
    fn weekdays() -> Schedules {
        Schedules {
            templates: vec![template(
                RecurrenceKind::Weekly,
                Some(0b011_1110),
                "09:00",
                "17:00",
            )],
            ..Default::default()
        }
    }

    fn range(a: &str, b: &str) -> (DateTime<Utc>, DateTime<Utc>) {
        (utc(a), utc(b))
    }

    #[test]
    fn without_schedules_a_resource_is_never_closed() {
        let s = Schedules::default();
        assert!(!has_hours(&s));
        let closed = closed_ranges(
            &s,
            &helsinki(),
            utc("2026-11-23T00:00:00Z"),
            utc("2026-11-30T00:00:00Z"),
        );
        assert!(closed.is_empty());
    }

    #[test]
    fn weekday_hours_close_the_nights_and_the_weekend_in_local_time() {
        // Helsinki is UTC+2 in November: 09:00 to 17:00 is 07:00Z to 15:00Z.
        let closed = closed_ranges(
            &weekdays(),
            &helsinki(),
            utc("2026-11-23T00:00:00Z"),
            utc("2026-11-24T00:00:00Z"),
        );
        assert_eq!(
            closed,
            vec![
                range("2026-11-23T00:00:00Z", "2026-11-23T07:00:00Z"),
                range("2026-11-23T15:00:00Z", "2026-11-24T00:00:00Z"),
            ]
        );
        // Friday 17:00 to Monday 09:00 is one closed range.
        let closed = closed_ranges(
            &weekdays(),
            &helsinki(),
            utc("2026-11-27T12:00:00Z"),
            utc("2026-11-30T12:00:00Z"),
        );
        assert_eq!(
            closed,
            vec![range("2026-11-27T15:00:00Z", "2026-11-30T07:00:00Z")]
        );
        // Inside the hours nothing is closed.
        let open = closed_ranges(
            &weekdays(),
            &helsinki(),
            utc("2026-11-24T08:00:00Z"),
            utc("2026-11-24T14:00:00Z"),
        );
        assert!(open.is_empty());
    }

    #[test]
    fn an_override_replaces_the_templates_on_its_dates() {
        let mut s = weekdays();
        s.overrides.push(Override {
            dates: DateRange {
                from: d("2026-11-24"),
                to: d("2026-11-24"),
                annual: false,
            },
            start: t("12:00"),
            end: t("20:00"),
        });
        let closed = closed_ranges(
            &s,
            &helsinki(),
            utc("2026-11-24T06:00:00Z"),
            utc("2026-11-24T19:00:00Z"),
        );
        assert_eq!(
            closed,
            vec![
                range("2026-11-24T06:00:00Z", "2026-11-24T10:00:00Z"),
                range("2026-11-24T18:00:00Z", "2026-11-24T19:00:00Z"),
            ]
        );
    }

    #[test]
    fn blackouts_close_within_the_hours_and_alone_close_only_themselves() {
        let blackout = Blackout {
            dates: DateRange {
                from: d("2026-11-24"),
                to: d("2026-11-24"),
                annual: false,
            },
            hours: Some((t("12:00"), t("13:00"))),
        };
        let mut s = weekdays();
        s.blackouts.push(blackout.clone());
        let closed = closed_ranges(
            &s,
            &helsinki(),
            utc("2026-11-24T07:00:00Z"),
            utc("2026-11-24T15:00:00Z"),
        );
        assert_eq!(
            closed,
            vec![range("2026-11-24T10:00:00Z", "2026-11-24T11:00:00Z")]
        );
        let only = Schedules {
            blackouts: vec![blackout],
            ..Default::default()
        };
        assert!(has_hours(&only));
        let closed = closed_ranges(
            &only,
            &helsinki(),
            utc("2026-11-24T00:00:00Z"),
            utc("2026-11-25T00:00:00Z"),
        );
        assert_eq!(
            closed,
            vec![range("2026-11-24T10:00:00Z", "2026-11-24T11:00:00Z")]
        );
    }

    #[test]
    fn hours_starting_in_a_daylight_saving_gap_open_after_it() {
        // 29 March 2026: Helsinki's clocks go from 03:00 to 04:00 (UTC+2 to UTC+3).
        let s = Schedules {
            templates: vec![template(RecurrenceKind::Daily, None, "03:30", "10:00")],
            ..Default::default()
        };
        let closed = closed_ranges(
            &s,
            &helsinki(),
            utc("2026-03-28T22:00:00Z"),
            utc("2026-03-29T12:00:00Z"),
        );
        assert_eq!(
            closed,
            vec![
                // Local midnight (UTC+2) to 04:00 local (UTC+3).
                range("2026-03-28T22:00:00Z", "2026-03-29T01:00:00Z"),
                range("2026-03-29T07:00:00Z", "2026-03-29T12:00:00Z"),
            ]
        );
    }
}
