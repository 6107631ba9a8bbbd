//! Provider events (the card webhook's, the bank callback's), each processed once: the
//! `payment_events` row is written in the transaction that acts on the event, so a crash
//! leaves no trace and the provider's redelivery processes it.

use super::super::Repo;
use super::super::bookings::{group_charge_refunded, settle_group_payment};
use super::super::dialect;
use super::super::gift_cards::pay_gift_card;
use super::super::operations::finish_attempt;
use super::super::write::Write;
use super::charges;
use super::event_effects::{amount_mismatch, payment_failed, settle_booking};
use super::online::{COLUMNS, FROM, OnlineRow};
use crate::{
    Actor, EventOutcome, EventStats, FeeChargeOutcome, FeeError, OnlinePayment, PaymentsError,
    ProviderEvent, StoreResult, Timestamp,
};
use kairos_domain::TenantId;
use kairos_domain::payments::credentials::Provider;
use kairos_domain::payments::reports::{Effect, PaymentFacts, effect_of};
use kairos_store_macros::operations;
use serde_json::json;
use sqlx::types::Json;

#[operations]
impl Repo {
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
            let (status, result): (String, Json<serde_json::Value>) = sqlx::query_as(sql!(
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

    /// Counts of a provider's events for `tenant` (spec Part B 4.6 health).
    pub async fn payment_event_stats(
        &self,
        tenant: &TenantId,
        provider: Provider,
        now: Timestamp,
    ) -> StoreResult<EventStats> {
        let (processed, last_hour, duplicates, failed): (i64, i64, i64, i64) = sqlx::query_as(
            "SELECT COALESCE(SUM(CASE WHEN status = 'processed' THEN 1 ELSE 0 END), 0),
                    COALESCE(SUM(CASE WHEN received_at >= $2 THEN 1 ELSE 0 END), 0),
                    COALESCE(SUM(duplicates), 0),
                    COALESCE(SUM(CASE WHEN status = 'failed' THEN 1 ELSE 0 END), 0)
             FROM payment_events WHERE provider = $1 AND tenant_id = $3",
        )
        .bind(provider.as_str())
        .bind(now - chrono::Duration::hours(1))
        .bind(tenant.as_str())
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

/// Finishes a fee's charge attempt by the provider's event.
async fn settle_fee(
    w: &mut Write,
    fee: uuid::Uuid,
    payment: &OnlinePayment,
    outcome: &FeeChargeOutcome,
    actor: &Actor,
) -> Result<EventOutcome, PaymentsError> {
    let message = match finish_attempt(w, fee, payment.id, outcome, actor).await {
        Ok(fee) => format!("the fee is {}", fee.status),
        Err(FeeError::Store(e)) => return Err(e.into()),
        Err(other) => other.to_string(),
    };
    Ok(EventOutcome {
        processed: true,
        message,
        duplicate: false,
        code: None,
    })
}

/// Acts on one provider event inside its transaction: what it does is decided by
/// [`effect_of`] on the payment as this transaction reads it; here it is carried out.
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
    let row: Option<OnlineRow> = sqlx::query_as(sql!(
        "SELECT {COLUMNS} FROM {FROM}
         WHERE p.tenant_id = $1 AND p.provider = $3 AND p.provider_payment_id = $2"
    ))
    .bind(w.tenant.as_str())
    .bind(intent)
    .bind(event.provider.as_str())
    .fetch_optional(&mut *w.tx)
    .await?;
    let row = match (row, event.payment_id) {
        (Some(row), _) => Some(row),
        // A fee's charge whose answer was lost before its intent was recorded: found by
        // the payment its metadata names, and given the intent now.
        (None, Some(id)) => {
            let found: Option<OnlineRow> = sqlx::query_as(sql!(
                "SELECT {COLUMNS} FROM {FROM}
                 WHERE p.tenant_id = $1 AND p.id = $2 AND p.provider = $3
                   AND p.fee_id IS NOT NULL AND p.provider_payment_id IS NULL"
            ))
            .bind(w.tenant.as_str())
            .bind(id)
            .bind(event.provider.as_str())
            .fetch_optional(&mut *w.tx)
            .await?;
            if found.is_some() {
                sqlx::query(
                    "UPDATE payments SET provider_payment_id = $3 WHERE tenant_id = $1 AND id = $2",
                )
                .bind(w.tenant.as_str())
                .bind(id)
                .bind(intent)
                .execute(&mut *w.tx)
                .await?;
            }
            found
        }
        (None, None) => None,
    };
    let Some(payment) = row.map(OnlinePayment::try_from).transpose()? else {
        return Ok(done(false, format!("no payment {intent} in this tenant")));
    };
    let actor = Actor::system(event.provider.as_str());
    let facts = PaymentFacts {
        provider: payment.provider,
        status: payment.status,
        amount: payment.amount,
        currency: &payment.currency,
        booking: payment.booking_id,
        gift_card_purchase: payment.gift_card_purchase_id,
        fee: payment.fee_id,
        group: payment.group_id,
    };
    match effect_of(&event.report, &facts) {
        Effect::AmountMismatch => amount_mismatch(w, event, &payment, &actor).await,
        Effect::SettleBooking(booking) => settle_booking(w, event, &payment, booking, &actor).await,
        Effect::PayGiftCard(purchase) => Ok(pay_gift_card(w, &payment, purchase).await?),
        Effect::SettleGroup(group) => settle_group_payment(w, &payment, group, &actor).await,
        Effect::NothingToPay => Ok(done(false, "not a booking payment".to_owned())),
        Effect::SettleFee(fee) => {
            let outcome = FeeChargeOutcome::Charged {
                intent: intent.to_owned(),
            };
            settle_fee(w, fee, &payment, &outcome, &actor).await
        }
        Effect::FailFee { fee, code, message } => {
            let outcome = FeeChargeOutcome::Declined { code, message };
            settle_fee(w, fee, &payment, &outcome, &actor).await
        }
        Effect::Fail { code, message } => {
            payment_failed(w, event, &payment, (code, message), &actor).await
        }
        Effect::Unchanged(status) => Ok(done(false, format!("payment is {status}: unchanged"))),
        Effect::Refunded(total) if payment.group_id.is_some() => {
            group_charge_refunded(w, &payment, total).await
        }
        Effect::Refunded(total) => charges::charge_refunded(w, &payment, total).await,
        Effect::Disputed(dispute) => charges::dispute_created(w, &payment, &dispute).await,
        Effect::AwaitBank => Ok(done(
            false,
            "the bank payment is on its way: waiting for the bank".to_owned(),
        )),
        Effect::Ignore(why) => Ok(done(false, why)),
    }
}
