//! Message delivery (spec Part B 4.8, 4.11): the worker that takes due messages from the
//! outbox, sends each by email or SMS outside any database transaction, and records the
//! outcome: delivered, retried after an exponential backoff, or dead-lettered after the
//! last attempt (at once when the failure is permanent).
//!
//! Transports: SMTP through lettre (`smtp.rs`) when `smtp_url` is set, an HTTP SMS
//! provider (`sms.rs`) when `sms_url` and `sms_token` are; otherwise each message is
//! written as a file under `data_dir/messages/<tenant>/` (`files.rs`): `.eml` for email,
//! `.txt` for SMS, so the embedded demo shows what a customer would get.
//!
//! Delivery is at least once: a worker that dies after the mail server accepted a message
//! but before recording it sends it again when its lease runs out. Every email carries
//! `Message-ID: <message id@kairos>` so that mail systems can spot the repeat.

mod files;
mod sms;
mod smtp;
mod tracking;

use futures::StreamExt;
use kairos_domain::messaging::{Channel, backoff};
use kairos_store::{Delivery, DeliveryResult, Recorded, Store};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

pub use files::MessageFiles;

/// Messages claimed per round.
const BATCH: i64 = 20;
/// Sends in flight at once.
const CONCURRENCY: usize = 8;
/// How long a claim hides a message from other workers: longer than any send may take.
const LEASE: Duration = Duration::from_secs(300);

/// Where email goes.
pub enum EmailTransport {
    Smtp(smtp::Smtp),
    Files(MessageFiles),
}

/// Where SMS go.
pub enum SmsTransport {
    Http(sms::SmsProvider),
    Files(MessageFiles),
}

/// How messages are sent and retried.
pub struct Mailer {
    /// The sender of email.
    pub from: lettre::message::Mailbox,
    pub email: EmailTransport,
    pub sms: SmsTransport,
    /// Base of tracking links (`public_url`), if tracking is possible.
    pub public_url: Option<String>,
    pub max_attempts: i32,
    pub backoff: Duration,
}

/// The settings delivery is built from.
#[derive(Debug, Clone)]
pub struct DeliverySettings {
    pub smtp_url: Option<String>,
    pub mail_from: String,
    pub sms_url: Option<String>,
    pub sms_token: Option<String>,
    pub sms_from: Option<String>,
    pub public_url: Option<String>,
    /// Where messages are written when no transport is configured.
    pub files_dir: PathBuf,
    pub max_attempts: i32,
    pub backoff: Duration,
}

impl Mailer {
    /// Builds the transports; a malformed SMTP URL or sender is an error naming it.
    pub fn new(s: &DeliverySettings) -> anyhow::Result<Mailer> {
        let from: lettre::message::Mailbox = s.mail_from.parse().map_err(|e| {
            anyhow::anyhow!(
                "mail_from (KAIROS_MAIL_FROM) {:?} is not a mailbox: {e}",
                s.mail_from
            )
        })?;
        let files = MessageFiles::new(s.files_dir.clone());
        let email = match &s.smtp_url {
            Some(url) => EmailTransport::Smtp(smtp::Smtp::new(url)?),
            None => EmailTransport::Files(files.clone()),
        };
        let sms = match (&s.sms_url, &s.sms_token) {
            (Some(url), Some(token)) => {
                SmsTransport::Http(sms::SmsProvider::new(url, token, s.sms_from.clone())?)
            }
            (Some(_), None) => {
                anyhow::bail!("sms_url is set but sms_token (KAIROS_SMS_TOKEN) is not")
            }
            _ => SmsTransport::Files(files),
        };
        Ok(Mailer {
            from,
            email,
            sms,
            public_url: s.public_url.clone(),
            max_attempts: s.max_attempts.max(1),
            backoff: s.backoff,
        })
    }

    /// Where messages go, for the start banner.
    pub fn describe(&self) -> String {
        let email = match &self.email {
            EmailTransport::Smtp(s) => format!("email over SMTP to {}", s.describe()),
            EmailTransport::Files(f) => format!("email as .eml files in {}", f.dir().display()),
        };
        let sms = match &self.sms {
            SmsTransport::Http(p) => format!("SMS to {}", p.describe()),
            SmsTransport::Files(f) => format!("SMS as .txt files in {}", f.dir().display()),
        };
        format!("{email}; {sms}")
    }

    async fn send(&self, d: &Delivery) -> DeliveryResult {
        match d.channel {
            Channel::Email => {
                let body = match &self.public_url {
                    Some(base) => absolute_links(&d.body, base),
                    None => d.body.clone(),
                };
                let body = match (&self.public_url, d.track_delivery) {
                    (Some(base), true) => tracking::instrument(&body, base, &d.tenant, d.id),
                    _ => body,
                };
                let message = match smtp::compose(d, &body, &self.from) {
                    Ok(m) => m,
                    Err(e) => return e,
                };
                match &self.email {
                    EmailTransport::Smtp(s) => s.send(message).await,
                    EmailTransport::Files(f) => f.write_email(d, &message).await,
                }
            }
            Channel::Sms => match &self.sms {
                SmsTransport::Http(p) => p.send(d).await,
                SmsTransport::Files(f) => f.write_sms(d).await,
            },
        }
    }
}

/// Makes the links of a message that point into Kairos itself (`href="/book/…"`, such
/// as a waiver signing link) absolute with the public address.
fn absolute_links(body: &str, base: &str) -> String {
    body.replace(
        "href=\"/",
        &format!("href=\"{}/", base.trim_end_matches('/')),
    )
}

/// What one round did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Round {
    pub delivered: usize,
    pub retrying: usize,
    pub dead_lettered: usize,
}

impl Round {
    pub fn total(&self) -> usize {
        self.delivered + self.retrying + self.dead_lettered
    }
}

/// Sends the messages due at `now`, a batch at a time, until none is due; returns what
/// happened to them. Safe with several workers (claims are disjoint).
pub async fn deliver_due(
    store: &Store,
    mailer: &Arc<Mailer>,
    now: chrono::DateTime<chrono::Utc>,
) -> anyhow::Result<Round> {
    let mut round = Round::default();
    loop {
        let lease = now + chrono::Duration::from_std(LEASE).unwrap_or_default();
        let batch = store.claim_deliveries(now, BATCH, lease).await?;
        if batch.is_empty() {
            return Ok(round);
        }
        let results: Vec<(Delivery, DeliveryResult)> = futures::stream::iter(batch)
            .map(|d| async move {
                let result = mailer.send(&d).await;
                (d, result)
            })
            .buffer_unordered(CONCURRENCY)
            .collect()
            .await;
        for (d, result) in results {
            let wait = backoff(d.attempt, mailer.backoff);
            let retry_at = (d.attempt < mailer.max_attempts)
                .then(|| now + chrono::Duration::from_std(wait).unwrap_or_default());
            if let DeliveryResult::Transient {
                error_type,
                message,
            }
            | DeliveryResult::Permanent {
                error_type,
                message,
            } = &result
            {
                tracing::warn!(tenant_id = %d.tenant, message_id = %d.id, attempt = d.attempt,
                    error_type, error = %message, "message delivery failed");
            }
            match store
                .record_delivery(&d.tenant, d.id, d.attempt, result, retry_at, now)
                .await?
            {
                Recorded::Delivered => round.delivered += 1,
                Recorded::Retrying(_) => round.retrying += 1,
                Recorded::DeadLettered => {
                    tracing::error!(tenant_id = %d.tenant, message_id = %d.id,
                        "message moved to the dead-letter queue");
                    round.dead_lettered += 1;
                }
                Recorded::Stale => {}
            }
        }
    }
}
