//! Tenants: the venues' organisations, each with its own data.

use super::audit::Change;
use super::{Repo, dialect};
use crate::{Actor, NewTenant, StoreError, StoreResult, TenancyError, Tenant, Timestamp};
use kairos_domain::TenantId;
use kairos_store_macros::operations;
use serde_json::json;

#[derive(kairos_store_macros::FromRow)]
struct TenantRow {
    id: String,
    name: String,
    currency: String,
    timezone: String,
    hold_ttl_minutes: i32,
    is_active: bool,
    created_at: Timestamp,
}

impl TryFrom<TenantRow> for Tenant {
    type Error = StoreError;
    fn try_from(r: TenantRow) -> Result<Self, StoreError> {
        Ok(Tenant {
            id: TenantId::parse(&r.id)
                .map_err(|e| StoreError::Corrupt(format!("tenant id: {e}")))?,
            name: r.name,
            currency: r.currency,
            timezone: r.timezone,
            hold_ttl_minutes: r.hold_ttl_minutes,
            is_active: r.is_active,
            created_at: r.created_at,
        })
    }
}

#[operations]
impl Repo {
    /// Creates a tenant; `TenantExists` when the id is taken.
    pub async fn create_tenant(
        &self,
        new: NewTenant,
        now: Timestamp,
    ) -> Result<Tenant, TenancyError> {
        let mut w = self.begin(&new.id, now).await?;
        let row: TenantRow = sqlx::query_as(
            "INSERT INTO tenants (id, name, currency, timezone, created_at, updated_at)
             VALUES ($1, $2, $3, $4, $5, $5)
             RETURNING id, name, currency, timezone, hold_ttl_minutes, is_active, created_at",
        )
        .bind(new.id.as_str())
        .bind(&new.name)
        .bind(&new.currency)
        .bind(&new.timezone)
        .bind(now)
        .fetch_one(&mut *w.tx)
        .await
        .map_err(|e| {
            if dialect::violates_unique(&e, "tenants_pkey", "tenants.id") {
                TenancyError::TenantExists
            } else {
                e.into()
            }
        })?;
        super::messaging::insert_default_rules(&mut w).await?;
        w.audit(&Actor::system("kairos"), Change {
                action: "tenant.created",
                entity_type: "tenant",
                entity_id: new.id.to_string(),
                changes: json!({"name": new.name, "currency": new.currency, "timezone": new.timezone}),
            });
        w.commit(None).await?;
        Ok(row.try_into()?)
    }

    pub async fn get_tenant(&self, id: &TenantId) -> StoreResult<Option<Tenant>> {
        let row: Option<TenantRow> = sqlx::query_as(
            "SELECT id, name, currency, timezone, hold_ttl_minutes, is_active, created_at
             FROM tenants WHERE id = $1",
        )
        .bind(id.as_str())
        .fetch_optional(&self.read)
        .await?;
        row.map(Tenant::try_from).transpose()
    }
}
