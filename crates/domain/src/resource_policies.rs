//! Booking policies of resources (Part A 4.11, resource groups): the rules a resource
//! add-on's window must meet, set on a resource, on its group, or left to the defaults.
//!
//! **How they combine:** each policy is read on its own, first from the resource's own
//! set, then from its group's, then from [`DEFAULTS`]: the most specific setting wins
//! (a resource can loosen what its group sets as well as tighten it). A window's buffers
//! are the larger of the add-on configuration's and the policy's.

use chrono::{DateTime, Duration, Utc};
use serde::{Deserialize, Serialize};

/// A partial set of policies: a field not set leaves the choice to the next level.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PolicySet {
    /// The least setup time kept free before every window of the resource (minutes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub buffer_before_mins: Option<i32>,
    /// The least cleanup time kept free after every window (minutes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub buffer_after_mins: Option<i32>,
    /// A window must start at least this long after it is booked (minutes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_lead_mins: Option<i32>,
    /// A window may start at most this many days after it is booked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_advance_days: Option<i32>,
    /// The longest window (minutes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_duration_mins: Option<i32>,
    /// Whether customers may book it themselves (false: staff only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub customer_bookable: Option<bool>,
}

/// A change of a policy set: per policy, `None` keeps it, `Some(None)` clears it (the
/// next level decides again), `Some(Some(v))` sets it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PolicyPatch {
    pub buffer_before_mins: Option<Option<i32>>,
    pub buffer_after_mins: Option<Option<i32>>,
    pub min_lead_mins: Option<Option<i32>>,
    pub max_advance_days: Option<Option<i32>>,
    pub max_duration_mins: Option<Option<i32>>,
    pub customer_bookable: Option<Option<bool>>,
}

impl PolicyPatch {
    /// `set` with this change made.
    pub fn apply(&self, set: PolicySet) -> PolicySet {
        PolicySet {
            buffer_before_mins: self.buffer_before_mins.unwrap_or(set.buffer_before_mins),
            buffer_after_mins: self.buffer_after_mins.unwrap_or(set.buffer_after_mins),
            min_lead_mins: self.min_lead_mins.unwrap_or(set.min_lead_mins),
            max_advance_days: self.max_advance_days.unwrap_or(set.max_advance_days),
            max_duration_mins: self.max_duration_mins.unwrap_or(set.max_duration_mins),
            customer_bookable: self.customer_bookable.unwrap_or(set.customer_bookable),
        }
    }
}

/// The policies that apply when neither the resource nor its group sets them.
pub const DEFAULTS: Policies = Policies {
    buffer_before_mins: 0,
    buffer_after_mins: 0,
    min_lead_mins: 0,
    max_advance_days: None,
    max_duration_mins: None,
    customer_bookable: true,
};

/// Every policy decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Policies {
    pub buffer_before_mins: i32,
    pub buffer_after_mins: i32,
    pub min_lead_mins: i32,
    /// None: no limit.
    pub max_advance_days: Option<i32>,
    /// None: no limit beyond the add-on's own durations.
    pub max_duration_mins: Option<i32>,
    pub customer_bookable: bool,
}

/// Where an effective policy comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    Resource,
    Group,
    Default,
}

impl Source {
    pub fn as_str(self) -> &'static str {
        match self {
            Source::Resource => "resource",
            Source::Group => "group",
            Source::Default => "default",
        }
    }
}

/// The policy names, as the API writes them, in a fixed order.
pub const NAMES: [&str; 6] = [
    "bufferBeforeMins",
    "bufferAfterMins",
    "minLeadMins",
    "maxAdvanceDays",
    "maxDurationMins",
    "customerBookable",
];

