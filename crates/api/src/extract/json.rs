//! A JSON body extractor that names every bad field.

use crate::error::{ApiError, code};
use axum::extract::{FromRequest, Request};
use axum::http::{StatusCode, header};
use bytes::Bytes;
use kairos_domain::FieldErrors;
use kairos_domain::text::{TextKind, check_text};
use serde::Deserialize;
use serde::de::{self, DeserializeOwned, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};

/// A JSON value read strictly: an object that names a key twice is malformed (a proxy or
/// a validator in front might read the first one where serde would keep the last).
struct Strict(Value);

impl<'de> Deserialize<'de> for Strict {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(StrictVisitor).map(Strict)
    }
}

struct StrictVisitor;

impl<'de> Visitor<'de> for StrictVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(Number::from_f64(v).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }

    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        while let Some(Strict(item)) = seq.next_element()? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut fields = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            if fields.contains_key(&key) {
                return Err(de::Error::custom(format!("duplicate field `{key}`")));
            }
            let Strict(value) = map.next_value()?;
            fields.insert(key, value);
        }
        Ok(Value::Object(fields))
    }
}

/// Like `axum::Json`, but rejections are spec-shaped and list every field of the wrong
/// type, not only the first.
#[derive(Debug, Clone, Copy, Default)]
pub struct Json<T>(pub T);

impl<S, T> FromRequest<S> for Json<T>
where
    S: Send + Sync,
    T: DeserializeOwned,
{
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, Self::Rejection> {
        if let Some(ct) = req.headers().get(header::CONTENT_TYPE) {
            let ct = ct.to_str().unwrap_or_default().to_ascii_lowercase();
            let essence = ct.split(';').next().unwrap_or_default().trim();
            if !(essence == "application/json" || essence.ends_with("+json")) {
                return Err(ApiError::new(
                    StatusCode::UNSUPPORTED_MEDIA_TYPE,
                    code::UNSUPPORTED_MEDIA_TYPE,
                    "Request body must be application/json",
                ));
            }
        }
        // The router's `request_body::read_body` has read the body within the size and
        // time limits already.
        let bytes = Bytes::from_request(req, state).await.map_err(|rejection| {
            ApiError::new(
                StatusCode::BAD_REQUEST,
                code::VALIDATION_ERROR,
                format!("Cannot read request body: {rejection}"),
            )
        })?;
        if bytes.is_empty() {
            return Err(ApiError::new(
                StatusCode::BAD_REQUEST,
                code::VALIDATION_ERROR,
                "Request body is empty; a JSON object is required",
            ));
        }
        let value = serde_json::from_slice::<Strict>(&bytes)
            .map(|Strict(v)| v)
            .map_err(|e| {
                ApiError::new(
                    StatusCode::BAD_REQUEST,
                    code::VALIDATION_ERROR,
                    format!("Malformed JSON: {e}"),
                )
                .with_details(serde_json::json!({"line": e.line(), "column": e.column()}))
            })?;
        decode_json(value).map(Json)
    }
}

/// Deserialises `value` into `T`, collecting every type error.
///
/// serde stops at the first error; this removes the offending value and tries again, so
/// a body with three wrong fields gets one answer naming all three. Required fields are
/// declared `Option` in request types and checked by validation, which names them too.
pub fn decode_json<T: DeserializeOwned>(mut value: Value) -> Result<T, ApiError> {
    if !value.is_object() {
        return Err(ApiError::invalid_field("body", "must be a JSON object"));
    }
    let mut errors = FieldErrors::new();
    check_strings(&value, &mut String::new(), "", &mut errors);
    whole_numbers_as_integers(&mut value);
    if !errors.is_empty() {
        return Err(ApiError::validation(errors));
    }
    // Bounded: every round removes one value, and bodies are size-limited.
    for _ in 0..64 {
        match serde_path_to_error::deserialize::<_, T>(&value) {
            Ok(parsed) => {
                return if errors.is_empty() {
                    Ok(parsed)
                } else {
                    Err(ApiError::validation(errors))
                };
            }
            Err(err) => {
                let segments: Vec<Segment> = err.path().iter().map(Segment::from).collect();
                let message = err.inner().to_string();
                if let Some(missing) = missing_field(&message) {
                    let mut field = join(&segments);
                    if !field.is_empty() {
                        field.push('.');
                    }
                    field.push_str(missing);
                    // Missing because an earlier round removed a badly typed value: drop
                    // the enclosing object too and look for further errors.
                    let already = errors.as_slice().iter().any(|e| e.field == field);
                    if !already {
                        errors.add(field, "is required");
                    }
                    if !already || segments.is_empty() || !remove_at(&mut value, &segments) {
                        break;
                    }
                    continue;
                }
                let field = join(&segments);
                errors.add(
                    if field.is_empty() {
                        "body".to_owned()
                    } else {
                        field
                    },
                    clean_message(&message),
                );
                if segments.is_empty() || !remove_at(&mut value, &segments) {
                    break;
                }
            }
        }
    }
    Err(ApiError::validation(errors))
}

