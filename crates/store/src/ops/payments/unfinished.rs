//! Refunds left unfinished, for the owed-refunds job: what cancellations still owe
//! (`payments.refund_target` above `refunded_amount`, with no refund under way), card
//! refunds whose outcome was lost (resumed with the same idempotency key), and refunds no
//! answer or callback has finished for a day (put before staff, once).

use super::super::dead_letters::open_payment_letter;
use super::super::{Repo, dialect};
use super::refunds::ATTEMPT_LEASE_SECS;
use crate::PaymentLetter;
use crate::{StoreError, StoreResult, Timestamp, UnfinishedRefund};
use kairos_domain::TenantId;
use kairos_store_macros::operations;
use uuid::Uuid;

/// How long a refund may stay Processing before staff are asked to look at it.
const STALLED_AFTER_HOURS: i64 = 24;

/// A refund Processing too long, with what its dead letter says.
#[derive(kairos_store_macros::FromRow)]
struct Stalled {
    tenant_id: String,
    id: Uuid,
    booking_id: Option<Uuid>,
    amount: i64,
    currency: String,
    provider: Option<String>,
    /// What the booking's cancellation owes beyond this refund (minor units).
    owed_after: Option<i64>,
}

fn tenant_of(tenant: &str) -> Result<TenantId, StoreError> {
    TenantId::parse(tenant).map_err(|e| StoreError::Corrupt(format!("tenant id: {e}")))
}

#[operations]
impl Repo {
    /// Payments whose cancellation's refund is not finished (at most `limit`): owed
    /// money with no refund under way, and card refunds under way for one whose outcome
    /// was lost (last asked over a minute ago), to resume with the same idempotency key,
    /// until a day has passed and the refund is before staff (REFUND_STALLED): then
    /// staff act, and no job asks behind their back. A bank refund is never asked twice:
    /// its callback finishes it.
    pub async fn unfinished_refunds(
        &self,
        now: Timestamp,
        limit: i64,
    ) -> StoreResult<Vec<UnfinishedRefund>> {
        let rows: Vec<(String, Uuid, Option<i64>)> = sqlx::query_as(
            "SELECT tenant_id, id, refund_target - refunded_amount FROM payments
             WHERE refund_target IS NOT NULL AND refund_target > refunded_amount
               AND status = 'COMPLETED'
             UNION ALL
             SELECT p.tenant_id, p.id, NULL FROM payments p
             JOIN refunds r ON r.tenant_id = p.tenant_id AND r.payment_id = p.id
             WHERE p.refund_target IS NOT NULL AND p.status = 'REFUND_PENDING'
               AND p.provider = 'cardpay' AND r.status = 'Processing'
               AND (r.attempted_at IS NULL OR r.attempted_at < $1)
               AND NOT EXISTS (SELECT 1 FROM dead_letters d
                   WHERE d.tenant_id = r.tenant_id AND d.transaction_id = r.id
                     AND d.error_type = 'REFUND_STALLED')
             LIMIT $2",
        )
        .bind(now - chrono::Duration::seconds(ATTEMPT_LEASE_SECS))
        .bind(limit)
        .fetch_all(&self.read)
        .await?;
        rows.into_iter()
            .map(|(tenant, payment_id, owed)| {
                Ok(UnfinishedRefund {
                    tenant: tenant_of(&tenant)?,
                    payment_id,
                    owed,
                })
            })
            .collect()
    }

    /// Puts before staff every refund still Processing [`STALLED_AFTER_HOURS`] after it
    /// was begun (a bank refund whose callback never came, a card provider that has not
    /// answered for a day): one REFUND_STALLED dead letter each, never two. Answers how
    /// many it opened.
    pub async fn flag_stalled_refunds(&self, now: Timestamp) -> StoreResult<u64> {
        let since = now - chrono::Duration::hours(STALLED_AFTER_HOURS);
        // Nearly always none: looked for without taking the write lock.
        let any: Option<i32> = sqlx::query_scalar(
            "SELECT 1 FROM refunds WHERE status = 'Processing' AND created_at < $1 LIMIT 1",
        )
        .bind(since)
        .fetch_optional(&self.read)
        .await?;
        if any.is_none() {
            return Ok(0);
        }
        let mut tx = self.write.begin_with(dialect::BEGIN_WRITE).await?;
        // One instance at a time decides which refunds have their dead letter.
        dialect::lock_key(&mut tx, "stalled-refunds").await?;
        let stalled: Vec<Stalled> = sqlx::query_as(
            "SELECT r.tenant_id, r.id, r.booking_id, r.amount, r.currency, p.provider,
                    p.refund_target - p.refunded_amount - r.amount AS owed_after
                 FROM refunds r
                 JOIN payments p ON p.tenant_id = r.tenant_id AND p.id = r.payment_id
                 WHERE r.status = 'Processing' AND r.created_at < $1
                   AND NOT EXISTS (SELECT 1 FROM dead_letters d
                       WHERE d.tenant_id = r.tenant_id AND d.transaction_id = r.id
                         AND d.error_type = 'REFUND_STALLED')
                 LIMIT 100",
        )
        .bind(since)
        .fetch_all(&mut *tx)
        .await?;
        let opened = stalled.len() as u64;
        for r in stalled {
            let provider = r.provider.unwrap_or_default();
            let (amount, currency) = (r.amount, r.currency);
            let message = format!(
                "the refund of {amount} {currency} through {provider} has had no outcome for {STALLED_AFTER_HOURS} hours: check it in the provider's merchant panel, then resolve this{}",
                match r.owed_after {
                    Some(more) if more > 0 => format!(
                        "; the cancellation of its booking owes {more} (minor units) more from this payment"
                    ),
                    _ => String::new(),
                }
            );
            open_payment_letter(
                &mut tx,
                &tenant_of(&r.tenant_id)?,
                &PaymentLetter {
                    kind: "refund",
                    error_type: "REFUND_STALLED",
                    message: &message,
                    booking_id: r.booking_id,
                    transaction_id: Some(r.id),
                },
                now,
            )
            .await?;
        }
        tx.commit().await?;
        Ok(opened)
    }
}
