//! Creating a booking: a public hold or a staff booking takes its seats.

use super::search::phone_key;
use super::seats::{reclaim_expired_holds, take_seats};
use super::transition::outbox;
use super::{Change, Repo, audit, idempotency, load_slot, refused};
use crate::{
    Actor, Booking, BookingCustomer, BookingRefusal, BookingSource, IdempotentFinish, NewBooking,
    StoreError, StoreResult, Timestamp,
};
use kairos_domain::bookings::BookingStatus;
use kairos_domain::ids::new_reference;
use kairos_domain::{TenantId, new_id};
use kairos_store_macros::operations;
use serde_json::json;
use sqlx::types::Json;

#[operations]
impl Repo {
    /// Creates a booking: takes its seats (after expiring the slot's overdue holds), writes
    /// the booking and its audit row, and with `idem` the idempotent response, all in one
    /// transaction. `NotFound` when the slot does not exist or belongs to another product;
    /// `Refused(SlotUnavailable)` when it cannot take the party.
    pub async fn create_booking(
        &self,
        tenant: &TenantId,
        new: NewBooking,
        actor: &Actor,
        now: Timestamp,
        idem: Option<IdempotentFinish<'_>>,
    ) -> StoreResult<Booking> {
        let mut tx = self.begin_write().await?;
        let slot = load_slot(&mut tx, tenant, new.slot_id)
            .await?
            .filter(|s| s.product_id == new.product_id)
            .ok_or(StoreError::NotFound)?;
        reclaim_expired_holds(&mut tx, tenant, slot.id, now).await?;
        if !take_seats(&mut tx, tenant, slot.id, new.party_size, new.seats, now).await? {
            return Err(refused(BookingRefusal::SlotUnavailable));
        }
        let customer_id = match new.customer.id {
            Some(id) => Some(id),
            // Staff bookings join the account with the customer's email. An anonymous
            // public hold does not, or anyone could put bookings into someone's account.
            None if new.source == BookingSource::Admin && !new.customer.email.is_empty() => {
                sqlx::query_scalar("SELECT id FROM customers WHERE tenant_id = $1 AND email = $2")
                    .bind(tenant.as_str())
                    .bind(&new.customer.email)
                    .fetch_optional(&mut *tx)
                    .await?
            }
            None => None,
        };
        let id = new_id();
        let confirmed_at = (new.status != BookingStatus::Hold).then_some(now);
        let mut reference = new_reference();
        loop {
            let done = sqlx::query(
                "INSERT INTO bookings (tenant_id, id, reference, site_id, product_id, slot_id,
                     starts_at, ends_at, variant_id, customer_id, customer_name, customer_email,
                     customer_phone, customer_phone_key, party_size, status, hold_expires_at,
                     addons, participants, price, total, currency, pricing_hash, token_hash,
                     source, payment_method, admin_notes, send_confirmation, created_by,
                     created_at, updated_at, confirmed_at)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16,
                     $17, $18, $19, $20, $21, $22, $23, $24, $25, $26, $27, $28, $29, $30, $30,
                     $31)
                 ON CONFLICT (tenant_id, reference) DO NOTHING",
            )
            .bind(tenant.as_str())
            .bind(id)
            .bind(&reference)
            .bind(new.site_id)
            .bind(new.product_id)
            .bind(slot.id)
            .bind(slot.starts_at)
            .bind(slot.ends_at)
            .bind(new.variant_id)
            .bind(customer_id)
            .bind(&new.customer.name)
            .bind(&new.customer.email)
            .bind(&new.customer.phone)
            .bind(phone_key(&new.customer.phone))
            .bind(new.party_size)
            .bind(new.status.as_str())
            .bind(new.hold_expires_at)
            .bind(Json(&new.addons))
            .bind(Json(&new.participants))
            .bind(Json(&new.price))
            .bind(new.price.total)
            .bind(&new.price.currency)
            .bind(&new.price.pricing_hash)
            .bind(&new.token_hash)
            .bind(new.source.as_str())
            .bind(new.payment_method.as_deref())
            .bind(new.admin_notes.as_deref())
            .bind(new.send_confirmation)
            .bind(actor.id.as_deref())
            .bind(now)
            .bind(confirmed_at)
            .execute(&mut *tx)
            .await?;
            if done.rows_affected() == 1 {
                break;
            }
            reference = new_reference();
        }
        let booking = Booking {
            id,
            reference,
            site_id: new.site_id,
            product_id: new.product_id,
            slot_id: slot.id,
            starts_at: slot.starts_at,
            ends_at: slot.ends_at,
            variant_id: new.variant_id,
            customer: BookingCustomer {
                id: customer_id,
                ..new.customer
            },
            party_size: new.party_size,
            status: new.status,
            hold_expires_at: new.hold_expires_at,
            addons: new.addons,
            participants: new.participants,
            price: new.price,
            paid_amount: 0,
            token_hash: new.token_hash,
            source: new.source.as_str().to_owned(),
            payment_method: new.payment_method,
            admin_notes: new.admin_notes,
            send_confirmation: new.send_confirmation,
            created_by: actor.id.clone(),
            created_at: now,
            updated_at: now,
            confirmed_at,
            canceled_at: None,
        };
        audit::record(
            &mut tx,
            tenant,
            actor,
            Change {
                action: "booking.created",
                entity_type: "booking",
                entity_id: id.to_string(),
                changes: json!({
                    "status": {"from": null, "to": booking.status.as_str()},
                    "source": booking.source,
                    "slotId": slot.id,
                    "partySize": booking.party_size,
                    "seatPolicy": format!("{:?}", new.seats),
                }),
            },
            now,
        )
        .await?;
        if booking.status != BookingStatus::Hold && booking.send_confirmation {
            outbox(&mut tx, tenant, "booking_confirmation", &booking, now).await?;
        }
        if let Some(idem) = idem {
            let (status, body) = (idem.render)(&booking);
            idempotency::finish(&mut tx, tenant, idem.key, status, &body).await?;
        }
        tx.commit().await?;
        Ok(booking)
    }
}
