//! Overdue holds move to `expired` and release their seats. Holds are also reclaimed by
//! the next hold on their slot, so capacity never waits for this job. Several instances:
//! each batch locks its holds (`FOR UPDATE SKIP LOCKED` on PostgreSQL), so a hold expires
//! once.

use super::{Job, JobError};
use crate::App;
use kairos_store::{Store, StoreError};
use std::time::Duration;

/// Holds expired per transaction. Each batch is one write transaction: on SQLite it holds
/// the one writer connection and requests queue behind it; on PostgreSQL it locks the
/// slots of its holds. Small batches keep a request's wait to one batch (milliseconds),
/// however many holds expire at once.
const BATCH: i64 = 50;

pub struct ExpireHolds;

#[async_trait::async_trait]
impl Job for ExpireHolds {
    fn name(&self) -> &'static str {
        "expire_holds"
    }

    fn every(&self) -> Duration {
        Duration::from_secs(5)
    }

    async fn run(&self, app: &App) -> Result<u64, JobError> {
        Ok(expire_holds(&app.store, app.now()).await?)
    }
}

/// Expires the holds overdue at `now`, batch by batch: how many.
pub async fn expire_holds(
    store: &Store,
    now: chrono::DateTime<chrono::Utc>,
) -> Result<u64, StoreError> {
    let mut total = 0;
    loop {
        let n = store.expire_overdue_holds(now, BATCH).await?;
        total += n;
        if n < u64::try_from(BATCH).unwrap_or(0) {
            break;
        }
        // Requests waiting for the database go first (the write pool queues fairly); the
        // next batch waits its turn behind them.
        tokio::task::yield_now().await;
    }
    if total > 0 {
        tracing::info!(expired = total, "overdue holds expired");
    }
    Ok(total)
}
