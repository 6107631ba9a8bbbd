//! Resources (spec Part B 2.3, 2.4, 4.2): the rooms, equipment, vehicles and staff an
//! activity uses, the rules of a resource add-on (its durations, its price, where its
//! windows lie around the activity) and how much of a resource a set of allocations
//! uses at its busiest moment.

use chrono::{DateTime, Duration, Utc};

text_enum! {
    /// What a resource is: for grouping and reporting only, no effect on booking logic.
    pub enum ResourceType {
        Room = "ROOM",
        Equipment = "EQUIPMENT",
        Vehicle = "VEHICLE",
        Staff = "STAFF",
        Other = "OTHER",
    }
}

text_enum! {
    /// How bookings share a resource at one time.
    pub enum SharedMode {
        /// One booking at a time.
        Exclusive = "EXCLUSIVE",
        /// Several bookings at once, up to the resource's capacity.
        Shared = "SHARED",
        /// Units drawn from the resource's total (a fleet of kayaks): each booking takes
        /// one unit per person.
        Pooled = "POOLED",
    }
}

text_enum! {
    /// How a resource add-on's length is chosen.
    pub enum DurationMode {
        /// Exactly `fixedDurationMins`.
        Fixed = "FIXED",
        /// One of `durationOptions`.
        Selectable = "SELECTABLE",
        /// From `minDurationMins` to `maxDurationMins` in steps of `durationStepMins`.
        Custom = "CUSTOM",
    }
}

text_enum! {
    /// How a resource add-on is priced.
    pub enum PricingMode {
        /// `flatPrice`.
        Flat = "FLAT",
        /// `perHourPrice` × minutes / 60.
        PerHour = "PER_HOUR",
        /// `perPersonPrice` × party size.
        PerPerson = "PER_PERSON",
        /// `basePrice` + `perPersonPrice` × party size.
        Composite = "COMPOSITE",
    }
}

text_enum! {
    /// Where an add-on's window lies against the activity.
    pub enum WindowPosition {
        /// Ending when the activity starts.
        Before = "BEFORE",
        /// Starting when the activity starts, within it.
        During = "DURING",
        /// Starting when the activity ends.
        After = "AFTER",
    }
}

text_enum! {
    /// A resource allocation's status (spec Part B 3.2).
    pub enum AllocationStatus {
        /// Taken with a booking's hold; released if the hold expires or is cancelled.
        Held = "HELD",
        /// The booking is confirmed: permanent.
        Confirmed = "CONFIRMED",
        /// Given back (the hold expired, the booking was cancelled, the add-on removed).
        Released = "RELEASED",
    }
}

/// The most windows of one position a CUSTOM rule offers (its steps from the minimum).
pub const MAX_CUSTOM_OPTIONS: usize = 24;

/// A resource add-on's durations (minutes).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DurationRule {
    Fixed(i32),
    Selectable(Vec<i32>),
    Custom { min: i32, max: i32, step: i32 },
}

impl DurationRule {
    /// Whether `mins` is allowed; otherwise the rule in words (the 422's message).
    pub fn check(&self, mins: i32) -> Result<(), String> {
        let ok = match self {
            DurationRule::Fixed(f) => mins == *f,
            DurationRule::Selectable(list) => list.contains(&mins),
            DurationRule::Custom { min, max, step } => {
                mins >= *min && mins <= *max && *step > 0 && (mins - min) % step == 0
            }
        };
        if ok {
            return Ok(());
        }
        Err(match self {
            DurationRule::Fixed(f) => format!("this add-on lasts exactly {f} minutes"),
            DurationRule::Selectable(list) => format!(
                "this add-on lasts one of {} minutes",
                list.iter()
                    .map(i32::to_string)
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            DurationRule::Custom { min, max, step } => {
                format!("this add-on lasts {min} to {max} minutes in steps of {step}")
            }
        })
    }

    /// The durations offered as windows, shortest first (CUSTOM: its steps from the
    /// minimum, at most [`MAX_CUSTOM_OPTIONS`]).
    pub fn options(&self) -> Vec<i32> {
        match self {
            DurationRule::Fixed(f) => vec![*f],
            DurationRule::Selectable(list) => {
                let mut l = list.clone();
                l.sort_unstable();
                l.dedup();
                l
            }
            DurationRule::Custom { min, max, step } => (0..MAX_CUSTOM_OPTIONS)
                .map_while(|i| {
                    let d = min.checked_add(step.checked_mul(i32::try_from(i).ok()?)?)?;
                    (d <= *max && *step > 0).then_some(d)
                })
                .collect(),
        }
    }
}

/// A resource add-on's prices (minor units; each present as its mode needs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pricing {
    pub mode: PricingMode,
    pub flat_price: Option<i64>,
    pub per_hour_price: Option<i64>,
    pub per_person_price: Option<i64>,
    pub base_price: Option<i64>,
}

