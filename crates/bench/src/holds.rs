//! `kairos-bench holds`: `POST /bookings/hold` against the minimal raw hold (one
//! conditional `UPDATE` of the slot and one `INSERT` of the booking in one transaction,
//! `Store::raw_hold`) through the same driver, pool and connections, in the same run.

use crate::app::{create_product, open_daily, seed_site, start_server};
use crate::load::{MakeRequest, Phase, load, pick};
use crate::{Cli, Run};
use anyhow::bail;
use bytes::Bytes;
use hdrhistogram::Histogram;
use http_body_util::Full;
use kairos_domain::{Clock, SystemClock, TenantId};
use kairos_store::{Product, Site, Store};
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};
use uuid::Uuid;

/// Slots each spread phase books on (random among them, per request).
pub const SPREAD_SLOTS: usize = 400;

/// The hold benchmark's catalog: one product of capacity 1,000,000, so no slot ever
/// runs out.
pub struct HoldSeed {
    pub tenant: TenantId,
    pub site: Site,
    pub product: Product,
    /// Future slots in start order, each used by one phase only.
    pub slots: Vec<Uuid>,
}

/// The hold product on `site` (which must be open, or be opened after).
pub async fn seed_product(
    store: &Store,
    tenant: &TenantId,
    site: &Site,
) -> anyhow::Result<Product> {
    create_product(store, tenant, site, "Hold bench".into(), 1_000_000).await
}

/// `product`'s future slots, checked to be enough for every phase.
pub async fn hold_seed(
    store: &Store,
    tenant: TenantId,
    site: Site,
    product: Product,
    phases: usize,
) -> anyhow::Result<HoldSeed> {
    let slots: Vec<Uuid> = crate::app::future_slots(store, &tenant, &product)
        .await?
        .into_iter()
        .map(|s| s.id)
        .collect();
    if slots.len() < phases * SPREAD_SLOTS + 52 {
        bail!("only {} future slots were generated", slots.len());
    }
    Ok(HoldSeed {
        tenant,
        site,
        product,
        slots,
    })
}

/// `POST /api/v1/bookings/hold` for one person on a random slot of `slots`, as the
/// booking widget sends it (anonymous, with the customer's contact details).
pub fn hold_requests(addr: SocketAddr, seed: &HoldSeed, slots: &[Uuid]) -> MakeRequest {
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

pub fn hold_taken(status: hyper::StatusCode) -> bool {
    status == hyper::StatusCode::OK
}

/// The two forms of the minimal raw hold (`Store::raw_hold`, `Store::raw_hold_one_statement`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RawForm {
    /// `BEGIN; UPDATE …; INSERT …; COMMIT` (both backends).
    TwoStatements,
    /// `WITH s AS (UPDATE …) INSERT … SELECT … FROM s` (PostgreSQL).
    OneStatement,
}

/// The ceiling: the raw hold in `form` on random slots of `slots` from `tasks` tasks for
/// `duration`, numbering each task's calls from `first`.
async fn ceiling(
    store: &Store,
    seed: &HoldSeed,
    form: RawForm,
    slots: &[Uuid],
    first: u64,
    tasks: usize,
    duration: Duration,
) -> anyhow::Result<Phase> {
    let slots = Arc::new(slots.to_vec());
    let start = Instant::now();
    let deadline = start + duration;
    let mut handles = Vec::new();
    for worker in 0..tasks {
        let (store, tenant, site, slots) = (
            store.clone(),
            seed.tenant.clone(),
            seed.site.id,
            slots.clone(),
        );
        handles.push(tokio::spawn(async move {
            let mut hist = Histogram::<u64>::new_with_bounds(1, 60_000_000, 3)?;
            let (mut good, mut errors) = (0u64, 0u64);
            let mut first_error = None;
            let mut i = first;
            while Instant::now() < deadline {
                let slot = slots[pick(worker, i, slots.len())];
                i += 1;
                let sent = Instant::now();
                let now = SystemClock.now();
                let result = match form {
                    RawForm::TwoStatements => store.raw_hold(&tenant, site, slot, 1, now).await,
                    RawForm::OneStatement => store
                        .raw_hold_one_statement(&tenant, site, slot, 1, now)
                        .await
                        .map(|done| done.unwrap_or(false)),
                };
                hist.record(sent.elapsed().as_micros().max(1) as u64)?;
                match result {
                    Ok(true) => good += 1,
                    Ok(false) => {
                        errors += 1;
                        first_error.get_or_insert_with(|| "the slot had no room".to_owned());
                    }
                    Err(e) => {
                        errors += 1;
                        first_error.get_or_insert_with(|| e.to_string());
                    }
                }
            }
            anyhow::Ok((good, errors, hist, first_error))
        }));
    }
    let mut phase = Phase::empty()?;
    for h in handles {
        let (good, err, hist, first) = h.await??;
        phase.requests += good + err;
        phase.errors += err;
        phase.latency.add(hist)?;
        phase.first_error = phase.first_error.or(first);
    }
    phase.elapsed = start.elapsed();
    Ok(phase)
}

