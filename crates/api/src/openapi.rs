//! The OpenAPI 3.1 document, generated from the handlers' annotations, and its page.
//!
//! Handlers describe themselves (`#[utoipa::path]`); what every operation shares is added
//! here once, after the routers are merged ([`finish`]): servers, security schemes, the
//! tenant header, the 429 answer and the rate limit headers, unique operation ids. The
//! JSON form ([`to_json`]) then declares the shared parameter and headers once under
//! `components` and refers to them.

use crate::error::RateLimitedBody;
use kairos_domain::text::TextKind;
use serde_json::{Map, Value, json};
use utoipa::openapi::header::HeaderBuilder;
use utoipa::openapi::path::{Operation, ParameterBuilder, ParameterIn};
use utoipa::openapi::schema::SchemaType;
use utoipa::openapi::security::{ApiKey, ApiKeyValue, Http, HttpAuthScheme, SecurityScheme};
use utoipa::openapi::server::ServerBuilder;
use utoipa::openapi::{
    ContentBuilder, ObjectBuilder, Ref, RefOr, Required, ResponseBuilder, Schema, Type,
};
use utoipa::{OpenApi, PartialSchema, ToSchema};

/// Security scheme names, as handlers write them in `security(...)`.
pub const BEARER: &str = "bearer";
pub const BOOKING_TOKEN: &str = "bookingToken";

/// The response component every operation's 429 refers to.
const RATE_LIMITED: &str = "RateLimited";
/// The parameter component of the tenant header.
const TENANT_PARAM: &str = "TenantId";
/// The schema component of a field a request schema does not name (see [`refine_requests`]).
const IGNORED_VALUE: &str = "IgnoredValue";

/// Error answers every operation of a kind can give, declared once under
/// `components.responses` (status, component name, description) and added by [`to_json`]
/// to each operation that can give them and does not describe them itself.
const SHARED_ERRORS: [(&str, &str, &str); 8] = [
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

/// Operation extension naming the rate limit tier (set per router, see `crate::router`).
pub const TIER_EXTENSION: &str = "x-rate-limit-tier";

/// The rate limit headers of every response (see `crate::rate_limit::enforce`).
const RATE_LIMIT_HEADERS: [(&str, &str); 3] = [
    (
        "X-RateLimit-Limit",
        "Requests allowed per 60-second window in this operation's tier. Absent when the tier is unlimited.",
    ),
    (
        "X-RateLimit-Remaining",
        "Requests left in the current window.",
    ),
    (
        "X-RateLimit-Reset",
        "When the current window ends, in seconds since the Unix epoch.",
    ),
];

/// Document-level facts; paths come from the routers (see `crate::router`).
#[derive(OpenApi)]
#[openapi(
    info(
        title = "Kairos booking API",
        description = "Multi-tenant booking engine for activity venues. Every request under \
`/api/v1` names its tenant in the `x-tenant-id` header (administrator login may send it in \
the body instead). Administrator endpoints need a bearer token from `POST /api/auth/login`; \
customer endpoints a token from customer register or login; a booking made without an \
account is reached with the `x-booking-token` returned by its hold. Errors use shape A \
`{error, message, code, details?}`; 429 uses shape B `{statusCode, message, retryAfter}`. \
Every response carries the `X-RateLimit-*` headers of its tier.\n\nPrices: amounts are major units \
of the currency named beside them. The *subtotal* is what the items cost as priced, before \
any discount (tax included when the product's prices include tax, without it otherwise); \
*tax* is the tax contained in it or added on top; the *total* (grand total) is what the \
customer pays. The words mean the same in the availability preview, the hold and every \
booking.\n\nAdministrator roles: owner \
(every permission, including admin:users:manage), manager (bookings, capacity and \
cancellation overrides, customers, catalog read/write, manage_bookings), front_desk \
(admin:bookings:read/write/create, admin:customers:read, admin:read, manage_bookings), \
viewer (admin:bookings:read, admin:customers:read, admin:read).",
        version = env!("CARGO_PKG_VERSION"),
    ),
    tags(
        (name = "auth", description = "Administrator authentication"),
        (name = "staff", description = "Staff accounts and roles (owners)"),
        (name = "customers", description = "Customer accounts"),
        (name = "catalog", description = "Sites, products, variants and add-ons (admin:read / admin:write)"),
        (name = "schedules", description = "Schedule templates, overrides, blackouts and slot regeneration"),
        (name = "availability", description = "Public availability, add-ons and site configuration"),
        (name = "bookings", description = "Public booking flow: hold, confirm, cancel, reschedule (booking token, customer or staff); staff actions"),
        (name = "promotions", description = "Promotions: administration (admin:write) and public listings"),
        (name = "vouchers", description = "Vouchers: administration (admin:write) and the public balance"),
        (name = "admin-bookings", description = "Booking administration: search, creation, details, notes, status and customer changes, customer history"),
        (name = "operations", description = "Health, readiness, metrics, this document"),
    )
)]
pub struct ApiDoc;

