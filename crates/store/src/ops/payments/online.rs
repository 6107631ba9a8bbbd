//! Payments through a provider: the booking's payment waiting for its provider, the
//! provider's id recorded once it answered, and the provider's events, each processed once
//! (the `payment_events` row is written in the transaction that acts on the event).

use super::super::Repo;
use super::super::audit::Change;
use super::super::bookings::{Settled, settle_online_payment};
use super::super::dialect;
use super::super::gift_cards::pay_gift_card;
use super::super::write::Write;
use super::charges;
use crate::{
    Actor, BookingError, EventOutcome, EventStats, OnlinePayment, PAID_AFTER_CLOSE, PaymentsError,
    ProviderEvent, StoreError, StoreResult, Timestamp, stored,
};
use kairos_domain::TenantId;
use kairos_domain::payments::PaymentStatus;
use kairos_domain::payments::credentials::{CredentialSource, Provider};
use kairos_store_macros::operations;
use serde_json::json;
use sqlx::types::Json;
use uuid::Uuid;

#[derive(sqlx::FromRow)]
pub(crate) struct OnlineRow {
    tenant_id: String,
    id: Uuid,
    booking_id: Option<Uuid>,
    gift_card_purchase_id: Option<Uuid>,
    site_id: Option<Uuid>,
    amount: i64,
    currency: String,
    provider: String,
    provider_payment_id: Option<String>,
    status: String,
    credential_source: Option<String>,
    credential_site_id: Option<Uuid>,
    redirect_url: Option<String>,
    created_at: Timestamp,
}

pub(crate) const COLUMNS: &str = "p.tenant_id, p.id, p.booking_id, \
     p.gift_card_purchase_id, COALESCE(b.site_id, g.site_id) AS site_id, p.amount, p.currency, \
     p.provider, p.provider_payment_id, p.status, p.credential_source, p.credential_site_id, \
     p.redirect_url, p.created_at";

pub(crate) const FROM: &str = "payments p LEFT JOIN bookings b ON b.tenant_id = p.tenant_id AND b.id = p.booking_id \
     LEFT JOIN gift_card_purchases g ON g.tenant_id = p.tenant_id AND g.id = p.gift_card_purchase_id";

impl TryFrom<OnlineRow> for OnlinePayment {
    type Error = StoreError;

    fn try_from(r: OnlineRow) -> Result<Self, StoreError> {
        Ok(OnlinePayment {
            id: r.id,
            booking_id: r.booking_id,
            gift_card_purchase_id: r.gift_card_purchase_id,
            site_id: r.site_id,
            amount: r.amount,
            currency: r.currency,
            provider: stored("provider", &r.provider, Provider::parse)?,
            provider_payment_id: r.provider_payment_id,
            status: stored("payment status", &r.status, PaymentStatus::parse)?,
            credential_source: r
                .credential_source
                .as_deref()
                .map(|s| stored("credential source", s, CredentialSource::parse))
                .transpose()?,
            credential_site_id: r.credential_site_id,
            redirect_url: r.redirect_url,
            created_at: r.created_at,
        })
    }
}

/// Whether an event's amount and currency are the payment's.
pub(crate) fn matches_payment(
    p: &OnlinePayment,
    amount: Option<i64>,
    currency: Option<&str>,
) -> bool {
    amount.is_none_or(|a| a == p.amount)
        && currency.is_none_or(|c| c.eq_ignore_ascii_case(&p.currency))
}

#[operations]
impl Repo {
    /// The booking's newest online payment still to be collected (PENDING, AUTHORIZED, or
    /// FAILED: a declined card may be followed by another).
    pub async fn open_online_payment(
        &self,
        tenant: &TenantId,
        booking: Uuid,
    ) -> StoreResult<Option<OnlinePayment>> {
        let row: Option<OnlineRow> = sqlx::query_as(&format!(
            "SELECT {COLUMNS} FROM {FROM}
             WHERE p.tenant_id = $1 AND p.booking_id = $2 AND p.provider IS NOT NULL
               AND p.status IN ('PENDING', 'AUTHORIZED', 'FAILED')
             ORDER BY p.created_at DESC, p.id DESC LIMIT 1"
        ))
        .bind(tenant.as_str())
        .bind(booking)
        .fetch_optional(&self.read)
        .await?;
        row.map(OnlinePayment::try_from).transpose()
    }

