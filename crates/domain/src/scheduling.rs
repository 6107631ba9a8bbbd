//! Schedules and slot generation (spec Part B section 4.12).
//!
//! Two stages: schedules give operating hours per local date; the product's slot policy
//! carves slots inside them.
//!
//! * Priority: blackouts block everything; overrides replace templates on their dates;
//!   product-level schedules replace site-level ones on a date where the product has any
//!   (override or template) of its own.
//! * `byDay` is a bitmask with bit 0 = Sunday … bit 6 = Saturday (Monday–Friday = 62).
//! * Interval policy: candidate starts are the window start plus multiples of
//!   `slotIntervalMin`; a candidate becomes a slot when `[start − setup, start + duration +
//!   cleanup]` lies inside the window. Fixed policy: only `fixedSlotTimes`, same fit rule.
//! * Daylight saving: schedules are wall-clock times in the site's zone. A start time that
//!   does not exist on a day (spring-forward gap) gives no slot that day; a start time that
//!   occurs twice (autumn fold) takes its first occurrence. Slot ends are start + duration in
//!   real time, so every slot lasts exactly its duration.

use chrono::{DateTime, Datelike, NaiveDate, Utc};
use jiff::tz::{AmbiguousOffset, TimeZone};
use std::fmt;

/// A wall-clock time of day, in minutes after midnight (00:00 to 23:59).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct LocalTime(u16);

impl LocalTime {
    pub const MIDNIGHT: LocalTime = LocalTime(0);

    /// Parses `HH:MM` (24 hour, 00:00 to 23:59).
    pub fn parse(s: &str) -> Result<LocalTime, String> {
        let err = || format!("'{s}' is not a time of day HH:MM between 00:00 and 23:59");
        let (h, m) = s.trim().split_once(':').ok_or_else(err)?;
        if h.len() != 2 || m.len() != 2 {
            return Err(err());
        }
        let h: u16 = h.parse().map_err(|_| err())?;
        let m: u16 = m.parse().map_err(|_| err())?;
        if h > 23 || m > 59 {
            return Err(err());
        }
        Ok(LocalTime(h * 60 + m))
    }

    pub fn from_minutes(minutes: u16) -> Option<LocalTime> {
        (minutes < 24 * 60).then_some(LocalTime(minutes))
    }

    pub fn minutes(self) -> u16 {
        self.0
    }
}

impl fmt::Display for LocalTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:02}:{:02}", self.0 / 60, self.0 % 60)
    }
}

text_enum! {
    /// Whether a schedule belongs to a site (every product of the site), one product, or
    /// one resource (its own opening hours, independent of product schedules).
    pub enum ScopeType {
        Site = "site",
        Product = "product",
        Resource = "resource",
    }
}

text_enum! {
    /// How a template repeats.
    pub enum RecurrenceKind {
        /// Once, on `validFrom`.
        None = "none",
        Daily = "daily",
        /// On the days of `byDay` (or `dayOfWeek`).
        Weekly = "weekly",
        /// On `byMonthDay` of every month.
        Monthly = "monthly",
        /// On `byMonthDay` of `byMonth` every year.
        Annual = "annual",
    }
}

text_enum! {
    /// How an override or blackout repeats.
    pub enum DateRecurrence {
        /// On its dates only.
        None = "none",
        /// On the same month days every year from its first date.
        Annual = "annual",
    }
}

impl DateRecurrence {
    /// Whether the rule's dates come back every year ([`DateRange::annual`]).
    pub fn is_annual(self) -> bool {
        match self {
            DateRecurrence::None => false,
            DateRecurrence::Annual => true,
        }
    }
}

text_enum! {
    /// Why a blackout blocks time (reporting only; every kind blocks the same way).
    pub enum BlackoutKind {
        Maintenance = "maintenance",
        Holiday = "holiday",
        Closure = "closure",
        Event = "event",
    }
}

/// Bit of `date`'s weekday in a `byDay` mask (bit 0 = Sunday).
pub fn weekday_bit(date: NaiveDate) -> u8 {
    1 << date.weekday().num_days_from_sunday()
}

/// A recurring operating-hours template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Template {
    pub day_of_week: Option<u8>,
    pub start: LocalTime,
    pub end: LocalTime,
    pub kind: RecurrenceKind,
    pub by_day: Option<u8>,
    pub by_month: Option<u8>,
    pub by_month_day: Option<u8>,
    pub exdates: Vec<NaiveDate>,
    pub valid_from: Option<NaiveDate>,
    pub valid_to: Option<NaiveDate>,
}