/// The operations of a document with their path and method.
fn operations_mut(
    doc: &mut utoipa::openapi::OpenApi,
) -> impl Iterator<Item = (&str, &'static str, &mut Operation)> {
    doc.paths.paths.iter_mut().flat_map(|(path, item)| {
        [
            ("get", &mut item.get),
            ("put", &mut item.put),
            ("post", &mut item.post),
            ("delete", &mut item.delete),
            ("options", &mut item.options),
            ("head", &mut item.head),
            ("patch", &mut item.patch),
            ("trace", &mut item.trace),
        ]
        .into_iter()
        .filter_map(move |(method, op)| op.as_mut().map(|op| (path.as_str(), method, op)))
    })
}

/// Marks every operation of a router with its rate limit tier (before the routers merge).
pub fn mark_tier(doc: &mut utoipa::openapi::OpenApi, tier: &str) {
    for (_, _, op) in operations_mut(doc) {
        op.extensions
            .get_or_insert_with(Default::default)
            .insert(TIER_EXTENSION.to_owned(), json!(tier));
    }
}

/// Whether requests to `path` must name their tenant.
fn tenant_scoped(path: &str) -> bool {
    path.starts_with("/api/v1/")
}

fn tenant_parameter(required: bool) -> utoipa::openapi::path::Parameter {
    ParameterBuilder::new()
        .name(crate::extract::TENANT_HEADER)
        .parameter_in(ParameterIn::Header)
        .required(if required { Required::True } else { Required::False })
        .description(Some(if required {
            "The tenant (venue operator) the request is for. Missing: 400 VALIDATION_ERROR; unknown or inactive: 404 NOT_FOUND."
        } else {
            "The tenant, when `tenantId` is not in the body."
        }))
        .schema(Some(
            ObjectBuilder::new()
                .schema_type(Type::String)
                .min_length(Some(1))
                .max_length(Some(64))
                .examples([json!("demo")]),
        ))
        .build()
}

fn rate_limit_header(description: &str) -> utoipa::openapi::header::Header {
    HeaderBuilder::new()
        .schema(
            ObjectBuilder::new()
                .schema_type(Type::Integer)
                .minimum(Some(0)),
        )
        .description(Some(description))
        .build()
}