    /// The booking's card payments canceled with it that the provider knows (their
    /// intents are to be canceled there too).
    pub async fn canceled_card_payments(
        &self,
        tenant: &TenantId,
        booking: Uuid,
    ) -> StoreResult<Vec<OnlinePayment>> {
        let rows: Vec<OnlineRow> = sqlx::query_as(&format!(
            "SELECT {COLUMNS} FROM {FROM}
             WHERE p.tenant_id = $1 AND p.booking_id = $2 AND p.provider = 'cardpay'
               AND p.status = 'CANCELED' AND p.provider_payment_id IS NOT NULL"
        ))
        .bind(tenant.as_str())
        .bind(booking)
        .fetch_all(&self.read)
        .await?;
        rows.into_iter().map(OnlinePayment::try_from).collect()
    }

    /// A provider payment of the tenant.
    pub async fn online_payment(
        &self,
        tenant: &TenantId,
        id: Uuid,
    ) -> StoreResult<Option<OnlinePayment>> {
        let row: Option<OnlineRow> = sqlx::query_as(&format!(
            "SELECT {COLUMNS} FROM {FROM}
             WHERE p.tenant_id = $1 AND p.id = $2 AND p.provider IS NOT NULL"
        ))
        .bind(tenant.as_str())
        .bind(id)
        .fetch_optional(&self.read)
        .await?;
        row.map(OnlinePayment::try_from).transpose()
    }

    /// Records that an authorized payment was captured at the provider, for `amount`
    /// (what its settling event will report; it makes the payment COMPLETED).
    pub async fn mark_captured(
        &self,
        tenant: &TenantId,
        id: Uuid,
        amount: i64,
        now: Timestamp,
    ) -> Result<(), PaymentsError> {
        let mut w = self.begin(tenant, now).await?;
        sqlx::query(
            "UPDATE payments SET status = 'CAPTURED', amount = $4,
                 authorized_at = COALESCE(authorized_at, $3), updated_at = $3
             WHERE tenant_id = $1 AND id = $2 AND status IN ('PENDING', 'AUTHORIZED')",
        )
        .bind(tenant.as_str())
        .bind(id)
        .bind(now)
        .bind(amount)
        .execute(&mut *w.tx)
        .await?;
        w.commit(None).await?;
        Ok(())
    }

    /// Records that the provider holds the funds of a payment (AUTHORIZED: staff capture
    /// it), or only that it was looked at (`authorized` false), so that the deadline's
    /// pass goes on to the next payments.
    pub async fn note_payment_checked(
        &self,
        tenant: &TenantId,
        id: Uuid,
        authorized: bool,
        now: Timestamp,
    ) -> Result<(), PaymentsError> {
        let mut w = self.begin(tenant, now).await?;
        let sql = if authorized {
            "UPDATE payments SET status = 'AUTHORIZED', authorized_at = COALESCE(authorized_at, $3),
                 updated_at = $3
             WHERE tenant_id = $1 AND id = $2 AND status IN ('PENDING', 'FAILED')"
        } else {
            "UPDATE payments SET updated_at = $3 WHERE tenant_id = $1 AND id = $2"
        };
        sqlx::query(sql)
            .bind(tenant.as_str())
            .bind(id)
            .bind(now)
            .execute(&mut *w.tx)
            .await?;
        w.commit(None).await?;
        Ok(())
    }

