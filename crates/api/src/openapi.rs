//! The OpenAPI 3.1 document, generated from the handlers' annotations, and its page.

use utoipa::openapi::security::{Http, HttpAuthScheme, SecurityScheme};
use utoipa::{Modify, OpenApi};

/// Document-level facts; paths come from the routers (see `crate::router`).
#[derive(OpenApi)]
#[openapi(
    info(
        title = "Kairos booking API",
        description = "Multi-tenant booking engine for activity venues. Every request except \
administrator login names its tenant in the `x-tenant-id` header. Administrator endpoints \
need a bearer token from `POST /api/auth/login`; customer endpoints a token from customer \
register or login. Errors use shape A `{error, message, code, details?}`; 429 uses shape B \
`{statusCode, message, retryAfter}`.\n\nAdministrator roles: owner (every permission, \
including admin:users:manage), manager (bookings, capacity and cancellation overrides, \
customers, catalog read/write, manage_bookings), front_desk (admin:bookings:read/write/create, \
admin:customers:read, admin:read, manage_bookings), viewer (admin:bookings:read, \
admin:customers:read, admin:read).",
        version = env!("CARGO_PKG_VERSION"),
    ),
    modifiers(&BearerScheme),
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

struct BearerScheme;

impl Modify for BearerScheme {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let mut scheme = Http::new(HttpAuthScheme::Bearer);
        scheme.bearer_format = Some("JWT".to_owned());
        openapi
            .components
            .get_or_insert_with(Default::default)
            .add_security_scheme("bearer", SecurityScheme::Http(scheme));
    }
}

/// This document, as JSON.
#[utoipa::path(get, path = "/api/openapi.json", tag = "operations",
    responses((status = 200, description = "The OpenAPI 3.1 document", content_type = "application/json")))]
pub async fn openapi_json() -> axum::Json<utoipa::openapi::OpenApi> {
    axum::Json(crate::router::openapi())
}
