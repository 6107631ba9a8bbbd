//! A tenant's cancellation fee (spec Part B 4.6): time-based (the site policy's schedule,
//! also when nothing is stored), flat or percentage.

use super::super::audit::Change;
use super::super::{Db, Repo};
use crate::{Actor, RefundPolicy, StoreError, StoreResult, Timestamp, stored};
use kairos_domain::TenantId;
use kairos_domain::payments::refund_policy::{FeeRule, FeeType};
use kairos_store_macros::operations;
use serde_json::json;

#[derive(kairos_store_macros::FromRow)]
struct PolicyRow {
    fee_type: String,
    flat_fee: Option<i64>,
    /// INTEGER in both databases.
    percentage: Option<i32>,
    updated_at: Timestamp,
}

impl TryFrom<PolicyRow> for RefundPolicy {
    type Error = StoreError;

    fn try_from(r: PolicyRow) -> Result<Self, StoreError> {
        let missing = |what: &str| StoreError::Corrupt(format!("refund policy without {what}"));
        let rule = match stored("fee type", &r.fee_type, FeeType::parse)? {
            FeeType::TimeBased => FeeRule::TimeBased,
            FeeType::Flat => FeeRule::Flat(r.flat_fee.ok_or_else(|| missing("flat_fee"))?),
            FeeType::Percentage => FeeRule::Percentage(i64::from(
                r.percentage.ok_or_else(|| missing("percentage"))?,
            )),
        };
        Ok(RefundPolicy {
            rule,
            updated_at: Some(r.updated_at),
        })
    }
}

/// The tenant's cancellation fee read through `db` (a pool, or a write transaction whose
/// decision it is): time-based when none was set.
pub(crate) async fn read_refund_policy<'e>(
    db: impl sqlx::Executor<'e, Database = Db>,
    tenant: &TenantId,
) -> StoreResult<RefundPolicy> {
    let row: Option<PolicyRow> = sqlx::query_as(
        "SELECT fee_type, flat_fee, percentage, updated_at FROM refund_policies
         WHERE tenant_id = $1",
    )
    .bind(tenant.as_str())
    .fetch_optional(db)
    .await?;
    row.map_or(Ok(RefundPolicy::default()), RefundPolicy::try_from)
}

#[operations]
impl Repo {
    /// The tenant's cancellation fee: time-based when none was set.
    pub async fn refund_policy(&self, tenant: &TenantId) -> StoreResult<RefundPolicy> {
        read_refund_policy(&self.read, tenant).await
    }

    /// Sets the tenant's cancellation fee (bounds checked by the caller: a flat fee of
    /// 0 to [`kairos_domain::payments::refund_policy::MAX_FLAT_FEE`], a percentage of 0 to
    /// 100; the table checks them again).
    pub async fn put_refund_policy(
        &self,
        tenant: &TenantId,
        rule: FeeRule,
        actor: &Actor,
        now: Timestamp,
    ) -> StoreResult<RefundPolicy> {
        let mut w = self.begin(tenant, now).await?;
        let (fee_type, flat_fee, percentage) = rule.parts();
        // 0 to 100 (checked by the caller and the table): an INTEGER column.
        let percentage = percentage.map(|p| i32::try_from(p.clamp(0, 100)).unwrap_or(100));
        sqlx::query(
            "INSERT INTO refund_policies (tenant_id, fee_type, flat_fee, percentage, updated_at)
             VALUES ($1, $2, $3, $4, $5)
             ON CONFLICT (tenant_id) DO UPDATE SET fee_type = excluded.fee_type,
                 flat_fee = excluded.flat_fee, percentage = excluded.percentage,
                 updated_at = excluded.updated_at",
        )
        .bind(tenant.as_str())
        .bind(fee_type.as_str())
        .bind(flat_fee)
        .bind(percentage)
        .bind(now)
        .execute(&mut *w.tx)
        .await?;
        w.audit(
            actor,
            Change {
                action: "refund_policy.updated",
                entity_type: "refund_policy",
                entity_id: tenant.as_str().to_owned(),
                changes: json!({"feeType": fee_type.as_str(), "flatFee": flat_fee,
                    "percentage": percentage}),
            },
        );
        w.commit(None).await?;
        Ok(RefundPolicy {
            rule,
            updated_at: Some(now),
        })
    }
}
