//! What the server enforces on every request, written into the request schemas of the
//! published document (see [`refine_requests`]).

use super::{IGNORED_INNER_VALUE, IGNORED_VALUE};
use kairos_domain::text::TextKind;
use serde_json::{Value, json};

/// Makes request schemas say what the server enforces on every request:
/// - a body that may be left out is optional (`required: false`), never JSON `null`;
/// - every free string (no enum, format or pattern of its own) of a body, a query or a path
///   follows the text rule of its field ([`kairos_domain::text`]) as a `pattern`;
/// - field names follow the one-line rule, and fields a schema does not name are ignored
///   but their text follows the rule too ([`IGNORED_VALUE`]); the other parts of a
///   multipart form are skipped unread (`crate::import::upload`): any value.
pub(super) fn refine_requests(doc: &mut Value) {
    let mut pending = Vec::new();
    let mut forms = Vec::new();
    if let Some(paths) = doc.get_mut("paths").and_then(Value::as_object_mut) {
        for item in paths.values_mut().filter_map(Value::as_object_mut) {
            for op in item.values_mut() {
                if let Some(params) = op.get_mut("parameters").and_then(Value::as_array_mut) {
                    for param in params.iter_mut() {
                        if matches!(param["in"].as_str(), Some("query" | "path")) {
                            // The query extractor reads an empty value as a parameter left out.
                            if param["in"] == "query" && param["required"] != true {
                                param["allowEmptyValue"] = json!(true);
                            }
                            let name = param["name"].as_str().unwrap_or_default().to_owned();
                            if let Some(schema) = param.get_mut("schema") {
                                refine_schema(schema, Some(&name));
                            }
                        }
                    }
                }
                let Some(body) = op.get_mut("requestBody") else {
                    continue;
                };
                let mut optional = false;
                if let Some(content) = body.get_mut("content").and_then(Value::as_object_mut) {
                    for (media_type, media) in content.iter_mut() {
                        if let Some(schema) = media.get_mut("schema") {
                            optional |= drop_null_alternative(schema);
                            refine_schema(schema, None);
                            collect_refs(schema, &mut pending);
                            if media_type.starts_with("multipart/") {
                                any_other_part(schema);
                                collect_refs(schema, &mut forms);
                            }
                        }
                    }
                }
                if optional {
                    body["required"] = json!(false);
                }
            }
        }
    }
    let Some(schemas) = doc
        .pointer_mut("/components/schemas")
        .and_then(Value::as_object_mut)
    else {
        return;
    };
    let mut seen = std::collections::BTreeSet::new();
    while let Some(name) = pending.pop() {
        if !seen.insert(name.clone()) {
            continue;
        }
        if let Some(schema) = schemas.get_mut(&name) {
            refine_schema(schema, None);
            collect_refs(schema, &mut pending);
        }
    }
    for name in forms {
        if let Some(schema) = schemas.get_mut(&name) {
            any_other_part(schema);
        }
    }
    // Described two levels deep (a recursive schema would be exact, but generated clients
    // cannot type it); deeper values are left undescribed (`{}`), and the rule holds there
    // too. In a form client generators take: one type per alternative, arrays and objects
    // with their `items` and `additionalProperties`, the second level a component of its
    // own (openapi-python-client drops an array without `items` or an inline object among
    // another object's values, and with it every operation whose body refers to it;
    // openapi-typescript reads an object without `additionalProperties` as an empty one).
    let line = kairos_domain::text::LINE_PATTERN;
    let any_value = |inner: Value| {
        json!([
            {"type": "null"},
            {"type": "boolean"},
            {"type": "number"},
            {"type": "string", "pattern": line},
            {"type": "array", "items": inner},
            {"type": "object", "propertyNames": {"pattern": line}, "additionalProperties": inner},
        ])
    };
    schemas.insert(
        IGNORED_VALUE.to_owned(),
        json!({
            "description": "A field the operation does not name: ignored, but refused like any other field if its text (at any depth) breaks the text rule (no control characters).",
            "anyOf": any_value(json!({"$ref": format!("#/components/schemas/{IGNORED_INNER_VALUE}")})),
        }),
    );
    schemas.insert(
        IGNORED_INNER_VALUE.to_owned(),
        json!({
            "description": "A value inside an ignored field (an item or a field of it): its text follows the text rule too.",
            "anyOf": any_value(json!({})),
        }),
    );
}

