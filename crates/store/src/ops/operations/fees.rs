//! Fees on bookings (`kairos_domain::fees`): assessed by a no-show or by staff, charged
//! off-session from the card the booking was paid with, owed when there is none, waived.
//!
//! A charge is begun here (a payment row of its own, `payments.fee_id`, whose id is the
//! provider call's idempotency key), asked of the provider by the application outside any
//! transaction, and finished here with the provider's answer, on the locked fee. A charge
//! whose answer was lost stays PENDING and is asked again with the same key, so a retry
//! never charges twice; only a decline lets the next attempt make a new payment.

use super::super::audit::Change;
use super::super::messaging::{Compose, booking_facts, queue_booking_message};
use super::super::payments::online::{COLUMNS, FROM, OnlineRow};
use super::super::write::Write;
use super::super::{Repo, dialect};
use crate::{
    Actor, BookingFee, FeeCharge, FeeChargeOutcome, FeeError, NewFee, OnlinePayment, StoreError,
    StoreResult, Timestamp, actor_label, stored,
};
use kairos_domain::fees::{FeeKind, FeeStatus, Resolution};
use kairos_domain::money::to_major;
use kairos_domain::tenancy::Currency;
use kairos_domain::{TenantId, new_id};
use kairos_store_macros::operations;
use serde_json::json;
use uuid::Uuid;

pub(super) const FEE_COLUMNS: &str = "f.id, f.booking_id, f.fee_type, f.amount, f.currency, \
     f.status, f.reason, f.notes, f.payment_id, \
     (SELECT p.provider_payment_id FROM payments p WHERE p.tenant_id = f.tenant_id \
        AND p.id = f.payment_id AND p.status IN ('COMPLETED', 'REFUND_PENDING', 'REFUNDED')) \
        AS charge_id, \
     f.charge_attempts, f.last_error_code, f.last_error_message, f.assessed_by, f.created_at, \
     f.processed_at, f.processed_by";

#[derive(kairos_store_macros::FromRow)]
pub(super) struct FeeRow {
    id: Uuid,
    booking_id: Uuid,
    fee_type: String,
    amount: i64,
    currency: String,
    status: String,
    reason: Option<String>,
    notes: Option<String>,
    payment_id: Option<Uuid>,
    charge_id: Option<String>,
    /// INTEGER in both databases.
    charge_attempts: i32,
    last_error_code: Option<String>,
    last_error_message: Option<String>,
    assessed_by: String,
    created_at: Timestamp,
    processed_at: Option<Timestamp>,
    processed_by: Option<String>,
}

impl TryFrom<FeeRow> for BookingFee {
    type Error = StoreError;

    fn try_from(r: FeeRow) -> Result<Self, StoreError> {
        Ok(BookingFee {
            id: r.id,
            booking_id: r.booking_id,
            kind: stored("fee type", &r.fee_type, FeeKind::parse)?,
            amount: r.amount,
            currency: r.currency,
            status: stored("fee status", &r.status, FeeStatus::parse)?,
            reason: r.reason,
            notes: r.notes,
            payment_id: r.payment_id,
            charge_id: r.charge_id,
            charge_attempts: r.charge_attempts,
            last_error: r
                .last_error_code
                .map(|c| (c, r.last_error_message.unwrap_or_default())),
            assessed_by: r.assessed_by,
            created_at: r.created_at,
            processed_at: r.processed_at,
            processed_by: r.processed_by,
        })
    }
}

/// The booking's newest card payment that was collected: its card is the one on file.
pub(super) async fn card_on_file(
    w: &mut Write,
    booking: Uuid,
) -> StoreResult<Option<OnlinePayment>> {
    let row: Option<OnlineRow> = sqlx::query_as(sql!(
        "SELECT {COLUMNS} FROM {FROM}
         WHERE p.tenant_id = $1 AND p.booking_id = $2 AND p.provider = 'cardpay'
           AND p.provider_payment_id IS NOT NULL
           AND p.status IN ('COMPLETED', 'CAPTURED', 'REFUND_PENDING', 'REFUNDED')
         ORDER BY p.created_at DESC, p.id DESC LIMIT 1"
    ))
    .bind(w.tenant.as_str())
    .bind(booking)
    .fetch_optional(&mut *w.tx)
    .await?;
    row.map(OnlinePayment::try_from).transpose()
}

