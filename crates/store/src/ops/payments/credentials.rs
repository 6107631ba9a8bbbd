//! Provider credentials (spec Part B 4.6), tenant-wide or per site. The secrets arrive
//! sealed and leave sealed: the store never holds them in the clear.

use super::super::Repo;
use super::super::audit::Change;
use super::super::dialect;
use crate::{
    Actor, CredentialsInput, PaymentsError, StoreError, StoreResult, StoredCredentials, Timestamp,
    stored,
};
use kairos_domain::TenantId;
use kairos_domain::payments::credentials::Provider;
use kairos_store_macros::operations;
use serde_json::json;
use uuid::Uuid;

#[derive(kairos_store_macros::FromRow)]
struct CredentialsRow {
    provider: String,
    site_id: Option<Uuid>,
    secret_key: String,
    webhook_secret: Option<String>,
    merchant_id: Option<String>,
    publishable_key: Option<String>,
    sandbox: bool,
    enabled: bool,
    created_at: Timestamp,
    updated_at: Timestamp,
}

const COLUMNS: &str = "provider, site_id, secret_key, webhook_secret, merchant_id, \
     publishable_key, sandbox, enabled, created_at, updated_at";

impl TryFrom<CredentialsRow> for StoredCredentials {
    type Error = StoreError;

    fn try_from(r: CredentialsRow) -> Result<Self, StoreError> {
        Ok(StoredCredentials {
            provider: stored("provider", &r.provider, Provider::parse)?,
            site_id: r.site_id,
            secret_key: r.secret_key,
            webhook_secret: r.webhook_secret,
            merchant_id: r.merchant_id,
            publishable_key: r.publishable_key,
            sandbox: r.sandbox,
            enabled: r.enabled,
            created_at: r.created_at,
            updated_at: r.updated_at,
        })
    }
}

fn scope_key(site: Option<Uuid>) -> String {
    site.map(|s| s.to_string()).unwrap_or_default()
}

#[operations]
impl Repo {
    /// Creates or replaces the tenant's (or a site's) credentials of a provider. A secret
    /// left out keeps the stored one; new credentials need every secret their provider
    /// uses (else [`PaymentsError::Missing`]).
    pub async fn put_payment_credentials(
        &self,
        tenant: &TenantId,
        input: CredentialsInput,
        actor: &Actor,
        now: Timestamp,
    ) -> Result<StoredCredentials, PaymentsError> {
        let mut w = self.begin(tenant, now).await?;
        if let Some(site) = input.site_id
            && !w.has_site(site).await?
        {
            return Err(PaymentsError::SiteNotFound);
        }
        let scope = scope_key(input.site_id);
        let existing: Option<CredentialsRow> = sqlx::query_as(sql!(
            "SELECT {COLUMNS} FROM payment_credentials
             WHERE tenant_id = $1 AND provider = $2 AND scope_key = $3{}",
            dialect::FOR_UPDATE
        ))
        .bind(tenant.as_str())
        .bind(input.provider.as_str())
        .bind(&scope)
        .fetch_optional(&mut *w.tx)
        .await?;
        let keep = |given: Option<String>, old: Option<String>| given.or(old);
        let secret_key = keep(
            input.secret_key,
            existing.as_ref().map(|e| e.secret_key.clone()),
        )
        .ok_or(PaymentsError::Missing("secretKey"))?;
        let webhook_secret = keep(
            input.webhook_secret,
            existing.as_ref().and_then(|e| e.webhook_secret.clone()),
        );
        let merchant_id = keep(
            input.merchant_id,
            existing.as_ref().and_then(|e| e.merchant_id.clone()),
        );
        let publishable_key = keep(
            input.publishable_key,
            existing.as_ref().and_then(|e| e.publishable_key.clone()),
        );
        match input.provider {
            // A sandbox account's signing secret comes from its secret key.
            Provider::Cardpay if webhook_secret.is_none() && !input.sandbox => {
                return Err(PaymentsError::Missing("webhookSecret"));
            }
            Provider::Bankpay if merchant_id.is_none() => {
                return Err(PaymentsError::Missing("merchantId"));
            }
            _ => {}
        }
        let created_at = existing.as_ref().map_or(now, |e| e.created_at);
        sqlx::query(
            "INSERT INTO payment_credentials (tenant_id, provider, scope_key, site_id,
                 secret_key, webhook_secret, merchant_id, publishable_key, sandbox, enabled,
                 created_at, updated_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
             ON CONFLICT (tenant_id, provider, scope_key) DO UPDATE SET
                 secret_key = excluded.secret_key, webhook_secret = excluded.webhook_secret,
                 merchant_id = excluded.merchant_id, publishable_key = excluded.publishable_key,
                 sandbox = excluded.sandbox,
                 enabled = excluded.enabled, updated_at = excluded.updated_at",
        )
        .bind(tenant.as_str())
        .bind(input.provider.as_str())
        .bind(&scope)
        .bind(input.site_id)
        .bind(&secret_key)
        .bind(&webhook_secret)
        .bind(&merchant_id)
        .bind(&publishable_key)
        .bind(input.sandbox)
        .bind(input.enabled)
        .bind(created_at)
        .bind(now)
        .execute(&mut *w.tx)
        .await?;
        // Never the secrets: only that they changed.
        w.audit(
            actor,
            Change {
                action: if existing.is_some() {
                    "payment_credentials.updated"
                } else {
                    "payment_credentials.created"
                },
                entity_type: "payment_credentials",
                entity_id: format!("{}/{}", input.provider, scope),
                changes: json!({
                    "siteId": input.site_id,
                    "merchantId": merchant_id,
                    "publishableKey": publishable_key,
                    "sandbox": input.sandbox,
                    "enabled": input.enabled,
                    "secretKeyChanged": existing.as_ref().is_none_or(|e| e.secret_key != secret_key),
                    "webhookSecretChanged": existing.as_ref().is_none_or(|e| e.webhook_secret != webhook_secret),
                }),
            },
        );
        w.commit(None).await?;
        Ok(StoredCredentials {
            provider: input.provider,
            site_id: input.site_id,
            secret_key,
            webhook_secret,
            merchant_id,
            publishable_key,
            sandbox: input.sandbox,
            enabled: input.enabled,
            created_at,
            updated_at: now,
        })
    }

