//! Refunds (spec Part B 2.8, 4.6): begun in one transaction (the refund row Processing,
//! the payment REFUND_PENDING), asked of the provider outside any transaction with the
//! refund's id as idempotency key, finished in another (Completed: the payment's
//! refunded amount grows and it is REFUNDED when all is returned; Failed: the payment is
//! COMPLETED again and a dead letter REFUND_FAILED asks staff to act).

use super::super::Repo;
use super::super::audit::Change;
use super::super::dialect;
use crate::{
    Actor, OnlinePayment, PaymentsError, PendingRefund, RefundResult, RefundStarted, StoreError,
    Timestamp, stored,
};
use kairos_domain::dead_letters::{Category, Status as DeadStatus};
use kairos_domain::payments::credentials::{CredentialSource, Provider};
use kairos_domain::payments::{PaymentEvent, PaymentStatus};
use kairos_domain::{TenantId, new_id};
use kairos_store_macros::operations;
use serde_json::json;
use uuid::Uuid;

/// How long a request asking the provider about a refund keeps it to itself (provider
/// calls time out after 20 s): a resume waits until then.
pub(super) const ATTEMPT_LEASE_SECS: i64 = 60;

#[derive(kairos_store_macros::FromRow)]
struct LockedPayment {
    id: Uuid,
    booking_id: Option<Uuid>,
    gift_card_purchase_id: Option<Uuid>,
    amount: i64,
    currency: String,
    provider: Option<String>,
    provider_payment_id: Option<String>,
    status: String,
    credential_source: Option<String>,
    credential_site_id: Option<Uuid>,
    refunded_amount: i64,
    refund_target: Option<i64>,
    created_at: Timestamp,
    fee_id: Option<Uuid>,
    group_id: Option<Uuid>,
}

/// Withdraws the unspent gift card a refunded purchase bought (in the refund's
/// transaction): its voucher deactivated, the purchase `cancelled`. A used card, or a
/// partial amount, is refused.
async fn withdraw_gift_card(
    w: &mut super::super::write::Write,
    purchase: Uuid,
    amount: Option<i64>,
    left: i64,
    actor: &Actor,
) -> Result<(), PaymentsError> {
    if amount.is_some_and(|a| a != left) {
        return Err(PaymentsError::GiftCardWhole);
    }
    let voucher: Option<(Uuid, i64, i64, i32)> = sqlx::query_as(sql!(
        "SELECT v.id, v.original_value, v.current_balance, v.usage_count
         FROM gift_card_purchases g
         JOIN vouchers v ON v.tenant_id = g.tenant_id AND v.id = g.voucher_id
         WHERE g.tenant_id = $1 AND g.id = $2{}",
        dialect::FOR_UPDATE
    ))
    .bind(w.tenant.as_str())
    .bind(purchase)
    .fetch_optional(&mut *w.tx)
    .await?;
    if let Some((voucher, original, balance, uses)) = voucher {
        if balance < original || uses > 0 {
            return Err(PaymentsError::GiftCardUsed(balance, original));
        }
        sqlx::query(
            "UPDATE vouchers SET is_active = FALSE, updated_at = $3 WHERE tenant_id = $1 AND id = $2",
        )
        .bind(w.tenant.as_str())
        .bind(voucher)
        .bind(w.now)
        .execute(&mut *w.tx)
        .await?;
    }
    sqlx::query(
        "UPDATE gift_card_purchases SET status = 'cancelled', updated_at = $3
         WHERE tenant_id = $1 AND id = $2",
    )
    .bind(w.tenant.as_str())
    .bind(purchase)
    .bind(w.now)
    .execute(&mut *w.tx)
    .await?;
    w.audit(
        actor,
        Change {
            action: "gift_card.refunded",
            entity_type: "gift_card_purchase",
            entity_id: purchase.to_string(),
            changes: json!({"voucherId": voucher.map(|v| v.0), "amount": left}),
        },
    );
    Ok(())
}

