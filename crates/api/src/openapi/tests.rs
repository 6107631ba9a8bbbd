//! Tests of the document's shape.

use super::*;
use std::collections::BTreeSet;

fn doc() -> utoipa::openapi::OpenApi {
    crate::router::openapi()
}

#[test]
fn every_operation_declares_its_security() {
    let mut doc = doc();
    let missing: Vec<String> = operations_mut(&mut doc)
        .filter(|(_, _, op)| op.security.is_none())
        .map(|(path, method, _)| format!("{method} {path}"))
        .collect();
    assert!(missing.is_empty(), "declare security(...) on: {missing:?}");
}

#[test]
fn operation_ids_are_unique() {
    let mut doc = doc();
    let mut seen = BTreeSet::new();
    for (path, method, op) in operations_mut(&mut doc) {
        let id = op.operation_id.clone().unwrap_or_default();
        assert!(
            seen.insert(id.clone()),
            "{method} {path}: operationId {id} is used twice"
        );
    }
}

#[test]
fn every_operation_answers_429_and_every_response_has_the_rate_limit_headers() {
    let json = to_json(&doc());
    for (path, item) in json["paths"].as_object().into_iter().flatten() {
        for (method, op) in item.as_object().into_iter().flatten() {
            assert_eq!(
                op["responses"]["429"]["$ref"], "#/components/responses/RateLimited",
                "{method} {path}"
            );
            assert!(
                op.get(TIER_EXTENSION).is_some(),
                "{method} {path} has no tier"
            );
            for (status, response) in op["responses"].as_object().into_iter().flatten() {
                if status == "429" {
                    continue;
                }
                let response = match response["$ref"].as_str() {
                    Some(r) => json
                        .pointer(&r.replacen('#', "", 1))
                        .unwrap_or_else(|| panic!("{method} {path} {status}: {r} missing")),
                    None => response,
                };
                for (name, _) in RATE_LIMIT_HEADERS {
                    assert_eq!(
                        response["headers"][name]["$ref"],
                        format!("#/components/headers/{name}"),
                        "{method} {path} {status}"
                    );
                }
            }
        }
    }
}

#[test]
fn the_tenant_header_is_declared_once_and_used_by_every_tenant_operation() {
    let json = to_json(&doc());
    assert_eq!(
        json["components"]["parameters"][TENANT_PARAM]["name"],
        crate::extract::TENANT_HEADER
    );
    for (path, item) in json["paths"].as_object().into_iter().flatten() {
        for (method, op) in item.as_object().into_iter().flatten() {
            let params = op["parameters"].as_array().cloned().unwrap_or_default();
            let refs = params
                .iter()
                .filter(|p| p["$ref"] == format!("#/components/parameters/{TENANT_PARAM}"))
                .count();
            let inline_required = params
                .iter()
                .filter(|p| p["name"] == crate::extract::TENANT_HEADER && p["required"] == true)
                .count();
            assert_eq!(inline_required, 0, "{method} {path}");
            assert_eq!(refs, usize::from(tenant_scoped(path)), "{method} {path}");
        }
    }
}

#[test]
fn every_operation_declares_the_errors_it_can_answer() {
    let json = to_json(&doc());
    for (path, item) in json["paths"].as_object().into_iter().flatten() {
        for (method, op) in item.as_object().into_iter().flatten() {
            let responses = &op["responses"];
            assert!(responses.get("503").is_some(), "{method} {path}: 503");
            if op.get("requestBody").is_some() {
                for status in ["400", "408", "413", "415"] {
                    assert!(responses.get(status).is_some(), "{method} {path}: {status}");
                }
            }
            if op["security"].as_array().is_some_and(|s| !s.is_empty()) {
                for status in ["401", "403"] {
                    assert!(responses.get(status).is_some(), "{method} {path}: {status}");
                }
            }
            if tenant_scoped(path) {
                for status in ["400", "404"] {
                    assert!(responses.get(status).is_some(), "{method} {path}: {status}");
                }
            }
        }
    }
    for (_, component, _) in super::errors::SHARED_ERRORS {
        assert_eq!(
            json["components"]["responses"][component]["content"]["application/json"]["schema"]["$ref"],
            "#/components/schemas/ErrorBody",
            "{component}"
        );
    }
}

