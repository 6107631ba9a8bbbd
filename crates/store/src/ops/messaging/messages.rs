//! The message log and its delivery: a message is a `messages` row plus an outbox row of
//! kind `message` with the same id, written in the transaction that decided to send it.
//! Workers claim due outbox rows with a lease, send outside any transaction, then record
//! the outcome: delivered, another attempt after a backoff, or the dead-letter queue.

use super::super::write::Write;
use super::super::{Repo, dialect};
use crate::stored;
use crate::{
    Delivery, DeliveryResult, Message, MessageCounts, MessageFilter, MessagingError, NewMessage,
    Recorded, StoreError, StoreResult, Timestamp,
};
use kairos_domain::dead_letters::{Category, Status as DeadStatus};
use kairos_domain::messaging::{Channel, MessageStatus, Priority};
use kairos_domain::{TenantId, new_id};
use kairos_store_macros::operations;
use sqlx::QueryBuilder;
use sqlx::types::Json;
use uuid::Uuid;

/// The outbox kind of a message.
pub(crate) const MESSAGE_KIND: &str = "message";

#[derive(kairos_store_macros::FromRow)]
struct MessageRow {
    id: Uuid,
    channel: String,
    template_key: Option<String>,
    source: String,
    recipient: String,
    recipient_name: String,
    customer_id: Option<Uuid>,
    booking_id: Option<Uuid>,
    rule_id: Option<Uuid>,
    bulk_id: Option<Uuid>,
    subject: String,
    body: String,
    priority: String,
    track_delivery: bool,
    status: String,
    send_after: Timestamp,
    sent_at: Option<Timestamp>,
    delivered_at: Option<Timestamp>,
    opened_at: Option<Timestamp>,
    clicked_at: Option<Timestamp>,
    failed_at: Option<Timestamp>,
    last_error: Option<String>,
    attempts: Option<i32>,
    created_at: Timestamp,
    updated_at: Timestamp,
}

const COLUMNS: &str = "m.id, m.channel, m.template_key, m.source, m.recipient, \
     m.recipient_name, m.customer_id, m.booking_id, m.rule_id, m.bulk_id, m.subject, m.body, \
     m.priority, m.track_delivery, m.status, m.send_after, m.sent_at, m.delivered_at, \
     m.opened_at, m.clicked_at, m.failed_at, m.last_error, o.attempts, m.created_at, \
     m.updated_at";

const FROM: &str = "messages m LEFT JOIN outbox o ON o.tenant_id = m.tenant_id AND o.id = m.id";

impl TryFrom<MessageRow> for Message {
    type Error = StoreError;

    fn try_from(r: MessageRow) -> Result<Self, StoreError> {
        Ok(Message {
            id: r.id,
            channel: stored("channel", &r.channel, Channel::parse)?,
            template_key: r.template_key,
            source: r.source,
            recipient: r.recipient,
            recipient_name: r.recipient_name,
            customer_id: r.customer_id,
            booking_id: r.booking_id,
            rule_id: r.rule_id,
            bulk_id: r.bulk_id,
            subject: r.subject,
            body: r.body,
            priority: stored("priority", &r.priority, Priority::parse)?,
            track_delivery: r.track_delivery,
            status: stored("message status", &r.status, MessageStatus::parse)?,
            send_after: r.send_after,
            sent_at: r.sent_at,
            delivered_at: r.delivered_at,
            opened_at: r.opened_at,
            clicked_at: r.clicked_at,
            failed_at: r.failed_at,
            last_error: r.last_error,
            attempts: r.attempts.unwrap_or(0),
            created_at: r.created_at,
            updated_at: r.updated_at,
        })
    }
}

