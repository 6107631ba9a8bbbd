//! A resource's time off (spec Part B 4.12: resource-level schedules, independent of
//! product schedules): while a blackout lasts the resource counts as fully used, so no
//! add-on window and no session that needs it is offered or taken.

use super::super::audit::Change;
use super::super::{Db, Repo};
use super::allocations::uses;
use crate::{
    Actor, BlackoutWritten, NewBlackout, ResourceBlackout, ResourceError, StoreError, StoreResult,
    Timestamp,
};
use kairos_domain::scheduling::BlackoutKind;
use kairos_domain::{TenantId, new_id};
use kairos_store_macros::operations;
use serde_json::json;
use uuid::Uuid;

#[derive(kairos_store_macros::FromRow)]
struct BlackoutRow {
    id: Uuid,
    resource_id: Uuid,
    kind: String,
    starts_at: Timestamp,
    ends_at: Timestamp,
    reason: String,
    created_at: Timestamp,
}

impl TryFrom<BlackoutRow> for ResourceBlackout {
    type Error = StoreError;

    fn try_from(r: BlackoutRow) -> Result<Self, StoreError> {
        Ok(ResourceBlackout {
            id: r.id,
            resource_id: r.resource_id,
            kind: crate::stored("kind", &r.kind, BlackoutKind::parse)?,
            starts_at: r.starts_at,
            ends_at: r.ends_at,
            reason: r.reason,
            created_at: r.created_at,
        })
    }
}

const COLUMNS: &str = "id, resource_id, kind, starts_at, ends_at, reason, created_at";

async fn resource_exists<'e, E>(db: E, tenant: &TenantId, id: Uuid) -> Result<(), ResourceError>
where
    E: sqlx::Executor<'e, Database = Db>,
{
    let found: Option<Uuid> =
        sqlx::query_scalar("SELECT id FROM resources WHERE tenant_id = $1 AND id = $2")
            .bind(tenant.as_str())
            .bind(id)
            .fetch_optional(db)
            .await?;
    found.map(|_| ()).ok_or(ResourceError::ResourceNotFound)
}

#[operations]
impl Repo {
    /// Takes `resource` out of use over `[starts_at, ends_at)`. What it already serves
    /// there is kept (a booking is never cancelled by it) and listed, so staff can move it.
    pub async fn create_resource_blackout(
        &self,
        tenant: &TenantId,
        resource: Uuid,
        new: NewBlackout,
        actor: &Actor,
        now: Timestamp,
    ) -> Result<BlackoutWritten, ResourceError> {
        let mut w = self.begin(tenant, now).await?;
        resource_exists(&mut *w.tx, tenant, resource).await?;
        let range = (new.starts_at, new.ends_at);
        let (kind, reason) = (new.kind, new.reason);
        let overlapping: Vec<(Timestamp, Timestamp)> = uses(&mut w.tx, tenant, resource, range)
            .await?
            .iter()
            .filter(|u| u.booking_id.is_some() || u.slot_id.is_some())
            .map(|u| (u.blocked_from, u.blocked_until))
            .collect();
        let id = new_id();
        let row: BlackoutRow = sqlx::query_as(sql!(
            "INSERT INTO resource_blackouts (tenant_id, id, resource_id, kind, starts_at,
                 ends_at, reason, created_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
             RETURNING {COLUMNS}"
        ))
        .bind(tenant.as_str())
        .bind(id)
        .bind(resource)
        .bind(kind.as_str())
        .bind(range.0)
        .bind(range.1)
        .bind(&reason)
        .bind(now)
        .fetch_one(&mut *w.tx)
        .await?;
        w.audit(
            actor,
            Change {
                action: "resource.blackout_created",
                entity_type: "resource",
                entity_id: resource.to_string(),
                changes: json!({"blackoutId": id, "kind": kind.as_str(),
                    "startsAt": range.0, "endsAt": range.1, "reason": reason,
                    "overlapping": overlapping.len()}),
            },
        );
        w.commit(None).await?;
        Ok(BlackoutWritten {
            blackout: row.try_into()?,
            overlapping,
        })
    }

    /// The blackouts of `resource` that end after `from`, by start.
    pub async fn resource_blackouts(
        &self,
        tenant: &TenantId,
        resource: Uuid,
        from: Timestamp,
    ) -> Result<Vec<ResourceBlackout>, ResourceError> {
        resource_exists(&self.read, tenant, resource).await?;
        let rows: Vec<BlackoutRow> = sqlx::query_as(sql!(
            "SELECT {COLUMNS} FROM resource_blackouts
             WHERE tenant_id = $1 AND resource_id = $2 AND ends_at > $3
             ORDER BY starts_at, id"
        ))
        .bind(tenant.as_str())
        .bind(resource)
        .bind(from)
        .fetch_all(&self.read)
        .await?;
        Ok(rows
            .into_iter()
            .map(ResourceBlackout::try_from)
            .collect::<StoreResult<_>>()?)
    }

    /// Ends a blackout early (deletes it): the resource is in use again at once.
    pub async fn delete_resource_blackout(
        &self,
        tenant: &TenantId,
        resource: Uuid,
        id: Uuid,
        actor: &Actor,
        now: Timestamp,
    ) -> Result<(), ResourceError> {
        let mut w = self.begin(tenant, now).await?;
        let gone = sqlx::query(
            "DELETE FROM resource_blackouts WHERE tenant_id = $1 AND resource_id = $2 AND id = $3",
        )
        .bind(tenant.as_str())
        .bind(resource)
        .bind(id)
        .execute(&mut *w.tx)
        .await?;
        if gone.rows_affected() == 0 {
            return Err(ResourceError::BlackoutNotFound);
        }
        w.audit(
            actor,
            Change {
                action: "resource.blackout_deleted",
                entity_type: "resource",
                entity_id: resource.to_string(),
                changes: json!({"blackoutId": id}),
            },
        );
        w.commit(None).await?;
        Ok(())
    }
}
