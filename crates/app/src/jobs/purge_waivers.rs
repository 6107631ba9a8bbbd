//! Signed waivers are kept for the tenant's retention (7 years unless the tenant sets
//! another), counted from the signature; then they go, and each tenant's purge is in its
//! audit log. Hourly; a delete of what is past retention is the same however often it runs.

use super::{Job, JobError};
use crate::App;
use std::time::Duration;

pub struct PurgeWaivers;

#[async_trait::async_trait]
impl Job for PurgeWaivers {
    fn name(&self) -> &'static str {
        "purge_waivers"
    }

    fn every(&self) -> Duration {
        Duration::from_secs(3600)
    }

    async fn run(&self, app: &App) -> Result<u64, JobError> {
        let n = app.store.purge_waiver_signatures(app.now()).await?;
        if n > 0 {
            tracing::info!(removed = n, "signed waivers past retention purged");
        }
        Ok(n)
    }
}