    /// Online payments still PENDING (or FAILED, a declined card) for bookings still
    /// `confirmed`, made before `before` (the payment deadline), least recently looked at
    /// first: every tenant's.
    pub async fn overdue_online_payments(
        &self,
        before: Timestamp,
        limit: i64,
    ) -> StoreResult<Vec<(TenantId, OnlinePayment)>> {
        let rows: Vec<OnlineRow> = sqlx::query_as(&format!(
            "SELECT {COLUMNS} FROM {FROM}
             WHERE p.provider IN ('cardpay', 'bankpay') AND p.status IN ('PENDING', 'FAILED')
               AND p.created_at < $1
               AND (b.status = 'confirmed' OR g.status IN ('pending', 'payment_failed'))
             ORDER BY p.updated_at, p.id LIMIT $2"
        ))
        .bind(before)
        .bind(limit)
        .fetch_all(&self.read)
        .await?;
        rows.into_iter()
            .map(|r| {
                let tenant = TenantId::parse(&r.tenant_id)
                    .map_err(|e| StoreError::Corrupt(format!("payment tenant: {e}")))?;
                Ok((tenant, OnlinePayment::try_from(r)?))
            })
            .collect()
    }

    /// The payment the provider knows by `provider_payment_id`, in whichever tenant:
    /// how a provider event finds its tenant and account.
    pub async fn online_payment_by_provider_id(
        &self,
        provider: Provider,
        provider_payment_id: &str,
    ) -> StoreResult<Option<(TenantId, OnlinePayment)>> {
        let row: Option<OnlineRow> = sqlx::query_as(&format!(
            "SELECT {COLUMNS} FROM {FROM} WHERE p.provider = $1 AND p.provider_payment_id = $2"
        ))
        .bind(provider.as_str())
        .bind(provider_payment_id)
        .fetch_optional(&self.read)
        .await?;
        row.map(|r| {
            let tenant = TenantId::parse(&r.tenant_id)
                .map_err(|e| StoreError::Corrupt(format!("payment tenant: {e}")))?;
            Ok((tenant, OnlinePayment::try_from(r)?))
        })
        .transpose()
    }

    /// Records the provider's id of payment `payment` and the account it was made with.
    /// Idempotent: the same id again changes nothing; another id is refused (the payment
    /// is someone else's already).
    pub async fn attach_provider_payment(
        &self,
        tenant: &TenantId,
        payment: Uuid,
        provider_payment_id: &str,
        account: (CredentialSource, Option<Uuid>),
        redirect_url: Option<&str>,
        now: Timestamp,
    ) -> Result<(), PaymentsError> {
        let (source, credential_site) = account;
        let mut w = self.begin(tenant, now).await?;
        let done = sqlx::query(
            "UPDATE payments SET provider_payment_id = $3, credential_source = $4,
                 credential_site_id = $5, updated_at = $6,
                 redirect_url = COALESCE($7, redirect_url)
             WHERE tenant_id = $1 AND id = $2
               AND (provider_payment_id IS NULL OR provider_payment_id = $3)",
        )
        .bind(tenant.as_str())
        .bind(payment)
        .bind(provider_payment_id)
        .bind(source.as_str())
        .bind(credential_site)
        .bind(now)
        .bind(redirect_url)
        .execute(&mut *w.tx)
        .await?;
        if done.rows_affected() == 0 {
            return Err(PaymentsError::PaymentNotFound);
        }
        w.commit(None).await?;
        Ok(())
    }

