//! Automation rules: create, list, read, change, delete, and the default rules every
//! tenant starts with (spec Part B 4.8).

use super::super::audit::Change;
use super::super::write::Write;
use super::super::{Repo, dialect};
use crate::stored;
use crate::{
    Actor, AutomationRule, AutomationRuleFilter, AutomationRulePatch, MessagingError,
    NewAutomationRule, StoreError, StoreResult, Timestamp,
};
use kairos_domain::messaging::automation::{DEFAULT_RULES, OffsetUnit, TriggerEvent};
use kairos_domain::{TenantId, new_id};
use kairos_store_macros::operations;
use serde_json::json;
use sqlx::QueryBuilder;
use sqlx::types::Json;
use uuid::Uuid;

#[derive(kairos_store_macros::FromRow)]
pub(super) struct RuleRow {
    id: Uuid,
    name: String,
    description: String,
    trigger_event: String,
    trigger_offset: i32,
    trigger_offset_unit: String,
    template_key: String,
    template_id: Option<Uuid>,
    product_ids: Json<Vec<Uuid>>,
    site_ids: Json<Vec<Uuid>>,
    is_active: bool,
    default_key: Option<String>,
    created_at: Timestamp,
    updated_at: Timestamp,
}

pub(super) const COLUMNS: &str = "id, name, description, trigger_event, trigger_offset, \
     trigger_offset_unit, template_key, template_id, product_ids, site_ids, is_active, \
     default_key, created_at, updated_at";

impl TryFrom<RuleRow> for AutomationRule {
    type Error = StoreError;

    fn try_from(r: RuleRow) -> Result<Self, StoreError> {
        Ok(AutomationRule {
            id: r.id,
            name: r.name,
            description: r.description,
            trigger_event: stored("trigger_event", &r.trigger_event, TriggerEvent::parse)?,
            trigger_offset: r.trigger_offset,
            trigger_offset_unit: stored(
                "trigger_offset_unit",
                &r.trigger_offset_unit,
                OffsetUnit::parse,
            )?,
            template_key: r.template_key,
            template_id: r.template_id,
            product_ids: r.product_ids.0,
            site_ids: r.site_ids.0,
            is_active: r.is_active,
            default_key: r.default_key,
            created_at: r.created_at,
            updated_at: r.updated_at,
        })
    }
}

/// Writes the default rules for a new tenant, in its creation's transaction.
pub(crate) async fn insert_default_rules(w: &mut Write) -> Result<(), StoreError> {
    for d in DEFAULT_RULES {
        sqlx::query(
            "INSERT INTO automation_rules (tenant_id, id, name, description, trigger_event,
                 trigger_offset, trigger_offset_unit, template_key, is_active, default_key,
                 active_since, created_at, updated_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, TRUE, $9, $10, $10, $10)",
        )
        .bind(w.tenant.as_str())
        .bind(new_id())
        .bind(d.name)
        .bind(d.description)
        .bind(d.trigger.as_str())
        .bind(d.offset)
        .bind(d.unit.as_str())
        .bind(d.template_key)
        .bind(d.default_key)
        .bind(w.now)
        .execute(&mut *w.tx)
        .await?;
    }
    Ok(())
}

/// Checks that every site and product a rule names is the tenant's.
async fn check_scope(
    w: &mut Write,
    sites: &[Uuid],
    products: &[Uuid],
) -> Result<(), MessagingError> {
    for site in sites {
        if !w.has_site(*site).await? {
            return Err(MessagingError::RuleSiteNotFound(*site));
        }
    }
    for product in products {
        let found: Option<i32> =
            sqlx::query_scalar("SELECT 1 FROM products WHERE tenant_id = $1 AND id = $2")
                .bind(w.tenant.as_str())
                .bind(product)
                .fetch_optional(&mut *w.tx)
                .await?;
        if found.is_none() {
            return Err(MessagingError::ProductNotFound(*product));
        }
    }
    Ok(())
}

