//! `kairos`: the booking engine's single binary (API server, workers, administration).
//!
//! Every argument that can come from the environment hides its value in `--help`
//! (`hide_env_values`): clap would otherwise print it, and a database URL or a password
//! is a secret.

use kairos_server::payments::{kept_secret, kept_secret_box};
use kairos_server::{config, demo, payments, workers};

use anyhow::{Context, bail};
use clap::{Args, Parser, Subcommand};
use config::{Config, LogFormat};
use kairos_api::auth::passwords;
use kairos_api::auth::tokens::TokenKeys;
use kairos_api::rate_limit::{Limits, RateLimiter};
use kairos_api::{ApiConfig, AppState};
use kairos_domain::auth::{Role, validate_password, validate_username};
use kairos_domain::tenancy::{Currency, parse_time_zone};
use kairos_domain::{Clock, SystemClock, TenantId};
use kairos_store::{
    Actor, ConnectOptions, NewAdminUser, NewTenant, StaffError, Store, TenancyError,
};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use tokio::sync::watch;

#[derive(Debug, Parser)]
#[command(name = "kairos", version, about = "Booking engine for activity venues")]
struct Cli {
    /// Configuration file (TOML); default ./kairos.toml when present.
    #[arg(long, global = true, env = "KAIROS_CONFIG", hide_env_values = true)]
    config: Option<PathBuf>,
    #[command(flatten)]
    db: DbArgs,
    #[command(subcommand)]
    command: Command,
}

/// Database options shared by every command.
#[derive(Debug, Args)]
struct DbArgs {
    /// Database URL: sqlite:PATH or postgres://… (default: SQLite in the data directory).
    #[arg(long, global = true, env = "DATABASE_URL", hide_env_values = true)]
    database_url: Option<String>,
    /// Directory of the embedded SQLite database.
    #[arg(long, global = true, env = "KAIROS_DATA_DIR", hide_env_values = true)]
    data_dir: Option<PathBuf>,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Run the HTTP API and the background workers.
    Serve(ServeArgs),
    /// Run the background workers only.
    Worker,
    /// Apply database migrations and exit.
    Migrate,
    /// Tenant administration.
    Tenant {
        #[command(subcommand)]
        command: TenantCommand,
    },
    /// Staff account administration.
    Admin {
        #[command(subcommand)]
        command: AdminCommand,
    },
    /// Create the demo tenant (on any database).
    Demo,
    /// Print the OpenAPI document.
    Openapi,
}

#[derive(Debug, Args)]
struct ServeArgs {
    /// Address to listen on.
    #[arg(long, env = "KAIROS_LISTEN", hide_env_values = true)]
    listen: Option<String>,
    /// Do not create the demo tenant on the embedded database.
    #[arg(long)]
    no_demo: bool,
    /// Serve the API without background workers (run `kairos worker` elsewhere).
    #[arg(long)]
    no_workers: bool,
}

#[derive(Debug, Subcommand)]
enum TenantCommand {
    /// Create a tenant.
    Create {
        /// Tenant id (letters, digits, '-', '_'; sent as x-tenant-id).
        #[arg(long)]
        id: String,
        #[arg(long)]
        name: String,
        /// ISO 4217 currency.
        #[arg(long, default_value = "EUR")]
        currency: String,
        /// IANA time zone.
        #[arg(long, default_value = "UTC")]
        timezone: String,
    },
}

#[derive(Debug, Subcommand)]
enum AdminCommand {
    /// Create a staff account.
    Create {
        #[arg(long)]
        tenant: String,
        #[arg(long)]
        username: String,
        /// Read the password from standard input (preferred; a trailing newline is
        /// dropped), e.g. `printf '%s' "$PW" | kairos admin create … --password-stdin`.
        #[arg(long, conflicts_with = "password")]
        password_stdin: bool,
        /// The password. Prefer --password-stdin or KAIROS_ADMIN_PASSWORD: a command
        /// line is visible to other users of the machine and kept in shell history.
        #[arg(long, env = "KAIROS_ADMIN_PASSWORD", hide_env_values = true)]
        password: Option<String>,
        /// owner, manager, front_desk or viewer.
        #[arg(long, default_value = "owner")]
        role: String,
        #[arg(long)]
        display_name: Option<String>,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    kairos_app::http::install_crypto_provider();
    let mut config = match Config::load(cli.config.as_deref()) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("error: invalid configuration: {e}");
            return ExitCode::from(2);
        }
    };
    if let Some(url) = cli.db.database_url.clone() {
        config.database_url = Some(url);
    }
    if let Some(dir) = cli.db.data_dir.clone() {
        config.data_dir = dir;
    }
    if let Err(e) = config.cors() {
        eprintln!("error: invalid configuration: {e}");
        return ExitCode::from(2);
    }
    init_logging(&config);
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("error: cannot start the runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(run(cli.command, config)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

fn init_logging(config: &Config) {
    use std::io::IsTerminal;
    use tracing_subscriber::EnvFilter;
    let filter = EnvFilter::try_from_default_env()
        .or_else(|_| EnvFilter::try_new(&config.log_level))
        .unwrap_or_else(|_| EnvFilter::new("info"));
    // Colour codes help a person at a terminal; in a file, a pipe or a log collector they
    // are noise. NO_COLOR (https://no-color.org) turns them off at a terminal too.
    let ansi = std::io::stderr().is_terminal()
        && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty());
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(ansi)
        .with_writer(std::io::stderr);
    let _ = match config.log_format {
        LogFormat::Json => builder.json().try_init(),
        LogFormat::Text => builder.try_init(),
    };
}

