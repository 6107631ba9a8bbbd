//! Bookings: holds, the status machine, moves, payments recorded by staff, notes and search.
//!
//! Capacity rules (ARCHITECTURE section 5): a slot's `booked` changes only in the
//! transaction that changes the status of the booking holding the seats, by one conditional
//! statement when seats are taken. When that statement finds the slot full, the slot's
//! overdue holds are expired first and it is tried once more, so expired holds never block
//! capacity. Lock order on PostgreSQL is always booking rows, then slot rows in id order.
//!
//! Every write runs through `Write` (`ops/write.rs`): what decides it (catalog, prices,
//! policies, seats) is read inside its transaction.

mod actions;
mod cancellation;
mod customer;
mod day_sheet;
mod expiry;
mod groups;
mod hold;
mod moves;
mod notes;
mod offer;
mod payments;
mod reduce;
mod reductions;
mod reschedule;
mod resource_addons;
mod search;
mod seats;
mod transition;

pub(crate) use groups::{group_charge_refunded, settle_group_payment};
pub(crate) use payments::{Settled, settle_online_payment};
pub(crate) use reductions::restore_vouchers;

use super::audit::Change;
use super::write::Write;
use super::{Db, Repo, dialect};
use crate::{
    Booking, BookingCustomer, BookingError, BookingView, ChosenAddon, PriceBreakdown, StoreError,
    StoreResult, Timestamp, stored,
};
use kairos_domain::TenantId;
use kairos_domain::bookings::{BookingSource, BookingStatus, CreatedReason};
use kairos_domain::payments::PaymentMethod;
use sqlx::Transaction;
use sqlx::types::Json;
use uuid::Uuid;

const BOOKING_COLUMNS: &str = "b.id, b.reference, b.site_id, b.product_id, b.slot_id, \
     b.starts_at, b.ends_at, b.variant_id, b.customer_id, b.customer_name, b.customer_email, \
     b.customer_phone, b.party_size, b.status, b.hold_expires_at, b.addons, b.participants, \
     b.price, b.paid_amount, b.token_hash, b.source, b.payment_method, b.admin_notes, \
     b.send_confirmation, b.created_by, b.created_at, b.updated_at, b.confirmed_at, \
     b.canceled_at, b.created_reason, b.terms_accepted_at, b.terms_accepted_by";

#[derive(kairos_store_macros::FromRow)]
struct BookingRow {
    id: Uuid,
    reference: String,
    site_id: Uuid,
    product_id: Uuid,
    slot_id: Uuid,
    starts_at: Timestamp,
    ends_at: Timestamp,
    variant_id: Option<Uuid>,
    customer_id: Option<Uuid>,
    customer_name: String,
    customer_email: String,
    customer_phone: String,
    party_size: i32,
    status: String,
    hold_expires_at: Option<Timestamp>,
    addons: Json<Vec<ChosenAddon>>,
    participants: Json<Vec<crate::Participant>>,
    price: Json<PriceBreakdown>,
    paid_amount: i64,
    token_hash: String,
    source: String,
    payment_method: Option<String>,
    admin_notes: Option<String>,
    send_confirmation: bool,
    created_by: Option<String>,
    created_at: Timestamp,
    updated_at: Timestamp,
    confirmed_at: Option<Timestamp>,
    canceled_at: Option<Timestamp>,
    created_reason: Option<String>,
    terms_accepted_at: Option<Timestamp>,
    terms_accepted_by: Option<String>,
}

impl TryFrom<BookingRow> for Booking {
    type Error = StoreError;

    fn try_from(r: BookingRow) -> Result<Self, StoreError> {
        let status = BookingStatus::parse(&r.status)
            .ok_or_else(|| StoreError::Corrupt(format!("booking status '{}'", r.status)))?;
        Ok(Booking {
            id: r.id,
            reference: r.reference,
            site_id: r.site_id,
            product_id: r.product_id,
            slot_id: r.slot_id,
            starts_at: r.starts_at,
            ends_at: r.ends_at,
            variant_id: r.variant_id,
            customer: BookingCustomer {
                id: r.customer_id,
                name: r.customer_name,
                email: r.customer_email,
                phone: r.customer_phone,
            },
            party_size: r.party_size,
            status,
            hold_expires_at: r.hold_expires_at,
            addons: r.addons.0,
            participants: r.participants.0,
            price: r.price.0,
            paid_amount: r.paid_amount,
            token_hash: r.token_hash,
            source: stored("source", &r.source, BookingSource::parse)?,
            payment_method: r
                .payment_method
                .map(|m| stored("payment_method", &m, PaymentMethod::parse))
                .transpose()?,
            admin_notes: r.admin_notes,
            send_confirmation: r.send_confirmation,
            created_by: r.created_by,
            created_at: r.created_at,
            updated_at: r.updated_at,
            confirmed_at: r.confirmed_at,
            canceled_at: r.canceled_at,
            created_reason: r
                .created_reason
                .map(|c| stored("created_reason", &c, CreatedReason::parse))
                .transpose()?,
            terms_accepted_at: r.terms_accepted_at,
            terms_accepted_by: r.terms_accepted_by,
            cancellation: None,
        })
    }
}

#[derive(kairos_store_macros::FromRow)]
struct ViewRow {
    #[sqlx(flatten)]
    booking: BookingRow,
    site_name: String,
    product_name: String,
}

impl TryFrom<ViewRow> for BookingView {
    type Error = StoreError;

    fn try_from(r: ViewRow) -> Result<Self, StoreError> {
        Ok(BookingView {
            booking: r.booking.try_into()?,
            site_name: r.site_name,
            product_name: r.product_name,
        })
    }
}

#[derive(kairos_store_macros::FromRow)]
struct SlotRow {
    id: Uuid,
    product_id: Uuid,
    starts_at: Timestamp,
    ends_at: Timestamp,
}

type Tx = Transaction<'static, Db>;

/// The booking, locked for the rest of the transaction (PostgreSQL).
async fn load_for_update(
    tx: &mut Tx,
    tenant: &TenantId,
    id: Uuid,
) -> Result<Booking, BookingError> {
    let row: Option<BookingRow> = sqlx::query_as(sql!(
        "SELECT {BOOKING_COLUMNS} FROM bookings b WHERE b.tenant_id = $1 AND b.id = $2{}",
        dialect::FOR_UPDATE
    ))
    .bind(tenant.as_str())
    .bind(id)
    .fetch_optional(&mut **tx)
    .await?;
    Ok(row.ok_or(BookingError::BookingNotFound)?.try_into()?)
}

async fn load_slot(tx: &mut Tx, tenant: &TenantId, id: Uuid) -> StoreResult<Option<SlotRow>> {
    Ok(sqlx::query_as(
        "SELECT id, product_id, starts_at, ends_at FROM slots WHERE tenant_id = $1 AND id = $2",
    )
    .bind(tenant.as_str())
    .bind(id)
    .fetch_optional(&mut **tx)
    .await?)
}

/// Locks slot rows in id order (PostgreSQL), so two moves between the same slots in
/// opposite directions cannot deadlock.
async fn lock_slots(tx: &mut Tx, tenant: &TenantId, ids: &mut [Uuid]) -> StoreResult<()> {
    if dialect::FOR_UPDATE.is_empty() {
        return Ok(());
    }
    ids.sort();
    for id in ids.iter() {
        sqlx::query(sql!(
            "SELECT id FROM slots WHERE tenant_id = $1 AND id = $2{}",
            dialect::FOR_UPDATE
        ))
        .bind(tenant.as_str())
        .bind(id)
        .execute(&mut **tx)
        .await?;
    }
    Ok(())
}
