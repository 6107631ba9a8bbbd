//! The SQLite instantiation of `ops`.

pub type Db = sqlx::Sqlite;

pub mod dialect {
    //! SQLite spellings of the few statements that differ.

    /// Write transactions take the database write lock up front, so two writers never
    /// deadlock upgrading a read lock (SQLITE_BUSY_SNAPSHOT).
    pub const BEGIN_WRITE: &str = "BEGIN IMMEDIATE";
    /// Row locks do not exist: the write transaction already excludes other writers.
    pub const FOR_UPDATE: &str = "";
    /// Case-insensitive match.
    pub const ILIKE: &str = "LIKE";
}

#[path = "ops/mod.rs"]
pub mod ops;
