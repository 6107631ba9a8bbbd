//! Staff accounts and their roles.

use super::super::audit::Change;
use super::super::{Db, Repo, dialect};
use crate::{
    Actor, AdminUser, AdminUserPatch, NewAdminUser, StaffError, StoreError, StoreResult, Timestamp,
};
use kairos_domain::auth::Role;
use kairos_domain::{TenantId, new_id};
use serde_json::{Map, Value, json};
use sqlx::{Executor, Transaction};
use uuid::Uuid;

use kairos_store_macros::operations;

#[derive(kairos_store_macros::FromRow)]
struct UserRow {
    id: Uuid,
    tenant_id: String,
    username: String,
    display_name: String,
    email: Option<String>,
    password_hash: String,
    is_active: bool,
    created_at: Timestamp,
    updated_at: Timestamp,
    last_login_at: Option<Timestamp>,
    token_generation: i32,
}

const USER_COLUMNS: &str = "id, tenant_id, username, display_name, email, password_hash, \
     is_active, created_at, updated_at, last_login_at, token_generation";

impl UserRow {
    fn into_user(self, roles: Vec<Role>) -> StoreResult<AdminUser> {
        Ok(AdminUser {
            id: self.id,
            tenant_id: TenantId::parse(&self.tenant_id)
                .map_err(|e| StoreError::Corrupt(format!("tenant id: {e}")))?,
            username: self.username,
            display_name: self.display_name,
            email: self.email,
            password_hash: self.password_hash,
            roles,
            is_active: self.is_active,
            created_at: self.created_at,
            updated_at: self.updated_at,
            last_login_at: self.last_login_at,
            token_generation: self.token_generation,
        })
    }
}

async fn roles_of<'e, E>(exec: E, tenant: &TenantId, user: Uuid) -> StoreResult<Vec<Role>>
where
    E: Executor<'e, Database = Db>,
{
    let names: Vec<String> = sqlx::query_scalar(
        "SELECT role FROM admin_user_roles WHERE tenant_id = $1 AND user_id = $2 ORDER BY role",
    )
    .bind(tenant.as_str())
    .bind(user)
    .fetch_all(exec)
    .await?;
    let mut roles = names
        .iter()
        .map(|n| Role::parse(n).ok_or_else(|| StoreError::Corrupt(format!("role {n}"))))
        .collect::<StoreResult<Vec<Role>>>()?;
    roles.sort();
    Ok(roles)
}

async fn replace_roles(
    tx: &mut Transaction<'static, Db>,
    tenant: &TenantId,
    user: Uuid,
    roles: &[Role],
) -> Result<(), sqlx::Error> {
    sqlx::query("DELETE FROM admin_user_roles WHERE tenant_id = $1 AND user_id = $2")
        .bind(tenant.as_str())
        .bind(user)
        .execute(&mut **tx)
        .await?;
    let mut sorted = roles.to_vec();
    sorted.sort();
    sorted.dedup();
    for role in sorted {
        sqlx::query("INSERT INTO admin_user_roles (tenant_id, user_id, role) VALUES ($1, $2, $3)")
            .bind(tenant.as_str())
            .bind(user)
            .bind(role.as_str())
            .execute(&mut **tx)
            .await?;
    }
    Ok(())
}

fn role_names(roles: &[Role]) -> Vec<&'static str> {
    roles.iter().map(|r| r.as_str()).collect()
}

