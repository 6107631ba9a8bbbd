//! Resource groups (Part A 4.11): a site's resources gathered under one set of booking
//! policies. A resource is in at most one group.

use super::super::audit::{Change, diff};
use super::super::{Db, Repo};
use super::{RESOURCE_COLUMNS, ResourceRow, resource_in};
use crate::{
    Actor, NewResourceGroup, Resource, ResourceError, ResourceGroup, StoreResult, Timestamp,
};
use kairos_domain::resource_policies::{PolicyPatch, PolicySet};
use kairos_domain::{TenantId, new_id};
use kairos_store_macros::operations;
use serde_json::json;
use sqlx::Transaction;
use sqlx::types::Json;
use uuid::Uuid;

#[derive(kairos_store_macros::FromRow)]
struct GroupRow {
    id: Uuid,
    site_id: Uuid,
    name: String,
    description: String,
    policies: Json<PolicySet>,
    resource_count: i64,
    created_at: Timestamp,
    updated_at: Timestamp,
}

impl From<GroupRow> for ResourceGroup {
    fn from(r: GroupRow) -> Self {
        ResourceGroup {
            id: r.id,
            site_id: r.site_id,
            name: r.name,
            description: r.description,
            policies: r.policies.0,
            resource_count: r.resource_count,
            created_at: r.created_at,
            updated_at: r.updated_at,
        }
    }
}

const SELECT: &str = "SELECT g.id, g.site_id, g.name, g.description, g.policies,
         CAST((SELECT COUNT(*) FROM resources r
               WHERE r.tenant_id = g.tenant_id AND r.group_id = g.id) AS BIGINT) AS resource_count,
         g.created_at, g.updated_at
     FROM resource_groups g";

const UNIQUE_NAME: (&str, &str) = (
    "resource_groups_tenant_id_site_id_name_key",
    "resource_groups.tenant_id, resource_groups.site_id, resource_groups.name",
);

async fn group_in(
    tx: &mut Transaction<'static, Db>,
    tenant: &TenantId,
    id: Uuid,
) -> Result<ResourceGroup, ResourceError> {
    let row: Option<GroupRow> =
        sqlx::query_as(sql!("{SELECT} WHERE g.tenant_id = $1 AND g.id = $2"))
            .bind(tenant.as_str())
            .bind(id)
            .fetch_optional(&mut **tx)
            .await?;
    Ok(row.ok_or(ResourceError::GroupNotFound)?.into())
}

fn name_taken(e: sqlx::Error) -> ResourceError {
    if super::super::dialect::violates_unique(&e, UNIQUE_NAME.0, UNIQUE_NAME.1) {
        ResourceError::GroupNameTaken
    } else {
        e.into()
    }
}

