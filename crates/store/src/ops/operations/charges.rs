//! A fee's off-session charge, one attempt at a time: begun here (a payment row of its
//! own, `payments.fee_id`, whose id is the provider call's idempotency key), asked of the
//! provider by the application outside any transaction, and finished here with the
//! provider's answer or by the provider's event, whichever comes first, on the locked fee
//! and payment.
//!
//! - While an attempt is PENDING and younger than [`LEASE_SECS`] (longer than a provider
//!   call may take), another is refused (`ChargeInProgress`); an older one is asked again
//!   with the same key (the provider answers the first answer), so a lost answer never
//!   charges twice. After [`UNKNOWN_AFTER_HOURS`] with neither answer nor event (the
//!   provider retries its events for days, and forgets idempotency keys after a day) the
//!   attempt is given up and a new one may begin.
//! - Money taken for a fee no longer open (waived or corrected while the provider was
//!   asked) gets a refund target: the refund asked next or the owed-refunds job returns it.

use super::super::audit::Change;
use super::super::write::Write;
use super::super::{Repo, dialect};
use super::fees::{attempt_of, card_on_file, lock_fee, resolve_no_show_of, set_fee_status};
use crate::{Actor, BookingFee, FeeCharge, FeeChargeOutcome, FeeError, Timestamp};
use kairos_domain::fees::{FeeStatus, Resolution};
use kairos_domain::{TenantId, new_id};
use kairos_store_macros::operations;
use serde_json::json;
use uuid::Uuid;

/// How long an attempt is taken to be under way (a provider call times out in 20 s).
pub const LEASE_SECS: i64 = 120;

/// When an attempt with no answer and no event is given up.
pub const UNKNOWN_AFTER_HOURS: i64 = 23;

/// Records how a charge attempt ended, on the locked fee and payment: by the provider's
/// answer (`finish_fee_charge`) or its event, whichever comes first; the second finds
/// the attempt finished and changes nothing.
pub(crate) async fn finish_attempt(
    w: &mut Write,
    fee_id: Uuid,
    payment_id: Uuid,
    outcome: &FeeChargeOutcome,
    actor: &Actor,
) -> Result<BookingFee, FeeError> {
    let mut fee = lock_fee(w, fee_id).await?;
    let status: Option<String> = sqlx::query_scalar(sql!(
        "SELECT status FROM payments WHERE tenant_id = $1 AND id = $2 AND fee_id = $3{}",
        dialect::FOR_UPDATE
    ))
    .bind(w.tenant.as_str())
    .bind(payment_id)
    .bind(fee_id)
    .fetch_optional(&mut *w.tx)
    .await?;
    if status.as_deref() != Some("PENDING") {
        // Finished already (by the event, or the other of two callers).
        return Ok(fee);
    }
    let (payment_status, intent, error) = match outcome {
        FeeChargeOutcome::Charged { intent } => ("COMPLETED", Some(intent.as_str()), None),
        FeeChargeOutcome::Processing { intent } => ("PENDING", Some(intent.as_str()), None),
        FeeChargeOutcome::Declined { code, message } => {
            ("FAILED", None, Some((code.as_str(), message.as_str())))
        }
        FeeChargeOutcome::NoCard => (
            "CANCELED",
            None,
            Some((
                "no_card_on_file",
                "the card the booking was paid with cannot be charged again",
            )),
        ),
    };
    let now = w.now;
    sqlx::query(
        "UPDATE payments SET status = $3,
             provider_payment_id = COALESCE($4, provider_payment_id), updated_at = $5,
             completed_at = CASE WHEN $3 = 'COMPLETED' THEN $5 ELSE completed_at END,
             failed_at = CASE WHEN $3 = 'FAILED' THEN $5 ELSE failed_at END,
             failure_code = $6, failure_message = $7
         WHERE tenant_id = $1 AND id = $2",
    )
    .bind(w.tenant.as_str())
    .bind(payment_id)
    .bind(payment_status)
    .bind(intent)
    .bind(now)
    .bind(error.map(|e| e.0))
    .bind(error.map(|e| e.1))
    .execute(&mut *w.tx)
    .await?;
    if let Some((code, message)) = error {
        sqlx::query(
            "UPDATE booking_fees SET last_error_code = $3, last_error_message = $4
             WHERE tenant_id = $1 AND id = $2",
        )
        .bind(w.tenant.as_str())
        .bind(fee.id)
        .bind(code)
        .bind(message)
        .execute(&mut *w.tx)
        .await?;
        fee.last_error = Some((code.to_owned(), message.to_owned()));
    }
    match outcome {
        FeeChargeOutcome::Charged { intent }
            if fee.status.is_open() && fee.payment_id == Some(payment_id) =>
        {
            set_fee_status(w, &mut fee, FeeStatus::Charged, actor).await?;
            fee.charge_id = Some(intent.clone());
            resolve_no_show_of(w, &fee, Resolution::FeeCharged, None).await?;
        }
        FeeChargeOutcome::Charged { intent } => {
            // Waived or corrected while the provider was asked: the money goes back.
            sqlx::query(
                "UPDATE payments SET refund_target = amount WHERE tenant_id = $1 AND id = $2",
            )
            .bind(w.tenant.as_str())
            .bind(payment_id)
            .execute(&mut *w.tx)
            .await?;
            w.audit(
                actor,
                Change {
                    action: "fee.charge_returned",
                    entity_type: "booking",
                    entity_id: fee.booking_id.to_string(),
                    changes: json!({"feeId": fee.id, "paymentId": payment_id,
                        "intent": intent, "status": fee.status.as_str()}),
                },
            );
        }
        FeeChargeOutcome::NoCard if fee.status == FeeStatus::Pending => {
            set_fee_status(w, &mut fee, FeeStatus::Owed, actor).await?;
        }
        _ => {}
    }
    Ok(fee)
}

