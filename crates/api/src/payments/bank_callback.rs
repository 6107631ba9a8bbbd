//! The bank-redirect provider's callback (spec Part B 4.6, 6): `POST
//! /webhooks/bankpay/callback` (no `/api/v1` prefix) and its health. The request is read
//! here into the application's `BankCallback`, which verifies and settles it
//! (`kairos_app::payments::bank_events`).
//!
//! Two forms, both signed with Paytrail's scheme by the merchant secret of the account the
//! payment was made with:
//! - as the spec shows it: the `checkout-*` signing parameters and `signature` in headers,
//!   the payment's `checkout-*` fields in a JSON body; the signature covers the headers'
//!   `checkout-*` values and the raw body; `checkout-timestamp` at most 5 minutes old;
//! - as Paytrail calls its callback URLs (GET or POST): every `checkout-*` field and
//!   `signature` in the query string, over an empty body.
//!
//! A refund's callback is told from a payment's by its signed `checkout-stamp`, the
//! refund's id (`kairos_app::payments::bank_refunds`). A payment's is found by `checkout-transaction-id` (its
//! tenant with it); a bad, missing or stale signature is 403 INVALID_SIGNATURE. Each
//! (transaction, status) is processed once: its idempotency key; a repeat answers the
//! first answer with `error: DUPLICATE_EVENT`. `ok` settles the payment like the card
//! provider's success (the booking `paid`; `checkout-amount`, required, must equal the
//! payment's, else nothing is applied or recorded), `fail` marks it FAILED, `pending` and
//! `delayed` (a bank transfer on its way) change nothing.

use super::webhooks::WebhookHealth;
use crate::error::{ApiError, ErrorBody, code};
use crate::extract::{Staff, can};
use crate::state::AppState;
use axum::body::Bytes;
use axum::extract::{RawQuery, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use kairos_app::payments::bank_events::{
    self, BankAnswer, BankCallback, BankReceipt, CallbackFields,
};
use kairos_domain::payments::credentials::Provider;
use serde::Serialize;
use utoipa::ToSchema;

/// The bank callback's answer (spec Part B 4.6).
#[derive(Debug, Serialize, ToSchema)]
pub struct BankCallbackAnswer {
    /// `ok` when received.
    pub status: String,
    pub message: String,
    /// `{checkout-transaction-id}:{checkout-status}`: each is processed once.
    pub idempotency_key: String,
    /// Whether the callback changed something.
    pub processed: bool,
    /// `DUPLICATE_EVENT` for a repeat (the first answer is repeated).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// The callback in either form, read from the request.
fn parse(headers: &HeaderMap, query: Option<&str>, body: &[u8]) -> Result<BankCallback, ApiError> {
    let query: Vec<(String, String)> = query
        .map(|q| {
            url_pairs(q)
                .into_iter()
                .filter(|(k, _)| k.starts_with("checkout-") || k == "signature")
                .collect()
        })
        .unwrap_or_default();
    if let Some((_, signature)) = query.iter().find(|(k, _)| k == "signature") {
        let signed: Vec<(String, String)> = query
            .iter()
            .filter(|(k, _)| k.starts_with("checkout-"))
            .cloned()
            .collect();
        return Ok(BankCallback {
            fields: CallbackFields::from_pairs(&signed),
            signature: signature.clone(),
            signed,
            body: String::new(),
            query_form: true,
        });
    }
    let Some(signature) = headers.get("signature").and_then(|v| v.to_str().ok()) else {
        return Err(ApiError::new(
            StatusCode::FORBIDDEN,
            code::INVALID_SIGNATURE,
            "The signature is missing (header `signature`, or the `signature` query parameter)",
        ));
    };
    let signed: Vec<(String, String)> = headers
        .iter()
        .filter(|(n, _)| n.as_str().starts_with("checkout-"))
        .filter_map(|(n, v)| Some((n.as_str().to_owned(), v.to_str().ok()?.to_owned())))
        .collect();
    let text = String::from_utf8(body.to_vec())
        .map_err(|_| ApiError::invalid_field("body", "is not UTF-8"))?;
    let fields = CallbackFields::from_json(&text);
    Ok(BankCallback {
        signed,
        signature: signature.to_owned(),
        body: text,
        fields,
        query_form: false,
    })
}

/// `application/x-www-form-urlencoded` pairs of a query string (none when malformed).
fn url_pairs(query: &str) -> Vec<(String, String)> {
    serde_html_form::from_str(query).unwrap_or_default()
}

/// Reads, verifies and processes one bank callback; the answer.
async fn receive_bankpay(
    state: &AppState,
    headers: &HeaderMap,
    query: Option<&str>,
    body: &[u8],
) -> Response {
    let cb = match parse(headers, query, body) {
        Ok(cb) => cb,
        Err(e) => return e.into_response(),
    };
    let body = |status: &str, a: BankAnswer| BankCallbackAnswer {
        status: status.to_owned(),
        message: a.message,
        idempotency_key: a.idempotency_key,
        processed: a.processed,
        error: a.error,
    };
    match bank_events::receive(&state.app, &cb).await {
        BankReceipt::Answered(a) => axum::Json(body("ok", a)).into_response(),
        BankReceipt::Failed(a) => (
            StatusCode::INTERNAL_SERVER_ERROR,
            axum::Json(body("error", a)),
        )
            .into_response(),
        BankReceipt::Refused(e) => ApiError::from(e).into_response(),
    }
}

/// Bank-redirect provider callback (spec Part B 4.6, 6).
///
/// Signed as the spec shows (headers `signature`, `checkout-account`,
/// `checkout-algorithm`, `checkout-method`, `checkout-timestamp`, `checkout-nonce`; JSON
/// body `checkout-stamp`, `checkout-transaction-id`, `checkout-status`, `checkout-amount`
/// (minor units, a string), `checkout-reference`, `checkout-provider`), or as Paytrail
/// calls callback URLs (every field and `signature` in the query). `ok` makes the booking
/// `paid`; `fail` marks the payment FAILED; `pending`/`delayed` wait. No bearer token
/// and no tenant header: the signature is the authentication.
#[utoipa::path(post, path = "/webhooks/bankpay/callback", tag = "payments", security(()),
    params(("signature" = Option<String>, Header, description = "HMAC of the sorted checkout-* headers and the body"),
        ("checkout-account" = Option<String>, Header), ("checkout-algorithm" = Option<String>, Header),
        ("checkout-method" = Option<String>, Header), ("checkout-timestamp" = Option<String>, Header),
        ("checkout-nonce" = Option<String>, Header)),
    request_body(content = Object, description = "checkout-stamp, checkout-transaction-id, checkout-status, checkout-amount, checkout-reference, checkout-provider", content_type = "application/json"),
    responses((status = 200, description = "Received; DUPLICATE_EVENT in `error` for a repeat", body = BankCallbackAnswer),
        (status = 400, description = "VALIDATION_ERROR: fields missing or malformed", body = ErrorBody),
        (status = 403, description = "INVALID_SIGNATURE: missing, wrong or stale signature, or an unknown transaction", body = ErrorBody),
        (status = 500, description = "Processing failed: the provider retries", body = BankCallbackAnswer)))]
