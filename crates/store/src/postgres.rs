//! The PostgreSQL instantiation of `ops`.

pub type Db = sqlx::Postgres;

pub mod dialect {
    //! PostgreSQL spellings of the few statements that differ.

    /// Locks the rows a transaction reads and goes on to change.
    pub const FOR_UPDATE: &str = " FOR UPDATE";

    /// Claims rows no other worker holds, skipping those another transaction locked.
    /// Locks the rows of the table aliased `p` only (the nullable side of an outer join
    /// cannot be locked).
    pub const FOR_UPDATE_OF_P: &str = " FOR UPDATE OF p";
    /// The same for the table aliased `i`.
    pub const FOR_UPDATE_OF_I: &str = " FOR UPDATE OF i";
    pub const FOR_UPDATE_OF_B: &str = " FOR UPDATE OF b";

    /// The booking whose participants list the participant id `$2` (text), of tenant `$1`.
    pub const PARTICIPANT_BOOKING: &str = "SELECT id FROM bookings WHERE tenant_id = $1 AND participants @> jsonb_build_array(jsonb_build_object('id', $2::text))";
    pub const FOR_UPDATE_SKIP_LOCKED: &str = " FOR UPDATE SKIP LOCKED";

    /// Whether a statement may change rows inside `WITH` (`WITH u AS (UPDATE …) INSERT …`):
    /// PostgreSQL yes, SQLite no.
    pub const MODIFYING_CTE: bool = true;

    pub const BEGIN_WRITE: &str = "BEGIN";

    /// A read transaction whose statements all see one snapshot.
    pub const BEGIN_SNAPSHOT: &str = "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY";

    /// Whether `e` violates the unique constraint `name` (`_columns` serve SQLite).
    pub fn violates_unique(e: &sqlx::Error, name: &str, _columns: &str) -> bool {
        match e {
            sqlx::Error::Database(d) => d.is_unique_violation() && d.constraint() == Some(name),
            _ => false,
        }
    }

    /// Whether `e` violates the exclusion constraint `name` (`exclusion_violation`).
    pub fn violates_exclusion(e: &sqlx::Error, name: &str) -> bool {
        match e {
            sqlx::Error::Database(d) => {
                d.code().as_deref() == Some("23P01") && d.constraint() == Some(name)
            }
            _ => false,
        }
    }

    /// The statements that bound a booking move's transaction: at most `timeout` for any
    /// statement and `lock_wait` for any lock (spec Part B 8: 10 s and 5 s).
    pub fn move_limits(
        timeout: std::time::Duration,
        lock_wait: std::time::Duration,
    ) -> Vec<String> {
        vec![
            // No one statement longer than a lock may be waited for: the transaction's
            // whole time is bounded by the caller, and a rollback never waits long for an
            // abandoned statement.
            format!(
                "SET LOCAL statement_timeout = {}",
                timeout.min(lock_wait).as_millis()
            ),
            format!("SET LOCAL lock_timeout = {}", lock_wait.as_millis()),
        ]
    }

    /// Whether `e` is a lock waited for too long (`lock_not_available`) or a statement
    /// cancelled by its timeout (`query_canceled`).
    pub fn is_lock_timeout(e: &sqlx::Error) -> bool {
        match e {
            sqlx::Error::Database(d) => matches!(d.code().as_deref(), Some("55P03" | "57014")),
            _ => false,
        }
    }

    /// Whether `e` is a transaction the database gave up: a deadlock (`40P01`) or a
    /// serialization failure (`40001`).
    pub fn is_transaction_conflict(e: &sqlx::Error) -> bool {
        match e {
            sqlx::Error::Database(d) => matches!(d.code().as_deref(), Some("40P01" | "40001")),
            _ => false,
        }
    }

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

/// `Store` methods are emitted by the SQLite instantiation (see `crate::sqlite`).
macro_rules! store_facade {
    ($($operations:tt)*) => {};
}

#[path = "ops/mod.rs"]
pub mod ops;