/// How long a command waits for the database while a running server writes to it.
const COMMAND_LOCK_WAIT: std::time::Duration = std::time::Duration::from_secs(120);
/// How long a request of the server waits for a write of another process.
const SERVER_LOCK_WAIT: std::time::Duration = std::time::Duration::from_secs(5);

async fn open_store(
    config: &Config,
    lock_wait: std::time::Duration,
) -> anyhow::Result<(Store, String, bool)> {
    let (url, embedded) = config.database();
    if embedded {
        std::fs::create_dir_all(&config.data_dir)
            .with_context(|| format!("creating data directory {}", config.data_dir.display()))?;
    }
    let mut opts = ConnectOptions::new(url.clone());
    opts.max_connections = config.max_connections;
    // Commands run beside a live server on the same SQLite file: they wait their turn to
    // write instead of failing with "database is locked". The server's requests wait
    // less, since a request should not queue for minutes.
    opts.busy_timeout = lock_wait;
    // The message of a `ConnectError` already ends with its cause: as an error chain the
    // cause would be printed twice.
    let store = Store::open(&opts)
        .await
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    Ok((store, url, embedded))
}

async fn run(command: Command, config: Config) -> anyhow::Result<()> {
    match command {
        Command::Openapi => {
            println!(
                "{}",
                serde_json::to_string_pretty(&kairos_api::openapi_json())?
            );
            Ok(())
        }
        Command::Migrate => {
            let (store, url, _) = open_store(&config, COMMAND_LOCK_WAIT).await?;
            store.close().await;
            println!("migrations applied to {}", config::redact_url(&url));
            Ok(())
        }
        Command::Demo => {
            let (store, _, _) = open_store(&config, COMMAND_LOCK_WAIT).await?;
            let secrets = kept_secret_box(&config, &store).await?;
            match demo::ensure(&store, &secrets, SystemClock.now()).await? {
                Some(created) => println!("{}", demo::describe(&created)),
                None => println!("demo tenant '{}' already exists", demo::TENANT_ID),
            }
            store.close().await;
            Ok(())
        }
        Command::Tenant {
            command:
                TenantCommand::Create {
                    id,
                    name,
                    currency,
                    timezone,
                },
        } => {
            let id = TenantId::parse(&id).map_err(|e| anyhow::anyhow!("--id {e}"))?;
            let currency =
                Currency::parse(&currency).map_err(|e| anyhow::anyhow!("--currency: {e}"))?;
            parse_time_zone(&timezone).map_err(|e| anyhow::anyhow!("--timezone: {e}"))?;
            if name.trim().is_empty() {
                bail!("--name must not be empty");
            }
            let (store, _, _) = open_store(&config, COMMAND_LOCK_WAIT).await?;
            let tenant = NewTenant {
                id: id.clone(),
                name: name.trim().to_owned(),
                currency: currency.code().to_owned(),
                timezone: timezone.trim().to_owned(),
            };
            let result = store.create_tenant(tenant, SystemClock.now()).await;
            store.close().await;
            match result {
                Ok(t) => {
                    println!("tenant '{}' created ({}, {})", t.id, t.currency, t.timezone);
                    Ok(())
                }
                Err(TenancyError::TenantExists) => bail!("tenant '{id}' already exists"),
                Err(e) => Err(e.into()),
            }
        }
        Command::Admin {
            command:
                AdminCommand::Create {
                    tenant,
                    username,
                    password_stdin,
                    password,
                    role,
                    display_name,
                },
        } => {
            let tenant = TenantId::parse(&tenant).map_err(|e| anyhow::anyhow!("--tenant {e}"))?;
            validate_username(&username).map_err(|e| anyhow::anyhow!("--username {e}"))?;
            let password = match (password_stdin, password) {
                (true, _) => read_password_stdin()?,
                (false, Some(password)) => password,
                (false, None) => bail!(
                    "no password: give it on standard input with --password-stdin, \
                     or in KAIROS_ADMIN_PASSWORD"
                ),
            };
            validate_password(&password).map_err(|e| anyhow::anyhow!("the password {e}"))?;
            let role = Role::parse(&role).ok_or_else(|| {
                anyhow::anyhow!(
                    "--role '{role}' is not a role (owner, manager, front_desk, viewer)"
                )
            })?;
            let (store, _, _) = open_store(&config, COMMAND_LOCK_WAIT).await?;
            if store.get_tenant(&tenant).await?.is_none() {
                store.close().await;
                bail!("tenant '{tenant}' does not exist (create it with `kairos tenant create`)");
            }
            let hash = passwords::hash_blocking(&password).map_err(|e| anyhow::anyhow!("{e}"))?;
            let new = NewAdminUser {
                display_name: display_name.unwrap_or_else(|| username.clone()),
                username: username.clone(),
                email: None,
                password_hash: hash,
                roles: vec![role],
            };
            let result = store
                .create_admin_user(
                    &tenant,
                    new,
                    &Actor::system("kairos admin create"),
                    SystemClock.now(),
                )
                .await;
            store.close().await;
            match result {
                Ok(u) => {
                    println!(
                        "administrator '{}' created in tenant '{tenant}' with role {role} (id {})",
                        u.username, u.id
                    );
                    Ok(())
                }
                Err(StaffError::UsernameTaken) => {
                    bail!("username '{username}' already exists in tenant '{tenant}'")
                }
                Err(e) => Err(e.into()),
            }
        }
        Command::Worker => {
            let (store, _, _) = open_store(&config, COMMAND_LOCK_WAIT).await?;
            let mailer = Arc::new(config.mailer()?);
            tracing::info!("messages: {}", mailer.describe());
            let secrets = kept_secret_box(&config, &store).await?;
            let clock: Arc<dyn Clock> = Arc::new(SystemClock);
            // The jobs reach payment providers as the API does; no HTTP layer.
            let app =
                kairos_app::App::new(store.clone(), clock, payments::settings(&config, secrets)?);
            let (tx, rx) = watch::channel(false);
            let handle = tokio::spawn(workers::run(app, mailer, rx));
            tracing::info!("kairos workers running; press Ctrl-C to stop");
            shutdown_signal().await;
            let _ = tx.send(true);
            let _ = handle.await;
            store.close().await;
            Ok(())
        }
        Command::Serve(args) => serve(args, config).await,
    }
}