/// Queues `m` in the write's transaction: it is sent once the transaction commits (and
/// not before `m.send_after`). High priority goes ahead of the queue by a minute.
pub(crate) async fn enqueue(w: &mut Write, m: &NewMessage) -> Result<Uuid, StoreError> {
    let id = new_id();
    sqlx::query(
        "INSERT INTO messages (tenant_id, id, channel, template_key, source, recipient,
             recipient_name, customer_id, booking_id, rule_id, bulk_id, subject, body, priority,
             track_delivery, status, send_after, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, 'queued',
                 $16, $17, $17)",
    )
    .bind(w.tenant.as_str())
    .bind(id)
    .bind(m.channel.as_str())
    .bind(&m.template_key)
    .bind(m.source)
    .bind(&m.recipient)
    .bind(&m.recipient_name)
    .bind(m.customer_id)
    .bind(m.booking_id)
    .bind(m.rule_id)
    .bind(m.bulk_id)
    .bind(&m.subject)
    .bind(&m.body)
    .bind(m.priority.as_str())
    .bind(m.track_delivery)
    .bind(m.send_after)
    .bind(w.now)
    .execute(&mut *w.tx)
    .await?;
    let due = match m.priority {
        Priority::High => m.send_after - chrono::Duration::minutes(1),
        Priority::Normal | Priority::Low => m.send_after,
    };
    sqlx::query(
        "INSERT INTO outbox (tenant_id, id, kind, payload, status, attempts, next_attempt_at,
             created_at, updated_at)
         VALUES ($1, $2, $3, $4, 'pending', 0, $5, $6, $6)",
    )
    .bind(w.tenant.as_str())
    .bind(id)
    .bind(MESSAGE_KIND)
    .bind(Json(serde_json::json!({"messageId": id})))
    .bind(due)
    .bind(w.now)
    .execute(&mut *w.tx)
    .await?;
    Ok(id)
}

#[derive(kairos_store_macros::FromRow)]
struct ClaimRow {
    tenant_id: String,
    id: Uuid,
    attempts: i32,
}

#[derive(kairos_store_macros::FromRow)]
struct ContentRow {
    channel: String,
    recipient: String,
    recipient_name: String,
    subject: String,
    body: String,
    track_delivery: bool,
}

/// channel, template key, queued, delivered, failed, opened, clicked.
type CountRow = (String, Option<String>, i64, i64, i64, i64, i64);

#[operations]
impl Repo {
    /// Queues one message (the messaging tools; automation queues inside its own writes).
    pub async fn queue_message(
        &self,
        tenant: &TenantId,
        message: NewMessage,
        now: Timestamp,
    ) -> Result<Uuid, MessagingError> {
        let mut w = self.begin(tenant, now).await?;
        let id = enqueue(&mut w, &message).await?;
        w.commit(None).await?;
        Ok(id)
    }