/// The policies of a resource with its own set and its group's, and where each came from
/// (in the order of [`NAMES`]).
pub fn effective(own: &PolicySet, group: Option<&PolicySet>) -> (Policies, [Source; 6]) {
    let empty = PolicySet::default();
    let group = group.unwrap_or(&empty);
    fn pick<T: Copy>(own: Option<T>, group: Option<T>, default: T) -> (T, Source) {
        match (own, group) {
            (Some(v), _) => (v, Source::Resource),
            (None, Some(v)) => (v, Source::Group),
            (None, None) => (default, Source::Default),
        }
    }
    let before = pick(
        own.buffer_before_mins,
        group.buffer_before_mins,
        DEFAULTS.buffer_before_mins,
    );
    let after = pick(
        own.buffer_after_mins,
        group.buffer_after_mins,
        DEFAULTS.buffer_after_mins,
    );
    let lead = pick(
        own.min_lead_mins,
        group.min_lead_mins,
        DEFAULTS.min_lead_mins,
    );
    let advance = pick(
        own.max_advance_days.map(Some),
        group.max_advance_days.map(Some),
        DEFAULTS.max_advance_days,
    );
    let longest = pick(
        own.max_duration_mins.map(Some),
        group.max_duration_mins.map(Some),
        DEFAULTS.max_duration_mins,
    );
    let customers = pick(
        own.customer_bookable,
        group.customer_bookable,
        DEFAULTS.customer_bookable,
    );
    (
        Policies {
            buffer_before_mins: before.0,
            buffer_after_mins: after.0,
            min_lead_mins: lead.0,
            max_advance_days: advance.0,
            max_duration_mins: longest.0,
            customer_bookable: customers.0,
        },
        [before.1, after.1, lead.1, advance.1, longest.1, customers.1],
    )
}

/// Why a window breaks a policy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Breach {
    /// It starts sooner than the lead time allows.
    TooSoon { min_lead_mins: i32 },
    /// It starts further ahead than the horizon allows.
    TooFarAhead { max_advance_days: i32 },
    /// It is longer than allowed.
    TooLong { max_duration_mins: i32 },
    /// Only staff may book the resource.
    StaffOnly,
}

impl Breach {
    /// The policy broken, as the API names it.
    pub fn policy(self) -> &'static str {
        match self {
            Breach::TooSoon { .. } => "minLeadMins",
            Breach::TooFarAhead { .. } => "maxAdvanceDays",
            Breach::TooLong { .. } => "maxDurationMins",
            Breach::StaffOnly => "customerBookable",
        }
    }

    /// The rule in words.
    pub fn message(self) -> String {
        match self {
            Breach::TooSoon { min_lead_mins } => {
                format!("this resource is booked at least {min_lead_mins} minutes ahead")
            }
            Breach::TooFarAhead { max_advance_days } => {
                format!("this resource is booked at most {max_advance_days} days ahead")
            }
            Breach::TooLong { max_duration_mins } => {
                format!("this resource is booked for at most {max_duration_mins} minutes at a time")
            }
            Breach::StaffOnly => {
                "only the venue's staff can book this resource; contact the venue".to_owned()
            }
        }
    }
}

impl Policies {
    /// Whether a window starting at `starts_at` for `duration_mins`, booked at `now` by
    /// staff (`by_staff`) or a customer, meets every policy; the first breach otherwise.
    pub fn check(
        &self,
        now: DateTime<Utc>,
        starts_at: DateTime<Utc>,
        duration_mins: i32,
        by_staff: bool,
    ) -> Result<(), Breach> {
        if !self.customer_bookable && !by_staff {
            return Err(Breach::StaffOnly);
        }
        if let Some(max) = self.max_duration_mins
            && duration_mins > max
        {
            return Err(Breach::TooLong {
                max_duration_mins: max,
            });
        }
        if starts_at < now + Duration::minutes(i64::from(self.min_lead_mins)) {
            return Err(Breach::TooSoon {
                min_lead_mins: self.min_lead_mins,
            });
        }
        if let Some(days) = self.max_advance_days
            && starts_at > now + Duration::days(i64::from(days))
        {
            return Err(Breach::TooFarAhead {
                max_advance_days: days,
            });
        }
        Ok(())
    }