    /// Processes a verified card provider event for `tenant`, once: a repeat of an event
    /// processed before answers the first answer (`duplicate`).
    pub async fn process_provider_event(
        &self,
        tenant: &TenantId,
        event: &ProviderEvent,
        now: Timestamp,
    ) -> Result<EventOutcome, PaymentsError> {
        let mut w = self.begin(tenant, now).await?;
        let claimed = sqlx::query(
            "INSERT INTO payment_events (provider, event_id, tenant_id, event_type, status,
                 result, received_at, processed_at)
             VALUES ($6, $1, $2, $3, 'processed', $4, $5, $5)
             ON CONFLICT (provider, tenant_id, event_id) DO NOTHING",
        )
        .bind(&event.event_id)
        .bind(tenant.as_str())
        .bind(&event.event_type)
        .bind(Json(json!({})))
        .bind(now)
        .bind(event.provider.as_str())
        .execute(&mut *w.tx)
        .await?;
        if claimed.rows_affected() == 0 {
            let (status, result): (String, Json<serde_json::Value>) = sqlx::query_as(&format!(
                "SELECT status, result FROM payment_events
                 WHERE provider = $3 AND tenant_id = $2 AND event_id = $1{}",
                dialect::FOR_UPDATE
            ))
            .bind(&event.event_id)
            .bind(tenant.as_str())
            .bind(event.provider.as_str())
            .fetch_one(&mut *w.tx)
            .await?;
            if status == "processed" {
                sqlx::query(
                    "UPDATE payment_events SET duplicates = duplicates + 1
                     WHERE provider = $3 AND tenant_id = $2 AND event_id = $1",
                )
                .bind(&event.event_id)
                .bind(tenant.as_str())
                .bind(event.provider.as_str())
                .execute(&mut *w.tx)
                .await?;
                w.commit(None).await?;
                return Ok(EventOutcome {
                    processed: result.0["processed"].as_bool().unwrap_or(false),
                    message: result.0["message"].as_str().unwrap_or("").to_owned(),
                    duplicate: true,
                    code: result.0["code"].as_str().map(str::to_owned),
                });
            }
            // It failed before (and was rolled back): this delivery processes it.
        }
        let outcome = act_on_provider_event(&mut w, event).await?;
        sqlx::query(
            "UPDATE payment_events SET status = 'processed', result = $2, processed_at = $4
             WHERE provider = $5 AND tenant_id = $3 AND event_id = $1",
        )
        .bind(&event.event_id)
        .bind(Json(
            json!({"processed": outcome.processed, "message": outcome.message, "code": outcome.code}),
        ))
        .bind(tenant.as_str())
        .bind(now)
        .bind(event.provider.as_str())
        .execute(&mut *w.tx)
        .await?;
        w.commit(None).await?;
        Ok(outcome)
    }

    /// Closes the `PAID_AFTER_CLOSE` dead letter of a payment refunded automatically.
    pub async fn resolve_paid_after_close(
        &self,
        tenant: &TenantId,
        payment: Uuid,
        refund: Uuid,
        now: Timestamp,
    ) -> StoreResult<()> {
        sqlx::query(
            "UPDATE dead_letters SET status = 'resolved', resolution = $3, resolved_at = $4,
                 updated_at = $4
             WHERE tenant_id = $1 AND transaction_id = $2 AND error_type = 'PAID_AFTER_CLOSE'
               AND status = 'open'",
        )
        .bind(tenant.as_str())
        .bind(payment)
        .bind(format!("refunded automatically (refund {refund})"))
        .bind(now)
        .execute(&self.write)
        .await?;
        Ok(())
    }

    /// Records that processing an event failed (it was rolled back), for the health
    /// counts; a redelivery processes it again.
    pub async fn record_failed_event(
        &self,
        tenant: &TenantId,
        provider: Provider,
        event_id: &str,
        event_type: &str,
        error: &str,
        now: Timestamp,
    ) -> StoreResult<()> {
        sqlx::query(
            "INSERT INTO payment_events (provider, tenant_id, event_id, event_type, status,
                 result, received_at)
             VALUES ($1, $6, $2, $3, 'failed', $4, $5)
             ON CONFLICT (provider, tenant_id, event_id) DO UPDATE SET result = excluded.result
             WHERE payment_events.status = 'failed'",
        )
        .bind(provider.as_str())
        .bind(event_id)
        .bind(event_type)
        .bind(Json(json!({"processed": false, "message": error})))
        .bind(now)
        .bind(tenant.as_str())
        .execute(&self.write)
        .await?;
        Ok(())
    }

    /// Counts of a provider's events (spec Part B 4.6 health).
    pub async fn payment_event_stats(
        &self,
        provider: Provider,
        now: Timestamp,
    ) -> StoreResult<EventStats> {
        let (processed, last_hour, duplicates, failed): (i64, i64, i64, i64) = sqlx::query_as(
            "SELECT COALESCE(SUM(CASE WHEN status = 'processed' THEN 1 ELSE 0 END), 0),
                    COALESCE(SUM(CASE WHEN received_at >= $2 THEN 1 ELSE 0 END), 0),
                    COALESCE(SUM(duplicates), 0),
                    COALESCE(SUM(CASE WHEN status = 'failed' THEN 1 ELSE 0 END), 0)
             FROM payment_events WHERE provider = $1",
        )
        .bind(provider.as_str())
        .bind(now - chrono::Duration::hours(1))
        .fetch_one(&self.read)
        .await?;
        Ok(EventStats {
            total_events_processed: processed,
            events_last_hour: last_hour,
            duplicate_events_rejected: duplicates,
            failed_events: failed,
        })
    }
}

