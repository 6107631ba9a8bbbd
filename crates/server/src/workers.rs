//! Background workers. Each job is idempotent and safe with several instances running.

use kairos_domain::Clock;
use kairos_store::{DateSpan, Store};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::watch;

/// How often slot generation tops every product up to the horizon. Daily is enough for
/// the horizon to move; running hourly also repairs slots after a missed run.
const GENERATION_EVERY: Duration = Duration::from_secs(3600);

/// Runs the periodic jobs until `shutdown` turns true.
pub async fn run(store: Store, clock: Arc<dyn Clock>, mut shutdown: watch::Receiver<bool>) {
    let mut tick = tokio::time::interval(Duration::from_secs(60));
    let mut generation = tokio::time::interval(GENERATION_EVERY);
    loop {
        tokio::select! {
            _ = tick.tick() => {
                purge_idempotency_keys(&store, clock.as_ref()).await;
            }
            _ = generation.tick() => {
                generate_slots(&store, clock.as_ref()).await;
            }
            _ = shutdown.changed() => {
                if *shutdown.borrow() {
                    break;
                }
            }
        }
    }
    tracing::info!("workers stopped");
}

/// Idempotency records live 24 hours (ARCHITECTURE section 5); expired ones go.
async fn purge_idempotency_keys(store: &Store, clock: &dyn Clock) {
    match store.purge_expired_idempotency_keys(clock.now()).await {
        Ok(0) => {}
        Ok(n) => tracing::info!(removed = n, "expired idempotency keys purged"),
        Err(e) => tracing::warn!(error = %e, "purging idempotency keys failed"),
    }
}

/// Keeps every product's slots generated to the horizon (spec Part B 4.12). Idempotent
/// and serialised per product, so several instances may run it at once.
pub async fn generate_slots(store: &Store, clock: &dyn Clock) {
    let products = match store.all_products().await {
        Ok(p) => p,
        Err(e) => {
            tracing::warn!(error = %e, "slot generation could not list products");
            return;
        }
    };
    let mut created = 0;
    for (tenant, product) in products {
        match store
            .regenerate(
                &tenant,
                "product",
                product,
                DateSpan::default(),
                clock.now(),
                false,
            )
            .await
        {
            Ok(report) => created += report.created,
            Err(e) => {
                tracing::warn!(tenant_id = %tenant, product_id = %product, error = %e, "slot generation failed")
            }
        }
    }
    if created > 0 {
        tracing::info!(created, "slots generated to the horizon");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kairos_domain::TenantId;
    use kairos_testkit::TestApp;

    #[tokio::test]
    async fn generation_moves_the_horizon_forward_each_day_and_is_idempotent() {
        let app = TestApp::spawn().await;
        let t = app.tenant("acme").await;
        let fx = app.catalog(&t).await;
        app.daily_hours(&t, "site", &fx.site_id, "10:00", "14:00")
            .await;
        let tenant = TenantId::parse("acme").unwrap_or_else(|e| panic!("{e}"));
        let product = uuid::Uuid::parse_str(&fx.product_id).unwrap_or_else(|e| panic!("{e}"));
        let count = || async {
            let from = app.clock_now() - chrono::Duration::days(5);
            let to = app.clock_now() + chrono::Duration::days(90);
            app.store
                .list_slots(&tenant, product, from, to)
                .await
                .unwrap_or_default()
                .len()
        };
        let before = count().await;
        generate_slots(&app.store, &app.clock).await;
        assert_eq!(count().await, before, "nothing new on the same day");

        app.clock.advance(chrono::Duration::days(1));
        generate_slots(&app.store, &app.clock).await;
        assert_eq!(
            count().await,
            before + 4,
            "one more day of four slots at the horizon"
        );
        generate_slots(&app.store, &app.clock).await;
        assert_eq!(count().await, before + 4);
    }
}
