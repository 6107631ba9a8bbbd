//! The database: one body of SQL compiled for SQLite and for PostgreSQL.
//!
//! `ops/` is compiled twice, once inside [`sqlite`] and once inside [`postgres`], each
//! with its own `Db` type and `dialect` functions. `ops/<area>/` holds an area's
//! operations next to their SQL: an `impl Repo` block marked `#[operations]` declares
//! them, and the attribute also declares the [`Store`] method of each, which dispatches
//! to the backend in use (see `kairos-store-macros`). Every public operation is one
//! transaction, takes the tenant first and filters every query on it. Records live in
//! [`model`], one module per area.
#![expect(
    clippy::duplicate_mod,
    reason = "ops/ is deliberately compiled once per backend (docs/ARCHITECTURE.md)"
)]

/// A statement assembled by `format!` from the backend's own SQL fragments (its dialect's
/// column lists and functions), never from input: every value a caller gives is bound.
/// sqlx takes a `&'static str` as it is and asks every other text to be asserted safe.
macro_rules! sql {
    ($($format:tt)*) => {
        ::sqlx::AssertSqlSafe(::std::format!($($format)*))
    };
}

pub mod model;
pub mod pricing;

use std::str::FromStr;
use std::time::Duration;

pub use model::*;

/// Failures every store operation can meet: the database's, or a stored value it cannot
/// read. What an area's operations refuse is the area's own error enum (`BookingError`,
/// `CatalogError`, …), which wraps this one.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// Anything else the database reported: logged, answered as a 500.
    #[error(transparent)]
    Database(sqlx::Error),
    /// A stored value could not be interpreted (corrupt or hand-edited row).
    #[error("corrupt stored value: {0}")]
    Corrupt(String),
}

pub type StoreResult<T> = Result<T, StoreError>;

impl StoreError {
    /// Whether the database gave the transaction up in favour of another change, having
    /// written nothing of it: a PostgreSQL deadlock (`40P01`), serialization failure
    /// (`40001`), lock waited for too long (`55P03`), or SQLite busy past its busy
    /// timeout (`SQLITE_BUSY`). The same request again may well succeed.
    pub fn gave_way(&self) -> bool {
        match self {
            StoreError::Database(sqlx::Error::Database(d)) => matches!(
                d.code().as_deref(),
                Some("40P01" | "40001" | "55P03" | "5" | "517")
            ),
            _ => false,
        }
    }
}

/// A value of a closed set read back from the database; a spelling the code does not know
/// is a corrupt row, never a silent default.
pub(crate) fn stored<T>(
    what: &str,
    text: &str,
    parse: fn(&str) -> Option<T>,
) -> Result<T, StoreError> {
    parse(text).ok_or_else(|| StoreError::Corrupt(format!("{what} '{text}'")))
}

impl From<sqlx::Error> for StoreError {
    fn from(e: sqlx::Error) -> Self {
        StoreError::Database(e)
    }
}

/// `From<sqlx::Error>` for an area's error enum, through its `Store` variant, so that
/// `?` works on queries inside the area's operations.
#[macro_export]
#[doc(hidden)]
macro_rules! store_error_from_sqlx {
    ($area:ident) => {
        impl From<sqlx::Error> for $area {
            fn from(e: sqlx::Error) -> Self {
                $area::Store($crate::StoreError::Database(e))
            }
        }
    };
}

/// Which database a URL names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    Sqlite,
    Postgres,
}

impl Backend {
    pub fn of_url(url: &str) -> Option<Backend> {
        if url.starts_with("sqlite:") {
            Some(Backend::Sqlite)
        } else if url.starts_with("postgres://") || url.starts_with("postgresql://") {
            Some(Backend::Postgres)
        } else {
            None
        }
    }
}

/// Connection settings.
#[derive(Debug, Clone)]
pub struct ConnectOptions {
    pub url: String,
    /// Maximum pool size (PostgreSQL, and SQLite readers).
    pub max_connections: u32,
    /// How long a SQLite write waits for another process's write to finish before it
    /// fails with "database is locked".
    pub busy_timeout: Duration,
}

impl ConnectOptions {
    pub fn new(url: impl Into<String>) -> Self {
        Self {
            url: url.into(),
            max_connections: 16,
            busy_timeout: Duration::from_secs(5),
        }
    }
}

pub mod postgres;
pub mod sqlite;

/// `(version, description, sql)` of each file of `migrations/sqlite` (see `build.rs`).
const SQLITE_MIGRATIONS: &[(i64, &str, &str)] =
    include!(concat!(env!("OUT_DIR"), "/migrations_sqlite.rs"));
/// `(version, description, sql)` of each file of `migrations/postgres`.
const POSTGRES_MIGRATIONS: &[(i64, &str, &str)] =
    include!(concat!(env!("OUT_DIR"), "/migrations_postgres.rs"));

/// The migrator of one backend's migrations. A migration's checksum is that of its file's
/// text, as recorded by every earlier release.
fn migrator(migrations: &[(i64, &'static str, &'static str)]) -> sqlx::migrate::Migrator {
    sqlx::migrate::Migrator::with_migrations(
        migrations
            .iter()
            .map(|&(version, description, sql)| {
                sqlx::migrate::Migration::new(
                    version,
                    description.into(),
                    sqlx::migrate::MigrationType::Simple,
                    sqlx::SqlSafeStr::into_sql_str(sql),
                    false,
                )
            })
            .collect(),
    )
}

/// The database in use; cheap to clone (pools are shared).
#[derive(Debug, Clone)]
pub enum Store {
    Sqlite(sqlite::ops::Repo),
    Postgres(postgres::ops::Repo),
}

