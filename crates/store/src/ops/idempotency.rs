//! Idempotency keys (ARCHITECTURE section 5): the first response per (tenant, key) is kept
//! for 24 hours with a hash of its request.
//!
//! A key is claimed (`in_flight`) before the operation runs. Operations that change state
//! record their response in their own transaction ([`finish`]), so a key is `completed`
//! exactly when the effect is committed. An `in_flight` claim older than
//! [`ABANDONED_AFTER_SECS`] therefore belongs to an attempt that died before committing
//! (requests time out after 30 s) and may be taken over by a retry.

use super::{Db, Repo, dialect};
use crate::{IdempotencyClaim, StoreResult, Timestamp};
use kairos_domain::TenantId;
use kairos_store_macros::operations;
use sqlx::Transaction;

/// How long a key and its response are kept.
pub const RETENTION_HOURS: i64 = 24;
/// After this long an `in_flight` claim is taken to be abandoned.
pub const ABANDONED_AFTER_SECS: i64 = 60;

#[derive(sqlx::FromRow)]
struct KeyRow {
    request_hash: String,
    state: String,
    response_status: Option<i32>,
    response_body: Option<String>,
    created_at: Timestamp,
    expires_at: Timestamp,
}

/// Records the response of `key` inside the transaction that made it.
pub(super) async fn finish(
    tx: &mut Transaction<'static, Db>,
    tenant: &TenantId,
    key: &str,
    status: u16,
    body: &str,
) -> Result<(), sqlx::Error> {
    sqlx::query(
        "UPDATE idempotency_keys SET state = 'completed', response_status = $3, response_body = $4
         WHERE tenant_id = $1 AND idem_key = $2",
    )
    .bind(tenant.as_str())
    .bind(key)
    .bind(i32::from(status))
    .bind(body)
    .execute(&mut **tx)
    .await?;
    Ok(())
}

#[operations]
impl Repo {
    /// Claims `key` for a request whose canonical hash is `request_hash`.
    pub async fn claim_idempotency_key(
        &self,
        tenant: &TenantId,
        key: &str,
        request_hash: &str,
        now: Timestamp,
    ) -> StoreResult<IdempotencyClaim> {
        let mut tx = self.begin_write().await?;
        let expires_at = now + chrono::Duration::hours(RETENTION_HOURS);
        let inserted = sqlx::query(
            "INSERT INTO idempotency_keys (tenant_id, idem_key, request_hash, state, created_at, expires_at)
             VALUES ($1, $2, $3, 'in_flight', $4, $5)
             ON CONFLICT (tenant_id, idem_key) DO NOTHING",
        )
        .bind(tenant.as_str())
        .bind(key)
        .bind(request_hash)
        .bind(now)
        .bind(expires_at)
        .execute(&mut *tx)
        .await?;
        if inserted.rows_affected() == 1 {
            tx.commit().await?;
            return Ok(IdempotencyClaim::Fresh);
        }
        let row: KeyRow = sqlx::query_as(&format!(
            "SELECT request_hash, state, response_status, response_body, created_at, expires_at
             FROM idempotency_keys WHERE tenant_id = $1 AND idem_key = $2{}",
            dialect::FOR_UPDATE
        ))
        .bind(tenant.as_str())
        .bind(key)
        .fetch_one(&mut *tx)
        .await?;
        let abandoned = row.state == "in_flight"
            && row.created_at + chrono::Duration::seconds(ABANDONED_AFTER_SECS) <= now;
        if row.expires_at <= now || (abandoned && row.request_hash == request_hash) {
            // Expired, or a retry of an attempt that never committed: start afresh.
            sqlx::query(
                "UPDATE idempotency_keys
                 SET request_hash = $3, state = 'in_flight', response_status = NULL,
                     response_body = NULL, created_at = $4, expires_at = $5
                 WHERE tenant_id = $1 AND idem_key = $2",
            )
            .bind(tenant.as_str())
            .bind(key)
            .bind(request_hash)
            .bind(now)
            .bind(expires_at)
            .execute(&mut *tx)
            .await?;
            tx.commit().await?;
            return Ok(IdempotencyClaim::Fresh);
        }
        tx.commit().await?;
        if row.request_hash != request_hash {
            return Ok(IdempotencyClaim::Mismatch);
        }
        match (row.state.as_str(), row.response_status, row.response_body) {
            ("completed", Some(status), Some(body)) => Ok(IdempotencyClaim::Replay {
                status: u16::try_from(status).unwrap_or(500),
                body,
            }),
            _ => Ok(IdempotencyClaim::InFlight),
        }
    }

    /// Stores the response of a claimed key whose operation changed nothing (a refusal).
    pub async fn complete_idempotency_key(
        &self,
        tenant: &TenantId,
        key: &str,
        status: u16,
        body: &str,
    ) -> StoreResult<()> {
        let mut tx = self.begin_write().await?;
        finish(&mut tx, tenant, key, status, body).await?;
        tx.commit().await?;
        Ok(())
    }

    /// Forgets a claim whose operation failed unexpectedly, so a retry may run it.
    pub async fn release_idempotency_key(&self, tenant: &TenantId, key: &str) -> StoreResult<()> {
        let mut tx = self.begin_write().await?;
        sqlx::query(
            "DELETE FROM idempotency_keys WHERE tenant_id = $1 AND idem_key = $2 AND state = 'in_flight'",
        )
        .bind(tenant.as_str())
        .bind(key)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(())
    }
}