enum Segment {
    Key(String),
    Index(usize),
    Other,
}

impl From<&serde_path_to_error::Segment> for Segment {
    fn from(s: &serde_path_to_error::Segment) -> Self {
        match s {
            serde_path_to_error::Segment::Map { key } => Segment::Key(key.clone()),
            serde_path_to_error::Segment::Seq { index } => Segment::Index(*index),
            _ => Segment::Other,
        }
    }
}

/// Holds every string of a body, and every field name, to the text rule of
/// [`kairos_domain::text`]: the kind comes from the name of the field the string is in.
/// JSON (and the OpenAPI document's JSON Schema) knows one number type: `3.0` is the integer
/// 3. serde would refuse it for an integer field, so whole numbers written with a fraction
/// are made integers before typing (exactly representable ones: below 2^53).
fn whole_numbers_as_integers(value: &mut Value) {
    const EXACT: f64 = 9_007_199_254_740_992.0; // 2^53
    match value {
        Value::Number(n) if !n.is_i64() && !n.is_u64() => {
            if let Some(f) = n.as_f64().filter(|f| f.fract() == 0.0 && f.abs() < EXACT) {
                // In range and whole: the conversion is exact.
                let whole = f as i64;
                *value = Value::from(whole);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(whole_numbers_as_integers),
        Value::Object(fields) => fields.values_mut().for_each(whole_numbers_as_integers),
        _ => {}
    }
}

fn check_strings(value: &Value, path: &mut String, name: &str, errors: &mut FieldErrors) {
    match value {
        Value::String(text) => {
            if let Err(message) = check_text(text, TextKind::of_field(name)) {
                errors.add(if path.is_empty() { "body" } else { path }, message);
            }
        }
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                let len = path.len();
                path.push_str(&format!("[{i}]"));
                check_strings(item, path, name, errors);
                path.truncate(len);
            }
        }
        Value::Object(fields) => {
            for (key, item) in fields {
                let len = path.len();
                if !path.is_empty() {
                    path.push('.');
                }
                if check_text(key, TextKind::Line).is_err() {
                    let shown: String = key
                        .chars()
                        .map(|c| if c.is_control() { '?' } else { c })
                        .collect();
                    path.push_str(&shown);
                    errors.add(
                        path.as_str(),
                        "field names must not contain control characters",
                    );
                } else {
                    path.push_str(key);
                    check_strings(item, path, key, errors);
                }
                path.truncate(len);
            }
        }
        _ => {}
    }
}

fn join(segments: &[Segment]) -> String {
    let mut out = String::new();
    for s in segments {
        match s {
            Segment::Key(k) => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(k);
            }
            Segment::Index(i) => out.push_str(&format!("[{i}]")),
            Segment::Other => {}
        }
    }
    out
}

/// Removes the value at `path`; false when there is nothing to remove.
fn remove_at(value: &mut Value, path: &[Segment]) -> bool {
    let Some((last, parents)) = path.split_last() else {
        return false;
    };
    let mut current = value;
    for seg in parents {
        current = match (seg, current) {
            (Segment::Key(k), Value::Object(map)) => match map.get_mut(k) {
                Some(v) => v,
                None => return false,
            },
            (Segment::Index(i), Value::Array(items)) => match items.get_mut(*i) {
                Some(v) => v,
                None => return false,
            },
            _ => return false,
        };
    }
    match (last, current) {
        (Segment::Key(k), Value::Object(map)) => map.shift_remove(k).is_some(),
        (Segment::Index(i), Value::Array(items)) if *i < items.len() => {
            items.remove(*i);
            true
        }
        _ => false,
    }
}