/// A new fee on a booking (its money the booking's): `pending` with a card on file,
/// `owed` without.
pub(super) async fn insert_fee(
    w: &mut Write,
    booking: Uuid,
    currency: &str,
    new: &NewFee,
    actor: &Actor,
) -> StoreResult<BookingFee> {
    let (kind, amount) = (new.kind, new.amount);
    let (reason, notes) = (new.reason.as_deref(), new.notes.as_deref());
    let card = card_on_file(w, booking).await?.is_some();
    let fee = BookingFee {
        id: new_id(),
        booking_id: booking,
        kind,
        amount,
        currency: currency.to_owned(),
        status: FeeStatus::assessed(card),
        reason: reason.map(str::to_owned),
        notes: notes.map(str::to_owned),
        payment_id: None,
        charge_id: None,
        charge_attempts: 0,
        last_error: None,
        assessed_by: actor_label(actor),
        created_at: w.now,
        processed_at: None,
        processed_by: None,
    };
    sqlx::query(
        "INSERT INTO booking_fees (tenant_id, id, booking_id, fee_type, amount, currency,
             status, reason, notes, assessed_by, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)",
    )
    .bind(w.tenant.as_str())
    .bind(fee.id)
    .bind(booking)
    .bind(kind.as_str())
    .bind(amount)
    .bind(currency)
    .bind(fee.status.as_str())
    .bind(reason)
    .bind(notes)
    .bind(&fee.assessed_by)
    .bind(w.now)
    .execute(&mut *w.tx)
    .await?;
    w.audit(
        actor,
        Change {
            action: "fee.assessed",
            entity_type: "booking",
            entity_id: booking.to_string(),
            changes: json!({"feeId": fee.id, "feeType": kind.as_str(), "amount": amount,
                "status": fee.status.as_str(), "reason": reason}),
        },
    );
    Ok(fee)
}

/// The fee, locked for the rest of the transaction (PostgreSQL).
pub(super) async fn lock_fee(w: &mut Write, id: Uuid) -> Result<BookingFee, FeeError> {
    let row: Option<FeeRow> = sqlx::query_as(sql!(
        "SELECT {FEE_COLUMNS} FROM booking_fees f WHERE f.tenant_id = $1 AND f.id = $2{}",
        dialect::FOR_UPDATE
    ))
    .bind(w.tenant.as_str())
    .bind(id)
    .fetch_optional(&mut *w.tx)
    .await?;
    Ok(row.ok_or(FeeError::NotFound)?.try_into()?)
}

/// Sets a fee's status (and who processed it, when).
pub(super) async fn set_fee_status(
    w: &mut Write,
    fee: &mut BookingFee,
    status: FeeStatus,
    actor: &Actor,
) -> StoreResult<()> {
    let by = actor_label(actor);
    sqlx::query(
        "UPDATE booking_fees SET status = $3, processed_at = $4, processed_by = $5
         WHERE tenant_id = $1 AND id = $2",
    )
    .bind(w.tenant.as_str())
    .bind(fee.id)
    .bind(status.as_str())
    .bind(w.now)
    .bind(&by)
    .execute(&mut *w.tx)
    .await?;
    w.audit(
        actor,
        Change {
            action: "fee.status_changed",
            entity_type: "booking",
            entity_id: fee.booking_id.to_string(),
            changes: json!({"feeId": fee.id, "status": {"from": fee.status.as_str(),
                "to": status.as_str()}}),
        },
    );
    fee.status = status;
    fee.processed_at = Some(w.now);
    fee.processed_by = Some(by);
    Ok(())
}

