//! Booking policies of resources and resource groups, as the API reads and writes them
//! (the rules: `kairos_domain::resource_policies`).

use kairos_domain::FieldErrors;
use kairos_domain::resource_policies::{NAMES, Policies, PolicyPatch, PolicySet, Source};
use serde::{Deserialize, Deserializer, Serialize};
use utoipa::ToSchema;

/// Tells an absent field (`None`) from `null` (`Some(None)`).
fn present<'de, D, T>(d: D) -> Result<Option<Option<T>>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    Ok(Some(Option::deserialize(d)?))
}

/// A change of booking policies: a field left out stays as it is, `null` clears it (the
/// group's or the default applies again), a value sets it.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PolicyInput {
    /// The least setup time kept free before every window (0 to 1440 minutes).
    #[serde(default, deserialize_with = "present")]
    #[schema(value_type = Option<i64>, nullable, minimum = 0, maximum = 1440)]
    pub buffer_before_mins: Option<Option<i64>>,
    /// The least cleanup time kept free after every window (0 to 1440 minutes).
    #[serde(default, deserialize_with = "present")]
    #[schema(value_type = Option<i64>, nullable, minimum = 0, maximum = 1440)]
    pub buffer_after_mins: Option<Option<i64>>,
    /// A window starts at least this long after it is booked (0 to 525600 minutes).
    #[serde(default, deserialize_with = "present")]
    #[schema(value_type = Option<i64>, nullable, minimum = 0, maximum = 525600)]
    pub min_lead_mins: Option<Option<i64>>,
    /// A window starts at most this many days after it is booked (1 to 730).
    #[serde(default, deserialize_with = "present")]
    #[schema(value_type = Option<i64>, nullable, minimum = 1, maximum = 730)]
    pub max_advance_days: Option<Option<i64>>,
    /// The longest window (1 to 1440 minutes).
    #[serde(default, deserialize_with = "present")]
    #[schema(value_type = Option<i64>, nullable, minimum = 1, maximum = 1440)]
    pub max_duration_mins: Option<Option<i64>>,
    /// false: only staff may book the resource.
    #[serde(default, deserialize_with = "present")]
    #[schema(value_type = Option<bool>, nullable)]
    pub customer_bookable: Option<Option<bool>>,
}

fn bounded(
    errors: &mut FieldErrors,
    field: String,
    given: Option<Option<i64>>,
    range: std::ops::RangeInclusive<i64>,
) -> Option<Option<i32>> {
    match given {
        Some(Some(v)) if !range.contains(&v) => {
            errors.add(
                field,
                format!("must be {} to {}", range.start(), range.end()),
            );
            None
        }
        Some(Some(v)) => Some(i32::try_from(v).ok()),
        Some(None) => Some(None),
        None => None,
    }
}

impl PolicyInput {
    /// The change it asks for; bad values named under `prefix` (`policies.` or empty).
    pub fn patch(&self, errors: &mut FieldErrors, prefix: &str) -> PolicyPatch {
        let f = |name: &str| format!("{prefix}{name}");
        PolicyPatch {
            buffer_before_mins: bounded(
                errors,
                f("bufferBeforeMins"),
                self.buffer_before_mins,
                0..=1440,
            ),
            buffer_after_mins: bounded(
                errors,
                f("bufferAfterMins"),
                self.buffer_after_mins,
                0..=1440,
            ),
            min_lead_mins: bounded(errors, f("minLeadMins"), self.min_lead_mins, 0..=525_600),
            max_advance_days: bounded(errors, f("maxAdvanceDays"), self.max_advance_days, 1..=730),
            max_duration_mins: bounded(
                errors,
                f("maxDurationMins"),
                self.max_duration_mins,
                1..=1440,
            ),
            customer_bookable: self.customer_bookable,
        }
    }
}

/// Booking policies as set at one level (null: not set here).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PolicySetDto {
    pub buffer_before_mins: Option<i32>,
    pub buffer_after_mins: Option<i32>,
    pub min_lead_mins: Option<i32>,
    pub max_advance_days: Option<i32>,
    pub max_duration_mins: Option<i32>,
    pub customer_bookable: Option<bool>,
}

impl From<PolicySet> for PolicySetDto {
    fn from(p: PolicySet) -> Self {
        PolicySetDto {
            buffer_before_mins: p.buffer_before_mins,
            buffer_after_mins: p.buffer_after_mins,
            min_lead_mins: p.min_lead_mins,
            max_advance_days: p.max_advance_days,
            max_duration_mins: p.max_duration_mins,
            customer_bookable: p.customer_bookable,
        }
    }
}

/// Every policy decided (null: no limit).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PoliciesDto {
    pub buffer_before_mins: i32,
    pub buffer_after_mins: i32,
    pub min_lead_mins: i32,
    pub max_advance_days: Option<i32>,
    pub max_duration_mins: Option<i32>,
    pub customer_bookable: bool,
}

impl From<Policies> for PoliciesDto {
    fn from(p: Policies) -> Self {
        PoliciesDto {
            buffer_before_mins: p.buffer_before_mins,
            buffer_after_mins: p.buffer_after_mins,
            min_lead_mins: p.min_lead_mins,
            max_advance_days: p.max_advance_days,
            max_duration_mins: p.max_duration_mins,
            customer_bookable: p.customer_bookable,
        }
    }
}

/// Where each effective policy comes from: `resource`, `group` or `default`.
pub fn sources(sources: [Source; 6]) -> std::collections::BTreeMap<String, String> {
    NAMES
        .iter()
        .zip(sources)
        .map(|(n, s)| ((*n).to_owned(), s.as_str().to_owned()))
        .collect()
}