/// Adds what every operation shares. Handlers declare their own security: `security(())`
/// alone means public and becomes `security: []`; an operation that declares nothing is
/// left without, which `redocly lint` (rule security-defined) and the tests refuse.
pub fn finish(doc: &mut utoipa::openapi::OpenApi) {
    doc.servers = Some(vec![
        ServerBuilder::new()
            .url("/")
            .description(Some("The server that serves this document"))
            .build(),
    ]);

    let components = doc.components.get_or_insert_with(Default::default);
    let mut bearer = Http::new(HttpAuthScheme::Bearer);
    bearer.bearer_format = Some("JWT".to_owned());
    bearer.description = Some(
        "An administrator token from `POST /api/auth/login` or a customer token from customer \
         register or login. Tokens are bound to the tenant they were issued for."
            .to_owned(),
    );
    components.add_security_scheme(BEARER, SecurityScheme::Http(bearer));
    components.add_security_scheme(
        BOOKING_TOKEN,
        SecurityScheme::ApiKey(ApiKey::Header(ApiKeyValue::with_description(
            crate::bookings::BOOKING_TOKEN_HEADER,
            "The `bookingToken` of the hold response; authorises later public calls on that booking.",
        ))),
    );
    let mut schemas = Vec::new();
    RateLimitedBody::schemas(&mut schemas);
    schemas.push((
        RateLimitedBody::name().into_owned(),
        RateLimitedBody::schema(),
    ));
    for (name, schema) in schemas {
        components.schemas.entry(name).or_insert(schema);
    }
    let mut rate_limited = ResponseBuilder::new()
        .description("RATE_LIMITED (shape B): too many requests in this window; retry after `retryAfter` seconds.")
        .content(
            "application/json",
            ContentBuilder::new()
                .schema(Some(Ref::from_schema_name(RateLimitedBody::name())))
                .build(),
        )
        .header(
            "Retry-After",
            rate_limit_header("Seconds until the window resets."),
        );
    for (name, description) in RATE_LIMIT_HEADERS {
        rate_limited = rate_limited.header(name, rate_limit_header(description));
    }
    components
        .responses
        .insert(RATE_LIMITED.to_owned(), RefOr::T(rate_limited.build()));

    let required_tenant = tenant_parameter(true);
    let optional_tenant = tenant_parameter(false);
    for (path, method, op) in operations_mut(doc) {
        // Tenant header: declared here, not per handler.
        let params = op.parameters.get_or_insert_with(Vec::new);
        params.retain(|p| p.name != crate::extract::TENANT_HEADER);
        if tenant_scoped(path) {
            params.insert(0, required_tenant.clone());
        } else if path == "/api/auth/login" {
            params.insert(0, optional_tenant.clone());
        }
        // A header, path or query value is text: never JSON null, whatever the Rust type.
        for param in params.iter_mut() {
            if let Some(RefOr::T(schema)) = &mut param.schema {
                drop_null(schema);
            }
        }
        if params.is_empty() {
            op.parameters = None;
        }

        // `security(())` alone: public.
        if let Some(security) = &op.security {
            let public = security
                .iter()
                .all(|r| serde_json::to_value(r).is_ok_and(|v| v == json!({})));
            if public {
                op.security = Some(Vec::new());
            }
        }

        // Unique operation ids: `<tag>_<handler>`.
        let tag = op
            .tags
            .as_ref()
            .and_then(|t| t.first())
            .map_or("api", String::as_str)
            .replace('-', "_");
        let id = op.operation_id.clone().unwrap_or_else(|| {
            format!(
                "{method}_{}",
                path.trim_matches('/').replace(['/', '{', '}', '.'], "_")
            )
        });
        if !id.starts_with(&format!("{tag}_")) {
            op.operation_id = Some(format!("{tag}_{id}"));
        }

        // 429 and the rate limit headers on every response.
        let tier = op
            .extensions
            .as_ref()
            .and_then(|e| e.get(TIER_EXTENSION))
            .and_then(Value::as_str)
            .map(str::to_owned);
        for (status, response) in op.responses.responses.iter_mut() {
            if let RefOr::T(response) = response {
                if response.description.is_empty() {
                    response.description = status
                        .parse::<u16>()
                        .ok()
                        .and_then(|s| http::StatusCode::from_u16(s).ok())
                        .and_then(|s| s.canonical_reason())
                        .unwrap_or("Response")
                        .to_owned();
                }
                for (name, description) in RATE_LIMIT_HEADERS {
                    response
                        .headers
                        .entry(name.to_owned())
                        .or_insert_with(|| rate_limit_header(description));
                }
            }
        }
        let mut reference = Ref::from_response_name(RATE_LIMITED);
        if let Some(tier) = tier {
            reference.description = format!(
                "RATE_LIMITED (shape B): too many requests in this window of the {tier} tier; retry after `retryAfter` seconds."
            );
        }
        op.responses
            .responses
            .insert("429".to_owned(), RefOr::Ref(reference));
    }
}

/// Removes `null` from a schema's types (`Option<T>` parameters render as `[T, null]`).
fn drop_null(schema: &mut Schema) {
    let schema_type = match schema {
        Schema::Object(o) => &mut o.schema_type,
        Schema::Array(a) => &mut a.schema_type,
        _ => return,
    };
    if let SchemaType::Array(types) = schema_type {
        types.retain(|t| *t != Type::Null);
        if let [only] = types.as_slice() {
            *schema_type = SchemaType::Type(only.clone());
        }
    }
}

