//! Reaching a payment's provider account: credentials chosen site → tenant (spec
//! Part B 4.6), opened once into a [`CardProvider`] (Stripe's HTTP API, or the built-in
//! sandbox for credentials marked `sandbox`); the provider failures as the spec's errors.

use super::credentials::seal_context;
use super::providers::sandbox::webhook_secret;
use super::providers::stripe::CardpayClient;
use super::providers::{CardProvider, ProviderError};
use crate::App;
use crate::error::{AppResult, Failure, code};
use http::StatusCode;
use kairos_domain::TenantId;
use kairos_domain::payments::credentials::{CredentialSource, Provider, choose};
use kairos_store::{OnlinePayment, StoredCredentials};
use serde_json::json;
use std::sync::Arc;
use uuid::Uuid;

/// The account a payment goes through, and where it came from.
#[derive(Clone)]
pub struct Account {
    pub cardpay: Arc<dyn CardProvider>,
    pub source: CredentialSource,
    /// The site whose credentials these are (None: the tenant's).
    pub site: Option<Uuid>,
    /// The webhook signing secret.
    pub webhook_secret: Option<String>,
    /// A real account's publishable key, for the provider's card element in the
    /// customer's browser (None for sandbox accounts, whose pages post test cards).
    pub publishable_key: Option<String>,
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

/// Opens stored credentials into an account.
pub fn open_account(
    app: &App,
    tenant: &TenantId,
    c: &StoredCredentials,
    source: CredentialSource,
) -> AppResult<Account> {
    let secrets = &app.payments.secrets;
    let open = |field: &str, sealed: &str| {
        secrets
            .open(&seal_context(tenant, c.provider, c.site_id, field), sealed)
            .map_err(|e| Failure::internal(format!("stored {} credentials: {e}", c.provider)))
    };
    let secret_key = open("secretKey", &c.secret_key)?;
    let (cardpay, webhook_secret): (Arc<dyn CardProvider>, _) = if c.sandbox {
        (
            Arc::new(app.sandbox.account(&secret_key)),
            Some(webhook_secret(secrets, &secret_key)),
        )
    } else {
        let webhook = c
            .webhook_secret
            .as_deref()
            .map(|w| open("webhookSecret", w))
            .transpose()?;
        (
            Arc::new(CardpayClient::new(
                app.http.clone(),
                &app.payments.cardpay_api_base,
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
        publishable_key: c.publishable_key.clone().filter(|_| !c.sandbox),
    })
}

/// 400 PAYMENT_FAILED with the spec's details.
pub fn payment_failed(
    provider: Provider,
    provider_code: &str,
    message: impl Into<String>,
    retry_allowed: bool,
    suggested_action: &str,
) -> Failure {
    Failure::new(StatusCode::BAD_REQUEST, code::PAYMENT_FAILED, message).with_details(json!({
        "provider": provider.as_str(),
        "provider_error_code": provider_code,
        "retry_allowed": retry_allowed,
        "suggested_action": suggested_action,
    }))
}

/// A provider failure as the caller is told: a decline is PAYMENT_FAILED (try another
/// card), anything else PROVIDER_ERROR (502, retry later).
pub fn provider_error(provider: Provider, e: ProviderError) -> Failure {
    match e {
        ProviderError::Declined { code, message, .. } => payment_failed(
            provider,
            &code,
            format!("The payment was declined: {message}"),
            true,
            "try another card or payment method",
        ),
        ProviderError::Refused { code, message, .. } => Failure::new(
            StatusCode::BAD_GATEWAY,
            code::PROVIDER_ERROR,
            format!("{provider} refused the request ({code}): {message}"),
        ),
        ProviderError::Unavailable(message) => Failure::new(
            StatusCode::BAD_GATEWAY,
            code::PROVIDER_ERROR,
            format!("{provider} is unavailable ({message}); retry later"),
        ),
    }
}

/// The cardpay account for a payment at `site`: the site's (custom payments), else the
/// tenant's; never the environment's.
pub async fn cardpay_account(
    app: &App,
    tenant: &TenantId,
    site: Option<Uuid>,
) -> AppResult<Account> {
    let (site_creds, tenant_creds) = app
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
    open_account(app, tenant, &chosen.credentials, chosen.source)
}

/// The account a payment was made with (its recorded source), for its capture, refund
/// and events: a payment settles against the account that took it.
pub async fn account_of_payment(
    app: &App,
    tenant: &TenantId,
    payment: &OnlinePayment,
) -> AppResult<Option<Account>> {
    let all = app.store.list_payment_credentials(tenant).await?;
    let wanted_site = match payment.credential_source {
        Some(CredentialSource::Site) => payment.credential_site_id,
        _ => None,
    };
    all.iter()
        .find(|c| c.provider == payment.provider && c.site_id == wanted_site)
        .map(|c| {
            open_account(
                app,
                tenant,
                c,
                payment
                    .credential_source
                    .unwrap_or(CredentialSource::Tenant),
            )
        })
        .transpose()
}

/// Which online providers can take a customer's payment at `site`, by the same choice of
/// account as a payment makes: (cardpay, bankpay).
pub async fn online_providers(
    app: &App,
    tenant: &TenantId,
    site: Option<Uuid>,
) -> AppResult<(bool, bool)> {
    let (site_creds, tenant_creds) = app
        .store
        .payment_credentials_for(tenant, Provider::Cardpay, site)
        .await?;
    let card = choose(Provider::Cardpay, site_creds, tenant_creds, None).is_some();
    let (site_creds, tenant_creds) = app
        .store
        .payment_credentials_for(tenant, Provider::Bankpay, site)
        .await?;
    let env = app.payments.env_bankpay.as_ref().map(|_| ());
    let bank = choose(
        Provider::Bankpay,
        site_creds.map(|_| ()),
        tenant_creds.map(|_| ()),
        env,
    )
    .is_some();
    Ok((card, bank))
}
