//! Bearer-token extractors for administrators and customers.

use super::tenant::Tenant;
use crate::auth::tokens::{Claims, TokenKind};
use crate::error::{ApiError, ApiResult, code};
use crate::state::AppState;
use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use axum::http::{HeaderMap, StatusCode, header};
use kairos_domain::auth::permissions_of;
use kairos_store::{Actor, AdminUser, Customer};
use std::sync::Arc;

/// The token of `Authorization: Bearer …`, if any.
pub fn bearer_token(headers: &HeaderMap) -> Option<&str> {
    let value = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = value.split_once(' ')?;
    scheme
        .eq_ignore_ascii_case("bearer")
        .then(|| token.trim())
        .filter(|t| !t.is_empty())
}

/// Verifies the bearer token of a request made for `tenant`.
async fn claims_for(
    parts: &Parts,
    state: &AppState,
    tenant: &Tenant,
    kind: TokenKind,
) -> ApiResult<Claims> {
    let token = bearer_token(&parts.headers)
        .ok_or_else(|| ApiError::unauthorized("Missing bearer token (Authorization: Bearer …)"))?;
    let claims = state.tokens.verify(token, state.now())?;
    if claims.kind != kind {
        return Err(ApiError::forbidden(match kind {
            TokenKind::Admin => "Customer tokens cannot be used on administrator endpoints",
            TokenKind::Customer => "This endpoint needs a customer token",
        }));
    }
    if claims.tid != tenant.id().as_str() {
        return Err(ApiError::new(
            StatusCode::FORBIDDEN,
            code::TENANT_MISMATCH,
            "The token was issued for another tenant than x-tenant-id names",
        ));
    }
    Ok(claims)
}

/// An authenticated, active staff member of the request's tenant.
#[derive(Debug, Clone)]
pub struct AdminAuth {
    pub tenant: Tenant,
    pub user: Arc<AdminUser>,
    pub permissions: Vec<&'static str>,
}

impl AdminAuth {
    /// 403 `INSUFFICIENT_PERMISSIONS` unless the user holds `permission`.
    pub fn require(&self, permission: &str) -> ApiResult<()> {
        if self.permissions.contains(&permission) {
            Ok(())
        } else {
            Err(
                ApiError::forbidden(format!("Missing permission {permission}"))
                    .with_details(serde_json::json!({"requiredPermission": permission})),
            )
        }
    }

    pub fn has(&self, permission: &str) -> bool {
        self.permissions.contains(&permission)
    }

    pub fn actor(&self) -> Actor {
        Actor::admin(self.user.id, &self.user.display_name)
    }
}

impl FromRequestParts<AppState> for AdminAuth {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, ApiError> {
        let tenant = Tenant::from_request_parts(parts, state).await?;
        let claims = claims_for(parts, state, &tenant, TokenKind::Admin).await?;
        let id = kairos_domain::ids::parse_id(&claims.sub)
            .ok_or_else(|| ApiError::unauthorized("Invalid access token"))?;
        let user = state
            .store
            .get_admin_user(tenant.id(), id)
            .await?
            .filter(|u| u.is_active)
            .ok_or_else(|| {
                ApiError::unauthorized("The account no longer exists or is deactivated")
            })?;
        if claims.generation != user.token_generation {
            return Err(ApiError::unauthorized(
                "This session has ended (the password was changed or the account deactivated): sign in again",
            ));
        }
        let permissions = permissions_of(&user.roles);
        Ok(AdminAuth {
            tenant,
            user: Arc::new(user),
            permissions,
        })
    }
}

/// An authenticated customer of the request's tenant.
#[derive(Debug, Clone)]
pub struct CustomerAuth {
    pub tenant: Tenant,
    pub customer: Arc<Customer>,
}

impl FromRequestParts<AppState> for CustomerAuth {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, ApiError> {
        let tenant = Tenant::from_request_parts(parts, state).await?;
        let claims = claims_for(parts, state, &tenant, TokenKind::Customer).await?;
        let id = kairos_domain::ids::parse_id(&claims.sub)
            .ok_or_else(|| ApiError::unauthorized("Invalid access token"))?;
        let customer = state
            .store
            .get_customer(tenant.id(), id)
            .await?
            .ok_or_else(|| ApiError::unauthorized("The account no longer exists"))?;
        Ok(CustomerAuth {
            tenant,
            customer: Arc::new(customer),
        })
    }
}
