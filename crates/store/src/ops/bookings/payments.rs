//! Payments recorded against a booking.

use super::transition::{apply_transition, insert_payment};
use super::{Change, Repo, Write, load_for_update};
use crate::{Actor, Booking, BookingError, Payment, StoreError, StoreResult, Timestamp, stored};
use kairos_domain::TenantId;
use kairos_domain::bookings::{BookingStatus, Trigger};
use kairos_domain::payments::PaymentStatus;
use kairos_store_macros::operations;
use serde_json::json;
use uuid::Uuid;

#[derive(kairos_store_macros::FromRow)]
struct PaymentRow {
    id: Uuid,
    booking_id: Uuid,
    amount: i64,
    currency: String,
    method: String,
    method_reference: Option<String>,
    status: String,
    refunded_amount: i64,
    created_at: Timestamp,
}

impl TryFrom<PaymentRow> for Payment {
    type Error = StoreError;

    fn try_from(r: PaymentRow) -> Result<Self, StoreError> {
        Ok(Payment {
            id: r.id,
            booking_id: r.booking_id,
            amount: r.amount,
            currency: r.currency,
            method: r.method,
            method_reference: r.method_reference,
            status: stored("payment status", &r.status, PaymentStatus::parse)?,
            refunded_amount: r.refunded_amount,
            created_at: r.created_at,
        })
    }
}

pub(super) async fn record_payment(
    w: &mut Write,
    b: &mut Booking,
    amount: i64,
    method: &str,
    actor: &Actor,
) -> Result<(), StoreError> {
    if amount == 0 {
        return Ok(());
    }
    insert_payment(w, b, amount, method, None, PaymentStatus::Completed, actor).await?;
    w.audit(
        actor,
        Change {
            action: "booking.payment_recorded",
            entity_type: "booking",
            entity_id: b.id.to_string(),
            changes: json!({"amount": amount, "method": method}),
        },
    );
    sqlx::query(
        "UPDATE bookings SET paid_amount = paid_amount + $3 WHERE tenant_id = $1 AND id = $2",
    )
    .bind(w.tenant.as_str())
    .bind(b.id)
    .bind(amount)
    .execute(&mut *w.tx)
    .await?;
    b.paid_amount += amount;
    // Taken at the desk: an online payment still open (waiting, declined, or its funds
    // held) that would now collect more than is owed must not collect; what is still
    // owed is taken at the desk. Settled, every payment still pending is withdrawn.
    let balance = (b.price.total - b.paid_amount).max(0);
    sqlx::query(
        "UPDATE payments SET status = 'CANCELED', updated_at = $3
         WHERE tenant_id = $1 AND booking_id = $2
           AND ((provider IS NOT NULL AND status IN ('PENDING', 'FAILED', 'AUTHORIZED')
                 AND amount > $4)
                OR ($4 = 0 AND status = 'PENDING'))",
    )
    .bind(w.tenant.as_str())
    .bind(b.id)
    .bind(w.now)
    .bind(balance)
    .execute(&mut *w.tx)
    .await?;
    Ok(())
}

/// The price of the locked booking `b`, paid online, rose by `amount` (a resource add-on
/// added): a balance is pending again (`paid` becomes `part_paid`), and a payment of
/// `amount` is opened with the provider that collected the booking's online payment, for
/// the customer to pay the way they paid the booking (true). A booking paid otherwise
/// owes it at the desk (false).
pub(super) async fn charge_more(
    w: &mut Write,
    b: &mut Booking,
    amount: i64,
    actor: &Actor,
) -> Result<bool, BookingError> {
    if b.status == BookingStatus::Paid {
        apply_transition(w, b, Trigger::PriceRaised, actor, Some("add-on added")).await?;
    }
    let provider: Option<String> = sqlx::query_scalar(
        "SELECT provider FROM payments
         WHERE tenant_id = $1 AND booking_id = $2 AND provider IS NOT NULL
           AND status IN ('COMPLETED', 'REFUNDED')
         ORDER BY created_at DESC, id DESC LIMIT 1",
    )
    .bind(w.tenant.as_str())
    .bind(b.id)
    .fetch_optional(&mut *w.tx)
    .await?;
    if let Some(provider) = &provider {
        insert_payment(w, b, amount, provider, None, PaymentStatus::Pending, actor).await?;
    }
    w.audit(
        actor,
        Change {
            action: "booking.additional_charge",
            entity_type: "booking",
            entity_id: b.id.to_string(),
            changes: json!({"amount": amount, "provider": provider}),
        },
    );
    Ok(provider.is_some())
}

