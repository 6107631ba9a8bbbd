//! The hold benchmark's ceiling: the least SQL a hold can be.
//!
//! Both forms take the seat with one conditional `UPDATE` of the slot row
//! (`booked + n <= capacity`) and insert the booking row, and do nothing else: no catalog
//! read, no pricing, no audit row, no reclaiming, no JSON. They run on the same pool as
//! every operation, so `kairos-bench holds` measures the API against them on the same
//! connections in the same run. The rows are real holds as far as capacity goes (the
//! capacity invariant holds), but their price is a placeholder: use them only on a
//! benchmark's database.

use super::super::{Repo, dialect};
use crate::{StoreResult, Timestamp};
use kairos_domain::TenantId;
use kairos_domain::ids::new_reference;
use kairos_domain::new_id;
use kairos_store_macros::operations;
use uuid::Uuid;

const BOOKING_COLUMNS: &str = "tenant_id, id, reference, site_id, product_id, slot_id, starts_at, \
     ends_at, party_size, status, hold_expires_at, price, total, currency, pricing_hash, \
     token_hash, source, created_at, updated_at";

#[operations]
impl Repo {
    /// The minimal raw hold as a transaction of two statements, the form both backends
    /// share: `BEGIN; UPDATE slots … RETURNING; INSERT INTO bookings …; COMMIT`. `false`
    /// when the slot has no room.
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
            "UPDATE slots SET booked = booked + $3, projection_version = projection_version + 1
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
        sqlx::query(sql!(
            "INSERT INTO bookings ({BOOKING_COLUMNS})
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, 'hold', $10, '{{}}', 0, 'EUR', '', '',
                 'public', $11, $11)"
        ))
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

    /// The minimal raw hold as one statement in its own transaction (one round trip:
    /// `WITH s AS (UPDATE slots … RETURNING …) INSERT INTO bookings SELECT … FROM s`),
    /// where the backend can change rows inside `WITH` (PostgreSQL); `None` elsewhere.
    /// `Some(false)` when the slot has no room.
    pub async fn raw_hold_one_statement(
        &self,
        tenant: &TenantId,
        site_id: Uuid,
        slot_id: Uuid,
        party_size: i32,
        now: Timestamp,
    ) -> StoreResult<Option<bool>> {
        if !dialect::MODIFYING_CTE {
            return Ok(None);
        }
        let done = sqlx::query(sql!(
            "WITH s AS (
                 UPDATE slots SET booked = booked + $3, projection_version = projection_version + 1
                 WHERE tenant_id = $1 AND id = $2 AND booked + $3 <= capacity
                 RETURNING product_id, starts_at, ends_at)
             INSERT INTO bookings ({BOOKING_COLUMNS})
             SELECT $1, $4, $5, $6, s.product_id, $2, s.starts_at, s.ends_at, $3, 'hold', $7,
                 CAST('{{}}' AS JSONB), 0, 'EUR', '', '', 'public', $8, $8
             FROM s"
        ))
        .bind(tenant.as_str())
        .bind(slot_id)
        .bind(party_size)
        .bind(new_id())
        .bind(new_reference())
        .bind(site_id)
        .bind(now + chrono::Duration::minutes(15))
        .bind(now)
        .execute(&self.write)
        .await?;
        Ok(Some(done.rows_affected() == 1))
    }
}

/// Rows per INSERT of [`Repo::raw_voucher_insert`] (as the import uses).
const VOUCHER_BATCH: usize = 500;

#[operations]
impl Repo {
    /// The import benchmark's ceiling: the least SQL importing vouchers can be. One
    /// transaction of multi-row INSERTs of the voucher rows and their `issue` entries, with
    /// nothing read, checked or audited. `codes` are (code, original value in minor units).
    pub async fn raw_voucher_insert(
        &self,
        tenant: &TenantId,
        codes: &[(String, i64)],
        now: Timestamp,
    ) -> StoreResult<()> {
        let mut tx = self.begin_write().await?;
        let ids: Vec<Uuid> = codes.iter().map(|_| new_id()).collect();
        for (chunk, chunk_ids) in codes.chunks(VOUCHER_BATCH).zip(ids.chunks(VOUCHER_BATCH)) {
            let mut q: sqlx::QueryBuilder<super::super::Db> = sqlx::QueryBuilder::new(
                "INSERT INTO vouchers (tenant_id, id, code, code_key, voucher_type,
                     original_value, current_balance, is_active, issued_at, updated_at) ",
            );
            q.push_values(chunk.iter().zip(chunk_ids), |mut b, ((code, value), id)| {
                b.push_bind(tenant.as_str().to_owned())
                    .push_bind(*id)
                    .push_bind(code.clone())
                    .push_bind(code.to_ascii_lowercase())
                    .push_bind("multi_use")
                    .push_bind(*value)
                    .push_bind(*value)
                    .push_bind(true)
                    .push_bind(now)
                    .push_bind(now);
            });
            q.build().execute(&mut *tx).await?;
            let mut q: sqlx::QueryBuilder<super::super::Db> = sqlx::QueryBuilder::new(
                "INSERT INTO voucher_transactions (tenant_id, id, voucher_id, kind, amount,
                     balance_after, created_at) ",
            );
            q.push_values(chunk.iter().zip(chunk_ids), |mut b, ((_, value), id)| {
                b.push_bind(tenant.as_str().to_owned())
                    .push_bind(new_id())
                    .push_bind(*id)
                    .push_bind("issue")
                    .push_bind(*value)
                    .push_bind(*value)
                    .push_bind(now);
            });
            q.build().execute(&mut *tx).await?;
        }
        tx.commit().await?;
        Ok(())
    }
}