async fn serve(args: ServeArgs, mut config: Config) -> anyhow::Result<()> {
    if let Some(listen) = args.listen {
        config.listen = listen;
    }
    let cors = config
        .cors()
        .map_err(|e| anyhow::anyhow!("invalid configuration: {e}"))?;
    let trusted_proxies = config
        .trusted_proxies()
        .map_err(|e| anyhow::anyhow!("invalid configuration: {e}"))?;
    for (name, value) in [
        (
            "KAIROS_HTTP_MAX_CONNECTIONS",
            config.http_max_connections as u64,
        ),
        (
            "KAIROS_HTTP_HEADER_TIMEOUT_MS",
            config.http_header_timeout_ms,
        ),
        ("KAIROS_HTTP_BODY_TIMEOUT_MS", config.http_body_timeout_ms),
    ] {
        if value == 0 {
            bail!("invalid configuration: {name} must be at least 1");
        }
    }
    let (store, url, embedded) = open_store(&config, SERVER_LOCK_WAIT).await?;
    let clock: Arc<dyn Clock> = Arc::new(SystemClock);

    let secret = kept_secret(
        &store,
        config.jwt_secret.as_deref(),
        "KAIROS_JWT_SECRET",
        "jwt_signing_key",
    )
    .await?;
    let secrets = kept_secret_box(&config, &store).await?;
    let payments = payments::settings(&config, secrets.clone())?;
    let limits = Limits {
        strict: config.rate_limit_strict,
        standard: config.rate_limit_standard,
        relaxed: config.rate_limit_relaxed,
        notification_read: config.rate_limit_notification_read,
        notification_write: config.rate_limit_notification_write,
    };
    let limiter = match &config.redis_url {
        Some(redis) => RateLimiter::redis(limits, redis, "kairos:rl:")
            .await
            .with_context(|| format!("connecting to Redis at {}", config::redact_url(redis)))?,
        None => RateLimiter::in_memory(limits),
    };

    let demo_created = if embedded && !args.no_demo {
        demo::ensure(&store, &secrets, clock.now()).await?
    } else {
        None
    };

    let state = AppState::new(
        store.clone(),
        clock.clone(),
        TokenKeys::from_secret(secret.as_bytes()),
        limiter,
        kairos_api::operations::install_metrics(),
        ApiConfig {
            cors,
            body_limit_bytes: config.body_limit_bytes,
            body_read_timeout: std::time::Duration::from_millis(config.http_body_timeout_ms),
            trust_forwarded_for: config.trust_forwarded_for,
            availability_cache_ttl: std::time::Duration::from_millis(config.availability_cache_ms),
            password_hash_wait: std::time::Duration::from_millis(config.password_hash_wait_ms),
            password_hash_concurrency: match config.password_hash_concurrency {
                0 => ApiConfig::default().password_hash_concurrency,
                n => n,
            },
            holds_per_customer: config.holds_per_customer,
            holds_per_address: config.holds_per_address,
            payments,
            ..ApiConfig::default()
        },
    );
    let app = kairos_api::router(state.clone());
    let listener = tokio::net::TcpListener::bind(&config.listen)
        .await
        .with_context(|| format!("cannot listen on {}", config.listen))?;
    // The bound address, not the configured one: `--listen 127.0.0.1:0` picks a port.
    let addr = listener.local_addr()?;

    // The banner is logged, not printed, so that it lands with the rest of the output in
    // the log format and stream chosen (JSON to a collector, text to a terminal).
    tracing::info!(
        address = %addr,
        database = %config::redact_url(&url),
        "Kairos {} listening on http://{addr} (API docs: http://{addr}/docs)",
        env!("CARGO_PKG_VERSION"),
    );
    match &demo_created {
        Some(created) => tracing::info!(
            tenant_id = %demo::TENANT_ID,
            site = %created.site,
            products = %created.products.join(", "),
            "demo tenant created: {}",
            demo::credentials(),
        ),
        None if embedded && !args.no_demo => tracing::info!(
            tenant_id = %demo::TENANT_ID,
            "demo tenant: {} (unless changed)",
            demo::credentials(),
        ),
        None => {}
    }
    tracing::info!("ready; press Ctrl-C to stop");

    let mailer = Arc::new(config.mailer()?);
    if !args.no_workers {
        tracing::info!("messages: {}", mailer.describe());
    }
    let (stop_tx, stop_rx) = watch::channel(false);
    let worker =
        (!args.no_workers).then(|| tokio::spawn(workers::run(state.app.clone(), mailer, stop_rx)));
    let limits = kairos_api::ConnectionLimits {
        max_connections: config.http_max_connections,
        max_connections_per_address: config.http_max_connections_per_address,
        trusted_proxies,
        header_timeout: std::time::Duration::from_millis(config.http_header_timeout_ms),
        ..kairos_api::ConnectionLimits::default()
    };
    kairos_api::serve(listener, app, limits, shutdown_signal()).await;
    let _ = stop_tx.send(true);
    if let Some(w) = worker {
        let _ = w.await;
    }
    store.close().await;
    tracing::info!("shut down cleanly");
    Ok(())
}

