//! Reaching a booking's card provider account: credentials chosen site → tenant (spec
//! Part B 4.6), opened, and the account's client (the real API, or the built-in sandbox);
//! the PaymentIntent of a booking's payment made once and found again.

use super::cardpay::{CardpayClient, NewIntent, PaymentIntent, ProviderError, Refund};
use super::credentials::seal_context;
use super::sandbox::{Caller, Outcome, Sandbox, SandboxEvent};
use crate::error::{ApiError, ApiResult, code};
use crate::state::AppState;
use axum::http::StatusCode;
use kairos_domain::TenantId;
use kairos_domain::payments::credentials::{CredentialSource, Provider, choose};
use kairos_store::{OnlinePayment, StoredCredentials};
use serde_json::json;
use std::sync::Arc;
use uuid::Uuid;

/// A card provider account to call.
#[derive(Clone)]
pub enum Cardpay {
    Http(CardpayClient),
    Sandbox { sandbox: Arc<Sandbox>, key: String },
}

impl std::fmt::Debug for Cardpay {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Cardpay::Http(c) => f.debug_tuple("Http").field(c).finish(),
            Cardpay::Sandbox { .. } => f.write_str("Sandbox(..)"),
        }
    }
}

/// The account a payment goes through, and where it came from.
#[derive(Clone)]
pub struct Account {
    pub cardpay: Cardpay,
    pub source: CredentialSource,
    /// The site whose credentials these are (None: the tenant's).
    pub site: Option<Uuid>,
    /// The webhook signing secret.
    pub webhook_secret: Option<String>,
}

impl std::fmt::Debug for Account {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Account")
            .field("cardpay", &self.cardpay)
            .field("source", &self.source)
            .field("site", &self.site)
            .finish_non_exhaustive()
    }
}

impl Cardpay {
    pub async fn create_intent(
        &self,
        new: &NewIntent<'_>,
        key: &str,
        now: i64,
    ) -> Outcome<PaymentIntent> {
        match self {
            Cardpay::Http(c) => (c.create_intent(new, key).await, Vec::new()),
            Cardpay::Sandbox { sandbox, key: sk } => sandbox.create_intent(sk, new, key, now),
        }
    }

    pub async fn retrieve_intent(&self, id: &str) -> Result<PaymentIntent, ProviderError> {
        match self {
            Cardpay::Http(c) => c.retrieve_intent(id).await,
            Cardpay::Sandbox { sandbox, key } => sandbox.retrieve(Caller::SecretKey(key), id),
        }
    }

    pub async fn capture_intent(
        &self,
        id: &str,
        amount: Option<i64>,
        key: &str,
        now: i64,
    ) -> Outcome<PaymentIntent> {
        match self {
            Cardpay::Http(c) => (c.capture_intent(id, amount, key).await, Vec::new()),
            Cardpay::Sandbox { sandbox, key: sk } => match sandbox.capture(sk, id, amount, now) {
                Ok((pi, events)) => (Ok(pi), events),
                Err(e) => (Err(e), Vec::new()),
            },
        }
    }

    /// Cancels an intent nobody paid (so the customer cannot pay it later).
    pub async fn cancel_intent(&self, id: &str, key: &str) -> Result<(), ProviderError> {
        match self {
            Cardpay::Http(c) => c.cancel_intent(id, key).await.map(|_| ()),
            Cardpay::Sandbox { sandbox, key: sk } => sandbox.cancel(sk, id).map(|_| ()),
        }
    }

    pub async fn refund(&self, intent: &str, amount: i64, key: &str, now: i64) -> Outcome<Refund> {
        match self {
            Cardpay::Http(c) => (c.refund(intent, amount, &[], key).await, Vec::new()),
            Cardpay::Sandbox { sandbox, key: sk } => {
                match sandbox.refund(sk, intent, Some(amount), key, now) {
                    Ok((r, events)) => (Ok(r), events),
                    Err(e) => (Err(e), Vec::new()),
                }
            }
        }
    }
}

