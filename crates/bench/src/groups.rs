//! `kairos-bench groups`: group holds of ten activities (one request, one transaction
//! taking ten slots' seats) next to single holds, alternating by the second in the same
//! run, with the same server's `/healthz` as the ceiling of a request.

use crate::app::{create_product, open_daily, seed_site, start_server};
use crate::holds::{HoldSeed, hold_requests, hold_taken};
use crate::load::{MakeRequest, Phase, drive, load, pick};
use crate::{Cli, Run};
use anyhow::bail;
use bytes::Bytes;
use http_body_util::Full;
use serde_json::json;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};
use uuid::Uuid;

/// Slots each hold phase books on.
const SLOTS: usize = 400;
/// Activities in one group.
const ACTIVITIES: usize = 10;
/// Distinct group bodies to send.
const BODIES: usize = 512;

/// Group holds of [`ACTIVITIES`] distinct slots of `slots` each, for one person.
fn group_requests(addr: SocketAddr, seed: &HoldSeed, slots: &[Uuid]) -> MakeRequest {
    let bodies: Vec<Bytes> = (0..BODIES)
        .map(|b| {
            let mut chosen: Vec<Uuid> = Vec::with_capacity(ACTIVITIES);
            let mut i = 0u64;
            while chosen.len() < ACTIVITIES {
                let slot = slots[pick(b, i, slots.len())];
                i += 1;
                if !chosen.contains(&slot) {
                    chosen.push(slot);
                }
            }
            let selections: Vec<_> = chosen
                .iter()
                .map(|slot| {
                    json!({"productId": seed.product.id, "siteId": seed.site.id, "slotId": slot})
                })
                .collect();
            Bytes::from(
                json!({
                    "groupType": "CUSTOM", "partySize": 1, "customerName": "Class 5B",
                    "customerEmail": "teacher@example.com", "slotSelections": selections
                })
                .to_string(),
            )
        })
        .collect();
    let tenant = seed.tenant.to_string();
    let uri = format!("http://{addr}/api/v1/booking-groups/hold");
    Arc::new(move |worker, i| {
        let body = bodies[pick(worker + 7919, i, bodies.len())].clone();
        Ok(hyper::Request::post(&uri)
            .header("x-tenant-id", &tenant)
            .header("content-type", "application/json")
            .body(Full::new(body))?)
    })
}

pub async fn run(cli: &Cli, run: &Run) -> anyhow::Result<()> {
    let store = &run.store;
    let seeded = Instant::now();
    let (tenant, site) = seed_site(store, "bench").await?;
    let product = create_product(store, &tenant, &site, "Climbing".into(), 1_000_000).await?;
    let created = open_daily(store, &tenant, &site, "00:00", "23:59").await?;
    let slots = crate::app::future_slots(store, &tenant, &product).await?;
    if slots.len() < 2 * SLOTS + 50 {
        bail!("only {} future slots were generated", slots.len());
    }
    let seed = HoldSeed {
        tenant,
        site,
        product,
        slots: slots.iter().map(|s| s.id).collect(),
    };
    println!(
        "seeded: 1 product, {created} slots over 60 days, in {:.1} s",
        seeded.elapsed().as_secs_f64()
    );
    let addr = start_server(store.clone(), cli.cache_ms).await?;
    let seconds = cli.seconds.unwrap_or(5);
    let n = cli.connections;
    let second = Duration::from_secs(1);
    let health = drive(
        addr,
        Vec::new(),
        Arc::new(vec!["/healthz".to_owned()]),
        n,
        Duration::from_secs(seconds),
    )
    .await?;
    let (single_slots, rest) = seed.slots[50..].split_at(SLOTS);
    let group_slots = &rest[..SLOTS];
    let singles = hold_requests(addr, &seed, single_slots);
    let groups = group_requests(addr, &seed, group_slots);
    let (mut single, mut group) = (Phase::empty()?, Phase::empty()?);
    for slice in 0..seconds {
        let first = slice * 1_000_000;
        single.absorb(load(singles.clone(), first, hold_taken, n, second).await?)?;
        group.absorb(load(groups.clone(), first, hold_taken, n, second).await?)?;
    }
    println!("connections {n} · {seconds} s per phase");
    health.print("/healthz");
    single.print_as("single hold", "holds/s");
    group.print_as(&format!("group of {ACTIVITIES}"), "groups/s");
    let activities = group.rate() * ACTIVITIES as f64;
    println!(
        "activities held in groups: {activities:.0}/s = {:.1} % of single holds (target >= 50 %) · group p99 {:.2} ms (target < 200 ms) · single hold p99 {:.2} ms",
        activities / single.rate() * 100.0,
        group.p99_ms(),
        single.p99_ms()
    );
    // Every group that succeeded holds exactly its ten bookings, and every seat taken is
    // a booking's.
    let held = store.count_group_bookings(&seed.tenant).await?;
    let expected = group.succeeded() * ACTIVITIES as u64;
    let matches = u64::try_from(held).ok() == Some(expected);
    println!(
        "group bookings {held} = groups held × {ACTIVITIES} ({expected}): {}",
        if matches { "yes" } else { "NO" }
    );
    let mismatches = store.capacity_mismatches(&seed.tenant).await?;
    println!(
        "slots whose seats differ from their bookings: {}",
        mismatches.len()
    );
    let errors = health.errors + single.errors + group.errors;
    println!("errors: {errors} (target 0)");
    if errors > 0 || !matches || !mismatches.is_empty() {
        bail!(
            "the group benchmark failed (first error: {})",
            [&single, &group]
                .iter()
                .find_map(|p| p.first_error.clone())
                .unwrap_or_else(|| "bookings do not match".into())
        );
    }
    Ok(())
}
