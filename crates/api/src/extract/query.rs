//! A query-string extractor whose rejections name the bad parameter.

use crate::error::ApiError;
use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use kairos_domain::FieldErrors;
use kairos_domain::text::{TextKind, check_text};
use serde::de::DeserializeOwned;

/// Like `axum::extract::Query` (repeated parameters fill `Vec` fields), with a 400 `VALIDATION_ERROR` naming the parameter.
#[derive(Debug, Clone, Copy, Default)]
pub struct Query<T>(pub T);

impl<S, T> FromRequestParts<S> for Query<T>
where
    S: Send + Sync,
    T: DeserializeOwned,
{
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, Self::Rejection> {
        let query = parts.uri.query().unwrap_or_default();
        // Every parameter is one line of text (kairos_domain::text).
        let pairs: Vec<(String, String)> = serde_html_form::from_str(query).unwrap_or_default();
        let mut errors = FieldErrors::new();
        for (name, value) in &pairs {
            if let Err(message) = check_text(value, TextKind::Line) {
                errors.add(name.replace(|c: char| c.is_control(), "?"), message);
            }
            if check_text(name, TextKind::Line).is_err() {
                errors.add(
                    name.replace(|c: char| c.is_control(), "?"),
                    "parameter names must not contain control characters",
                );
            }
        }
        if !errors.is_empty() {
            return Err(ApiError::validation(errors));
        }
        // serde_html_form reads a repeated parameter (`status=a&status=b`) into a Vec.
        let de = serde_html_form::Deserializer::from_bytes(query.as_bytes());
        serde_path_to_error::deserialize(de)
            .map(Query)
            .map_err(|err| {
                let field = err.path().to_string();
                let message = err.inner().to_string();
                match message.strip_prefix("missing field `") {
                    Some(rest) => {
                        ApiError::invalid_field(rest.trim_end_matches('`'), "is required")
                    }
                    None => ApiError::invalid_field(
                        if field == "." { "query" } else { &field },
                        message,
                    ),
                }
            })
    }
}

/// The years a date or timestamp of a request may fall in.
const YEARS: std::ops::RangeInclusive<i32> = 1900..=2999;

/// An RFC 3339 timestamp with its offset, in [`YEARS`]; a leap second (`:60`), which no
/// stored instant can hold, is none.
fn instant(raw: &str) -> Option<chrono::DateTime<chrono::Utc>> {
    use chrono::{Datelike, Timelike};
    chrono::DateTime::parse_from_rfc3339(raw)
        .ok()
        .map(|t| t.with_timezone(&chrono::Utc))
        .filter(|t| t.nanosecond() < 1_000_000_000 && YEARS.contains(&t.year()))
}

/// An RFC 3339 timestamp from a request (body or query) between the years 1900 and 2999,
/// with its offset; a leap second (`:60`), which no stored instant can hold, is refused.
pub fn timestamp_param(
    errors: &mut FieldErrors,
    field: &str,
    raw: &str,
) -> Option<chrono::DateTime<chrono::Utc>> {
    let parsed = instant(raw.trim());
    if parsed.is_none() {
        errors.add(
            field,
            "must be an ISO 8601 timestamp with its offset between the years 1900 and 2999, for example 2026-12-01T00:00:00Z",
        );
    }
    parsed
}

