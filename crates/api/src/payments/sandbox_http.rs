//! The sandbox card provider over HTTP, at `/sandbox/cardpay/v1/…` in Stripe's shape
//! (form-encoded bodies, `Authorization: Bearer sk_…`): what a customer's browser does
//! with a client secret (retrieve, confirm with a test card), and what an integrator's
//! Stripe client does with a secret key (create, capture, cancel, refund). Not part of the
//! Kairos API (and not in its OpenAPI document): it stands in for the provider.

use crate::state::AppState;
use axum::Router;
use axum::body::Bytes;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use kairos_app::payments::providers::sandbox::{Caller, SandboxEvent};
use kairos_app::payments::providers::{NewIntent, ProviderError};
use serde_json::{Value, json};
use std::collections::HashMap;

/// The sandbox's routes.
pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/sandbox/cardpay/v1/payment_intents", post(create))
        .route("/sandbox/cardpay/v1/payment_intents/{id}", get(retrieve))
        .route(
            "/sandbox/cardpay/v1/payment_intents/{id}/confirm",
            post(confirm),
        )
        .route(
            "/sandbox/cardpay/v1/payment_intents/{id}/capture",
            post(capture),
        )
        .route(
            "/sandbox/cardpay/v1/payment_intents/{id}/cancel",
            post(cancel),
        )
        .route("/sandbox/cardpay/v1/refunds", post(refund))
}

fn form(body: &Bytes) -> HashMap<String, String> {
    serde_html_form::from_bytes::<Vec<(String, String)>>(body)
        .unwrap_or_default()
        .into_iter()
        .collect()
}

fn bearer(headers: &HeaderMap) -> Option<String> {
    headers
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .map(str::to_owned)
}

fn error(e: ProviderError) -> Response {
    let (status, kind, code, message) = match e {
        ProviderError::Declined { code, message, .. } => (402, "card_error", code, message),
        ProviderError::Refused {
            status,
            code,
            message,
        } => (status, "invalid_request_error", code, message),
        ProviderError::Unavailable(message) => (500, "api_error", "api_error".into(), message),
    };
    (
        StatusCode::from_u16(status).unwrap_or(StatusCode::BAD_REQUEST),
        axum::Json(json!({"error": {"type": kind, "code": code, "message": message}})),
    )
        .into_response()
}

fn unauthorized() -> Response {
    error(ProviderError::Refused {
        status: 401,
        code: "unauthorized".into(),
        message: "Invalid API key".into(),
    })
}

fn answer(
    state: &AppState,
    result: Result<Value, ProviderError>,
    events: Vec<SandboxEvent>,
) -> Response {
    state.app.sandbox.emit(events);
    match result {
        Ok(v) => axum::Json(v).into_response(),
        Err(e) => error(e),
    }
}

async fn create(State(state): State<AppState>, headers: HeaderMap, body: Bytes) -> Response {
    let Some(key) = bearer(&headers) else {
        return unauthorized();
    };
    let f = form(&body);
    let metadata: Vec<(String, String)> = f
        .iter()
        .filter_map(|(k, v)| {
            k.strip_prefix("metadata[")
                .and_then(|k| k.strip_suffix(']'))
                .map(|k| (k.to_owned(), v.clone()))
        })
        .collect();
    let metadata: Vec<(&str, String)> = metadata
        .iter()
        .map(|(k, v)| (k.as_str(), v.clone()))
        .collect();
    let confirm = f.get("confirm").is_some_and(|c| c == "true");
    let new = NewIntent {
        amount: f.get("amount").and_then(|a| a.parse().ok()).unwrap_or(0),
        currency: f.get("currency").map_or("eur", String::as_str),
        manual_capture: f.get("capture_method").is_some_and(|c| c == "manual"),
        payment_method: f
            .get("payment_method")
            .map(String::as_str)
            .filter(|_| confirm),
        metadata: &metadata,
        ..Default::default()
    };
    let idem = headers
        .get("idempotency-key")
        .and_then(|v| v.to_str().ok())
        .map_or_else(|| uuid::Uuid::new_v4().to_string(), str::to_owned);
    let now = state.now().timestamp();
    let (result, events) = state
        .app
        .sandbox
        .sandbox
        .create_intent(&key, &new, &idem, now);
    let result = result.and_then(|pi| {
        state
            .app
            .sandbox
            .sandbox
            .intent_json(Caller::SecretKey(&key), &pi.id)
    });
    answer(&state, result, events)
}

