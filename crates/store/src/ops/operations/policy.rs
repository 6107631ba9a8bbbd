//! A tenant's no-show fee policy: disabled when none was set.

use super::super::audit::Change;
use super::super::{Db, Repo};
use crate::{Actor, StoreError, StoreResult, StoredNoShowPolicy, Timestamp, stored};
use kairos_domain::TenantId;
use kairos_domain::fees::{NoShowFee, NoShowFeeType, NoShowPolicy};
use kairos_store_macros::operations;
use serde_json::json;

#[derive(kairos_store_macros::FromRow)]
struct PolicyRow {
    enabled: bool,
    fee_type: String,
    flat_fee: Option<i64>,
    /// INTEGER in both databases.
    percentage: Option<i32>,
    auto_charge: bool,
    updated_at: Timestamp,
}

impl TryFrom<PolicyRow> for StoredNoShowPolicy {
    type Error = StoreError;

    fn try_from(r: PolicyRow) -> Result<Self, StoreError> {
        let missing = |what: &str| StoreError::Corrupt(format!("no-show policy without {what}"));
        let rule = match stored("no-show fee type", &r.fee_type, NoShowFeeType::parse)? {
            NoShowFeeType::Flat => NoShowFee::Flat(r.flat_fee.ok_or_else(|| missing("flat_fee"))?),
            NoShowFeeType::Percentage => NoShowFee::Percentage(i64::from(
                r.percentage.ok_or_else(|| missing("percentage"))?,
            )),
        };
        Ok(StoredNoShowPolicy {
            policy: NoShowPolicy {
                enabled: r.enabled,
                rule,
                auto_charge: r.auto_charge,
            },
            updated_at: Some(r.updated_at),
        })
    }
}

/// The tenant's no-show fee policy read through `db` (a pool, or the write transaction
/// whose decision it is): disabled when none was set.
pub(crate) async fn read_no_show_policy<'e>(
    db: impl sqlx::Executor<'e, Database = Db>,
    tenant: &TenantId,
) -> StoreResult<StoredNoShowPolicy> {
    let row: Option<PolicyRow> = sqlx::query_as(
        "SELECT enabled, fee_type, flat_fee, percentage, auto_charge, updated_at
         FROM no_show_policies WHERE tenant_id = $1",
    )
    .bind(tenant.as_str())
    .fetch_optional(db)
    .await?;
    row.map_or(
        Ok(StoredNoShowPolicy::default()),
        StoredNoShowPolicy::try_from,
    )
}

#[operations]
impl Repo {
    /// The tenant's no-show fee policy: disabled when none was set.
    pub async fn no_show_policy(&self, tenant: &TenantId) -> StoreResult<StoredNoShowPolicy> {
        read_no_show_policy(&self.read, tenant).await
    }

    /// Sets the tenant's no-show fee policy (bounds checked by the caller and again by
    /// the table).
    pub async fn put_no_show_policy(
        &self,
        tenant: &TenantId,
        policy: NoShowPolicy,
        actor: &Actor,
        now: Timestamp,
    ) -> StoreResult<StoredNoShowPolicy> {
        let mut w = self.begin(tenant, now).await?;
        let (fee_type, flat_fee, percentage) = policy.rule.parts();
        let percentage = percentage.map(|p| i32::try_from(p.clamp(0, 100)).unwrap_or(100));
        sqlx::query(
            "INSERT INTO no_show_policies (tenant_id, enabled, fee_type, flat_fee, percentage,
                 auto_charge, updated_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7)
             ON CONFLICT (tenant_id) DO UPDATE SET enabled = excluded.enabled,
                 fee_type = excluded.fee_type, flat_fee = excluded.flat_fee,
                 percentage = excluded.percentage, auto_charge = excluded.auto_charge,
                 updated_at = excluded.updated_at",
        )
        .bind(tenant.as_str())
        .bind(policy.enabled)
        .bind(fee_type.as_str())
        .bind(flat_fee)
        .bind(percentage)
        .bind(policy.auto_charge)
        .bind(now)
        .execute(&mut *w.tx)
        .await?;
        w.audit(
            actor,
            Change {
                action: "no_show_policy.updated",
                entity_type: "no_show_policy",
                entity_id: tenant.as_str().to_owned(),
                changes: json!({"enabled": policy.enabled, "feeType": fee_type.as_str(),
                    "flatFee": flat_fee, "percentage": percentage,
                    "autoCharge": policy.auto_charge}),
            },
        );
        w.commit(None).await?;
        Ok(StoredNoShowPolicy {
            policy,
            updated_at: Some(now),
        })
    }
}
