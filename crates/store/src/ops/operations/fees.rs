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
    Actor, BookingFee, FeeError, NewFee, OnlinePayment, StoreError, StoreResult, Timestamp,
    actor_label, stored,
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

/// Locks the booking and its no-show record (PostgreSQL), the order every path that
/// touches a fee takes (booking, no-show record, fee, payment), so none waits on another
/// in a circle.
pub(super) async fn lock_booking(w: &mut Write, booking: Uuid) -> Result<(), FeeError> {
    let found: Option<Uuid> = sqlx::query_scalar(sql!(
        "SELECT id FROM bookings WHERE tenant_id = $1 AND id = $2{}",
        dialect::FOR_UPDATE
    ))
    .bind(w.tenant.as_str())
    .bind(booking)
    .fetch_optional(&mut *w.tx)
    .await?;
    found.ok_or(FeeError::BookingNotFound)?;
    sqlx::query(sql!(
        "SELECT id FROM no_shows WHERE tenant_id = $1 AND booking_id = $2{}",
        dialect::FOR_UPDATE
    ))
    .bind(w.tenant.as_str())
    .bind(booking)
    .execute(&mut *w.tx)
    .await?;
    Ok(())
}

/// The fee, locked for the rest of the transaction after its booking and no-show record
/// ([`lock_booking`]).
pub(super) async fn lock_fee(w: &mut Write, id: Uuid) -> Result<BookingFee, FeeError> {
    let booking: Option<Uuid> =
        sqlx::query_scalar("SELECT booking_id FROM booking_fees WHERE tenant_id = $1 AND id = $2")
            .bind(w.tenant.as_str())
            .bind(id)
            .fetch_optional(&mut *w.tx)
            .await?;
    lock_booking(w, booking.ok_or(FeeError::NotFound)?).await?;
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

/// The status of a fee's charge attempt under way, if any: its payment, status, amount and
/// when it began, locked.
pub(super) async fn attempt_of(
    w: &mut Write,
    fee: &BookingFee,
) -> StoreResult<Option<(Uuid, String, i64, Timestamp)>> {
    let Some(id) = fee.payment_id else {
        return Ok(None);
    };
    let row: Option<(String, i64, Timestamp)> = sqlx::query_as(sql!(
        "SELECT status, amount, created_at FROM payments WHERE tenant_id = $1 AND id = $2{}",
        dialect::FOR_UPDATE
    ))
    .bind(w.tenant.as_str())
    .bind(id)
    .fetch_optional(&mut *w.tx)
    .await?;
    Ok(row.map(|(status, amount, at)| (id, status, amount, at)))
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
pub(super) async fn resolve_no_show_of(
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
}
