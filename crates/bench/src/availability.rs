//! `kairos-bench availability`: `GET /availability` against the same server's `/healthz`.

use crate::app::{create_product, open_daily, seed_site, start_server};
use crate::load::{Phase, drive};
use crate::{Cli, Run};
use anyhow::bail;
use kairos_domain::TenantId;
use kairos_store::{Site, Store};
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The availability catalog: 20 products on one site open 09:00-21:00 daily, hourly
/// 60-minute slots of capacity 12.
pub struct AvailabilitySeed {
    /// (product id, site id)
    pub products: Vec<(String, String)>,
}

pub async fn seed_products(
    store: &Store,
    tenant: &TenantId,
    site: &Site,
) -> anyhow::Result<AvailabilitySeed> {
    let mut products = Vec::new();
    for i in 0..20 {
        let p = create_product(store, tenant, site, format!("Activity {i}"), 12).await?;
        products.push((p.id.to_string(), site.id.to_string()));
    }
    Ok(AvailabilitySeed { products })
}

/// 7-day availability queries for two people over every product, starting on each of
/// the next seven days.
pub fn paths(seed: &AvailabilitySeed) -> Arc<Vec<String>> {
    let today = chrono::Utc::now().date_naive();
    Arc::new(
        (0..7)
            .flat_map(|offset| {
                let from = today + chrono::Duration::days(offset + 1);
                let to = from + chrono::Duration::days(6);
                seed.products.iter().map(move |(p, s)| {
                    format!(
                        "/api/v1/availability?product_id={p}&site_id={s}&date_from={from}&date_to={to}&party_size=2"
                    )
                })
            })
            .collect(),
    )
}

/// Loads `GET /availability` on `paths` for `duration`.
pub async fn measure(
    addr: SocketAddr,
    tenant: &TenantId,
    paths: Arc<Vec<String>>,
    connections: usize,
    duration: Duration,
) -> anyhow::Result<Phase> {
    let header = vec![("x-tenant-id", tenant.to_string())];
    drive(addr, header, paths, connections, duration).await
}

pub async fn run(cli: &Cli, run: &Run) -> anyhow::Result<()> {
    let store = &run.store;
    let seeded = Instant::now();
    let (tenant, site) = seed_site(store, "bench").await?;
    let seed = seed_products(store, &tenant, &site).await?;
    let created = open_daily(store, &tenant, &site, "09:00", "21:00").await?;
    println!("seeded: 20 products, {created} slots over 60 days");
    println!("seeding took {:.1} s", seeded.elapsed().as_secs_f64());
    let addr = start_server(store.clone(), cli.cache_ms).await?;
    let paths = paths(&seed);
    let seconds = cli.seconds.unwrap_or(10);
    let duration = Duration::from_secs(seconds);
    let n = cli.connections;

    // Warm up connections, caches and the database.
    measure(addr, &tenant, paths.clone(), n, Duration::from_secs(1)).await?;
    let health = drive(
        addr,
        Vec::new(),
        Arc::new(vec!["/healthz".to_owned()]),
        n,
        duration,
    )
    .await?;
    let avail = measure(addr, &tenant, paths, n, duration).await?;

    println!(
        "connections {n} · {seconds} s per phase · availability cache {} ms",
        cli.cache_ms
    );
    health.print("/healthz");
    avail.print("/availability");
    println!(
        "ratio availability / healthz: {:.1} % (target >= 25 %)",
        avail.rate() / health.rate() * 100.0
    );
    println!(
        "availability p99: {:.2} ms (target < 20 ms); errors: {} (target 0)",
        avail.p99_ms(),
        avail.errors + health.errors
    );
    if avail.errors + health.errors > 0 {
        bail!("requests failed during the run");
    }
    Ok(())
}
