//! The PostgreSQL instantiation of `ops`.

pub type Db = sqlx::Postgres;

pub mod dialect {
    //! PostgreSQL spellings of the few statements that differ.
    pub const BEGIN_WRITE: &str = "BEGIN";

    /// Serialises regeneration of one product across instances with a transaction-scoped
    /// advisory lock on the key's hash.
    pub async fn lock_key(
        tx: &mut sqlx::Transaction<'static, super::Db>,
        key: &str,
    ) -> Result<(), sqlx::Error> {
        sqlx::query("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))")
            .bind(key)
            .execute(&mut **tx)
            .await?;
        Ok(())
    }
}

#[path = "ops/mod.rs"]
pub mod ops;
