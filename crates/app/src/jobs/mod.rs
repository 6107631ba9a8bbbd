//! Background jobs: one file each, with its name and interval, listed in [`all`].
//!
//! Each job runs as a task of its own ([`spawn`]), so a slow pass (a provider that takes
//! its time) never delays another job. A pass that fails or panics is logged and counted,
//! and the job goes on at its next tick. Every job is safe with several instances of the
//! service running at once: its work is claimed row by row (`FOR UPDATE SKIP LOCKED`, a
//! lease, a conditional update or a per-scope lock in the store), never by "only one
//! instance runs this". An area adds its sweep by adding a file and a line to [`all`].
//!
//! Metrics per job (label `job`): `kairos_job_runs_total`, `kairos_job_failures_total`
//! (errors and panics), `kairos_job_duration_seconds` and `kairos_job_items_total` (what
//! the passes handled: holds expired, messages sent, …).

mod automation;
mod bulk_sends;
mod deliver_messages;
mod detect_no_shows;
mod expire_holds;
mod generate_slots;
mod owed_refunds;
mod payment_deadlines;
mod purge_idempotency_keys;
mod purge_waivers;

pub use deliver_messages::DeliverMessages;
pub use detect_no_shows::detect_no_shows;
pub use expire_holds::expire_holds;
pub use generate_slots::generate_slots;

use crate::App;
use crate::messaging::delivery::Mailer;
use futures::FutureExt;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::watch;
use tokio::task::JoinHandle;

/// Why a pass failed.
pub type JobError = Box<dyn std::error::Error + Send + Sync>;

/// A periodic job.
#[async_trait::async_trait]
pub trait Job: Send + Sync + 'static {
    /// Its name in logs and metrics.
    fn name(&self) -> &'static str;

    /// The time from the start of one pass to the start of the next (a pass that takes
    /// longer delays the next, never overlaps it).
    fn every(&self) -> Duration;

    /// One pass: how many items it handled.
    async fn run(&self, app: &App) -> Result<u64, JobError>;
}

/// Every job of the service, delivering messages with `mailer`.
pub fn all(mailer: Arc<Mailer>) -> Vec<Arc<dyn Job>> {
    vec![
        Arc::new(expire_holds::ExpireHolds),
        Arc::new(DeliverMessages::new(mailer)),
        Arc::new(automation::Automation),
        Arc::new(bulk_sends::BulkSends),
        Arc::new(payment_deadlines::PaymentDeadlines),
        Arc::new(owed_refunds::OwedRefunds),
        Arc::new(purge_idempotency_keys::PurgeIdempotencyKeys),
        Arc::new(generate_slots::GenerateSlots),
        Arc::new(detect_no_shows::DetectNoShows),
        Arc::new(purge_waivers::PurgeWaivers),
    ]
}

/// What one pass came to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pass {
    Done(u64),
    Failed,
    Panicked,
}

/// Runs one pass of `job`, catching a panic, and records it: logged when it failed, and
/// counted in the job's metrics.
pub async fn run_pass(job: &dyn Job, app: &App) -> Pass {
    let name = job.name();
    let started = Instant::now();
    let outcome = std::panic::AssertUnwindSafe(job.run(app))
        .catch_unwind()
        .await;
    metrics::counter!("kairos_job_runs_total", "job" => name).increment(1);
    metrics::histogram!("kairos_job_duration_seconds", "job" => name)
        .record(started.elapsed().as_secs_f64());
    match outcome {
        Ok(Ok(items)) => {
            metrics::counter!("kairos_job_items_total", "job" => name).increment(items);
            Pass::Done(items)
        }
        Ok(Err(e)) => {
            metrics::counter!("kairos_job_failures_total", "job" => name).increment(1);
            tracing::warn!(job = name, error = %e, "job pass failed; it runs again at its next tick");
            Pass::Failed
        }
        Err(panic) => {
            metrics::counter!("kairos_job_failures_total", "job" => name).increment(1);
            let what = panic
                .downcast_ref::<&str>()
                .map(|s| (*s).to_owned())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "a panic".to_owned());
            tracing::error!(job = name, panic = %what, "job pass panicked; it runs again at its next tick");
            Pass::Panicked
        }
    }
}

/// Runs `job` every [`Job::every`] until `shutdown` turns true; a pass under way when it
/// does is finished first.
async fn run_every(app: App, job: Arc<dyn Job>, mut shutdown: watch::Receiver<bool>) {
    let mut ticks = tokio::time::interval(job.every());
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            _ = ticks.tick() => {
                run_pass(job.as_ref(), &app).await;
            }
            _ = shutdown.changed() => {
                if *shutdown.borrow() {
                    break;
                }
            }
        }
        if *shutdown.borrow() {
            break;
        }
    }
}

/// Starts every job in `jobs` as its own task; they stop when `shutdown` turns true.
pub fn spawn(
    app: &App,
    jobs: Vec<Arc<dyn Job>>,
    shutdown: &watch::Receiver<bool>,
) -> Vec<JoinHandle<()>> {
    jobs.into_iter()
        .map(|job| {
            tracing::debug!(job = job.name(), every = ?job.every(), "job started");
            tokio::spawn(run_every(app.clone(), job, shutdown.clone()))
        })
        .collect()
}

#[cfg(test)]
mod tests;
