//! The router: merges the areas' routers and adds the middleware every request passes.
//!
//! Each area's `router()` registers its routes through `utoipa_axum::routes!`, which takes
//! the path from the handler's `#[utoipa::path]`: a route cannot be added without its
//! documentation.

use crate::error::{ApiError, code};
use crate::state::AppState;
use crate::{
    auth, availability, booking_groups, bookings, catalog, customers, dead_letters, gift_cards,
    issues, messaging, no_shows, operations, payments, promotions, scheduling, vouchers, waivers,
};
use axum::extract::Request;
use axum::http::{HeaderName, StatusCode};
use axum::middleware::{self};
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
use utoipa_swagger_ui::{Config, SwaggerUi};

const REQUEST_ID: HeaderName = HeaderName::from_static("x-request-id");

/// Every API route: the routers of the areas, each with its rate limit tiers.
pub fn api_routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::with_openapi(crate::openapi::ApiDoc::openapi())
        .merge(auth::router())
        .merge(customers::router())
        .merge(catalog::router())
        .merge(crate::resources::admin_router())
        .merge(crate::resources::public_router())
        .merge(crate::resources::booking_router())
        .merge(scheduling::router())
        .merge(availability::router())
        .merge(bookings::router())
        .merge(booking_groups::router())
        .merge(promotions::router())
        .merge(vouchers::router())
        .merge(messaging::router())
        .merge(dead_letters::router())
        .merge(payments::router())
        .merge(gift_cards::router())
        .merge(no_shows::router())
        .merge(issues::router())
        .merge(waivers::router())
        .merge(operations::router())
}

/// The OpenAPI document of [`api_routes`], finished by [`crate::openapi::finish`].
pub fn openapi() -> utoipa::openapi::OpenApi {
    static DOC: OnceLock<utoipa::openapi::OpenApi> = OnceLock::new();
    DOC.get_or_init(|| {
        let mut doc = api_routes().into_openapi();
        crate::openapi::finish(&mut doc);
        doc
    })
    .clone()
}

/// The published form of [`openapi`]: shared parameters and headers declared once.
pub fn openapi_json() -> serde_json::Value {
    static DOC: OnceLock<serde_json::Value> = OnceLock::new();
    DOC.get_or_init(|| crate::openapi::to_json(&openapi()))
        .clone()
}

/// The whole HTTP application.
pub fn router(state: AppState) -> Router {
    let (api, _) = api_routes().split_for_parts();
    let body_limits = crate::request_body::BodyLimits {
        max_bytes: state.config.body_limit_bytes,
        read_timeout: state.config.body_read_timeout,
    };
    let docs: Router<AppState> = SwaggerUi::new("/docs")
        .config(Config::from("/api/openapi.json"))
        .into();
    api.merge(docs)
        .merge(payments::sandbox_http::routes())
        .merge(crate::pages::routes(&crate::pages::content_policy(
            &state.config.payments.cardpay_js_url,
            &state.config.payments.cardpay_api_base,
        )))
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .layer(middleware::from_fn(availability::invalidate_on_write))
        .layer(middleware::from_fn(operations::track))
        // `read_body` (below) has read the body within the limit already.
        .layer(axum::extract::DefaultBodyLimit::disable())
        .layer(TimeoutLayer::with_status_code(
            StatusCode::SERVICE_UNAVAILABLE,
            Duration::from_secs(30),
        ))
        // Outside the handler timeout: a slow upload is the body timeout's (408).
        .layer(middleware::from_fn_with_state(
            body_limits,
            crate::request_body::read_body,
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
