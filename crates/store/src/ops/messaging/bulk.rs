//! Bulk sends (spec Part B 4.8 `POST /admin/messaging/bulk`): staff's message to the
//! customer of every booking in a date range, now or at `sendAt`.
//!
//! - Sending runs in batches, one transaction each ([`BATCH`] bookings in id order): the
//!   batch that queues a booking's message also moves the send's cursor past it, so a send
//!   picked up again after a crash, or by another instance, reaches each booking once.
//! - What decides a message (the booking's status and date, the customer's choices) is
//!   read in the batch's transaction, on the locked booking.
//! - A send is `completed` once every message is written and none waits for delivery;
//!   progress (`total`, `processed`, messages by status) is visible throughout.
//! - Canceling stops the batches and the messages no sender has picked up yet.

use super::super::Repo;
use super::super::audit::Change;
use super::super::dialect;
use super::super::write::Write;
use super::compose::{ChannelOutcome, Compose, Recipient, booking_facts, queue_message_to};
use super::messages::MESSAGE_KIND;
use crate::{
    Actor, Bulk, BulkReport, Idempotency, MessagingError, NewBulk, StoreError, StoreResult,
    Timestamp, Written, stored,
};
use kairos_domain::bookings::BookingStatus;
use kairos_domain::messaging::Channel;
use kairos_domain::messaging::bulk::{BulkStatus, RECIPIENT_STATUSES, RecipientFilter};
use kairos_domain::{TenantId, new_id};
use kairos_store_macros::operations;
use serde_json::json;
use sqlx::QueryBuilder;
use sqlx::types::Json;
use std::collections::{BTreeMap, HashMap};
use uuid::Uuid;

/// Bookings looked at per transaction.
const BATCH: i64 = 100;

/// Sends started or continued per pass.
const SENDS_PER_PASS: i64 = 20;

#[derive(kairos_store_macros::FromRow)]
struct BulkRow {
    id: Uuid,
    channel: String,
    subject: String,
    body: String,
    filter: Json<RecipientFilter>,
    send_at: Timestamp,
    status: String,
    total: i32,
    skipped: i32,
    skip_reasons: Json<BTreeMap<String, i64>>,
    created_by: Option<String>,
    created_at: Timestamp,
    started_at: Option<Timestamp>,
    prepared_at: Option<Timestamp>,
    finished_at: Option<Timestamp>,
    queued: i64,
    delivered: i64,
    failed: i64,
    canceled: i64,
}

const COLUMNS: &str = "k.id, k.channel, k.subject, k.body, k.filter, k.send_at, k.status, \
     k.total, k.skipped, k.skip_reasons, k.created_by, k.created_at, k.started_at, \
     k.prepared_at, k.finished_at, \
     (SELECT COUNT(*) FROM messages m WHERE m.tenant_id = k.tenant_id AND m.bulk_id = k.id \
        AND m.status = 'queued') AS queued, \
     (SELECT COUNT(*) FROM messages m WHERE m.tenant_id = k.tenant_id AND m.bulk_id = k.id \
        AND m.status = 'delivered') AS delivered, \
     (SELECT COUNT(*) FROM messages m WHERE m.tenant_id = k.tenant_id AND m.bulk_id = k.id \
        AND m.status = 'failed') AS failed, \
     (SELECT COUNT(*) FROM messages m WHERE m.tenant_id = k.tenant_id AND m.bulk_id = k.id \
        AND m.status = 'canceled') AS canceled";

impl TryFrom<BulkRow> for Bulk {
    type Error = StoreError;

    fn try_from(r: BulkRow) -> Result<Self, StoreError> {
        let messages = r.queued + r.delivered + r.failed + r.canceled;
        Ok(Bulk {
            id: r.id,
            filter: r.filter.0,
            channel: stored("channel", &r.channel, Channel::parse)?,
            subject: r.subject,
            body: r.body,
            send_at: r.send_at,
            status: stored("bulk status", &r.status, BulkStatus::parse)?,
            // Counted as sending started; once every message is written, those reached.
            total: if r.prepared_at.is_some() {
                messages + i64::from(r.skipped)
            } else {
                i64::from(r.total)
            },
            skipped: i64::from(r.skipped),
            skip_reasons: r.skip_reasons.0,
            processed: messages + i64::from(r.skipped),
            queued: r.queued,
            delivered: r.delivered,
            failed: r.failed,
            canceled: r.canceled,
            created_by: r.created_by,
            created_at: r.created_at,
            started_at: r.started_at,
            prepared_at: r.prepared_at,
            finished_at: r.finished_at,
        })
    }
}