/// What a refund asks for.
enum Ask {
    /// This many minor units (default: all that is left).
    Amount(Option<i64>),
    /// What the payment's refund target still calls for.
    Owed,
}

/// [`Repo::begin_refund`] and [`Repo::begin_owed_refund`].
async fn start_refund(
    repo: &Repo,
    tenant: &TenantId,
    payment: Uuid,
    ask: Ask,
    reason: Option<String>,
    actor: &Actor,
    now: Timestamp,
) -> Result<RefundStarted, PaymentsError> {
    let mut w = repo.begin(tenant, now).await?;
    let p: LockedPayment = sqlx::query_as(sql!(
        "SELECT p.id, p.booking_id, p.gift_card_purchase_id, p.amount, p.currency,
                COALESCE(p.provider, parent.provider) AS provider,
                COALESCE(p.provider_payment_id, parent.provider_payment_id) AS provider_payment_id,
                p.status,
                COALESCE(p.credential_source, parent.credential_source) AS credential_source,
                COALESCE(p.credential_site_id, parent.credential_site_id) AS credential_site_id,
                p.refunded_amount, p.refund_target, p.created_at, p.fee_id,
                CASE WHEN p.booking_id IS NULL THEN p.group_id END AS group_id
         FROM payments p
         LEFT JOIN payments parent
           ON parent.tenant_id = p.tenant_id AND parent.id = p.parent_payment_id
         WHERE p.tenant_id = $1 AND p.id = $2{}",
        dialect::FOR_UPDATE_OF_P
    ))
    .bind(tenant.as_str())
    .bind(payment)
    .fetch_optional(&mut *w.tx)
    .await?
    .ok_or(PaymentsError::PaymentNotFound)?;
    let status = stored("payment status", &p.status, PaymentStatus::parse)?;
    // A group's own payment is refunded through its bookings' shares; only money that
    // arrived after it was withdrawn is owed back from it whole.
    if p.group_id.is_some() && matches!(ask, Ask::Amount(_)) {
        return Err(PaymentsError::GroupPayment);
    }
    let amount = match ask {
        Ask::Amount(amount) => amount,
        // Only once the payment is free (no other refund under way), and only what is
        // still owed now.
        Ask::Owed if status != PaymentStatus::Completed => {
            return Err(PaymentsError::PaymentState(status));
        }
        Ask::Owed => Some(
            p.refund_target
                .map(|t| t - p.refunded_amount)
                .filter(|owed| *owed > 0)
                .ok_or(PaymentsError::NothingOwed)?,
        ),
    };
    if let Some(purchase) = p.gift_card_purchase_id
        && status == PaymentStatus::Completed
    {
        withdraw_gift_card(
            &mut w,
            purchase,
            amount,
            p.amount - p.refunded_amount,
            actor,
        )
        .await?;
    }
    let (Some(provider), Some(_)) = (p.provider.as_deref(), p.provider_payment_id.as_ref()) else {
        return Err(PaymentsError::PaymentState(status));
    };
    let provider = stored("provider", provider, Provider::parse)?;
    let source = p
        .credential_source
        .as_deref()
        .map(|s| stored("credential source", s, CredentialSource::parse))
        .transpose()?;
    let started = |refund_id: Uuid,
                   amount: i64,
                   status: PaymentStatus,
                   provider_refund_id: Option<String>,
                   resumed: bool| RefundStarted {
        refund_id,
        amount,
        provider_refund_id,
        resumed,
        collected: p.amount,
        refunded_before: p.refunded_amount,
        payment: OnlinePayment {
            id: p.id,
            booking_id: p.booking_id,
            gift_card_purchase_id: p.gift_card_purchase_id,
            site_id: None,
            amount: p.amount,
            currency: p.currency.clone(),
            provider,
            provider_payment_id: p.provider_payment_id.clone(),
            status,
            credential_source: source,
            credential_site_id: p.credential_site_id,
            redirect_url: None,
            created_at: p.created_at,
            fee_id: p.fee_id,
            group_id: None,
        },
    };
    if status == PaymentStatus::RefundPending {
        // A refund whose outcome is not known yet: the same request resumes it (and
        // its idempotency key at the provider), once the last attempt is over (one
        // request asks at a time).
        let pending: Option<(Uuid, i64, Option<String>, Option<Timestamp>)> = sqlx::query_as(
            "SELECT id, amount, provider_refund_id, attempted_at FROM refunds
                 WHERE tenant_id = $1 AND payment_id = $2 AND status = 'Processing'",
        )
        .bind(tenant.as_str())
        .bind(p.id)
        .fetch_optional(&mut *w.tx)
        .await?;
        let Some((id, pending_amount, provider_refund_id, attempted)) = pending else {
            return Err(PaymentsError::PaymentState(status));
        };
        if amount.is_some_and(|a| a != pending_amount) {
            return Err(PaymentsError::PaymentState(status));
        }
        // A card refund is asked again (same idempotency key): one request at a time.
        // A bank refund is never asked twice (its callback reports it).
        let recent =
            attempted.is_some_and(|t| t > now - chrono::Duration::seconds(ATTEMPT_LEASE_SECS));
        if provider == Provider::Cardpay && recent {
            return Err(PaymentsError::RefundInProgress);
        }
        sqlx::query(
            "UPDATE refunds SET attempted_at = $3, updated_at = $3
             WHERE tenant_id = $1 AND id = $2",
        )
        .bind(tenant.as_str())
        .bind(id)
        .bind(now)
        .execute(&mut *w.tx)
        .await?;
        let resumed = started(id, pending_amount, status, provider_refund_id, true);
        w.commit(None).await?;
        return Ok(resumed);
    }
    // Only money confirmed collected is refunded.
    if status != PaymentStatus::Completed {
        return Err(PaymentsError::PaymentState(status));
    }
    let next = status
        .after(PaymentEvent::RefundStarted)
        .ok_or(PaymentsError::PaymentState(status))?;
    let left = p.amount - p.refunded_amount;
    let amount = amount.unwrap_or(left);
    if amount <= 0 || amount > left {
        return Err(PaymentsError::RefundTooLarge(left));
    }
    let refund_id = new_id();
    sqlx::query(
        "INSERT INTO refunds (tenant_id, id, payment_id, booking_id, amount, fee, currency,
             status, reason, requested_by, attempted_at, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, 0, $6, 'Processing', $7, $8, $9, $9, $9)",
    )
    .bind(tenant.as_str())
    .bind(refund_id)
    .bind(p.id)
    .bind(p.booking_id)
    .bind(amount)
    .bind(&p.currency)
    .bind(&reason)
    .bind(&actor.id)
    .bind(now)
    .execute(&mut *w.tx)
    .await?;
    sqlx::query(
        "UPDATE payments SET status = $3, updated_at = $4 WHERE tenant_id = $1 AND id = $2",
    )
    .bind(tenant.as_str())
    .bind(p.id)
    .bind(next.as_str())
    .bind(now)
    .execute(&mut *w.tx)
    .await?;
    w.audit(
        actor,
        Change {
            action: "payment.refund_started",
            entity_type: "payment",
            entity_id: p.id.to_string(),
            changes: json!({"refundId": refund_id, "amount": amount, "reason": reason}),
        },
    );
    w.commit(None).await?;
    Ok(started(refund_id, amount, next, None, false))
}

