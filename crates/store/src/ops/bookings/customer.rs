//! Correcting the customer details of a booking.

use super::search::phone_key;
use super::{Change, Repo, load_for_update};
use crate::{Actor, Booking, BookingCustomerPatch, BookingError, Timestamp};
use kairos_domain::TenantId;
use kairos_store_macros::operations;
use serde_json::{Value, json};
use uuid::Uuid;

#[operations]
impl Repo {
    /// Changes the customer details of a booking, auditing each changed field.
    pub async fn update_booking_customer(
        &self,
        tenant: &TenantId,
        id: Uuid,
        patch: BookingCustomerPatch,
        actor: &Actor,
        now: Timestamp,
    ) -> Result<Booking, BookingError> {
        let mut w = self.begin(tenant, now).await?;
        let mut b = load_for_update(&mut w.tx, tenant, id).await?;
        let mut changes = serde_json::Map::new();
        for (field, new, current) in [
            ("customerName", patch.name, &mut b.customer.name),
            ("customerEmail", patch.email, &mut b.customer.email),
            ("customerPhone", patch.phone, &mut b.customer.phone),
        ] {
            if let Some(new) = new
                && new != *current
            {
                changes.insert(field.into(), json!({"from": current, "to": new}));
                *current = new;
            }
        }
        if !changes.is_empty() {
            sqlx::query(
                "UPDATE bookings SET customer_name = $3, customer_email = $4, customer_phone = $5,
                     customer_phone_key = $6, updated_at = $7
                 WHERE tenant_id = $1 AND id = $2",
            )
            .bind(tenant.as_str())
            .bind(id)
            .bind(&b.customer.name)
            .bind(&b.customer.email)
            .bind(&b.customer.phone)
            .bind(phone_key(&b.customer.phone))
            .bind(now)
            .execute(&mut *w.tx)
            .await?;
            w.audit(
                actor,
                Change {
                    action: "booking.customer_updated",
                    entity_type: "booking",
                    entity_id: id.to_string(),
                    changes: Value::Object(changes),
                },
            );
            b.updated_at = now;
        }
        w.commit(None).await?;
        Ok(b)
    }
}
