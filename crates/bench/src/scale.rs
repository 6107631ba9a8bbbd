//! `kairos-bench scale`: the same holds and availability queries on a small database,
//! then again once hundreds of other tenants and tens of thousands of live bookings sit
//! beside the measured tenant. The cost of a hold or an availability query must not grow
//! with data it does not touch.

use crate::app::{create_product, future_slots, open_daily, seed_site, start_server};
use crate::availability::{self, paths, seed_products};
use crate::holds::{self, HoldSeed, SPREAD_SLOTS, check_accounting, hold_seed, measure_holds};
use crate::load::Phase;
use crate::{Cli, Run};
use anyhow::bail;
use kairos_domain::bookings::BookingStatus;
use kairos_domain::{Clock, SystemClock, TenantId};
use kairos_store::{
    Actor, ActorKind, BookingCustomer, BookingSource, NewBooking, SeatPolicy, SlotChoice, Store,
};
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};
use uuid::Uuid;

/// How much data the large phase adds.
#[derive(Debug, Clone, Copy, clap::Args)]
pub struct Growth {
    /// Tenants added beside the measured one, each with a site, a product and 60 days of slots.
    #[arg(long, default_value_t = 200)]
    pub tenants: usize,
    /// Live bookings (one in three a hold, the rest confirmed) made in each added tenant.
    #[arg(long, default_value_t = 300)]
    pub bookings_per_tenant: usize,
    /// Live bookings added to the measured tenant itself, on its availability products.
    #[arg(long, default_value_t = 10_000)]
    pub own_bookings: usize,
}

/// Figures of one size: availability queries and HTTP holds.
struct Sample {
    availability: Phase,
    holds: Phase,
}

impl Sample {
    /// `seconds` of availability queries on `paths`, then `seconds` of holds on
    /// `hold_slots`.
    async fn measure(
        store: &Store,
        seed: &HoldSeed,
        addr: SocketAddr,
        paths: &Arc<Vec<String>>,
        hold_slots: &[Uuid],
        connections: usize,
        seconds: u64,
    ) -> anyhow::Result<Sample> {
        let duration = Duration::from_secs(seconds);
        let availability =
            availability::measure(addr, &seed.tenant, paths.clone(), connections, duration).await?;
        let holds = measure_holds(store, seed, addr, hold_slots, &[], connections, seconds)
            .await?
            .http;
        Ok(Sample {
            availability,
            holds,
        })
    }
}

pub async fn run(cli: &Cli, run: &Run, growth: Growth) -> anyhow::Result<()> {
    let store = &run.store;
    let seeded = Instant::now();
    let (tenant, site) = seed_site(store, "bench").await?;
    let avail_seed = seed_products(store, &tenant, &site).await?;
    let product = holds::seed_product(store, &tenant, &site).await?;
    open_daily(store, &tenant, &site, "06:00", "23:00").await?;
    let seed = hold_seed(store, tenant.clone(), site, product, 2).await?;
    println!(
        "seeded the measured tenant (20 products for availability, 1 for holds) in {:.1} s",
        seeded.elapsed().as_secs_f64()
    );
    // The database is what grows, so availability answers are not served from memory.
    let addr = start_server(store.clone(), 0).await?;
    let seconds = cli.seconds.unwrap_or(10);
    let n = cli.connections;
    let paths = paths(&avail_seed);
    let (warm_slots, rest) = seed.slots.split_at(50);
    let (small_slots, rest) = rest.split_at(SPREAD_SLOTS);
    let large_slots = &rest[..SPREAD_SLOTS];

    let warm = {
        availability::measure(addr, &tenant, paths.clone(), n, Duration::from_secs(1)).await?;
        measure_holds(store, &seed, addr, warm_slots, &[], n, 1)
            .await?
            .http
    };
    let small = Sample::measure(store, &seed, addr, &paths, small_slots, n, seconds).await?;

    let grown = Instant::now();
    let added = grow(store, &tenant, &avail_seed.products, growth, n).await?;
    println!(
        "added {} tenants and {added} live bookings in {:.1} s",
        growth.tenants,
        grown.elapsed().as_secs_f64()
    );
    let large = Sample::measure(store, &seed, addr, &paths, large_slots, n, seconds).await?;

    println!(
        "connections {n} · {seconds} s per phase · availability cache off · party 1 holds on a random slot of {SPREAD_SLOTS}"
    );
    println!("small: the measured tenant alone");
    small.availability.print_as("  availability", "req/s");
    small.holds.print_as("  HTTP hold", "holds/s");
    println!(
        "large: + {} tenants, + {added} live bookings ({} in the measured tenant)",
        growth.tenants, growth.own_bookings
    );
    large.availability.print_as("  availability", "req/s");
    large.holds.print_as("  HTTP hold", "holds/s");
    println!(
        "large / small: availability {:.2}× · holds {:.2}× (target >= 0.90×)",
        large.availability.rate() / small.availability.rate(),
        large.holds.rate() / small.holds.rate()
    );

    let phases = [&warm, &small.holds, &large.holds];
    let succeeded: u64 = phases.iter().map(|p| p.succeeded()).sum();
    check_accounting(store, &seed, succeeded).await?;
    let errors: u64 = [&small, &large]
        .iter()
        .map(|s| s.availability.errors + s.holds.errors)
        .sum::<u64>()
        + warm.errors;
    println!("errors: {errors} (target 0)");
    if errors > 0 {
        bail!("requests failed during the run");
    }
    Ok(())
}