#[operations]
impl Repo {
    /// Begins refunding `amount` (default: all that is left) of a collected provider
    /// payment.
    pub async fn begin_refund(
        &self,
        tenant: &TenantId,
        payment: Uuid,
        amount: Option<i64>,
        reason: Option<String>,
        actor: &Actor,
        now: Timestamp,
    ) -> Result<RefundStarted, PaymentsError> {
        start_refund(
            self,
            tenant,
            payment,
            Ask::Amount(amount),
            reason,
            actor,
            now,
        )
        .await
    }

    /// Begins refunding what a cancellation still owes from a collected payment: its
    /// refund target minus what it has refunded, read on the locked payment, so two
    /// callers (the cancellation's own request, the owed-refunds job on any instance)
    /// never refund it twice. `NothingOwed` when it was refunded meanwhile; the payment's
    /// status when another refund of it is under way.
    pub async fn begin_owed_refund(
        &self,
        tenant: &TenantId,
        payment: Uuid,
        reason: Option<String>,
        actor: &Actor,
        now: Timestamp,
    ) -> Result<RefundStarted, PaymentsError> {
        start_refund(self, tenant, payment, Ask::Owed, reason, actor, now).await
    }

    /// Records the provider's id of refund `refund`, still Processing: the provider
    /// reports its outcome later (a bank refund `pending`).
    pub async fn note_refund_pending(
        &self,
        tenant: &TenantId,
        refund: Uuid,
        provider_refund_id: &str,
        now: Timestamp,
    ) -> Result<(), PaymentsError> {
        let mut w = self.begin(tenant, now).await?;
        sqlx::query(
            "UPDATE refunds SET provider_refund_id = $3, updated_at = $4
             WHERE tenant_id = $1 AND id = $2 AND status = 'Processing'",
        )
        .bind(tenant.as_str())
        .bind(refund)
        .bind(provider_refund_id)
        .bind(now)
        .execute(&mut *w.tx)
        .await?;
        w.commit(None).await?;
        Ok(())
    }