#[operations]
impl Repo {
    pub async fn create_automation_rule(
        &self,
        tenant: &TenantId,
        new: NewAutomationRule,
        actor: &Actor,
        now: Timestamp,
    ) -> Result<AutomationRule, MessagingError> {
        let mut w = self.begin(tenant, now).await?;
        check_scope(&mut w, &new.site_ids, &new.product_ids).await?;
        let row: RuleRow = sqlx::query_as(sql!(
            "INSERT INTO automation_rules (tenant_id, id, name, description, trigger_event,
                 trigger_offset, trigger_offset_unit, template_key, template_id, product_ids,
                 site_ids, is_active, active_since, created_at, updated_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $13, $13)
             RETURNING {COLUMNS}"
        ))
        .bind(tenant.as_str())
        .bind(new_id())
        .bind(&new.name)
        .bind(&new.description)
        .bind(new.trigger_event.as_str())
        .bind(new.trigger_offset)
        .bind(new.trigger_offset_unit.as_str())
        .bind(&new.template_key)
        .bind(new.template_id)
        .bind(Json(&new.product_ids))
        .bind(Json(&new.site_ids))
        .bind(new.is_active)
        .bind(now)
        .fetch_one(&mut *w.tx)
        .await?;
        let rule = AutomationRule::try_from(row)?;
        w.audit(
            actor,
            Change {
                action: "automation_rule.created",
                entity_type: "automation_rule",
                entity_id: rule.id.to_string(),
                changes: json!({"name": rule.name, "triggerEvent": rule.trigger_event.as_str(),
                    "templateKey": rule.template_key}),
            },
        );
        w.commit(None).await?;
        Ok(rule)
    }

    /// The tenant's rules matching `filter`, oldest first.
    pub async fn list_automation_rules(
        &self,
        tenant: &TenantId,
        filter: &AutomationRuleFilter,
    ) -> StoreResult<Vec<AutomationRule>> {
        let mut q = QueryBuilder::new(format!(
            "SELECT {COLUMNS} FROM automation_rules WHERE tenant_id = "
        ));
        q.push_bind(tenant.as_str());
        if let Some(t) = filter.trigger_event {
            q.push(" AND trigger_event = ").push_bind(t.as_str());
        }
        if let Some(a) = filter.is_active {
            q.push(" AND is_active = ").push_bind(a);
        }
        if let Some(k) = &filter.template_key {
            q.push(" AND template_key = ").push_bind(k.clone());
        }
        q.push(" ORDER BY created_at, id");
        let rows: Vec<RuleRow> = q.build_query_as().fetch_all(&self.read).await?;
        rows.into_iter().map(AutomationRule::try_from).collect()
    }

    pub async fn get_automation_rule(
        &self,
        tenant: &TenantId,
        id: Uuid,
    ) -> StoreResult<Option<AutomationRule>> {
        let row: Option<RuleRow> = sqlx::query_as(sql!(
            "SELECT {COLUMNS} FROM automation_rules WHERE tenant_id = $1 AND id = $2"
        ))
        .bind(tenant.as_str())
        .bind(id)
        .fetch_optional(&self.read)
        .await?;
        row.map(AutomationRule::try_from).transpose()
    }

    /// Changes the given fields. A rule switched on again counts from now: what came due
    /// while it was off is not caught up.
    pub async fn update_automation_rule(
        &self,
        tenant: &TenantId,
        id: Uuid,
        patch: AutomationRulePatch,
        actor: &Actor,
        now: Timestamp,
    ) -> Result<AutomationRule, MessagingError> {
        let mut w = self.begin(tenant, now).await?;
        let row: Option<RuleRow> = sqlx::query_as(sql!(
            "SELECT {COLUMNS} FROM automation_rules WHERE tenant_id = $1 AND id = $2{}",
            dialect::FOR_UPDATE
        ))
        .bind(tenant.as_str())
        .bind(id)
        .fetch_optional(&mut *w.tx)
        .await?;
        let before = AutomationRule::try_from(row.ok_or(MessagingError::RuleNotFound)?)?;
        let after = AutomationRule {
            name: patch.name.unwrap_or(before.name.clone()),
            description: patch.description.unwrap_or(before.description.clone()),
            trigger_event: patch.trigger_event.unwrap_or(before.trigger_event),
            trigger_offset: patch.trigger_offset.unwrap_or(before.trigger_offset),
            trigger_offset_unit: patch
                .trigger_offset_unit
                .unwrap_or(before.trigger_offset_unit),
            template_key: patch.template_key.unwrap_or(before.template_key.clone()),
            template_id: patch.template_id.unwrap_or(before.template_id),
            product_ids: patch.product_ids.unwrap_or(before.product_ids.clone()),
            site_ids: patch.site_ids.unwrap_or(before.site_ids.clone()),
            is_active: patch.is_active.unwrap_or(before.is_active),
            updated_at: now,
            ..before.clone()
        };
        check_scope(&mut w, &after.site_ids, &after.product_ids).await?;
        let reactivated = after.is_active && !before.is_active;
        sqlx::query(
            "UPDATE automation_rules SET name = $3, description = $4, trigger_event = $5,
                 trigger_offset = $6, trigger_offset_unit = $7, template_key = $8,
                 template_id = $9, product_ids = $10, site_ids = $11, is_active = $12,
                 active_since = CASE WHEN $13 THEN $14 ELSE active_since END,
                 updated_at = $14
             WHERE tenant_id = $1 AND id = $2",
        )
        .bind(tenant.as_str())
        .bind(id)
        .bind(&after.name)
        .bind(&after.description)
        .bind(after.trigger_event.as_str())
        .bind(after.trigger_offset)
        .bind(after.trigger_offset_unit.as_str())
        .bind(&after.template_key)
        .bind(after.template_id)
        .bind(Json(&after.product_ids))
        .bind(Json(&after.site_ids))
        .bind(after.is_active)
        .bind(reactivated)
        .bind(now)
        .execute(&mut *w.tx)
        .await?;
        w.audit(
            actor,
            Change {
                action: "automation_rule.updated",
                entity_type: "automation_rule",
                entity_id: id.to_string(),
                changes: json!({
                    "before": {"isActive": before.is_active, "triggerEvent": before.trigger_event.as_str(),
                        "triggerOffset": before.trigger_offset, "templateKey": before.template_key},
                    "after": {"isActive": after.is_active, "triggerEvent": after.trigger_event.as_str(),
                        "triggerOffset": after.trigger_offset, "templateKey": after.template_key},
                }),
            },
        );
        w.commit(None).await?;
        Ok(after)
    }

    /// Deletes a rule and its firing records.
    pub async fn delete_automation_rule(
        &self,
        tenant: &TenantId,
        id: Uuid,
        actor: &Actor,
        now: Timestamp,
    ) -> Result<(), MessagingError> {
        let mut w = self.begin(tenant, now).await?;
        sqlx::query("DELETE FROM automation_firings WHERE tenant_id = $1 AND rule_id = $2")
            .bind(tenant.as_str())
            .bind(id)
            .execute(&mut *w.tx)
            .await?;
        let name: String = sqlx::query_scalar(
            "DELETE FROM automation_rules WHERE tenant_id = $1 AND id = $2 RETURNING name",
        )
        .bind(tenant.as_str())
        .bind(id)
        .fetch_optional(&mut *w.tx)
        .await?
        .ok_or(MessagingError::RuleNotFound)?;
        w.audit(
            actor,
            Change {
                action: "automation_rule.deleted",
                entity_type: "automation_rule",
                entity_id: id.to_string(),
                changes: json!({"name": name}),
            },
        );
        w.commit(None).await?;
        Ok(())
    }
}
