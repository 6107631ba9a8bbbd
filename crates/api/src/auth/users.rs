//! Staff accounts: `/api/v1/admin/users` (owners only: `admin:users:manage`).

use crate::error::{ApiError, ApiResult, ErrorBody};
use crate::extract::{Json, Staff, can, nullable, path_id};
use crate::state::AppState;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use kairos_domain::FieldErrors;
use kairos_domain::auth::{Role, permissions_of, validate_password, validate_username};
use kairos_domain::customers::{Email, validate_name};
use kairos_store::{AdminUser, AdminUserPatch, NewAdminUser};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// A staff account as administrators see it (never the password hash).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct StaffUser {
    pub id: String,
    pub username: String,
    pub display_name: String,
    pub email: Option<String>,
    #[schema(example = json!(["front_desk"]))]
    pub roles: Vec<String>,
    pub permissions: Vec<String>,
    pub is_active: bool,
    pub created_at: chrono::DateTime<chrono::Utc>,
    pub updated_at: chrono::DateTime<chrono::Utc>,
    pub last_login_at: Option<chrono::DateTime<chrono::Utc>>,
}

impl From<&AdminUser> for StaffUser {
    fn from(u: &AdminUser) -> Self {
        Self {
            id: u.id.to_string(),
            username: u.username.clone(),
            display_name: u.display_name.clone(),
            email: u.email.clone(),
            roles: u.roles.iter().map(|r| r.as_str().to_owned()).collect(),
            permissions: permissions_of(&u.roles)
                .into_iter()
                .map(str::to_owned)
                .collect(),
            is_active: u.is_active,
            created_at: u.created_at,
            updated_at: u.updated_at,
            last_login_at: u.last_login_at,
        }
    }
}

#[derive(Debug, Serialize, ToSchema)]
pub struct StaffUserList {
    pub users: Vec<StaffUser>,
    pub total: usize,
}

/// New staff account.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CreateStaffUser {
    #[schema(
        example = "frontdesk2",
        min_length = 1,
        max_length = 100,
        required = true
    )]
    pub username: Option<String>,
    /// At least 8 characters.
    #[schema(min_length = 8, max_length = 128, required = true)]
    pub password: Option<String>,
    #[schema(min_length = 1, max_length = 100)]
    pub display_name: Option<String>,
    #[schema(format = Email, max_length = 254)]
    pub email: Option<String>,
    /// One or more of owner, manager, front_desk, viewer.
    #[schema(value_type = Vec<crate::openapi::schemas::RoleSchema>, example = json!(["front_desk"]), max_items = 4, min_items = 1, required = true)]
    pub roles: Option<Vec<String>>,
}

/// Changes to a staff account; absent fields stay as they are.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct UpdateStaffUser {
    #[schema(min_length = 1, max_length = 100)]
    pub display_name: Option<String>,
    /// `null` clears the email.
    #[serde(default, deserialize_with = "nullable")]
    #[schema(value_type = Option<String>, format = Email, max_length = 254)]
    pub email: Option<Option<String>>,
    #[schema(min_length = 8, max_length = 128)]
    pub password: Option<String>,
    #[schema(value_type = Option<Vec<crate::openapi::schemas::RoleSchema>>, max_items = 4, min_items = 1)]
    pub roles: Option<Vec<String>>,
    pub is_active: Option<bool>,
}

fn parse_roles(errors: &mut FieldErrors, roles: &[String]) -> Vec<Role> {
    if roles.is_empty() {
        errors.add("roles", "must name at least one role");
    }
    let mut parsed = Vec::new();
    if !errors.at_most("roles", roles.len(), Role::ALL.len()) {
        return parsed;
    }
    for (i, name) in roles.iter().enumerate() {
        match Role::parse(name) {
            Some(r) => parsed.push(r),
            None => errors.add(
                format!("roles[{i}]"),
                format!("'{name}' is not a role (owner, manager, front_desk, viewer)"),
            ),
        }
    }
    parsed
}