    /// Claims up to `limit` messages due at `now` for one attempt each: their attempt count
    /// goes up and they are hidden from other workers until `lease_until`, when a worker
    /// that died mid-send loses them to the next. Several workers claim disjoint sets.
    pub async fn claim_deliveries(
        &self,
        now: Timestamp,
        limit: i64,
        lease_until: Timestamp,
    ) -> StoreResult<Vec<Delivery>> {
        let mut tx = self.begin_write().await?;
        // Select, then update row by row: PostgreSQL may run a `LIMIT … SKIP LOCKED`
        // subquery inside `UPDATE … WHERE … IN (…)` more than once and claim more rows
        // than the limit.
        let due: Vec<(String, Uuid)> = sqlx::query_as(sql!(
            "SELECT tenant_id, id FROM outbox
             WHERE kind = $3 AND status = 'pending' AND next_attempt_at <= $1
             ORDER BY next_attempt_at, id LIMIT $2{}",
            dialect::FOR_UPDATE_SKIP_LOCKED
        ))
        .bind(now)
        .bind(limit)
        .bind(MESSAGE_KIND)
        .fetch_all(&mut *tx)
        .await?;
        let mut claimed = Vec::with_capacity(due.len());
        for (tenant_id, id) in due {
            let attempts: i32 = sqlx::query_scalar(
                "UPDATE outbox SET attempts = attempts + 1, next_attempt_at = $3, updated_at = $4
                 WHERE tenant_id = $1 AND id = $2
                 RETURNING attempts",
            )
            .bind(&tenant_id)
            .bind(id)
            .bind(lease_until)
            .bind(now)
            .fetch_one(&mut *tx)
            .await?;
            claimed.push(ClaimRow {
                tenant_id,
                id,
                attempts,
            });
        }
        let mut out = Vec::with_capacity(claimed.len());
        for c in claimed {
            let content: Option<ContentRow> = sqlx::query_as(
                "SELECT channel, recipient, recipient_name, subject, body, track_delivery
                 FROM messages WHERE tenant_id = $1 AND id = $2",
            )
            .bind(&c.tenant_id)
            .bind(c.id)
            .fetch_optional(&mut *tx)
            .await?;
            let tenant = TenantId::parse(&c.tenant_id)
                .map_err(|e| StoreError::Corrupt(format!("outbox tenant: {e}")))?;
            let Some(m) = content else {
                // An outbox row without its message cannot be sent: dead-letter it.
                sqlx::query(
                    "UPDATE outbox SET status = 'dead', last_error = 'message missing'
                     WHERE tenant_id = $1 AND id = $2",
                )
                .bind(&c.tenant_id)
                .bind(c.id)
                .execute(&mut *tx)
                .await?;
                continue;
            };
            out.push(Delivery {
                tenant,
                id: c.id,
                attempt: c.attempts,
                channel: stored("channel", &m.channel, Channel::parse)?,
                recipient: m.recipient,
                recipient_name: m.recipient_name,
                subject: m.subject,
                body: m.body,
                track_delivery: m.track_delivery,
            });
        }
        tx.commit().await?;
        Ok(out)
    }