#[operations]
impl Repo {
    pub async fn create_resource_group(
        &self,
        tenant: &TenantId,
        new: NewResourceGroup,
        actor: &Actor,
        now: Timestamp,
    ) -> Result<ResourceGroup, ResourceError> {
        let mut w = self.begin(tenant, now).await?;
        if !w.has_site(new.site_id).await? {
            return Err(ResourceError::SiteNotFound);
        }
        let id = new_id();
        sqlx::query(
            "INSERT INTO resource_groups (tenant_id, id, site_id, name, description,
                 created_at, updated_at)
             VALUES ($1, $2, $3, $4, $5, $6, $6)",
        )
        .bind(tenant.as_str())
        .bind(id)
        .bind(new.site_id)
        .bind(&new.name)
        .bind(&new.description)
        .bind(now)
        .execute(&mut *w.tx)
        .await
        .map_err(name_taken)?;
        w.audit(
            actor,
            Change {
                action: "resource_group.created",
                entity_type: "resource_group",
                entity_id: id.to_string(),
                changes: json!(new),
            },
        );
        let group = group_in(&mut w.tx, tenant, id).await?;
        w.commit(None).await?;
        Ok(group)
    }

    /// The tenant's groups (of one site), by name.
    pub async fn list_resource_groups(
        &self,
        tenant: &TenantId,
        site: Option<Uuid>,
    ) -> StoreResult<Vec<ResourceGroup>> {
        let rows: Vec<GroupRow> = sqlx::query_as(sql!(
            "{SELECT} WHERE g.tenant_id = $1 AND ($2 IS NULL OR g.site_id = $2)
             ORDER BY g.name, g.id"
        ))
        .bind(tenant.as_str())
        .bind(site)
        .fetch_all(&self.read)
        .await?;
        Ok(rows.into_iter().map(ResourceGroup::from).collect())
    }

    pub async fn resource_group(
        &self,
        tenant: &TenantId,
        id: Uuid,
    ) -> Result<ResourceGroup, ResourceError> {
        let row: Option<GroupRow> =
            sqlx::query_as(sql!("{SELECT} WHERE g.tenant_id = $1 AND g.id = $2"))
                .bind(tenant.as_str())
                .bind(id)
                .fetch_optional(&self.read)
                .await?;
        Ok(row.ok_or(ResourceError::GroupNotFound)?.into())
    }

    /// Renames or redescribes a group (its site stays).
    pub async fn update_resource_group(
        &self,
        tenant: &TenantId,
        id: Uuid,
        name: Option<String>,
        description: Option<String>,
        actor: &Actor,
        now: Timestamp,
    ) -> Result<ResourceGroup, ResourceError> {
        let mut w = self.begin(tenant, now).await?;
        let before = group_in(&mut w.tx, tenant, id).await?;
        sqlx::query(
            "UPDATE resource_groups SET name = $3, description = $4, updated_at = $5
             WHERE tenant_id = $1 AND id = $2",
        )
        .bind(tenant.as_str())
        .bind(id)
        .bind(name.unwrap_or_else(|| before.name.clone()))
        .bind(description.unwrap_or_else(|| before.description.clone()))
        .bind(now)
        .execute(&mut *w.tx)
        .await
        .map_err(name_taken)?;
        let after = group_in(&mut w.tx, tenant, id).await?;
        w.audit(
            actor,
            Change {
                action: "resource_group.updated",
                entity_type: "resource_group",
                entity_id: id.to_string(),
                changes: diff(&before, &after),
            },
        );
        w.commit(None).await?;
        Ok(after)
    }

    /// Deletes a group; its resources stay, in no group (their own policies unchanged).
    pub async fn delete_resource_group(
        &self,
        tenant: &TenantId,
        id: Uuid,
        actor: &Actor,
        now: Timestamp,
    ) -> Result<(), ResourceError> {
        let mut w = self.begin(tenant, now).await?;
        let group = group_in(&mut w.tx, tenant, id).await?;
        sqlx::query(
            "UPDATE resources SET group_id = NULL, updated_at = $3
             WHERE tenant_id = $1 AND group_id = $2",
        )
        .bind(tenant.as_str())
        .bind(id)
        .bind(now)
        .execute(&mut *w.tx)
        .await?;
        sqlx::query("DELETE FROM resource_groups WHERE tenant_id = $1 AND id = $2")
            .bind(tenant.as_str())
            .bind(id)
            .execute(&mut *w.tx)
            .await?;
        w.audit(
            actor,
            Change {
                action: "resource_group.deleted",
                entity_type: "resource_group",
                entity_id: id.to_string(),
                changes: json!({"name": group.name, "resourcesUnassigned": group.resource_count}),
            },
        );
        w.commit(None).await?;
        Ok(())
    }

    /// The group's resources, by name.
    pub async fn group_resources(
        &self,
        tenant: &TenantId,
        id: Uuid,
    ) -> Result<Vec<Resource>, ResourceError> {
        self.resource_group(tenant, id).await?;
        let rows: Vec<ResourceRow> = sqlx::query_as(sql!(
            "SELECT {RESOURCE_COLUMNS} FROM resources
             WHERE tenant_id = $1 AND group_id = $2 ORDER BY name, id"
        ))
        .bind(tenant.as_str())
        .bind(id)
        .fetch_all(&self.read)
        .await?;
        Ok(rows
            .into_iter()
            .map(Resource::try_from)
            .collect::<Result<_, _>>()?)
    }

    /// Puts every resource of `resources` in the group (out of any other), all or none:
    /// each must be a resource of the group's site.
    pub async fn assign_resources(
        &self,
        tenant: &TenantId,
        group: Uuid,
        resources: Vec<Uuid>,
        actor: &Actor,
        now: Timestamp,
    ) -> Result<Vec<Resource>, ResourceError> {
        let mut w = self.begin(tenant, now).await?;
        let g = group_in(&mut w.tx, tenant, group).await?;
        let mut out = Vec::new();
        for id in resources {
            let before = resource_in(&mut w.tx, tenant, id).await?;
            if before.site_id != g.site_id {
                return Err(ResourceError::OtherSite);
            }
            let row: ResourceRow = sqlx::query_as(sql!(
                "UPDATE resources SET group_id = $3, updated_at = $4
                 WHERE tenant_id = $1 AND id = $2 RETURNING {RESOURCE_COLUMNS}"
            ))
            .bind(tenant.as_str())
            .bind(id)
            .bind(group)
            .bind(now)
            .fetch_one(&mut *w.tx)
            .await?;
            if before.group_id != Some(group) {
                w.audit(
                    actor,
                    Change {
                        action: "resource.group_assigned",
                        entity_type: "resource",
                        entity_id: id.to_string(),
                        changes: json!({"groupId": {"from": before.group_id, "to": group}}),
                    },
                );
            }
            out.push(Resource::try_from(row)?);
        }
        w.commit(None).await?;
        Ok(out)
    }

    /// Takes the resource out of its group (nothing to do when it is in none).
    pub async fn unassign_resource(
        &self,
        tenant: &TenantId,
        id: Uuid,
        actor: &Actor,
        now: Timestamp,
    ) -> Result<Resource, ResourceError> {
        let mut w = self.begin(tenant, now).await?;
        let before = resource_in(&mut w.tx, tenant, id).await?;
        let row: ResourceRow = sqlx::query_as(sql!(
            "UPDATE resources SET group_id = NULL, updated_at = $3
             WHERE tenant_id = $1 AND id = $2 RETURNING {RESOURCE_COLUMNS}"
        ))
        .bind(tenant.as_str())
        .bind(id)
        .bind(now)
        .fetch_one(&mut *w.tx)
        .await?;
        if before.group_id.is_some() {
            w.audit(
                actor,
                Change {
                    action: "resource.group_unassigned",
                    entity_type: "resource",
                    entity_id: id.to_string(),
                    changes: json!({"groupId": {"from": before.group_id, "to": null}}),
                },
            );
        }
        w.commit(None).await?;
        Ok(Resource::try_from(row)?)
    }

    /// Changes the group's policies by `patch`, read and written in one transaction.
    pub async fn patch_group_policies(
        &self,
        tenant: &TenantId,
        id: Uuid,
        patch: PolicyPatch,
        actor: &Actor,
        now: Timestamp,
    ) -> Result<ResourceGroup, ResourceError> {
        let mut w = self.begin(tenant, now).await?;
        let before = group_in(&mut w.tx, tenant, id).await?;
        let policies = patch.apply(before.policies);
        sqlx::query(
            "UPDATE resource_groups SET policies = $3, updated_at = $4
             WHERE tenant_id = $1 AND id = $2",
        )
        .bind(tenant.as_str())
        .bind(id)
        .bind(Json(policies))
        .bind(now)
        .execute(&mut *w.tx)
        .await?;
        let after = group_in(&mut w.tx, tenant, id).await?;
        w.audit(
            actor,
            Change {
                action: "resource_group.policies_changed",
                entity_type: "resource_group",
                entity_id: id.to_string(),
                changes: json!({"policies": {"from": before.policies, "to": after.policies}}),
            },
        );
        w.commit(None).await?;
        Ok(after)
    }

    /// The resource and its group, if it is in one (for its effective policies).
    pub async fn resource_with_group(
        &self,
        tenant: &TenantId,
        id: Uuid,
    ) -> Result<(Resource, Option<ResourceGroup>), ResourceError> {
        let resource = self.resource(tenant, id).await?;
        let group = match resource.group_id {
            Some(g) => Some(self.resource_group(tenant, g).await?),
            None => None,
        };
        Ok((resource, group))
    }
}

/// The policies of `resource` and of its group, read in the transaction.
pub(crate) async fn policy_sets(
    tx: &mut Transaction<'static, Db>,
    tenant: &TenantId,
    resource: Uuid,
) -> StoreResult<(PolicySet, Option<PolicySet>)> {
    let row: Option<(Json<PolicySet>, Option<Json<PolicySet>>)> = sqlx::query_as(
        "SELECT r.policies, g.policies FROM resources r
         LEFT JOIN resource_groups g ON g.tenant_id = r.tenant_id AND g.id = r.group_id
         WHERE r.tenant_id = $1 AND r.id = $2",
    )
    .bind(tenant.as_str())
    .bind(resource)
    .fetch_optional(&mut **tx)
    .await?;
    Ok(row.map_or((PolicySet::default(), None), |(own, group)| {
        (own.0, group.map(|g| g.0))
    }))
}