/// Parses `YYYY-MM-DD` or an RFC 3339 timestamp (years 1900 to 2999, no leap second) as
/// a bound of a range of instants. A lower bound is the instant (a date: the start of its
/// UTC day); with `inclusive_upper`, the result is the exclusive end of what the input
/// includes (a date: the start of the next UTC day; a timestamp: one microsecond after
/// it). The one parser of every date-or-timestamp filter (searches, exports, analytics).
pub fn range_bound(
    errors: &mut FieldErrors,
    field: &str,
    raw: Option<&str>,
    inclusive_upper: bool,
) -> Option<chrono::DateTime<chrono::Utc>> {
    use chrono::Datelike;
    let raw = raw.map(str::trim).filter(|s| !s.is_empty())?;
    if let Some(t) = instant(raw) {
        return Some(if inclusive_upper {
            t + chrono::Duration::microseconds(1)
        } else {
            t
        });
    }
    if let Ok(d) = chrono::NaiveDate::parse_from_str(raw, "%Y-%m-%d")
        && YEARS.contains(&d.year())
    {
        let d = if inclusive_upper { d.succ_opt()? } else { d };
        return Some(d.and_hms_opt(0, 0, 0)?.and_utc());
    }
    errors.add(
        field,
        "must be a date (YYYY-MM-DD) or an ISO 8601 timestamp, between the years 1900 and 2999",
    );
    None
}

/// A date `YYYY-MM-DD` from a request (body or query) between the years 1900 and 2999.
pub fn date_param(errors: &mut FieldErrors, field: &str, value: &str) -> Option<chrono::NaiveDate> {
    use chrono::Datelike;
    match chrono::NaiveDate::parse_from_str(value.trim(), "%Y-%m-%d") {
        Ok(d) if YEARS.contains(&d.year()) => Some(d),
        Ok(_) => {
            errors.add(field, "must be a date between 1900-01-01 and 2999-12-31");
            None
        }
        Err(_) => {
            errors.add(field, format!("'{value}' is not a date YYYY-MM-DD"));
            None
        }
    }
}

/// An optional boolean query parameter: `true`/`false` (or `1`/`0`, any case); anything
/// else is recorded against `field`.
pub fn bool_param(errors: &mut FieldErrors, field: &str, raw: Option<&str>, default: bool) -> bool {
    match raw.map(|s| s.trim().to_ascii_lowercase()).as_deref() {
        None | Some("") => default,
        Some("true" | "1") => true,
        Some("false" | "0") => false,
        Some(_) => {
            errors.add(field, "must be true or false");
            default
        }
    }
}

/// An optional page number or page size from 1 to `max`; anything else is recorded
/// against `field`.
pub fn page_param(
    errors: &mut FieldErrors,
    field: &str,
    raw: Option<&str>,
    default: u32,
    max: u32,
) -> u32 {
    match raw.map(str::trim).filter(|s| !s.is_empty()) {
        None => default,
        Some(s) => match s.parse::<u32>() {
            Ok(n) if (1..=max).contains(&n) => n,
            _ => {
                errors.add(field, format!("must be a whole number from 1 to {max}"));
                default
            }
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::{TimeZone, Utc};

    fn bound(raw: &str, upper: bool) -> (Option<chrono::DateTime<Utc>>, bool) {
        let mut errors = FieldErrors::new();
        let got = range_bound(&mut errors, "at", Some(raw), upper);
        (got, errors.is_empty())
    }

    #[test]
    fn dates_and_timestamps_bound_ranges() {
        let day = Utc.with_ymd_and_hms(2026, 11, 22, 0, 0, 0).unwrap();
        assert_eq!(bound("2026-11-22", false), (Some(day), true));
        assert_eq!(
            bound("2026-11-22", true),
            (Some(day + chrono::Duration::days(1)), true)
        );
        assert_eq!(bound(" 2026-11-22T00:00:00Z ", false), (Some(day), true));
        assert_eq!(
            bound("2026-11-22T02:00:00+02:00", true),
            (Some(day + chrono::Duration::microseconds(1)), true)
        );
        let mut errors = FieldErrors::new();
        assert_eq!(range_bound(&mut errors, "at", Some("  "), false), None);
        assert!(errors.is_empty(), "an empty value is no bound");
    }

    #[test]
    fn other_text_and_far_years_are_refused() {
        for raw in [
            "later",
            "2026-13-01",
            "1899-12-31",
            "3000-01-01T00:00:00Z",
            "22.11.2026",
        ] {
            assert_eq!(bound(raw, false), (None, false), "{raw}");
        }
    }
}