/// Opens stored credentials into an account.
pub fn open_account(
    state: &AppState,
    tenant: &TenantId,
    c: &StoredCredentials,
    source: CredentialSource,
) -> ApiResult<Account> {
    let secrets = &state.config.payments.secrets;
    let open = |field: &str, sealed: &str| {
        secrets
            .open(&seal_context(tenant, c.provider, c.site_id, field), sealed)
            .map_err(|e| ApiError::internal(format!("stored {} credentials: {e}", c.provider)))
    };
    let secret_key = open("secretKey", &c.secret_key)?;
    let (cardpay, webhook_secret) = if c.sandbox {
        (
            Cardpay::Sandbox {
                sandbox: state.sandbox.clone(),
                key: secret_key.clone(),
            },
            Some(super::sandbox::webhook_secret(secrets, &secret_key)),
        )
    } else {
        let webhook = c
            .webhook_secret
            .as_deref()
            .map(|w| open("webhookSecret", w))
            .transpose()?;
        (
            Cardpay::Http(CardpayClient::new(
                state.http.clone(),
                &state.config.payments.cardpay_api_base,
                &secret_key,
            )),
            webhook,
        )
    };
    Ok(Account {
        cardpay,
        source,
        site: c.site_id,
        webhook_secret,
    })
}

/// 400 PAYMENT_FAILED with the spec's details.
pub fn payment_failed(
    provider: Provider,
    provider_code: &str,
    message: impl Into<String>,
    retry_allowed: bool,
    suggested_action: &str,
) -> ApiError {
    ApiError::new(StatusCode::BAD_REQUEST, code::PAYMENT_FAILED, message).with_details(json!({
        "provider": provider.as_str(),
        "provider_error_code": provider_code,
        "retry_allowed": retry_allowed,
        "suggested_action": suggested_action,
    }))
}

/// A provider failure as the API answers it: a decline is PAYMENT_FAILED (try another
/// card), anything else PROVIDER_ERROR (502, retry later).
pub fn provider_error(provider: Provider, e: ProviderError) -> ApiError {
    match e {
        ProviderError::Declined { code, message, .. } => payment_failed(
            provider,
            &code,
            format!("The payment was declined: {message}"),
            true,
            "try another card or payment method",
        ),
        ProviderError::Refused { code, message, .. } => ApiError::new(
            StatusCode::BAD_GATEWAY,
            code::PROVIDER_ERROR,
            format!("{provider} refused the request ({code}): {message}"),
        ),
        ProviderError::Unavailable(message) => ApiError::new(
            StatusCode::BAD_GATEWAY,
            code::PROVIDER_ERROR,
            format!("{provider} is unavailable ({message}); retry later"),
        ),
    }
}

/// The cardpay account for a payment at `site`: the site's (custom payments), else the
/// tenant's; never the environment's.
pub async fn cardpay_account(
    state: &AppState,
    tenant: &TenantId,
    site: Option<Uuid>,
) -> ApiResult<Account> {
    let (site_creds, tenant_creds) = state
        .store
        .payment_credentials_for(tenant, Provider::Cardpay, site)
        .await?;
    let chosen = choose(Provider::Cardpay, site_creds, tenant_creds, None).ok_or_else(|| {
        payment_failed(
            Provider::Cardpay,
            "not_configured",
            "Card payments are not configured for this venue",
            false,
            "pay another way, or ask the venue to configure cardpay",
        )
    })?;
    open_account(state, tenant, &chosen.credentials, chosen.source)
}

/// The account a payment was made with (its recorded source), for its capture, refund
/// and events: a payment settles against the account that took it.
pub async fn account_of_payment(
    state: &AppState,
    tenant: &TenantId,
    payment: &OnlinePayment,
) -> ApiResult<Option<Account>> {
    let all = state.store.list_payment_credentials(tenant).await?;
    let wanted_site = match payment.credential_source {
        Some(CredentialSource::Site) => payment.credential_site_id,
        _ => None,
    };
    all.iter()
        .find(|c| c.provider == payment.provider && c.site_id == wanted_site)
        .map(|c| {
            open_account(
                state,
                tenant,
                c,
                payment
                    .credential_source
                    .unwrap_or(CredentialSource::Tenant),
            )
        })
        .transpose()
}

/// Sends the sandbox's events to the card webhook, as a provider would: signed, a moment
/// later, retried a few times on a 5xx.
pub fn deliver_sandbox_events(state: &AppState, events: Vec<SandboxEvent>) {
    for e in events {
        let state = state.clone();
        tokio::spawn(async move {
            let body = serde_json::to_vec(&e.body).unwrap_or_default();
            let secret =
                super::sandbox::webhook_secret(&state.config.payments.secrets, &e.secret_key);
            for wait in [200u64, 1000, 5000, 30_000] {
                tokio::time::sleep(std::time::Duration::from_millis(wait)).await;
                let now = state.now().timestamp();
                let header =
                    kairos_domain::payments::cardpay_signature::header(&secret, now, &body);
                let status = super::webhooks::receive_cardpay(&state, None, Some(&header), &body)
                    .await
                    .0;
                if !status.is_server_error() {
                    break;
                }
            }
        });
    }
}