    /// Records how attempt `attempt` of message `id` went. A transient failure is retried
    /// at `retry_at` when there is one (attempts left); otherwise a failure dead-letters
    /// the message. A claim that is no longer ours records nothing ([`Recorded::Stale`]).
    pub async fn record_delivery(
        &self,
        tenant: &TenantId,
        id: Uuid,
        attempt: i32,
        result: DeliveryResult,
        retry_at: Option<Timestamp>,
        now: Timestamp,
    ) -> StoreResult<Recorded> {
        let mut tx = self.begin_write().await?;
        let t = tenant.as_str();
        let (error_type, message, last) = match &result {
            DeliveryResult::Delivered => {
                let done = sqlx::query(
                    "UPDATE outbox SET status = 'delivered', delivered_at = $3, updated_at = $3,
                         last_error = NULL
                     WHERE tenant_id = $1 AND id = $2 AND attempts = $4 AND status = 'pending'",
                )
                .bind(t)
                .bind(id)
                .bind(now)
                .bind(attempt)
                .execute(&mut *tx)
                .await?;
                if done.rows_affected() == 0 {
                    return Ok(Recorded::Stale);
                }
                sqlx::query(
                    "UPDATE messages SET status = 'delivered', sent_at = COALESCE(sent_at, $3),
                         delivered_at = $3, failed_at = NULL, updated_at = $3
                     WHERE tenant_id = $1 AND id = $2",
                )
                .bind(t)
                .bind(id)
                .bind(now)
                .execute(&mut *tx)
                .await?;
                // A gift card's delivery email sent: the purchase is delivered.
                sqlx::query(
                    "UPDATE gift_card_purchases SET status = 'delivered', delivered_at = $3,
                         updated_at = $3
                     WHERE tenant_id = $1 AND delivery_message_id = $2 AND status = 'paid'",
                )
                .bind(t)
                .bind(id)
                .bind(now)
                .execute(&mut *tx)
                .await?;
                sqlx::query(
                    "UPDATE dead_letters SET status = 'resolved', resolution = 'delivered on retry',
                         resolved_at = $3, updated_at = $3
                     WHERE tenant_id = $1 AND outbox_id = $2 AND status = 'retrying'",
                )
                .bind(t)
                .bind(id)
                .bind(now)
                .execute(&mut *tx)
                .await?;
                tx.commit().await?;
                return Ok(Recorded::Delivered);
            }
            DeliveryResult::Transient {
                error_type,
                message,
            } => (error_type, message, retry_at.is_none()),
            DeliveryResult::Permanent {
                error_type,
                message,
            } => (error_type, message, true),
        };
        let text = format!("{error_type}: {message}");
        if let (false, Some(retry_at)) = (last, retry_at) {
            let done = sqlx::query(
                "UPDATE outbox SET next_attempt_at = $3, last_error = $4, updated_at = $5
                 WHERE tenant_id = $1 AND id = $2 AND attempts = $6 AND status = 'pending'",
            )
            .bind(t)
            .bind(id)
            .bind(retry_at)
            .bind(&text)
            .bind(now)
            .bind(attempt)
            .execute(&mut *tx)
            .await?;
            if done.rows_affected() == 0 {
                return Ok(Recorded::Stale);
            }
            sqlx::query(
                "UPDATE messages SET last_error = $3, updated_at = $4
                 WHERE tenant_id = $1 AND id = $2",
            )
            .bind(t)
            .bind(id)
            .bind(&text)
            .bind(now)
            .execute(&mut *tx)
            .await?;
            tx.commit().await?;
            return Ok(Recorded::Retrying(retry_at));
        }
        let done = sqlx::query(
            "UPDATE outbox SET status = 'dead', last_error = $3, updated_at = $4
             WHERE tenant_id = $1 AND id = $2 AND attempts = $5 AND status = 'pending'",
        )
        .bind(t)
        .bind(id)
        .bind(&text)
        .bind(now)
        .bind(attempt)
        .execute(&mut *tx)
        .await?;
        if done.rows_affected() == 0 {
            return Ok(Recorded::Stale);
        }
        let (channel, booking_id): (String, Option<Uuid>) = sqlx::query_as(
            "UPDATE messages SET status = 'failed', failed_at = $3, last_error = $4,
                 updated_at = $3
             WHERE tenant_id = $1 AND id = $2
             RETURNING channel, booking_id",
        )
        .bind(t)
        .bind(id)
        .bind(now)
        .bind(&text)
        .fetch_one(&mut *tx)
        .await?;
        // One dead letter per message: failing again after a retry reopens it and adds
        // this round's attempts to its count.
        sqlx::query(
            "INSERT INTO dead_letters (tenant_id, id, category, kind, error_type, error_message,
                 retry_count, outbox_id, booking_id, status, failed_at, created_at, updated_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $11, $11)
             ON CONFLICT (tenant_id, outbox_id) DO UPDATE SET
                 error_type = excluded.error_type, error_message = excluded.error_message,
                 retry_count = dead_letters.retry_count + excluded.retry_count,
                 status = excluded.status, resolution = NULL, resolved_by = NULL,
                 resolved_at = NULL, failed_at = excluded.failed_at,
                 updated_at = excluded.updated_at",
        )
        .bind(t)
        .bind(new_id())
        .bind(Category::Notification.as_str())
        .bind(&channel)
        .bind(error_type)
        .bind(message)
        .bind(attempt)
        .bind(id)
        .bind(booking_id)
        .bind(DeadStatus::Open.as_str())
        .bind(now)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(Recorded::DeadLettered)
    }

    /// A message of the tenant.
    pub async fn get_message(&self, tenant: &TenantId, id: Uuid) -> StoreResult<Option<Message>> {
        let row: Option<MessageRow> = sqlx::query_as(sql!(
            "SELECT {COLUMNS} FROM {FROM} WHERE m.tenant_id = $1 AND m.id = $2"
        ))
        .bind(tenant.as_str())
        .bind(id)
        .fetch_optional(&self.read)
        .await?;
        row.map(Message::try_from).transpose()
    }

    /// The tenant's messages matching `filter`, newest first.
    pub async fn list_messages(
        &self,
        tenant: &TenantId,
        filter: &MessageFilter,
    ) -> StoreResult<Vec<Message>> {
        let mut q = QueryBuilder::new(format!("SELECT {COLUMNS} FROM {FROM} WHERE m.tenant_id = "));
        q.push_bind(tenant.as_str());
        if let Some(b) = filter.booking_id {
            q.push(" AND m.booking_id = ").push_bind(b);
        }
        if let Some(c) = filter.customer_id {
            q.push(" AND m.customer_id = ").push_bind(c);
        }
        if let Some(c) = filter.channel {
            q.push(" AND m.channel = ").push_bind(c.as_str());
        }
        if let Some(s) = filter.status {
            q.push(" AND m.status = ").push_bind(s.as_str());
        }
        if let Some(b) = filter.bulk_id {
            q.push(" AND m.bulk_id = ").push_bind(b);
        }
        q.push(" ORDER BY m.created_at DESC, m.id DESC LIMIT ")
            .push_bind(i64::from(filter.limit.clamp(1, 500)));
        let rows: Vec<MessageRow> = q.build_query_as().fetch_all(&self.read).await?;
        rows.into_iter().map(Message::try_from).collect()
    }

    /// Counts of the tenant's messages created in `[from, to]`, by channel and template.
    pub async fn message_counts(
        &self,
        tenant: &TenantId,
        from: Timestamp,
        to: Timestamp,
    ) -> StoreResult<Vec<MessageCounts>> {
        let rows: Vec<CountRow> = sqlx::query_as(
            "SELECT channel, template_key, COUNT(*),
                    COALESCE(SUM(CASE WHEN delivered_at IS NOT NULL THEN 1 ELSE 0 END), 0),
                    COALESCE(SUM(CASE WHEN failed_at IS NOT NULL THEN 1 ELSE 0 END), 0),
                    COALESCE(SUM(CASE WHEN opened_at IS NOT NULL THEN 1 ELSE 0 END), 0),
                    COALESCE(SUM(CASE WHEN clicked_at IS NOT NULL THEN 1 ELSE 0 END), 0)
             FROM messages
             WHERE tenant_id = $1 AND created_at >= $2 AND created_at <= $3
             GROUP BY channel, template_key
             ORDER BY channel, template_key",
        )
        .bind(tenant.as_str())
        .bind(from)
        .bind(to)
        .fetch_all(&self.read)
        .await?;
        rows.into_iter()
            .map(
                |(channel, template_key, queued, delivered, failed, opened, clicked)| {
                    Ok(MessageCounts {
                        channel: stored("channel", &channel, Channel::parse)?,
                        template_key,
                        queued,
                        delivered,
                        failed,
                        opened,
                        clicked,
                    })
                },
            )
            .collect()
    }

    /// Records that a tracked message was opened (`clicked` false) or a link in it
    /// followed; the first time counts. A click implies an open. Returns whether the
    /// message exists and is tracked.
    pub async fn track_message(
        &self,
        tenant: &TenantId,
        id: Uuid,
        clicked: bool,
        now: Timestamp,
    ) -> StoreResult<bool> {
        let mut tx = self.begin_write().await?;
        let sql = if clicked {
            "UPDATE messages SET clicked_at = COALESCE(clicked_at, $3),
                 opened_at = COALESCE(opened_at, $3), updated_at = $3
             WHERE tenant_id = $1 AND id = $2 AND track_delivery"
        } else {
            "UPDATE messages SET opened_at = COALESCE(opened_at, $3), updated_at = $3
             WHERE tenant_id = $1 AND id = $2 AND track_delivery"
        };
        let done = sqlx::query(sql)
            .bind(tenant.as_str())
            .bind(id)
            .bind(now)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(done.rows_affected() == 1)
    }
}