/// Settles the no-show whose fee this is, if any, with `resolution`.
async fn resolve_no_show_of(
    w: &mut Write,
    fee: &BookingFee,
    resolution: Resolution,
    notes: Option<&str>,
) -> StoreResult<()> {
    sqlx::query(
        "UPDATE no_shows SET resolution = $3, resolved_at = $4,
             resolution_notes = COALESCE($5, resolution_notes)
         WHERE tenant_id = $1 AND fee_id = $2 AND resolution IS NULL",
    )
    .bind(w.tenant.as_str())
    .bind(fee.id)
    .bind(resolution.as_str())
    .bind(w.now)
    .bind(notes)
    .execute(&mut *w.tx)
    .await?;
    Ok(())
}

/// What a charge asks the provider: a charge under way (its payment still PENDING) is
/// asked again with the same payment, else a new payment is made for this attempt.
async fn charge_payment(
    w: &mut Write,
    fee: &BookingFee,
    card: &OnlinePayment,
    actor: &Actor,
) -> StoreResult<Uuid> {
    if let Some(id) = fee.payment_id {
        let status: Option<String> =
            sqlx::query_scalar("SELECT status FROM payments WHERE tenant_id = $1 AND id = $2")
                .bind(w.tenant.as_str())
                .bind(id)
                .fetch_optional(&mut *w.tx)
                .await?;
        if status.as_deref() == Some("PENDING") {
            return Ok(id);
        }
    }
    let id = new_id();
    sqlx::query(
        "INSERT INTO payments (tenant_id, id, booking_id, fee_id, amount, currency, method,
             status, recorded_by, created_at, updated_at, provider, credential_source,
             credential_site_id)
         VALUES ($1, $2, NULL, $3, $4, $5, 'cardpay', 'PENDING', $6, $7, $7, 'cardpay', $8, $9)",
    )
    .bind(w.tenant.as_str())
    .bind(id)
    .bind(fee.id)
    .bind(fee.amount)
    .bind(&fee.currency)
    .bind(actor.id.as_deref())
    .bind(w.now)
    .bind(card.credential_source.map(|s| s.as_str()))
    .bind(card.credential_site_id)
    .execute(&mut *w.tx)
    .await?;
    sqlx::query(
        "UPDATE booking_fees SET payment_id = $3, charge_attempts = charge_attempts + 1
         WHERE tenant_id = $1 AND id = $2",
    )
    .bind(w.tenant.as_str())
    .bind(fee.id)
    .bind(id)
    .execute(&mut *w.tx)
    .await?;
    Ok(id)
}

#[operations]
impl Repo {
    /// The fee.
    pub async fn booking_fee(
        &self,
        tenant: &TenantId,
        id: Uuid,
    ) -> StoreResult<Option<BookingFee>> {
        let row: Option<FeeRow> = sqlx::query_as(sql!(
            "SELECT {FEE_COLUMNS} FROM booking_fees f WHERE f.tenant_id = $1 AND f.id = $2"
        ))
        .bind(tenant.as_str())
        .bind(id)
        .fetch_optional(&self.read)
        .await?;
        row.map(BookingFee::try_from).transpose()
    }

    /// The booking's fees, oldest first.
    pub async fn booking_fees(
        &self,
        tenant: &TenantId,
        booking: Uuid,
    ) -> StoreResult<Vec<BookingFee>> {
        let rows: Vec<FeeRow> = sqlx::query_as(sql!(
            "SELECT {FEE_COLUMNS} FROM booking_fees f WHERE f.tenant_id = $1 AND f.booking_id = $2
             ORDER BY f.created_at, f.id"
        ))
        .bind(tenant.as_str())
        .bind(booking)
        .fetch_all(&self.read)
        .await?;
        rows.into_iter().map(BookingFee::try_from).collect()
    }

