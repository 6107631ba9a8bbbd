//! Due messages are sent, each outside any transaction, and their outcome recorded
//! (`messaging::delivery`). Several instances: a claim leases each message to one of them.

use super::{Job, JobError};
use crate::App;
use crate::messaging::delivery::{Mailer, deliver_due};
use std::sync::Arc;
use std::time::Duration;

pub struct DeliverMessages {
    mailer: Arc<Mailer>,
}

impl DeliverMessages {
    pub fn new(mailer: Arc<Mailer>) -> Self {
        Self { mailer }
    }
}

#[async_trait::async_trait]
impl Job for DeliverMessages {
    fn name(&self) -> &'static str {
        "deliver_messages"
    }

    fn every(&self) -> Duration {
        Duration::from_secs(1)
    }

    async fn run(&self, app: &App) -> Result<u64, JobError> {
        let round = deliver_due(&app.store, &self.mailer, app.now()).await?;
        if round.total() > 0 {
            tracing::info!(
                delivered = round.delivered,
                retrying = round.retrying,
                dead_lettered = round.dead_lettered,
                "messages sent"
            );
        }
        Ok(u64::try_from(round.total()).unwrap_or(u64::MAX))
    }
}
