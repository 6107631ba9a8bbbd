//! Resources (spec Part B 2.3): the rooms, equipment, vehicles and staff at a site, and
//! the resource add-on configurations of products, one file each.

pub(crate) mod allocations;
mod blackouts;
mod configs;
pub(crate) mod following;
mod groups;
mod hours;
pub(crate) mod sessions;
mod skills;

use super::audit::{Change, diff};
use super::{Db, Repo};
use crate::stored;
use crate::{Actor, NewResource, Resource, ResourceError, StoreError, StoreResult, Timestamp};
use kairos_domain::resource_policies::PolicySet;
use kairos_domain::resources::{ResourceType, SharedMode};
use kairos_domain::{TenantId, new_id};
use kairos_store_macros::operations;
use serde_json::json;
use sqlx::Transaction;
use sqlx::types::Json;
use uuid::Uuid;

#[derive(kairos_store_macros::FromRow)]
pub(crate) struct ResourceRow {
    id: Uuid,
    site_id: Uuid,
    name: String,
    description: String,
    resource_type: String,
    shared_mode: String,
    capacity: i32,
    is_active: bool,
    group_id: Option<Uuid>,
    policies: Json<PolicySet>,
    created_at: Timestamp,
    updated_at: Timestamp,
}

impl TryFrom<ResourceRow> for Resource {
    type Error = StoreError;

    fn try_from(r: ResourceRow) -> Result<Self, StoreError> {
        Ok(Resource {
            id: r.id,
            site_id: r.site_id,
            name: r.name,
            description: r.description,
            resource_type: stored("resource_type", &r.resource_type, ResourceType::parse)?,
            shared_mode: stored("shared_mode", &r.shared_mode, SharedMode::parse)?,
            capacity: r.capacity,
            is_active: r.is_active,
            group_id: r.group_id,
            policies: r.policies.0,
            created_at: r.created_at,
            updated_at: r.updated_at,
        })
    }
}

pub(crate) const RESOURCE_COLUMNS: &str = "id, site_id, name, description, resource_type, \
     shared_mode, capacity, is_active, group_id, policies, created_at, updated_at";

/// One resource, read in the transaction.
pub(crate) async fn resource_in(
    tx: &mut Transaction<'static, Db>,
    tenant: &TenantId,
    id: Uuid,
) -> Result<Resource, ResourceError> {
    let row: Option<ResourceRow> = sqlx::query_as(sql!(
        "SELECT {RESOURCE_COLUMNS} FROM resources WHERE tenant_id = $1 AND id = $2"
    ))
    .bind(tenant.as_str())
    .bind(id)
    .fetch_optional(&mut **tx)
    .await?;
    Ok(row.ok_or(ResourceError::ResourceNotFound)?.try_into()?)
}

/// The site of a product of this tenant, `None` for an unknown product.
pub(crate) async fn product_site<'e, E>(
    db: E,
    tenant: &TenantId,
    product: Uuid,
) -> StoreResult<Option<Uuid>>
where
    E: sqlx::Executor<'e, Database = Db>,
{
    Ok(
        sqlx::query_scalar("SELECT site_id FROM products WHERE tenant_id = $1 AND id = $2")
            .bind(tenant.as_str())
            .bind(product)
            .fetch_optional(db)
            .await?,
    )
}