/// Makes (once) or finds the PaymentIntent of an online payment, recording its id and
/// account. The provider call runs outside any transaction; its idempotency key is the
/// payment's id, so a retry after a crash finds the same intent.
pub async fn ensure_intent(
    state: &AppState,
    tenant: &TenantId,
    payment: &OnlinePayment,
    manual_capture: bool,
) -> ApiResult<PaymentIntent> {
    if let Some(id) = &payment.provider_payment_id {
        let account = account_of_payment(state, tenant, payment)
            .await?
            .ok_or_else(|| {
                ApiError::internal("the account of a card payment is no longer configured")
            })?;
        return account
            .cardpay
            .retrieve_intent(id)
            .await
            .map_err(|e| provider_error(Provider::Cardpay, e));
    }
    let account = cardpay_account(state, tenant, payment.site_id).await?;
    let mut metadata = vec![
        ("tenant_id", tenant.to_string()),
        ("payment_id", payment.id.to_string()),
    ];
    if let Some(purchase) = payment.gift_card_purchase_id {
        // As spec Part A 6 shows the event's metadata.
        metadata.push(("type", "gift_card_purchase".to_owned()));
        metadata.push(("purchase_id", purchase.to_string()));
    } else {
        metadata.push(("type", "booking".to_owned()));
    }
    if let Some(b) = payment.booking_id {
        metadata.push(("booking_id", b.to_string()));
    }
    let (result, events) = account
        .cardpay
        .create_intent(
            &NewIntent {
                amount: payment.amount,
                currency: &payment.currency,
                manual_capture,
                payment_method: None,
                metadata: &metadata,
            },
            &format!("kairos-payment-{}", payment.id),
            state.now().timestamp(),
        )
        .await;
    deliver_sandbox_events(state, events);
    let intent = result.map_err(|e| provider_error(Provider::Cardpay, e))?;
    state
        .store
        .attach_provider_payment(
            tenant,
            payment.id,
            &intent.id,
            (account.source, account.site),
            None,
            state.now(),
        )
        .await?;
    Ok(intent)
}

/// What the customer does to pay a booking online (the `payment` of a confirm answer).
#[derive(Debug, Clone, serde::Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PaymentAction {
    pub payment_id: Uuid,
    #[schema(example = "cardpay")]
    pub provider: String,
    /// The payment's status (PENDING until the provider confirms it, then COMPLETED).
    #[schema(example = "PENDING")]
    pub status: String,
    /// Minor units.
    pub amount: i64,
    /// Lower case, as the provider writes it.
    #[schema(example = "eur")]
    pub currency: String,
    /// cardpay: the PaymentIntent and its client secret, for the provider's browser
    /// library to collect and confirm the card.
    pub payment_intent_id: Option<String>,
    pub client_secret: Option<String>,
    /// The provider's status of the intent (`requires_payment_method`, `succeeded`, …).
    pub provider_status: Option<String>,
    /// Whether the customer must still act (enter a card, pass 3-D Secure).
    pub requires_action: bool,
    /// Sandbox accounts only: where a test card confirms the payment
    /// (`POST` with `client_secret` and `payment_method=pm_card_visa`).
    pub sandbox_confirm_url: Option<String>,
    /// bankpay: the provider's page where the customer chooses a bank and pays.
    pub redirect_url: Option<String>,
}

fn intent_status_text(s: &super::cardpay::IntentStatus) -> String {
    use super::cardpay::IntentStatus as S;
    match s {
        S::RequiresPaymentMethod => "requires_payment_method",
        S::RequiresConfirmation => "requires_confirmation",
        S::RequiresAction => "requires_action",
        S::Processing => "processing",
        S::RequiresCapture => "requires_capture",
        S::Canceled => "canceled",
        S::Succeeded => "succeeded",
        S::Other(o) => o,
    }
    .to_owned()
}

/// Starts (or finds again) the provider side of a booking's open online payment and says
/// what the customer does next (cardpay: the client secret; bankpay: the page to pay at,
/// with `returns` for the browser's way back); `None` when the booking has no open online
/// payment.
pub async fn payment_action(
    state: &AppState,
    tenant: &TenantId,
    booking: Uuid,
    payment_method: Option<&str>,
    manual_capture: bool,
    returns: &super::bank_redirect::ReturnUrls,
) -> ApiResult<Option<PaymentAction>> {
    let Some(payment) = state.store.open_online_payment(tenant, booking).await? else {
        return Ok(None);
    };
    if payment.provider == Provider::Bankpay {
        return super::bank_redirect::bank_action(state, tenant, &payment, returns)
            .await
            .map(Some);
    }
    action_for_payment(state, tenant, &payment, payment_method, manual_capture)
        .await
        .map(Some)
}

