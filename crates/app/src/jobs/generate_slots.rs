//! Every product's slots are kept generated to the horizon (spec Part B 4.12). Daily is
//! enough for the horizon to move; hourly also repairs slots after a missed run.
//! Idempotent and serialised per product, so several instances may run it at once.

use super::{Job, JobError};
use crate::App;
use kairos_domain::scheduling::ScopeType;
use kairos_store::{DateSpan, Store, StoreError};
use std::time::Duration;

pub struct GenerateSlots;

#[async_trait::async_trait]
impl Job for GenerateSlots {
    fn name(&self) -> &'static str {
        "generate_slots"
    }

    fn every(&self) -> Duration {
        Duration::from_secs(3600)
    }

    async fn run(&self, app: &App) -> Result<u64, JobError> {
        Ok(generate_slots(&app.store, app.now()).await?)
    }
}

/// Tops every product up to the horizon at `now`: how many slots were created. A product
/// that fails is logged and the others go on.
pub async fn generate_slots(
    store: &Store,
    now: chrono::DateTime<chrono::Utc>,
) -> Result<u64, StoreError> {
    let mut created = 0;
    for (tenant, product) in store.all_products().await? {
        match store
            .regenerate(
                &tenant,
                ScopeType::Product,
                product,
                DateSpan::default(),
                now,
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
    Ok(u64::try_from(created).unwrap_or(u64::MAX))
}
