//! The card provider's webhook (spec Part B 4.6, 5, 6): `POST /payments/cardpay/webhook`
//! (no `/api/v1` prefix) and its health.
//!
//! 1. The signature header (`cardpay-signature`, or `Stripe-Signature` as Stripe itself
//!    sends it) is required: without it, 400 INVALID_SIGNATURE.
//! 2. The signing secret is the account's that made the payment: the event's
//!    PaymentIntent (`data.object.id`, or `data.object.payment_intent` for charges and
//!    disputes) names a payment, whose recorded credentials give the secret. An event for
//!    no known payment uses the secrets of the tenant in `?tenant=` (the address given to
//!    the provider may carry it) or in `data.object.metadata.tenant_id`. Nothing else of
//!    the body is read before the signature is verified over the raw bytes.
//! 3. A bad signature, a stale (over 300 s) or future (over 60 s) timestamp: 400
//!    INVALID_SIGNATURE (the provider does not retry a 400).
//! 4. Each event id is processed once: a repeat answers 200 with the first answer and
//!    `error: DUPLICATE_EVENT`. Processing that fails answers 500 (the provider retries)
//!    and is rolled back, so the retry processes it.

use super::provider::{account_of_payment, open_account};
use crate::error::{ApiError, ErrorBody, code};
use crate::extract::{AdminAuth, Query, Staff, can};
use crate::state::AppState;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use chrono::{DateTime, Utc};
use kairos_domain::TenantId;
use kairos_domain::payments::cardpay_signature::{self, SignatureError};
use kairos_domain::payments::credentials::{CredentialSource, Provider};
use kairos_store::{Actor, Dispute, PAID_AFTER_CLOSE, ProviderEvent};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::{IntoParams, ToSchema};

/// The card webhook's answer (spec Part B 4.6).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct WebhookAnswer {
    pub received: bool,
    /// Whether the event changed something (false: ignored, nothing to do, or a repeat).
    pub processed: bool,
    pub event_id: String,
    pub message: String,
    /// `DUPLICATE_EVENT` when the event was processed before (the first answer is
    /// repeated; nothing runs again); `GIFT_CARD_ALREADY_PAID` when another event paid
    /// the gift card purchase before (no second voucher).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// Query of the card webhook.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct WebhookQuery {
    /// The tenant whose secrets verify events about no known payment.
    pub tenant: Option<String>,
}

fn invalid(message: impl Into<String>) -> (StatusCode, Response) {
    let e = ApiError::new(StatusCode::BAD_REQUEST, code::INVALID_SIGNATURE, message);
    (StatusCode::BAD_REQUEST, e.into_response())
}

/// The PaymentIntent an event is about, and the tenant its metadata names: read only to
/// choose the signing secret.
fn peek(body: &[u8]) -> (Option<String>, Option<String>) {
    let Ok(v) = serde_json::from_slice::<Value>(body) else {
        return (None, None);
    };
    let object = &v["data"]["object"];
    let intent = if object["object"] == "payment_intent" {
        object["id"].as_str()
    } else {
        object["payment_intent"].as_str()
    };
    (
        intent.map(str::to_owned),
        object["metadata"]["tenant_id"].as_str().map(str::to_owned),
    )
}

/// The (tenant, secret) pairs that may have signed an event.
async fn candidates(
    state: &AppState,
    tenant_hint: Option<&str>,
    body: &[u8],
) -> Result<Vec<(TenantId, String)>, ApiError> {
    let (intent, metadata_tenant) = peek(body);
    if let Some(intent) = intent
        && let Some((tenant, payment)) = state
            .store
            .online_payment_by_provider_id(Provider::Cardpay, &intent)
            .await?
    {
        let account = account_of_payment(state, &tenant, &payment).await?;
        return Ok(account
            .and_then(|a| a.webhook_secret)
            .map(|secret| vec![(tenant, secret)])
            .unwrap_or_default());
    }
    let Some(tenant) = tenant_hint
        .or(metadata_tenant.as_deref())
        .and_then(|t| TenantId::parse(t).ok())
    else {
        return Ok(Vec::new());
    };
    let mut out = Vec::new();
    for c in state.store.list_payment_credentials(&tenant).await? {
        if c.provider != Provider::Cardpay {
            continue;
        }
        let source = if c.site_id.is_some() {
            CredentialSource::Site
        } else {
            CredentialSource::Tenant
        };
        if let Some(secret) = open_account(state, &tenant, &c, source)?.webhook_secret {
            out.push((tenant.clone(), secret));
        }
    }
    Ok(out)
}

