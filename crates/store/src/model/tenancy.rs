//! Tenants.

use super::Timestamp;
use kairos_domain::TenantId;

#[derive(Debug, Clone)]
pub struct NewTenant {
    pub id: TenantId,
    pub name: String,
    pub currency: String,
    pub timezone: String,
}

#[derive(Debug, Clone)]
pub struct Tenant {
    pub id: TenantId,
    pub name: String,
    pub currency: String,
    pub timezone: String,
    pub hold_ttl_minutes: i32,
    pub is_active: bool,
    pub created_at: Timestamp,
}

/// Why a tenancy operation failed.
#[derive(Debug, thiserror::Error)]
pub enum TenancyError {
    /// The tenant id is taken.
    #[error("a tenant with this id already exists")]
    TenantExists,
    #[error(transparent)]
    Store(#[from] crate::StoreError),
}

crate::store_error_from_sqlx!(TenancyError);