    /// The buffers of a window: the larger of the configuration's and the policy's.
    pub fn buffers(&self, config_before: i32, config_after: i32) -> (i32, i32) {
        (
            config_before.max(self.buffer_before_mins),
            config_after.max(self.buffer_after_mins),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(h: i64) -> DateTime<Utc> {
        DateTime::from_timestamp(1_800_000_000, 0).unwrap_or_default() + Duration::hours(h)
    }

    #[test]
    fn the_resource_wins_then_the_group_then_the_defaults() {
        let own = PolicySet {
            min_lead_mins: Some(30),
            customer_bookable: Some(true),
            ..PolicySet::default()
        };
        let group = PolicySet {
            min_lead_mins: Some(120),
            buffer_after_mins: Some(15),
            customer_bookable: Some(false),
            ..PolicySet::default()
        };
        let (p, sources) = effective(&own, Some(&group));
        assert_eq!(p.min_lead_mins, 30);
        assert_eq!(p.buffer_after_mins, 15);
        assert_eq!(p.buffer_before_mins, 0);
        assert!(p.customer_bookable, "the resource loosens its group");
        assert_eq!(p.max_advance_days, None);
        assert_eq!(
            sources,
            [
                Source::Default,
                Source::Group,
                Source::Resource,
                Source::Default,
                Source::Default,
                Source::Resource
            ]
        );
        let (alone, _) = effective(&PolicySet::default(), None);
        assert_eq!(alone, DEFAULTS);
    }

    #[test]
    fn a_window_meets_each_policy_or_names_the_one_it_breaks() {
        let p = Policies {
            min_lead_mins: 60,
            max_advance_days: Some(2),
            max_duration_mins: Some(90),
            customer_bookable: false,
            ..DEFAULTS
        };
        assert_eq!(p.check(at(0), at(5), 60, false), Err(Breach::StaffOnly));
        assert_eq!(p.check(at(0), at(5), 60, true), Ok(()));
        assert_eq!(
            p.check(at(0), at(5), 120, true),
            Err(Breach::TooLong {
                max_duration_mins: 90
            })
        );
        // The lead time's boundary is allowed.
        assert_eq!(p.check(at(0), at(1), 60, true), Ok(()));
        assert_eq!(
            p.check(at(0), at(1) - Duration::minutes(1), 60, true),
            Err(Breach::TooSoon { min_lead_mins: 60 })
        );
        assert_eq!(p.check(at(0), at(48), 60, true), Ok(()));
        assert_eq!(
            p.check(at(0), at(49), 60, true),
            Err(Breach::TooFarAhead {
                max_advance_days: 2
            })
        );
        assert_eq!(Breach::StaffOnly.policy(), "customerBookable");
        assert!(
            Breach::TooLong {
                max_duration_mins: 90
            }
            .message()
            .contains("90 minutes")
        );
    }

    #[test]
    fn a_patch_keeps_clears_and_sets() {
        let set = PolicySet {
            min_lead_mins: Some(30),
            max_advance_days: Some(10),
            ..PolicySet::default()
        };
        let patch = PolicyPatch {
            min_lead_mins: Some(None),
            buffer_after_mins: Some(Some(5)),
            ..PolicyPatch::default()
        };
        let after = patch.apply(set);
        assert_eq!(after.min_lead_mins, None);
        assert_eq!(after.buffer_after_mins, Some(5));
        assert_eq!(after.max_advance_days, Some(10));
    }

    #[test]
    fn buffers_are_the_larger_of_the_configurations_and_the_policys() {
        let p = Policies {
            buffer_before_mins: 10,
            buffer_after_mins: 5,
            ..DEFAULTS
        };
        assert_eq!(p.buffers(0, 15), (10, 15));
    }
}