    /// Applies a fee to a booking (staff's `apply-fee`): `pending` when the booking was
    /// paid by card (the card on file), `owed` otherwise; the customer is sent the fee
    /// notice when `notify`.
    pub async fn apply_fee(
        &self,
        tenant: &TenantId,
        booking: Uuid,
        new: &NewFee,
        notify: bool,
        actor: &Actor,
        now: Timestamp,
    ) -> Result<BookingFee, FeeError> {
        let mut w = self.begin(tenant, now).await?;
        let currency: Option<String> = sqlx::query_scalar(sql!(
            "SELECT currency FROM bookings WHERE tenant_id = $1 AND id = $2{}",
            dialect::FOR_UPDATE
        ))
        .bind(tenant.as_str())
        .bind(booking)
        .fetch_optional(&mut *w.tx)
        .await?;
        let Some(currency) = currency else {
            return Err(FeeError::BookingNotFound);
        };
        let fee = insert_fee(&mut w, booking, &currency, new, actor).await?;
        let (kind, amount, reason) = (new.kind, new.amount, new.reason.as_deref());
        if notify && let Some(facts) = booking_facts(&mut w, booking).await? {
            let major = Currency::parse(&currency)
                .map(|c| to_major(amount, c))
                .map_err(|e| StoreError::Corrupt(format!("booking currency: {e}")))?;
            let extra = json!({"feeAmount": major, "feeType": kind.as_str(),
                "feeReason": reason});
            let mut compose = Compose::of("fee_notice", "fee", now);
            compose.extra = Some(&extra);
            queue_booking_message(&mut w, &facts, compose).await?;
        }
        w.commit(None).await?;
        Ok(fee)
    }

    /// Changes an open fee's amount (staff's override), decided on the locked fee.
    pub async fn set_fee_amount(
        &self,
        tenant: &TenantId,
        id: Uuid,
        amount: i64,
        notes: Option<&str>,
        actor: &Actor,
        now: Timestamp,
    ) -> Result<BookingFee, FeeError> {
        let mut w = self.begin(tenant, now).await?;
        let mut fee = lock_fee(&mut w, id).await?;
        if !fee.status.is_open() {
            return Err(FeeError::NotOpen(fee.status, "changed"));
        }
        sqlx::query(
            "UPDATE booking_fees SET amount = $3, notes = COALESCE($4, notes)
             WHERE tenant_id = $1 AND id = $2",
        )
        .bind(tenant.as_str())
        .bind(id)
        .bind(amount)
        .bind(notes)
        .execute(&mut *w.tx)
        .await?;
        w.audit(
            actor,
            Change {
                action: "fee.amount_changed",
                entity_type: "booking",
                entity_id: fee.booking_id.to_string(),
                changes: json!({"feeId": id, "amount": {"from": fee.amount, "to": amount}}),
            },
        );
        fee.amount = amount;
        if notes.is_some() {
            fee.notes = notes.map(str::to_owned);
        }
        w.commit(None).await?;
        Ok(fee)
    }

    /// Waives an open fee with a reason; its no-show, if any, is resolved `fee_waived`.
    pub async fn waive_fee(
        &self,
        tenant: &TenantId,
        id: Uuid,
        reason: &str,
        actor: &Actor,
        now: Timestamp,
    ) -> Result<BookingFee, FeeError> {
        let mut w = self.begin(tenant, now).await?;
        let mut fee = lock_fee(&mut w, id).await?;
        if !fee.status.is_open() {
            return Err(FeeError::NotOpen(fee.status, "waived"));
        }
        set_fee_status(&mut w, &mut fee, FeeStatus::Waived, actor).await?;
        sqlx::query("UPDATE booking_fees SET notes = $3 WHERE tenant_id = $1 AND id = $2")
            .bind(tenant.as_str())
            .bind(id)
            .bind(reason)
            .execute(&mut *w.tx)
            .await?;
        fee.notes = Some(reason.to_owned());
        resolve_no_show_of(&mut w, &fee, Resolution::FeeWaived, Some(reason)).await?;
        w.commit(None).await?;
        Ok(fee)
    }