#[operations]
impl Repo {
    /// Begins charging an open fee off-session, on the locked fee: the attempt's payment
    /// (an attempt under way is `ChargeInProgress`; one whose answer was lost is asked
    /// again with the same payment) and the booking's card payment whose card pays it
    /// (None: no card on file, and the fee is now `owed`).
    pub async fn begin_fee_charge(
        &self,
        tenant: &TenantId,
        id: Uuid,
        actor: &Actor,
        now: Timestamp,
    ) -> Result<FeeCharge, FeeError> {
        let mut w = self.begin(tenant, now).await?;
        let mut fee = lock_fee(&mut w, id).await?;
        if !fee.status.is_open() {
            return Err(FeeError::NotOpen(fee.status, "charged"));
        }
        let Some(card) = card_on_file(&mut w, fee.booking_id).await? else {
            if fee.status != FeeStatus::Owed {
                set_fee_status(&mut w, &mut fee, FeeStatus::Owed, actor).await?;
            }
            w.commit(None).await?;
            return Ok(FeeCharge {
                amount: fee.amount,
                fee,
                payment_id: Uuid::nil(),
                card_payment: None,
            });
        };
        if let Some((payment_id, status, amount, began)) = attempt_of(&mut w, &fee).await?
            && status == "PENDING"
        {
            let age = now - began;
            if age < chrono::Duration::seconds(LEASE_SECS) {
                return Err(FeeError::ChargeInProgress);
            }
            if age < chrono::Duration::hours(UNKNOWN_AFTER_HOURS) {
                // Its answer was lost: ask again, with the same key.
                w.commit(None).await?;
                return Ok(FeeCharge {
                    fee,
                    payment_id,
                    amount,
                    card_payment: Some(card),
                });
            }
            sqlx::query(
                "UPDATE payments SET status = 'CANCELED', updated_at = $3,
                     failure_code = 'unknown_outcome',
                     failure_message = 'no answer and no event from the provider'
                 WHERE tenant_id = $1 AND id = $2",
            )
            .bind(tenant.as_str())
            .bind(payment_id)
            .bind(now)
            .execute(&mut *w.tx)
            .await?;
        }
        let payment_id = new_id();
        sqlx::query(
            "INSERT INTO payments (tenant_id, id, booking_id, fee_id, amount, currency, method,
                 status, recorded_by, created_at, updated_at, provider, credential_source,
                 credential_site_id)
             VALUES ($1, $2, NULL, $3, $4, $5, 'cardpay', 'PENDING', $6, $7, $7, 'cardpay',
                 $8, $9)",
        )
        .bind(tenant.as_str())
        .bind(payment_id)
        .bind(fee.id)
        .bind(fee.amount)
        .bind(&fee.currency)
        .bind(actor.id.as_deref())
        .bind(now)
        .bind(card.credential_source.map(|s| s.as_str()))
        .bind(card.credential_site_id)
        .execute(&mut *w.tx)
        .await?;
        sqlx::query(
            "UPDATE booking_fees SET payment_id = $3, charge_attempts = charge_attempts + 1
             WHERE tenant_id = $1 AND id = $2",
        )
        .bind(tenant.as_str())
        .bind(fee.id)
        .bind(payment_id)
        .execute(&mut *w.tx)
        .await?;
        fee.payment_id = Some(payment_id);
        fee.charge_attempts += 1;
        w.commit(None).await?;
        Ok(FeeCharge {
            amount: fee.amount,
            fee,
            payment_id,
            card_payment: Some(card),
        })
    }

    /// Records how a fee charge ended (see [`finish_attempt`]).
    pub async fn finish_fee_charge(
        &self,
        tenant: &TenantId,
        charge: &FeeCharge,
        outcome: &FeeChargeOutcome,
        actor: &Actor,
        now: Timestamp,
    ) -> Result<BookingFee, FeeError> {
        let mut w = self.begin(tenant, now).await?;
        let fee = finish_attempt(&mut w, charge.fee.id, charge.payment_id, outcome, actor).await?;
        w.commit(None).await?;
        Ok(fee)
    }
}