/// Reads a password from standard input, dropping the line break that ends it.
fn read_password_stdin() -> anyhow::Result<String> {
    use std::io::{IsTerminal, Read};
    let mut stdin = std::io::stdin();
    // A terminal would echo the password as it is typed.
    if stdin.is_terminal() {
        bail!("--password-stdin reads a pipe or a file, not a terminal");
    }
    let mut password = String::new();
    stdin
        .read_to_string(&mut password)
        .context("reading the password from standard input")?;
    let end = password
        .strip_suffix('\n')
        .map(|p| p.strip_suffix('\r').unwrap_or(p))
        .unwrap_or(&password)
        .len();
    password.truncate(end);
    Ok(password)
}

/// Hides the password of a database or Redis URL.
async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        _ = ctrl_c => {},
        _ = terminate => {},
    }
    tracing::info!("shutdown requested; finishing requests in flight");
}

#[cfg(test)]
mod tests {
    use super::config;

    #[test]
    fn passwords_are_hidden_in_printed_urls() {
        assert_eq!(
            config::redact_url("postgres://kairos:s3cret@db:5432/k"),
            "postgres://kairos:***@db:5432/k"
        );
        assert_eq!(
            config::redact_url("postgres://postgres@127.0.0.1/k"),
            "postgres://postgres@127.0.0.1/k"
        );
        assert_eq!(
            config::redact_url("sqlite://./data/kairos.db"),
            "sqlite://./data/kairos.db"
        );
    }
}
