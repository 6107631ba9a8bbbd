//! Request extractors: JSON bodies, query strings, tenancy and authentication.
//!
//! Each one turns bad input into a spec-shaped 4xx instead of axum's plain-text rejections.

mod auth;
mod client;
mod json;
mod path;
mod permission;
mod query;
mod tenant;

pub use auth::{AdminAuth, CustomerAuth, bearer_token};
pub use client::ClientAddress;
pub use json::{Json, decode_json};
pub use path::check_path_params;
pub use permission::{Permission, Staff, can};
pub use query::{Query, bool_param, date_param, page_param, range_bound, timestamp_param};
pub use tenant::{TENANT_HEADER, Tenant};

use crate::error::ApiError;
use kairos_domain::FieldErrors;
use uuid::Uuid;

/// Parses an id from a path segment. Text that is not an id names nothing: 404.
pub fn path_id(raw: &str, what: &str) -> Result<Uuid, ApiError> {
    kairos_domain::ids::parse_id(raw).ok_or_else(|| ApiError::not_found(what))
}

/// A value of a closed set from a request field: `base` when the field is absent (400
/// `is required` when `required`), 400 naming the field and the choices when the spelling
/// is unknown; `base` stands in then so every other field is still checked.
pub fn choose<T: Copy>(
    errors: &mut FieldErrors,
    field: &str,
    given: Option<&str>,
    base: T,
    required: bool,
    parse: fn(&str) -> Option<T>,
    choices: String,
) -> T {
    match given {
        None => {
            if required {
                errors.add(field, "is required");
            }
            base
        }
        Some(v) => parse(v).unwrap_or_else(|| {
            errors.add(field, format!("must be {choices}"));
            base
        }),
    }
}

/// An optional value of a closed set from a query parameter or field: `None` when absent
/// or empty; an unknown spelling is recorded against `field` with the choices.
pub fn optional_choice<T>(
    errors: &mut FieldErrors,
    field: &str,
    given: Option<&str>,
    parse: fn(&str) -> Option<T>,
    choices: fn() -> String,
) -> Option<T> {
    let raw = given.filter(|s| !s.is_empty())?;
    let parsed = parse(raw);
    if parsed.is_none() {
        errors.add(field, format!("must be {}", choices()));
    }
    parsed
}

/// An optional UUID from a query parameter or field: `None` when absent or empty; text
/// that is not one is recorded against `field`.
pub fn uuid_param(errors: &mut FieldErrors, field: &str, given: Option<&str>) -> Option<Uuid> {
    let raw = given.filter(|s| !s.is_empty())?;
    let parsed = kairos_domain::ids::parse_id(raw);
    if parsed.is_none() {
        errors.add(field, "must be a UUID");
    }
    parsed
}

/// `deserialize_with` for PATCH fields: absent → `None` (unchanged), `null` →
/// `Some(None)` (cleared), a value → `Some(Some(v))`. Use with `#[serde(default)]`.
pub fn nullable<'de, D, T>(deserializer: D) -> Result<Option<Option<T>>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: serde::Deserialize<'de>,
{
    use serde::Deserialize;
    Option::<T>::deserialize(deserializer).map(Some)
}
