//! Settling what the card provider reports (spec Part B 4.6, 5, 6): one webhook delivery
//! verified, read into a typed event and processed once.
//!
//! 1. The signature is required: without it, INVALID_SIGNATURE.
//! 2. The signing secret is the account's that made the payment: the event's
//!    PaymentIntent names a payment, whose recorded credentials give the secret. An event
//!    for no known payment uses the secrets of the tenant the webhook address names
//!    (`?tenant=`) or the object's `metadata.tenant_id`. Nothing else of the body is used
//!    before the signature is verified over the raw bytes.
//! 3. A bad signature, a stale (over 300 s) or future (over 60 s) timestamp:
//!    INVALID_SIGNATURE (the provider does not retry a 400).
//! 4. Each event id is processed once: a repeat answers the first answer with
//!    `DUPLICATE_EVENT`. Processing that fails is rolled back and answered as a failure
//!    (the provider retries, and the retry processes it).
//! 5. Money that arrives for a booking that can no longer take it is refunded at once
//!    (its dead letter stays open for staff until the refund is made).

use super::accounts::{account_of_payment, open_account};
use super::providers::stripe_events::CardEvent;
use super::refund::refund_payment;
use crate::App;
use crate::error::{AppError, Failure, code};
use http::StatusCode;
use kairos_domain::TenantId;
use kairos_domain::payments::cardpay_signature::{self, SignatureError};
use kairos_domain::payments::credentials::{CredentialSource, Provider};
use kairos_store::{Actor, PAID_AFTER_CLOSE, ProviderEvent};

/// What processing an event answered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EventAnswer {
    /// Whether the event changed something (false: ignored, nothing to do, or a repeat).
    pub processed: bool,
    pub event_id: String,
    pub message: String,
    /// `DUPLICATE_EVENT` for a repeat; the outcome's own code otherwise (for example
    /// `PAID_AFTER_CLOSE`, `GIFT_CARD_ALREADY_PAID`).
    pub error: Option<String>,
}

/// What became of a delivery.
#[derive(Debug)]
pub enum Receipt {
    /// Processed, or a repeat: the provider stops sending it.
    Answered(EventAnswer),
    /// Processing failed and was rolled back: the provider's retry processes it.
    Failed(EventAnswer),
    /// Not an event this service may process (signature, body), or the secrets could not
    /// be read.
    Refused(AppError),
}

impl Receipt {
    /// Whether the provider should send the event again.
    pub fn retry(&self) -> bool {
        match self {
            Receipt::Answered(_) => false,
            Receipt::Failed(_) => true,
            Receipt::Refused(AppError::Failure(f)) => f.status.is_server_error(),
            Receipt::Refused(_) => true,
        }
    }
}

fn invalid(message: impl Into<String>) -> Receipt {
    Receipt::Refused(Failure::new(StatusCode::BAD_REQUEST, code::INVALID_SIGNATURE, message).into())
}

fn bad_body(message: &str) -> Receipt {
    Receipt::Refused(Failure::invalid_field("body", message).into())
}

/// The (tenant, secret) pairs that may have signed an event.
async fn candidates(
    app: &App,
    tenant_hint: Option<&str>,
    body: &[u8],
) -> Result<Vec<(TenantId, String)>, AppError> {
    let peeked = CardEvent::parse(body);
    let intent = peeked.as_ref().and_then(CardEvent::payment_intent);
    if let Some(intent) = intent
        && let Some((tenant, payment)) = app
            .store
            .online_payment_by_provider_id(Provider::Cardpay, intent)
            .await?
    {
        let account = account_of_payment(app, &tenant, &payment).await?;
        return Ok(account
            .and_then(|a| a.webhook_secret)
            .map(|secret| vec![(tenant, secret)])
            .unwrap_or_default());
    }
    let Some(tenant) = tenant_hint
        .or(peeked.as_ref().and_then(CardEvent::metadata_tenant))
        .and_then(|t| TenantId::parse(t).ok())
    else {
        return Ok(Vec::new());
    };
    let mut out = Vec::new();
    for c in app.store.list_payment_credentials(&tenant).await? {
        if c.provider != Provider::Cardpay {
            continue;
        }
        let source = if c.site_id.is_some() {
            CredentialSource::Site
        } else {
            CredentialSource::Tenant
        };
        if let Some(secret) = open_account(app, &tenant, &c, source)?.webhook_secret {
            out.push((tenant.clone(), secret));
        }
    }
    Ok(out)
}

