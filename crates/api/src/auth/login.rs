//! `POST /api/auth/login`: staff sign in with username, password and tenant id.

use super::tokens::TokenKind;
use crate::error::{ApiError, ApiResult, ErrorBody, code};
use crate::extract::{Json, TENANT_HEADER};
use crate::state::AppState;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use kairos_domain::auth::permissions_of;
use kairos_domain::{FieldErrors, TenantId};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// Login input. `tenantId` may instead come from the `x-tenant-id` header.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct LoginRequest {
    #[schema(example = "admin", min_length = 1, required = true)]
    pub username: Option<String>,
    #[schema(example = "kairos-admin-demo", min_length = 1, required = true)]
    pub password: Option<String>,
    #[schema(example = "demo")]
    pub tenant_id: Option<String>,
}

/// The signed-in staff member.
#[derive(Debug, Serialize, ToSchema)]
pub struct LoginUser {
    pub id: String,
    pub username: String,
    pub tenant_id: String,
    #[schema(example = json!(["owner"]))]
    pub roles: Vec<String>,
    #[schema(example = json!(["admin:bookings:read", "admin:read"]))]
    pub permissions: Vec<String>,
}

/// A bearer token and the user it speaks for.
#[derive(Debug, Serialize, ToSchema)]
pub struct LoginResponse {
    pub access_token: String,
    #[schema(example = "Bearer")]
    pub token_type: String,
    #[schema(example = 3600)]
    pub expires_in: i64,
    pub user: LoginUser,
}

fn invalid_credentials() -> ApiError {
    ApiError::new(
        StatusCode::UNAUTHORIZED,
        code::INVALID_CREDENTIALS,
        "Invalid username, password or tenant",
    )
}

/// Sign in as an administrator.
#[utoipa::path(
    post,
    path = "/api/auth/login",
    tag = "auth", security(()),
    request_body = LoginRequest,
    responses(
        (status = 200, description = "Signed in", body = LoginResponse),
        (status = 400, description = "VALIDATION_ERROR: a field is missing or malformed", body = ErrorBody),
        (status = 401, description = "INVALID_CREDENTIALS", body = ErrorBody),
        (status = 503, description = "SERVICE_UNAVAILABLE: too many password checks at once; retry after Retry-After seconds", body = ErrorBody),
        (status = 429, description = "Rate limited (strict tier)", body = crate::error::RateLimitedBody),
    )
)]
pub async fn login(
    State(state): State<AppState>,
    headers: HeaderMap,
    Json(body): Json<LoginRequest>,
) -> ApiResult<axum::Json<LoginResponse>> {
    let header_tenant = headers
        .get(TENANT_HEADER)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    let mut errors = FieldErrors::new();
    let username = body.username.filter(|u| !u.is_empty());
    let password = body.password.filter(|p| !p.is_empty());
    let tenant_raw = body.tenant_id.or(header_tenant).filter(|t| !t.is_empty());
    if username.is_none() {
        errors.add("username", "is required");
    }
    if password.is_none() {
        errors.add("password", "is required");
    }
    if tenant_raw.is_none() {
        errors.add("tenantId", "is required");
    }
    errors.finish().map_err(ApiError::validation)?;
    let (Some(username), Some(password), Some(tenant_raw)) = (username, password, tenant_raw)
    else {
        return Err(invalid_credentials());
    };

    // Unknown tenants and unknown users take the same path as a wrong password.
    let tenant = match TenantId::parse(&tenant_raw) {
        Ok(id) => state.tenant(&id).await?.filter(|t| t.is_active),
        Err(_) => None,
    };
    let user = match &tenant {
        Some(t) => state
            .store
            .find_admin_user_by_username(&t.id, &username)
            .await?
            .filter(|u| u.is_active),
        None => None,
    };
    let ok = state
        .passwords
        .verify(password, user.as_ref().map(|u| u.password_hash.clone()))
        .await?;
    let (Some(tenant), Some(user), true) = (tenant, user, ok) else {
        return Err(invalid_credentials());
    };

    let now = state.now();
    state
        .store
        .record_admin_login(&tenant.id, user.id, now)
        .await?;
    let ttl = state.config.token_ttl_secs;
    let token = state.tokens.issue(
        TokenKind::Admin,
        &user.id.to_string(),
        tenant.id.as_str(),
        user.token_generation,
        now,
        ttl,
    )?;
    tracing::info!(tenant_id = %tenant.id, user_id = %user.id, "administrator signed in");
    Ok(axum::Json(LoginResponse {
        access_token: token,
        token_type: "Bearer".to_owned(),
        expires_in: ttl,
        user: LoginUser {
            id: user.id.to_string(),
            username: user.username.clone(),
            tenant_id: tenant.id.to_string(),
            roles: user.roles.iter().map(|r| r.as_str().to_owned()).collect(),
            permissions: permissions_of(&user.roles)
                .into_iter()
                .map(str::to_owned)
                .collect(),
        },
    }))
}
