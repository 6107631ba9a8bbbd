//! Operational endpoints: liveness, readiness, Prometheus metrics, and the request
//! metrics middleware.

use crate::error::{ApiError, ErrorBody, code};
use crate::state::AppState;
use axum::extract::{MatchedPath, Request, State};
use axum::http::{StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use metrics_exporter_prometheus::{Matcher, PrometheusBuilder, PrometheusHandle};
use serde::Serialize;
use std::sync::OnceLock;
use std::time::Instant;
use utoipa::ToSchema;

#[derive(Debug, Serialize, ToSchema)]
pub struct Health {
    #[schema(example = "ok")]
    pub status: &'static str,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct Readiness {
    #[schema(example = "ready")]
    pub status: &'static str,
    #[schema(example = "ok")]
    pub database: &'static str,
}

/// The process is up.
#[utoipa::path(get, path = "/healthz", tag = "operations", security(()),
    responses((status = 200, body = Health)))]
pub async fn healthz() -> axum::Json<Health> {
    axum::Json(Health { status: "ok" })
}

/// The process can serve: the database answers.
#[utoipa::path(get, path = "/readyz", tag = "operations", security(()),
    responses((status = 200, body = Readiness), (status = 503, description = "SERVICE_UNAVAILABLE", body = ErrorBody)))]
pub async fn readyz(State(state): State<AppState>) -> Response {
    match state.store.ping().await {
        Ok(()) => axum::Json(Readiness {
            status: "ready",
            database: "ok",
        })
        .into_response(),
        Err(e) => {
            tracing::warn!(error = %e, "readiness check failed");
            ApiError::new(
                StatusCode::SERVICE_UNAVAILABLE,
                code::SERVICE_UNAVAILABLE,
                "The database is not reachable",
            )
            .into_response()
        }
    }
}

/// Request counts and latencies per route, in Prometheus text format.
#[utoipa::path(get, path = "/metrics", tag = "operations", security(()),
    responses((status = 200, description = "Prometheus text exposition", content_type = "text/plain")))]
pub async fn metrics(State(state): State<AppState>) -> Response {
    let body = match &state.metrics {
        Some(handle) => {
            handle.run_upkeep();
            handle.render()
        }
        None => String::new(),
    };
    ([(header::CONTENT_TYPE, "text/plain; version=0.0.4")], body).into_response()
}

/// Installs the process-wide Prometheus recorder once and returns its handle.
pub fn install_metrics() -> Option<PrometheusHandle> {
    static HANDLE: OnceLock<Option<PrometheusHandle>> = OnceLock::new();
    HANDLE
        .get_or_init(|| {
            let builder = PrometheusBuilder::new()
                .set_buckets_for_metric(
                    Matcher::Full("http_request_duration_seconds".to_owned()),
                    &[
                        0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5,
                        5.0,
                    ],
                )
                .ok()?;
            match builder.install_recorder() {
                Ok(handle) => Some(handle),
                Err(e) => {
                    tracing::warn!(error = %e, "metrics recorder not installed");
                    None
                }
            }
        })
        .clone()
}

/// The route template that served a response (for tests and diagnostics).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RouteTemplate(pub String);

/// Counts every request and records its latency, labelled by route template.
pub async fn track(req: Request, next: Next) -> Response {
    let start = Instant::now();
    let method = req.method().as_str().to_owned();
    let route = req
        .extensions()
        .get::<MatchedPath>()
        .map(|p| p.as_str().to_owned())
        .unwrap_or_else(|| "unmatched".to_owned());
    let mut response = next.run(req).await;
    if route != "unmatched" {
        response
            .extensions_mut()
            .insert(RouteTemplate(route.clone()));
    }
    let status = response.status().as_u16().to_string();
    let elapsed = start.elapsed().as_secs_f64();
    metrics::counter!("http_requests_total", "method" => method.clone(), "route" => route.clone(), "status" => status)
        .increment(1);
    metrics::histogram!("http_request_duration_seconds", "method" => method, "route" => route)
        .record(elapsed);
    response
}

use crate::rate_limit::Tier;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

/// Health, readiness, metrics and the OpenAPI document (relaxed rate limit tier).
pub fn router() -> OpenApiRouter<AppState> {
    Tier::Relaxed.apply(
        OpenApiRouter::new()
            .routes(routes!(healthz))
            .routes(routes!(readyz))
            .routes(routes!(metrics))
            .routes(routes!(crate::openapi::openapi_json)),
    )
}