async fn retrieve(
    State(state): State<AppState>,
    headers: HeaderMap,
    Path(id): Path<String>,
    Query(q): Query<HashMap<String, String>>,
) -> Response {
    let key = bearer(&headers);
    let caller = match (&key, q.get("client_secret")) {
        (Some(k), _) => Caller::SecretKey(k),
        (None, Some(s)) => Caller::ClientSecret(s),
        (None, None) => return unauthorized(),
    };
    answer(
        &state,
        state.app.sandbox.sandbox.intent_json(caller, &id),
        Vec::new(),
    )
}

async fn confirm(
    State(state): State<AppState>,
    headers: HeaderMap,
    Path(id): Path<String>,
    body: Bytes,
) -> Response {
    let f = form(&body);
    let key = bearer(&headers);
    let caller = match (&key, f.get("client_secret")) {
        (Some(k), _) => Caller::SecretKey(k),
        (None, Some(s)) => Caller::ClientSecret(s),
        (None, None) => return unauthorized(),
    };
    let now = state.now().timestamp();
    let (result, events) = state.app.sandbox.sandbox.confirm(
        caller,
        &id,
        f.get("payment_method").map(String::as_str),
        now,
    );
    let result = result.and_then(|_| state.app.sandbox.sandbox.intent_json(caller, &id));
    answer(&state, result, events)
}

async fn capture(
    State(state): State<AppState>,
    headers: HeaderMap,
    Path(id): Path<String>,
    body: Bytes,
) -> Response {
    let Some(key) = bearer(&headers) else {
        return unauthorized();
    };
    let amount = form(&body)
        .get("amount_to_capture")
        .and_then(|a| a.parse().ok());
    let now = state.now().timestamp();
    match state.app.sandbox.sandbox.capture(&key, &id, amount, now) {
        Ok((_, events)) => answer(
            &state,
            state
                .app
                .sandbox
                .sandbox
                .intent_json(Caller::SecretKey(&key), &id),
            events,
        ),
        Err(e) => error(e),
    }
}

async fn cancel(
    State(state): State<AppState>,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> Response {
    let Some(key) = bearer(&headers) else {
        return unauthorized();
    };
    let result = state.app.sandbox.sandbox.cancel(&key, &id).and_then(|_| {
        state
            .app
            .sandbox
            .sandbox
            .intent_json(Caller::SecretKey(&key), &id)
    });
    answer(&state, result, Vec::new())
}

async fn refund(State(state): State<AppState>, headers: HeaderMap, body: Bytes) -> Response {
    let Some(key) = bearer(&headers) else {
        return unauthorized();
    };
    let f = form(&body);
    let Some(intent) = f.get("payment_intent") else {
        return error(ProviderError::Refused {
            status: 400,
            code: "parameter_missing".into(),
            message: "payment_intent is required".into(),
        });
    };
    let idem = headers
        .get("idempotency-key")
        .and_then(|v| v.to_str().ok())
        .map_or_else(|| uuid::Uuid::new_v4().to_string(), str::to_owned);
    let now = state.now().timestamp();
    match state.app.sandbox.sandbox.refund(
        &key,
        intent,
        f.get("amount").and_then(|a| a.parse().ok()),
        &idem,
        now,
    ) {
        Ok((r, events)) => answer(
            &state,
            Ok(
                json!({"id": r.id, "object": "refund", "amount": r.amount, "status": r.status,
                "payment_intent": intent}),
            ),
            events,
        ),
        Err(e) => error(e),
    }
}
