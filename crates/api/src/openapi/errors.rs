//! The error answers operations share, declared once and referred to by rule.

use super::{RATE_LIMIT_HEADERS, tenant_scoped};
use serde_json::{Map, Value, json};
use utoipa::ToSchema;

/// Error answers every operation of a kind can give, declared once under
/// `components.responses` (status, component name, description) and added by [`to_json`]
/// to each operation that can give them and does not describe them itself.
pub(super) const SHARED_ERRORS: [(&str, &str, &str); 8] = [
    (
        "400",
        "BadRequest",
        "VALIDATION_ERROR: a header, parameter or body field is missing or invalid; `details.errors` names each one ({field, message}).",
    ),
    (
        "401",
        "Unauthorized",
        "UNAUTHORIZED: no token, or one that is invalid, expired or revoked.",
    ),
    (
        "403",
        "Forbidden",
        "INSUFFICIENT_PERMISSIONS: the token is valid but lacks the permission this operation needs (or is a customer's where staff are needed); TENANT_MISMATCH: the token is another tenant's.",
    ),
    (
        "404",
        "NotFound",
        "NOT_FOUND: the tenant, or a resource the path names, does not exist (or is another tenant's).",
    ),
    (
        "408",
        "RequestTimeout",
        "REQUEST_TIMEOUT: the body did not arrive in full within the body timeout; the connection is closed.",
    ),
    (
        "413",
        "PayloadTooLarge",
        "PAYLOAD_TOO_LARGE: the body is larger than the body limit; the connection is closed.",
    ),
    (
        "415",
        "UnsupportedMediaType",
        "UNSUPPORTED_MEDIA_TYPE: the body is not `application/json`.",
    ),
    (
        "503",
        "ServiceUnavailable",
        "SERVICE_UNAVAILABLE: the server is at a limit (open connections, a request that took too long, sign-ins at once); retry after `Retry-After` seconds.",
    ),
];

/// The shared errors a notification endpoint answers in shape B (the others come from
/// the server loop before routing, in shape A).
const SHAPE_B_STATUSES: [&str; 5] = ["400", "401", "403", "404", "415"];

/// Which of [`SHARED_ERRORS`] an operation can answer.
fn shared_errors_of(path: &str, op: &Value) -> Vec<&'static str> {
    let has_body = op.get("requestBody").is_some();
    let has_input = has_body
        || op["parameters"].as_array().is_some_and(|p| !p.is_empty())
        || tenant_scoped(path);
    let secured = op["security"].as_array().is_some_and(|s| !s.is_empty());
    let names_something = path.contains('{') || tenant_scoped(path);
    let mut statuses = Vec::new();
    if has_input {
        statuses.push("400");
    }
    if secured {
        statuses.extend(["401", "403"]);
    }
    if names_something {
        statuses.push("404");
    }
    if has_body {
        statuses.extend(["408", "413", "415"]);
    }
    statuses.push("503");
    statuses
}

/// Declares [`SHARED_ERRORS`] under `components.responses` and refers to them from every
/// operation that can answer them but does not describe them itself.
pub(super) fn add_shared_errors(doc: &mut Value) {
    let error_body =
        json!({"$ref": format!("#/components/schemas/{}", crate::error::ErrorBody::name())});
    let shape_b_body =
        json!({"$ref": format!("#/components/schemas/{}", crate::error::ShapeBBody::name())});
    let mut headers = Map::new();
    for (name, _) in RATE_LIMIT_HEADERS {
        headers.insert(
            name.to_owned(),
            json!({"$ref": format!("#/components/headers/{name}")}),
        );
    }
    if let Some(paths) = doc.get_mut("paths").and_then(Value::as_object_mut) {
        for (path, item) in paths.iter_mut() {
            let Some(item) = item.as_object_mut() else {
                continue;
            };
            for op in item.values_mut() {
                let statuses = shared_errors_of(path, op);
                let shape_b = op[super::TIER_EXTENSION]
                    .as_str()
                    .is_some_and(|t| t.starts_with("notification"));
                let Some(responses) = op.get_mut("responses").and_then(Value::as_object_mut) else {
                    continue;
                };
                for (status, component, _) in SHARED_ERRORS {
                    if statuses.contains(&status) && !responses.contains_key(status) {
                        let component = if shape_b && SHAPE_B_STATUSES.contains(&status) {
                            format!("{component}ShapeB")
                        } else {
                            component.to_owned()
                        };
                        responses.insert(
                            status.to_owned(),
                            json!({"$ref": format!("#/components/responses/{component}")}),
                        );
                    }
                }
            }
        }
    }
    if let Some(responses) = doc
        .pointer_mut("/components/responses")
        .and_then(Value::as_object_mut)
    {
        for (status, component, description) in SHARED_ERRORS {
            responses.insert(
                component.to_owned(),
                json!({
                    "description": description,
                    "headers": headers,
                    "content": {"application/json": {"schema": error_body}},
                }),
            );
            if SHAPE_B_STATUSES.contains(&status) {
                responses.insert(
                    format!("{component}ShapeB"),
                    json!({
                        "description": format!("In shape B (the notification endpoints): {description}"),
                        "headers": headers,
                        "content": {"application/json": {"schema": shape_b_body}},
                    }),
                );
            }
        }
    }
}
