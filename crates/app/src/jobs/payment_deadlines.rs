//! Online payments past their deadline are asked about at their provider: settled when
//! paid after all, else their booking is cancelled (`payments::deadline`). Several
//! instances: each acts through conditional writes on the payment and booking, so a
//! deadline acts once.

use super::{Job, JobError};
use crate::App;
use std::time::Duration;

pub struct PaymentDeadlines;

#[async_trait::async_trait]
impl Job for PaymentDeadlines {
    fn name(&self) -> &'static str {
        "payment_deadlines"
    }

    fn every(&self) -> Duration {
        Duration::from_secs(60)
    }

    async fn run(&self, app: &App) -> Result<u64, JobError> {
        let r = crate::payments::deadline::run_once(app).await?;
        if r.settled + r.canceled > 0 {
            tracing::info!(
                settled = r.settled,
                canceled = r.canceled,
                skipped = r.skipped,
                "payments past their deadline handled"
            );
        }
        Ok(u64::try_from(r.settled + r.canceled).unwrap_or(u64::MAX))
    }
}
