//! Idempotency records live 24 hours; expired ones go. Several instances: a delete of
//! what expired is the same however often it runs.

use super::{Job, JobError};
use crate::App;
use std::time::Duration;

pub struct PurgeIdempotencyKeys;

#[async_trait::async_trait]
impl Job for PurgeIdempotencyKeys {
    fn name(&self) -> &'static str {
        "purge_idempotency_keys"
    }

    fn every(&self) -> Duration {
        Duration::from_secs(60)
    }

    async fn run(&self, app: &App) -> Result<u64, JobError> {
        let n = app.store.purge_expired_idempotency_keys(app.now()).await?;
        if n > 0 {
            tracing::info!(removed = n, "expired idempotency keys purged");
        }
        Ok(n)
    }
}
