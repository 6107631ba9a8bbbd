//! The application under load, and the catalog the benchmarks seed through the store.

use kairos_api::auth::tokens::TokenKeys;
use kairos_api::rate_limit::{Limits, RateLimiter};
use kairos_api::{ApiConfig, AppState};
use kairos_domain::scheduling::{RecurrenceKind, ScopeType};
use kairos_domain::{Clock, SystemClock, TenantId};
use kairos_store::{Actor, NewProduct, NewSite, NewTemplate, NewTenant, Product, Site, Store};
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

/// The application on its own port, as `kairos serve` runs it, with limits off.
pub async fn start_server(store: Store, cache_ms: u64) -> anyhow::Result<SocketAddr> {
    let state = AppState::new(
        store,
        Arc::new(SystemClock),
        TokenKeys::from_secret(b"kairos-bench-signing-key-0123456789"),
        RateLimiter::in_memory(Limits::UNLIMITED),
        kairos_api::operations::install_metrics(),
        ApiConfig {
            availability_cache_ttl: Duration::from_millis(cache_ms),
            // Every benchmark client is on this machine's address.
            holds_per_customer: 0,
            holds_per_address: 0,
            ..ApiConfig::default()
        },
    );
    let app = kairos_api::router(state);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let addr = listener.local_addr()?;
    tokio::spawn(kairos_api::serve(
        listener,
        app,
        kairos_api::ConnectionLimits::default(),
        std::future::pending(),
    ));
    Ok(addr)
}

pub fn actor() -> Actor {
    Actor::system("bench")
}

/// The tenant `id` with one Helsinki site.
pub async fn seed_site(store: &Store, id: &str) -> anyhow::Result<(TenantId, Site)> {
    let now = SystemClock.now();
    let tenant = TenantId::parse(id)?;
    store
        .create_tenant(
            NewTenant {
                id: tenant.clone(),
                name: format!("Tenant {id}"),
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
                no_show_detection_minutes: None,
            },
            &actor(),
            now,
        )
        .await?;
    Ok((tenant, site))
}

/// A product of `site`: 60-minute slots every 60 minutes, 25.00 per person.
pub async fn create_product(
    store: &Store,
    tenant: &TenantId,
    site: &Site,
    name: String,
    capacity: i32,
) -> anyhow::Result<Product> {
    let product = NewProduct {
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
        waiver_check_in: kairos_domain::waivers::WaiverCheckIn::Warn,
        participant_types: Vec::new(),
    };
    Ok(store
        .create_product(tenant, product, &actor(), SystemClock.now())
        .await?)
}

/// Opens `site` daily from `start` to `end`; returns the slots generated (60 days).
pub async fn open_daily(
    store: &Store,
    tenant: &TenantId,
    site: &Site,
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
            &actor(),
            SystemClock.now(),
        )
        .await?;
    Ok(changed.regeneration.created)
}

/// The future slots of `product` in start order (from two hours ahead).
pub async fn future_slots(
    store: &Store,
    tenant: &TenantId,
    product: &Product,
) -> anyhow::Result<Vec<kairos_store::Slot>> {
    let now = SystemClock.now();
    Ok(store
        .list_slots(
            tenant,
            product.id,
            now + chrono::Duration::hours(2),
            now + chrono::Duration::days(90),
        )
        .await?)
}