/// Adds `growth.tenants` tenants with their bookings, and `growth.own_bookings` bookings
/// to `tenant` on `products`, from `tasks` tasks; returns how many bookings were made.
async fn grow(
    store: &Store,
    tenant: &TenantId,
    products: &[(String, String)],
    growth: Growth,
    tasks: usize,
) -> anyhow::Result<u64> {
    let made = Arc::new(AtomicU64::new(0));
    let total = (growth.tenants * growth.bookings_per_tenant + growth.own_bookings) as u64;
    let mut handles = Vec::new();
    for worker in 0..tasks {
        let (store, made) = (store.clone(), made.clone());
        handles.push(tokio::spawn(async move {
            for t in (worker..growth.tenants).step_by(tasks) {
                let (other, site) = seed_site(&store, &format!("venue-{t:04}")).await?;
                let product =
                    create_product(&store, &other, &site, "Escape room".into(), 20).await?;
                open_daily(&store, &other, &site, "09:00", "21:00").await?;
                let slots = future_slots(&store, &other, &product).await?;
                for i in 0..growth.bookings_per_tenant {
                    let slot = &slots[i % slots.len()];
                    book(&store, &other, site.id, product.id, slot.id, i).await?;
                    progress(&made, total);
                }
            }
            anyhow::Ok(())
        }));
    }
    for h in handles {
        h.await??;
    }
    // The measured tenant's own bookings, spread over its availability products' slots.
    let mut own = Vec::new();
    for (product, site) in products {
        let product = Uuid::parse_str(product)?;
        let site = Uuid::parse_str(site)?;
        let slots = store
            .list_slots(
                tenant,
                product,
                SystemClock.now() + chrono::Duration::hours(2),
                SystemClock.now() + chrono::Duration::days(90),
            )
            .await?;
        own.extend(slots.into_iter().map(|s| (site, product, s.id)));
    }
    if own.is_empty() {
        bail!("the measured tenant has no availability slots");
    }
    let own = Arc::new(own);
    let mut handles = Vec::new();
    for worker in 0..tasks {
        let (store, made, own, tenant) = (store.clone(), made.clone(), own.clone(), tenant.clone());
        handles.push(tokio::spawn(async move {
            for i in (worker..growth.own_bookings).step_by(tasks) {
                let (site, product, slot) = own[i % own.len()];
                book(&store, &tenant, site, product, slot, i).await?;
                progress(&made, total);
            }
            anyhow::Ok(())
        }));
    }
    for h in handles {
        h.await??;
    }
    Ok(made.load(Ordering::Relaxed))
}

/// One live booking of one person: every third a public hold, the others confirmed by
/// staff.
async fn book(
    store: &Store,
    tenant: &TenantId,
    site_id: Uuid,
    product_id: Uuid,
    slot: Uuid,
    i: usize,
) -> anyhow::Result<()> {
    let hold = i % 3 == 0;
    let new = NewBooking {
        site_id,
        product_id,
        slot: SlotChoice::Id(slot),
        variant_id: None,
        customer: BookingCustomer {
            id: None,
            name: format!("Guest {i}"),
            email: format!("guest{i}@example.com"),
            phone: format!("+358 40 {i:07}"),
        },
        party_size: 1,
        addons: Vec::new(),
        participants: serde_json::json!([]),
        token_hash: kairos_domain::ids::new_secret().1,
        source: if hold {
            BookingSource::Public
        } else {
            BookingSource::Admin
        },
        status: if hold {
            BookingStatus::Hold
        } else {
            BookingStatus::Confirmed
        },
        admin_notes: None,
        send_confirmation: true,
        seats: SeatPolicy::Checked,
        allow_closed_slot: false,
    };
    let actor = Actor {
        kind: if hold {
            ActorKind::Customer
        } else {
            ActorKind::Admin
        },
        id: None,
        name: Some("bench".to_owned()),
    };
    store
        .create_booking(tenant, new, &actor, SystemClock.now(), None)
        .await?;
    Ok(())
}

/// Counts one booking made and prints progress every 10,000.
fn progress(made: &AtomicU64, total: u64) {
    let done = made.fetch_add(1, Ordering::Relaxed) + 1;
    if done.is_multiple_of(10_000) || done == total {
        println!("  {done} / {total} bookings");
    }
}
