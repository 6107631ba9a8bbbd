//! The hold benchmark's ceiling: the least SQL a hold can be.

use super::Repo;
use crate::{StoreResult, Timestamp};
use kairos_domain::TenantId;
use kairos_domain::ids::new_reference;
use kairos_domain::new_id;
use kairos_store_macros::operations;
use uuid::Uuid;

#[operations]
impl Repo {
    /// The minimal raw hold, for `kairos-bench holds` to measure the API against: in one
    /// write transaction on the same pool as every operation, one conditional `UPDATE` of
    /// the slot row (`booked + n <= capacity`) and one `INSERT` of the booking row, and
    /// nothing else (no catalog read, no pricing, no audit row, no reclaiming). `false`
    /// when the slot has no room.
    ///
    /// The row is a real hold as far as capacity goes (the capacity invariant holds), but
    /// its price is a placeholder: use it only on a benchmark's database.
    pub async fn raw_hold(
        &self,
        tenant: &TenantId,
        site_id: Uuid,
        slot_id: Uuid,
        party_size: i32,
        now: Timestamp,
    ) -> StoreResult<bool> {
        let mut tx = self.begin_write().await?;
        let slot: Option<(Uuid, Timestamp, Timestamp)> = sqlx::query_as(
            "UPDATE slots SET booked = booked + $3
             WHERE tenant_id = $1 AND id = $2 AND booked + $3 <= capacity
             RETURNING product_id, starts_at, ends_at",
        )
        .bind(tenant.as_str())
        .bind(slot_id)
        .bind(party_size)
        .fetch_optional(&mut *tx)
        .await?;
        let Some((product_id, starts_at, ends_at)) = slot else {
            tx.rollback().await?;
            return Ok(false);
        };
        sqlx::query(
            "INSERT INTO bookings (tenant_id, id, reference, site_id, product_id, slot_id,
                 starts_at, ends_at, party_size, status, hold_expires_at, price, total,
                 currency, pricing_hash, token_hash, source, created_at, updated_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, 'hold', $10, '{}', 0, 'EUR', '', '',
                 'public', $11, $11)",
        )
        .bind(tenant.as_str())
        .bind(new_id())
        .bind(new_reference())
        .bind(site_id)
        .bind(product_id)
        .bind(slot_id)
        .bind(starts_at)
        .bind(ends_at)
        .bind(party_size)
        .bind(now + chrono::Duration::minutes(15))
        .bind(now)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(true)
    }
}