fn parse_email(errors: &mut FieldErrors, email: Option<&str>) -> Option<String> {
    let email = email.map(str::trim)?;
    if email.is_empty() {
        errors.add(
            "email",
            "is not a valid email address (leave it out for none; null clears it on update)",
        );
        return None;
    }
    errors
        .check("email", Email::parse(email))
        .map(Email::into_string)
}

/// List staff accounts.
#[utoipa::path(
    get, path = "/api/v1/admin/users", tag = "staff",
    security(("bearer" = [])),
    responses(
        (status = 200, body = StaffUserList),
        (status = 401, body = ErrorBody), (status = 403, description = "INSUFFICIENT_PERMISSIONS", body = ErrorBody),
    )
)]
pub async fn list_users(
    State(state): State<AppState>,
    auth: Staff<can::ManageUsers>,
) -> ApiResult<axum::Json<StaffUserList>> {
    let users = state.store.list_admin_users(auth.tenant.id()).await?;
    let users: Vec<StaffUser> = users.iter().map(StaffUser::from).collect();
    Ok(axum::Json(StaffUserList {
        total: users.len(),
        users,
    }))
}

/// Create a staff account.
#[utoipa::path(
    post, path = "/api/v1/admin/users", tag = "staff",
    security(("bearer" = [])),
    request_body = CreateStaffUser,
    responses(
        (status = 200, body = StaffUser),
        (status = 400, description = "VALIDATION_ERROR", body = ErrorBody),
        (status = 401, body = ErrorBody), (status = 403, description = "INSUFFICIENT_PERMISSIONS", body = ErrorBody),
        (status = 409, description = "CONFLICT: username taken", body = ErrorBody),
        (status = 503, description = "SERVICE_UNAVAILABLE: too many password checks at once; retry after Retry-After seconds", body = ErrorBody),
    )
)]
pub async fn create_user(
    State(state): State<AppState>,
    auth: Staff<can::ManageUsers>,
    Json(body): Json<CreateStaffUser>,
) -> ApiResult<(StatusCode, axum::Json<StaffUser>)> {
    let mut errors = FieldErrors::new();
    let username = body
        .username
        .as_deref()
        .map(str::trim)
        .unwrap_or_default()
        .to_owned();
    match body.username {
        None => errors.add("username", "is required"),
        Some(_) => {
            errors.check("username", validate_username(&username));
        }
    }
    match &body.password {
        None => errors.add("password", "is required"),
        Some(p) => {
            errors.check("password", validate_password(p));
        }
    }
    if let Some(name) = &body.display_name {
        errors.check("displayName", validate_name(name));
    }
    let email = parse_email(&mut errors, body.email.as_deref());
    let roles = match &body.roles {
        None => {
            errors.add("roles", "is required");
            Vec::new()
        }
        Some(r) => parse_roles(&mut errors, r),
    };
    errors.finish().map_err(ApiError::validation)?;
    let password_hash = state
        .passwords
        .hash(body.password.unwrap_or_default())
        .await?;
    let display_name = body
        .display_name
        .map(|n| n.trim().to_owned())
        .filter(|n| !n.is_empty())
        .unwrap_or_else(|| username.clone());
    let user = state
        .store
        .create_admin_user(
            auth.tenant.id(),
            NewAdminUser {
                username,
                display_name,
                email,
                password_hash,
                roles,
            },
            &auth.actor(),
            state.now(),
        )
        .await?;
    Ok((StatusCode::OK, axum::Json(StaffUser::from(&user))))
}

