//! The SQLite instantiation of `ops`.

pub type Db = sqlx::Sqlite;

pub mod dialect {
    //! SQLite spellings of the few statements that differ.

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