/// The send as it is being sent: what a batch needs.
#[derive(kairos_store_macros::FromRow)]
struct SendingRow {
    status: String,
    channel: String,
    subject: String,
    body: String,
    filter: Json<RecipientFilter>,
    send_at: Timestamp,
    cursor_booking: Option<Uuid>,
    total: i32,
    skipped: i32,
    skip_reasons: Json<BTreeMap<String, i64>>,
    prepared_at: Option<Timestamp>,
}

#[derive(kairos_store_macros::FromRow)]
struct Candidate {
    id: Uuid,
    starts_at: Timestamp,
    timezone: String,
}

/// How one batch ended.
enum Batch {
    /// More bookings to look at.
    More,
    /// Every booking was looked at (or the send is not sending).
    Done,
}

fn zone(name: &str, cache: &mut HashMap<String, jiff::tz::TimeZone>) -> jiff::tz::TimeZone {
    cache
        .entry(name.to_owned())
        .or_insert_with(|| jiff::tz::TimeZone::get(name).unwrap_or(jiff::tz::TimeZone::UTC))
        .clone()
}

/// The live bookings in `filter`'s coarse UTC bounds after `cursor`, in id order (refine
/// with [`RecipientFilter::includes`]).
async fn candidates(
    w: &mut Write,
    filter: &RecipientFilter,
    cursor: Option<Uuid>,
    limit: Option<i64>,
) -> Result<Vec<Candidate>, StoreError> {
    let (lo, hi) = filter.coarse_bounds();
    let mut q = QueryBuilder::new(
        "SELECT b.id, b.starts_at, s.timezone FROM bookings b
         JOIN sites s ON s.tenant_id = b.tenant_id AND s.id = b.site_id
         WHERE b.tenant_id = ",
    );
    q.push_bind(w.tenant.as_str().to_owned());
    q.push(" AND b.starts_at >= ").push_bind(lo);
    q.push(" AND b.starts_at < ").push_bind(hi);
    q.push(" AND b.status IN (");
    let mut list = q.separated(", ");
    for s in RECIPIENT_STATUSES {
        list.push_bind(s.as_str());
    }
    q.push(")");
    if let Some(site) = filter.site_id {
        q.push(" AND b.site_id = ").push_bind(site);
    }
    if let Some(after) = cursor {
        q.push(" AND b.id > ").push_bind(after);
    }
    q.push(" ORDER BY b.id");
    if let Some(limit) = limit {
        q.push(" LIMIT ").push_bind(limit);
    }
    Ok(q.build_query_as().fetch_all(&mut *w.tx).await?)
}

