//! The dead-letter queue (spec Part B 4.11): listing, reading, and staff's actions: retry
//! now, resolve by hand, skip with a reason. Messages land here from delivery
//! (`ops/messaging/messages.rs`); payments and booking operations will add theirs.

use super::audit::Change;
use super::{Repo, dialect};
use crate::stored;
use crate::{
    Actor, DeadLetter, DeadLetterFilter, MessagingError, PaymentLetter, StoreError, StoreResult,
    Timestamp,
};
use kairos_domain::TenantId;
use kairos_domain::dead_letters::{Action, Category, Status, after};
use kairos_store_macros::operations;
use serde_json::json;
use sqlx::QueryBuilder;
use uuid::Uuid;

/// An amount in minor units as staff read it in a letter: "80.00 EUR".
pub(crate) fn amount_text(minor: i64, currency: &str) -> String {
    match kairos_domain::tenancy::Currency::parse(currency) {
        Ok(c) => format!(
            "{:.*} {currency}",
            usize::try_from(c.minor_digits()).unwrap_or(2),
            kairos_domain::money::to_major(minor, c)
        ),
        Err(_) => format!("{minor} minor units of {currency}"),
    }
}

/// Opens `letter` in `tenant`, in the transaction `tx` of the change it is about.
pub(crate) async fn open_payment_letter(
    tx: &mut sqlx::Transaction<'static, super::Db>,
    tenant: &TenantId,
    letter: &PaymentLetter<'_>,
    now: Timestamp,
) -> StoreResult<()> {
    sqlx::query(
        "INSERT INTO dead_letters (tenant_id, id, category, kind, error_type, error_message,
             retry_count, booking_id, transaction_id, status, failed_at, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, 0, $7, $8, $9, $10, $10, $10)",
    )
    .bind(tenant.as_str())
    .bind(kairos_domain::new_id())
    .bind(Category::Payment.as_str())
    .bind(letter.kind)
    .bind(letter.error_type)
    .bind(letter.message)
    .bind(letter.booking_id)
    .bind(letter.transaction_id)
    .bind(Status::Open.as_str())
    .bind(now)
    .execute(&mut **tx)
    .await?;
    Ok(())
}

#[derive(kairos_store_macros::FromRow)]
struct Row {
    id: Uuid,
    category: String,
    kind: String,
    error_type: String,
    error_message: String,
    retry_count: i32,
    outbox_id: Option<Uuid>,
    booking_id: Option<Uuid>,
    transaction_id: Option<Uuid>,
    status: String,
    resolution: Option<String>,
    resolved_by: Option<String>,
    resolved_at: Option<Timestamp>,
    failed_at: Timestamp,
    created_at: Timestamp,
    updated_at: Timestamp,
}

const COLUMNS: &str = "id, category, kind, error_type, error_message, retry_count, outbox_id, \
     booking_id, transaction_id, status, resolution, resolved_by, resolved_at, failed_at, \
     created_at, updated_at";

impl TryFrom<Row> for DeadLetter {
    type Error = StoreError;

    fn try_from(r: Row) -> Result<Self, StoreError> {
        Ok(DeadLetter {
            id: r.id,
            category: stored("dead letter category", &r.category, Category::parse)?,
            kind: r.kind,
            error_type: r.error_type,
            error_message: r.error_message,
            retry_count: r.retry_count,
            outbox_id: r.outbox_id,
            booking_id: r.booking_id,
            transaction_id: r.transaction_id,
            status: stored("dead letter status", &r.status, Status::parse)?,
            resolution: r.resolution,
            resolved_by: r.resolved_by,
            resolved_at: r.resolved_at,
            failed_at: r.failed_at,
            created_at: r.created_at,
            updated_at: r.updated_at,
        })
    }
}

fn push_filter(q: &mut QueryBuilder<super::Db>, f: &DeadLetterFilter) {
    if let Some(c) = f.category {
        q.push(" AND category = ").push_bind(c.as_str());
    }
    if let Some(k) = &f.kind {
        q.push(" AND kind = ").push_bind(k.clone());
    }
    if let Some(s) = f.status {
        q.push(" AND status = ").push_bind(s.as_str());
    }
    if let Some(b) = f.booking_id {
        q.push(" AND booking_id = ").push_bind(b);
    }
}

#[operations]
impl Repo {
    /// Opens a payment dead letter on its own (a provider's report that changes nothing,
    /// such as a bank callback naming another amount than was asked for).
    pub async fn open_payment_dead_letter(
        &self,
        tenant: &TenantId,
        letter: PaymentLetter<'_>,
        now: Timestamp,
    ) -> StoreResult<()> {
        let mut tx = self.write.begin_with(dialect::BEGIN_WRITE).await?;
        open_payment_letter(&mut tx, tenant, &letter, now).await?;
        tx.commit().await?;
        Ok(())
    }

