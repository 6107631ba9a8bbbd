//! `kairos-bench resources`: the windows of a resource add-on against the same server's
//! `/healthz`; then holds that take a resource add-on (the hold, then its window: two
//! requests) next to plain holds, alternating by the second, in the same run.

use crate::app::{actor, create_product, open_daily, seed_site, start_server};
use crate::holds::{HoldSeed, hold_requests, hold_taken};
use crate::load::{Phase, drive, load};
use crate::{Cli, Run};
use anyhow::{Context, bail};
use bytes::Bytes;
use chrono::{DateTime, SecondsFormat, Utc};
use hdrhistogram::Histogram;
use http_body_util::{BodyExt, Full};
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;
use kairos_domain::catalog::{AddonPriceType, AddonType};
use kairos_domain::pricing::AddonMode;
use kairos_domain::resources::{DurationMode, PricingMode, ResourceType, SharedMode};
use kairos_domain::{Clock, SystemClock};
use kairos_store::{NewAddon, NewAddonConfig, NewResource, Store};
use serde_json::{Value, json};
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};
use uuid::Uuid;

/// Slots each hold phase books on, and the windows phase asks about.
const SLOTS: usize = 400;

fn at(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::Secs, true)
}

/// A pool of kayaks too big to run out, offered by the product for an hour before,
/// during or after, at a flat price; the configuration's and the resource's ids.
async fn seed_addon(store: &Store, seed: &HoldSeed) -> anyhow::Result<(Uuid, Uuid)> {
    let now = SystemClock.now();
    let resource = store
        .create_resource(
            &seed.tenant,
            NewResource {
                site_id: seed.site.id,
                name: "Kayaks".into(),
                description: String::new(),
                resource_type: ResourceType::Equipment,
                shared_mode: SharedMode::Pooled,
                capacity: 100_000_000,
                is_active: true,
                policies: Default::default(),
            },
            &actor(),
            now,
        )
        .await?;
    let addon = store
        .create_addon(
            &seed.tenant,
            seed.product.id,
            NewAddon {
                name: "Kayak".into(),
                description: String::new(),
                addon_type: AddonType::Resource,
                mode: AddonMode::YesNo,
                price_type: AddonPriceType::Fixed,
                amount: 0,
                max_quantity: None,
                display_order: 0,
                is_active: true,
            },
            &actor(),
            now,
        )
        .await?;
    let config = store
        .create_addon_config(
            &seed.tenant,
            seed.product.id,
            NewAddonConfig {
                addon_id: addon.id,
                resource_id: resource.id,
                duration_mode: DurationMode::Fixed,
                duration_options: Vec::new(),
                fixed_duration_mins: Some(60),
                min_duration_mins: None,
                max_duration_mins: None,
                duration_step_mins: 30,
                default_duration_mins: None,
                pricing_mode: PricingMode::Flat,
                flat_price: Some(1_000),
                per_hour_price: None,
                per_person_price: None,
                base_price: None,
                allow_before: true,
                allow_during: true,
                allow_after: true,
                buffer_before_mins: 0,
                buffer_after_mins: 10,
                max_capacity: None,
                is_active: true,
            },
            &actor(),
            now,
        )
        .await?;
    Ok((config.id, resource.id))
}

/// What the flow needs of a hold's answer: its id, booking token and end.
fn hold_parts(body: &[u8]) -> anyhow::Result<(String, String, DateTime<Utc>)> {
    let v: Value = serde_json::from_slice(body)?;
    let text = |k: &str| v[k].as_str().map(str::to_owned).context(k.to_owned());
    let end = DateTime::parse_from_rfc3339(&text("endTime")?)?.with_timezone(&Utc);
    Ok((text("id")?, text("bookingToken")?, end))
}