#[operations]
impl Repo {
    /// Records a bulk send, to start at `new.send_at`. With an `Idempotency-Key`, a
    /// repeated request answers the first send instead of making a second.
    pub async fn create_bulk(
        &self,
        tenant: &TenantId,
        new: NewBulk,
        actor: &Actor,
        now: Timestamp,
        idem: Option<Idempotency<'_, Bulk>>,
    ) -> Result<Written<Bulk>, MessagingError> {
        let mut w = self.begin(tenant, now).await?;
        if let Some(replay) = w.claim::<_, MessagingError>(idem.as_ref()).await? {
            return Ok(Written::Replayed(replay));
        }
        if let Some(site) = new.filter.site_id
            && !w.has_site(site).await?
        {
            return w.finish(Err(MessagingError::SiteNotFound), None).await;
        }
        let id = new_id();
        sqlx::query(
            "INSERT INTO message_bulks (tenant_id, id, channel, subject, body, filter, send_at,
                 status, total, skipped, created_by, created_at, updated_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 0, 0, $9, $10, $10)",
        )
        .bind(tenant.as_str())
        .bind(id)
        .bind(new.channel.as_str())
        .bind(&new.subject)
        .bind(&new.body)
        .bind(Json(new.filter))
        .bind(new.send_at)
        .bind(BulkStatus::Scheduled.as_str())
        .bind(&actor.id)
        .bind(now)
        .execute(&mut *w.tx)
        .await?;
        w.audit(
            actor,
            Change {
                action: "message.bulk_created",
                entity_type: "message_bulk",
                entity_id: id.to_string(),
                changes: json!({
                    "channel": new.channel.as_str(),
                    "recipientFilter": new.filter,
                    "sendAt": new.send_at,
                }),
            },
        );
        let bulk = Bulk {
            id,
            filter: new.filter,
            channel: new.channel,
            subject: new.subject,
            body: new.body,
            send_at: new.send_at,
            status: BulkStatus::Scheduled,
            total: 0,
            skipped: 0,
            skip_reasons: BTreeMap::new(),
            processed: 0,
            queued: 0,
            delivered: 0,
            failed: 0,
            canceled: 0,
            created_by: actor.id.clone(),
            created_at: now,
            started_at: None,
            prepared_at: None,
            finished_at: None,
        };
        w.finish(Ok(bulk), idem.map(|i| i.render))
            .await
            .map(Written::Done)
    }

    /// A bulk send of the tenant with its progress.
    pub async fn get_bulk(&self, tenant: &TenantId, id: Uuid) -> StoreResult<Option<Bulk>> {
        let row: Option<BulkRow> = sqlx::query_as(sql!(
            "SELECT {COLUMNS} FROM message_bulks k WHERE k.tenant_id = $1 AND k.id = $2"
        ))
        .bind(tenant.as_str())
        .bind(id)
        .fetch_optional(&self.read)
        .await?;
        row.map(Bulk::try_from).transpose()
    }

    /// The tenant's bulk sends, newest first, optionally of one status.
    pub async fn list_bulks(
        &self,
        tenant: &TenantId,
        status: Option<BulkStatus>,
        limit: u32,
    ) -> StoreResult<Vec<Bulk>> {
        let mut q = QueryBuilder::new(format!(
            "SELECT {COLUMNS} FROM message_bulks k WHERE k.tenant_id = "
        ));
        q.push_bind(tenant.as_str());
        if let Some(s) = status {
            q.push(" AND k.status = ").push_bind(s.as_str());
        }
        q.push(" ORDER BY k.created_at DESC, k.id DESC LIMIT ")
            .push_bind(i64::from(limit.clamp(1, 200)));
        let rows: Vec<BulkRow> = q.build_query_as().fetch_all(&self.read).await?;
        rows.into_iter().map(Bulk::try_from).collect()
    }

    /// Stops a scheduled or sending bulk send: no more of its messages are written, and
    /// those no sender has picked up yet are canceled (one being sent, or waiting for a
    /// retry, still goes).
    pub async fn cancel_bulk(
        &self,
        tenant: &TenantId,
        id: Uuid,
        actor: &Actor,
        now: Timestamp,
    ) -> Result<Bulk, MessagingError> {
        let mut w = self.begin(tenant, now).await?;
        let status: Option<String> = sqlx::query_scalar(sql!(
            "SELECT status FROM message_bulks WHERE tenant_id = $1 AND id = $2{}",
            dialect::FOR_UPDATE
        ))
        .bind(tenant.as_str())
        .bind(id)
        .fetch_optional(&mut *w.tx)
        .await?;
        let status = stored(
            "bulk status",
            &status.ok_or(MessagingError::BulkNotFound)?,
            BulkStatus::parse,
        )?;
        if !matches!(status, BulkStatus::Scheduled | BulkStatus::Sending) {
            return Err(MessagingError::BulkClosed(status.as_str()));
        }
        sqlx::query(
            "UPDATE message_bulks SET status = $3, finished_at = $4, updated_at = $4
             WHERE tenant_id = $1 AND id = $2",
        )
        .bind(tenant.as_str())
        .bind(id)
        .bind(BulkStatus::Canceled.as_str())
        .bind(now)
        .execute(&mut *w.tx)
        .await?;
        // Outbox rows never claimed (attempts 0) go; a claim in progress keeps its row
        // (PostgreSQL: the claim locks it first, or this delete does).
        let dropped = sqlx::query(
            "DELETE FROM outbox
             WHERE tenant_id = $1 AND kind = $3 AND status = 'pending' AND attempts = 0
               AND id IN (SELECT m.id FROM messages m
                          WHERE m.tenant_id = $1 AND m.bulk_id = $2 AND m.status = 'queued')",
        )
        .bind(tenant.as_str())
        .bind(id)
        .bind(MESSAGE_KIND)
        .execute(&mut *w.tx)
        .await?;
        sqlx::query(
            "UPDATE messages SET status = 'canceled', updated_at = $3
             WHERE tenant_id = $1 AND bulk_id = $2 AND status = 'queued'
               AND NOT EXISTS (SELECT 1 FROM outbox o
                               WHERE o.tenant_id = messages.tenant_id AND o.id = messages.id)",
        )
        .bind(tenant.as_str())
        .bind(id)
        .bind(now)
        .execute(&mut *w.tx)
        .await?;
        w.audit(
            actor,
            Change {
                action: "message.bulk_canceled",
                entity_type: "message_bulk",
                entity_id: id.to_string(),
                changes: json!({"from": status.as_str(), "messagesCanceled": dropped.rows_affected()}),
            },
        );
        w.commit(None).await?;
        self.get_bulk(tenant, id)
            .await?
            .ok_or(MessagingError::BulkNotFound)
    }

    /// One pass over the bulk sends at `now`: starts the due ones, writes up to
    /// `batches` batches of messages of each one sending (then the next send, and the next
    /// pass, get a turn), and completes those with nothing left to deliver. Safe to run
    /// on several instances at once.
    pub async fn run_bulk_sends(&self, now: Timestamp, batches: usize) -> StoreResult<BulkReport> {
        let due: Vec<(String, Uuid)> = sqlx::query_as(
            "SELECT tenant_id, id FROM message_bulks
             WHERE status IN ('scheduled', 'sending') AND prepared_at IS NULL AND send_at <= $1
             ORDER BY send_at, id LIMIT $2",
        )
        .bind(now)
        .bind(SENDS_PER_PASS)
        .fetch_all(&self.read)
        .await?;
        let mut report = BulkReport::default();
        for (tenant, id) in due {
            let tenant = TenantId::parse(&tenant)
                .map_err(|e| StoreError::Corrupt(format!("bulk send tenant: {e}")))?;
            for _ in 0..batches.max(1) {
                match self.bulk_batch(&tenant, id, now, &mut report).await? {
                    Batch::More => tokio::task::yield_now().await,
                    Batch::Done => break,
                }
            }
        }
        let done = sqlx::query(
            "UPDATE message_bulks SET status = 'completed', finished_at = $1, updated_at = $1
             WHERE status = 'sending' AND prepared_at IS NOT NULL
               AND NOT EXISTS (SELECT 1 FROM messages m
                               WHERE m.tenant_id = message_bulks.tenant_id
                                 AND m.bulk_id = message_bulks.id AND m.status = 'queued')",
        )
        .bind(now)
        .execute(&self.write)
        .await?;
        report.completed = usize::try_from(done.rows_affected()).unwrap_or(usize::MAX);
        Ok(report)
    }
}

