//! `kairos-bench`: load benchmarks that print their figures.
//!
//! Each run starts the real application in this process on a fresh database (SQLite by
//! default, PostgreSQL with `--postgres URL`), seeds it, drives it over HTTP on loopback
//! with a built-in load generator and prints throughput and latency percentiles next to
//! the ceiling measured in the same run (`/healthz` of the same server), with the ratio.

use anyhow::{Context, bail};
use clap::{Parser, Subcommand};
use hdrhistogram::Histogram;
use http_body_util::{BodyExt, Empty};
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;
use kairos_api::auth::tokens::TokenKeys;
use kairos_api::rate_limit::{Limits, RateLimiter};
use kairos_api::{ApiConfig, AppState};
use kairos_domain::{Clock, SystemClock, TenantId};
use kairos_store::{Actor, NewProduct, NewSite, NewTemplate, NewTenant, Store};
use kairos_testkit::TestDb;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

#[derive(Debug, Parser)]
#[command(name = "kairos-bench", about = "Kairos load benchmarks")]
struct Cli {
    /// Run on a fresh database on this PostgreSQL server (e.g. postgres://postgres@127.0.0.1:5432/postgres).
    #[arg(long, global = true)]
    postgres: Option<String>,
    /// Concurrent connections.
    #[arg(long, global = true, default_value_t = 16)]
    connections: usize,
    /// Milliseconds availability answers may be served from memory (as KAIROS_AVAILABILITY_CACHE_MS; 0 = off).
    #[arg(long, global = true, default_value_t = 1000)]
    cache_ms: u64,
    /// Seconds each measured phase lasts.
    #[arg(long, global = true, default_value_t = 10)]
    seconds: u64,
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// GET /availability (7-day range) over 20 products with 60 days of slots.
    Availability,
}

/// Figures of one measured phase.
struct Phase {
    requests: u64,
    errors: u64,
    elapsed: Duration,
    latency: Histogram<u64>,
}

impl Phase {
    fn rate(&self) -> f64 {
        self.requests as f64 / self.elapsed.as_secs_f64()
    }

    fn print(&self, name: &str) {
        println!(
            "{name:<14} {:>9.0} req/s  p50 {:>6.2} ms  p99 {:>6.2} ms  max {:>7.2} ms  requests {:>8}  errors {}",
            self.rate(),
            self.latency.value_at_quantile(0.50) as f64 / 1000.0,
            self.latency.value_at_quantile(0.99) as f64 / 1000.0,
            self.latency.max() as f64 / 1000.0,
            self.requests,
            self.errors
        );
    }
}