/// Why connecting failed.
#[derive(Debug, thiserror::Error)]
pub enum ConnectError {
    #[error("unsupported database URL '{0}': use sqlite:PATH or postgres://…")]
    UnsupportedUrl(String),
    #[error("cannot open the database: {0}")]
    Open(#[from] sqlx::Error),
    #[error("cannot apply migrations: {0}")]
    Migrate(#[from] sqlx::migrate::MigrateError),
}

impl Store {
    /// Opens the database named by `opts.url` (does not migrate).
    pub async fn connect(opts: &ConnectOptions) -> Result<Store, ConnectError> {
        match Backend::of_url(&opts.url) {
            Some(Backend::Sqlite) => {
                use sqlx::sqlite::{
                    SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous,
                };
                let base = SqliteConnectOptions::from_str(&opts.url)?
                    .create_if_missing(true)
                    .journal_mode(SqliteJournalMode::Wal)
                    .synchronous(SqliteSynchronous::Normal)
                    .busy_timeout(opts.busy_timeout)
                    .foreign_keys(true)
                    .pragma("temp_store", "memory");
                // One writer connection: writes queue in the pool (fairly, without busy
                // polling) while readers run in parallel on WAL snapshots.
                let write = SqlitePoolOptions::new()
                    .max_connections(1)
                    .acquire_timeout(Duration::from_secs(30))
                    .connect_with(base.clone())
                    .await?;
                let read = SqlitePoolOptions::new()
                    .max_connections(opts.max_connections.max(1))
                    .acquire_timeout(Duration::from_secs(30))
                    .connect_with(base.read_only(true))
                    .await?;
                Ok(Store::Sqlite(sqlite::ops::Repo::new(read, write)))
            }
            Some(Backend::Postgres) => {
                use sqlx::postgres::{PgConnectOptions, PgPoolOptions};
                let pg = PgConnectOptions::from_str(&opts.url)?;
                // The pool retries a refused connection until its acquire timeout and then
                // reports only "pool timed out". One direct attempt first fails fast with
                // the server's address and the real cause (never the URL: it may hold a
                // password).
                let target = match pg.get_socket() {
                    Some(socket) => socket.display().to_string(),
                    None => format!("{}:{}", pg.get_host(), pg.get_port()),
                };
                let unreachable = |kind, cause: String| {
                    sqlx::Error::Io(std::io::Error::new(
                        kind,
                        format!("cannot connect to PostgreSQL at {target}: {cause}"),
                    ))
                };
                const FIRST_CONNECT_TIMEOUT: Duration = Duration::from_secs(5);
                match tokio::time::timeout(
                    FIRST_CONNECT_TIMEOUT,
                    sqlx::ConnectOptions::connect(&pg),
                )
                .await
                {
                    Ok(Ok(connection)) => {
                        let _ = sqlx::Connection::close(connection).await;
                    }
                    Ok(Err(sqlx::Error::Io(e))) => {
                        return Err(unreachable(e.kind(), e.to_string()).into());
                    }
                    Ok(Err(e)) => {
                        return Err(unreachable(std::io::ErrorKind::Other, e.to_string()).into());
                    }
                    Err(_) => {
                        return Err(unreachable(
                            std::io::ErrorKind::TimedOut,
                            format!("no answer within {} s", FIRST_CONNECT_TIMEOUT.as_secs()),
                        )
                        .into());
                    }
                }
                let pool = PgPoolOptions::new()
                    .max_connections(opts.max_connections.max(2))
                    .acquire_timeout(Duration::from_secs(30))
                    .connect_with(pg)
                    .await?;
                Ok(Store::Postgres(postgres::ops::Repo::new(
                    pool.clone(),
                    pool,
                )))
            }
            // Only the scheme: the rest of a URL may hold a password.
            None => Err(ConnectError::UnsupportedUrl(
                match opts.url.split_once("://") {
                    Some((scheme, _)) => format!("{scheme}://…"),
                    None => opts.url.clone(),
                },
            )),
        }
    }

    /// Opens and migrates.
    pub async fn open(opts: &ConnectOptions) -> Result<Store, ConnectError> {
        let store = Self::connect(opts).await?;
        store.migrate().await?;
        Ok(store)
    }

    /// Applies pending migrations of the backend in use.
    pub async fn migrate(&self) -> Result<(), ConnectError> {
        match self {
            Store::Sqlite(r) => migrator(SQLITE_MIGRATIONS).run(r.write_pool()).await?,
            Store::Postgres(r) => migrator(POSTGRES_MIGRATIONS).run(r.write_pool()).await?,
        }
        Ok(())
    }

    /// Runs `sql` as it is on the write pool: for tests that need the database itself to
    /// refuse a write (a trigger), which no input can make it do.
    #[cfg(feature = "test-support")]
    pub async fn execute_raw(&self, sql: &str) -> Result<(), sqlx::Error> {
        match self {
            Store::Sqlite(r) => sqlx::raw_sql(sqlx::AssertSqlSafe(sql.to_owned()))
                .execute(r.write_pool())
                .await
                .map(|_| ()),
            Store::Postgres(r) => sqlx::raw_sql(sqlx::AssertSqlSafe(sql.to_owned()))
                .execute(r.write_pool())
                .await
                .map(|_| ()),
        }
    }

    pub fn backend(&self) -> Backend {
        match self {
            Store::Sqlite(_) => Backend::Sqlite,
            Store::Postgres(_) => Backend::Postgres,
        }
    }

    /// Closes every pool, waiting for connections in use to be returned.
    pub async fn close(&self) {
        match self {
            Store::Sqlite(r) => r.close().await,
            Store::Postgres(r) => r.close().await,
        }
    }
}

pub use uuid::Uuid;
