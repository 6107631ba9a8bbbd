//! The SQLite instantiation of `ops`.

pub type Db = sqlx::Sqlite;

pub mod dialect {
    //! SQLite spellings of the few statements that differ.

    /// Row locks of a read that a transaction goes on to change: none on SQLite, whose
    /// write transaction holds the database lock.
    pub const FOR_UPDATE: &str = "";

    /// Claims rows no other worker holds: plain reads on SQLite (one writer at a time).
    pub const FOR_UPDATE_SKIP_LOCKED: &str = "";

    /// Write transactions take the database write lock up front, so two writers never
    /// deadlock upgrading a read lock (SQLITE_BUSY_SNAPSHOT).
    pub const BEGIN_WRITE: &str = "BEGIN IMMEDIATE";

    /// Serialises regeneration of one product across instances: a no-op on SQLite, whose
    /// write transaction already excludes every other writer.
    pub async fn lock_key(
        _tx: &mut sqlx::Transaction<'static, super::Db>,
        _key: &str,
    ) -> Result<(), sqlx::Error> {
        Ok(())
    }
}

#[path = "ops/mod.rs"]
pub mod ops;
