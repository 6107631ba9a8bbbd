//! Paying a booking by bank redirect (bankpay, Paytrail's API): the account chosen site →
//! tenant → environment (spec Part B 4.6), the provider's payment made once per Kairos
//! payment (its `stamp` is the payment's id) and the page the customer goes to.

use super::accounts::{payment_failed, provider_error};
use super::credentials::seal_context;
use super::intents::PaymentAction;
use super::providers::BankProvider;
use super::providers::bank::{BankPayment, Customer, NewBankPayment, Urls};
use super::providers::paytrail::BankpayClient;
use crate::App;
use crate::error::{AppResult, Failure};
use kairos_domain::TenantId;
use kairos_domain::payments::credentials::{CredentialSource, Provider, choose};
use kairos_store::{OnlinePayment, StoredCredentials};
use std::sync::Arc;
use uuid::Uuid;

/// A bankpay account to call, and where it came from.
#[derive(Debug, Clone)]
pub struct BankAccount {
    pub client: Arc<dyn BankProvider>,
    pub source: CredentialSource,
    pub site: Option<Uuid>,
}

fn stored_client(
    app: &App,
    tenant: &TenantId,
    c: &StoredCredentials,
) -> AppResult<Arc<dyn BankProvider>> {
    let secret = app
        .payments
        .secrets
        .open(
            &seal_context(tenant, Provider::Bankpay, c.site_id, "secretKey"),
            &c.secret_key,
        )
        .map_err(|e| Failure::internal(format!("stored bankpay credentials: {e}")))?;
    Ok(Arc::new(BankpayClient::new(
        app.http.clone(),
        &app.payments.bankpay_api_base,
        c.merchant_id.as_deref().unwrap_or_default(),
        &secret,
    )))
}

fn env_client(app: &App) -> Option<Arc<dyn BankProvider>> {
    app.payments.env_bankpay.as_ref().map(|e| {
        Arc::new(BankpayClient::new(
            app.http.clone(),
            &app.payments.bankpay_api_base,
            &e.merchant_id,
            &e.secret,
        )) as Arc<dyn BankProvider>
    })
}

/// The bankpay account for a payment at `site`: the site's (custom payments), the
/// tenant's, else the platform's (`KAIROS_BANKPAY_MERCHANT_ID`/`_SECRET`).
pub async fn bankpay_account(
    app: &App,
    tenant: &TenantId,
    site: Option<Uuid>,
) -> AppResult<BankAccount> {
    let (site_creds, tenant_creds) = app
        .store
        .payment_credentials_for(tenant, Provider::Bankpay, site)
        .await?;
    let env = app.payments.env_bankpay.as_ref().map(|_| None);
    let chosen = choose(
        Provider::Bankpay,
        site_creds.map(Some),
        tenant_creds.map(Some),
        env,
    )
    .ok_or_else(|| {
        payment_failed(
            Provider::Bankpay,
            "not_configured",
            "Bank payments are not configured for this venue",
            false,
            "pay another way, or ask the venue to configure bankpay",
        )
    })?;
    let client = match &chosen.credentials {
        Some(c) => stored_client(app, tenant, c)?,
        None => env_client(app).ok_or_else(|| Failure::internal("no platform bankpay"))?,
    };
    Ok(BankAccount {
        site: chosen.credentials.as_ref().and_then(|c| c.site_id),
        client,
        source: chosen.source,
    })
}

/// Refuses (400 PAYMENT_FAILED `not_configured`) before a booking is confirmed for
/// bankpay when the venue has no bankpay account or the service no public address.
pub async fn bankpay_ready(app: &App, tenant: &TenantId, site: Option<Uuid>) -> AppResult<()> {
    bankpay_account(app, tenant, site).await?;
    if app.payments.public_url.is_none() {
        return Err(no_public_url().into());
    }
    Ok(())
}

fn no_public_url() -> Failure {
    payment_failed(
        Provider::Bankpay,
        "not_configured",
        "Bank payments need the service's public address (KAIROS_PUBLIC_URL) for the bank to call back",
        false,
        "pay another way, or ask the venue to set KAIROS_PUBLIC_URL",
    )
}

/// The account a bank payment was made with (its recorded source): its callbacks are
/// verified with it.
pub async fn bank_account_of_payment(
    app: &App,
    tenant: &TenantId,
    payment: &OnlinePayment,
) -> AppResult<Option<Arc<dyn BankProvider>>> {
    match payment.credential_source {
        Some(CredentialSource::Env) => Ok(env_client(app)),
        source => {
            let wanted = match source {
                Some(CredentialSource::Site) => payment.credential_site_id,
                _ => None,
            };
            let all = app.store.list_payment_credentials(tenant).await?;
            all.iter()
                .find(|c| c.provider == Provider::Bankpay && c.site_id == wanted)
                .map(|c| stored_client(app, tenant, c))
                .transpose()
        }
    }
}

/// Where the customer's browser returns after paying (or not).
#[derive(Debug, Clone, Default)]
pub struct ReturnUrls {
    pub success: Option<String>,
    pub cancel: Option<String>,
}

/// Makes (once) the provider's payment of a booking's bankpay payment and says where
/// the customer pays.
pub async fn bank_action(
    app: &App,
    tenant: &TenantId,
    payment: &OnlinePayment,
    returns: &ReturnUrls,
) -> AppResult<PaymentAction> {
    let action = |redirect: String| PaymentAction {
        payment_id: payment.id,
        provider: Provider::Bankpay,
        status: payment.status.as_str().to_owned(),
        amount: payment.amount,
        currency: payment.currency.to_ascii_lowercase(),
        payment_intent_id: None,
        client_secret: None,
        provider_status: None,
        requires_action: true,
        test_confirm_url: None,
        publishable_key: None,
        provider_script_url: None,
        redirect_url: Some(redirect),
    };
    if let (Some(_), Some(url)) = (&payment.provider_payment_id, &payment.redirect_url) {
        return Ok(action(url.clone()));
    }
    let public = app.payments.public_url.clone().ok_or_else(no_public_url)?;
    let booking = match payment.booking_id {
        Some(b) => app.store.get_booking(tenant, b).await?,
        None => None,
    };
    let account = bankpay_account(app, tenant, payment.site_id).await?;
    let back = |outcome: &str| match payment.booking_id {
        Some(b) => format!("{public}/?booking={b}&payment={outcome}"),
        None => format!("{public}/?payment={outcome}"),
    };
    let callback = format!("{public}/webhooks/bankpay/callback");
    let new = NewBankPayment {
        stamp: payment.id.to_string(),
        reference: booking
            .as_ref()
            .map_or_else(|| payment.id.to_string(), |b| b.reference.clone()),
        amount: payment.amount,
        currency: payment.currency.to_ascii_uppercase(),
        language: "EN".to_owned(),
        customer: Customer {
            email: booking
                .as_ref()
                .map(|b| b.customer.email.clone())
                .unwrap_or_default(),
        },
        redirect_urls: Urls {
            success: returns.success.clone().unwrap_or_else(|| back("success")),
            cancel: returns.cancel.clone().unwrap_or_else(|| back("cancel")),
        },
        callback_urls: Urls {
            success: callback.clone(),
            cancel: callback,
        },
    };
    let created: BankPayment = account
        .client
        .create_payment(&new)
        .await
        .map_err(|e| provider_error(Provider::Bankpay, e))?;
    app.store
        .attach_provider_payment(
            tenant,
            payment.id,
            &created.transaction_id,
            (account.source, account.site),
            Some(&created.href),
            app.now(),
        )
        .await?;
    Ok(action(created.href))
}
