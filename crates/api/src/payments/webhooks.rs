//! The card provider's webhook (spec Part B 4.6, 5, 6): `POST /payments/cardpay/webhook`
//! (no `/api/v1` prefix) and its health. The delivery is verified and settled by the
//! application (`kairos_app::payments::card_events`):
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

use crate::error::{ApiError, ErrorBody};
use crate::extract::{AdminAuth, Query, Staff, can};
use crate::state::AppState;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use chrono::{DateTime, Utc};
use kairos_app::payments::card_events::{self, EventAnswer, Receipt};
use kairos_domain::payments::credentials::Provider;
use serde::{Deserialize, Serialize};
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

/// The webhook's HTTP answer to what the application made of a delivery.
fn answer(receipt: Receipt) -> Response {
    let body = |a: EventAnswer| WebhookAnswer {
        received: true,
        processed: a.processed,
        event_id: a.event_id,
        message: a.message,
        error: a.error,
    };
    match receipt {
        Receipt::Answered(a) => axum::Json(body(a)).into_response(),
        Receipt::Failed(a) => {
            (StatusCode::INTERNAL_SERVER_ERROR, axum::Json(body(a))).into_response()
        }
        Receipt::Refused(e) => ApiError::from(e).into_response(),
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
    answer(card_events::receive(&state.app, q.tenant.as_deref(), signature, &body).await)
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
