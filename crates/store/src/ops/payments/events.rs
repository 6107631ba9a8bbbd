//! Provider events (the card webhook's, the bank callback's), each processed once: the
//! `payment_events` row is written in the transaction that acts on the event, so a crash
//! leaves no trace and the provider's redelivery processes it.

use super::super::Repo;
use super::super::audit::Change;
use super::super::bookings::{Settled, settle_online_payment};
use super::super::dead_letters::open_payment_letter;
use super::super::dialect;
use super::super::gift_cards::pay_gift_card;
use super::super::write::Write;
use super::charges;
use super::online::{COLUMNS, FROM, OnlineRow, matches_payment};
use crate::{
    Actor, BookingError, EventOutcome, EventStats, OnlinePayment, PAID_AFTER_CLOSE, PaymentLetter,
    PaymentsError, ProviderEvent, StoreError, StoreResult, Timestamp,
};
use kairos_domain::TenantId;
use kairos_domain::payments::credentials::Provider;
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
            if !matches_payment(
                &payment,
                event.provider,
                event.amount,
                event.currency.as_deref(),
            ) {
                // Not applied, answered (the provider stops sending it) and put before
                // staff: money may have moved that the booking does not show.
                let message = format!(
                    "{} reported {} {} for payment {} ({} {} expected): not applied; check the payment at the provider",
                    event.provider.as_str(),
                    event
                        .amount
                        .map_or_else(|| "no amount".to_owned(), |a| a.to_string()),
                    event.currency.as_deref().unwrap_or("(no currency)"),
                    payment.id,
                    payment.amount,
                    payment.currency
                );
                let (now, tenant) = (w.now, w.tenant.clone());
                open_payment_letter(
                    &mut w.tx,
                    &tenant,
                    &PaymentLetter {
                        kind: event.provider.as_str(),
                        error_type: "AMOUNT_MISMATCH",
                        message: &message,
                        booking_id: payment.booking_id,
                        transaction_id: Some(payment.id),
                    },
                    now,
                )
                .await?;
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
            if let Some(booking) = payment.booking_id {
                // Staff see it on the booking: the customer may pay another way, or the
                // booking is cancelled at the payment deadline.
                let what = format!(
                    "The {} payment of {} {} failed ({code}{}): the customer may try again; unpaid, the booking is cancelled at the payment deadline",
                    event.provider,
                    payment.amount,
                    payment.currency,
                    if message.is_empty() {
                        String::new()
                    } else {
                        format!(": {message}")
                    }
                );
                charges::issue_note(w, booking, event.provider.as_str(), "normal", &what).await?;
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