    /// A page of the tenant's dead letters, newest failure first, and how many match.
    pub async fn list_dead_letters(
        &self,
        tenant: &TenantId,
        filter: &DeadLetterFilter,
    ) -> StoreResult<(Vec<DeadLetter>, u64)> {
        let mut count = QueryBuilder::new("SELECT COUNT(*) FROM dead_letters WHERE tenant_id = ");
        count.push_bind(tenant.as_str());
        push_filter(&mut count, filter);
        let total: i64 = count.build_query_scalar().fetch_one(&self.read).await?;
        let per_page = filter.per_page.clamp(1, 100);
        let mut q = QueryBuilder::new(format!(
            "SELECT {COLUMNS} FROM dead_letters WHERE tenant_id = "
        ));
        q.push_bind(tenant.as_str());
        push_filter(&mut q, filter);
        q.push(" ORDER BY failed_at DESC, id DESC LIMIT ")
            .push_bind(i64::from(per_page))
            .push(" OFFSET ")
            .push_bind(i64::from(filter.page.max(1) - 1) * i64::from(per_page));
        let rows: Vec<Row> = q.build_query_as().fetch_all(&self.read).await?;
        let items = rows
            .into_iter()
            .map(DeadLetter::try_from)
            .collect::<Result<_, _>>()?;
        Ok((items, u64::try_from(total).unwrap_or(0)))
    }

    pub async fn get_dead_letter(
        &self,
        tenant: &TenantId,
        id: Uuid,
    ) -> StoreResult<Option<DeadLetter>> {
        let row: Option<Row> = sqlx::query_as(sql!(
            "SELECT {COLUMNS} FROM dead_letters WHERE tenant_id = $1 AND id = $2"
        ))
        .bind(tenant.as_str())
        .bind(id)
        .fetch_optional(&self.read)
        .await?;
        row.map(DeadLetter::try_from).transpose()
    }

    /// Acts on an open dead letter. Retry puts its work back in the outbox for an attempt
    /// now (with a fresh round of attempts); resolve closes it as handled by hand; skip
    /// closes it with `note` as the reason and cancels its message.
    pub async fn act_on_dead_letter(
        &self,
        tenant: &TenantId,
        id: Uuid,
        action: Action,
        note: Option<String>,
        actor: &Actor,
        now: Timestamp,
    ) -> Result<DeadLetter, MessagingError> {
        let mut w = self.begin(tenant, now).await?;
        let row: Option<Row> = sqlx::query_as(sql!(
            "SELECT {COLUMNS} FROM dead_letters WHERE tenant_id = $1 AND id = $2{}",
            dialect::FOR_UPDATE
        ))
        .bind(tenant.as_str())
        .bind(id)
        .fetch_optional(&mut *w.tx)
        .await?;
        let letter = DeadLetter::try_from(row.ok_or(MessagingError::DeadLetterNotFound)?)?;
        let to = after(letter.status, action).ok_or_else(|| {
            MessagingError::DeadLetterClosed(letter.status.as_str().to_owned(), action.past())
        })?;
        if action == Action::Retry {
            let Some(outbox) = letter.outbox_id else {
                return Err(MessagingError::DeadLetterClosed(
                    "not retryable (nothing queued to send again)".to_owned(),
                    action.past(),
                ));
            };
            sqlx::query(
                "UPDATE outbox SET status = 'pending', attempts = 0, next_attempt_at = $3,
                     updated_at = $3
                 WHERE tenant_id = $1 AND id = $2",
            )
            .bind(tenant.as_str())
            .bind(outbox)
            .bind(now)
            .execute(&mut *w.tx)
            .await?;
            sqlx::query(
                "UPDATE messages SET status = 'queued', failed_at = NULL, updated_at = $3
                 WHERE tenant_id = $1 AND id = $2",
            )
            .bind(tenant.as_str())
            .bind(outbox)
            .bind(now)
            .execute(&mut *w.tx)
            .await?;
        }
        if action == Action::Skip
            && let Some(outbox) = letter.outbox_id
        {
            sqlx::query(
                "UPDATE messages SET status = 'canceled', updated_at = $3
                 WHERE tenant_id = $1 AND id = $2",
            )
            .bind(tenant.as_str())
            .bind(outbox)
            .bind(now)
            .execute(&mut *w.tx)
            .await?;
        }
        let closes = matches!(action, Action::Resolve | Action::Skip);
        let by = actor.name.clone().or_else(|| actor.id.clone());
        sqlx::query(
            "UPDATE dead_letters SET status = $3, resolution = $4, resolved_by = $5,
                 resolved_at = $6, updated_at = $7
             WHERE tenant_id = $1 AND id = $2",
        )
        .bind(tenant.as_str())
        .bind(id)
        .bind(to.as_str())
        .bind(if closes { note.as_deref() } else { None })
        .bind(if closes { by.as_deref() } else { None })
        .bind(closes.then_some(now))
        .bind(now)
        .execute(&mut *w.tx)
        .await?;
        w.audit(
            actor,
            Change {
                action: match action {
                    Action::Retry => "dead_letter.retried",
                    Action::Resolve => "dead_letter.resolved",
                    Action::Skip => "dead_letter.skipped",
                },
                entity_type: "dead_letter",
                entity_id: id.to_string(),
                changes: json!({
                    "status": {"from": letter.status.as_str(), "to": to.as_str()},
                    "note": note,
                }),
            },
        );
        w.commit(None).await?;
        Ok(DeadLetter {
            status: to,
            resolution: if closes { note } else { None },
            resolved_by: if closes { by } else { None },
            resolved_at: closes.then_some(now),
            updated_at: now,
            ..letter
        })
    }
}