fn missing_field(message: &str) -> Option<&str> {
    message
        .strip_prefix("missing field `")
        .and_then(|rest| rest.split('`').next())
}

/// serde's messages name Rust types; say it in JSON terms.
fn clean_message(message: &str) -> String {
    message
        .replace("expected u8", "expected a non-negative integer")
        .replace("expected u16", "expected a non-negative integer")
        .replace("expected u32", "expected a non-negative integer")
        .replace("expected u64", "expected a non-negative integer")
        .replace("expected i32", "expected an integer")
        .replace("expected i64", "expected an integer")
        .replace("expected f64", "expected a number")
        .replace("expected a boolean", "expected true or false")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;
    use serde_json::json;

    #[derive(Debug, Deserialize)]
    #[serde(rename_all = "camelCase")]
    #[expect(dead_code, reason = "fields exist to be deserialised")]
    struct Body {
        name: Option<String>,
        party_size: Option<u32>,
        accepted: Option<bool>,
        kind: Option<Kind>,
        items: Option<Vec<Item>>,
    }

    #[derive(Debug, Deserialize)]
    #[serde(rename_all = "snake_case")]
    enum Kind {
        Daily,
    }

    #[derive(Debug, Deserialize)]
    #[expect(dead_code, reason = "fields exist to be deserialised")]
    struct Item {
        quantity: u32,
    }

    fn fields(err: ApiError) -> Vec<String> {
        err.details
            .and_then(|d| d.get("errors").cloned())
            .and_then(|e| e.as_array().cloned())
            .unwrap_or_default()
            .iter()
            .filter_map(|e| e.get("field").and_then(Value::as_str).map(str::to_owned))
            .collect()
    }

    #[test]
    fn names_every_field_of_the_wrong_type() {
        let err = decode_json::<Body>(json!({
            "name": 5, "partySize": "two", "accepted": "yes", "kind": "hourly",
            "items": [{"quantity": 1}, {"quantity": -1}]
        }))
        .err()
        .unwrap_or_else(|| panic!("expected an error"));
        assert_eq!(err.code, code::VALIDATION_ERROR);
        assert_eq!(
            fields(err),
            ["name", "partySize", "accepted", "kind", "items[1].quantity"]
        );
    }

    #[test]
    fn reports_missing_required_fields_of_nested_objects() {
        let err = decode_json::<Body>(json!({"items": [{}]}))
            .err()
            .unwrap_or_else(|| panic!("expected an error"));
        assert_eq!(fields(err), ["items[0].quantity"]);
    }

    #[test]
    fn refuses_non_objects_and_accepts_valid_bodies() {
        assert!(decode_json::<Body>(json!([1, 2])).is_err());
        assert!(decode_json::<Body>(json!({"partySize": 3, "unknown": true})).is_ok());
    }

    #[test]
    fn whole_numbers_with_a_fraction_are_integers() {
        let body = decode_json::<Body>(json!({"partySize": 3.0, "items": [{"quantity": 2.0}]}));
        assert!(body.is_ok(), "{body:?}");
        let err = decode_json::<Body>(json!({"partySize": 2.5}))
            .err()
            .unwrap_or_else(|| panic!("expected an error"));
        assert_eq!(fields(err), ["partySize"]);
    }

    #[test]
    fn a_key_named_twice_is_malformed() {
        let read =
            |text: &str| serde_json::from_slice::<Strict>(text.as_bytes()).map(|Strict(v)| v);
        let err = read(r#"{"a": 1, "b": {"c": 2, "c": 3}}"#)
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(err.contains("duplicate field `c`"), "{err}");
        assert_eq!(
            read(r#"{"a": [1, 2.5, "x", null, true, {"b": -3}], "big": 18446744073709551615}"#)
                .ok(),
            Some(
                json!({"a": [1, 2.5, "x", null, true, {"b": -3}], "big": 18446744073709551615u64})
            )
        );
    }
}
