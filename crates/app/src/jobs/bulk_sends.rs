//! Bulk sends that are due start and continue (spec Part B 4.8), a few batches per pass
//! so that every send gets a turn. Several instances: each batch is claimed with its send.

use super::{Job, JobError};
use crate::App;
use std::time::Duration;

/// Batches (of 100 bookings) one bulk send writes per pass before the next send gets a
/// turn.
const BATCHES_PER_PASS: usize = 20;

pub struct BulkSends;

#[async_trait::async_trait]
impl Job for BulkSends {
    fn name(&self) -> &'static str {
        "bulk_sends"
    }

    fn every(&self) -> Duration {
        Duration::from_secs(2)
    }

    async fn run(&self, app: &App) -> Result<u64, JobError> {
        let r = app
            .store
            .run_bulk_sends(app.now(), BATCHES_PER_PASS)
            .await?;
        if r.started + r.messages + r.skipped + r.completed > 0 {
            tracing::info!(
                started = r.started,
                messages = r.messages,
                skipped = r.skipped,
                completed = r.completed,
                "bulk sends advanced"
            );
        }
        Ok(u64::try_from(r.messages).unwrap_or(u64::MAX))
    }
}