/// Refunds money that arrived for a booking that can no longer take it. Its dead letter
/// (written with the event) stays open, for staff, until the refund is made: a crash or a
/// provider failure here leaves the work visible.
pub(super) async fn refund_after_close(
    state: &AppState,
    tenant: &TenantId,
    provider: Provider,
    intent: &str,
) {
    let payment = match state
        .store
        .online_payment_by_provider_id(provider, intent)
        .await
    {
        Ok(Some((_, p))) => p,
        Ok(None) => return,
        Err(e) => {
            tracing::warn!(error = %e, "automatic refund: payment not read");
            return;
        }
    };
    let refunded = super::refunds::refund_payment(
        state,
        tenant,
        payment.id,
        None,
        Some("paid after the booking closed".to_owned()),
        &Actor::system("payments"),
    )
    .await;
    // A refund made closes the money's dead letter (`finish_refund`); one the bank
    // reports later closes it when its callback completes it.
    match refunded {
        Ok(r) => {
            tracing::info!(payment_id = %payment.id, refund_id = %r.refund_id, "money paid after close refunded");
        }
        Err(e) => {
            tracing::warn!(payment_id = %payment.id, error = %e.message, "automatic refund failed; the dead letter stays open for staff");
        }
    }
}

/// Verifies and processes one card webhook delivery; the status and the answer.
pub async fn receive_cardpay(
    state: &AppState,
    tenant_hint: Option<&str>,
    signature: Option<&str>,
    body: &[u8],
) -> (StatusCode, Response) {
    let Some(signature) = signature.filter(|s| !s.trim().is_empty()) else {
        return invalid("The cardpay-signature header is missing");
    };
    let candidates = match candidates(state, tenant_hint, body).await {
        Ok(c) => c,
        Err(e) => return (e.status, e.into_response()),
    };
    if candidates.is_empty() {
        return invalid(
            "No signing secret for this event: it names no known payment and no tenant with cardpay credentials (add ?tenant=<id> to the webhook address)",
        );
    }
    let now = state.now().timestamp();
    let mut verified = None;
    let mut last_error = SignatureError::Mismatch;
    for (tenant, secret) in candidates {
        match cardpay_signature::verify(signature, body, &secret, now) {
            Ok(_) => {
                verified = Some(tenant);
                break;
            }
            Err(e @ (SignatureError::Stale(_) | SignatureError::Future(_))) => last_error = e,
            Err(e) => {
                if matches!(last_error, SignatureError::Mismatch) {
                    last_error = e;
                }
            }
        }
    }
    let Some(tenant) = verified else {
        return invalid(format!("Invalid signature: {last_error}"));
    };
    let Ok(event) = serde_json::from_slice::<Value>(body) else {
        let e = ApiError::invalid_field("body", "is not a JSON event");
        return (StatusCode::BAD_REQUEST, e.into_response());
    };
    let (Some(event_id), Some(event_type)) = (event["id"].as_str(), event["type"].as_str()) else {
        let e = ApiError::invalid_field("body", "has no event id and type");
        return (StatusCode::BAD_REQUEST, e.into_response());
    };
    if event_id.starts_with("poll:") {
        // The poller's own records of what it settled; no provider sends these.
        let e = ApiError::invalid_field("body", "has an event id no provider sends");
        return (StatusCode::BAD_REQUEST, e.into_response());
    }
    let object = &event["data"]["object"];
    let is_intent = object["object"] == "payment_intent";
    let dispute = (object["object"] == "dispute")
        .then(|| {
            Some(Dispute {
                id: object["id"].as_str()?.to_owned(),
                amount: object["amount"].as_i64()?,
                currency: object["currency"].as_str()?.to_owned(),
                reason: object["reason"].as_str().unwrap_or("general").to_owned(),
            })
        })
        .flatten();
    let parsed = ProviderEvent {
        provider: Provider::Cardpay,
        event_id: event_id.to_owned(),
        event_type: event_type.to_owned(),
        payment_intent: if is_intent {
            object["id"].as_str()
        } else {
            object["payment_intent"].as_str()
        }
        .map(str::to_owned),
        amount: if is_intent {
            object["amount_received"]
                .as_i64()
                .filter(|a| *a > 0)
                .or_else(|| object["amount"].as_i64())
        } else {
            None
        },
        currency: is_intent
            .then(|| object["currency"].as_str().map(str::to_owned))
            .flatten(),
        failure: object["last_payment_error"].as_object().map(|e| {
            (
                e.get("code")
                    .and_then(Value::as_str)
                    .unwrap_or("failed")
                    .to_owned(),
                e.get("message")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_owned(),
            )
        }),
        amount_refunded: (object["object"] == "charge")
            .then(|| object["amount_refunded"].as_i64())
            .flatten(),
        dispute,
    };
    match state
        .store
        .process_provider_event(&tenant, &parsed, state.now())
        .await
    {
        Ok(outcome) => {
            if !outcome.duplicate
                && outcome.code.as_deref() == Some(PAID_AFTER_CLOSE)
                && let Some(intent) = parsed.payment_intent.as_deref()
            {
                refund_after_close(state, &tenant, Provider::Cardpay, intent).await;
            }
            let answer = WebhookAnswer {
                received: true,
                processed: outcome.processed,
                event_id: parsed.event_id,
                message: outcome.message,
                error: if outcome.duplicate {
                    Some(code::DUPLICATE_EVENT.to_owned())
                } else {
                    outcome.code
                },
            };
            (StatusCode::OK, axum::Json(answer).into_response())
        }
        Err(e) => {
            tracing::warn!(event_id = %parsed.event_id, error = %e, "cardpay event failed");
            if let Err(store) = state
                .store
                .record_failed_event(
                    &tenant,
                    Provider::Cardpay,
                    &parsed.event_id,
                    &parsed.event_type,
                    &e.to_string(),
                    state.now(),
                )
                .await
            {
                tracing::warn!(error = %store, "could not record a failed cardpay event");
            }
            let answer = WebhookAnswer {
                received: true,
                processed: false,
                event_id: parsed.event_id,
                message: "processing failed; the provider's retry will process it".to_owned(),
                error: None,
            };
            (
                StatusCode::INTERNAL_SERVER_ERROR,
                axum::Json(answer).into_response(),
            )
        }
    }
}