/// What a provider's confirmation of a booking's online payment did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Settled {
    /// The payment is COMPLETED and the booking `paid` (or `part_paid`).
    Paid(BookingStatus),
    /// The payment was settled before (another event said so).
    Already,
    /// The booking had been cancelled for want of this payment; its seats were free, so
    /// it took them again and is now `paid` (or `part_paid`).
    Reinstated(BookingStatus),
    /// The money was taken but the booking is no longer waiting for it (cancelled,
    /// expired…): the payment is COMPLETED and it is to be refunded.
    BookingClosed(BookingStatus),
}

/// Records that the provider collected `amount` of the booking's online payment
/// `payment`: the payment becomes COMPLETED and the booking `paid` (or `part_paid` when
/// it covers less than the total), in the caller's transaction, on the locked booking.
/// A payment canceled with its booking that the provider collected after all is recorded
/// COMPLETED too ([`Settled::BookingClosed`]): the money was taken.
pub(crate) async fn settle_online_payment(
    w: &mut Write,
    booking: Uuid,
    payment: Uuid,
    amount: i64,
    actor: &Actor,
) -> Result<Settled, BookingError> {
    let mut b = load_for_update(&mut w.tx, &w.tenant, booking).await?;
    let done = sqlx::query(
        "UPDATE payments SET status = $4, completed_at = $3, updated_at = $3
         WHERE tenant_id = $1 AND id = $2
           AND status IN ('PENDING', 'AUTHORIZED', 'CAPTURED', 'FAILED', 'CANCELED')",
    )
    .bind(w.tenant.as_str())
    .bind(payment)
    .bind(w.now)
    .bind(PaymentStatus::Completed.as_str())
    .execute(&mut *w.tx)
    .await?;
    if done.rows_affected() == 0 {
        return Ok(Settled::Already);
    }
    let mut reinstated = false;
    if b.status == BookingStatus::Canceled {
        let unpaid: bool = sqlx::query_scalar(
            "SELECT canceled_unpaid FROM bookings WHERE tenant_id = $1 AND id = $2",
        )
        .bind(w.tenant.as_str())
        .bind(b.id)
        .fetch_one(&mut *w.tx)
        .await?;
        // A booking whose vouchers were given back when it was cancelled is not taken
        // again (they may be spent since): its late money is refunded.
        let used_vouchers: Option<i32> = sqlx::query_scalar(
            "SELECT 1 FROM voucher_transactions WHERE tenant_id = $1 AND booking_id = $2 LIMIT 1",
        )
        .bind(w.tenant.as_str())
        .bind(b.id)
        .fetch_optional(&mut *w.tx)
        .await?;
        if unpaid && used_vouchers.is_none() {
            match apply_transition(w, &mut b, Trigger::Reinstate, actor, Some("paid late")).await {
                Ok(()) => reinstated = true,
                // The seats went to someone else: the money goes back.
                Err(BookingError::Refused(_)) => return Ok(Settled::BookingClosed(b.status)),
                Err(e) => return Err(e),
            }
            sqlx::query(
                "UPDATE bookings SET canceled_unpaid = FALSE, canceled_at = NULL
                 WHERE tenant_id = $1 AND id = $2",
            )
            .bind(w.tenant.as_str())
            .bind(b.id)
            .execute(&mut *w.tx)
            .await?;
        }
    }
    if !matches!(b.status, BookingStatus::Confirmed | BookingStatus::PartPaid) {
        return Ok(Settled::BookingClosed(b.status));
    }
    let settles = b.paid_amount + amount >= b.price.total;
    apply_transition(w, &mut b, Trigger::PaymentRecorded { settles }, actor, None).await?;
    sqlx::query(
        "UPDATE bookings SET paid_amount = paid_amount + $3 WHERE tenant_id = $1 AND id = $2",
    )
    .bind(w.tenant.as_str())
    .bind(b.id)
    .bind(amount)
    .execute(&mut *w.tx)
    .await?;
    w.audit(
        actor,
        Change {
            action: "booking.payment_recorded",
            entity_type: "booking",
            entity_id: b.id.to_string(),
            changes: json!({"amount": amount, "paymentId": payment, "online": true}),
        },
    );
    Ok(if reinstated {
        Settled::Reinstated(b.status)
    } else {
        Settled::Paid(b.status)
    })
}

#[operations]
impl Repo {
    /// Payments recorded against a booking, oldest first.
    pub async fn list_payments(
        &self,
        tenant: &TenantId,
        booking: Uuid,
    ) -> StoreResult<Vec<Payment>> {
        let rows: Vec<PaymentRow> = sqlx::query_as(
            "SELECT id, booking_id, amount, currency, method, method_reference, status,
                    refunded_amount, created_at
             FROM payments WHERE tenant_id = $1 AND booking_id = $2 ORDER BY created_at, id",
        )
        .bind(tenant.as_str())
        .bind(booking)
        .fetch_all(&self.read)
        .await?;
        rows.into_iter().map(Payment::try_from).collect()
    }
}
