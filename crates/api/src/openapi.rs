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
Every response carries the `X-RateLimit-*` headers of its tier.\n\nAdministrator roles: owner \
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
}
