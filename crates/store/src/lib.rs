//! The database: one body of SQL compiled for SQLite and for PostgreSQL.
//!
//! `ops/` is compiled twice, once inside [`sqlite`] and once inside [`postgres`], each
//! with its own `Db` type and `dialect` functions. [`Store`] dispatches every operation
//! to the backend in use. Every public operation is one transaction, takes the
//! [`TenantId`] first and filters every query on it.
#![expect(
    clippy::duplicate_mod,
    reason = "ops/ is deliberately compiled once per backend (docs/ARCHITECTURE.md)"
)]

pub mod model;

use kairos_domain::TenantId;
use std::str::FromStr;
use std::time::Duration;

pub use model::*;

/// Errors of store operations.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The addressed row does not exist for this tenant.
    #[error("not found")]
    NotFound,
    /// A uniqueness rule named by the operation was violated.
    #[error("conflict: {0}")]
    Conflict(&'static str),
    /// A business rule of the booking lifecycle refused the operation; nothing changed
    /// (apart from expiring an overdue hold, which is always kept).
    #[error("refused: {0}")]
    Refused(BookingRefusal),
    /// Anything else the database reported: logged, answered as a 500.
    #[error(transparent)]
    Database(#[from] sqlx::Error),
    /// A stored value could not be interpreted (corrupt or hand-edited row).
    #[error("corrupt stored value: {0}")]
    Corrupt(String),
}

pub type StoreResult<T> = Result<T, StoreError>;

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
}

impl ConnectOptions {
    pub fn new(url: impl Into<String>) -> Self {
        Self {
            url: url.into(),
            max_connections: 16,
        }
    }
}

pub mod postgres;
pub mod sqlite;

static SQLITE_MIGRATOR: sqlx::migrate::Migrator = sqlx::migrate!("./migrations/sqlite");
static POSTGRES_MIGRATOR: sqlx::migrate::Migrator = sqlx::migrate!("./migrations/postgres");

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
                    .busy_timeout(Duration::from_secs(5))
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
            Store::Sqlite(r) => SQLITE_MIGRATOR.run(r.write_pool()).await?,
            Store::Postgres(r) => POSTGRES_MIGRATOR.run(r.write_pool()).await?,
        }
        Ok(())
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