/// A measured hold phase: HTTP holds and each raw form on their own slots.
pub struct HoldPhases {
    pub http: Phase,
    /// One per form measured, in the order asked.
    pub raw: Vec<(RawForm, Phase)>,
}

/// HTTP holds on `http_slots` and each raw form of `raw` on its own slots for `seconds`
/// each. All share the server's store, so they use the same pool and connections.
/// Throughput depends on how much the database holds, and every hold adds to it, so the
/// phases alternate in one-second slices and see the same sizes.
pub async fn measure_holds(
    store: &Store,
    seed: &HoldSeed,
    addr: SocketAddr,
    http_slots: &[Uuid],
    raw: &[(RawForm, &[Uuid])],
    connections: usize,
    seconds: u64,
) -> anyhow::Result<HoldPhases> {
    let requests = hold_requests(addr, seed, http_slots);
    let mut http = Phase::empty()?;
    let mut raw_phases = Vec::new();
    for (form, _) in raw {
        raw_phases.push((*form, Phase::empty()?));
    }
    let second = Duration::from_secs(1);
    for slice in 0..seconds {
        let first = slice * 1_000_000;
        for ((form, slots), (_, phase)) in raw.iter().zip(raw_phases.iter_mut()) {
            phase.absorb(ceiling(store, seed, *form, slots, first, connections, second).await?)?;
        }
        http.absorb(load(requests.clone(), first, hold_taken, connections, second).await?)?;
    }
    Ok(HoldPhases {
        http,
        raw: raw_phases,
    })
}

/// Checks the capacity accounting of the hold product after a run: no slot over its
/// capacity, every slot's count equal to its bookings, and the seats booked equal to
/// `succeeded` (the holds of every phase that succeeded). Prints the result.
pub async fn check_accounting(
    store: &Store,
    seed: &HoldSeed,
    succeeded: u64,
) -> anyhow::Result<()> {
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
    let matches = i64::try_from(succeeded).ok() == Some(booked);
    println!(
        "oversold slots: {oversold} · capacity mismatches: {} · seats booked {booked} = holds succeeded {succeeded}: {}",
        mismatches.len(),
        if matches { "yes" } else { "NO" }
    );
    if oversold > 0 || !mismatches.is_empty() || !matches {
        bail!("capacity accounting is wrong after the run");
    }
    Ok(())
}

/// Prints one HTTP phase next to its ceiling (the fastest raw form), with the ratio and
/// its target.
fn report(name: &str, phases: &HoldPhases, target: f64) {
    println!("{name}:");
    phases.http.print_as("  HTTP hold", "holds/s");
    for (form, raw) in &phases.raw {
        let label = match form {
            RawForm::TwoStatements => "  raw, 2 stmts",
            RawForm::OneStatement => "  raw, 1 stmt",
        };
        raw.print_as(label, "holds/s");
    }
    let ceiling = phases
        .raw
        .iter()
        .map(|(_, p)| p.rate())
        .fold(0.0_f64, f64::max);
    println!(
        "  ratio HTTP / fastest raw hold: {:.1} % (target >= {target:.0} %) · HTTP p99 {:.2} ms (target < 50 ms)",
        phases.http.rate() / ceiling * 100.0,
        phases.http.p99_ms()
    );
}

