//! What cancellations still owe is asked of the providers (`payments::owed`). Several
//! instances: each refund is begun on the locked payment, and one request at a time asks
//! the provider.

use super::{Job, JobError};
use crate::App;
use std::time::Duration;

pub struct OwedRefunds;

#[async_trait::async_trait]
impl Job for OwedRefunds {
    fn name(&self) -> &'static str {
        "owed_refunds"
    }

    fn every(&self) -> Duration {
        Duration::from_secs(30)
    }

    async fn run(&self, app: &App) -> Result<u64, JobError> {
        let r = crate::payments::owed::finish_unfinished(app)
            .await
            .map_err(|e| e.message())?;
        if r.refunded + r.failed > 0 || r.stalled > 0 {
            tracing::info!(
                refunded = r.refunded,
                waiting = r.waiting,
                failed = r.failed,
                stalled = r.stalled,
                "owed refunds asked of their providers"
            );
        }
        Ok(u64::try_from(r.refunded + r.failed).unwrap_or(u64::MAX) + r.stalled)
    }
}
