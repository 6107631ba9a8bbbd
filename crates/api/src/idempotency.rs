//! Idempotency-Key handling (ARCHITECTURE section 5), for any endpoint and response type.
//!
//! The first answer per (tenant, key) is kept for 24 hours with a hash of its request
//! (the caller, method, path and canonical body): the same key and body answer the stored
//! response (header `idempotent-replayed: true`); another body is 422
//! `IDEMPOTENCY_KEY_REUSED`; a repeat while the first request still runs is 409
//! `IDEMPOTENCY_KEY_IN_FLIGHT`.
//!
//! An endpoint reads the key with [`RequestKey::of`], hands [`RequestKey::for_store`] to
//! its store operation (which claims the key and stores the answer inside the transaction
//! of the effect), and ends with [`answer`]: a replay becomes the stored response, and a
//! refusal (4xx) is stored as the key's answer so that a retry gets it again.
//!
//! An endpoint whose effect calls outside parties (a payment provider) between database
//! transactions runs under [`outside`]: the key is claimed first in a transaction of its
//! own and completed with the answer.

use crate::error::{ApiError, ApiResult, code};
use crate::extract::Tenant;
use crate::state::AppState;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use kairos_store::{Idempotency, IdempotencyClaim, IdempotencyError, Replay, Written};
use serde_json::Value;

/// Header carrying an idempotency key.
pub const IDEMPOTENCY_HEADER: &str = "idempotency-key";

/// The Idempotency-Key of a request and the hash of what it asks.
#[derive(Debug, Clone)]
pub struct RequestKey {
    key: String,
    request_hash: String,
}

/// A response rendered for storage: status and JSON body.
pub type Rendered = (u16, String);

impl RequestKey {
    /// The request's key, if it sent one, scoped to `caller` (a key reused by another
    /// account is then a mismatch, never a replay of someone else's answer).
    pub fn of(
        headers: &HeaderMap,
        caller: &str,
        method: &str,
        path: &str,
        body: &Value,
    ) -> ApiResult<Option<RequestKey>> {
        Ok(idempotency_key(headers)?.map(|key| RequestKey {
            key,
            request_hash: request_hash(caller, method, path, body),
        }))
    }

    /// What the store operation needs: the key, the hash and how to render the answer.
    pub fn for_store<'a, T>(
        &'a self,
        render: &'a (dyn Fn(&T) -> Rendered + Send + Sync),
    ) -> Idempotency<'a, T> {
        Idempotency {
            key: &self.key,
            request_hash: &self.request_hash,
            render,
        }
    }
}

/// The answer of a request run under an optional key: the operation's response, a
/// replayed one, or its error, which (a 4xx) is stored as the key's answer.
pub async fn answer<T>(
    state: &AppState,
    tenant: &Tenant,
    key: Option<&RequestKey>,
    result: ApiResult<Written<T>>,
    respond: impl FnOnce(T) -> Response,
) -> ApiResult<Response> {
    let e = match result {
        Ok(Written::Done(value)) => return Ok(respond(value)),
        Ok(Written::Replayed(replay)) => return Ok(replayed(replay)),
        Err(e) => e,
    };
    let Some(key) = key.filter(|_| e.status.is_client_error() && e.retry_after.is_none()) else {
        // A 5xx, or a refusal that passes by itself, stored nothing: a retry runs again.
        return Err(e);
    };
    match state
        .store
        .remember_refusal(
            tenant.id(),
            &key.key,
            &key.request_hash,
            e.status.as_u16(),
            &e.body_text(),
            state.now(),
        )
        .await
    {
        Ok(Ok(None)) => Err(e),
        Ok(Ok(Some(replay))) => Ok(replayed(replay)),
        Ok(Err(refusal)) => Err(refusal.into()),
        Err(store) => {
            tracing::warn!(error = %store, "could not store the refusal of an idempotency key");
            Err(e)
        }
    }
}

