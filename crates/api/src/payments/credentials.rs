//! Provider credentials (spec Part B 4.6): `PUT /api/v1/admin/payments/credentials/{provider}`
//! stores a tenant's (or, with `siteId`, a site's: custom payments) account, `GET …/credentials`
//! shows which scopes are configured (never a secret), `DELETE` removes one. Secrets are
//! sealed before they reach the store.

use crate::error::{ApiError, ApiResult, ErrorBody};
use crate::extract::{Json, Query, Staff, can, uuid_param};
use crate::state::AppState;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use chrono::{DateTime, Utc};
use kairos_app::payments::credentials::seal_context;
use kairos_domain::FieldErrors;
use kairos_domain::TenantId;
use kairos_domain::payments::credentials::Provider;
use kairos_store::{CredentialsInput, StoredCredentials};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

/// A provider account to store.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CredentialsBody {
    /// A site with custom payments; null or absent: tenant-wide.
    #[schema(value_type = Option<Uuid>)]
    pub site_id: Option<String>,
    /// The provider's secret API key (cardpay `sk_…`; bankpay the merchant secret).
    /// Required for new credentials; absent keeps the stored one.
    #[schema(example = "sk_test_51H…", min_length = 8, max_length = 512)]
    pub secret_key: Option<String>,
    /// cardpay only: the webhook signing secret (`whsec_…`). Required for new cardpay
    /// credentials; absent keeps the stored one.
    #[schema(example = "whsec_Qx81…", min_length = 8, max_length = 512)]
    pub webhook_secret: Option<String>,
    /// bankpay only: the merchant id. Required for new bankpay credentials.
    #[schema(example = "375917", max_length = 64)]
    pub merchant_id: Option<String>,
    /// cardpay only: the publishable key (`pk_…`), not a secret. With it, the booking
    /// widget and the console take cards in the provider's own card element (Stripe.js);
    /// without it, a real account's card payments cannot be taken in those pages. Absent
    /// keeps the stored one.
    #[schema(example = "pk_test_51H…", min_length = 8, max_length = 512)]
    pub publishable_key: Option<String>,
    /// Default true.
    pub enabled: Option<bool>,
    /// Payments go to the built-in sandbox provider instead of the real one (for trying
    /// the flow; default false).
    pub sandbox: Option<bool>,
}

/// Stored credentials, without their secrets.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CredentialsDto {
    #[schema(example = "cardpay")]
    pub provider: String,
    /// `tenant` or `site`.
    #[schema(example = "tenant")]
    pub scope: String,
    pub site_id: Option<Uuid>,
    pub enabled: bool,
    pub sandbox: bool,
    /// bankpay's merchant id (not a secret).
    pub merchant_id: Option<String>,
    /// The secret key's last four characters, to tell keys apart.
    #[schema(example = "…4242")]
    pub secret_key_hint: String,
    pub has_webhook_secret: bool,
    /// cardpay's publishable key (not a secret), when stored.
    pub publishable_key: Option<String>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

fn dto(state: &AppState, tenant: &TenantId, c: StoredCredentials) -> CredentialsDto {
    let context = seal_context(tenant, c.provider, c.site_id, "secretKey");
    let hint = match state.config.payments.secrets.open(&context, &c.secret_key) {
        Ok(key) if key.chars().count() >= 12 => {
            let tail: String = key
                .chars()
                .rev()
                .take(4)
                .collect::<Vec<_>>()
                .into_iter()
                .rev()
                .collect();
            format!("…{tail}")
        }
        Ok(_) => "…".to_owned(),
        Err(_) => "(does not open with this KAIROS_SECRET_KEY)".to_owned(),
    };
    CredentialsDto {
        provider: c.provider.as_str().to_owned(),
        scope: if c.site_id.is_some() {
            "site"
        } else {
            "tenant"
        }
        .to_owned(),
        site_id: c.site_id,
        enabled: c.enabled,
        sandbox: c.sandbox,
        merchant_id: c.merchant_id,
        secret_key_hint: hint,
        has_webhook_secret: c.webhook_secret.is_some(),
        publishable_key: c.publishable_key,
        created_at: c.created_at,
        updated_at: c.updated_at,
    }
}

fn provider_of(raw: &str) -> ApiResult<Provider> {
    Provider::parse(raw).ok_or_else(|| {
        ApiError::new(
            StatusCode::NOT_FOUND,
            crate::error::code::NOT_FOUND,
            format!("No payment provider {raw}: cardpay or bankpay"),
        )
    })
}

/// A key or secret: 8 to 512 visible ASCII characters.
fn secret(errors: &mut FieldErrors, field: &str, value: Option<String>) -> Option<String> {
    let value = value?;
    let ok = (8..=512).contains(&value.len()) && value.bytes().all(|b| b.is_ascii_graphic());
    if !ok {
        errors.add(
            field,
            "must be 8 to 512 visible ASCII characters without spaces",
        );
        return None;
    }
    Some(value)
}

/// Store a provider account (spec Part B 4.6). Needs `admin:payments:manage` (owners).
///
/// Creates or replaces the tenant's credentials of the provider, or a site's with
/// `siteId` (a site with its own account: custom payments). Charges use the site's, then
/// the tenant's, then (bankpay only) the platform's from the environment; the source is
/// recorded on each payment. Secrets are stored encrypted and never returned.
#[utoipa::path(put, path = "/api/v1/admin/payments/credentials/{provider}", tag = "payments", security(("bearer" = [])),
    params(("provider" = String, Path, description = "cardpay or bankpay")),
    request_body = CredentialsBody,
    responses((status = 200, body = CredentialsDto),
        (status = 400, description = "VALIDATION_ERROR naming each bad field", body = ErrorBody),
        (status = 404, description = "NOT_FOUND: no such provider or site", body = ErrorBody)))]
