//! The bank-redirect provider's callback (spec Part B 4.6, 6): `POST
//! /webhooks/bankpay/callback` (no `/api/v1` prefix) and its health.
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
//! refund's id (`receive_refund`). A payment's is found by `checkout-transaction-id` (its
//! tenant with it); a bad, missing or stale signature is 403 INVALID_SIGNATURE. Each
//! (transaction, status) is processed once: its idempotency key; a repeat answers the
//! first answer with `error: DUPLICATE_EVENT`. `ok` settles the payment like the card
//! provider's success (the booking `paid`; `checkout-amount`, required, must equal the
//! payment's, else nothing is applied or recorded), `fail` marks it FAILED, `pending` and
//! `delayed` (a bank transfer on its way) change nothing.

use super::bank_redirect::bank_account_of_payment;
use super::webhooks::{WebhookHealth, refund_after_close};
use crate::error::{ApiError, ErrorBody, code};
use crate::extract::{Staff, can};
use crate::state::AppState;
use axum::body::Bytes;
use axum::extract::{RawQuery, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use chrono::{DateTime, Utc};
use kairos_domain::TenantId;
use kairos_domain::payments::credentials::Provider;
use kairos_store::{
    Actor, OnlinePayment, PAID_AFTER_CLOSE, PendingRefund, ProviderEvent, RefundResult,
};
use serde::Serialize;
use serde_json::Value;
use utoipa::ToSchema;
use uuid::Uuid;

/// Oldest signed callback accepted (spec Part B 6: 5 minutes).
const MAX_AGE_SECONDS: i64 = 300;

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

/// 500: the callback was not processed; the provider retries it.
fn processing_failed(key: String) -> Response {
    (
        StatusCode::INTERNAL_SERVER_ERROR,
        axum::Json(BankCallbackAnswer {
            status: "error".to_owned(),
            message: "processing failed; the provider's retry will process it".to_owned(),
            idempotency_key: key,
            processed: false,
            error: None,
        }),
    )
        .into_response()
}

fn refuse(status: StatusCode, code: &'static str, message: impl Into<String>) -> Response {
    ApiError::new(status, code, message).into_response()
}

/// The signed parameters, the signature, the signed body and the payment's fields of a
/// callback in either form.
struct Callback {
    signed: Vec<(String, String)>,
    signature: String,
    body: String,
    fields: Vec<(String, String)>,
    query_form: bool,
}

/// The value of `name` among `pairs`.
fn value_of<'a>(pairs: &'a [(String, String)], name: &str) -> Option<&'a str> {
    pairs
        .iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.as_str())
}

impl Callback {
    /// A field of the callback (body or query).
    fn field(&self, name: &str) -> Option<&str> {
        value_of(&self.fields, name)
    }
}

