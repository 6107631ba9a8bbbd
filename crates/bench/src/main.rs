//! `kairos-bench`: load benchmarks that print their figures.
//!
//! Each run starts the real application in this process on a fresh database (SQLite by
//! default, PostgreSQL with `--postgres URL`), seeds it, drives it over HTTP on loopback
//! with a built-in load generator and prints throughput and latency percentiles next to
//! the ceiling measured in the same run (`/healthz` of the same server, or for holds the
//! same store operation called directly), with the ratio.

use anyhow::{Context, bail};
use bytes::Bytes;
use clap::{Parser, Subcommand};
use hdrhistogram::Histogram;
use http_body_util::{BodyExt, Full};
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;
use kairos_api::auth::tokens::TokenKeys;
use kairos_api::rate_limit::{Limits, RateLimiter};
use kairos_api::{ApiConfig, AppState};
use kairos_domain::auth::ActorKind;
use kairos_domain::bookings::{BookingSource, BookingStatus};
use kairos_domain::scheduling::{RecurrenceKind, ScopeType};
use kairos_domain::{Clock, SystemClock, TenantId};
use kairos_store::{
    Actor, BookingCustomer, NewBooking, NewProduct, NewSite, NewTemplate, NewTenant, SeatPolicy,
    SlotChoice, Store,
};
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
    /// Seconds each measured phase lasts (default: 10 for availability, 5 for holds).
    #[arg(long, global = true)]
    seconds: Option<u64>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// GET /availability (7-day range) over 20 products with 60 days of slots.
    Availability,
    /// POST /bookings/hold (party 1) on hundreds of slots, then on one slot, next to the
    /// same store operation called directly.
    Holds,
}

/// Figures of one measured phase.
struct Phase {
    requests: u64,
    errors: u64,
    elapsed: Duration,
    latency: Histogram<u64>,
}

impl Phase {
    fn empty() -> anyhow::Result<Phase> {
        Ok(Phase {
            requests: 0,
            errors: 0,
            elapsed: Duration::ZERO,
            latency: Histogram::new_with_bounds(1, 60_000_000, 3)?,
        })
    }

    /// Adds the figures of another run of the same phase.
    fn absorb(&mut self, other: Phase) -> anyhow::Result<()> {
        self.requests += other.requests;
        self.errors += other.errors;
        self.elapsed += other.elapsed;
        self.latency.add(other.latency)?;
        Ok(())
    }

    fn rate(&self) -> f64 {
        self.requests as f64 / self.elapsed.as_secs_f64()
    }

    fn print(&self, name: &str) {
        self.print_as(name, "req/s");
    }

    fn print_as(&self, name: &str, unit: &str) {
        println!(
            "{name:<14} {:>9.0} {unit}  p50 {:>6.2} ms  p99 {:>6.2} ms  max {:>7.2} ms  requests {:>8}  errors {}",
            self.rate(),
            self.latency.value_at_quantile(0.50) as f64 / 1000.0,
            self.latency.value_at_quantile(0.99) as f64 / 1000.0,
            self.latency.max() as f64 / 1000.0,
            self.requests,
            self.errors
        );
    }
}

/// Builds the request a connection sends next, from its worker number and the number of
/// requests it sent before.
type MakeRequest =
    Arc<dyn Fn(usize, u64) -> anyhow::Result<hyper::Request<Full<Bytes>>> + Send + Sync>;

