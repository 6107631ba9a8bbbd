//! `kairos-bench outbox`: 1,000 queued emails delivered by the delivery worker's loop
//! (claim with a lease, send over SMTP, record) to a local SMTP sink, next to the ceiling
//! measured in the same run: the same emails sent by lettre straight to the same sink,
//! with the same number in flight and no database.

use crate::app::seed_site;
use crate::{Cli, Run};
use anyhow::{Context, bail};
use kairos_domain::messaging::{Channel, Priority};
use kairos_domain::{Clock, SystemClock};
use kairos_server::delivery::{DeliverySettings, Mailer, deliver_due};
use kairos_store::NewMessage;
use kairos_testkit::smtp::SmtpSink;
use lettre::message::Mailbox;
use lettre::message::header::ContentType;
use lettre::{AsyncSmtpTransport, AsyncTransport, Message, Tokio1Executor};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Options of the outbox benchmark.
#[derive(Debug, Clone, clap::Args)]
pub struct Messages {
    /// Messages queued before delivery starts.
    #[arg(long, default_value_t = 1_000)]
    messages: usize,
}

/// Sends in flight at once, as the delivery worker.
const IN_FLIGHT: usize = 8;

const BODY: &str = "<p>Hello Ada,</p>\n<p>Thank you for booking The Lost Temple on November 24, 2026 at 10:00 for 2.</p>\n<p>Your reference is <strong>KX7P2M</strong>. Total: €64.00.</p>";

pub async fn run(_cli: &Cli, run: &Run, opts: Messages) -> anyhow::Result<()> {
    let n = opts.messages;
    let (tenant, _) = seed_site(&run.store, "bench").await?;
    let now = SystemClock.now();
    for i in 0..n {
        run.store
            .queue_message(
                &tenant,
                NewMessage {
                    channel: Channel::Email,
                    template_key: Some("booking_confirmation".into()),
                    source: "bench",
                    recipient: format!("guest{i}@example.com"),
                    recipient_name: "Ada Lovelace".into(),
                    customer_id: None,
                    booking_id: None,
                    rule_id: None,
                    bulk_id: None,
                    subject: format!("Your booking KX7P{i:04}"),
                    body: BODY.into(),
                    priority: Priority::Normal,
                    track_delivery: false,
                    send_after: now,
                },
                now,
            )
            .await
            .context("queueing a message")?;
    }
    let sink = SmtpSink::start().await;
    let dir = tempfile::tempdir()?;
    let mailer = Arc::new(Mailer::new(&DeliverySettings {
        smtp_url: Some(sink.url()),
        mail_from: "Kairos <bookings@bench.test>".into(),
        sms_url: None,
        sms_token: None,
        sms_from: None,
        public_url: None,
        files_dir: dir.path().to_path_buf(),
        max_attempts: 5,
        backoff: Duration::from_secs(30),
    })?);

    // The outbox: rounds of the delivery loop until nothing is due.
    let started = Instant::now();
    let mut delivered = 0;
    while delivered < n {
        let round = deliver_due(&run.store, &mailer, SystemClock.now()).await?;
        if round.total() == 0 {
            bail!("delivery stopped after {delivered} of {n} messages");
        }
        if round.retrying + round.dead_lettered > 0 {
            bail!(
                "{} messages failed against a sink that accepts everything",
                round.retrying + round.dead_lettered
            );
        }
        delivered += round.delivered;
    }
    let outbox = started.elapsed();
    let received = sink.wait_for(n, Duration::from_secs(10)).await.len();
    if received != n {
        bail!("the sink received {received} of {n} messages");
    }

    // The ceiling: the same emails through lettre alone.
    let transport = Arc::new(
        AsyncSmtpTransport::<Tokio1Executor>::from_url(&sink.url())?
            .timeout(Some(Duration::from_secs(30)))
            .build(),
    );
    let from: Mailbox = "Kairos <bookings@bench.test>".parse()?;
    let started = Instant::now();
    let mut tasks = tokio::task::JoinSet::new();
    let next = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    for _ in 0..IN_FLIGHT {
        let (transport, from, next) = (transport.clone(), from.clone(), next.clone());
        tasks.spawn(async move {
            loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                if i >= n {
                    return Ok::<(), anyhow::Error>(());
                }
                let message = Message::builder()
                    .from(from.clone())
                    .to(Mailbox::new(
                        Some("Ada Lovelace".into()),
                        format!("guest{i}@example.com").parse()?,
                    ))
                    .subject(format!("Your booking KX7P{i:04}"))
                    .message_id(Some(format!("<raw-{i}@bench>")))
                    .header(ContentType::TEXT_HTML)
                    .body(BODY.to_owned())?;
                transport.send(message).await?;
            }
        });
    }
    while let Some(done) = tasks.join_next().await {
        done??;
    }
    let raw = started.elapsed();
    let received = sink.wait_for(2 * n, Duration::from_secs(10)).await.len();
    if received != 2 * n {
        bail!("the sink received {} of {n} raw messages", received - n);
    }

    let rate = |d: Duration| n as f64 / d.as_secs_f64();
    println!(
        "outbox: {n} queued emails delivered to a local SMTP sink in {:.2} s: {:.0} msgs/s",
        outbox.as_secs_f64(),
        rate(outbox)
    );
    println!(
        "ceiling (the same emails sent by lettre straight to the sink, {IN_FLIGHT} in flight, no database): {:.2} s: {:.0} msgs/s",
        raw.as_secs_f64(),
        rate(raw)
    );
    println!(
        "outbox / ceiling: {:.1} %",
        100.0 * raw.as_secs_f64() / outbox.as_secs_f64()
    );
    Ok(())
}
