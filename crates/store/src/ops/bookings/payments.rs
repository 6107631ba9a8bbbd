//! Payments recorded against a booking.

use super::transition::insert_payment;
use super::{Change, Repo, Write};
use crate::{Actor, Booking, Payment, StoreError, StoreResult, Timestamp, stored};
use kairos_domain::TenantId;
use kairos_domain::payments::PaymentStatus;
use kairos_store_macros::operations;
use serde_json::json;
use uuid::Uuid;

#[derive(sqlx::FromRow)]
struct PaymentRow {
    id: Uuid,
    booking_id: Uuid,
    amount: i64,
    currency: String,
    method: String,
    method_reference: Option<String>,
    status: String,
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
    if b.paid_amount >= b.price.total {
        // Settled at the desk: an online payment still pending must not collect again.
        sqlx::query(
            "UPDATE payments SET status = $4, updated_at = $3
                 WHERE tenant_id = $1 AND booking_id = $2 AND status = $5",
        )
        .bind(w.tenant.as_str())
        .bind(b.id)
        .bind(w.now)
        .bind(PaymentStatus::Canceled.as_str())
        .bind(PaymentStatus::Pending.as_str())
        .execute(&mut *w.tx)
        .await?;
    }
    Ok(())
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
            "SELECT id, booking_id, amount, currency, method, method_reference, status, created_at
             FROM payments WHERE tenant_id = $1 AND booking_id = $2 ORDER BY created_at, id",
        )
        .bind(tenant.as_str())
        .bind(booking)
        .fetch_all(&self.read)
        .await?;
        rows.into_iter().map(Payment::try_from).collect()
    }
}