#[operations]
impl Repo {
    pub async fn create_resource(
        &self,
        tenant: &TenantId,
        new: NewResource,
        actor: &Actor,
        now: Timestamp,
    ) -> Result<Resource, ResourceError> {
        let mut w = self.begin(tenant, now).await?;
        if !w.has_site(new.site_id).await? {
            return Err(ResourceError::SiteNotFound);
        }
        let id = new_id();
        let row: ResourceRow = sqlx::query_as(sql!(
            "INSERT INTO resources (tenant_id, id, site_id, name, description, resource_type,
                 shared_mode, capacity, is_active, policies, created_at, updated_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $11, $10, $10)
             RETURNING {RESOURCE_COLUMNS}"
        ))
        .bind(tenant.as_str())
        .bind(id)
        .bind(new.site_id)
        .bind(&new.name)
        .bind(&new.description)
        .bind(new.resource_type.as_str())
        .bind(new.shared_mode.as_str())
        .bind(new.capacity)
        .bind(new.is_active)
        .bind(now)
        .bind(Json(new.policies))
        .fetch_one(&mut *w.tx)
        .await?;
        w.audit(
            actor,
            Change {
                action: "resource.created",
                entity_type: "resource",
                entity_id: id.to_string(),
                changes: json!(new),
            },
        );
        w.commit(None).await?;
        Ok(row.try_into()?)
    }

    /// The tenant's resources (of one site, of one type), by name.
    pub async fn list_resources(
        &self,
        tenant: &TenantId,
        site: Option<Uuid>,
        resource_type: Option<ResourceType>,
    ) -> StoreResult<Vec<Resource>> {
        let rows: Vec<ResourceRow> = sqlx::query_as(sql!(
            "SELECT {RESOURCE_COLUMNS} FROM resources
             WHERE tenant_id = $1 AND ($2 IS NULL OR site_id = $2)
               AND ($3 IS NULL OR resource_type = $3)
             ORDER BY name, id"
        ))
        .bind(tenant.as_str())
        .bind(site)
        .bind(resource_type.map(|t| t.as_str()))
        .fetch_all(&self.read)
        .await?;
        rows.into_iter().map(Resource::try_from).collect()
    }

    pub async fn resource(&self, tenant: &TenantId, id: Uuid) -> Result<Resource, ResourceError> {
        let row: Option<ResourceRow> = sqlx::query_as(sql!(
            "SELECT {RESOURCE_COLUMNS} FROM resources WHERE tenant_id = $1 AND id = $2"
        ))
        .bind(tenant.as_str())
        .bind(id)
        .fetch_optional(&self.read)
        .await?;
        Ok(row.ok_or(ResourceError::ResourceNotFound)?.try_into()?)
    }

    /// Changes a resource (its site stays: allocations and configurations depend on it).
    pub async fn update_resource(
        &self,
        tenant: &TenantId,
        id: Uuid,
        new: NewResource,
        actor: &Actor,
        now: Timestamp,
    ) -> Result<Resource, ResourceError> {
        let mut w = self.begin(tenant, now).await?;
        let before = resource_in(&mut w.tx, tenant, id).await?;
        let row: ResourceRow = sqlx::query_as(sql!(
            "UPDATE resources SET name = $3, description = $4, resource_type = $5,
                 shared_mode = $6, capacity = $7, is_active = $8, updated_at = $9,
                 policies = $10
             WHERE tenant_id = $1 AND id = $2
             RETURNING {RESOURCE_COLUMNS}"
        ))
        .bind(tenant.as_str())
        .bind(id)
        .bind(&new.name)
        .bind(&new.description)
        .bind(new.resource_type.as_str())
        .bind(new.shared_mode.as_str())
        .bind(new.capacity)
        .bind(new.is_active)
        .bind(now)
        .bind(Json(new.policies))
        .fetch_one(&mut *w.tx)
        .await?;
        let after = Resource::try_from(row)?;
        w.audit(
            actor,
            Change {
                action: "resource.updated",
                entity_type: "resource",
                entity_id: id.to_string(),
                changes: diff(&before, &after),
            },
        );
        w.commit(None).await?;
        Ok(after)
    }
}

#[operations]
impl Repo {
    /// The uses of a resource (allocations, and sessions with a booking) whose blocked
    /// ranges meet `[from, to)`, as (blocked from, blocked until, units), leaving out
    /// `exclude_booking`'s own allocations.
    pub async fn resource_use(
        &self,
        tenant: &TenantId,
        resource: Uuid,
        range: (Timestamp, Timestamp),
        exclude_booking: Option<Uuid>,
    ) -> StoreResult<Vec<(Timestamp, Timestamp, i32)>> {
        let mut conn = self.read.acquire().await?;
        Ok(allocations::uses(&mut conn, tenant, resource, range)
            .await?
            .iter()
            .filter(|u| exclude_booking.is_none() || u.booking_id != exclude_booking)
            .map(allocations::Use::triple)
            .collect())
    }
}
