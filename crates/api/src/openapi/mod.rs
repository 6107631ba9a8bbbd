//! The OpenAPI 3.1 document, generated from the handlers' annotations, and its page.
//!
//! Handlers describe themselves (`#[utoipa::path]`); what every operation shares is added
//! here once, after the routers are merged ([`finish`]): servers, security schemes, the
//! tenant header, the 429 answer and the rate limit headers, unique operation ids. The
//! JSON form ([`to_json`]) then declares the shared parameter and headers once under
//! `components` and refers to them.

use crate::error::RateLimitedBody;
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
/// The schema component of a field a request schema does not name (see
/// [`requests::refine_requests`]).
const IGNORED_VALUE: &str = "IgnoredValue";
/// The schema component of a value inside an ignored field (an item or a field of it).
const IGNORED_INNER_VALUE: &str = "IgnoredInnerValue";

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
the *promotion discount* is what promotion codes take off it; *tax* is the tax of the \
discounted price, contained in it or added on top; the *voucher applied* is what vouchers \
pay (they do not change the tax); the *total* (grand total) is what the customer pays: the \
discounted price (plus tax when prices exclude it) less what vouchers pay. The words mean \
the same in the availability preview, the hold, promotions, vouchers and every \
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
        (name = "resources", description = "Resources (rooms, equipment, vehicles, staff) and the resource add-on configurations of products (admin:read / admin:write)"),
        (name = "schedules", description = "Schedule templates, overrides, blackouts and slot regeneration"),
        (name = "availability", description = "Public availability, add-ons and site configuration"),
        (name = "bookings", description = "Public booking flow: hold, confirm, cancel, reschedule (booking token, customer or staff); staff actions"),
        (name = "booking-groups", description = "Booking groups: several activities held together with one shared expiry (public, with the group's token), planned, held and priced by staff (manage_bookings)"),
        (name = "promotions", description = "Promotions: administration (admin:write) and public listings"),
        (name = "vouchers", description = "Vouchers: administration (admin:write) and the public balance"),
        (name = "messaging", description = "Notifications: templates, automation rules, sending and tracking messages, customer preferences, the dead-letter queue. Errors in shape B; reads 100 and writes 30 per minute"),
        (name = "dead-letters", description = "The dead-letter queue: work that failed for good (messages after their last attempt; later payments and booking operations), to retry, resolve or skip. Errors in shape B"),
        (name = "gift-cards", description = "Gift card products: administration (admin:read / admin:write) and the public catalogue"),
        (name = "payments", description = "Payments: provider credentials (admin), payments through the card (cardpay) and bank (bankpay) providers"),
        (name = "no-shows", description = "Daily operations: no-shows and their tracking record, fees on bookings (no-show, damage, late cancellation) charged to the card on file, owed or waived, the tenant's no-show fee policy, customers blocked after a no-show. Fees are integer minor units"),
        (name = "issues", description = "Customer issues: logged against a booking with their category's priority and response target, updated to resolution, compensated by a credit voucher or a refund"),
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

/// Marks each operation of `doc` with `read` (GET) or `write` (any other method).
pub fn mark_tier_by_method(doc: &mut utoipa::openapi::OpenApi, read: &str, write: &str) {
    for (_, method, op) in operations_mut(doc) {
        let tier = if method == "get" { read } else { write };
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
        .schema(Some(
            ObjectBuilder::new()
                .schema_type(Type::Integer)
                .minimum(Some(0)),
        ))
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
        params.retain(|p| !matches!(p, RefOr::T(p) if p.name == crate::extract::TENANT_HEADER));
        if tenant_scoped(path) {
            params.insert(0, RefOr::T(required_tenant.clone()));
        } else if path == "/api/auth/login" {
            params.insert(0, RefOr::T(optional_tenant.clone()));
        }
        // A header, path or query value is text: never JSON null, whatever the Rust type.
        for param in params.iter_mut() {
            if let RefOr::T(param) = param
                && let Some(RefOr::T(schema)) = &mut param.schema
            {
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
                        .or_insert_with(|| RefOr::T(rate_limit_header(description)));
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
    requests::refine_requests(&mut doc);
    errors::add_shared_errors(&mut doc);
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

mod errors;
mod requests;
pub mod schemas;

/// This document, as JSON.
#[utoipa::path(get, path = "/api/openapi.json", tag = "operations", security(()),
    responses((status = 200, description = "The OpenAPI 3.1 document", content_type = "application/json")))]
pub async fn openapi_json() -> axum::Json<Value> {
    axum::Json(crate::router::openapi_json())
}

#[cfg(test)]
mod tests;
