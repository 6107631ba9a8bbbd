//! The invariants of promotion uses and voucher ledgers, checked by tests and benchmarks.

use super::super::Repo;
use crate::StoreResult;
use kairos_domain::TenantId;
use kairos_store_macros::operations;
use uuid::Uuid;

/// Reads for the invariant checks of the tests and the bench.
#[operations]
impl Repo {
    /// Promotions whose usage count differs from their live use records:
    /// (promotion id, usage_count, live uses, a group's records counting once). Empty when
    /// the invariant holds.
    pub async fn promotion_usage_mismatches(
        &self,
        tenant: &TenantId,
    ) -> StoreResult<Vec<(Uuid, i64, i64)>> {
        Ok(sqlx::query_as(
            "SELECT p.id, CAST(p.usage_count AS BIGINT),
                    CAST(COUNT(DISTINCT COALESCE(b.group_id, b.id)) AS BIGINT)
             FROM promotions p
             LEFT JOIN promotion_usages u ON u.tenant_id = p.tenant_id
                  AND u.promotion_id = p.id AND u.status <> 'released'
             LEFT JOIN bookings b ON b.tenant_id = u.tenant_id AND b.id = u.booking_id
             WHERE p.tenant_id = $1
             GROUP BY p.id, p.usage_count
             HAVING p.usage_count <> COUNT(DISTINCT COALESCE(b.group_id, b.id))",
        )
        .bind(tenant.as_str())
        .fetch_all(&self.read)
        .await?)
    }

    /// Vouchers whose balance differs from their ledger: (voucher id, balance, ledger sum).
    /// Empty when every balance equals its original value plus its later entries.
    pub async fn voucher_ledger_mismatches(
        &self,
        tenant: &TenantId,
    ) -> StoreResult<Vec<(Uuid, i64, i64)>> {
        Ok(sqlx::query_as(
            "SELECT v.id, v.current_balance, CAST(COALESCE(SUM(t.amount), 0) AS BIGINT)
             FROM vouchers v
             LEFT JOIN voucher_transactions t ON t.tenant_id = v.tenant_id
                  AND t.voucher_id = v.id
             WHERE v.tenant_id = $1
             GROUP BY v.id, v.current_balance
             HAVING v.current_balance <> COALESCE(SUM(t.amount), 0)",
        )
        .bind(tenant.as_str())
        .fetch_all(&self.read)
        .await?)
    }
}