    /// Begins charging an open fee off-session: the payment that carries this attempt,
    /// and the booking's card payment whose card pays it (None: no card on file, and the
    /// fee is now `owed`).
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
                fee,
                payment_id: Uuid::nil(),
                card_payment: None,
            });
        };
        let payment_id = charge_payment(&mut w, &fee, &card, actor).await?;
        fee.payment_id = Some(payment_id);
        w.commit(None).await?;
        Ok(FeeCharge {
            fee,
            payment_id,
            card_payment: Some(card),
        })
    }

    /// Records how a fee charge ended, on the locked fee: charged (its no-show resolved
    /// `fee_charged`), declined (the fee stays pending with the decline), or no card on
    /// file (owed).
    pub async fn finish_fee_charge(
        &self,
        tenant: &TenantId,
        charge: &FeeCharge,
        outcome: &FeeChargeOutcome,
        actor: &Actor,
        now: Timestamp,
    ) -> Result<BookingFee, FeeError> {
        let mut w = self.begin(tenant, now).await?;
        let mut fee = lock_fee(&mut w, charge.fee.id).await?;
        let (payment_status, intent, error) = match outcome {
            FeeChargeOutcome::Charged { intent } => ("COMPLETED", Some(intent.as_str()), None),
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
        sqlx::query(
            "UPDATE payments SET status = $3, provider_payment_id = COALESCE($4, provider_payment_id),
                 updated_at = $5,
                 completed_at = CASE WHEN $3 = 'COMPLETED' THEN $5 ELSE completed_at END,
                 failed_at = CASE WHEN $3 = 'FAILED' THEN $5 ELSE failed_at END,
                 failure_code = $6, failure_message = $7
             WHERE tenant_id = $1 AND id = $2 AND status = 'PENDING'",
        )
        .bind(tenant.as_str())
        .bind(charge.payment_id)
        .bind(payment_status)
        .bind(intent)
        .bind(now)
        .bind(error.map(|e| e.0))
        .bind(error.map(|e| e.1))
        .execute(&mut *w.tx)
        .await?;
        sqlx::query(
            "UPDATE booking_fees SET last_error_code = $3, last_error_message = $4
             WHERE tenant_id = $1 AND id = $2",
        )
        .bind(tenant.as_str())
        .bind(fee.id)
        .bind(error.map(|e| e.0))
        .bind(error.map(|e| e.1))
        .execute(&mut *w.tx)
        .await?;
        fee.last_error = error.map(|(c, m)| (c.to_owned(), m.to_owned()));
        match outcome {
            FeeChargeOutcome::Charged { intent } if fee.status.is_open() => {
                set_fee_status(&mut w, &mut fee, FeeStatus::Charged, actor).await?;
                fee.charge_id = Some(intent.clone());
                resolve_no_show_of(&mut w, &fee, Resolution::FeeCharged, None).await?;
            }
            FeeChargeOutcome::Charged { intent } => {
                // Waived or corrected while the provider was asked: the money goes back,
                // by the owed-refunds job if the refund asked next does not finish it.
                sqlx::query(
                    "UPDATE payments SET refund_target = amount WHERE tenant_id = $1 AND id = $2",
                )
                .bind(tenant.as_str())
                .bind(charge.payment_id)
                .execute(&mut *w.tx)
                .await?;
                w.audit(
                    actor,
                    Change {
                        action: "fee.charge_returned",
                        entity_type: "booking",
                        entity_id: fee.booking_id.to_string(),
                        changes: json!({"feeId": fee.id, "paymentId": charge.payment_id,
                            "intent": intent, "status": fee.status.as_str()}),
                    },
                );
            }
            FeeChargeOutcome::NoCard if fee.status == FeeStatus::Pending => {
                set_fee_status(&mut w, &mut fee, FeeStatus::Owed, actor).await?;
            }
            _ => {}
        }
        w.commit(None).await?;
        Ok(fee)
    }
}