fn parse(headers: &HeaderMap, query: Option<&str>, body: &[u8]) -> Result<Callback, ApiError> {
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
        return Ok(Callback {
            fields: signed.clone(),
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
    let fields = match serde_json::from_str::<Value>(&text) {
        Ok(Value::Object(map)) => map
            .into_iter()
            .filter_map(|(k, v)| {
                let v = match v {
                    Value::String(s) => s,
                    Value::Number(n) => n.to_string(),
                    _ => return None,
                };
                Some((k, v))
            })
            .collect(),
        _ => Vec::new(),
    };
    Ok(Callback {
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

/// Verifies and processes one bank callback; the answer.
pub async fn receive_bankpay(
    state: &AppState,
    headers: &HeaderMap,
    query: Option<&str>,
    body: &[u8],
) -> Response {
    let cb = match parse(headers, query, body) {
        Ok(cb) => cb,
        Err(e) => return e.into_response(),
    };
    let field = |name: &str| cb.field(name);
    let (Some(transaction), Some(status)) =
        (field("checkout-transaction-id"), field("checkout-status"))
    else {
        return refuse(
            StatusCode::BAD_REQUEST,
            code::VALIDATION_ERROR,
            "checkout-transaction-id and checkout-status are required",
        );
    };
    // A refund's callback: its stamp is the refund's id (a payment's is the payment's).
    let refund = match field("checkout-stamp").and_then(|s| Uuid::parse_str(s).ok()) {
        Some(stamp) => match state.store.refund_by_id(stamp).await {
            Ok(found) => found,
            Err(e) => return ApiError::from(e).into_response(),
        },
        None => None,
    };
    if let Some(refund) = refund {
        return receive_refund(state, &cb, refund, transaction, status).await;
    }
    let found = match state
        .store
        .online_payment_by_provider_id(Provider::Bankpay, transaction)
        .await
    {
        Ok(found) => found,
        Err(e) => return ApiError::from(e).into_response(),
    };
    let Some((tenant, payment)) = found else {
        return refuse(
            StatusCode::FORBIDDEN,
            code::INVALID_SIGNATURE,
            "No payment has this transaction: the callback cannot be verified",
        );
    };
    if let Err(refused) = verify(state, &cb, &tenant, &payment).await {
        return refused;
    }
    let event_type = match status {
        "ok" => "payment_intent.succeeded",
        "fail" => "payment_intent.payment_failed",
        "pending" | "delayed" | "new" => "bankpay.pending",
        _ => {
            return refuse(
                StatusCode::BAD_REQUEST,
                code::VALIDATION_ERROR,
                "checkout-status must be ok, fail, pending or delayed",
            );
        }
    };
    let amount = match amount_of(&cb) {
        Ok(amount) => amount,
        Err(refused) => return *refused,
    };
    let key = format!("{transaction}:{status}");
    if status == "ok" && amount != payment.amount {
        let what = format!("payment {}", payment.id);
        let about = (payment.booking_id, payment.id);
        if !note_other_amount(state, &tenant, &what, amount, payment.amount, about).await {
            return processing_failed(key);
        }
        return other_amount(key, what, amount, payment.amount);
    }
    let event = ProviderEvent {
        provider: Provider::Bankpay,
        event_id: key.clone(),
        event_type: event_type.to_owned(),
        payment_intent: Some(transaction.to_owned()),
        amount: Some(amount),
        currency: None,
        failure: (status == "fail").then(|| {
            (
                "bank_payment_failed".to_owned(),
                format!(
                    "the bank payment failed ({})",
                    field("checkout-provider").unwrap_or("unknown bank")
                ),
            )
        }),
        amount_refunded: None,
        dispute: None,
    };
    match state
        .store
        .process_provider_event(&tenant, &event, state.now())
        .await
    {
        Ok(outcome) => {
            if !outcome.duplicate && outcome.code.as_deref() == Some(PAID_AFTER_CLOSE) {
                // Money for a booking that can no longer take it goes back through the bank.
                refund_after_close(state, &tenant, Provider::Bankpay, transaction).await;
            }
            axum::Json(BankCallbackAnswer {
                status: "ok".to_owned(),
                message: outcome.message,
                idempotency_key: key,
                processed: outcome.processed,
                error: if outcome.duplicate {
                    Some(code::DUPLICATE_EVENT.to_owned())
                } else {
                    outcome.code
                },
            })
            .into_response()
        }
        Err(e) => {
            tracing::warn!(idempotency_key = %key, error = %e, "bankpay callback failed");
            if let Err(store) = state
                .store
                .record_failed_event(
                    &tenant,
                    Provider::Bankpay,
                    &key,
                    event_type,
                    &e.to_string(),
                    state.now(),
                )
                .await
            {
                tracing::warn!(error = %store, "could not record a failed bankpay callback");
            }
            processing_failed(key)
        }
    }
}

/// The callback's `checkout-amount` (minor units, required: what the provider reports
/// is checked against what was asked); 400 when it is missing or not a whole number.
fn amount_of(cb: &Callback) -> Result<i64, Box<Response>> {
    cb.field("checkout-amount")
        .and_then(|a| a.parse::<i64>().ok())
        .ok_or_else(|| {
            Box::new(refuse(
                StatusCode::BAD_REQUEST,
                code::VALIDATION_ERROR,
                "checkout-amount is required, in minor units",
            ))
        })
}

/// Puts a signed `ok` for another amount than was asked for before staff (an
/// AMOUNT_MISMATCH dead letter about (booking, payment or refund)): money may have moved
/// that Kairos does not show. False when it could not be written: the callback is then
/// answered as a processing failure, so the bank sends it again.
async fn note_other_amount(
    state: &AppState,
    tenant: &TenantId,
    what: &str,
    reported: i64,
    asked: i64,
    (booking_id, about): (Option<uuid::Uuid>, uuid::Uuid),
) -> bool {
    let message = format!(
        "bankpay reported {reported} (minor units) for {what}, which asked for {asked}: not applied; check it in the bank's merchant panel"
    );
    let letter = kairos_store::PaymentLetter {
        kind: "bankpay",
        error_type: "AMOUNT_MISMATCH",
        message: &message,
        booking_id,
        transaction_id: Some(about),
    };
    match state
        .store
        .open_payment_dead_letter(tenant, letter, state.now())
        .await
    {
        Ok(()) => true,
        Err(e) => {
            tracing::error!(error = %e, "the bank's report of another amount could not be put before staff");
            false
        }
    }
}

/// The answer to a signed `ok` that names another amount than was asked for: not
/// applied, and not recorded as the event either, so the provider's right report still
/// settles it (staff see it: [`note_other_amount`]).
fn other_amount(key: String, what: String, reported: i64, asked: i64) -> Response {
    tracing::warn!(idempotency_key = %key, reported, asked,
        "bankpay callback names another amount: not applied");
    axum::Json(BankCallbackAnswer {
        status: "ok".to_owned(),
        message: format!("checkout-amount differs from {what} ({asked}): not applied"),
        idempotency_key: key,
        processed: false,
        error: None,
    })
    .into_response()
}

/// Checks a callback's signature with the account `payment` was made with, its
/// `checkout-account`, and (header form) its timestamp's age.
async fn verify(
    state: &AppState,
    cb: &Callback,
    tenant: &TenantId,
    payment: &OnlinePayment,
) -> Result<(), Response> {
    let client = match bank_account_of_payment(state, tenant, payment).await {
        Ok(Some(c)) => c,
        Ok(None) => {
            return Err(refuse(
                StatusCode::FORBIDDEN,
                code::INVALID_SIGNATURE,
                "The account of this payment is no longer configured: the callback cannot be verified",
            ));
        }
        Err(e) => return Err(e.into_response()),
    };
    let signed = cb.signed.iter().map(|(k, v)| (k.as_str(), v.as_str()));
    if !client.verifies(signed, &cb.body, &cb.signature) {
        return Err(refuse(
            StatusCode::FORBIDDEN,
            code::INVALID_SIGNATURE,
            "Invalid signature",
        ));
    }
    let signed_value = |name: &str| value_of(&cb.signed, name);
    if signed_value("checkout-account") != Some(client.merchant_id()) {
        return Err(refuse(
            StatusCode::FORBIDDEN,
            code::INVALID_SIGNATURE,
            "checkout-account is not the merchant of this payment",
        ));
    }
    if !cb.query_form {
        let at = signed_value("checkout-timestamp")
            .and_then(|t| DateTime::parse_from_rfc3339(t).ok())
            .map(|t| t.with_timezone(&Utc));
        let now = state.now();
        let fresh = at.is_some_and(|t| {
            (now - t).num_seconds() <= MAX_AGE_SECONDS && (t - now).num_seconds() <= 60
        });
        if !fresh {
            return Err(refuse(
                StatusCode::FORBIDDEN,
                code::INVALID_SIGNATURE,
                "checkout-timestamp is missing, over 5 minutes old or in the future",
            ));
        }
    }
    Ok(())
}

/// A refund's callback (the refund was `pending` at the provider): `ok` completes it,
/// `fail` fails it (REFUND_FAILED in the dead-letter queue), `pending`/`delayed` wait.
/// An `ok` whose `checkout-amount` is not the refund's is not applied (the refund stays
/// processing for staff). Verified with the account of the refunded payment; its transaction must be the
/// refund's or the payment's. A repeat of an outcome recorded before changes nothing and
/// answers `DUPLICATE_EVENT`.
async fn receive_refund(
    state: &AppState,
    cb: &Callback,
    refund: PendingRefund,
    transaction: &str,
    status: &str,
) -> Response {
    let tenant = &refund.tenant;
    let payment = match state.store.online_payment(tenant, refund.payment_id).await {
        Ok(Some(p)) if p.provider == Provider::Bankpay => p,
        Ok(_) => {
            return refuse(
                StatusCode::FORBIDDEN,
                code::INVALID_SIGNATURE,
                "No bank payment has this refund: the callback cannot be verified",
            );
        }
        Err(e) => return ApiError::from(e).into_response(),
    };
    // The refund's transaction (not known yet when the answer to the refund was lost:
    // then the signed stamp alone names it), or its payment's.
    let ours = refund
        .provider_refund_id
        .as_deref()
        .is_none_or(|id| id == transaction)
        || payment.provider_payment_id.as_deref() == Some(transaction);
    if !ours {
        return refuse(
            StatusCode::FORBIDDEN,
            code::INVALID_SIGNATURE,
            "checkout-transaction-id is neither this refund's nor its payment's",
        );
    }
    if let Err(refused) = verify(state, cb, tenant, &payment).await {
        return refused;
    }
    let key = format!("refund:{}:{status}", refund.refund_id);
    let amount = match amount_of(cb) {
        Ok(amount) => amount,
        Err(refused) => return *refused,
    };
    if status == "ok" && amount != refund.amount {
        // Left processing for staff to check at the provider, never completed on it.
        let what = format!("refund {}", refund.refund_id);
        let about = (payment.booking_id, refund.refund_id);
        if !note_other_amount(state, tenant, &what, amount, refund.amount, about).await {
            return processing_failed(key);
        }
        return other_amount(key, what, amount, refund.amount);
    }
    let result = match status {
        "ok" => RefundResult::Completed {
            provider_refund_id: refund
                .provider_refund_id
                .clone()
                .unwrap_or_else(|| transaction.to_owned()),
        },
        "fail" => RefundResult::Failed {
            message: "the bank provider could not return the money (refund callback: fail)"
                .to_owned(),
        },
        "pending" | "delayed" | "new" => {
            return axum::Json(BankCallbackAnswer {
                status: "ok".to_owned(),
                message: format!("refund {} still on its way", refund.refund_id),
                idempotency_key: key,
                processed: false,
                error: None,
            })
            .into_response();
        }
        _ => {
            return refuse(
                StatusCode::BAD_REQUEST,
                code::VALIDATION_ERROR,
                "checkout-status must be ok, fail, pending or delayed",
            );
        }
    };
    let actor = Actor::system(Provider::Bankpay.as_str());
    match state
        .store
        .finish_refund(tenant, refund.refund_id, result, &actor, state.now())
        .await
    {
        Ok(changed) => axum::Json(BankCallbackAnswer {
            status: "ok".to_owned(),
            message: if changed {
                format!(
                    "refund {} {}",
                    refund.refund_id,
                    if status == "ok" {
                        "completed"
                    } else {
                        "failed"
                    }
                )
            } else {
                format!("refund {} was finished before", refund.refund_id)
            },
            idempotency_key: key,
            processed: changed,
            error: (!changed).then(|| code::DUPLICATE_EVENT.to_owned()),
        })
        .into_response(),
        Err(e) => {
            tracing::warn!(idempotency_key = %key, error = %e, "bankpay refund callback failed");
            processing_failed(key)
        }
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
