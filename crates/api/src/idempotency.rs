//! Idempotency-Key handling (ARCHITECTURE section 5): the first response per (tenant, key)
//! is kept for 24 hours with a hash of its request; the same key and body answer the
//! stored response, another body 422, a repeat while the first runs 409.

use crate::error::{ApiError, ApiResult, code};
use crate::extract::Tenant;
use crate::state::AppState;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use kairos_store::IdempotencyClaim;
use serde_json::Value;

/// Header carrying an idempotency key.
pub const IDEMPOTENCY_HEADER: &str = "idempotency-key";

/// The `Idempotency-Key` of a request, if it sent one.
pub fn idempotency_key(parts: &axum::http::HeaderMap) -> ApiResult<Option<String>> {
    let Some(value) = parts.get(IDEMPOTENCY_HEADER) else {
        return Ok(None);
    };
    let key = value
        .to_str()
        .map(str::trim)
        .ok()
        .filter(|k| k.bytes().all(|b| b.is_ascii_graphic()))
        .ok_or_else(|| ApiError::invalid_field("Idempotency-Key", "must be visible ASCII"))?;
    if key.is_empty() || key.len() > 255 {
        return Err(ApiError::invalid_field(
            "Idempotency-Key",
            "must be 1 to 255 characters",
        ));
    }
    Ok(Some(key.to_owned()))
}

/// A canonical digest of a request: who sends it (see [`BookingAccess::caller_key`]),
/// method, path and body with object keys sorted. A key reused by another caller is then
/// a mismatch (422), never a replay of someone else's response.
pub fn request_hash(caller: &str, method: &str, path: &str, body: &Value) -> String {
    fn canonical(v: &Value, out: &mut String) {
        match v {
            Value::Object(map) => {
                let mut keys: Vec<&String> = map.keys().collect();
                keys.sort();
                out.push('{');
                for k in keys {
                    out.push_str(&Value::String(k.clone()).to_string());
                    out.push(':');
                    if let Some(v) = map.get(k) {
                        canonical(v, out);
                    }
                    out.push(',');
                }
                out.push('}');
            }
            Value::Array(items) => {
                out.push('[');
                for i in items {
                    canonical(i, out);
                    out.push(',');
                }
                out.push(']');
            }
            other => out.push_str(&other.to_string()),
        }
    }
    let mut text = format!("{caller}\n{method} {path}\n");
    canonical(body, &mut text);
    kairos_domain::ids::secret_hash(&text)
}

/// Outcome of claiming an idempotency key.
pub enum Claimed {
    /// Run the request; record its response under this key (if any).
    Run(Option<String>),
    /// Answer with this stored or refusing response.
    Answer(Response),
}

/// Claims `key` (if sent) for a request with hash `hash`.
pub async fn claim(
    state: &AppState,
    tenant: &Tenant,
    key: Option<String>,
    hash: &str,
) -> ApiResult<Claimed> {
    let Some(key) = key else {
        return Ok(Claimed::Run(None));
    };
    match state
        .store
        .claim_idempotency_key(tenant.id(), &key, hash, state.now())
        .await?
    {
        IdempotencyClaim::Fresh => Ok(Claimed::Run(Some(key))),
        IdempotencyClaim::Replay { status, body } => {
            let status = StatusCode::from_u16(status).unwrap_or(StatusCode::OK);
            let mut response = (
                status,
                [(axum::http::header::CONTENT_TYPE, "application/json")],
                body,
            )
                .into_response();
            response.headers_mut().insert(
                "idempotent-replayed",
                axum::http::HeaderValue::from_static("true"),
            );
            Ok(Claimed::Answer(response))
        }
        IdempotencyClaim::Mismatch => Err(ApiError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            code::IDEMPOTENCY_KEY_REUSED,
            "This Idempotency-Key was used for a different request",
        )),
        IdempotencyClaim::InFlight => Err(ApiError::conflict(
            code::IDEMPOTENCY_KEY_IN_FLIGHT,
            "A request with this Idempotency-Key is still being processed; retry shortly",
        )),
    }
}

/// Settles a claimed key after the request failed: a 4xx is the request's answer and is
/// kept; after a 5xx the claim is dropped so a retry runs again.
pub async fn settle_failure(state: &AppState, tenant: &Tenant, key: Option<&str>, err: &ApiError) {
    let Some(key) = key else { return };
    let result = if err.status.is_client_error() {
        state
            .store
            .complete_idempotency_key(tenant.id(), key, err.status.as_u16(), &err.body_text())
            .await
    } else {
        state.store.release_idempotency_key(tenant.id(), key).await
    };
    if let Err(e) = result {
        tracing::warn!(error = %e, "could not settle an idempotency key");
    }
}