impl Repo {
    /// Writes the messages of the next [`BATCH`] bookings of send `id`, in one
    /// transaction with the cursor that records how far the send got.
    async fn bulk_batch(
        &self,
        tenant: &TenantId,
        id: Uuid,
        now: Timestamp,
        report: &mut BulkReport,
    ) -> Result<Batch, StoreError> {
        let mut w = self.begin(tenant, now).await?;
        let row: Option<SendingRow> = sqlx::query_as(sql!(
            "SELECT status, channel, subject, body, filter, send_at, cursor_booking, total,
                    skipped, skip_reasons, prepared_at
             FROM message_bulks WHERE tenant_id = $1 AND id = $2{}",
            dialect::FOR_UPDATE
        ))
        .bind(tenant.as_str())
        .bind(id)
        .fetch_optional(&mut *w.tx)
        .await?;
        let Some(send) = row else {
            return Ok(Batch::Done);
        };
        let status = stored("bulk status", &send.status, BulkStatus::parse)?;
        if !matches!(status, BulkStatus::Scheduled | BulkStatus::Sending)
            || send.prepared_at.is_some()
            || send.send_at > now
        {
            // Another instance finished it, or staff canceled it.
            return Ok(Batch::Done);
        }
        let channel = stored("channel", &send.channel, Channel::parse)?;
        let filter = send.filter.0;
        let mut zones = HashMap::new();
        let mut total = i64::from(send.total);
        if status == BulkStatus::Scheduled {
            // The recipients as sending starts: how many there are, for progress.
            let all = candidates(&mut w, &filter, None, None).await?;
            total = i64::try_from(
                all.iter()
                    .filter(|c| filter.includes(&zone(&c.timezone, &mut zones), c.starts_at))
                    .count(),
            )
            .unwrap_or(i64::MAX);
            report.started += 1;
        }
        let batch = candidates(&mut w, &filter, send.cursor_booking, Some(BATCH)).await?;
        let last = i64::try_from(batch.len()).unwrap_or(i64::MAX) < BATCH;
        let mut skipped = i64::from(send.skipped);
        let mut reasons = send.skip_reasons.0.clone();
        let mut cursor = send.cursor_booking;
        let channels = [channel];
        for c in &batch {
            cursor = Some(c.id);
            if !filter.includes(&zone(&c.timezone, &mut zones), c.starts_at) {
                continue;
            }
            let outcome = bulk_message(&mut w, id, c.id, &channels, &send, now).await?;
            match outcome {
                Ok(()) => report.messages += 1,
                Err(reason) => {
                    skipped += 1;
                    report.skipped += 1;
                    *reasons.entry(reason.to_owned()).or_insert(0) += 1;
                }
            }
        }
        sqlx::query(
            "UPDATE message_bulks SET status = 'sending', started_at = COALESCE(started_at, $3),
                 cursor_booking = $4, total = $5, skipped = $6, skip_reasons = $7,
                 prepared_at = $8, updated_at = $3
             WHERE tenant_id = $1 AND id = $2",
        )
        .bind(tenant.as_str())
        .bind(id)
        .bind(now)
        .bind(cursor)
        .bind(i32::try_from(total).unwrap_or(i32::MAX))
        .bind(i32::try_from(skipped).unwrap_or(i32::MAX))
        .bind(Json(&reasons))
        .bind(last.then_some(now))
        .execute(&mut *w.tx)
        .await?;
        w.commit(None).await?;
        Ok(if last { Batch::Done } else { Batch::More })
    }
}