#[operations]
impl Repo {
    /// Creates a staff account; `UsernameTaken` when the name is taken.
    pub async fn create_admin_user(
        &self,
        tenant: &TenantId,
        new: NewAdminUser,
        actor: &Actor,
        now: Timestamp,
    ) -> Result<AdminUser, StaffError> {
        let mut w = self.begin(tenant, now).await?;
        let id = new_id();
        let row: UserRow = sqlx::query_as(sql!(
            "INSERT INTO admin_users (tenant_id, id, username, display_name, email, password_hash,
                                      created_at, updated_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $7)
             RETURNING {USER_COLUMNS}"
        ))
        .bind(tenant.as_str())
        .bind(id)
        .bind(&new.username)
        .bind(&new.display_name)
        .bind(&new.email)
        .bind(&new.password_hash)
        .bind(now)
        .fetch_one(&mut *w.tx)
        .await
        .map_err(|e| {
            if dialect::violates_unique(
                &e,
                "admin_users_username",
                "admin_users.tenant_id, admin_users.username",
            ) {
                StaffError::UsernameTaken
            } else {
                e.into()
            }
        })?;
        replace_roles(&mut w.tx, tenant, id, &new.roles).await?;
        let roles = roles_of(&mut *w.tx, tenant, id).await?;
        w.audit(
            actor,
            Change {
                action: "admin_user.created",
                entity_type: "admin_user",
                entity_id: id.to_string(),
                changes: json!({
                    "username": new.username,
                    "displayName": new.display_name,
                    "email": new.email,
                    "roles": role_names(&roles),
                }),
            },
        );
        w.commit(None).await?;
        Ok(row.into_user(roles)?)
    }

    pub async fn get_admin_user(
        &self,
        tenant: &TenantId,
        id: Uuid,
    ) -> StoreResult<Option<AdminUser>> {
        let mut conn = self.read.acquire().await?;
        let row: Option<UserRow> = sqlx::query_as(sql!(
            "SELECT {USER_COLUMNS} FROM admin_users WHERE tenant_id = $1 AND id = $2"
        ))
        .bind(tenant.as_str())
        .bind(id)
        .fetch_optional(&mut *conn)
        .await?;
        match row {
            None => Ok(None),
            Some(row) => {
                let roles = roles_of(&mut *conn, tenant, id).await?;
                row.into_user(roles).map(Some)
            }
        }
    }

    pub async fn find_admin_user_by_username(
        &self,
        tenant: &TenantId,
        username: &str,
    ) -> StoreResult<Option<AdminUser>> {
        let mut conn = self.read.acquire().await?;
        let row: Option<UserRow> = sqlx::query_as(sql!(
            "SELECT {USER_COLUMNS} FROM admin_users WHERE tenant_id = $1 AND username = $2"
        ))
        .bind(tenant.as_str())
        .bind(username)
        .fetch_optional(&mut *conn)
        .await?;
        match row {
            None => Ok(None),
            Some(row) => {
                let roles = roles_of(&mut *conn, tenant, row.id).await?;
                row.into_user(roles).map(Some)
            }
        }
    }

    pub async fn list_admin_users(&self, tenant: &TenantId) -> StoreResult<Vec<AdminUser>> {
        let mut conn = self.read.acquire().await?;
        let rows: Vec<UserRow> = sqlx::query_as(sql!(
            "SELECT {USER_COLUMNS} FROM admin_users WHERE tenant_id = $1 ORDER BY username"
        ))
        .bind(tenant.as_str())
        .fetch_all(&mut *conn)
        .await?;
        let mut users = Vec::with_capacity(rows.len());
        for row in rows {
            let roles = roles_of(&mut *conn, tenant, row.id).await?;
            users.push(row.into_user(roles)?);
        }
        Ok(users)
    }

    /// Applies `patch` and audits each changed field with its old and new value.
    /// `LastOwner` (nothing changed) when the tenant would be left without an active owner.
    pub async fn update_admin_user(
        &self,
        tenant: &TenantId,
        id: Uuid,
        patch: AdminUserPatch,
        actor: &Actor,
        now: Timestamp,
    ) -> Result<AdminUser, StaffError> {
        let mut w = self.begin(tenant, now).await?;
        // Two owners demoting each other at once must not both succeed: staff changes of a
        // tenant run one at a time (PostgreSQL; SQLite's write lock does the same).
        dialect::lock_key(&mut w.tx, &format!("staff:{tenant}")).await?;
        let before: UserRow = sqlx::query_as(sql!(
            "SELECT {USER_COLUMNS} FROM admin_users WHERE tenant_id = $1 AND id = $2"
        ))
        .bind(tenant.as_str())
        .bind(id)
        .fetch_optional(&mut *w.tx)
        .await?
        .ok_or(StaffError::UserNotFound)?;
        let roles_before = roles_of(&mut *w.tx, tenant, id).await?;

        let mut changes = Map::new();
        let mut diff = |field: &str, from: Value, to: Value| {
            if from != to {
                changes.insert(field.to_owned(), json!({"from": from, "to": to}));
            }
        };
        let display_name = patch.display_name.unwrap_or(before.display_name.clone());
        diff(
            "displayName",
            json!(before.display_name),
            json!(display_name),
        );
        let email = patch.email.unwrap_or(before.email.clone());
        diff("email", json!(before.email), json!(email));
        let is_active = patch.is_active.unwrap_or(before.is_active);
        diff("isActive", json!(before.is_active), json!(is_active));
        if let Some(roles) = &patch.roles {
            let mut sorted = roles.clone();
            sorted.sort();
            sorted.dedup();
            diff(
                "roles",
                json!(role_names(&roles_before)),
                json!(role_names(&sorted)),
            );
        }
        let password_changed = patch.password_hash.is_some();
        let password_hash = match patch.password_hash {
            Some(hash) => {
                // Never store the hash in the audit log, only that it changed.
                changes.insert("password".to_owned(), json!({"changed": true}));
                hash
            }
            None => before.password_hash.clone(),
        };
        // A new password or a deactivation ends every session: tokens issued before carry
        // an older generation (and stay dead should the account be reactivated).
        let token_generation = if password_changed || (before.is_active && !is_active) {
            before.token_generation + 1
        } else {
            before.token_generation
        };

        let row: UserRow = sqlx::query_as(sql!(
            "UPDATE admin_users
             SET display_name = $3, email = $4, is_active = $5, password_hash = $6, updated_at = $7,
                 token_generation = $8
             WHERE tenant_id = $1 AND id = $2
             RETURNING {USER_COLUMNS}"
        ))
        .bind(tenant.as_str())
        .bind(id)
        .bind(&display_name)
        .bind(&email)
        .bind(is_active)
        .bind(&password_hash)
        .bind(now)
        .bind(token_generation)
        .fetch_one(&mut *w.tx)
        .await?;
        if let Some(roles) = &patch.roles {
            replace_roles(&mut w.tx, tenant, id, roles).await?;
        }
        let roles = roles_of(&mut *w.tx, tenant, id).await?;
        let active_owners: i64 = sqlx::query_scalar(
            "SELECT COUNT(*) FROM admin_users u
             JOIN admin_user_roles r ON r.tenant_id = u.tenant_id AND r.user_id = u.id
             WHERE u.tenant_id = $1 AND u.is_active AND r.role = 'owner'",
        )
        .bind(tenant.as_str())
        .fetch_one(&mut *w.tx)
        .await?;
        if active_owners == 0 {
            return Err(StaffError::LastOwner);
        }
        if !changes.is_empty() {
            let action = if before.is_active && !is_active {
                "admin_user.deactivated"
            } else {
                "admin_user.updated"
            };
            w.audit(
                actor,
                Change {
                    action,
                    entity_type: "admin_user",
                    entity_id: id.to_string(),
                    changes: Value::Object(changes),
                },
            );
        }
        w.commit(None).await?;
        Ok(row.into_user(roles)?)
    }

    pub async fn record_admin_login(
        &self,
        tenant: &TenantId,
        id: Uuid,
        now: Timestamp,
    ) -> StoreResult<()> {
        let mut w = self.begin(tenant, now).await?;
        sqlx::query("UPDATE admin_users SET last_login_at = $3 WHERE tenant_id = $1 AND id = $2")
            .bind(tenant.as_str())
            .bind(id)
            .bind(now)
            .execute(&mut *w.tx)
            .await?;
        w.commit(None).await?;
        Ok(())
    }
}
