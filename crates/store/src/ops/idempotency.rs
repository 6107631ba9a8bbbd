//! Idempotency keys (ARCHITECTURE section 5): the first response per (tenant, key) is kept
//! for 24 hours with a hash of its request.
//!
//! Operations whose effect is a database write claim the key inside their own transaction
//! ([`claim_in`], through `Write::claim`) and store the response in it ([`finish`]), so a
//! key is `completed` exactly when the effect is committed. A concurrent request with the
//! same key waits for that transaction on the key's row and then finds the answer.
//!
//! Operations that must call outside parties between claiming and answering claim the key
//! in a transaction of its own ([`Repo::claim_idempotency_key`]), leaving it `in_flight`
//! until they complete or release it. An `in_flight` claim older than
//! [`ABANDONED_AFTER_SECS`] belongs to an attempt that died before finishing (requests time
//! out after 30 s) and may be taken over by a retry.

use super::{Db, Repo, dialect};
use crate::{IdempotencyClaim, IdempotencyError, Replay, StoreResult, Timestamp};
use kairos_domain::TenantId;
use kairos_store_macros::operations;
use sqlx::Transaction;

/// How long a key and its response are kept.
pub const RETENTION_HOURS: i64 = 24;
/// After this long an `in_flight` claim is taken to be abandoned.
pub const ABANDONED_AFTER_SECS: i64 = 60;

#[derive(kairos_store_macros::FromRow)]
struct KeyRow {
    request_hash: String,
    state: String,
    response_status: Option<i32>,
    response_body: Option<String>,
    created_at: Timestamp,
    expires_at: Timestamp,
}

/// What a key found in use says about a request with `request_hash`.
enum Existing {
    /// Expired, or abandoned by an attempt of the same request: take it over.
    TakeOver,
    Answer(Result<Replay, IdempotencyError>),
}

fn judge(row: KeyRow, request_hash: &str, now: Timestamp) -> Existing {
    let abandoned = row.state == "in_flight"
        && row.created_at + chrono::Duration::seconds(ABANDONED_AFTER_SECS) <= now;
    if row.expires_at <= now || (abandoned && row.request_hash == request_hash) {
        return Existing::TakeOver;
    }
    if row.request_hash != request_hash {
        return Existing::Answer(Err(IdempotencyError::Reused));
    }
    match (row.state.as_str(), row.response_status, row.response_body) {
        ("completed", Some(status), Some(body)) => Existing::Answer(Ok(Replay {
            status: u16::try_from(status).unwrap_or(500),
            body,
        })),
        _ => Existing::Answer(Err(IdempotencyError::InFlight)),
    }
}

/// Inserts the key `in_flight`; when it exists already, reads it (locked).
async fn insert_or_read(
    tx: &mut Transaction<'static, Db>,
    tenant: &TenantId,
    key: &str,
    request_hash: &str,
    now: Timestamp,
) -> Result<Option<KeyRow>, sqlx::Error> {
    let inserted = sqlx::query(
        "INSERT INTO idempotency_keys (tenant_id, idem_key, request_hash, state, created_at, expires_at)
         VALUES ($1, $2, $3, 'in_flight', $4, $5)
         ON CONFLICT (tenant_id, idem_key) DO NOTHING",
    )
    .bind(tenant.as_str())
    .bind(key)
    .bind(request_hash)
    .bind(now)
    .bind(now + chrono::Duration::hours(RETENTION_HOURS))
    .execute(&mut **tx)
    .await?;
    if inserted.rows_affected() == 1 {
        return Ok(None);
    }
    let row: KeyRow = sqlx::query_as(sql!(
        "SELECT request_hash, state, response_status, response_body, created_at, expires_at
         FROM idempotency_keys WHERE tenant_id = $1 AND idem_key = $2{}",
        dialect::FOR_UPDATE
    ))
    .bind(tenant.as_str())
    .bind(key)
    .fetch_one(&mut **tx)
    .await?;
    Ok(Some(row))
}

