//! Staff accounts.

use super::Timestamp;
use kairos_domain::TenantId;
use kairos_domain::auth::Role;
use uuid::Uuid;

#[derive(Debug, Clone)]
pub struct NewAdminUser {
    pub username: String,
    pub display_name: String,
    pub email: Option<String>,
    pub password_hash: String,
    pub roles: Vec<Role>,
}

/// A staff account. `roles` is sorted and never empty for an active user.
#[derive(Debug, Clone)]
pub struct AdminUser {
    pub id: Uuid,
    pub tenant_id: TenantId,
    pub username: String,
    pub display_name: String,
    pub email: Option<String>,
    pub password_hash: String,
    pub roles: Vec<Role>,
    pub is_active: bool,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
    pub last_login_at: Option<Timestamp>,
    /// Moves on when the password changes or the account is deactivated; a token issued
    /// under another generation is no longer accepted.
    pub token_generation: i32,
}

/// Fields of a staff account to change; `None` leaves a field as it is.
#[derive(Debug, Clone, Default)]
pub struct AdminUserPatch {
    pub display_name: Option<String>,
    /// `Some(None)` clears the email.
    pub email: Option<Option<String>>,
    pub password_hash: Option<String>,
    pub roles: Option<Vec<Role>>,
    pub is_active: Option<bool>,
}

/// Why a staff account operation failed.
#[derive(Debug, thiserror::Error)]
pub enum StaffError {
    #[error("no such staff account")]
    UserNotFound,
    #[error("the username is taken")]
    UsernameTaken,
    /// The change would leave the tenant without an active owner.
    #[error("the tenant must keep at least one active owner")]
    LastOwner,
    #[error(transparent)]
    Store(#[from] crate::StoreError),
}

crate::store_error_from_sqlx!(StaffError);