impl Template {
    /// Whether the template gives hours on `date`.
    pub fn occurs_on(&self, date: NaiveDate) -> bool {
        if self.valid_from.is_some_and(|f| date < f) || self.valid_to.is_some_and(|t| date > t) {
            return false;
        }
        if self.exdates.contains(&date) {
            return false;
        }
        match self.kind {
            RecurrenceKind::None => self.valid_from == Some(date),
            RecurrenceKind::Daily => true,
            RecurrenceKind::Weekly => {
                let mask = self
                    .by_day
                    .or(self.day_of_week.map(|d| 1u8 << d))
                    .unwrap_or(0);
                mask & weekday_bit(date) != 0
            }
            RecurrenceKind::Monthly => self.by_month_day == Some(date.day() as u8),
            RecurrenceKind::Annual => {
                self.by_month == Some(date.month() as u8)
                    && self.by_month_day == Some(date.day() as u8)
            }
        }
    }

    /// Checks the rules of spec 4.12 and this recurrence's required fields.
    pub fn validate(&self) -> Result<(), Vec<(&'static str, String)>> {
        let mut errors = Vec::new();
        if self.start >= self.end {
            errors.push(("startTime", "must be before endTime".to_owned()));
        }
        if self.day_of_week.is_some_and(|d| d > 6) {
            errors.push(("dayOfWeek", "must be 0 (Sunday) to 6 (Saturday)".to_owned()));
        }
        if self.by_day.is_some_and(|m| m == 0 || m > 127) {
            errors.push((
                "byDay",
                "must be a bitmask of days from 1 to 127 (bit 0 = Sunday)".to_owned(),
            ));
        }
        if self.by_month.is_some_and(|m| !(1..=12).contains(&m)) {
            errors.push(("byMonth", "must be 1 to 12".to_owned()));
        }
        if self.by_month_day.is_some_and(|d| !(1..=31).contains(&d)) {
            errors.push(("byMonthDay", "must be 1 to 31".to_owned()));
        }
        if let (Some(f), Some(t)) = (self.valid_from, self.valid_to)
            && f > t
        {
            errors.push(("validFrom", "must not be after validTo".to_owned()));
        }
        match self.kind {
            RecurrenceKind::None if self.valid_from.is_none() => {
                errors.push((
                    "validFrom",
                    "is required for a one-off (recurrenceKind none) template".to_owned(),
                ));
            }
            RecurrenceKind::Weekly if self.by_day.is_none() && self.day_of_week.is_none() => {
                errors.push((
                    "byDay",
                    "or dayOfWeek is required for a weekly template".to_owned(),
                ));
            }
            RecurrenceKind::Monthly if self.by_month_day.is_none() => {
                errors.push((
                    "byMonthDay",
                    "is required for a monthly template".to_owned(),
                ));
            }
            RecurrenceKind::Annual if self.by_month.is_none() || self.by_month_day.is_none() => {
                errors.push((
                    "byMonth",
                    "and byMonthDay are required for an annual template".to_owned(),
                ));
            }
            _ => {}
        }
        if errors.is_empty() {
            Ok(())
        } else {
            Err(errors)
        }
    }
}

/// A date range, optionally repeating every year.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DateRange {
    pub from: NaiveDate,
    pub to: NaiveDate,
    pub annual: bool,
}

impl DateRange {
    pub fn contains(&self, date: NaiveDate) -> bool {
        if !self.annual {
            return self.from <= date && date <= self.to;
        }
        if date < self.from {
            return false;
        }
        let key = |d: NaiveDate| (d.month(), d.day());
        let (from, to, d) = (key(self.from), key(self.to), key(date));
        if from <= to {
            from <= d && d <= to
        } else {
            // The range wraps the new year (for example 24 Dec to 6 Jan).
            d >= from || d <= to
        }
    }
}

/// Hours that replace the templates on the dates of `dates`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Override {
    pub dates: DateRange,
    pub start: LocalTime,
    pub end: LocalTime,
}

/// Time blocked on the dates of `dates`; all day when `hours` is `None`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Blackout {
    pub dates: DateRange,
    pub hours: Option<(LocalTime, LocalTime)>,
}

