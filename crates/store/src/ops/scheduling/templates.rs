//! Weekly, monthly and annual schedule templates of a site or product.

use super::{
    Change, Repo, TEMPLATE_COLUMNS, TemplateRow, WHOLE_HORIZON, diff, lock_scopes,
    regenerate_scope, scope_exists,
};
use crate::{Actor, Changed, NewTemplate, ScheduleError, StoreResult, TemplateRecord, Timestamp};
use kairos_domain::scheduling::ScopeType;
use kairos_domain::{TenantId, new_id};
use kairos_store_macros::operations;
use serde_json::json;
use sqlx::types::Json;
use uuid::Uuid;

#[operations]
impl Repo {
    pub async fn create_template(
        &self,
        tenant: &TenantId,
        new: NewTemplate,
        actor: &Actor,
        now: Timestamp,
    ) -> Result<Changed<TemplateRecord>, ScheduleError> {
        let mut w = self.begin(tenant, now).await?;
        scope_exists(&mut w.tx, tenant, new.scope_type, new.scope_id).await?;
        let id = new_id();
        let row: TemplateRow = sqlx::query_as(sql!(
            "INSERT INTO schedule_templates (tenant_id, id, scope_type, scope_id, day_of_week,
                 start_time, end_time, recurrence_kind, by_day, by_month, by_month_day, exdates,
                 valid_from, valid_to, created_at, updated_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $15)
             RETURNING {TEMPLATE_COLUMNS}"
        ))
        .bind(tenant.as_str())
        .bind(id)
        .bind(new.scope_type.as_str())
        .bind(new.scope_id)
        .bind(new.day_of_week)
        .bind(&new.start_time)
        .bind(&new.end_time)
        .bind(new.recurrence_kind.as_str())
        .bind(new.by_day)
        .bind(new.by_month)
        .bind(new.by_month_day)
        .bind(Json(&new.exdates))
        .bind(new.valid_from)
        .bind(new.valid_to)
        .bind(now)
        .fetch_one(&mut *w.tx)
        .await?;
        w.audit(
            actor,
            Change {
                action: "schedule_template.created",
                entity_type: "schedule_template",
                entity_id: id.to_string(),
                changes: json!(new),
            },
        );
        let regeneration = regenerate_scope(
            &mut w.tx,
            tenant,
            new.scope_type,
            new.scope_id,
            WHOLE_HORIZON,
            now,
            false,
        )
        .await?;
        w.commit(None).await?;
        Ok(Changed {
            record: row.try_into()?,
            regeneration,
        })
    }

    pub async fn get_template(
        &self,
        tenant: &TenantId,
        id: Uuid,
    ) -> StoreResult<Option<TemplateRecord>> {
        let row: Option<TemplateRow> = sqlx::query_as(sql!(
            "SELECT {TEMPLATE_COLUMNS} FROM schedule_templates WHERE tenant_id = $1 AND id = $2"
        ))
        .bind(tenant.as_str())
        .bind(id)
        .fetch_optional(&self.read)
        .await?;
        row.map(TemplateRecord::try_from).transpose()
    }

    /// Templates of the tenant, optionally of one scope.
    pub async fn list_templates(
        &self,
        tenant: &TenantId,
        scope: Option<(ScopeType, Uuid)>,
    ) -> StoreResult<Vec<TemplateRecord>> {
        let rows: Vec<TemplateRow> = match scope {
            Some((scope_type, scope_id)) => sqlx::query_as(sql!(
                "SELECT {TEMPLATE_COLUMNS} FROM schedule_templates
                 WHERE tenant_id = $1 AND scope_type = $2 AND scope_id = $3 ORDER BY created_at, id"
            ))
            .bind(tenant.as_str())
            .bind(scope_type.as_str())
            .bind(scope_id)
            .fetch_all(&self.read)
            .await?,
            None => sqlx::query_as(sql!(
                "SELECT {TEMPLATE_COLUMNS} FROM schedule_templates WHERE tenant_id = $1 ORDER BY created_at, id"
            ))
            .bind(tenant.as_str())
            .fetch_all(&self.read)
            .await?,
        };
        rows.into_iter().map(TemplateRecord::try_from).collect()
    }

    pub async fn update_template(
        &self,
        tenant: &TenantId,
        id: Uuid,
        new: NewTemplate,
        actor: &Actor,
        now: Timestamp,
    ) -> Result<Changed<TemplateRecord>, ScheduleError> {
        let mut w = self.begin(tenant, now).await?;
        let before: TemplateRecord = sqlx::query_as::<_, TemplateRow>(sql!(
            "SELECT {TEMPLATE_COLUMNS} FROM schedule_templates WHERE tenant_id = $1 AND id = $2"
        ))
        .bind(tenant.as_str())
        .bind(id)
        .fetch_optional(&mut *w.tx)
        .await?
        .ok_or(ScheduleError::TemplateNotFound)?
        .try_into()?;
        scope_exists(&mut w.tx, tenant, new.scope_type, new.scope_id).await?;
        let row: TemplateRow = sqlx::query_as(sql!(
            "UPDATE schedule_templates SET scope_type = $3, scope_id = $4, day_of_week = $5,
                 start_time = $6, end_time = $7, recurrence_kind = $8, by_day = $9, by_month = $10,
                 by_month_day = $11, exdates = $12, valid_from = $13, valid_to = $14, updated_at = $15
             WHERE tenant_id = $1 AND id = $2
             RETURNING {TEMPLATE_COLUMNS}"
        ))
        .bind(tenant.as_str())
        .bind(id)
        .bind(new.scope_type.as_str())
        .bind(new.scope_id)
        .bind(new.day_of_week)
        .bind(&new.start_time)
        .bind(&new.end_time)
        .bind(new.recurrence_kind.as_str())
        .bind(new.by_day)
        .bind(new.by_month)
        .bind(new.by_month_day)
        .bind(Json(&new.exdates))
        .bind(new.valid_from)
        .bind(new.valid_to)
        .bind(now)
        .fetch_one(&mut *w.tx)
        .await?;
        let after = TemplateRecord::try_from(row)?;
        w.audit(
            actor,
            Change {
                action: "schedule_template.updated",
                entity_type: "schedule_template",
                entity_id: id.to_string(),
                changes: diff(&before.fields, &after.fields),
            },
        );
        lock_scopes(
            &mut w.tx,
            tenant,
            [
                (before.fields.scope_type, before.fields.scope_id),
                (new.scope_type, new.scope_id),
            ],
        )
        .await?;
        let mut regeneration = regenerate_scope(
            &mut w.tx,
            tenant,
            new.scope_type,
            new.scope_id,
            WHOLE_HORIZON,
            now,
            false,
        )
        .await?;
        if (before.fields.scope_type, before.fields.scope_id) != (new.scope_type, new.scope_id) {
            regeneration.absorb(
                regenerate_scope(
                    &mut w.tx,
                    tenant,
                    before.fields.scope_type,
                    before.fields.scope_id,
                    WHOLE_HORIZON,
                    now,
                    false,
                )
                .await?,
            );
        }
        w.commit(None).await?;
        Ok(Changed {
            record: after,
            regeneration,
        })
    }

    pub async fn delete_template(
        &self,
        tenant: &TenantId,
        id: Uuid,
        actor: &Actor,
        now: Timestamp,
    ) -> Result<Changed<TemplateRecord>, ScheduleError> {
        let mut w = self.begin(tenant, now).await?;
        let before: TemplateRecord = sqlx::query_as::<_, TemplateRow>(sql!(
            "DELETE FROM schedule_templates WHERE tenant_id = $1 AND id = $2 RETURNING {TEMPLATE_COLUMNS}"
        ))
        .bind(tenant.as_str())
        .bind(id)
        .fetch_optional(&mut *w.tx)
        .await?
        .ok_or(ScheduleError::TemplateNotFound)?
        .try_into()?;
        w.audit(
            actor,
            Change {
                action: "schedule_template.deleted",
                entity_type: "schedule_template",
                entity_id: id.to_string(),
                changes: json!(before.fields),
            },
        );
        let regeneration = regenerate_scope(
            &mut w.tx,
            tenant,
            before.fields.scope_type,
            before.fields.scope_id,
            WHOLE_HORIZON,
            now,
            false,
        )
        .await?;
        w.commit(None).await?;
        Ok(Changed {
            record: before,
            regeneration,
        })
    }
}