/// Runs `op` on the POST's JSON body (decoded inside the run, so a body that does not
/// decode is a refusal like any other), an operation that calls outside parties before it
/// answers, under the request's `Idempotency-Key` for `caller` and `path` (none: it just
/// runs). The key is claimed first, in a transaction of its own: the same
/// request again answers the stored response (`idempotent-replayed: true`), a repeat while
/// the first runs is 409 IDEMPOTENCY_KEY_IN_FLIGHT, another request with the key 422
/// IDEMPOTENCY_KEY_REUSED. The answer is stored, success or refusal alike, except when
/// its outcome is unknown (500 INTERNAL_ERROR, 502 PROVIDER_ERROR: the provider did not
/// answer) or it passes by itself (a refusal with `Retry-After`), which releases the key
/// so that a retry runs again.
pub async fn outside<B, T, F, Fut>(
    state: &AppState,
    tenant: &Tenant,
    headers: &HeaderMap,
    caller: &str,
    path: &str,
    raw: Value,
    op: F,
) -> ApiResult<Response>
where
    B: serde::de::DeserializeOwned,
    T: serde::Serialize,
    F: FnOnce(B) -> Fut,
    Fut: std::future::Future<Output = ApiResult<T>>,
{
    let key = RequestKey::of(headers, caller, "POST", path, &raw)?;
    let op = async move { op(crate::extract::decode_json(raw)?).await };
    let Some(key) = key else {
        return op.await.map(|v| axum::Json(v).into_response());
    };
    let tenant = tenant.id();
    match state
        .store
        .claim_idempotency_key(tenant, &key.key, &key.request_hash, state.now())
        .await?
    {
        IdempotencyClaim::Fresh => {}
        IdempotencyClaim::Replay { status, body } => return Ok(replayed(Replay { status, body })),
        IdempotencyClaim::Mismatch => return Err(IdempotencyError::Reused.into()),
        IdempotencyClaim::InFlight => return Err(IdempotencyError::InFlight.into()),
    }
    let result = op.await;
    let stored = match &result {
        Ok(v) => serde_json::to_string(v)
            .ok()
            .map(|body| (StatusCode::OK.as_u16(), body)),
        Err(e)
            if matches!(e.code, code::INTERNAL_ERROR | code::PROVIDER_ERROR)
                || e.retry_after.is_some() =>
        {
            None
        }
        Err(e) => Some((e.status.as_u16(), e.body_text())),
    };
    let kept = match stored {
        Some((status, body)) => {
            state
                .store
                .complete_idempotency_key(tenant, &key.key, status, &body)
                .await
        }
        None => state.store.release_idempotency_key(tenant, &key.key).await,
    };
    if let Err(e) = kept {
        tracing::warn!(error = %e, "could not store the answer of an idempotency key");
    }
    result.map(|v| axum::Json(v).into_response())
}

/// The result of an operation run without a key: always `Done`.
pub fn done<T>(written: Written<T>) -> ApiResult<T> {
    match written {
        Written::Done(value) => Ok(value),
        Written::Replayed(_) => Err(ApiError::internal("a replay without an Idempotency-Key")),
    }
}

/// A stored response, answered again.
fn replayed(replay: Replay) -> Response {
    let status = StatusCode::from_u16(replay.status).unwrap_or(StatusCode::OK);
    let mut response = (
        status,
        [(header::CONTENT_TYPE, "application/json")],
        replay.body,
    )
        .into_response();
    response
        .headers_mut()
        .insert("idempotent-replayed", HeaderValue::from_static("true"));
    response
}

impl From<IdempotencyError> for ApiError {
    fn from(e: IdempotencyError) -> Self {
        match e {
            IdempotencyError::Reused => ApiError::new(
                StatusCode::UNPROCESSABLE_ENTITY,
                code::IDEMPOTENCY_KEY_REUSED,
                "This Idempotency-Key was used for a different request",
            ),
            IdempotencyError::InFlight => ApiError::conflict(
                code::IDEMPOTENCY_KEY_IN_FLIGHT,
                "A request with this Idempotency-Key is still being processed; retry shortly",
            ),
        }
    }
}

/// The `Idempotency-Key` of a request, if it sent one.
fn idempotency_key(headers: &HeaderMap) -> ApiResult<Option<String>> {
    let mut values = headers.get_all(IDEMPOTENCY_HEADER).iter();
    let Some(value) = values.next() else {
        return Ok(None);
    };
    if values.next().is_some() {
        // Which of two keys would be meant is anybody's guess.
        return Err(ApiError::invalid_field(
            "Idempotency-Key",
            "must be sent once",
        ));
    }
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

/// A canonical digest of a request: who sends it, method, path and body with object keys
/// sorted.
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