/// Card provider events (spec Part B 4.6, 6).
///
/// Verifies `cardpay-signature` (Stripe's scheme; `Stripe-Signature` is accepted too)
/// over the raw body with the signing secret of the account the event's payment was made
/// with, then processes the event once: `payment_intent.succeeded` (the booking becomes
/// `paid`, or a gift card purchase gets its voucher and delivery email; amount and
/// currency must match the payment), `payment_intent.payment_failed` (the payment
/// becomes FAILED); other types are acknowledged and ignored. No bearer
/// token and no tenant header: the signature is the authentication.
#[utoipa::path(post, path = "/payments/cardpay/webhook", tag = "payments", security(()),
    params(WebhookQuery,
        ("cardpay-signature" = Option<String>, Header, description = "t=<unix seconds>,v1=<hex HMAC-SHA256 of \"{t}.{body}\">")),
    request_body(content = Object, description = "The provider's event, as it sends it", content_type = "application/json"),
    responses((status = 200, description = "Received; DUPLICATE_EVENT in `error` for a repeat", body = WebhookAnswer),
        (status = 400, description = "INVALID_SIGNATURE: missing, malformed, wrong, stale or future signature; VALIDATION_ERROR: not an event", body = ErrorBody),
        (status = 500, description = "Processing failed: the provider retries", body = WebhookAnswer)))]
pub async fn cardpay_webhook(
    State(state): State<AppState>,
    Query(q): Query<WebhookQuery>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let signature = headers
        .get("cardpay-signature")
        .or_else(|| headers.get("stripe-signature"))
        .and_then(|v| v.to_str().ok());
    receive_cardpay(&state, q.tenant.as_deref(), signature, &body)
        .await
        .1
}

/// Counts of a provider's events.
#[derive(Debug, Serialize, ToSchema)]
pub struct WebhookStats {
    pub total_events_processed: i64,
    pub events_last_hour: i64,
    pub duplicate_events_rejected: i64,
    pub failed_events: i64,
}

/// A webhook's health (spec Part B 4.6).
#[derive(Debug, Serialize, ToSchema)]
pub struct WebhookHealth {
    /// `ok`
    pub status: String,
    pub timestamp: DateTime<Utc>,
    /// The caller's tenant's event counts: only for a staff token (with `x-tenant-id`);
    /// left out for anyone else.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub stats: Option<WebhookStats>,
}

impl WebhookHealth {
    /// The status, and `provider`'s event counts of the staff member's tenant, if any.
    pub(super) async fn of(
        state: &AppState,
        staff: Option<&AdminAuth>,
        provider: Provider,
    ) -> Result<axum::Json<WebhookHealth>, ApiError> {
        let stats = match staff {
            None => None,
            Some(staff) => {
                let s = state
                    .store
                    .payment_event_stats(staff.tenant.id(), provider, state.now())
                    .await?;
                Some(WebhookStats {
                    total_events_processed: s.total_events_processed,
                    events_last_hour: s.events_last_hour,
                    duplicate_events_rejected: s.duplicate_events_rejected,
                    failed_events: s.failed_events,
                })
            }
        };
        Ok(axum::Json(WebhookHealth {
            status: "ok".to_owned(),
            timestamp: state.now(),
            stats,
        }))
    }
}

/// The card webhook's health.
///
/// Anyone gets the status; a staff token (with `x-tenant-id`) adds its tenant's event
/// counts. A token that is given is checked (401, 403 as elsewhere).
#[utoipa::path(post, path = "/payments/cardpay/webhook/health", tag = "payments",
    security((), ("bearer" = [])),
    responses((status = 200, body = WebhookHealth),
        (status = 400, description = "VALIDATION_ERROR: a token without `x-tenant-id`", body = ErrorBody),
        (status = 404, description = "NOT_FOUND: with a token, the tenant `x-tenant-id` names", body = ErrorBody)))]
pub async fn cardpay_webhook_health(
    State(state): State<AppState>,
    staff: Option<Staff<can::Read>>,
) -> Result<axum::Json<WebhookHealth>, ApiError> {
    WebhookHealth::of(&state, staff.as_deref(), Provider::Cardpay).await
}