/// Acts on one card provider event inside its transaction.
async fn act_on_provider_event(
    w: &mut Write,
    event: &ProviderEvent,
) -> Result<EventOutcome, PaymentsError> {
    let done = |processed: bool, message: String| EventOutcome {
        processed,
        message,
        duplicate: false,
        code: None,
    };
    let Some(intent) = event.payment_intent.as_deref() else {
        return Ok(done(
            false,
            format!("{} ignored: no payment", event.event_type),
        ));
    };
    let row: Option<OnlineRow> = sqlx::query_as(&format!(
        "SELECT {COLUMNS} FROM {FROM}
         WHERE p.tenant_id = $1 AND p.provider = $3 AND p.provider_payment_id = $2"
    ))
    .bind(w.tenant.as_str())
    .bind(intent)
    .bind(event.provider.as_str())
    .fetch_optional(&mut *w.tx)
    .await?;
    let Some(payment) = row.map(OnlinePayment::try_from).transpose()? else {
        return Ok(done(false, format!("no payment {intent} in this tenant")));
    };
    let actor = Actor::system(event.provider.as_str());
    match event.event_type.as_str() {
        "payment_intent.succeeded" => {
            if !matches_payment(&payment, event.amount, event.currency.as_deref()) {
                w.audit(
                    &actor,
                    Change {
                        action: "payment.amount_mismatch",
                        entity_type: "payment",
                        entity_id: payment.id.to_string(),
                        changes: json!({"expected": {"amount": payment.amount, "currency": payment.currency},
                            "reported": {"amount": event.amount, "currency": event.currency},
                            "eventId": event.event_id}),
                    },
                );
                return Ok(done(
                    false,
                    format!(
                        "amount or currency differ from the payment ({} {}): not applied",
                        payment.amount, payment.currency
                    ),
                ));
            }
            let Some(booking) = payment.booking_id else {
                return match payment.gift_card_purchase_id {
                    Some(purchase) => Ok(pay_gift_card(w, &payment, purchase).await?),
                    None => Ok(done(false, "not a booking payment".to_owned())),
                };
            };
            let settled = settle_online_payment(w, booking, payment.id, payment.amount, &actor)
                .await
                .map_err(|e| match e {
                    BookingError::Store(s) => PaymentsError::Store(s),
                    other => PaymentsError::Store(StoreError::Corrupt(other.to_string())),
                })?;
            Ok(match settled {
                Settled::Paid(status) => done(true, format!("booking {booking} is {status}")),
                Settled::Reinstated(status) => done(
                    true,
                    format!(
                        "booking {booking} was cancelled for want of this payment; its seats were free: it is {status} again"
                    ),
                ),
                Settled::Already => done(false, "the payment was settled before".to_owned()),
                Settled::BookingClosed(status) => {
                    // Staff decide: take the seats again or refund.
                    sqlx::query(
                        "INSERT INTO dead_letters (tenant_id, id, category, kind, error_type,
                             error_message, retry_count, booking_id, transaction_id, status,
                             failed_at, created_at, updated_at)
                         VALUES ($1, $2, 'payment', $7, 'PAID_AFTER_CLOSE', $3, 0, $4,
                                 $5, 'open', $6, $6, $6)",
                    )
                    .bind(w.tenant.as_str())
                    .bind(kairos_domain::new_id())
                    .bind(match event.provider {
                        Provider::Cardpay => format!(
                            "{} {} was collected for booking {booking}, which is {status}: it is refunded automatically (if this stays open, the refund did not happen: refund it)",
                            payment.amount, payment.currency
                        ),
                        Provider::Bankpay => format!(
                            "{} {} was collected by bank payment for booking {booking}, which is {status}: refund it from the bankpay merchant panel",
                            payment.amount, payment.currency
                        ),
                    })
                    .bind(booking)
                    .bind(payment.id)
                    .bind(w.now)
                    .bind(event.provider.as_str())
                    .execute(&mut *w.tx)
                    .await?;
                    w.audit(
                        &actor,
                        Change {
                            action: "payment.after_close",
                            entity_type: "payment",
                            entity_id: payment.id.to_string(),
                            changes: json!({"bookingId": booking, "bookingStatus": status.as_str()}),
                        },
                    );
                    EventOutcome {
                        code: Some(PAID_AFTER_CLOSE.to_owned()),
                        ..done(
                            true,
                            format!(
                                "payment recorded; booking {booking} is {status}: it is to be refunded"
                            ),
                        )
                    }
                }
            })
        }
        "payment_intent.payment_failed" => {
            let (code, message) = event
                .failure
                .clone()
                .unwrap_or_else(|| ("failed".to_owned(), String::new()));
            let failed = sqlx::query(
                "UPDATE payments SET status = 'FAILED', failure_code = $3, failure_message = $4,
                     failed_at = $5, updated_at = $5
                 WHERE tenant_id = $1 AND id = $2 AND status IN ('PENDING', 'AUTHORIZED')",
            )
            .bind(w.tenant.as_str())
            .bind(payment.id)
            .bind(&code)
            .bind(&message)
            .bind(w.now)
            .execute(&mut *w.tx)
            .await?;
            if failed.rows_affected() == 0 {
                return Ok(done(
                    false,
                    format!("payment is {}: unchanged", payment.status),
                ));
            }
            if let Some(purchase) = payment.gift_card_purchase_id {
                sqlx::query(
                    "UPDATE gift_card_purchases SET status = 'payment_failed', updated_at = $3
                     WHERE tenant_id = $1 AND id = $2 AND status = 'pending'",
                )
                .bind(w.tenant.as_str())
                .bind(purchase)
                .bind(w.now)
                .execute(&mut *w.tx)
                .await?;
            }
            w.audit(
                &actor,
                Change {
                    action: "payment.failed",
                    entity_type: "payment",
                    entity_id: payment.id.to_string(),
                    changes: json!({"bookingId": payment.booking_id, "code": code, "message": message}),
                },
            );
            Ok(done(true, format!("payment failed: {code}")))
        }
        "charge.refunded" => match event.amount_refunded {
            Some(refunded) => charges::charge_refunded(w, &payment, refunded).await,
            None => Ok(done(false, "no amount_refunded: ignored".to_owned())),
        },
        "charge.dispute.created" => match &event.dispute {
            Some(dispute) => charges::dispute_created(w, &payment, dispute).await,
            None => Ok(done(false, "not a dispute: ignored".to_owned())),
        },
        "bankpay.pending" => Ok(done(
            false,
            "the bank payment is on its way: waiting for the bank".to_owned(),
        )),
        other => Ok(done(false, format!("{other} ignored"))),
    }
}