/// The document as JSON, with the tenant header and the rate limit headers declared once
/// under `components` and referred to everywhere else.
pub fn to_json(doc: &utoipa::openapi::OpenApi) -> Value {
    let mut doc = serde_json::to_value(doc).unwrap_or(Value::Null);
    refine_requests(&mut doc);
    add_shared_errors(&mut doc);
    let tenant = serde_json::to_value(tenant_parameter(true)).unwrap_or(Value::Null);
    let headers: Vec<(&str, Value)> = RATE_LIMIT_HEADERS
        .iter()
        .map(|(name, description)| {
            (
                *name,
                serde_json::to_value(rate_limit_header(description)).unwrap_or(Value::Null),
            )
        })
        .collect();
    let tenant_ref = json!({"$ref": format!("#/components/parameters/{TENANT_PARAM}")});
    let header_ref = |name: &str| json!({"$ref": format!("#/components/headers/{name}")});
    let replace_headers = |response: &mut Value| {
        if let Some(map) = response.get_mut("headers").and_then(Value::as_object_mut) {
            for (name, header) in &headers {
                if map.get(*name) == Some(header) {
                    map.insert((*name).to_owned(), header_ref(name));
                }
            }
        }
    };
    if let Some(paths) = doc.get_mut("paths").and_then(Value::as_object_mut) {
        for item in paths.values_mut() {
            let Some(item) = item.as_object_mut() else {
                continue;
            };
            for op in item.values_mut() {
                if let Some(params) = op.get_mut("parameters").and_then(Value::as_array_mut) {
                    for p in params.iter_mut() {
                        if *p == tenant {
                            *p = tenant_ref.clone();
                        }
                    }
                }
                if let Some(responses) = op.get_mut("responses").and_then(Value::as_object_mut) {
                    responses.values_mut().for_each(replace_headers);
                }
            }
        }
    }
    if let Some(components) = doc.get_mut("components").and_then(Value::as_object_mut) {
        if let Some(responses) = components
            .get_mut("responses")
            .and_then(Value::as_object_mut)
        {
            responses.values_mut().for_each(replace_headers);
        }
        let mut parameters = Map::new();
        parameters.insert(TENANT_PARAM.to_owned(), tenant);
        components.insert("parameters".to_owned(), Value::Object(parameters));
        let headers: Map<String, Value> = headers
            .into_iter()
            .map(|(name, h)| (name.to_owned(), h))
            .collect();
        components.insert("headers".to_owned(), Value::Object(headers));
    }
    doc
}

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
fn add_shared_errors(doc: &mut Value) {
    let error_body =
        json!({"$ref": format!("#/components/schemas/{}", crate::error::ErrorBody::name())});
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
                let Some(responses) = op.get_mut("responses").and_then(Value::as_object_mut) else {
                    continue;
                };
                for (status, component, _) in SHARED_ERRORS {
                    if statuses.contains(&status) && !responses.contains_key(status) {
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
        for (_, component, description) in SHARED_ERRORS {
            responses.insert(
                component.to_owned(),
                json!({
                    "description": description,
                    "headers": headers,
                    "content": {"application/json": {"schema": error_body}},
                }),
            );
        }
    }
}

/// Makes request schemas say what the server enforces on every request:
/// - a body that may be left out is optional (`required: false`), never JSON `null`;
/// - every free string (no enum, format or pattern of its own) of a body, a query or a path
///   follows the text rule of its field ([`kairos_domain::text`]) as a `pattern`;
/// - field names follow the one-line rule, and fields a schema does not name are ignored
///   but their text follows the rule too ([`IGNORED_VALUE`]).
fn refine_requests(doc: &mut Value) {
    let mut pending = Vec::new();
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
                    for media in content.values_mut() {
                        if let Some(schema) = media.get_mut("schema") {
                            optional |= drop_null_alternative(schema);
                            refine_schema(schema, None);
                            collect_refs(schema, &mut pending);
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
    // Described two levels deep (a recursive schema would be exact, but generated clients
    // cannot type it); deeper values are left undescribed, and the rule holds there too.
    let line = kairos_domain::text::LINE_PATTERN;
    let scalar = json!({"anyOf": [
        {"type": ["null", "boolean", "number"]},
        {"type": "string", "pattern": line},
        {"type": "array"},
        {"type": "object", "propertyNames": {"pattern": line}},
    ]});
    schemas.insert(
        IGNORED_VALUE.to_owned(),
        json!({
            "description": "A field the operation does not name: ignored, but refused like any other field if its text (at any depth) breaks the text rule (no control characters).",
            "anyOf": [
                {"type": ["null", "boolean", "number"]},
                {"type": "string", "pattern": line},
                {"type": "array", "items": scalar},
                {"type": "object", "propertyNames": {"pattern": line}, "additionalProperties": scalar},
            ],
        }),
    );
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

/// Documentation-only schemas for values the code keeps as text (so that one 400 can name
/// every bad field) but that only take known values.
pub mod schemas {
    use std::borrow::Cow;
    use utoipa::openapi::{ObjectBuilder, RefOr, Schema, Type};
    use utoipa::{PartialSchema, ToSchema};

    /// Declares `$schema`, the named string enum `$name` listing every value of the domain
    /// enum `$domain` (built from its `ALL`, so the two cannot drift). Use with
    /// `#[schema(value_type = $schema)]` (or `Option<$schema>`) on a `String` field.
    macro_rules! closed_set {
        ($(#[$meta:meta])* $schema:ident = $domain:ty, $name:literal, $description:literal) => {
            $(#[$meta])*
            pub struct $schema;

            impl PartialSchema for $schema {
                fn schema() -> RefOr<Schema> {
                    ObjectBuilder::new()
                        .schema_type(Type::String)
                        .description(Some($description))
                        .enum_values(Some(<$domain>::ALL.iter().map(|v| v.as_str())))
                        .into()
                }
            }

            impl ToSchema for $schema {
                fn name() -> Cow<'static, str> {
                    Cow::Borrowed($name)
                }
            }
        };
    }

    /// Declares `$form`, named `$name`: the create form of the request body `$input`, whose
    /// update form leaves every field optional. The fields listed are required, and never
    /// `null`. Use as `request_body = $form` on the create operation.
    macro_rules! create_form {
        ($(#[$meta:meta])* $form:ident = $input:ty, $name:literal, [$($field:literal),+ $(,)?]) => {
            $(#[$meta])*
            pub struct $form;

            impl utoipa::PartialSchema for $form {
                fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::Schema> {
                    $crate::openapi::schemas::with_required(
                        <$input as utoipa::PartialSchema>::schema(),
                        &[$($field),+],
                    )
                }
            }

            impl utoipa::ToSchema for $form {
                fn name() -> std::borrow::Cow<'static, str> {
                    std::borrow::Cow::Borrowed($name)
                }

                fn schemas(
                    schemas: &mut Vec<(String, utoipa::openapi::RefOr<utoipa::openapi::Schema>)>,
                ) {
                    <$input as utoipa::ToSchema>::schemas(schemas);
                }
            }
        };
    }
    pub(crate) use create_form;

    /// Declares `$schema`, the named string enum `$name` of `$values`, for values that are
    /// not a domain enum (an export format, say).
    macro_rules! string_enum {
        ($schema:ident, $name:literal, [$($value:literal),+ $(,)?]) => {
            pub struct $schema;

            impl utoipa::PartialSchema for $schema {
                fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::Schema> {
                    utoipa::openapi::ObjectBuilder::new()
                        .schema_type(utoipa::openapi::Type::String)
                        .enum_values(Some([$($value),+]))
                        .into()
                }
            }

            impl utoipa::ToSchema for $schema {
                fn name() -> std::borrow::Cow<'static, str> {
                    std::borrow::Cow::Borrowed($name)
                }
            }
        };
    }
    pub(crate) use string_enum;

    /// `schema` (an object) with `fields` required and not nullable.
    pub fn with_required(schema: RefOr<Schema>, fields: &[&str]) -> RefOr<Schema> {
        let RefOr::T(Schema::Object(mut object)) = schema else {
            return schema;
        };
        for field in fields {
            if let Some(property) = object.properties.get_mut(*field) {
                match property {
                    RefOr::T(Schema::OneOf(one_of)) => {
                        let others: Vec<_> = one_of
                            .items
                            .iter()
                            .filter(|item| {
                                !matches!(item, RefOr::T(Schema::Object(o))
                                    if o.schema_type == utoipa::openapi::schema::SchemaType::Type(Type::Null))
                            })
                            .cloned()
                            .collect();
                        if let [only] = others.as_slice() {
                            *property = only.clone();
                        }
                    }
                    RefOr::T(schema) => super::drop_null(schema),
                    RefOr::Ref(_) => {}
                }
            }
            if !object.required.iter().any(|r| r == field) {
                object.required.push((*field).to_owned());
            }
        }
        RefOr::T(Schema::Object(object))
    }

    closed_set!(
        BookingStatusSchema = kairos_domain::bookings::BookingStatus,
        "BookingStatus",
        "Booking status (see the status machine)."
    );
    closed_set!(
        CancellationPolicySchema = kairos_domain::catalog::CancellationPolicy,
        "CancellationPolicy",
        "How long before its start a customer may still cancel or move a confirmed booking online: standard (24 h), flexible (until the start) or strict (72 h)."
    );
    closed_set!(
        PriceTypeSchema = kairos_domain::pricing::PriceType,
        "PriceType",
        "How a product's base price applies: per person or per booking."
    );
    closed_set!(
        SlotPolicySchema = kairos_domain::catalog::SlotPolicyKind,
        "SlotPolicy",
        "How a product's slots are laid out in its opening hours: every slotIntervalMin minutes, or at its fixedSlotTimes."
    );
    closed_set!(
        VariantPriceModeSchema = kairos_domain::catalog::VariantPriceMode,
        "VariantPriceMode",
        "How a variant's price relates to its product's: none (the product's), adjustment (added, may be negative) or override (instead)."
    );
    closed_set!(
        AddonTypeSchema = kairos_domain::catalog::AddonType,
        "AddonType",
        "What an add-on is."
    );
    closed_set!(
        AddonModeSchema = kairos_domain::pricing::AddonMode,
        "AddonMode",
        "How an add-on is chosen: yesno (quantity 1), free_qty (any quantity) or per_participant (one per person)."
    );
    closed_set!(
        AddonPriceTypeSchema = kairos_domain::catalog::AddonPriceType,
        "AddonPriceType",
        "How an add-on's amount applies: fixed (per unit), per_person (per person per unit) or percentage (of the base price, per unit)."
    );
    closed_set!(
        ScopeTypeSchema = kairos_domain::scheduling::ScopeType,
        "ScopeType",
        "Whether a schedule belongs to a site (every product of the site) or one product."
    );
    closed_set!(
        RecurrenceKindSchema = kairos_domain::scheduling::RecurrenceKind,
        "RecurrenceKind",
        "How a template repeats: none (once, on validFrom), daily, weekly (byDay or dayOfWeek), monthly (byMonthDay) or annual (byMonth and byMonthDay)."
    );
    closed_set!(
        DateRecurrenceSchema = kairos_domain::scheduling::DateRecurrence,
        "DateRecurrence",
        "How an override or blackout repeats: none, or annual (the same month days every year)."
    );
    closed_set!(
        BlackoutKindSchema = kairos_domain::scheduling::BlackoutKind,
        "BlackoutKind",
        "Why a blackout blocks time (reporting only)."
    );
    closed_set!(
        BookingSourceSchema = kairos_domain::bookings::BookingSource,
        "BookingSource",
        "Where a booking was made: public (a customer's hold) or admin (staff creation)."
    );
    closed_set!(
        PaymentMethodSchema = kairos_domain::payments::PaymentMethod,
        "PaymentMethod",
        "How a booking is confirmed: poa (pay on arrival: tentative), cardpay or bankpay (online, with paymentMethodId: confirmed), comp or invoice (staff only: confirmed)."
    );
    closed_set!(
        PaymentStatusSchema = kairos_domain::payments::PaymentStatus,
        "PaymentStatus",
        "Where a payment stands."
    );
    closed_set!(
        NoteCategorySchema = kairos_domain::bookings::NoteCategory,
        "NoteCategory",
        "What a booking note is about."
    );
    closed_set!(
        NotePrioritySchema = kairos_domain::bookings::NotePriority,
        "NotePriority",
        "How urgent a booking note is."
    );
    closed_set!(
        PromotionTypeSchema = kairos_domain::promotions::PromotionType,
        "PromotionType",
        "percentage (percent off), fixed_amount (an amount off), buy_x_get_y (of every buy_quantity + discount_value people, discount_value go free) or bundle (every bundle_size people pay discount_value together)."
    );
    closed_set!(
        PromotionStatusSchema = kairos_domain::promotions::PromotionStatus,
        "PromotionStatus",
        "active (switched on and inside its validity window), expired (ended), upcoming (starts later) or all."
    );
    closed_set!(
        VoucherTypeSchema = kairos_domain::vouchers::VoucherType,
        "VoucherType",
        "single_use (its first use redeems it), multi_use (spent over several bookings), gift_card (bought as a gift; GIFT-XXXX-XXXX) or loyalty_credit (given by the venue)."
    );
    closed_set!(
        RoleSchema = kairos_domain::auth::Role,
        "Role",
        "A staff role: owner, manager, front_desk or viewer (see the document's description for their permissions)."
    );

    /// An email address, or the empty string (which clears it, like `null`).
    pub struct EmailOrEmptySchema;

    impl PartialSchema for EmailOrEmptySchema {
        fn schema() -> RefOr<Schema> {
            utoipa::openapi::schema::AnyOfBuilder::new()
                .item(
                    ObjectBuilder::new()
                        .schema_type(Type::String)
                        .format(Some(utoipa::openapi::SchemaFormat::KnownFormat(
                            utoipa::openapi::KnownFormat::Email,
                        )))
                        .max_length(Some(254)),
                )
                .item(
                    ObjectBuilder::new()
                        .schema_type(Type::String)
                        .max_length(Some(0)),
                )
                .description(Some("An email address, or empty to clear it (like null)."))
                .into()
        }
    }

    impl ToSchema for EmailOrEmptySchema {
        fn name() -> Cow<'static, str> {
            Cow::Borrowed("EmailOrEmpty")
        }
    }

    /// A consent that must be given: `true`.
    pub struct AcceptedSchema;

    impl PartialSchema for AcceptedSchema {
        fn schema() -> RefOr<Schema> {
            ObjectBuilder::new()
                .schema_type(Type::Boolean)
                .enum_values(Some([true]))
                .description(Some("Must be true."))
                .into()
        }
    }

    impl ToSchema for AcceptedSchema {
        fn name() -> Cow<'static, str> {
            Cow::Borrowed("Accepted")
        }
    }

    /// A product label code: lower_snake_case, 1 to 40 characters.
    pub struct LabelCodeSchema;

    impl PartialSchema for LabelCodeSchema {
        fn schema() -> RefOr<Schema> {
            ObjectBuilder::new()
                .schema_type(Type::String)
                .pattern(Some("^[a-z0-9_]{1,40}$"))
                .examples([serde_json::json!("beginner_friendly")])
                .into()
        }
    }

    impl ToSchema for LabelCodeSchema {
        fn name() -> Cow<'static, str> {
            Cow::Borrowed("LabelCode")
        }
    }

    closed_set!(
        ActorKindSchema = kairos_domain::auth::ActorKind,
        "ActorKind",
        "Who performed a change: admin (a staff member), customer or system."
    );
}

/// This document, as JSON.
#[utoipa::path(get, path = "/api/openapi.json", tag = "operations", security(()),
    responses((status = 200, description = "The OpenAPI 3.1 document", content_type = "application/json")))]
pub async fn openapi_json() -> axum::Json<Value> {
    axum::Json(crate::router::openapi_json())
}

#[cfg(test)]
mod tests {
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
        for (_, component, _) in SHARED_ERRORS {
            assert_eq!(
                json["components"]["responses"][component]["content"]["application/json"]["schema"]
                    ["$ref"],
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
            TextKind::Line.non_blank_pattern(),
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
}