/// Queues send `bulk`'s message for booking `booking`, or says why it got none. The
/// booking is locked and read again: it may have been cancelled or moved since the
/// candidates were read.
async fn bulk_message(
    w: &mut Write,
    bulk: Uuid,
    booking: Uuid,
    channels: &[Channel],
    send: &SendingRow,
    now: Timestamp,
) -> Result<Result<(), &'static str>, StoreError> {
    let filter = &send.filter.0;
    let Some(b) = booking_facts(w, booking).await? else {
        return Ok(Err("booking_canceled"));
    };
    let live = BookingStatus::parse(&b.status).is_some_and(|s| RECIPIENT_STATUSES.contains(&s));
    if !live {
        return Ok(Err("booking_canceled"));
    }
    let tz = jiff::tz::TimeZone::get(&b.timezone).unwrap_or(jiff::tz::TimeZone::UTC);
    if !filter.includes(&tz, b.starts_at) || filter.site_id.is_some_and(|s| s != b.site_id) {
        return Ok(Err("moved_out_of_range"));
    }
    let outcomes = queue_message_to(
        w,
        &Recipient::of_booking(&b),
        Compose {
            channels,
            content: Some((&send.subject, &send.body)),
            bulk_id: Some(bulk),
            ..Compose::of("bulk", "bulk", now)
        },
    )
    .await?;
    Ok(match outcomes.first().map(|(_, o)| *o) {
        Some(ChannelOutcome::Queued(_)) => Ok(()),
        Some(ChannelOutcome::Withheld(why)) => Err(why.as_str()),
        Some(ChannelOutcome::RenderFailed) => Err("render_failed"),
        Some(ChannelOutcome::NoTemplate) | None => Err("no_template"),
    })
}