pub async fn put_credentials(
    State(state): State<AppState>,
    auth: Staff<can::ManagePayments>,
    Path(provider): Path<String>,
    Json(body): Json<CredentialsBody>,
) -> ApiResult<axum::Json<CredentialsDto>> {
    let provider = provider_of(&provider)?;
    let mut errors = FieldErrors::new();
    let site_id = uuid_param(&mut errors, "siteId", body.site_id.as_deref());
    let secret_key = secret(&mut errors, "secretKey", body.secret_key);
    let webhook_secret = secret(&mut errors, "webhookSecret", body.webhook_secret);
    let merchant_id = body.merchant_id.map(|m| m.trim().to_owned());
    let publishable_key = secret(&mut errors, "publishableKey", body.publishable_key);
    if provider == Provider::Bankpay && publishable_key.is_some() {
        errors.add("publishableKey", "is cardpay's; bankpay has none");
    }
    if publishable_key
        .as_deref()
        .is_some_and(|k| !k.starts_with("pk_"))
    {
        errors.add(
            "publishableKey",
            "must be the publishable key (pk_…), never the secret key",
        );
    }
    match provider {
        Provider::Cardpay if merchant_id.is_some() => {
            errors.add("merchantId", "is bankpay's; cardpay has none");
        }
        Provider::Bankpay if webhook_secret.is_some() => {
            errors.add(
                "webhookSecret",
                "is cardpay's; bankpay signs its callbacks with the secretKey",
            );
        }
        Provider::Bankpay => {
            if merchant_id.as_deref().is_some_and(|m| {
                m.is_empty() || m.len() > 64 || !m.bytes().all(|b| b.is_ascii_alphanumeric())
            }) {
                errors.add("merchantId", "must be 1 to 64 letters or digits");
            }
        }
        Provider::Cardpay => {}
    }
    errors.finish().map_err(ApiError::validation)?;
    let tenant = auth.tenant.id();
    let seal = |field: &str, value: Option<String>| {
        value.map(|v| {
            state
                .config
                .payments
                .secrets
                .seal(&seal_context(tenant, provider, site_id, field), &v)
        })
    };
    let stored = state
        .store
        .put_payment_credentials(
            tenant,
            CredentialsInput {
                provider,
                site_id,
                secret_key: seal("secretKey", secret_key),
                webhook_secret: seal("webhookSecret", webhook_secret),
                merchant_id,
                publishable_key,
                sandbox: body.sandbox.unwrap_or(false),
                enabled: body.enabled.unwrap_or(true),
            },
            &auth.actor(),
            state.now(),
        )
        .await?;
    Ok(axum::Json(dto(&state, tenant, stored)))
}

/// The platform's own account, from the environment.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct EnvironmentCredentials {
    /// Whether `KAIROS_BANKPAY_MERCHANT_ID` and `KAIROS_BANKPAY_SECRET` are set: bankpay
    /// payments without a tenant or site account use it. (cardpay never falls back.)
    pub bankpay: bool,
}

/// `{credentials, environment}`.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CredentialsList {
    pub credentials: Vec<CredentialsDto>,
    pub environment: EnvironmentCredentials,
}

/// Which provider accounts are configured, tenant-wide and per site (never a secret).
/// Needs `admin:read`.
#[utoipa::path(get, path = "/api/v1/admin/payments/credentials", tag = "payments", security(("bearer" = [])),
    responses((status = 200, body = CredentialsList)))]
pub async fn list_credentials(
    State(state): State<AppState>,
    auth: Staff<can::Read>,
) -> ApiResult<axum::Json<CredentialsList>> {
    let tenant = auth.tenant.id();
    let stored = state.store.list_payment_credentials(tenant).await?;
    Ok(axum::Json(CredentialsList {
        credentials: stored.into_iter().map(|c| dto(&state, tenant, c)).collect(),
        environment: EnvironmentCredentials {
            bankpay: state.config.payments.env_bankpay.is_some(),
        },
    }))
}

/// Query of the credential removal.
#[derive(Debug, Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query, rename_all = "camelCase")]
pub struct ScopeQuery {
    /// The site's credentials; absent: the tenant's.
    #[param(value_type = Option<Uuid>)]
    pub site_id: Option<String>,
}

/// Remove a provider account (the tenant's, or a site's with `siteId`). Payments already
/// made keep their source; their refunds then need the account again. Needs
/// `admin:payments:manage` (owners).
#[utoipa::path(delete, path = "/api/v1/admin/payments/credentials/{provider}", tag = "payments", security(("bearer" = [])),
    params(("provider" = String, Path, description = "cardpay or bankpay"), ScopeQuery),
    responses((status = 200, description = "Removed: `deletedId` names the provider", body = crate::deleted::Deleted),
        (status = 400, description = "VALIDATION_ERROR", body = ErrorBody),
        (status = 404, description = "NOT_FOUND: no such provider, or no credentials of this scope", body = ErrorBody)))]
pub async fn delete_credentials(
    State(state): State<AppState>,
    auth: Staff<can::ManagePayments>,
    Path(provider): Path<String>,
    Query(q): Query<ScopeQuery>,
) -> ApiResult<axum::Json<crate::deleted::Deleted>> {
    let provider = provider_of(&provider)?;
    let mut errors = FieldErrors::new();
    let site_id = uuid_param(&mut errors, "siteId", q.site_id.as_deref());
    errors.finish().map_err(ApiError::validation)?;
    state
        .store
        .delete_payment_credentials(
            auth.tenant.id(),
            provider,
            site_id,
            &auth.actor(),
            state.now(),
        )
        .await?;
    Ok(crate::deleted::Deleted::of(
        "Provider account removed",
        provider.as_str(),
    ))
}