pub async fn bankpay_callback(
    State(state): State<AppState>,
    RawQuery(query): RawQuery,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    receive_bankpay(&state, &headers, query.as_deref(), &body).await
}

/// Paytrail calls callback URLs with GET: the same callback, every field in the query.
#[utoipa::path(get, path = "/webhooks/bankpay/callback", tag = "payments", security(()),
    responses((status = 200, body = BankCallbackAnswer),
        (status = 400, description = "VALIDATION_ERROR", body = ErrorBody),
        (status = 403, description = "INVALID_SIGNATURE", body = ErrorBody),
        (status = 500, body = BankCallbackAnswer)))]
pub async fn bankpay_callback_get(
    State(state): State<AppState>,
    RawQuery(query): RawQuery,
    headers: HeaderMap,
) -> Response {
    receive_bankpay(&state, &headers, query.as_deref(), &[]).await
}

/// The bank callback's health.
///
/// Anyone gets the status; a staff token (with `x-tenant-id`) adds its tenant's event
/// counts. A token that is given is checked (401, 403 as elsewhere).
#[utoipa::path(post, path = "/webhooks/bankpay/health", tag = "payments",
    security((), ("bearer" = [])),
    responses((status = 200, body = WebhookHealth),
        (status = 400, description = "VALIDATION_ERROR: a token without `x-tenant-id`", body = ErrorBody),
        (status = 404, description = "NOT_FOUND: with a token, the tenant `x-tenant-id` names", body = ErrorBody)))]
pub async fn bankpay_health(
    State(state): State<AppState>,
    staff: Option<Staff<can::Read>>,
) -> Result<axum::Json<WebhookHealth>, ApiError> {
    WebhookHealth::of(&state, staff.as_deref(), Provider::Bankpay).await
}
