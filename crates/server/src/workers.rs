//! Background workers. Each job is idempotent and safe with several instances running.

use kairos_domain::Clock;
use kairos_store::Store;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::watch;

/// Runs the periodic jobs until `shutdown` turns true.
pub async fn run(store: Store, clock: Arc<dyn Clock>, mut shutdown: watch::Receiver<bool>) {
    let mut tick = tokio::time::interval(Duration::from_secs(60));
    loop {
        tokio::select! {
            _ = tick.tick() => {
                purge_idempotency_keys(&store, clock.as_ref()).await;
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
