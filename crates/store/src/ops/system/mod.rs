//! Health checks, server-wide secrets, and the hold benchmark's ceiling.

mod ceiling;

use super::{Db, Repo};
use crate::{StoreResult, Timestamp};
use kairos_store_macros::operations;

#[operations]
impl Repo {
    pub async fn ping(&self) -> StoreResult<()> {
        sqlx::query_scalar::<Db, i32>("SELECT 1")
            .fetch_one(&self.read)
            .await?;
        Ok(())
    }

    /// Returns the secret called `name`, storing `generated` if there is none yet.
    ///
    /// Every instance sharing the database therefore signs tokens with the same key.
    pub async fn secret_or_insert(
        &self,
        name: &str,
        generated: String,
        now: Timestamp,
    ) -> StoreResult<String> {
        let mut tx = self.begin_write().await?;
        sqlx::query(
            "INSERT INTO server_secrets (name, value, created_at) VALUES ($1, $2, $3)
             ON CONFLICT (name) DO NOTHING",
        )
        .bind(name)
        .bind(&generated)
        .bind(now)
        .execute(&mut *tx)
        .await?;
        let value: String = sqlx::query_scalar("SELECT value FROM server_secrets WHERE name = $1")
            .bind(name)
            .fetch_one(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(value)
    }
}

#[operations]
impl Repo {
    /// Deletes idempotency records past their expiry; returns how many went.
    pub async fn purge_expired_idempotency_keys(&self, now: Timestamp) -> StoreResult<u64> {
        let mut tx = self.begin_write().await?;
        let done = sqlx::query("DELETE FROM idempotency_keys WHERE expires_at <= $1")
            .bind(now)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(done.rows_affected())
    }
}
