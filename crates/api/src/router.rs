//! The router: every route with its rate limit tier, documentation and middleware.
//!
//! Routes are registered through `utoipa_axum::routes!`, which takes the path from the
//! handler's `#[utoipa::path]`: a route cannot be added without its documentation.

use crate::error::{ApiError, code};
use crate::state::AppState;
use crate::{auth, availability, bookings, catalog, customers, operations, rate_limit, scheduling};
use axum::extract::Request;
use axum::http::{HeaderName, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::{Extension, Router};
use std::sync::OnceLock;
use std::time::Duration;
use tower_http::catch_panic::CatchPanicLayer;
use tower_http::request_id::{MakeRequestUuid, PropagateRequestIdLayer, SetRequestIdLayer};
use tower_http::timeout::TimeoutLayer;
use tower_http::trace::{DefaultOnResponse, TraceLayer};
use utoipa::OpenApi;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;
use utoipa_swagger_ui::{Config, SwaggerUi};

const REQUEST_ID: HeaderName = HeaderName::from_static("x-request-id");

/// Every API route, grouped by rate limit tier (spec Part A section 8).
pub fn api_routes() -> OpenApiRouter<AppState> {
    let strict = OpenApiRouter::new()
        .routes(routes!(auth::login::login))
        .routes(routes!(customers::register))
        .routes(routes!(customers::login))
        .layer(middleware::from_fn(rate_limit_strict));
    let standard = OpenApiRouter::new()
        .routes(routes!(auth::users::list_users, auth::users::create_user))
        .routes(routes!(
            auth::users::get_user,
            auth::users::update_user,
            auth::users::deactivate_user
        ))
        .routes(routes!(customers::get_me, customers::update_me))
        .routes(routes!(catalog::list_sites, catalog::create_site))
        .routes(routes!(
            catalog::get_site,
            catalog::update_site,
            catalog::deactivate_site
        ))
        .routes(routes!(catalog::list_products, catalog::create_product))
        .routes(routes!(
            catalog::get_product,
            catalog::update_product,
            catalog::deactivate_product
        ))
        .routes(routes!(catalog::list_variants, catalog::create_variant))
        .routes(routes!(
            catalog::get_variant,
            catalog::update_variant,
            catalog::deactivate_variant
        ))
        .routes(routes!(catalog::list_addons, catalog::create_addon))
        .routes(routes!(
            catalog::get_addon,
            catalog::update_addon,
            catalog::deactivate_addon
        ))
        .routes(routes!(
            scheduling::list_templates,
            scheduling::create_template
        ))
        .routes(routes!(
            scheduling::get_template,
            scheduling::update_template,
            scheduling::delete_template
        ))
        .routes(routes!(
            scheduling::list_overrides,
            scheduling::create_override
        ))
        .routes(routes!(
            scheduling::get_override,
            scheduling::update_override,
            scheduling::delete_override
        ))
        .routes(routes!(
            scheduling::list_blackouts,
            scheduling::create_blackout
        ))
        .routes(routes!(
            scheduling::get_blackout,
            scheduling::update_blackout,
            scheduling::delete_blackout
        ))
        .routes(routes!(scheduling::preview_regeneration))
        .routes(routes!(scheduling::regenerate))
        .routes(routes!(bookings::public::hold))
        .routes(routes!(bookings::public::confirm))
        .routes(routes!(bookings::public::cancel))
        .routes(routes!(bookings::public::reschedule))
        .routes(routes!(bookings::public::mark_arrived))
        .routes(routes!(bookings::public::mark_paid))
        .routes(routes!(bookings::public::mark_no_show))
        .routes(routes!(bookings::admin::search, bookings::admin::create))
        .routes(routes!(bookings::admin::detail))
        .routes(routes!(bookings::admin::set_status))
        .routes(routes!(bookings::admin::update_customer))
        .routes(routes!(
            bookings::notes::list_notes,
            bookings::notes::add_note
        ))
        .routes(routes!(
            bookings::notes::update_note,
            bookings::notes::delete_note
        ))
        .routes(routes!(bookings::history::customer_bookings))
        .routes(routes!(bookings::history::my_bookings))
        .layer(middleware::from_fn(rate_limit_standard));
    let relaxed = OpenApiRouter::new()
        .routes(routes!(availability::get_availability))
        .routes(routes!(availability::product_addons))
        .routes(routes!(availability::site_config))
        .routes(routes!(bookings::public::get_booking))
        .routes(routes!(operations::healthz))
        .routes(routes!(operations::readyz))
        .routes(routes!(operations::metrics))
        .routes(routes!(crate::openapi::openapi_json))
        .layer(middleware::from_fn(rate_limit_relaxed));
    OpenApiRouter::with_openapi(crate::openapi::ApiDoc::openapi())
        .merge(strict)
        .merge(standard)
        .merge(relaxed)
}

/// The OpenAPI document of [`api_routes`].
pub fn openapi() -> utoipa::openapi::OpenApi {
    static DOC: OnceLock<utoipa::openapi::OpenApi> = OnceLock::new();
    DOC.get_or_init(|| api_routes().into_openapi()).clone()
}

/// The whole HTTP application.
pub fn router(state: AppState) -> Router {
    let (api, _) = api_routes().split_for_parts();
    let body_limit = state.config.body_limit_bytes;
    let docs: Router<AppState> = SwaggerUi::new("/docs")
        .config(Config::from("/api/openapi.json"))
        .into();
    api.merge(docs)
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .layer(middleware::from_fn(availability::invalidate_on_write))
        .layer(middleware::from_fn(operations::track))
        .layer(axum::extract::DefaultBodyLimit::max(body_limit))
        .layer(TimeoutLayer::with_status_code(
            StatusCode::SERVICE_UNAVAILABLE,
            Duration::from_secs(30),
        ))
        .layer(Extension(state.clone()))
        .layer(CatchPanicLayer::custom(panic_response))
        .layer(crate::cors::layer(&state.config.cors))
        .layer(PropagateRequestIdLayer::new(REQUEST_ID))
        .layer(
            TraceLayer::new_for_http()
                .make_span_with(|req: &Request| {
                    let request_id = req
                        .headers()
                        .get(&REQUEST_ID)
                        .and_then(|v| v.to_str().ok())
                        .unwrap_or_default();
                    tracing::info_span!(
                        "request",
                        method = %req.method(),
                        path = %req.uri().path(),
                        request_id = %request_id,
                    )
                })
                .on_response(DefaultOnResponse::new().level(tracing::Level::INFO)),
        )
        .layer(SetRequestIdLayer::new(REQUEST_ID, MakeRequestUuid))
        .with_state(state)
}

async fn rate_limit_tier(tier: rate_limit::Tier, req: Request, next: Next) -> Response {
    let Some(state) = req.extensions().get::<AppState>().cloned() else {
        return next.run(req).await;
    };
    rate_limit::enforce(tier, state, req, next).await
}

async fn rate_limit_strict(req: Request, next: Next) -> Response {
    rate_limit_tier(rate_limit::Tier::Strict, req, next).await
}

async fn rate_limit_standard(req: Request, next: Next) -> Response {
    rate_limit_tier(rate_limit::Tier::Standard, req, next).await
}

async fn rate_limit_relaxed(req: Request, next: Next) -> Response {
    rate_limit_tier(rate_limit::Tier::Relaxed, req, next).await
}

async fn not_found() -> ApiError {
    ApiError::new(StatusCode::NOT_FOUND, code::NOT_FOUND, "No such endpoint")
}

async fn method_not_allowed() -> ApiError {
    ApiError::new(
        StatusCode::METHOD_NOT_ALLOWED,
        code::METHOD_NOT_ALLOWED,
        "Method not allowed on this endpoint",
    )
}

fn panic_response(_: Box<dyn std::any::Any + Send + 'static>) -> Response {
    ApiError::internal("handler panicked").into_response()
}