/// Restarts a key's claim for a new attempt.
async fn take_over(
    tx: &mut Transaction<'static, Db>,
    tenant: &TenantId,
    key: &str,
    request_hash: &str,
    now: Timestamp,
) -> Result<(), sqlx::Error> {
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
    .bind(now + chrono::Duration::hours(RETENTION_HOURS))
    .execute(&mut **tx)
    .await?;
    Ok(())
}

/// Claims `key` inside the caller's transaction: `Ok(None)` to go on (the caller stores
/// the response with [`finish`] before committing), `Ok(Some(replay))` for a request
/// answered before, `Err` when the key cannot be used for this request.
pub(super) async fn claim_in(
    tx: &mut Transaction<'static, Db>,
    tenant: &TenantId,
    key: &str,
    request_hash: &str,
    now: Timestamp,
) -> Result<Result<Option<Replay>, IdempotencyError>, sqlx::Error> {
    let Some(row) = insert_or_read(tx, tenant, key, request_hash, now).await? else {
        return Ok(Ok(None));
    };
    match judge(row, request_hash, now) {
        Existing::TakeOver => {
            take_over(tx, tenant, key, request_hash, now).await?;
            Ok(Ok(None))
        }
        Existing::Answer(answer) => Ok(answer.map(Some)),
    }
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

/// Drops a claim made in this transaction that ends without a response to store.
pub(super) async fn unclaim(
    tx: &mut Transaction<'static, Db>,
    tenant: &TenantId,
    key: &str,
) -> Result<(), sqlx::Error> {
    sqlx::query(
        "DELETE FROM idempotency_keys WHERE tenant_id = $1 AND idem_key = $2 AND state = 'in_flight'",
    )
    .bind(tenant.as_str())
    .bind(key)
    .execute(&mut **tx)
    .await?;
    Ok(())
}

#[operations]
impl Repo {
    /// Stores a refusal (a 4xx answer) as the response of `key`, whose operation changed
    /// nothing. `Ok(None)` when stored; `Ok(Some(replay))` when the same request was
    /// answered before; `Err` when the key belongs to another request or is in flight.
    pub async fn remember_refusal(
        &self,
        tenant: &TenantId,
        key: &str,
        request_hash: &str,
        status: u16,
        body: &str,
        now: Timestamp,
    ) -> StoreResult<Result<Option<Replay>, IdempotencyError>> {
        let mut tx = self.begin_write().await?;
        let answer = match insert_or_read(&mut tx, tenant, key, request_hash, now).await? {
            None => None,
            Some(row) => match judge(row, request_hash, now) {
                Existing::TakeOver => {
                    take_over(&mut tx, tenant, key, request_hash, now).await?;
                    None
                }
                Existing::Answer(answer) => Some(answer),
            },
        };
        let answer = match answer {
            None => {
                finish(&mut tx, tenant, key, status, body).await?;
                Ok(None)
            }
            Some(answer) => answer.map(Some),
        };
        tx.commit().await?;
        Ok(answer)
    }

    /// Claims `key` in a transaction of its own, for an operation that calls outside
    /// parties before it answers; it must then complete or release the key.
    pub async fn claim_idempotency_key(
        &self,
        tenant: &TenantId,
        key: &str,
        request_hash: &str,
        now: Timestamp,
    ) -> StoreResult<IdempotencyClaim> {
        let mut tx = self.begin_write().await?;
        let claim = match insert_or_read(&mut tx, tenant, key, request_hash, now).await? {
            None => IdempotencyClaim::Fresh,
            Some(row) => match judge(row, request_hash, now) {
                Existing::TakeOver => {
                    take_over(&mut tx, tenant, key, request_hash, now).await?;
                    IdempotencyClaim::Fresh
                }
                Existing::Answer(Ok(Replay { status, body })) => {
                    IdempotencyClaim::Replay { status, body }
                }
                Existing::Answer(Err(IdempotencyError::Reused)) => IdempotencyClaim::Mismatch,
                Existing::Answer(Err(IdempotencyError::InFlight)) => IdempotencyClaim::InFlight,
            },
        };
        tx.commit().await?;
        Ok(claim)
    }

    /// Stores the response of a key claimed with [`Repo::claim_idempotency_key`].
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
        unclaim(&mut tx, tenant, key).await?;
        tx.commit().await?;
        Ok(())
    }
}