/// The tenant whose secret signed the body, or why none did.
async fn verified_tenant(
    app: &App,
    tenant_hint: Option<&str>,
    signature: &str,
    body: &[u8],
) -> Result<TenantId, Receipt> {
    let candidates = candidates(app, tenant_hint, body)
        .await
        .map_err(Receipt::Refused)?;
    if candidates.is_empty() {
        return Err(invalid(
            "No signing secret for this event: it names no known payment and no tenant with cardpay credentials (add ?tenant=<id> to the webhook address)",
        ));
    }
    let now = app.now().timestamp();
    let mut last_error = SignatureError::Mismatch;
    for (tenant, secret) in candidates {
        match cardpay_signature::verify(signature, body, &secret, now) {
            Ok(_) => return Ok(tenant),
            Err(e @ (SignatureError::Stale(_) | SignatureError::Future(_))) => last_error = e,
            Err(e) => {
                if matches!(last_error, SignatureError::Mismatch) {
                    last_error = e;
                }
            }
        }
    }
    Err(invalid(format!("Invalid signature: {last_error}")))
}

/// Refunds money that arrived for a booking that can no longer take it. Its dead letter
/// (written with the event) stays open, for staff, until the refund is made: a crash or a
/// provider failure here leaves the work visible.
pub async fn refund_after_close(app: &App, tenant: &TenantId, provider: Provider, reference: &str) {
    let payment = match app
        .store
        .online_payment_by_provider_id(provider, reference)
        .await
    {
        Ok(Some((_, p))) => p,
        Ok(None) => return,
        Err(e) => {
            tracing::warn!(error = %e, "automatic refund: payment not read");
            return;
        }
    };
    let refunded = refund_payment(
        app,
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
            tracing::warn!(payment_id = %payment.id, error = %e.message(), "automatic refund failed; the dead letter stays open for staff");
        }
    }
}

/// Verifies and processes one card webhook delivery (`tenant_hint`: the webhook address's
/// `?tenant=`).
pub async fn receive(
    app: &App,
    tenant_hint: Option<&str>,
    signature: Option<&str>,
    body: &[u8],
) -> Receipt {
    let Some(signature) = signature.filter(|s| !s.trim().is_empty()) else {
        return invalid("The cardpay-signature header is missing");
    };
    let tenant = match verified_tenant(app, tenant_hint, signature, body).await {
        Ok(t) => t,
        Err(refused) => return refused,
    };
    let Some(event) = CardEvent::parse(body) else {
        return bad_body("is not a JSON event");
    };
    if !event.is_event() {
        return bad_body("has no event id and type");
    }
    if event.id.starts_with("poll:") {
        // The poller's own records of what it settled; no provider sends these.
        return bad_body("has an event id no provider sends");
    }
    let parsed = ProviderEvent {
        provider: Provider::Cardpay,
        event_id: event.id.clone(),
        event_type: event.kind.clone(),
        payment_intent: event.payment_intent().map(str::to_owned),
        payment_id: event.metadata_payment(),
        report: event.report(),
    };
    settle(app, &tenant, &parsed).await
}

/// Processes a verified provider event once, and refunds money that came after its
/// booking closed.
pub async fn settle(app: &App, tenant: &TenantId, event: &ProviderEvent) -> Receipt {
    match app
        .store
        .process_provider_event(tenant, event, app.now())
        .await
    {
        Ok(outcome) => {
            if !outcome.duplicate
                && outcome.code.as_deref() == Some(PAID_AFTER_CLOSE)
                && let Some(reference) = event.payment_intent.as_deref()
            {
                refund_after_close(app, tenant, event.provider, reference).await;
            }
            Receipt::Answered(EventAnswer {
                processed: outcome.processed,
                event_id: event.event_id.clone(),
                message: outcome.message,
                error: if outcome.duplicate {
                    Some(code::DUPLICATE_EVENT.to_owned())
                } else {
                    outcome.code
                },
            })
        }
        Err(e) => {
            tracing::warn!(provider = %event.provider, event_id = %event.event_id, error = %e, "provider event failed");
            if let Err(store) = app
                .store
                .record_failed_event(
                    tenant,
                    event.provider,
                    &event.event_id,
                    &event.event_type,
                    &e.to_string(),
                    app.now(),
                )
                .await
            {
                tracing::warn!(error = %store, "could not record a failed provider event");
            }
            Receipt::Failed(EventAnswer {
                processed: false,
                event_id: event.event_id.clone(),
                message: "processing failed; the provider's retry will process it".to_owned(),
                error: None,
            })
        }
    }
}
