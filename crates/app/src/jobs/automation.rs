//! Automation rules that came due fire (spec Part B 4.8): a confirmation goes out within
//! this job's interval of the booking. Several instances: each (rule, booking) fires once
//! (a unique record claims it).

use super::{Job, JobError};
use crate::App;
use std::time::Duration;

pub struct Automation;

#[async_trait::async_trait]
impl Job for Automation {
    fn name(&self) -> &'static str {
        "automation"
    }

    fn every(&self) -> Duration {
        Duration::from_secs(10)
    }

    async fn run(&self, app: &App) -> Result<u64, JobError> {
        let r = app.store.run_automation(app.now()).await?;
        if r.fired + r.skipped > 0 {
            tracing::info!(
                fired = r.fired,
                skipped = r.skipped,
                messages = r.messages,
                "automation rules fired"
            );
        }
        Ok(u64::try_from(r.fired).unwrap_or(u64::MAX))
    }
}