/// Declares `Store` methods that forward to the same-named `Repo` method of the backend
/// in use; the list below is the store's whole public surface.
macro_rules! delegate {
    ($( $(#[$meta:meta])* pub async fn $name:ident(&self $(, $arg:ident : $ty:ty)* $(,)?) -> $ret:ty; )*) => {
        impl Store {
            $(
                $(#[$meta])*
                pub async fn $name(&self $(, $arg: $ty)*) -> $ret {
                    match self {
                        Store::Sqlite(r) => r.$name($($arg),*).await,
                        Store::Postgres(r) => r.$name($($arg),*).await,
                    }
                }
            )*
        }
    };
}

delegate! {
    /// Checks that the database answers.
    pub async fn ping(&self) -> StoreResult<()>;
    /// Returns the named server secret, creating it from `generated` on first use.
    pub async fn secret_or_insert(&self, name: &str, generated: String, now: Timestamp) -> StoreResult<String>;
    /// Removes idempotency records older than their 24-hour lifetime.
    pub async fn purge_expired_idempotency_keys(&self, now: Timestamp) -> StoreResult<u64>;

    // tenancy
    pub async fn create_tenant(&self, new: NewTenant, now: Timestamp) -> StoreResult<Tenant>;
    pub async fn get_tenant(&self, id: &TenantId) -> StoreResult<Option<Tenant>>;
    pub async fn create_site(&self, tenant: &TenantId, new: NewSite, actor: &Actor, now: Timestamp) -> StoreResult<Site>;
    pub async fn list_sites(&self, tenant: &TenantId) -> StoreResult<Vec<Site>>;
    pub async fn create_product(&self, tenant: &TenantId, new: NewProduct, actor: &Actor, now: Timestamp) -> StoreResult<Product>;
    pub async fn list_products(&self, tenant: &TenantId) -> StoreResult<Vec<Product>>;

    // staff accounts
    pub async fn create_admin_user(&self, tenant: &TenantId, new: NewAdminUser, actor: &Actor, now: Timestamp) -> StoreResult<AdminUser>;
    pub async fn get_admin_user(&self, tenant: &TenantId, id: Uuid) -> StoreResult<Option<AdminUser>>;
    pub async fn find_admin_user_by_username(&self, tenant: &TenantId, username: &str) -> StoreResult<Option<AdminUser>>;
    pub async fn list_admin_users(&self, tenant: &TenantId) -> StoreResult<Vec<AdminUser>>;
    pub async fn update_admin_user(&self, tenant: &TenantId, id: Uuid, patch: AdminUserPatch, actor: &Actor, now: Timestamp) -> StoreResult<AdminUser>;
    pub async fn record_admin_login(&self, tenant: &TenantId, id: Uuid, now: Timestamp) -> StoreResult<()>;

    // customers
    pub async fn create_customer(&self, tenant: &TenantId, new: NewCustomer, now: Timestamp) -> StoreResult<Customer>;
    pub async fn get_customer(&self, tenant: &TenantId, id: Uuid) -> StoreResult<Option<Customer>>;
    pub async fn find_customer_by_email(&self, tenant: &TenantId, email: &str) -> StoreResult<Option<Customer>>;
    pub async fn update_customer(&self, tenant: &TenantId, id: Uuid, patch: CustomerPatch, now: Timestamp) -> StoreResult<Customer>;

    // catalog
    pub async fn get_site(&self, tenant: &TenantId, id: Uuid) -> StoreResult<Option<Site>>;
    pub async fn update_site(&self, tenant: &TenantId, id: Uuid, new: NewSite, is_active: bool, actor: &Actor, now: Timestamp) -> StoreResult<Site>;
    pub async fn get_product(&self, tenant: &TenantId, id: Uuid) -> StoreResult<Option<Product>>;
    pub async fn update_product(&self, tenant: &TenantId, id: Uuid, new: NewProduct, is_active: bool, actor: &Actor, now: Timestamp) -> StoreResult<Product>;
    pub async fn create_variant(&self, tenant: &TenantId, product: Uuid, new: NewVariant, actor: &Actor, now: Timestamp) -> StoreResult<Variant>;
    pub async fn list_variants(&self, tenant: &TenantId, product: Uuid) -> StoreResult<Vec<Variant>>;
    pub async fn update_variant(&self, tenant: &TenantId, product: Uuid, id: Uuid, new: NewVariant, actor: &Actor, now: Timestamp) -> StoreResult<Variant>;
    pub async fn create_addon(&self, tenant: &TenantId, product: Uuid, new: NewAddon, actor: &Actor, now: Timestamp) -> StoreResult<Addon>;
    pub async fn list_addons(&self, tenant: &TenantId, product: Uuid) -> StoreResult<Vec<Addon>>;
    pub async fn update_addon(&self, tenant: &TenantId, product: Uuid, id: Uuid, new: NewAddon, actor: &Actor, now: Timestamp) -> StoreResult<Addon>;

    // schedules and slots
    pub async fn create_template(&self, tenant: &TenantId, new: NewTemplate, actor: &Actor, now: Timestamp) -> StoreResult<Changed<TemplateRecord>>;
    pub async fn get_template(&self, tenant: &TenantId, id: Uuid) -> StoreResult<Option<TemplateRecord>>;
    pub async fn list_templates(&self, tenant: &TenantId, scope: Option<(String, Uuid)>) -> StoreResult<Vec<TemplateRecord>>;
    pub async fn update_template(&self, tenant: &TenantId, id: Uuid, new: NewTemplate, actor: &Actor, now: Timestamp) -> StoreResult<Changed<TemplateRecord>>;
    pub async fn delete_template(&self, tenant: &TenantId, id: Uuid, actor: &Actor, now: Timestamp) -> StoreResult<Changed<TemplateRecord>>;
    pub async fn create_date_rule(&self, tenant: &TenantId, kind: DateRuleKind, new: NewDateRule, actor: &Actor, now: Timestamp) -> StoreResult<Changed<DateRuleRecord>>;
    pub async fn update_date_rule(&self, tenant: &TenantId, kind: DateRuleKind, id: Uuid, new: NewDateRule, actor: &Actor, now: Timestamp) -> StoreResult<Changed<DateRuleRecord>>;
    pub async fn get_date_rule(&self, tenant: &TenantId, kind: DateRuleKind, id: Uuid) -> StoreResult<Option<DateRuleRecord>>;
    pub async fn list_date_rules(&self, tenant: &TenantId, kind: DateRuleKind, scope: Option<(String, Uuid)>) -> StoreResult<Vec<DateRuleRecord>>;
    pub async fn delete_date_rule(&self, tenant: &TenantId, kind: DateRuleKind, id: Uuid, actor: &Actor, now: Timestamp) -> StoreResult<Changed<DateRuleRecord>>;
    /// Regenerates, or with `dry_run` previews, the slots of a site's or product's scope.
    pub async fn regenerate(&self, tenant: &TenantId, scope_type: &str, scope_id: Uuid, span: DateSpan, now: Timestamp, dry_run: bool) -> StoreResult<RegenReport>;
    pub async fn all_products(&self) -> StoreResult<Vec<(TenantId, Uuid)>>;
    pub async fn open_slots(&self, tenant: &TenantId, product: Uuid, from: Timestamp, to: Timestamp, party_size: i32, now: Timestamp) -> StoreResult<Vec<Slot>>;
    pub async fn list_slots(&self, tenant: &TenantId, product: Uuid, from: Timestamp, to: Timestamp) -> StoreResult<Vec<Slot>>;

    // idempotency keys
    /// Claims an Idempotency-Key for a request with this canonical hash.
    pub async fn claim_idempotency_key(&self, tenant: &TenantId, key: &str, request_hash: &str, now: Timestamp) -> StoreResult<IdempotencyClaim>;
    /// Stores the response of a claimed key whose request changed nothing.
    pub async fn complete_idempotency_key(&self, tenant: &TenantId, key: &str, status: u16, body: &str) -> StoreResult<()>;
    /// Forgets a claim whose request failed unexpectedly.
    pub async fn release_idempotency_key(&self, tenant: &TenantId, key: &str) -> StoreResult<()>;

    // bookings
    pub async fn create_booking(&self, tenant: &TenantId, new: NewBooking, actor: &Actor, now: Timestamp, idem: Option<IdempotentFinish<'_>>) -> StoreResult<Booking>;
    pub async fn get_booking(&self, tenant: &TenantId, id: Uuid) -> StoreResult<Option<Booking>>;
    pub async fn get_booking_view(&self, tenant: &TenantId, id: Uuid) -> StoreResult<Option<BookingView>>;
    pub async fn apply_booking_action(&self, tenant: &TenantId, id: Uuid, action: BookingAction, actor: &Actor, now: Timestamp, idem: Option<IdempotentFinish<'_>>) -> StoreResult<Booking>;
    /// Expires overdue holds of every tenant (hold expiry worker).
    pub async fn expire_overdue_holds(&self, now: Timestamp, batch: i64) -> StoreResult<u64>;
    pub async fn search_bookings(&self, tenant: &TenantId, filter: BookingFilter, sort: BookingSort, descending: bool, page: u32, limit: u32) -> StoreResult<BookingPage>;
    pub async fn bookings_of_customer(&self, tenant: &TenantId, account: Option<Uuid>, email: Option<String>, phone: Option<String>) -> StoreResult<Vec<BookingView>>;
    pub async fn update_booking_customer(&self, tenant: &TenantId, id: Uuid, patch: BookingCustomerPatch, actor: &Actor, now: Timestamp) -> StoreResult<Booking>;
    pub async fn list_payments(&self, tenant: &TenantId, booking: Uuid) -> StoreResult<Vec<Payment>>;
    pub async fn create_note(&self, tenant: &TenantId, booking: Uuid, new: NewNote, actor: &Actor, now: Timestamp) -> StoreResult<BookingNote>;
    pub async fn list_notes(&self, tenant: &TenantId, bookings: Vec<Uuid>) -> StoreResult<Vec<BookingNote>>;
    pub async fn update_note(&self, tenant: &TenantId, booking: Uuid, id: Uuid, new: NewNote, actor: &Actor, now: Timestamp) -> StoreResult<BookingNote>;
    pub async fn delete_note(&self, tenant: &TenantId, booking: Uuid, id: Uuid, actor: &Actor, now: Timestamp) -> StoreResult<()>;
    /// The tenant's outbox messages, oldest first: (kind, payload, status).
    pub async fn list_outbox(&self, tenant: &TenantId) -> StoreResult<Vec<(String, serde_json::Value, String)>>;
    /// Slots whose booked count differs from the seats of their bookings (should be none).
    pub async fn capacity_mismatches(&self, tenant: &TenantId) -> StoreResult<Vec<(Uuid, i64, i64)>>;

    // audit log
    pub async fn list_audit(&self, tenant: &TenantId, entity_type: &str, entity_id: &str) -> StoreResult<Vec<AuditEntry>>;
}

pub use uuid::Uuid;