#[test]
fn a_body_that_may_be_left_out_is_optional_and_never_null() {
    let json = to_json(&doc());
    let body = &json["paths"]["/api/v1/bookings/{id}/cancel"]["post"]["requestBody"];
    assert_eq!(body["required"], false);
    assert_eq!(
        body["content"]["application/json"]["schema"]["$ref"],
        "#/components/schemas/CancelRequest"
    );
}

#[test]
fn create_forms_require_their_fields_and_updates_do_not() {
    let json = to_json(&doc());
    let schemas = &json["components"]["schemas"];
    let create = &json["paths"]["/api/v1/admin/sites"]["post"]["requestBody"]["content"]["application/json"]
        ["schema"]["$ref"];
    assert_eq!(create, "#/components/schemas/SiteCreate");
    assert_eq!(
        schemas["SiteCreate"]["required"],
        json!(["name", "timezone"])
    );
    // Required: never null.
    assert_eq!(
        schemas["SiteCreate"]["properties"]["name"]["type"],
        "string"
    );
    assert!(schemas["SiteInput"].get("required").is_none());
    assert_eq!(
        schemas["SiteInput"]["properties"]["name"]["type"],
        json!(["string", "null"])
    );
}

#[test]
fn request_text_carries_the_text_rule_and_responses_do_not() {
    use kairos_domain::text::{LINE_PATTERN, MULTI_LINE_PATTERN};
    let json = to_json(&doc());
    let schemas = &json["components"]["schemas"];
    let product = &schemas["ProductInput"]["properties"];
    assert_eq!(product["description"]["pattern"], MULTI_LINE_PATTERN);
    assert_eq!(
        product["name"]["pattern"],
        kairos_domain::text::TextKind::Line.non_blank_pattern(),
        "name has minLength 1: not blank"
    );
    assert_eq!(
        schemas["ProductInput"]["propertyNames"]["pattern"],
        LINE_PATTERN
    );
    assert_eq!(
        schemas["ProductInput"]["additionalProperties"]["$ref"],
        format!("#/components/schemas/{IGNORED_VALUE}")
    );
    // A formatted string keeps its format alone.
    assert!(product["siteId"].get("pattern").is_none());
    // Query parameters too; an empty optional one reads as left out.
    let params = json["paths"]["/api/v1/admin/bookings"]["get"]["parameters"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let name = params
        .iter()
        .find(|p| p["name"] == "customerName")
        .cloned()
        .unwrap_or_default();
    assert_eq!(name["schema"]["pattern"], LINE_PATTERN);
    assert_eq!(name["allowEmptyValue"], true);
    // Responses are not requests.
    assert!(
        schemas["SiteDto"]["properties"]["name"]
            .get("pattern")
            .is_none()
    );
}

#[test]
fn every_reference_resolves() {
    fn refs(value: &Value, out: &mut Vec<String>) {
        match value {
            Value::Object(map) => {
                if let Some(r) = map.get("$ref").and_then(Value::as_str) {
                    out.push(r.to_owned());
                }
                map.values().for_each(|v| refs(v, out));
            }
            Value::Array(items) => items.iter().for_each(|v| refs(v, out)),
            _ => {}
        }
    }
    let json = to_json(&doc());
    let mut found = Vec::new();
    refs(&json, &mut found);
    assert!(!found.is_empty());
    let unresolved: BTreeSet<&String> = found
        .iter()
        .filter(|r| {
            r.strip_prefix('#')
                .is_none_or(|pointer| json.pointer(pointer).is_none())
        })
        .collect();
    assert!(unresolved.is_empty(), "unresolved: {unresolved:?}");
}

#[test]
fn schemas_are_in_a_form_client_generators_take() {
    // openapi-python-client drops a schema it cannot type, and with it every operation
    // whose body refers to it (with exit code 0): an array without `items`, a union
    // alternative with several types.
    fn check(value: &Value, at: &str, in_union: bool, found: &mut Vec<String>) {
        match value {
            Value::Object(map) => {
                if in_union && map.get("type").is_some_and(Value::is_array) {
                    found.push(format!("{at}: several types in one alternative"));
                }
                let array = match map.get("type") {
                    Some(Value::String(t)) => t == "array",
                    Some(Value::Array(types)) => types.iter().any(|t| t == "array"),
                    _ => false,
                };
                if array && !map.contains_key("items") {
                    found.push(format!("{at}: an array without items"));
                }
                for (key, inner) in map {
                    let union = matches!(key.as_str(), "anyOf" | "oneOf");
                    match inner {
                        Value::Array(alternatives) if union => {
                            for (i, alternative) in alternatives.iter().enumerate() {
                                check(alternative, &format!("{at}/{key}/{i}"), true, found);
                            }
                        }
                        _ => check(inner, &format!("{at}/{key}"), false, found),
                    }
                }
            }
            Value::Array(items) => {
                for (i, item) in items.iter().enumerate() {
                    check(item, &format!("{at}/{i}"), false, found);
                }
            }
            _ => {}
        }
    }
    let json = to_json(&doc());
    let mut found = Vec::new();
    check(&json, "", false, &mut found);
    assert!(found.is_empty(), "{found:#?}");

    // The values of an ignored object are described by a component, not inline.
    let schemas = &json["components"]["schemas"];
    let object = schemas[IGNORED_VALUE]["anyOf"]
        .as_array()
        .and_then(|a| a.iter().find(|s| s["type"] == "object"))
        .cloned()
        .unwrap_or_default();
    assert_eq!(
        object["additionalProperties"]["$ref"],
        format!("#/components/schemas/{IGNORED_INNER_VALUE}")
    );
    assert_eq!(
        object["propertyNames"]["pattern"],
        kairos_domain::text::LINE_PATTERN
    );
    assert!(schemas[IGNORED_INNER_VALUE]["anyOf"].is_array());
}

#[test]
fn the_hold_takes_an_optional_bearer_token_and_booking_calls_a_token() {
    let json = to_json(&doc());
    let security = |method: &str, path: &str| json["paths"][path][method]["security"].clone();
    // Anonymous, or a customer's or staff member's token: an empty requirement first.
    assert_eq!(
        security("post", "/api/v1/bookings/hold"),
        json!([{}, {BEARER: []}])
    );
    // A booking's own calls need its booking token or a bearer token.
    assert_eq!(
        security("post", "/api/v1/bookings/{id}/confirm"),
        json!([{BOOKING_TOKEN: []}, {BEARER: []}])
    );
    // An empty requirement never stands alone (public is `security: []`).
    for (path, item) in json["paths"].as_object().into_iter().flatten() {
        for (method, op) in item.as_object().into_iter().flatten() {
            let requirements = op["security"].as_array().cloned().unwrap_or_default();
            assert!(
                requirements != [json!({})],
                "{method} {path}: public is security: []"
            );
        }
    }
}

#[test]
fn the_other_parts_of_a_form_may_hold_anything() {
    // An import reads its `file` part and skips the others unread.
    let json = to_json(&doc());
    let body = &json["paths"]["/api/v1/admin/promotions/import"]["post"]["requestBody"];
    assert_eq!(
        body["content"]["multipart/form-data"]["schema"]["$ref"],
        "#/components/schemas/ImportUpload"
    );
    let upload = &json["components"]["schemas"]["ImportUpload"];
    assert_eq!(upload["additionalProperties"], json!({}));
    assert_eq!(
        upload["propertyNames"]["pattern"],
        kairos_domain::text::LINE_PATTERN
    );
}
