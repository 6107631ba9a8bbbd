//! Payments: provider credentials, payments through providers, provider events.

use super::Timestamp;
use kairos_domain::payments::credentials::Provider;
use uuid::Uuid;

/// The payments area's failures.
#[derive(Debug, thiserror::Error)]
pub enum PaymentsError {
    #[error("no such site")]
    SiteNotFound,
    #[error("no {0} credentials to change")]
    CredentialsNotFound(Provider),
    /// New credentials without a secret their provider needs (the field's name).
    #[error("{0} is required for new credentials")]
    Missing(&'static str),
    #[error(transparent)]
    Store(#[from] crate::StoreError),
}

crate::store_error_from_sqlx!(PaymentsError);

/// Provider credentials to store; the secrets are sealed already (the store never sees
/// them in the clear).
#[derive(Debug, Clone)]
pub struct CredentialsInput {
    pub provider: Provider,
    /// None: tenant-wide.
    pub site_id: Option<Uuid>,
    /// Sealed; None keeps the stored one (an update that changes other fields).
    pub secret_key: Option<String>,
    /// Sealed (cardpay); None keeps the stored one.
    pub webhook_secret: Option<String>,
    /// bankpay's merchant id; None keeps the stored one.
    pub merchant_id: Option<String>,
    pub sandbox: bool,
    pub enabled: bool,
}

/// Stored provider credentials (secrets sealed).
#[derive(Debug, Clone)]
pub struct StoredCredentials {
    pub provider: Provider,
    pub site_id: Option<Uuid>,
    pub secret_key: String,
    pub webhook_secret: Option<String>,
    pub merchant_id: Option<String>,
    pub sandbox: bool,
    pub enabled: bool,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
}