/// The schedules of one scope (a site or a product).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Schedules {
    pub templates: Vec<Template>,
    pub overrides: Vec<Override>,
    pub blackouts: Vec<Blackout>,
}

/// Operating hours on one date: `[start, end)` in minutes after local midnight.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Window {
    pub start: u16,
    pub end: u16,
}

impl Schedules {
    /// This scope's own hours on `date` (overrides replace templates), before blackouts.
    pub(crate) fn own_windows(&self, date: NaiveDate) -> Vec<Window> {
        let overrides: Vec<Window> = self
            .overrides
            .iter()
            .filter(|o| o.dates.contains(date))
            .map(|o| Window {
                start: o.start.minutes(),
                end: o.end.minutes(),
            })
            .collect();
        if !overrides.is_empty() {
            return overrides;
        }
        self.templates
            .iter()
            .filter(|t| t.occurs_on(date))
            .map(|t| Window {
                start: t.start.minutes(),
                end: t.end.minutes(),
            })
            .collect()
    }

    pub(crate) fn blocked(&self, date: NaiveDate) -> Vec<Window> {
        self.blackouts
            .iter()
            .filter(|b| b.dates.contains(date))
            .map(|b| match b.hours {
                Some((s, e)) => Window {
                    start: s.minutes(),
                    end: e.minutes(),
                },
                None => Window {
                    start: 0,
                    end: 24 * 60,
                },
            })
            .collect()
    }
}

/// Merges overlapping or touching windows and sorts them.
pub(crate) fn union(mut windows: Vec<Window>) -> Vec<Window> {
    windows.retain(|w| w.start < w.end);
    windows.sort_by_key(|w| (w.start, w.end));
    let mut merged: Vec<Window> = Vec::with_capacity(windows.len());
    for w in windows {
        match merged.last_mut() {
            Some(last) if w.start <= last.end => last.end = last.end.max(w.end),
            _ => merged.push(w),
        }
    }
    merged
}

/// `windows` minus `blocked`.
pub(crate) fn subtract(windows: Vec<Window>, blocked: &[Window]) -> Vec<Window> {
    let mut result = windows;
    for b in blocked {
        let mut next = Vec::with_capacity(result.len() + 1);
        for w in result {
            if b.end <= w.start || b.start >= w.end {
                next.push(w);
                continue;
            }
            if b.start > w.start {
                next.push(Window {
                    start: w.start,
                    end: b.start,
                });
            }
            if b.end < w.end {
                next.push(Window {
                    start: b.end,
                    end: w.end,
                });
            }
        }
        result = next;
    }
    result
}

/// Operating hours of a product on `date`: its own schedules where it has any on that
/// date, else the site's; minus every site and product blackout.
pub fn operating_windows(site: &Schedules, product: &Schedules, date: NaiveDate) -> Vec<Window> {
    let own = product.own_windows(date);
    let base = if own.is_empty() {
        site.own_windows(date)
    } else {
        own
    };
    let mut blocked = site.blocked(date);
    blocked.extend(product.blocked(date));
    subtract(union(base), &union(blocked))
}

/// How a product's slots are placed inside operating hours.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SlotPolicy {
    Interval { every_mins: u16 },
    Fixed { times: Vec<LocalTime> },
}

/// Everything that shapes a product's slots.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SlotShape {
    pub policy: SlotPolicy,
    pub duration_mins: u16,
    pub setup_mins: u16,
    pub cleanup_mins: u16,
}

impl SlotShape {
    /// Local start times (minutes after midnight) of the slots fitting `windows`.
    pub fn starts(&self, windows: &[Window]) -> Vec<u16> {
        let fits = |start: u16, w: &Window| {
            let begin = i32::from(start) - i32::from(self.setup_mins);
            let finish =
                i32::from(start) + i32::from(self.duration_mins) + i32::from(self.cleanup_mins);
            begin >= i32::from(w.start) && finish <= i32::from(w.end)
        };
        let mut starts = Vec::new();
        match &self.policy {
            SlotPolicy::Interval { every_mins } => {
                let step = (*every_mins).max(1);
                for w in windows {
                    let mut s = w.start;
                    while s < w.end {
                        if fits(s, w) {
                            starts.push(s);
                        }
                        s = s.saturating_add(step);
                        if s == u16::MAX {
                            break;
                        }
                    }
                }
            }
            SlotPolicy::Fixed { times } => {
                for t in times {
                    if windows.iter().any(|w| fits(t.minutes(), w)) {
                        starts.push(t.minutes());
                    }
                }
            }
        }
        starts.sort_unstable();
        starts.dedup();
        starts
    }
}

