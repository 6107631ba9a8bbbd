//! The audit log: one row per state change, written in the change's transaction by
//! `Write` (see `write.rs`); [`Change`] is what a use case records.

use super::Repo;
use crate::{AuditEntry, StoreError, StoreResult, Timestamp, stored};
use kairos_domain::TenantId;
use kairos_domain::auth::ActorKind;
use kairos_store_macros::operations;
use serde_json::Value;
use sqlx::types::Json;
use uuid::Uuid;

/// What changed, recorded with `Write::audit`.
pub(crate) struct Change<'a> {
    pub action: &'a str,
    pub entity_type: &'a str,
    pub entity_id: String,
    pub changes: Value,
}

#[derive(kairos_store_macros::FromRow)]
struct AuditRow {
    id: Uuid,
    occurred_at: Timestamp,
    actor_type: String,
    actor_id: Option<String>,
    actor_name: Option<String>,
    action: String,
    entity_type: String,
    entity_id: String,
    changes: Json<Value>,
}

impl TryFrom<AuditRow> for AuditEntry {
    type Error = StoreError;

    fn try_from(r: AuditRow) -> Result<Self, StoreError> {
        Ok(AuditEntry {
            id: r.id,
            occurred_at: r.occurred_at,
            actor_type: stored("actor_type", &r.actor_type, ActorKind::parse)?,
            actor_id: r.actor_id,
            actor_name: r.actor_name,
            action: r.action,
            entity_type: r.entity_type,
            entity_id: r.entity_id,
            changes: r.changes.0,
        })
    }
}

#[operations]
impl Repo {
    /// The history of one entity, oldest first.
    pub async fn list_audit(
        &self,
        tenant: &TenantId,
        entity_type: &str,
        entity_id: &str,
    ) -> StoreResult<Vec<AuditEntry>> {
        let rows: Vec<AuditRow> = sqlx::query_as(
            "SELECT id, occurred_at, actor_type, actor_id, actor_name, action, entity_type,
                    entity_id, changes
             FROM audit_log
             WHERE tenant_id = $1 AND entity_type = $2 AND entity_id = $3
             ORDER BY occurred_at, id",
        )
        .bind(tenant.as_str())
        .bind(entity_type)
        .bind(entity_id)
        .fetch_all(&self.read)
        .await?;
        rows.into_iter().map(AuditEntry::try_from).collect()
    }
}

/// `{field: {from, to}}` for every top-level field that differs between two records.
pub(super) fn diff<T: serde::Serialize>(before: &T, after: &T) -> Value {
    let (Ok(Value::Object(a)), Ok(Value::Object(b))) =
        (serde_json::to_value(before), serde_json::to_value(after))
    else {
        return Value::Object(serde_json::Map::new());
    };
    let mut changes = serde_json::Map::new();
    for (key, new) in &b {
        if matches!(key.as_str(), "created_at" | "updated_at" | "id") {
            continue;
        }
        let old = a.get(key).cloned().unwrap_or(Value::Null);
        if &old != new {
            changes.insert(key.clone(), serde_json::json!({"from": old, "to": new}));
        }
    }
    Value::Object(changes)
}