/// One hold and its hour after, from `connections` tasks for `duration`; the latency of
/// each is both requests'.
async fn flows(
    addr: SocketAddr,
    seed: &HoldSeed,
    config: Uuid,
    slots: &[Uuid],
    (first, connections, duration): (u64, usize, Duration),
) -> anyhow::Result<Phase> {
    let holds = hold_requests(addr, seed, slots);
    let tenant = seed.tenant.to_string();
    let start = Instant::now();
    let deadline = start + duration;
    let mut tasks = Vec::new();
    for worker in 0..connections {
        let (holds, tenant) = (holds.clone(), tenant.clone());
        tasks.push(tokio::spawn(async move {
            let mut connector = HttpConnector::new();
            connector.set_nodelay(true);
            let client: Client<_, Full<Bytes>> = Client::builder(TokioExecutor::new())
                .pool_max_idle_per_host(1)
                .build(connector);
            let mut hist = Histogram::<u64>::new_with_bounds(1, 60_000_000, 3)?;
            let (mut good, mut errors, mut first_error) = (0u64, 0u64, None);
            let mut i = first;
            while Instant::now() < deadline {
                let sent = Instant::now();
                let result: anyhow::Result<()> = async {
                    let res = client.request(holds(worker, i)?).await?;
                    let status = res.status();
                    let body = res.into_body().collect().await?.to_bytes();
                    if status != hyper::StatusCode::OK {
                        bail!("hold: HTTP {status}");
                    }
                    let (id, token, end) = hold_parts(&body)?;
                    let selection = json!({"selections": [{"configId": config,
                        "startsAt": at(end), "endsAt": at(end + chrono::Duration::minutes(60)),
                        "durationMins": 60}]});
                    let req = hyper::Request::post(format!(
                        "http://{addr}/api/v1/bookings/{id}/resource-addons"
                    ))
                    .header("x-tenant-id", &tenant)
                    .header("x-booking-token", token)
                    .header("content-type", "application/json")
                    .body(Full::new(Bytes::from(selection.to_string())))?;
                    let res = client.request(req).await?;
                    let status = res.status();
                    res.into_body().collect().await?;
                    if status != hyper::StatusCode::OK {
                        bail!("resource add-on: HTTP {status}");
                    }
                    Ok(())
                }
                .await;
                i += 1;
                hist.record(sent.elapsed().as_micros().max(1) as u64)?;
                match result {
                    Ok(()) => good += 1,
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
    for t in tasks {
        let (good, err, hist, first) = t.await??;
        phase.requests += good + err;
        phase.errors += err;
        phase.latency.add(hist)?;
        phase.first_error = phase.first_error.or(first);
    }
    phase.elapsed = start.elapsed();
    Ok(phase)
}

pub async fn run(cli: &Cli, run: &Run) -> anyhow::Result<()> {
    let store = &run.store;
    let seeded = Instant::now();
    let (tenant, site) = seed_site(store, "bench").await?;
    let product = create_product(store, &tenant, &site, "Kayak tour".into(), 1_000_000).await?;
    let created = open_daily(store, &tenant, &site, "00:00", "23:59").await?;
    let slots = crate::app::future_slots(store, &tenant, &product).await?;
    if slots.len() < 2 * SLOTS + 50 {
        bail!("only {} future slots were generated", slots.len());
    }
    let times: Vec<(DateTime<Utc>, DateTime<Utc>)> =
        slots.iter().map(|s| (s.starts_at, s.ends_at)).collect();
    let seed = HoldSeed {
        tenant,
        site,
        product,
        slots: slots.iter().map(|s| s.id).collect(),
    };
    let (config, resource) = seed_addon(store, &seed).await?;
    println!(
        "seeded: 1 product, {created} slots over 60 days, 1 pooled resource offered as an add-on, in {:.1} s",
        seeded.elapsed().as_secs_f64()
    );
    let addr = start_server(store.clone(), cli.cache_ms).await?;
    let seconds = cli.seconds.unwrap_or(5);
    let duration = Duration::from_secs(seconds);
    let n = cli.connections;

    // The windows around the first slots' activities, for a party of two.
    let paths: Arc<Vec<String>> = Arc::new(
        times[..SLOTS]
            .iter()
            .map(|(s, e)| {
                format!(
                    "/api/v1/availability/resource-addons/{config}/windows?activity_starts_at={}&activity_ends_at={}&party_size=2",
                    at(*s),
                    at(*e)
                )
            })
            .collect(),
    );
    let header = vec![("x-tenant-id", seed.tenant.to_string())];
    drive(
        addr,
        header.clone(),
        paths.clone(),
        n,
        Duration::from_secs(1),
    )
    .await?;
    let health = drive(
        addr,
        Vec::new(),
        Arc::new(vec!["/healthz".to_owned()]),
        n,
        duration,
    )
    .await?;
    let windows = drive(addr, header, paths, n, duration).await?;

    // Plain holds and holds with an add-on, each on slots of its own.
    let (plain_slots, rest) = seed.slots[50..].split_at(SLOTS);
    let addon_slots = &rest[..SLOTS];
    let plain_requests = hold_requests(addr, &seed, plain_slots);
    let (mut plain, mut with_addon) = (Phase::empty()?, Phase::empty()?);
    let second = Duration::from_secs(1);
    for slice in 0..seconds {
        let first = slice * 1_000_000;
        plain.absorb(load(plain_requests.clone(), first, hold_taken, n, second).await?)?;
        with_addon.absorb(flows(addr, &seed, config, addon_slots, (first, n, second)).await?)?;
    }

    println!("connections {n} · {seconds} s per phase");
    health.print("/healthz");
    windows.print("windows");
    println!(
        "ratio windows / healthz: {:.1} % (target >= 25 %) · windows p99 {:.2} ms (target < 20 ms)",
        windows.rate() / health.rate() * 100.0,
        windows.p99_ms()
    );
    plain.print_as("plain hold", "holds/s");
    with_addon.print_as("hold+add-on", "flows/s");
    println!(
        "ratio hold with add-on (hold, then its window: 2 requests) / plain hold: {:.1} % (target >= 35 %) · p99 {:.2} ms (target < 100 ms)",
        with_addon.rate() / plain.rate() * 100.0,
        with_addon.p99_ms()
    );
    // Every flow that succeeded holds exactly one live allocation, and no other exists.
    let far = SystemClock.now() + chrono::Duration::days(400);
    let live = store
        .resource_use(
            &seed.tenant,
            resource,
            (SystemClock.now() - chrono::Duration::days(1), far),
            None,
        )
        .await?
        .len();
    let matches = u64::try_from(live).ok() == Some(with_addon.succeeded());
    println!(
        "live allocations {live} = flows succeeded {}: {}",
        with_addon.succeeded(),
        if matches { "yes" } else { "NO" }
    );
    let errors = windows.errors + health.errors + plain.errors + with_addon.errors;
    println!("errors: {errors} (target 0)");
    let first = [&windows, &plain, &with_addon]
        .iter()
        .find_map(|p| p.first_error.clone());
    if errors > 0 || !matches {
        bail!(
            "the resource benchmark failed (first error: {})",
            first.unwrap_or_else(|| "allocations do not match".into())
        );
    }
    Ok(())
}
