//! Date rules: overrides (other opening hours on some dates) and blackouts (closures).

use super::{
    Change, DateRuleRow, Repo, date_rule_columns, diff, lock_scopes, regenerate_scope, rule_span,
    scope_exists, table,
};
use crate::{
    Actor, Changed, DateRuleKind, DateRuleRecord, NewDateRule, ScheduleError, StoreResult,
    Timestamp,
};
use kairos_domain::scheduling::{BlackoutKind, ScopeType};
use kairos_domain::{TenantId, new_id};
use kairos_store_macros::operations;
use serde_json::json;
use uuid::Uuid;

#[operations]
impl Repo {
    pub async fn create_date_rule(
        &self,
        tenant: &TenantId,
        kind: DateRuleKind,
        new: NewDateRule,
        actor: &Actor,
        now: Timestamp,
    ) -> Result<Changed<DateRuleRecord>, ScheduleError> {
        let mut w = self.begin(tenant, now).await?;
        scope_exists(&mut w.tx, tenant, new.scope_type, new.scope_id).await?;
        let id = new_id();
        let (columns, values) = match kind {
            DateRuleKind::Override => ("", ""),
            DateRuleKind::Blackout => (", kind", ", $12"),
        };
        let row: DateRuleRow = sqlx::query_as(sql!(
            "INSERT INTO {} (tenant_id, id, scope_type, scope_id, date_from, date_to, start_time,
                 end_time, recurrence, reason, created_at, updated_at{columns})
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $11{values})
             RETURNING {}",
            table(kind),
            date_rule_columns(kind)
        ))
        .bind(tenant.as_str())
        .bind(id)
        .bind(new.scope_type.as_str())
        .bind(new.scope_id)
        .bind(new.date_from)
        .bind(new.date_to)
        .bind(&new.start_time)
        .bind(&new.end_time)
        .bind(new.recurrence.as_str())
        .bind(&new.reason)
        .bind(now)
        .bind(new.kind.map(BlackoutKind::as_str))
        .fetch_one(&mut *w.tx)
        .await?;
        let entity = match kind {
            DateRuleKind::Override => "schedule_override",
            DateRuleKind::Blackout => "schedule_blackout",
        };
        w.audit(
            actor,
            Change {
                action: &format!("{entity}.created"),
                entity_type: entity,
                entity_id: id.to_string(),
                changes: json!(new),
            },
        );
        let regeneration = regenerate_scope(
            &mut w.tx,
            tenant,
            new.scope_type,
            new.scope_id,
            rule_span(&new),
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

    /// Replaces an override's or blackout's fields; regenerates its old and new dates.
    pub async fn update_date_rule(
        &self,
        tenant: &TenantId,
        kind: DateRuleKind,
        id: Uuid,
        new: NewDateRule,
        actor: &Actor,
        now: Timestamp,
    ) -> Result<Changed<DateRuleRecord>, ScheduleError> {
        let mut w = self.begin(tenant, now).await?;
        let before: DateRuleRecord = sqlx::query_as::<_, DateRuleRow>(sql!(
            "SELECT {} FROM {} WHERE tenant_id = $1 AND id = $2",
            date_rule_columns(kind),
            table(kind)
        ))
        .bind(tenant.as_str())
        .bind(id)
        .fetch_optional(&mut *w.tx)
        .await?
        .ok_or(ScheduleError::RuleNotFound(kind))?
        .try_into()?;
        scope_exists(&mut w.tx, tenant, new.scope_type, new.scope_id).await?;
        let kind_column = match kind {
            DateRuleKind::Override => "",
            DateRuleKind::Blackout => ", kind = $12",
        };
        let row: DateRuleRow = sqlx::query_as(sql!(
            "UPDATE {} SET scope_type = $3, scope_id = $4, date_from = $5, date_to = $6,
                 start_time = $7, end_time = $8, recurrence = $9, reason = $10, updated_at = $11{kind_column}
             WHERE tenant_id = $1 AND id = $2
             RETURNING {}",
            table(kind),
            date_rule_columns(kind)
        ))
        .bind(tenant.as_str())
        .bind(id)
        .bind(new.scope_type.as_str())
        .bind(new.scope_id)
        .bind(new.date_from)
        .bind(new.date_to)
        .bind(&new.start_time)
        .bind(&new.end_time)
        .bind(new.recurrence.as_str())
        .bind(&new.reason)
        .bind(now)
        .bind(new.kind.map(BlackoutKind::as_str))
        .fetch_one(&mut *w.tx)
        .await?;
        let after = DateRuleRecord::try_from(row)?;
        let entity = match kind {
            DateRuleKind::Override => "schedule_override",
            DateRuleKind::Blackout => "schedule_blackout",
        };
        w.audit(
            actor,
            Change {
                action: &format!("{entity}.updated"),
                entity_type: entity,
                entity_id: id.to_string(),
                changes: diff(&before.fields, &after.fields),
            },
        );
        lock_scopes(
            &mut w.tx,
            tenant,
            [
                (before.fields.scope_type, before.fields.scope_id),
                (after.fields.scope_type, after.fields.scope_id),
            ],
        )
        .await?;
        let mut regeneration = regenerate_scope(
            &mut w.tx,
            tenant,
            before.fields.scope_type,
            before.fields.scope_id,
            rule_span(&before.fields),
            now,
            false,
        )
        .await?;
        let second = regenerate_scope(
            &mut w.tx,
            tenant,
            after.fields.scope_type,
            after.fields.scope_id,
            rule_span(&after.fields),
            now,
            false,
        )
        .await?;
        regeneration.absorb(second);
        w.commit(None).await?;
        Ok(Changed {
            record: after,
            regeneration,
        })
    }

    pub async fn get_date_rule(
        &self,
        tenant: &TenantId,
        kind: DateRuleKind,
        id: Uuid,
    ) -> StoreResult<Option<DateRuleRecord>> {
        let row: Option<DateRuleRow> = sqlx::query_as(sql!(
            "SELECT {} FROM {} WHERE tenant_id = $1 AND id = $2",
            date_rule_columns(kind),
            table(kind)
        ))
        .bind(tenant.as_str())
        .bind(id)
        .fetch_optional(&self.read)
        .await?;
        row.map(DateRuleRecord::try_from).transpose()
    }

    pub async fn list_date_rules(
        &self,
        tenant: &TenantId,
        kind: DateRuleKind,
        scope: Option<(ScopeType, Uuid)>,
    ) -> StoreResult<Vec<DateRuleRecord>> {
        let base = format!(
            "SELECT {} FROM {} WHERE tenant_id = $1",
            date_rule_columns(kind),
            table(kind)
        );
        let rows: Vec<DateRuleRow> = match scope {
            Some((scope_type, scope_id)) => {
                sqlx::query_as(sql!(
                    "{base} AND scope_type = $2 AND scope_id = $3 ORDER BY date_from, id"
                ))
                .bind(tenant.as_str())
                .bind(scope_type.as_str())
                .bind(scope_id)
                .fetch_all(&self.read)
                .await?
            }
            None => {
                sqlx::query_as(sql!("{base} ORDER BY date_from, id"))
                    .bind(tenant.as_str())
                    .fetch_all(&self.read)
                    .await?
            }
        };
        rows.into_iter().map(DateRuleRecord::try_from).collect()
    }

    pub async fn delete_date_rule(
        &self,
        tenant: &TenantId,
        kind: DateRuleKind,
        id: Uuid,
        actor: &Actor,
        now: Timestamp,
    ) -> Result<Changed<DateRuleRecord>, ScheduleError> {
        let mut w = self.begin(tenant, now).await?;
        let before: DateRuleRecord = sqlx::query_as::<_, DateRuleRow>(sql!(
            "DELETE FROM {} WHERE tenant_id = $1 AND id = $2 RETURNING {}",
            table(kind),
            date_rule_columns(kind)
        ))
        .bind(tenant.as_str())
        .bind(id)
        .fetch_optional(&mut *w.tx)
        .await?
        .ok_or(ScheduleError::RuleNotFound(kind))?
        .try_into()?;
        let entity = match kind {
            DateRuleKind::Override => "schedule_override",
            DateRuleKind::Blackout => "schedule_blackout",
        };
        w.audit(
            actor,
            Change {
                action: &format!("{entity}.deleted"),
                entity_type: entity,
                entity_id: id.to_string(),
                changes: json!(before.fields),
            },
        );
        let regeneration = regenerate_scope(
            &mut w.tx,
            tenant,
            before.fields.scope_type,
            before.fields.scope_id,
            rule_span(&before.fields),
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