/// Sends GETs to `paths` (round robin) from `connections` tasks for `duration`.
async fn drive(
    addr: SocketAddr,
    headers: Vec<(&'static str, String)>,
    paths: Arc<Vec<String>>,
    connections: usize,
    duration: Duration,
) -> anyhow::Result<Phase> {
    let make: MakeRequest = Arc::new(move |worker, i| {
        let path = &paths[(worker + usize::try_from(i)?) % paths.len()];
        let mut req = hyper::Request::get(format!("http://{addr}{path}"));
        for (k, v) in &headers {
            req = req.header(*k, v);
        }
        Ok(req.body(Full::new(Bytes::new()))?)
    });
    load(make, 0, |s| s.is_success(), connections, duration).await
}

/// Sends the requests `make` builds from `connections` tasks (one keep-alive connection
/// each) for `duration`, numbering each task's requests from `first`; answers for which
/// `ok` is false count as errors.
async fn load(
    make: MakeRequest,
    first: u64,
    ok: fn(hyper::StatusCode) -> bool,
    connections: usize,
    duration: Duration,
) -> anyhow::Result<Phase> {
    let start = Instant::now();
    let deadline = start + duration;
    let mut tasks = Vec::new();
    for worker in 0..connections {
        let make = make.clone();
        tasks.push(tokio::spawn(async move {
            let mut connector = HttpConnector::new();
            connector.set_nodelay(true);
            let client: Client<_, Full<Bytes>> = Client::builder(TokioExecutor::new())
                .pool_max_idle_per_host(1)
                .build(connector);
            let mut hist = Histogram::<u64>::new_with_bounds(1, 60_000_000, 3)?;
            let (mut good, mut errors) = (0u64, 0u64);
            let mut i = first;
            while Instant::now() < deadline {
                let req = make(worker, i)?;
                i += 1;
                let sent = Instant::now();
                match client.request(req).await {
                    Ok(res) => {
                        let status = res.status();
                        let body = res.into_body().collect().await;
                        hist.record(sent.elapsed().as_micros().max(1) as u64)?;
                        if ok(status) && body.is_ok() {
                            good += 1;
                        } else {
                            errors += 1;
                        }
                    }
                    Err(_) => errors += 1,
                }
            }
            anyhow::Ok((good, errors, hist))
        }));
    }
    let mut latency = Histogram::<u64>::new_with_bounds(1, 60_000_000, 3)?;
    let (mut requests, mut errors) = (0, 0);
    for t in tasks {
        let (good, err, hist) = t.await??;
        requests += good + err;
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

/// The "bench" tenant with one Helsinki site.
async fn seed_site(store: &Store) -> anyhow::Result<(TenantId, kairos_store::Site)> {
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
                cancellation_policy: kairos_domain::catalog::CancellationPolicy::Standard,
            },
            &Actor::system("bench"),
            now,
        )
        .await?;
    Ok((tenant, site))
}

/// A product of the bench site: 60-minute slots every 60 minutes, 25.00 per person.
fn bench_product(site: &kairos_store::Site, name: String, capacity: i32) -> NewProduct {
    NewProduct {
        site_id: site.id,
        name,
        description: String::new(),
        duration_mins: 60,
        capacity,
        base_price: 2_500,
        price_type: kairos_domain::pricing::PriceType::PerPerson,
        tax_rate_bp: 2_400,
        prices_include_tax: true,
        slot_policy: kairos_domain::catalog::SlotPolicyKind::Interval,
        slot_interval_min: 60,
        fixed_slot_times: Vec::new(),
        setup_time: 0,
        cleanup_time: 0,
        label_codes: vec!["beginner_friendly".into()],
        requires_waiver: false,
    }
}

/// Opens the bench site daily from `start` to `end` (slots are generated for 60 days).
async fn open_daily(
    store: &Store,
    tenant: &TenantId,
    site: &kairos_store::Site,
    start: &str,
    end: &str,
) -> anyhow::Result<usize> {
    let changed = store
        .create_template(
            tenant,
            NewTemplate {
                scope_type: ScopeType::Site,
                scope_id: site.id,
                day_of_week: None,
                start_time: start.into(),
                end_time: end.into(),
                recurrence_kind: RecurrenceKind::Daily,
                by_day: None,
                by_month: None,
                by_month_day: None,
                exdates: Vec::new(),
                valid_from: None,
                valid_to: None,
            },
            &Actor::system("bench"),
            SystemClock.now(),
        )
        .await?;
    Ok(changed.regeneration.created)
}

/// 20 products on one Helsinki site open 09:00-21:00 daily, hourly 60-minute slots.
async fn seed_availability(store: &Store) -> anyhow::Result<(TenantId, Vec<(String, String)>)> {
    let now = SystemClock.now();
    let (tenant, site) = seed_site(store).await?;
    let actor = Actor::system("bench");
    let mut products = Vec::new();
    for i in 0..20 {
        let p = store
            .create_product(
                &tenant,
                bench_product(&site, format!("Activity {i}"), 12),
                &actor,
                now,
            )
            .await?;
        products.push((p.id.to_string(), site.id.to_string()));
    }
    let created = open_daily(store, &tenant, &site, "09:00", "21:00").await?;
    println!("seeded: 20 products, {created} slots over 60 days");
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
    let seconds = cli.seconds.unwrap_or(10);
    let duration = Duration::from_secs(seconds);
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

    println!("connections {} · {seconds} s per phase", cli.connections);
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

/// Slots each spread phase books on (random among them, per request).
const SPREAD_SLOTS: usize = 400;

/// The hold benchmark's catalog: one product of capacity 1,000,000 on a site open
/// 06:00-23:00 daily, so no slot ever runs out.
struct HoldSeed {
    tenant: TenantId,
    site: kairos_store::Site,
    product: kairos_store::Product,
    /// Future slots in start order, each used by one phase only.
    slots: Vec<uuid::Uuid>,
}

async fn seed_holds(store: &Store) -> anyhow::Result<HoldSeed> {
    let now = SystemClock.now();
    let (tenant, site) = seed_site(store).await?;
    let product = store
        .create_product(
            &tenant,
            bench_product(&site, "Hold bench".into(), 1_000_000),
            &Actor::system("bench"),
            now,
        )
        .await?;
    let created = open_daily(store, &tenant, &site, "06:00", "23:00").await?;
    let slots: Vec<uuid::Uuid> = store
        .list_slots(
            &tenant,
            product.id,
            now + chrono::Duration::hours(2),
            now + chrono::Duration::days(90),
        )
        .await?
        .into_iter()
        .map(|s| s.id)
        .collect();
    println!(
        "seeded: 1 product of capacity {}, {created} slots over 60 days",
        product.capacity
    );
    if slots.len() < 2 * SPREAD_SLOTS + 52 {
        bail!("only {} future slots were generated", slots.len());
    }
    Ok(HoldSeed {
        tenant,
        site,
        product,
        slots,
    })
}

/// A well-mixed index below `n` for request `i` of `worker` (splitmix64).
fn pick(worker: usize, i: u64, n: usize) -> usize {
    let mut z = (worker as u64)
        .wrapping_mul(0x9E37_79B9_7F4A_7C15)
        .wrapping_add(i.wrapping_mul(0xD1B5_4A32_D192_ED03));
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^= z >> 31;
    (z % n as u64) as usize
}

/// `POST /api/v1/bookings/hold` for one person on a random slot of `slots`, as the
/// booking widget sends it (anonymous, with the customer's contact details).
fn hold_requests(addr: SocketAddr, seed: &HoldSeed, slots: &[uuid::Uuid]) -> MakeRequest {
    let bodies: Vec<Bytes> = slots
        .iter()
        .map(|slot| {
            Bytes::from(
                serde_json::json!({
                    "siteId": seed.site.id, "productId": seed.product.id, "slotId": slot,
                    "partySize": 1,
                    "customer": {"name": "Ada Lovelace", "email": "ada@example.com",
                                 "phone": "+358 40 123 4567"}
                })
                .to_string(),
            )
        })
        .collect();
    let tenant = seed.tenant.to_string();
    let uri = format!("http://{addr}/api/v1/bookings/hold");
    Arc::new(move |worker, i| {
        let body = bodies[pick(worker, i, bodies.len())].clone();
        Ok(hyper::Request::post(&uri)
            .header("x-tenant-id", &tenant)
            .header("content-type", "application/json")
            .body(Full::new(body))?)
    })
}

/// The ceiling: what the hold handler hands to the store, `store.create_booking` (one
/// transaction: expire the slot's overdue holds, take the seat, insert the booking and its
/// audit row), called directly from `tasks` tasks on random slots of `slots` for
/// `duration`, numbering each task's calls from `first`. No HTTP, no JSON, no catalog
/// reads.
async fn ceiling(
    store: &Store,
    seed: &HoldSeed,
    slots: &[uuid::Uuid],
    first: u64,
    tasks: usize,
    duration: Duration,
) -> anyhow::Result<Phase> {
    let template = NewBooking {
        site_id: seed.site.id,
        product_id: seed.product.id,
        slot: SlotChoice::Id(seed.slots[0]),
        variant_id: None,
        customer: BookingCustomer {
            id: None,
            name: "Ada Lovelace".into(),
            email: "ada@example.com".into(),
            phone: "+358 40 123 4567".into(),
        },
        party_size: 1,
        addons: Vec::new(),
        participants: serde_json::json!([]),
        token_hash: String::new(),
        source: BookingSource::Public,
        status: BookingStatus::Hold,
        admin_notes: None,
        send_confirmation: true,
        seats: SeatPolicy::Checked,
        allow_closed_slot: false,
    };
    let actor = Actor {
        kind: ActorKind::Customer,
        id: None,
        name: Some("public booking".to_owned()),
    };
    let slots = Arc::new(slots.to_vec());
    let start = Instant::now();
    let deadline = start + duration;
    let mut handles = Vec::new();
    for worker in 0..tasks {
        let (store, tenant, template, actor, slots) = (
            store.clone(),
            seed.tenant.clone(),
            template.clone(),
            actor.clone(),
            slots.clone(),
        );
        handles.push(tokio::spawn(async move {
            let mut hist = Histogram::<u64>::new_with_bounds(1, 60_000_000, 3)?;
            let (mut good, mut errors) = (0u64, 0u64);
            let mut i = first;
            while Instant::now() < deadline {
                let now = SystemClock.now();
                let mut new = template.clone();
                new.slot = SlotChoice::Id(slots[pick(worker, i, slots.len())]);
                new.token_hash = kairos_domain::ids::new_secret().1;
                i += 1;
                let sent = Instant::now();
                let result = store.create_booking(&tenant, new, &actor, now, None).await;
                hist.record(sent.elapsed().as_micros().max(1) as u64)?;
                match result {
                    Ok(_) => good += 1,
                    Err(_) => errors += 1,
                }
            }
            anyhow::Ok((good, errors, hist))
        }));
    }
    let mut latency = Histogram::<u64>::new_with_bounds(1, 60_000_000, 3)?;
    let (mut requests, mut errors) = (0, 0);
    for h in handles {
        let (good, err, hist) = h.await??;
        requests += good + err;
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

fn created_201(status: hyper::StatusCode) -> bool {
    status == hyper::StatusCode::CREATED
}

/// HTTP holds on `http_slots` and the ceiling on `raw_slots` for `seconds` each. Throughput
/// depends on how much the database holds, and every hold adds to it, so the two
/// alternate in one-second slices and see the same sizes.
async fn measure_holds(
    store: &Store,
    seed: &HoldSeed,
    addr: SocketAddr,
    http_slots: &[uuid::Uuid],
    raw_slots: &[uuid::Uuid],
    connections: usize,
    seconds: u64,
) -> anyhow::Result<(Phase, Phase)> {
    let requests = hold_requests(addr, seed, http_slots);
    let (mut http, mut raw) = (Phase::empty()?, Phase::empty()?);
    let second = Duration::from_secs(1);
    for slice in 0..seconds {
        let first = slice * 1_000_000;
        raw.absorb(ceiling(store, seed, raw_slots, first, connections, second).await?)?;
        http.absorb(load(requests.clone(), first, created_201, connections, second).await?)?;
    }
    Ok((http, raw))
}

async fn holds(cli: &Cli, store: Store, postgres: bool) -> anyhow::Result<()> {
    let seeded = Instant::now();
    let seed = seed_holds(&store).await?;
    println!("seeding took {:.1} s", seeded.elapsed().as_secs_f64());
    let addr = start_server(store.clone(), cli.cache_ms).await?;
    let seconds = cli.seconds.unwrap_or(5);
    let n = cli.connections;
    // Every phase books its own slots, so none starts on rows another phase grew.
    let (warmup, rest) = seed.slots.split_at(50);
    let (spread_http, rest) = rest.split_at(SPREAD_SLOTS);
    let (spread_raw, rest) = rest.split_at(SPREAD_SLOTS);
    let (hot_http, hot_raw) = (&rest[..1], &rest[1..2]);

    let warm = load(
        hold_requests(addr, &seed, warmup),
        0,
        created_201,
        n,
        Duration::from_secs(1),
    )
    .await?;
    let (spread, spread_ceiling) =
        measure_holds(&store, &seed, addr, spread_http, spread_raw, n, seconds).await?;
    let (hot, hot_ceiling) =
        measure_holds(&store, &seed, addr, hot_http, hot_raw, n, seconds).await?;

    let target = if postgres { 40.0 } else { 25.0 };
    println!(
        "connections {n} · {seconds} s per phase (HTTP and ceiling alternate by the second) · party 1 · ceiling: store.create_booking from {n} tasks"
    );
    for (name, http, raw) in [
        ("spread", &spread, &spread_ceiling),
        ("hot", &hot, &hot_ceiling),
    ] {
        let slots = if name == "spread" {
            format!("random slot of {SPREAD_SLOTS}")
        } else {
            "one slot".to_owned()
        };
        println!("{name} ({slots}):");
        http.print_as("  HTTP hold", "holds/s");
        raw.print_as("  ceiling", "holds/s");
        println!(
            "  ratio HTTP / ceiling: {:.1} % (target >= {target:.0} %)",
            http.rate() / raw.rate() * 100.0
        );
    }

    // No slot may hold more than its capacity, and every slot's count must match the
    // holds on it and the holds this run saw succeed.
    let now = SystemClock.now();
    let slots = store
        .list_slots(
            &seed.tenant,
            seed.product.id,
            now - chrono::Duration::days(1),
            now + chrono::Duration::days(90),
        )
        .await?;
    let oversold = slots.iter().filter(|s| s.booked > s.capacity).count();
    let booked: i64 = slots.iter().map(|s| i64::from(s.booked)).sum();
    let mismatches = store.capacity_mismatches(&seed.tenant).await?;
    let phases = [&warm, &spread, &spread_ceiling, &hot, &hot_ceiling];
    let succeeded: u64 = phases.iter().map(|p| p.requests - p.errors).sum();
    let errors: u64 = phases.iter().map(|p| p.errors).sum();
    println!(
        "oversold slots: {oversold} · capacity mismatches: {} · seats booked {booked} = holds succeeded {succeeded}: {} · errors: {errors} (target 0)",
        mismatches.len(),
        if i64::try_from(succeeded).ok() == Some(booked) {
            "yes"
        } else {
            "NO"
        }
    );
    if oversold > 0 || !mismatches.is_empty() || i64::try_from(succeeded).ok() != Some(booked) {
        bail!("capacity accounting is wrong after the run");
    }
    if errors > 0 {
        bail!("holds failed during the run");
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
            Command::Holds => holds(&cli, store.clone(), cli.postgres.is_some()).await,
        };
        store.close().await;
        drop(db);
        result
    })
}