    /// Refund `refund`, in whichever tenant: how a provider's refund callback finds it.
    pub async fn refund_by_id(&self, refund: Uuid) -> crate::StoreResult<Option<PendingRefund>> {
        let row: Option<(String, Uuid, i64, String, Option<String>)> = sqlx::query_as(
            "SELECT tenant_id, payment_id, amount, status, provider_refund_id FROM refunds
             WHERE id = $1",
        )
        .bind(refund)
        .fetch_optional(&self.read)
        .await?;
        row.map(|(tenant, payment_id, amount, status, provider_refund_id)| {
            Ok(PendingRefund {
                tenant: TenantId::parse(&tenant)
                    .map_err(|e| StoreError::Corrupt(format!("refund tenant: {e}")))?,
                refund_id: refund,
                payment_id,
                amount,
                status,
                provider_refund_id,
            })
        })
        .transpose()
    }

    /// Records how the provider answered refund `refund`; false when it was finished
    /// before (a repeated answer changes nothing).
    pub async fn finish_refund(
        &self,
        tenant: &TenantId,
        refund: Uuid,
        result: RefundResult,
        actor: &Actor,
        now: Timestamp,
    ) -> Result<bool, PaymentsError> {
        let mut w = self.begin(tenant, now).await?;
        // The payment is locked before its refund, as a refund's resume does (no cycle).
        let payment: Option<Uuid> =
            sqlx::query_scalar("SELECT payment_id FROM refunds WHERE tenant_id = $1 AND id = $2")
                .bind(tenant.as_str())
                .bind(refund)
                .fetch_optional(&mut *w.tx)
                .await?;
        let payment = payment.ok_or(PaymentsError::PaymentNotFound)?;
        let (p_status, collected, refunded, target): (String, i64, i64, Option<i64>) =
            sqlx::query_as(sql!(
                "SELECT status, amount, refunded_amount, refund_target FROM payments
                 WHERE tenant_id = $1 AND id = $2{}",
                dialect::FOR_UPDATE
            ))
            .bind(tenant.as_str())
            .bind(payment)
            .fetch_one(&mut *w.tx)
            .await?;
        let (booking, amount, status): (Option<Uuid>, i64, String) = sqlx::query_as(sql!(
            "SELECT booking_id, amount, status FROM refunds WHERE tenant_id = $1 AND id = $2{}",
            dialect::FOR_UPDATE
        ))
        .bind(tenant.as_str())
        .bind(refund)
        .fetch_one(&mut *w.tx)
        .await?;
        if status != "Processing" {
            // Finished before (a retry): nothing more.
            return Ok(false);
        }
        let current = stored("payment status", &p_status, PaymentStatus::parse)?;
        match result {
            RefundResult::Completed { provider_refund_id } => {
                let refunded = refunded + amount;
                let next = current
                    .after(PaymentEvent::Refunded {
                        full: refunded >= collected,
                    })
                    .unwrap_or(current);
                sqlx::query(
                    "UPDATE refunds SET status = 'Completed', provider_refund_id = $3,
                         completed_at = $4, updated_at = $4
                     WHERE tenant_id = $1 AND id = $2",
                )
                .bind(tenant.as_str())
                .bind(refund)
                .bind(&provider_refund_id)
                .bind(now)
                .execute(&mut *w.tx)
                .await?;
                // A cancellation's target reached is done with: no job looks at it again.
                let target = target.filter(|t| *t > refunded);
                sqlx::query(
                    "UPDATE payments SET status = $3, refunded_amount = $4, refund_target = $6,
                         updated_at = $5
                     WHERE tenant_id = $1 AND id = $2",
                )
                .bind(tenant.as_str())
                .bind(payment)
                .bind(next.as_str())
                .bind(refunded)
                .bind(now)
                .bind(target)
                .execute(&mut *w.tx)
                .await?;
                if next == PaymentStatus::Refunded {
                    // Money that came for a closed booking is back: its dead letter is done.
                    sqlx::query(
                        "UPDATE dead_letters SET status = 'resolved', resolution = $3,
                             resolved_at = $4, updated_at = $4
                         WHERE tenant_id = $1 AND transaction_id = $2
                           AND error_type = 'PAID_AFTER_CLOSE' AND status = 'open'",
                    )
                    .bind(tenant.as_str())
                    .bind(payment)
                    .bind(format!("refunded (refund {refund})"))
                    .bind(now)
                    .execute(&mut *w.tx)
                    .await?;
                }
                w.audit(
                    actor,
                    Change {
                        action: "payment.refunded",
                        entity_type: "payment",
                        entity_id: payment.to_string(),
                        changes: json!({"refundId": refund, "amount": amount,
                            "providerRefundId": provider_refund_id}),
                    },
                );
            }
            RefundResult::Failed { message } => {
                let next = current.after(PaymentEvent::RefundFailed).unwrap_or(current);
                // What a cancellation still owes from the payment goes before staff with
                // this failure, and no job asks the provider again.
                let message = match target.map(|t| t - refunded) {
                    Some(owed) if owed > 0 => format!(
                        "{message}; the cancellation of its booking still owes {owed} (minor units) of this payment"
                    ),
                    _ => message,
                };
                sqlx::query(
                    "UPDATE refunds SET status = 'Failed', failure = $3, updated_at = $4
                     WHERE tenant_id = $1 AND id = $2",
                )
                .bind(tenant.as_str())
                .bind(refund)
                .bind(&message)
                .bind(now)
                .execute(&mut *w.tx)
                .await?;
                sqlx::query(
                    "UPDATE payments SET status = $3, refund_target = NULL, updated_at = $4
                     WHERE tenant_id = $1 AND id = $2",
                )
                .bind(tenant.as_str())
                .bind(payment)
                .bind(next.as_str())
                .bind(now)
                .execute(&mut *w.tx)
                .await?;
                // Manual work: staff return the money another way, then resolve it.
                sqlx::query(
                    "INSERT INTO dead_letters (tenant_id, id, category, kind, error_type,
                         error_message, retry_count, booking_id, transaction_id, status,
                         failed_at, created_at, updated_at)
                     VALUES ($1, $2, $3, 'refund', 'REFUND_FAILED', $4, 1, $5, $6, $7, $8, $8, $8)",
                )
                .bind(tenant.as_str())
                .bind(new_id())
                .bind(Category::Payment.as_str())
                .bind(&message)
                .bind(booking)
                .bind(refund)
                .bind(DeadStatus::Open.as_str())
                .bind(now)
                .execute(&mut *w.tx)
                .await?;
            }
        }
        w.commit(None).await?;
        Ok(true)
    }
}
