//! The SQLite instantiation of `ops`.

pub type Db = sqlx::Sqlite;

pub mod dialect {
    //! SQLite spellings of the few statements that differ.

    /// Row locks of a read that a transaction goes on to change: none on SQLite, whose
    /// write transaction holds the database lock.
    pub const FOR_UPDATE: &str = "";

    /// Claims rows no other worker holds: plain reads on SQLite (one writer at a time).
    /// Locks the rows of the table aliased `p` only (the nullable side of an outer join
    /// cannot be locked).
    pub const FOR_UPDATE_OF_P: &str = "";
    pub const FOR_UPDATE_OF_I: &str = "";
    pub const FOR_UPDATE_OF_B: &str = "";

    /// The booking whose participants list the participant id `$2` (text), of tenant `$1`.
    pub const PARTICIPANT_BOOKING: &str = "SELECT b.id FROM bookings b, json_each(b.participants) j WHERE b.tenant_id = $1 AND json_extract(j.value, '$.id') = $2";
    pub const FOR_UPDATE_SKIP_LOCKED: &str = "";

    /// Whether a statement may change rows inside `WITH` (`WITH u AS (UPDATE …) INSERT …`):
    /// PostgreSQL yes, SQLite no.
    pub const MODIFYING_CTE: bool = false;

    /// Write transactions take the database write lock up front, so two writers never
    /// deadlock upgrading a read lock (SQLITE_BUSY_SNAPSHOT).
    pub const BEGIN_WRITE: &str = "BEGIN IMMEDIATE";

    /// A read transaction whose statements all see one snapshot (WAL: from its first read).
    pub const BEGIN_SNAPSHOT: &str = "BEGIN";

    /// Whether `e` violates the unique constraint `_name`. SQLite's message names the
    /// constraint's columns (`UNIQUE constraint failed: t.a, t.b`), not the constraint.
    pub fn violates_unique(e: &sqlx::Error, _name: &str, columns: &str) -> bool {
        match e {
            sqlx::Error::Database(d) => {
                d.is_unique_violation()
                    && d.message()
                        .strip_prefix("UNIQUE constraint failed: ")
                        .is_some_and(|failed| failed == columns)
            }
            _ => false,
        }
    }

    /// Whether `e` violates the exclusion constraint `_name`: SQLite has none (its one
    /// writer and the store's own check keep the rule).
    pub fn violates_exclusion(_e: &sqlx::Error, _name: &str) -> bool {
        false
    }

    /// The statements that bound a booking move's transaction: none on SQLite, whose one
    /// writer holds the database from `BEGIN IMMEDIATE` (waiting at most the connection's
    /// busy timeout for it); the move's whole time is bounded by the caller.
    pub fn move_limits(
        _timeout: std::time::Duration,
        _lock_wait: std::time::Duration,
    ) -> Vec<String> {
        Vec::new()
    }

    /// Whether `e` is the database busy past the busy timeout (`SQLITE_BUSY`).
    pub fn is_lock_timeout(e: &sqlx::Error) -> bool {
        match e {
            sqlx::Error::Database(d) => d.code().as_deref() == Some("5"),
            _ => false,
        }
    }

    /// Whether `e` is a transaction the database gave up: SQLite's one writer never
    /// deadlocks.
    pub fn is_transaction_conflict(_e: &sqlx::Error) -> bool {
        false
    }

    /// Serialises regeneration of one product across instances: a no-op on SQLite, whose
    /// write transaction already excludes every other writer.
    pub async fn lock_key(
        _tx: &mut sqlx::Transaction<'static, super::Db>,
        _key: &str,
    ) -> Result<(), sqlx::Error> {
        Ok(())
    }
}

/// The `Store` methods of the operations an `#[operations]` block declares, dispatching to
/// the backend in use. Emitted by this instantiation only, so that each exists once.
macro_rules! store_facade {
    ($( $(#[$meta:meta])* pub async fn $name:ident(&$this:ident $(, $arg:ident : $ty:ty)*) -> $ret:ty; )*) => {
        impl crate::Store {
            $(
                $(#[$meta])*
                pub async fn $name(&$this $(, $arg: $ty)*) -> $ret {
                    match $this {
                        crate::Store::Sqlite(r) => r.$name($($arg),*).await,
                        crate::Store::Postgres(r) => r.$name($($arg),*).await,
                    }
                }
            )*
        }
    };
}

#[path = "ops/mod.rs"]
pub mod ops;