impl Pricing {
    /// The prices the mode needs that are missing, by their input names.
    pub fn missing(&self) -> Vec<&'static str> {
        let need: &[(&str, Option<i64>)] = match self.mode {
            PricingMode::Flat => &[("flatPrice", self.flat_price)],
            PricingMode::PerHour => &[("perHourPrice", self.per_hour_price)],
            PricingMode::PerPerson => &[("perPersonPrice", self.per_person_price)],
            PricingMode::Composite => &[
                ("basePrice", self.base_price),
                ("perPersonPrice", self.per_person_price),
            ],
        };
        need.iter()
            .filter(|(_, v)| v.is_none())
            .map(|(n, _)| *n)
            .collect()
    }

    /// The price of `duration_mins` for `party` people (minor units; PER_HOUR rounds half
    /// up to the minor unit). None when a price the mode needs is missing or the amount
    /// does not fit.
    pub fn price(&self, duration_mins: i32, party: i32) -> Option<i64> {
        let party = i64::from(party);
        match self.mode {
            PricingMode::Flat => self.flat_price,
            PricingMode::PerHour => {
                let rate = i128::from(self.per_hour_price?);
                let cents = (rate * i128::from(duration_mins) + 30).div_euclid(60);
                i64::try_from(cents).ok()
            }
            PricingMode::PerPerson => self.per_person_price?.checked_mul(party),
            PricingMode::Composite => self
                .base_price?
                .checked_add(self.per_person_price?.checked_mul(party)?),
        }
    }
}

/// Which positions an add-on may take.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Positions {
    pub before: bool,
    pub during: bool,
    pub after: bool,
}

/// A window an add-on may be booked in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Window {
    pub position: WindowPosition,
    pub starts_at: DateTime<Utc>,
    pub ends_at: DateTime<Utc>,
    pub duration_mins: i32,
}

/// The windows of an add-on around the activity `[start, end)`: for each allowed
/// position and each duration of `rule`, BEFORE ending at the start, DURING starting at
/// the start (only durations that fit in the activity), AFTER starting at the end.
pub fn windows(
    start: DateTime<Utc>,
    end: DateTime<Utc>,
    rule: &DurationRule,
    positions: Positions,
) -> Vec<Window> {
    let activity = (end - start).num_minutes();
    let mut out = Vec::new();
    for (allowed, position) in [
        (positions.before, WindowPosition::Before),
        (positions.during, WindowPosition::During),
        (positions.after, WindowPosition::After),
    ] {
        if !allowed {
            continue;
        }
        for d in rule.options() {
            let length = Duration::minutes(i64::from(d));
            let (starts_at, ends_at) = match position {
                WindowPosition::Before => (start - length, start),
                WindowPosition::During if i64::from(d) <= activity => (start, start + length),
                WindowPosition::During => continue,
                WindowPosition::After => (end, end + length),
            };
            out.push(Window {
                position,
                starts_at,
                ends_at,
                duration_mins: d,
            });
        }
    }
    out
}

/// Which position a requested window takes against the activity, if any.
pub fn position_of(
    start: DateTime<Utc>,
    end: DateTime<Utc>,
    window_start: DateTime<Utc>,
    window_end: DateTime<Utc>,
) -> Option<WindowPosition> {
    if window_end == start {
        Some(WindowPosition::Before)
    } else if window_start == end {
        Some(WindowPosition::After)
    } else if window_start == start && window_end <= end {
        Some(WindowPosition::During)
    } else {
        None
    }
}

/// The time a window blocks on its resource: the window widened by the buffers (the
/// resource's setup before and cleanup after).
pub fn blocked(
    starts_at: DateTime<Utc>,
    ends_at: DateTime<Utc>,
    buffer_before_mins: i32,
    buffer_after_mins: i32,
) -> (DateTime<Utc>, DateTime<Utc>) {
    (
        starts_at - Duration::minutes(i64::from(buffer_before_mins)),
        ends_at + Duration::minutes(i64::from(buffer_after_mins)),
    )
}

/// The most a resource is used at any moment of `[from, to)` by `taken` (each blocked
/// range with its units: 1 per booking for EXCLUSIVE and SHARED, one per person for
/// POOLED).
pub fn peak_use(
    taken: &[(DateTime<Utc>, DateTime<Utc>, i32)],
    from: DateTime<Utc>,
    to: DateTime<Utc>,
) -> i32 {
    // Every change of use inside the range: a start adds, an end removes; ends sort first
    // at the same instant, so back-to-back ranges do not overlap.
    let mut edges: Vec<(DateTime<Utc>, i32)> = Vec::new();
    for &(s, e, units) in taken {
        if s < to && e > from {
            edges.push((s.max(from), units));
            edges.push((e.min(to), -units));
        }
    }
    edges.sort_by_key(|&(at, delta)| (at, delta));
    let (mut now, mut peak) = (0, 0);
    for (_, delta) in edges {
        now += delta;
        peak = peak.max(now);
    }
    peak
}

/// The units one booking of `party` people takes of a resource of `mode`.
pub fn units(mode: SharedMode, party: i32) -> i32 {
    match mode {
        SharedMode::Pooled => party,
        SharedMode::Exclusive | SharedMode::Shared => 1,
    }
}

/// Whether `units` more fit in a resource of `mode` and `capacity` whose busiest moment
/// of the range already uses `peak`.
pub fn fits(mode: SharedMode, capacity: i32, peak: i32, units: i32) -> bool {
    match mode {
        SharedMode::Exclusive => peak == 0,
        SharedMode::Shared | SharedMode::Pooled => peak + units <= capacity,
    }
}

#[cfg(test)]
#[path = "resources_tests.rs"]
mod tests;