pub async fn run(cli: &Cli, run: &Run) -> anyhow::Result<()> {
    let store = &run.store;
    let seeded = Instant::now();
    let (tenant, site) = seed_site(store, "bench").await?;
    let product = seed_product(store, &tenant, &site).await?;
    // Open around the clock: every phase needs slots of its own.
    let created = open_daily(store, &tenant, &site, "00:00", "23:59").await?;
    let forms: &[RawForm] = if run.postgres {
        &[RawForm::TwoStatements, RawForm::OneStatement]
    } else {
        &[RawForm::TwoStatements]
    };
    let seed = hold_seed(store, tenant, site, product, 1 + forms.len()).await?;
    println!(
        "seeded: 1 product of capacity {}, {created} slots over 60 days, in {:.1} s",
        seed.product.capacity,
        seeded.elapsed().as_secs_f64()
    );
    let addr = start_server(store.clone(), cli.cache_ms).await?;
    let seconds = cli.seconds.unwrap_or(5);
    let n = cli.connections;
    // Every phase books its own slots, so none starts on rows another phase grew.
    let (warmup, rest) = seed.slots.split_at(50);
    let (spread_http, mut rest) = rest.split_at(SPREAD_SLOTS);
    let mut spread_raw = Vec::new();
    for form in forms {
        let (mine, others) = rest.split_at(SPREAD_SLOTS);
        spread_raw.push((*form, mine));
        rest = others;
    }
    let hot_http = &rest[..1];
    let hot_raw: Vec<(RawForm, &[Uuid])> = forms
        .iter()
        .enumerate()
        .map(|(i, form)| (*form, &rest[1 + i..2 + i]))
        .collect();

    let warm = load(
        hold_requests(addr, &seed, warmup),
        0,
        hold_taken,
        n,
        Duration::from_secs(1),
    )
    .await?;
    let spread = measure_holds(store, &seed, addr, spread_http, &spread_raw, n, seconds).await?;
    let hot = measure_holds(store, &seed, addr, hot_http, &hot_raw, n, seconds).await?;

    println!(
        "connections {n} · {seconds} s per phase (HTTP and raw holds alternate by the second) · party 1"
    );
    println!(
        "raw hold (Store::raw_hold, same pool): BEGIN; UPDATE slots … booked + 1 <= capacity RETURNING …; INSERT INTO bookings …; COMMIT"
    );
    if run.postgres {
        println!(
            "raw hold in one statement (Store::raw_hold_one_statement): WITH s AS (UPDATE slots … RETURNING …) INSERT INTO bookings SELECT … FROM s"
        );
    }
    let (spread_target, hot_target) = if run.postgres {
        (30.0, 25.0)
    } else {
        (25.0, 25.0)
    };
    report(
        &format!("spread (random slot of {SPREAD_SLOTS})"),
        &spread,
        spread_target,
    );
    report("hot (one slot)", &hot, hot_target);

    let http = [&warm, &spread.http, &hot.http];
    let raw: Vec<&Phase> = spread.raw.iter().chain(&hot.raw).map(|(_, p)| p).collect();
    let succeeded: u64 = http.iter().chain(&raw).map(|p| p.succeeded()).sum();
    check_accounting(store, &seed, succeeded).await?;
    // The raw holds are the ceiling, not the product: they retry nothing (not even a
    // clash of random references), so a failure there is reported, not held against
    // the product.
    let raw_errors: u64 = raw.iter().map(|p| p.errors).sum();
    if raw_errors > 0 {
        println!(
            "raw hold errors: {raw_errors} (the ceiling retries nothing; see its first error above)"
        );
    }
    let errors: u64 = http.iter().map(|p| p.errors).sum();
    println!("HTTP hold errors: {errors} (target 0)");
    if errors > 0 {
        let first = http.iter().find_map(|p| p.first_error.as_deref());
        bail!(
            "holds failed during the run (first: {})",
            first.unwrap_or("unknown")
        );
    }
    Ok(())
}