/// Read one staff account.
#[utoipa::path(
    get, path = "/api/v1/admin/users/{id}", tag = "staff",
    security(("bearer" = [])),
    params(("id" = uuid::Uuid, Path, description = "User id")),
    responses(
        (status = 200, body = StaffUser),
        (status = 401, body = ErrorBody), (status = 403, body = ErrorBody),
        (status = 404, description = "NOT_FOUND", body = ErrorBody),
    )
)]
pub async fn get_user(
    State(state): State<AppState>,
    auth: Staff<can::ManageUsers>,
    Path(id): Path<String>,
) -> ApiResult<axum::Json<StaffUser>> {
    let id = path_id(&id, "User")?;
    let user = state
        .store
        .get_admin_user(auth.tenant.id(), id)
        .await?
        .ok_or_else(|| ApiError::not_found("User"))?;
    Ok(axum::Json(StaffUser::from(&user)))
}

/// Update a staff account: name, email, password, roles or active flag.
#[utoipa::path(
    patch, path = "/api/v1/admin/users/{id}", tag = "staff",
    security(("bearer" = [])),
    params(("id" = uuid::Uuid, Path, description = "User id")),
    request_body = UpdateStaffUser,
    responses(
        (status = 200, body = StaffUser),
        (status = 400, description = "VALIDATION_ERROR", body = ErrorBody),
        (status = 401, body = ErrorBody), (status = 403, body = ErrorBody),
        (status = 404, description = "NOT_FOUND", body = ErrorBody),
        (status = 409, description = "CONFLICT: the last owner cannot be demoted or deactivated", body = ErrorBody),
        (status = 503, description = "SERVICE_UNAVAILABLE: too many password checks at once; retry after Retry-After seconds", body = ErrorBody),
    )
)]
pub async fn update_user(
    State(state): State<AppState>,
    auth: Staff<can::ManageUsers>,
    Path(id): Path<String>,
    Json(body): Json<UpdateStaffUser>,
) -> ApiResult<axum::Json<StaffUser>> {
    let id = path_id(&id, "User")?;
    let mut errors = FieldErrors::new();
    if let Some(name) = &body.display_name {
        if name.trim().is_empty() {
            errors.add("displayName", "must not be empty");
        }
        errors.check("displayName", validate_name(name));
    }
    let email = match &body.email {
        None => None,
        Some(None) => Some(None),
        Some(Some(e)) => Some(parse_email(&mut errors, Some(e))),
    };
    if let Some(p) = &body.password {
        errors.check("password", validate_password(p));
    }
    let roles = body.roles.as_ref().map(|r| parse_roles(&mut errors, r));
    errors.finish().map_err(ApiError::validation)?;

    let password_hash = match body.password {
        Some(p) => Some(state.passwords.hash(p).await?),
        None => None,
    };
    let patch = AdminUserPatch {
        display_name: body.display_name.map(|n| n.trim().to_owned()),
        email,
        password_hash,
        roles,
        is_active: body.is_active,
    };
    let user = state
        .store
        .update_admin_user(auth.tenant.id(), id, patch, &auth.actor(), state.now())
        .await?;
    Ok(axum::Json(StaffUser::from(&user)))
}

/// Deactivate a staff account (it can no longer sign in; its history stays).
#[utoipa::path(
    delete, path = "/api/v1/admin/users/{id}", tag = "staff",
    security(("bearer" = [])),
    params(("id" = uuid::Uuid, Path, description = "User id")),
    responses(
        (status = 200, description = "The deactivated account", body = StaffUser),
        (status = 401, body = ErrorBody), (status = 403, body = ErrorBody),
        (status = 404, description = "NOT_FOUND", body = ErrorBody),
        (status = 409, description = "CONFLICT: the last owner cannot be deactivated", body = ErrorBody),
    )
)]
pub async fn deactivate_user(
    State(state): State<AppState>,
    auth: Staff<can::ManageUsers>,
    Path(id): Path<String>,
) -> ApiResult<axum::Json<StaffUser>> {
    let id = path_id(&id, "User")?;
    let patch = AdminUserPatch {
        is_active: Some(false),
        ..Default::default()
    };
    let user = state
        .store
        .update_admin_user(auth.tenant.id(), id, patch, &auth.actor(), state.now())
        .await?;
    Ok(axum::Json(StaffUser::from(&user)))
}