/// Sends GETs to `paths` (round robin) from `connections` tasks for `duration`.
async fn drive(
    addr: SocketAddr,
    headers: Vec<(&'static str, String)>,
    paths: Arc<Vec<String>>,
    connections: usize,
    duration: Duration,
) -> anyhow::Result<Phase> {
    let start = Instant::now();
    let deadline = start + duration;
    let mut tasks = Vec::new();
    for worker in 0..connections {
        let paths = paths.clone();
        let headers = headers.clone();
        tasks.push(tokio::spawn(async move {
            let mut connector = HttpConnector::new();
            connector.set_nodelay(true);
            let client: Client<_, Empty<bytes::Bytes>> = Client::builder(TokioExecutor::new())
                .pool_max_idle_per_host(1)
                .build(connector);
            let mut hist = Histogram::<u64>::new_with_bounds(1, 60_000_000, 3)?;
            let (mut ok, mut errors) = (0u64, 0u64);
            let mut i = worker;
            while Instant::now() < deadline {
                let path = &paths[i % paths.len()];
                i += 1;
                let mut req = hyper::Request::get(format!("http://{addr}{path}"));
                for (k, v) in &headers {
                    req = req.header(*k, v);
                }
                let req = req.body(Empty::new())?;
                let sent = Instant::now();
                match client.request(req).await {
                    Ok(res) => {
                        let status = res.status();
                        let body = res.into_body().collect().await;
                        hist.record(sent.elapsed().as_micros().max(1) as u64)?;
                        if status.is_success() && body.is_ok() {
                            ok += 1;
                        } else {
                            errors += 1;
                        }
                    }
                    Err(_) => errors += 1,
                }
            }
            anyhow::Ok((ok, errors, hist))
        }));
    }
    let mut latency = Histogram::<u64>::new_with_bounds(1, 60_000_000, 3)?;
    let (mut requests, mut errors) = (0, 0);
    for t in tasks {
        let (ok, err, hist) = t.await??;
        requests += ok + err;
        errors += err;
        latency.add(hist)?;
    }
    Ok(Phase {
        requests,
        errors,
        elapsed: start.elapsed(),
        latency,
    })
}

/// The application on its own port, as `kairos serve` runs it, with limits off.
async fn start_server(store: Store, cache_ms: u64) -> anyhow::Result<SocketAddr> {
    let state = AppState::new(
        store,
        Arc::new(SystemClock),
        TokenKeys::from_secret(b"kairos-bench-signing-key-0123456789"),
        RateLimiter::in_memory(Limits {
            strict: 0,
            standard: 0,
            relaxed: 0,
        }),
        kairos_api::operations::install_metrics(),
        ApiConfig {
            availability_cache_ttl: Duration::from_millis(cache_ms),
            ..ApiConfig::default()
        },
    );
    let app = kairos_api::router(state);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let addr = listener.local_addr()?;
    tokio::spawn(async move {
        let _ = axum::serve(
            listener,
            app.into_make_service_with_connect_info::<SocketAddr>(),
        )
        .await;
    });
    Ok(addr)
}

/// 20 products on one Helsinki site open 09:00-21:00 daily, hourly 60-minute slots.
async fn seed_availability(store: &Store) -> anyhow::Result<(TenantId, Vec<(String, String)>)> {
    let now = SystemClock.now();
    let tenant = TenantId::parse("bench")?;
    store
        .create_tenant(
            NewTenant {
                id: tenant.clone(),
                name: "Bench".into(),
                currency: "EUR".into(),
                timezone: "Europe/Helsinki".into(),
            },
            now,
        )
        .await?;
    let actor = Actor::system("bench");
    let site = store
        .create_site(
            &tenant,
            NewSite {
                name: "Bench site".into(),
                timezone: "Europe/Helsinki".into(),
                currency: "EUR".into(),
                locale: "en".into(),
                address: None,
                contact_email: None,
                contact_phone: None,
                hold_ttl_minutes: None,
                cancellation_policy: "standard".into(),
            },
            &actor,
            now,
        )
        .await?;
    let mut products = Vec::new();
    for i in 0..20 {
        let p = store
            .create_product(
                &tenant,
                NewProduct {
                    site_id: site.id,
                    name: format!("Activity {i}"),
                    description: String::new(),
                    duration_mins: 60,
                    capacity: 12,
                    base_price: 2_500,
                    price_type: "per_person".into(),
                    tax_rate_bp: 2_400,
                    prices_include_tax: true,
                    slot_policy: "interval".into(),
                    slot_interval_min: 60,
                    fixed_slot_times: Vec::new(),
                    setup_time: 0,
                    cleanup_time: 0,
                    label_codes: vec!["beginner_friendly".into()],
                    requires_waiver: false,
                },
                &actor,
                now,
            )
            .await?;
        products.push((p.id.to_string(), site.id.to_string()));
    }
    let changed = store
        .create_template(
            &tenant,
            NewTemplate {
                scope_type: "site".into(),
                scope_id: site.id,
                day_of_week: None,
                start_time: "09:00".into(),
                end_time: "21:00".into(),
                recurrence_kind: "daily".into(),
                by_day: None,
                by_month: None,
                by_month_day: None,
                exdates: Vec::new(),
                valid_from: None,
                valid_to: None,
            },
            &actor,
            now,
        )
        .await?;
    println!(
        "seeded: 20 products, {} slots over 60 days",
        changed.regeneration.created
    );
    Ok((tenant, products))
}

async fn availability(cli: &Cli, store: Store) -> anyhow::Result<()> {
    let seeded = Instant::now();
    let (tenant, products) = seed_availability(&store).await?;
    println!("seeding took {:.1} s", seeded.elapsed().as_secs_f64());
    let addr = start_server(store, cli.cache_ms).await?;
    let today = chrono::Utc::now().date_naive();
    let paths: Vec<String> = (0..7)
        .flat_map(|offset| {
            let from = today + chrono::Duration::days(offset + 1);
            let to = from + chrono::Duration::days(6);
            products.iter().map(move |(p, s)| format!("/api/v1/availability?product_id={p}&site_id={s}&date_from={from}&date_to={to}&party_size=2"))
        })
        .collect();
    let paths = Arc::new(paths);
    let duration = Duration::from_secs(cli.seconds);
    let tenant_header = vec![("x-tenant-id", tenant.to_string())];

    // Warm up connections, caches and the database.
    drive(
        addr,
        tenant_header.clone(),
        paths.clone(),
        cli.connections,
        Duration::from_secs(1),
    )
    .await?;
    let health = drive(
        addr,
        Vec::new(),
        Arc::new(vec!["/healthz".to_owned()]),
        cli.connections,
        duration,
    )
    .await?;
    let avail = drive(addr, tenant_header, paths, cli.connections, duration).await?;

    println!(
        "connections {} · {} s per phase",
        cli.connections, cli.seconds
    );
    health.print("/healthz");
    avail.print("/availability");
    let ratio = avail.rate() / health.rate();
    let p99_ms = avail.latency.value_at_quantile(0.99) as f64 / 1000.0;
    println!(
        "ratio availability / healthz: {:.1} % (target >= 25 %)",
        ratio * 100.0
    );
    println!(
        "availability p99: {p99_ms:.2} ms (target < 20 ms); errors: {} (target 0)",
        avail.errors + health.errors
    );
    if avail.errors + health.errors > 0 {
        bail!("requests failed during the run");
    }
    Ok(())
}

fn main() -> anyhow::Result<()> {
    let cli = Cli::parse();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async {
        let db = TestDb::create_on(cli.postgres.as_deref()).await;
        let backend = if cli.postgres.is_some() {
            "PostgreSQL"
        } else {
            "SQLite"
        };
        println!("backend: {backend}");
        let store = Store::open(&kairos_store::ConnectOptions::new(db.url()))
            .await
            .context("opening the database")?;
        let result = match cli.command {
            Command::Availability => availability(&cli, store.clone()).await,
        };
        store.close().await;
        drop(db);
        result
    })
}