    /// Every credential set of the tenant, tenant-wide first.
    pub async fn list_payment_credentials(
        &self,
        tenant: &TenantId,
    ) -> StoreResult<Vec<StoredCredentials>> {
        let rows: Vec<CredentialsRow> = sqlx::query_as(sql!(
            "SELECT {COLUMNS} FROM payment_credentials WHERE tenant_id = $1
             ORDER BY provider, scope_key"
        ))
        .bind(tenant.as_str())
        .fetch_all(&self.read)
        .await?;
        rows.into_iter().map(StoredCredentials::try_from).collect()
    }

    /// The enabled credentials of `provider` for a payment at `site`: the site's own
    /// (custom payments) and the tenant's.
    pub async fn payment_credentials_for(
        &self,
        tenant: &TenantId,
        provider: Provider,
        site: Option<Uuid>,
    ) -> StoreResult<(Option<StoredCredentials>, Option<StoredCredentials>)> {
        let rows: Vec<CredentialsRow> = sqlx::query_as(sql!(
            "SELECT {COLUMNS} FROM payment_credentials
             WHERE tenant_id = $1 AND provider = $2 AND enabled AND scope_key IN ('', $3)"
        ))
        .bind(tenant.as_str())
        .bind(provider.as_str())
        .bind(scope_key(site).as_str().to_owned())
        .fetch_all(&self.read)
        .await?;
        let mut site_creds = None;
        let mut tenant_creds = None;
        for row in rows {
            let c = StoredCredentials::try_from(row)?;
            if c.site_id.is_some() {
                site_creds = Some(c);
            } else {
                tenant_creds = Some(c);
            }
        }
        Ok((site_creds, tenant_creds))
    }

    /// Removes the tenant's (or a site's) credentials of a provider.
    pub async fn delete_payment_credentials(
        &self,
        tenant: &TenantId,
        provider: Provider,
        site: Option<Uuid>,
        actor: &Actor,
        now: Timestamp,
    ) -> Result<(), PaymentsError> {
        let mut w = self.begin(tenant, now).await?;
        let scope = scope_key(site);
        let done = sqlx::query(
            "DELETE FROM payment_credentials
             WHERE tenant_id = $1 AND provider = $2 AND scope_key = $3",
        )
        .bind(tenant.as_str())
        .bind(provider.as_str())
        .bind(&scope)
        .execute(&mut *w.tx)
        .await?;
        if done.rows_affected() == 0 {
            return Err(PaymentsError::CredentialsNotFound(provider));
        }
        w.audit(
            actor,
            Change {
                action: "payment_credentials.deleted",
                entity_type: "payment_credentials",
                entity_id: format!("{provider}/{scope}"),
                changes: json!({"siteId": site}),
            },
        );
        w.commit(None).await?;
        Ok(())
    }
}
