//! `kairos-bench scale`: the same holds and availability queries on two databases that
//! hold the same measured tenant, one with nothing else (small) and one with hundreds of
//! other tenants and tens of thousands of live bookings beside it (large), taking turns
//! by the second. The cost of a hold or an availability query must not grow with data it
//! does not touch.

use crate::app::{create_product, future_slots, open_daily, seed_site, start_server};
use crate::availability::{self, paths, seed_products};
use crate::holds::{
    self, HoldSeed, SPREAD_SLOTS, check_accounting, hold_requests, hold_seed, hold_taken,
};
use crate::load::{Phase, load};
use crate::{Cli, Run};
use anyhow::{Context, bail};
use kairos_domain::auth::ActorKind;
use kairos_domain::bookings::BookingSource;
use kairos_domain::bookings::BookingStatus;
use kairos_domain::{Clock, SystemClock, TenantId};
use kairos_store::{Actor, BookingCustomer, NewBooking, SeatPolicy, SlotChoice, Store};
use kairos_testkit::TestDb;
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

/// One database with the measured tenant, and the server on it.
struct Side {
    store: Store,
    addr: SocketAddr,
    seed: HoldSeed,
    products: Vec<(String, String)>,
    paths: Arc<Vec<String>>,
    /// Figures of the measured phases.
    availability: Phase,
    holds: Phase,
    /// Holds that succeeded outside the measured phases (warm-up).
    warm_holds: u64,
    errors: u64,
}

impl Side {
    /// Seeds the measured tenant on `store` (20 products for availability, 1 for holds,
    /// open 06:00-23:00) and starts a server on it with availability answers not served
    /// from memory (the database is what is measured).
    async fn start(store: Store) -> anyhow::Result<Side> {
        let (tenant, site) = seed_site(&store, "bench").await?;
        let avail_seed = seed_products(&store, &tenant, &site).await?;
        let product = holds::seed_product(&store, &tenant, &site).await?;
        open_daily(&store, &tenant, &site, "06:00", "23:00").await?;
        let seed = hold_seed(&store, tenant, site, product, 1).await?;
        let addr = start_server(store.clone(), 0).await?;
        Ok(Side {
            paths: paths(&avail_seed),
            products: avail_seed.products,
            store,
            addr,
            seed,
            availability: Phase::empty()?,
            holds: Phase::empty()?,
            warm_holds: 0,
            errors: 0,
        })
    }

    /// The slots holds are spread over, after the 50 the warm-up takes.
    fn hold_slots(&self) -> &[Uuid] {
        &self.seed.slots[50..50 + SPREAD_SLOTS]
    }

    async fn warm_up(&mut self, n: usize) -> anyhow::Result<()> {
        let second = Duration::from_secs(1);
        let a = availability::measure(self.addr, &self.seed.tenant, self.paths.clone(), n, second)
            .await?;
        let requests = hold_requests(self.addr, &self.seed, &self.seed.slots[..50]);
        let h = load(requests, 0, hold_taken, n, second).await?;
        self.warm_holds += h.succeeded();
        self.errors += a.errors + h.errors;
        Ok(())
    }

    async fn availability_second(&mut self, n: usize) -> anyhow::Result<()> {
        let second = Duration::from_secs(1);
        self.availability.absorb(
            availability::measure(self.addr, &self.seed.tenant, self.paths.clone(), n, second)
                .await?,
        )
    }

    async fn holds_second(&mut self, slice: u64, n: usize) -> anyhow::Result<()> {
        let requests = hold_requests(self.addr, &self.seed, self.hold_slots());
        let second = Duration::from_secs(1);
        self.holds
            .absorb(load(requests, slice * 1_000_000, hold_taken, n, second).await?)
    }

    /// Checks the hold product's capacity accounting and counts the run's errors.
    async fn check(&self) -> anyhow::Result<u64> {
        check_accounting(
            &self.store,
            &self.seed,
            self.warm_holds + self.holds.succeeded(),
        )
        .await?;
        Ok(self.errors + self.availability.errors + self.holds.errors)
    }
}

pub async fn run(cli: &Cli, run: &Run, growth: Growth) -> anyhow::Result<()> {
    let n = cli.connections;
    let seconds = cli.seconds.unwrap_or(10);
    let mut small = Side::start(run.store.clone()).await?;
    // The large side: a second fresh database on the same server (or disk), with the
    // same measured tenant and much more beside it.
    let large_db = TestDb::create_on(cli.postgres.as_deref()).await;
    let large_store = Store::open(&kairos_store::ConnectOptions::new(large_db.url()))
        .await
        .context("opening the second database")?;
    let mut large = Side::start(large_store.clone()).await?;
    let grown = Instant::now();
    let added = grow(&large.store, &large.seed.tenant, &large.products, growth, n).await?;
    println!(
        "added {} tenants and {added} live bookings to the large database in {:.1} s",
        growth.tenants,
        grown.elapsed().as_secs_f64()
    );

    // Both sides take turns by the second, so what else the machine does (and what the
    // holds add) touches both alike.
    small.warm_up(n).await?;
    large.warm_up(n).await?;
    for _ in 0..seconds {
        small.availability_second(n).await?;
        large.availability_second(n).await?;
    }
    for slice in 0..seconds {
        small.holds_second(slice, n).await?;
        large.holds_second(slice, n).await?;
    }

    println!(
        "connections {n} · {seconds} s per phase, small and large alternating by the second · availability cache off · holds of one person on a random slot of {SPREAD_SLOTS}"
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
    let errors = small.check().await? + large.check().await?;
    println!("errors: {errors} (target 0)");
    large_store.close().await;
    drop(large_db);
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
    let hold = i.is_multiple_of(3);
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
        participants: Vec::new(),
        participant_types: Vec::new(),
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
        hold_caps: None,
        created_reason: None,
        terms_accepted_on_behalf: false,
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