/// Starts (or finds again) the provider side of an open cardpay payment (a booking's or
/// a gift card purchase's) and says what the customer does next.
pub async fn action_for_payment(
    state: &AppState,
    tenant: &TenantId,
    payment: &OnlinePayment,
    payment_method: Option<&str>,
    manual_capture: bool,
) -> ApiResult<PaymentAction> {
    let mut intent = ensure_intent(state, tenant, payment, manual_capture).await?;
    if let Some(pm) = payment_method
        && matches!(
            intent.status,
            super::cardpay::IntentStatus::RequiresPaymentMethod
                | super::cardpay::IntentStatus::RequiresConfirmation
        )
    {
        intent = confirm_intent(state, tenant, payment, &intent.id, pm).await?;
    }
    let sandbox = matches!(
        account_of_payment(state, tenant, payment)
            .await?
            .map(|a| a.cardpay),
        Some(Cardpay::Sandbox { .. })
    );
    let requires_action = matches!(
        intent.status,
        super::cardpay::IntentStatus::RequiresPaymentMethod
            | super::cardpay::IntentStatus::RequiresConfirmation
            | super::cardpay::IntentStatus::RequiresAction
    );
    Ok(PaymentAction {
        payment_id: payment.id,
        provider: payment.provider.as_str().to_owned(),
        status: payment.status.as_str().to_owned(),
        amount: payment.amount,
        currency: payment.currency.to_ascii_lowercase(),
        sandbox_confirm_url: sandbox
            .then(|| format!("/sandbox/cardpay/v1/payment_intents/{}/confirm", intent.id)),
        payment_intent_id: Some(intent.id),
        client_secret: intent.client_secret,
        provider_status: Some(intent_status_text(&intent.status)),
        requires_action,
        redirect_url: None,
    })
}

/// Confirms the intent with a payment method the customer gave (`paymentMethodId`): a
/// decline is PAYMENT_FAILED (the failure event makes the payment FAILED).
async fn confirm_intent(
    state: &AppState,
    tenant: &TenantId,
    payment: &OnlinePayment,
    intent: &str,
    payment_method: &str,
) -> ApiResult<PaymentIntent> {
    let account = account_of_payment(state, tenant, payment)
        .await?
        .ok_or_else(|| ApiError::internal("the account of a card payment is gone"))?;
    let now = state.now().timestamp();
    let (result, events) = match &account.cardpay {
        Cardpay::Http(c) => (
            c.confirm_intent(
                intent,
                payment_method,
                &format!("kairos-confirm-{}", payment.id),
            )
            .await,
            Vec::new(),
        ),
        Cardpay::Sandbox { sandbox, key } => {
            sandbox.confirm(Caller::SecretKey(key), intent, Some(payment_method), now)
        }
    };
    deliver_sandbox_events(state, events);
    result.map_err(|e| provider_error(Provider::Cardpay, e))
}

/// Cancels at the provider the intents of a booking's card payments canceled with it, so
/// that the customer cannot pay a cancelled booking later. Best effort: an intent paid
/// in the meantime answers an error here, and its success event records the money for
/// staff (PAID_AFTER_CLOSE).
pub async fn cancel_at_provider(state: &AppState, tenant: &TenantId, booking: Uuid) {
    let payments = match state.store.canceled_card_payments(tenant, booking).await {
        Ok(p) => p,
        Err(e) => {
            tracing::warn!(booking_id = %booking, error = %e, "card payments of a cancelled booking");
            return;
        }
    };
    for payment in payments {
        let Some(intent) = payment.provider_payment_id.as_deref() else {
            continue;
        };
        let account = match account_of_payment(state, tenant, &payment).await {
            Ok(Some(a)) => a,
            Ok(None) => continue,
            Err(e) => {
                tracing::warn!(payment_id = %payment.id, error = %e.message, "account of a canceled payment");
                continue;
            }
        };
        let result = account
            .cardpay
            .cancel_intent(intent, &format!("kairos-cancel-{}", payment.id))
            .await;
        if let Err(e) = result {
            tracing::info!(payment_id = %payment.id, error = %e, "intent of a cancelled booking not canceled at cardpay");
        }
    }
}