/// A form's parts that `schema` does not name may hold anything: they are skipped unread.
fn any_other_part(schema: &mut Value) {
    if let Some(other) = schema.get_mut("additionalProperties") {
        *other = json!({});
    }
}

/// `oneOf: [null, X]` (an `Option<T>` body) becomes `X`; true if it was so.
fn drop_null_alternative(schema: &mut Value) -> bool {
    let Some(items) = schema.get("oneOf").and_then(Value::as_array) else {
        return false;
    };
    let others: Vec<&Value> = items.iter().filter(|s| s["type"] != "null").collect();
    match others.as_slice() {
        [only] if items.len() == 2 => {
            *schema = (*only).clone();
            true
        }
        _ => false,
    }
}

/// The component names `schema` refers to.
fn collect_refs(schema: &Value, out: &mut Vec<String>) {
    match schema {
        Value::Object(map) => {
            if let Some(name) = map
                .get("$ref")
                .and_then(Value::as_str)
                .and_then(|r| r.strip_prefix("#/components/schemas/"))
            {
                out.push(name.to_owned());
            }
            map.values().for_each(|v| collect_refs(v, out));
        }
        Value::Array(items) => items.iter().for_each(|v| collect_refs(v, out)),
        _ => {}
    }
}

/// Adds the text rule of `field` to the free strings of `schema` (see [`refine_requests`]).
fn refine_schema(schema: &mut Value, field: Option<&str>) {
    let Some(map) = schema.as_object_mut() else {
        return;
    };
    let is_string = match map.get("type") {
        Some(Value::String(t)) => t == "string",
        Some(Value::Array(types)) => types.iter().any(|t| t == "string"),
        _ => false,
    };
    let free = !["enum", "format", "pattern", "const", "$ref"]
        .iter()
        .any(|k| map.contains_key(*k));
    if is_string && free {
        let kind = field.map_or(TextKind::Line, TextKind::of_field);
        // Text that must not be empty is trimmed first: it needs one visible character.
        let non_blank = map.get("minLength").and_then(Value::as_u64).unwrap_or(0) > 0;
        let pattern = if non_blank {
            kind.non_blank_pattern()
        } else {
            kind.pattern()
        };
        map.insert("pattern".to_owned(), json!(pattern));
    }
    let required: Vec<String> = map
        .get("required")
        .and_then(Value::as_array)
        .map(|r| {
            r.iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default();
    if let Some(properties) = map.get_mut("properties").and_then(Value::as_object_mut) {
        for (name, property) in properties.iter_mut() {
            // A required field is never null (validation treats null as absent).
            if required.contains(name) {
                drop_null_alternative(property);
                if let Some(Value::Array(types)) = property.get_mut("type") {
                    types.retain(|t| t != "null");
                    if let [only] = types.as_slice() {
                        let only = only.clone();
                        property["type"] = only;
                    }
                }
            }
            refine_schema(property, Some(name));
        }
        map.entry("propertyNames")
            .or_insert_with(|| json!({"pattern": kairos_domain::text::LINE_PATTERN}));
        map.entry("additionalProperties")
            .or_insert_with(|| json!({"$ref": format!("#/components/schemas/{IGNORED_VALUE}")}));
    }
    if let Some(items) = map.get_mut("items") {
        refine_schema(items, field);
    }
    for key in ["oneOf", "anyOf", "allOf"] {
        if let Some(Value::Array(alternatives)) = map.get_mut(key) {
            for alternative in alternatives {
                refine_schema(alternative, field);
            }
        }
    }
}