/// A generated slot, in UTC.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SlotTime {
    pub starts_at: DateTime<Utc>,
    pub ends_at: DateTime<Utc>,
}

/// The UTC instant of local `date` + `minutes` in `tz`: `None` inside a DST gap; the
/// earlier instant in a fold.
pub fn local_instant(tz: &TimeZone, date: NaiveDate, minutes: u16) -> Option<DateTime<Utc>> {
    let civil = jiff::civil::DateTime::new(
        i16::try_from(date.year()).ok()?,
        i8::try_from(date.month()).ok()?,
        i8::try_from(date.day()).ok()?,
        i8::try_from(minutes / 60).ok()?,
        i8::try_from(minutes % 60).ok()?,
        0,
        0,
    )
    .ok()?;
    let ambiguous = tz.to_ambiguous_timestamp(civil);
    if matches!(ambiguous.offset(), AmbiguousOffset::Gap { .. }) {
        return None;
    }
    let ts = ambiguous.earlier().ok()?;
    DateTime::from_timestamp(ts.as_second(), 0)
}

/// Local midnight of `date` in `tz` as a UTC instant (the first instant of the day when
/// midnight falls in a gap).
pub fn start_of_day(tz: &TimeZone, date: NaiveDate) -> Option<DateTime<Utc>> {
    let civil = jiff::civil::Date::new(
        i16::try_from(date.year()).ok()?,
        i8::try_from(date.month()).ok()?,
        i8::try_from(date.day()).ok()?,
    )
    .ok()?;
    let zoned = civil.to_zoned(tz.clone()).ok()?.start_of_day().ok()?;
    DateTime::from_timestamp(zoned.timestamp().as_second(), 0)
}

/// The local date of instant `now` in `tz`.
pub fn local_date(tz: &TimeZone, now: DateTime<Utc>) -> NaiveDate {
    let ts = jiff::Timestamp::from_second(now.timestamp()).unwrap_or(jiff::Timestamp::UNIX_EPOCH);
    let d = ts.to_zoned(tz.clone()).date();
    NaiveDate::from_ymd_opt(i32::from(d.year()), d.month() as u32, d.day() as u32)
        .unwrap_or_default()
}

/// The slots of one product on one local date.
pub fn slots_on(
    tz: &TimeZone,
    site: &Schedules,
    product: &Schedules,
    shape: &SlotShape,
    date: NaiveDate,
) -> Vec<SlotTime> {
    let windows = operating_windows(site, product, date);
    shape
        .starts(&windows)
        .into_iter()
        .filter_map(|m| local_instant(tz, date, m))
        .map(|starts_at| SlotTime {
            starts_at,
            ends_at: starts_at + chrono::Duration::minutes(i64::from(shape.duration_mins)),
        })
        .collect()
}

/// The slots of one product for every date in `from..=to`.
pub fn slots_between(
    tz: &TimeZone,
    site: &Schedules,
    product: &Schedules,
    shape: &SlotShape,
    from: NaiveDate,
    to: NaiveDate,
) -> Vec<SlotTime> {
    from.iter_days()
        .take_while(|d| *d <= to)
        .flat_map(|d| slots_on(tz, site, product, shape, d))
        .collect()
}

/// Whether two templates give overlapping hours on some common date within a year of
/// `from` (the conflict check run when a template is created or changed).
pub fn templates_conflict(a: &Template, b: &Template, from: NaiveDate) -> Option<NaiveDate> {
    if a.start >= b.end || b.start >= a.end {
        return None;
    }
    from.iter_days()
        .take(366)
        .find(|d| a.occurs_on(*d) && b.occurs_on(*d))
}

/// Whether two overrides overlap in dates and hours.
pub fn overrides_conflict(a: &Override, b: &Override, from: NaiveDate) -> Option<NaiveDate> {
    if a.start >= b.end || b.start >= a.end {
        return None;
    }
    let start = from.min(a.dates.from).min(b.dates.from);
    start
        .iter_days()
        .take(3 * 366)
        .find(|d| a.dates.contains(*d) && b.dates.contains(*d))
}

pub mod hours;

#[cfg(test)]
mod tests;

/// How far ahead slots are generated (spec Part B section 8).
pub const HORIZON_DAYS: i64 = 60;
