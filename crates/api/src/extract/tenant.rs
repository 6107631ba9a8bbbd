//! The tenant of a request, from the `x-tenant-id` header.

use crate::error::ApiError;
use crate::state::AppState;
use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use kairos_domain::TenantId;
use std::sync::Arc;

pub const TENANT_HEADER: &str = "x-tenant-id";

/// The tenant named by `x-tenant-id`: missing → 400, unknown → 404.
#[derive(Debug, Clone)]
pub struct Tenant(pub Arc<kairos_store::Tenant>);

impl Tenant {
    pub fn id(&self) -> &TenantId {
        &self.0.id
    }
}

impl FromRequestParts<AppState> for Tenant {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, ApiError> {
        if let Some(t) = parts.extensions.get::<Tenant>() {
            return Ok(t.clone());
        }
        let raw = parts
            .headers
            .get(TENANT_HEADER)
            .map(|v| v.to_str().map(str::trim))
            .ok_or_else(|| ApiError::invalid_field(TENANT_HEADER, "header is required"))?
            .map_err(|_| ApiError::invalid_field(TENANT_HEADER, "header must be text"))?;
        if raw.is_empty() {
            return Err(ApiError::invalid_field(TENANT_HEADER, "header is required"));
        }
        // An id that could never have been created names no tenant.
        let id = TenantId::parse(raw).map_err(|_| ApiError::not_found("Tenant"))?;
        let tenant = state
            .tenant(&id)
            .await?
            .filter(|t| t.is_active)
            .ok_or_else(|| ApiError::not_found("Tenant"))?;
        let tenant = Tenant(tenant);
        parts.extensions.insert(tenant.clone());
        Ok(tenant)
    }
}
