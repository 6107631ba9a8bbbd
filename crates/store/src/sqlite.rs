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
