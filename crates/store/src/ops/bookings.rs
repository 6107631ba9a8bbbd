//! Bookings: holds, the status machine, moves, payments recorded by staff, notes and search.
//!
//! Capacity rules (ARCHITECTURE section 5): a slot's `booked` changes only in the
//! transaction that changes the status of the booking holding the seats, by one conditional
//! statement when seats are taken. A hold attempt first expires its slot's overdue holds.
//! Lock order on PostgreSQL is always booking rows, then slot rows in id order.

use super::audit::{self, Change};
use super::{Db, Repo, dialect, idempotency};
use crate::{
    Actor, Booking, BookingAction, BookingCustomer, BookingCustomerPatch, BookingFilter,
    BookingNote, BookingPage, BookingRefusal, BookingSort, BookingSource, BookingView, ChosenAddon,
    IdempotentFinish, NewBooking, NewNote, Payment, PriceBreakdown, SeatPolicy, StoreError,
    StoreResult, Timestamp,
};
use kairos_domain::bookings::{
    BookingStatus, CapacityEffect, Trigger, transition, trigger_for_target,
};
use kairos_domain::ids::new_reference;
use kairos_domain::{TenantId, new_id};
use serde_json::{Value, json};
use sqlx::types::Json;
use sqlx::{QueryBuilder, Transaction};
use uuid::Uuid;

const BOOKING_COLUMNS: &str = "b.id, b.reference, b.site_id, b.product_id, b.slot_id, \
     b.starts_at, b.ends_at, b.variant_id, b.customer_id, b.customer_name, b.customer_email, \
     b.customer_phone, b.party_size, b.status, b.hold_expires_at, b.addons, b.participants, \
     b.price, b.paid_amount, b.token_hash, b.source, b.payment_method, b.admin_notes, \
     b.send_confirmation, b.created_by, b.created_at, b.updated_at, b.confirmed_at, \
     b.canceled_at";

#[derive(sqlx::FromRow)]
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
    participants: Json<Value>,
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
            source: r.source,
            payment_method: r.payment_method,
            admin_notes: r.admin_notes,
            send_confirmation: r.send_confirmation,
            created_by: r.created_by,
            created_at: r.created_at,
            updated_at: r.updated_at,
            confirmed_at: r.confirmed_at,
            canceled_at: r.canceled_at,
        })
    }
}

#[derive(sqlx::FromRow)]
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

#[derive(sqlx::FromRow)]
struct SlotRow {
    id: Uuid,
    product_id: Uuid,
    starts_at: Timestamp,
    ends_at: Timestamp,
}

/// Digits of a phone number, the key phone lookups compare.
pub fn phone_key(phone: &str) -> String {
    phone.chars().filter(char::is_ascii_digit).collect()
}

fn refused(r: BookingRefusal) -> StoreError {
    StoreError::Refused(r)
}

type Tx = Transaction<'static, Db>;

async fn load_for_update(tx: &mut Tx, tenant: &TenantId, id: Uuid) -> StoreResult<Booking> {
    let row: Option<BookingRow> = sqlx::query_as(&format!(
        "SELECT {BOOKING_COLUMNS} FROM bookings b WHERE b.tenant_id = $1 AND b.id = $2{}",
        dialect::FOR_UPDATE
    ))
    .bind(tenant.as_str())
    .bind(id)
    .fetch_optional(&mut **tx)
    .await?;
    row.ok_or(StoreError::NotFound)?.try_into()
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
        sqlx::query(&format!(
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

/// Takes `seats` of a slot under `policy`; false when the slot cannot take them.
async fn take_seats(
    tx: &mut Tx,
    tenant: &TenantId,
    slot: Uuid,
    seats: i32,
    policy: SeatPolicy,
    now: Timestamp,
) -> StoreResult<bool> {
    let condition = match policy {
        SeatPolicy::Checked => "AND booked + $3 <= capacity AND NOT is_orphaned AND starts_at > $4",
        SeatPolicy::SkipAvailability => "AND booked + $3 <= capacity",
        SeatPolicy::BypassCapacity => "",
    };
    let done = sqlx::query(&format!(
        "UPDATE slots SET booked = booked + $3, updated_at = $4
         WHERE tenant_id = $1 AND id = $2 {condition}"
    ))
    .bind(tenant.as_str())
    .bind(slot)
    .bind(seats)
    .bind(now)
    .execute(&mut **tx)
    .await?;
    Ok(done.rows_affected() == 1)
}

async fn release_seats(
    tx: &mut Tx,
    tenant: &TenantId,
    slot: Uuid,
    seats: i32,
    now: Timestamp,
) -> StoreResult<()> {
    sqlx::query(
        "UPDATE slots SET booked = booked - $3, updated_at = $4 WHERE tenant_id = $1 AND id = $2",
    )
    .bind(tenant.as_str())
    .bind(slot)
    .bind(seats)
    .bind(now)
    .execute(&mut **tx)
    .await?;
    Ok(())
}

/// Expires the overdue holds of one slot and gives their seats back.
///
/// Holds another transaction has locked are skipped (it is canceling, confirming or
/// expiring them and releases their seats itself). So this never waits for a booking row,
/// which may come after the caller has locked slot rows without risking a deadlock.
async fn reclaim_expired_holds(
    tx: &mut Tx,
    tenant: &TenantId,
    slot: Uuid,
    now: Timestamp,
) -> StoreResult<()> {
    // The partial index bookings_slot_holds makes this a tiny index scan; usually it
    // finds nothing and the hold goes on after this one statement.
    let expired: Vec<(Uuid, i32)> = sqlx::query_as(&format!(
        "SELECT id, party_size FROM bookings
         WHERE tenant_id = $1 AND slot_id = $2 AND status = 'hold' AND hold_expires_at <= $3
         ORDER BY id{}",
        dialect::FOR_UPDATE_SKIP_LOCKED
    ))
    .bind(tenant.as_str())
    .bind(slot)
    .bind(now)
    .fetch_all(&mut **tx)
    .await?;
    for (id, _) in &expired {
        // Locked above (or under SQLite's write lock): still a hold.
        sqlx::query(
            "UPDATE bookings SET status = 'expired', updated_at = $3
             WHERE tenant_id = $1 AND id = $2",
        )
        .bind(tenant.as_str())
        .bind(id)
        .bind(now)
        .execute(&mut **tx)
        .await?;
    }
    if expired.is_empty() {
        return Ok(());
    }
    let seats: i32 = expired.iter().map(|(_, n)| n).sum();
    release_seats(tx, tenant, slot, seats, now).await?;
    for (id, _) in expired {
        audit_status(
            tx,
            tenant,
            &Actor::system("hold expiry"),
            id,
            BookingStatus::Hold,
            BookingStatus::Expired,
            Trigger::HoldExpired,
            None,
            now,
        )
        .await?;
    }
    Ok(())
}

#[expect(clippy::too_many_arguments, reason = "one audit row's fields")]
async fn audit_status(
    tx: &mut Tx,
    tenant: &TenantId,
    actor: &Actor,
    id: Uuid,
    from: BookingStatus,
    to: BookingStatus,
    trigger: Trigger,
    reason: Option<&str>,
    now: Timestamp,
) -> StoreResult<()> {
    audit::record(
        tx,
        tenant,
        actor,
        Change {
            action: "booking.status_changed",
            entity_type: "booking",
            entity_id: id.to_string(),
            changes: json!({
                "status": {"from": from.as_str(), "to": to.as_str()},
                "trigger": trigger.name(),
                "reason": reason,
            }),
        },
        now,
    )
    .await?;
    Ok(())
}

async fn outbox(
    tx: &mut Tx,
    tenant: &TenantId,
    kind: &str,
    booking: &Booking,
    now: Timestamp,
) -> StoreResult<()> {
    sqlx::query(
        "INSERT INTO outbox (tenant_id, id, kind, payload, status, attempts, next_attempt_at,
                             created_at, updated_at)
         VALUES ($1, $2, $3, $4, 'pending', 0, $5, $5, $5)",
    )
    .bind(tenant.as_str())
    .bind(new_id())
    .bind(kind)
    .bind(Json(json!({
        "bookingId": booking.id,
        "bookingReference": booking.reference,
        "customerEmail": booking.customer.email,
        "customerName": booking.customer.name,
        "status": booking.status.as_str(),
    })))
    .bind(now)
    .execute(&mut **tx)
    .await?;
    Ok(())
}

#[expect(clippy::too_many_arguments, reason = "a payment's fields")]
async fn insert_payment(
    tx: &mut Tx,
    tenant: &TenantId,
    booking: &Booking,
    amount: i64,
    method: &str,
    method_reference: Option<&str>,
    status: &str,
    actor: &Actor,
    now: Timestamp,
) -> StoreResult<()> {
    sqlx::query(
        "INSERT INTO payments (tenant_id, id, booking_id, amount, currency, method,
                               method_reference, status, recorded_by, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $10)",
    )
    .bind(tenant.as_str())
    .bind(new_id())
    .bind(booking.id)
    .bind(amount)
    .bind(&booking.price.currency)
    .bind(method)
    .bind(method_reference)
    .bind(status)
    .bind(actor.id.as_deref())
    .bind(now)
    .execute(&mut **tx)
    .await?;
    Ok(())
}

/// Applies one transition of the status machine to a locked booking: the capacity effect,
/// the status column and the audit row. Other columns are the caller's.
async fn apply_transition(
    tx: &mut Tx,
    tenant: &TenantId,
    booking: &mut Booking,
    trigger: Trigger,
    actor: &Actor,
    reason: Option<&str>,
    now: Timestamp,
) -> StoreResult<()> {
    let tr = transition(booking.status, trigger)
        .map_err(|e| refused(BookingRefusal::InvalidTransition(e)))?;
    match tr.capacity {
        CapacityEffect::Release => {
            release_seats(tx, tenant, booking.slot_id, booking.party_size, now).await?;
        }
        CapacityEffect::Reserve => {
            reclaim_expired_holds(tx, tenant, booking.slot_id, now).await?;
            if !take_seats(
                tx,
                tenant,
                booking.slot_id,
                booking.party_size,
                SeatPolicy::Checked,
                now,
            )
            .await?
            {
                return Err(refused(BookingRefusal::SlotUnavailable));
            }
        }
        CapacityEffect::None => {}
    }
    let canceled_at = (tr.to == BookingStatus::Canceled).then_some(now);
    sqlx::query(
        "UPDATE bookings SET status = $3, updated_at = $4, canceled_at = COALESCE($5, canceled_at)
         WHERE tenant_id = $1 AND id = $2",
    )
    .bind(tenant.as_str())
    .bind(booking.id)
    .bind(tr.to.as_str())
    .bind(now)
    .bind(canceled_at)
    .execute(&mut **tx)
    .await?;
    audit_status(
        tx, tenant, actor, booking.id, tr.from, tr.to, trigger, reason, now,
    )
    .await?;
    booking.status = tr.to;
    booking.updated_at = now;
    if canceled_at.is_some() {
        booking.canceled_at = canceled_at;
    }
    Ok(())
}

/// Refuses a customer's change inside the policy window (holds may always be released).
fn check_window(
    booking: &Booking,
    min_lead: Option<chrono::Duration>,
    now: Timestamp,
) -> StoreResult<()> {
    let Some(lead) = min_lead else {
        return Ok(());
    };
    if matches!(booking.status, BookingStatus::Hold | BookingStatus::Expired) {
        return Ok(());
    }
    if booking.starts_at - now < lead {
        return Err(refused(BookingRefusal::OutsideWindow {
            starts_at: booking.starts_at,
        }));
    }
    Ok(())
}

/// Appends a search filter's conditions to `q` (which ends in a WHERE clause on tenant).
fn push_filter(q: &mut QueryBuilder<'_, Db>, f: &BookingFilter) {
    let like = |s: &str| {
        let escaped = s
            .to_lowercase()
            .replace('\\', "\\\\")
            .replace('%', "\\%")
            .replace('_', "\\_");
        format!("%{escaped}%")
    };
    if let Some(email) = &f.email_contains {
        q.push(" AND b.customer_email LIKE ")
            .push_bind(like(email))
            .push(" ESCAPE '\\'");
    }
    if let Some(name) = &f.name_contains {
        q.push(" AND LOWER(b.customer_name) LIKE ")
            .push_bind(like(name))
            .push(" ESCAPE '\\'");
    }
    if let Some(phone) = &f.phone {
        q.push(" AND b.customer_phone_key = ")
            .push_bind(phone_key(phone));
    }
    if !f.statuses.is_empty() {
        q.push(" AND b.status IN (");
        let mut sep = q.separated(", ");
        for s in &f.statuses {
            sep.push_bind(s.as_str());
        }
        q.push(")");
    }
    if let Some(id) = f.site_id {
        q.push(" AND b.site_id = ").push_bind(id);
    }
    if let Some(id) = f.product_id {
        q.push(" AND b.product_id = ").push_bind(id);
    }
    if let Some(id) = f.customer_id {
        q.push(" AND b.customer_id = ").push_bind(id);
    }
    if let Some(t) = f.starts_from {
        q.push(" AND b.starts_at >= ").push_bind(t);
    }
    if let Some(t) = f.starts_before {
        q.push(" AND b.starts_at < ").push_bind(t);
    }
    if let Some(v) = f.min_total {
        q.push(" AND b.total >= ").push_bind(v);
    }
    if let Some(v) = f.max_total {
        q.push(" AND b.total <= ").push_bind(v);
    }
}

const VIEW_FROM: &str = "FROM bookings b
     JOIN sites s ON s.tenant_id = b.tenant_id AND s.id = b.site_id
     JOIN products p ON p.tenant_id = b.tenant_id AND p.id = b.product_id";

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

    pub async fn get_booking(&self, tenant: &TenantId, id: Uuid) -> StoreResult<Option<Booking>> {
        let row: Option<BookingRow> = sqlx::query_as(&format!(
            "SELECT {BOOKING_COLUMNS} FROM bookings b WHERE b.tenant_id = $1 AND b.id = $2"
        ))
        .bind(tenant.as_str())
        .bind(id)
        .fetch_optional(&self.read)
        .await?;
        row.map(Booking::try_from).transpose()
    }

    /// Changes a booking through the status machine in one transaction. An overdue hold is
    /// expired first (and stays expired even when the action is then refused).
    pub async fn apply_booking_action(
        &self,
        tenant: &TenantId,
        id: Uuid,
        action: BookingAction,
        actor: &Actor,
        now: Timestamp,
        idem: Option<IdempotentFinish<'_>>,
    ) -> StoreResult<Booking> {
        let mut tx = self.begin_write().await?;
        let mut b = load_for_update(&mut tx, tenant, id).await?;
        let overdue =
            b.status == BookingStatus::Hold && b.hold_expires_at.is_some_and(|t| t <= now);
        if overdue {
            apply_transition(
                &mut tx,
                tenant,
                &mut b,
                Trigger::HoldExpired,
                &Actor::system("hold expiry"),
                None,
                now,
            )
            .await?;
        }
        let result = if b.status == BookingStatus::Expired
            && matches!(action, BookingAction::Confirm { .. })
        {
            Err(refused(BookingRefusal::HoldExpired))
        } else {
            self.act(&mut tx, tenant, &mut b, action, actor, now).await
        };
        match result {
            Ok(()) => {
                if let Some(idem) = idem {
                    let (status, body) = (idem.render)(&b);
                    idempotency::finish(&mut tx, tenant, idem.key, status, &body).await?;
                }
                tx.commit().await?;
                Ok(b)
            }
            // Refusals come before the action writes anything: committing keeps only the
            // expiry of the overdue hold.
            Err(e @ StoreError::Refused(_)) if overdue => {
                tx.commit().await?;
                Err(e)
            }
            Err(e) => Err(e),
        }
    }

    async fn act(
        &self,
        tx: &mut Tx,
        tenant: &TenantId,
        b: &mut Booking,
        action: BookingAction,
        actor: &Actor,
        now: Timestamp,
    ) -> StoreResult<()> {
        match action {
            BookingAction::Confirm {
                pay_on_arrival,
                payment_method,
                method_reference,
                price,
            } => {
                if b.status == BookingStatus::Hold && b.starts_at <= now {
                    return Err(refused(BookingRefusal::SlotStarted));
                }
                let trigger = if pay_on_arrival {
                    Trigger::ConfirmPayOnArrival
                } else {
                    Trigger::ConfirmOnline
                };
                apply_transition(tx, tenant, b, trigger, actor, None, now).await?;
                sqlx::query(
                    "UPDATE bookings SET payment_method = $3, price = $4, total = $5,
                         pricing_hash = $6, hold_expires_at = NULL, confirmed_at = $7
                     WHERE tenant_id = $1 AND id = $2",
                )
                .bind(tenant.as_str())
                .bind(b.id)
                .bind(&payment_method)
                .bind(Json(&price))
                .bind(price.total)
                .bind(&price.pricing_hash)
                .bind(now)
                .execute(&mut **tx)
                .await?;
                b.price = price;
                b.payment_method = Some(payment_method.clone());
                b.hold_expires_at = None;
                b.confirmed_at = Some(now);
                if !pay_on_arrival {
                    let total = b.price.total;
                    insert_payment(
                        tx,
                        tenant,
                        b,
                        total,
                        &payment_method,
                        method_reference.as_deref(),
                        "pending",
                        actor,
                        now,
                    )
                    .await?;
                }
                if b.send_confirmation {
                    outbox(tx, tenant, "booking_confirmation", b, now).await?;
                }
            }
            BookingAction::Cancel { reason, min_lead } => {
                // An impossible cancellation says so before any window question.
                transition(b.status, Trigger::Cancel)
                    .map_err(|e| refused(BookingRefusal::InvalidTransition(e)))?;
                check_window(b, min_lead, now)?;
                let notify = !matches!(b.status, BookingStatus::Hold | BookingStatus::Expired);
                apply_transition(
                    tx,
                    tenant,
                    b,
                    Trigger::Cancel,
                    actor,
                    reason.as_deref(),
                    now,
                )
                .await?;
                if notify {
                    outbox(tx, tenant, "booking_cancellation", b, now).await?;
                }
            }
            BookingAction::Reschedule { slot_id, min_lead } => {
                self.reschedule(tx, tenant, b, slot_id, min_lead, actor, now)
                    .await?;
            }
            BookingAction::MarkArrived => {
                apply_transition(tx, tenant, b, Trigger::MarkArrived, actor, None, now).await?;
            }
            BookingAction::MarkNoShow { reason } => {
                apply_transition(
                    tx,
                    tenant,
                    b,
                    Trigger::MarkNoShow,
                    actor,
                    reason.as_deref(),
                    now,
                )
                .await?;
            }
            BookingAction::MarkPaid { amount, method } => {
                let balance = (b.price.total - b.paid_amount).max(0);
                let amount = amount.unwrap_or(balance);
                if amount > balance {
                    return Err(refused(BookingRefusal::AmountExceedsBalance { balance }));
                }
                let settles = amount == balance;
                if b.status == BookingStatus::PartPaid && !settles {
                    // Another instalment: money is recorded, the status stays part_paid.
                } else {
                    let trigger = if b.status == BookingStatus::Tentative && settles {
                        Trigger::MarkPaid
                    } else {
                        Trigger::PaymentRecorded { settles }
                    };
                    apply_transition(tx, tenant, b, trigger, actor, None, now).await?;
                }
                self.record_payment(tx, tenant, b, amount, &method, actor, now)
                    .await?;
            }
            BookingAction::SetStatus {
                status,
                reason,
                admin_notes,
                hold_ttl,
            } => {
                let trigger = trigger_for_target(b.status, status).ok_or(refused(
                    BookingRefusal::NoTransition {
                        from: b.status,
                        to: status,
                    },
                ))?;
                apply_transition(tx, tenant, b, trigger, actor, reason.as_deref(), now).await?;
                match trigger {
                    Trigger::Rehold => {
                        let expires = now + hold_ttl;
                        sqlx::query(
                            "UPDATE bookings SET hold_expires_at = $3 WHERE tenant_id = $1 AND id = $2",
                        )
                        .bind(tenant.as_str())
                        .bind(b.id)
                        .bind(expires)
                        .execute(&mut **tx)
                        .await?;
                        b.hold_expires_at = Some(expires);
                    }
                    Trigger::ConfirmOnline | Trigger::ConfirmPayOnArrival => {
                        sqlx::query(
                            "UPDATE bookings SET hold_expires_at = NULL, confirmed_at = $3
                             WHERE tenant_id = $1 AND id = $2",
                        )
                        .bind(tenant.as_str())
                        .bind(b.id)
                        .bind(now)
                        .execute(&mut **tx)
                        .await?;
                        b.hold_expires_at = None;
                        b.confirmed_at = Some(now);
                    }
                    Trigger::MarkPaid | Trigger::PaymentRecorded { settles: true } => {
                        let balance = (b.price.total - b.paid_amount).max(0);
                        self.record_payment(tx, tenant, b, balance, "manual", actor, now)
                            .await?;
                    }
                    _ => {}
                }
                if let Some(notes) = admin_notes {
                    sqlx::query(
                        "UPDATE bookings SET admin_notes = $3 WHERE tenant_id = $1 AND id = $2",
                    )
                    .bind(tenant.as_str())
                    .bind(b.id)
                    .bind(&notes)
                    .execute(&mut **tx)
                    .await?;
                    b.admin_notes = Some(notes);
                }
            }
        }
        Ok(())
    }

    #[expect(clippy::too_many_arguments, reason = "a payment's fields")]
    async fn record_payment(
        &self,
        tx: &mut Tx,
        tenant: &TenantId,
        b: &mut Booking,
        amount: i64,
        method: &str,
        actor: &Actor,
        now: Timestamp,
    ) -> StoreResult<()> {
        if amount == 0 {
            return Ok(());
        }
        insert_payment(tx, tenant, b, amount, method, None, "succeeded", actor, now).await?;
        audit::record(
            tx,
            tenant,
            actor,
            Change {
                action: "booking.payment_recorded",
                entity_type: "booking",
                entity_id: b.id.to_string(),
                changes: json!({"amount": amount, "method": method}),
            },
            now,
        )
        .await?;
        sqlx::query(
            "UPDATE bookings SET paid_amount = paid_amount + $3 WHERE tenant_id = $1 AND id = $2",
        )
        .bind(tenant.as_str())
        .bind(b.id)
        .bind(amount)
        .execute(&mut **tx)
        .await?;
        b.paid_amount += amount;
        if b.paid_amount >= b.price.total {
            // Settled at the desk: an online payment still pending must not collect again.
            sqlx::query(
                "UPDATE payments SET status = 'canceled', updated_at = $3
                 WHERE tenant_id = $1 AND booking_id = $2 AND status = 'pending'",
            )
            .bind(tenant.as_str())
            .bind(b.id)
            .bind(now)
            .execute(&mut **tx)
            .await?;
        }
        Ok(())
    }

    #[expect(clippy::too_many_arguments, reason = "a move's inputs")]
    async fn reschedule(
        &self,
        tx: &mut Tx,
        tenant: &TenantId,
        b: &mut Booking,
        slot_id: Uuid,
        min_lead: Option<chrono::Duration>,
        actor: &Actor,
        now: Timestamp,
    ) -> StoreResult<()> {
        if !matches!(
            b.status,
            BookingStatus::Hold
                | BookingStatus::Tentative
                | BookingStatus::Confirmed
                | BookingStatus::PartPaid
                | BookingStatus::Paid
        ) {
            return Err(refused(BookingRefusal::NotMovable { status: b.status }));
        }
        check_window(b, min_lead, now)?;
        let target = load_slot(tx, tenant, slot_id)
            .await?
            .filter(|s| s.product_id == b.product_id)
            .ok_or(StoreError::NotFound)?;
        if target.id == b.slot_id {
            return Ok(());
        }
        lock_slots(tx, tenant, &mut [b.slot_id, target.id]).await?;
        reclaim_expired_holds(tx, tenant, target.id, now).await?;
        if !take_seats(
            tx,
            tenant,
            target.id,
            b.party_size,
            SeatPolicy::Checked,
            now,
        )
        .await?
        {
            return Err(refused(BookingRefusal::SlotUnavailable));
        }
        release_seats(tx, tenant, b.slot_id, b.party_size, now).await?;
        sqlx::query(
            "UPDATE bookings SET slot_id = $3, starts_at = $4, ends_at = $5, updated_at = $6
             WHERE tenant_id = $1 AND id = $2",
        )
        .bind(tenant.as_str())
        .bind(b.id)
        .bind(target.id)
        .bind(target.starts_at)
        .bind(target.ends_at)
        .bind(now)
        .execute(&mut **tx)
        .await?;
        audit::record(
            tx,
            tenant,
            actor,
            Change {
                action: "booking.rescheduled",
                entity_type: "booking",
                entity_id: b.id.to_string(),
                changes: json!({
                    "slotId": {"from": b.slot_id, "to": target.id},
                    "startTime": {"from": b.starts_at, "to": target.starts_at},
                }),
            },
            now,
        )
        .await?;
        b.slot_id = target.id;
        b.starts_at = target.starts_at;
        b.ends_at = target.ends_at;
        b.updated_at = now;
        Ok(())
    }

    /// Expires up to `batch` overdue holds of every tenant and gives their seats back.
    /// Safe with several workers: rows another transaction holds are skipped.
    pub async fn expire_overdue_holds(&self, now: Timestamp, batch: i64) -> StoreResult<u64> {
        let mut tx = self.begin_write().await?;
        let due: Vec<(String, Uuid)> = sqlx::query_as(&format!(
            "SELECT tenant_id, id FROM bookings
             WHERE status = 'hold' AND hold_expires_at <= $1
             ORDER BY hold_expires_at, id LIMIT $2{}",
            dialect::FOR_UPDATE_SKIP_LOCKED
        ))
        .bind(now)
        .bind(batch)
        .fetch_all(&mut *tx)
        .await?;
        let mut expired = 0;
        for (tenant, id) in due {
            let tenant = TenantId::parse(&tenant)
                .map_err(|e| StoreError::Corrupt(format!("tenant id: {e}")))?;
            let mut b = load_for_update(&mut tx, &tenant, id).await?;
            if b.status != BookingStatus::Hold {
                continue;
            }
            apply_transition(
                &mut tx,
                &tenant,
                &mut b,
                Trigger::HoldExpired,
                &Actor::system("hold expiry"),
                None,
                now,
            )
            .await?;
            expired += 1;
        }
        tx.commit().await?;
        Ok(expired)
    }

    /// A page of bookings matching `filter`, with the counts and totals per status of the
    /// whole filtered set.
    pub async fn search_bookings(
        &self,
        tenant: &TenantId,
        filter: BookingFilter,
        sort: BookingSort,
        descending: bool,
        page: u32,
        limit: u32,
    ) -> StoreResult<BookingPage> {
        let mut q = QueryBuilder::<Db>::new(
            "SELECT b.status, COUNT(*), CAST(COALESCE(SUM(b.total), 0) AS BIGINT) FROM bookings b WHERE b.tenant_id = ",
        );
        q.push_bind(tenant.as_str());
        push_filter(&mut q, &filter);
        q.push(" GROUP BY b.status ORDER BY b.status");
        let groups: Vec<(String, i64, i64)> = q.build_query_as().fetch_all(&self.read).await?;
        let mut by_status = Vec::with_capacity(groups.len());
        let mut total = 0u64;
        for (status, count, sum) in groups {
            let status = BookingStatus::parse(&status)
                .ok_or_else(|| StoreError::Corrupt(format!("booking status '{status}'")))?;
            let count = u64::try_from(count).unwrap_or(0);
            total += count;
            by_status.push((status, count, sum));
        }
        let column = match sort {
            BookingSort::CreatedAt => "b.created_at",
            BookingSort::StartTime => "b.starts_at",
            BookingSort::GrandTotal => "b.total",
            BookingSort::CustomerName => "LOWER(b.customer_name)",
            BookingSort::Status => "b.status",
            BookingSort::Reference => "b.reference",
        };
        let direction = if descending { "DESC" } else { "ASC" };
        let mut q = QueryBuilder::<Db>::new(format!(
            "SELECT {BOOKING_COLUMNS}, s.name AS site_name, p.name AS product_name {VIEW_FROM}
             WHERE b.tenant_id = "
        ));
        q.push_bind(tenant.as_str());
        push_filter(&mut q, &filter);
        q.push(format!(
            " ORDER BY {column} {direction}, b.id {direction} LIMIT "
        ));
        q.push_bind(i64::from(limit));
        q.push(" OFFSET ");
        q.push_bind(i64::from(page.saturating_sub(1)) * i64::from(limit));
        let rows: Vec<ViewRow> = q.build_query_as().fetch_all(&self.read).await?;
        let items = rows
            .into_iter()
            .map(BookingView::try_from)
            .collect::<StoreResult<_>>()?;
        Ok(BookingPage {
            items,
            total,
            by_status,
        })
    }

    /// One booking with its site and product names.
    pub async fn get_booking_view(
        &self,
        tenant: &TenantId,
        id: Uuid,
    ) -> StoreResult<Option<BookingView>> {
        let row: Option<ViewRow> = sqlx::query_as(&format!(
            "SELECT {BOOKING_COLUMNS}, s.name AS site_name, p.name AS product_name {VIEW_FROM}
             WHERE b.tenant_id = $1 AND b.id = $2"
        ))
        .bind(tenant.as_str())
        .bind(id)
        .fetch_optional(&self.read)
        .await?;
        row.map(BookingView::try_from).transpose()
    }

    /// Every booking of a customer, found by account id, email or phone; newest first.
    pub async fn bookings_of_customer(
        &self,
        tenant: &TenantId,
        account: Option<Uuid>,
        email: Option<String>,
        phone: Option<String>,
    ) -> StoreResult<Vec<BookingView>> {
        let mut q = QueryBuilder::<Db>::new(format!(
            "SELECT {BOOKING_COLUMNS}, s.name AS site_name, p.name AS product_name {VIEW_FROM}
             WHERE b.tenant_id = "
        ));
        q.push_bind(tenant.as_str());
        q.push(" AND (1 = 0");
        if let Some(id) = account {
            q.push(" OR b.customer_id = ").push_bind(id);
        }
        if let Some(email) = email {
            q.push(" OR b.customer_email = ")
                .push_bind(email.to_lowercase());
        }
        if let Some(phone) = phone.map(|p| phone_key(&p)).filter(|k| !k.is_empty()) {
            q.push(" OR b.customer_phone_key = ").push_bind(phone);
        }
        q.push(") ORDER BY b.starts_at DESC, b.id DESC");
        let rows: Vec<ViewRow> = q.build_query_as().fetch_all(&self.read).await?;
        rows.into_iter().map(BookingView::try_from).collect()
    }

    /// Changes the customer details of a booking, auditing each changed field.
    pub async fn update_booking_customer(
        &self,
        tenant: &TenantId,
        id: Uuid,
        patch: BookingCustomerPatch,
        actor: &Actor,
        now: Timestamp,
    ) -> StoreResult<Booking> {
        let mut tx = self.begin_write().await?;
        let mut b = load_for_update(&mut tx, tenant, id).await?;
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
            .execute(&mut *tx)
            .await?;
            audit::record(
                &mut tx,
                tenant,
                actor,
                Change {
                    action: "booking.customer_updated",
                    entity_type: "booking",
                    entity_id: id.to_string(),
                    changes: Value::Object(changes),
                },
                now,
            )
            .await?;
            b.updated_at = now;
        }
        tx.commit().await?;
        Ok(b)
    }

    /// Payments recorded against a booking, oldest first.
    pub async fn list_payments(
        &self,
        tenant: &TenantId,
        booking: Uuid,
    ) -> StoreResult<Vec<Payment>> {
        Ok(sqlx::query_as(
            "SELECT id, booking_id, amount, currency, method, method_reference, status, created_at
             FROM payments WHERE tenant_id = $1 AND booking_id = $2 ORDER BY created_at, id",
        )
        .bind(tenant.as_str())
        .bind(booking)
        .fetch_all(&self.read)
        .await?)
    }

    pub async fn create_note(
        &self,
        tenant: &TenantId,
        booking: Uuid,
        new: NewNote,
        actor: &Actor,
        now: Timestamp,
    ) -> StoreResult<BookingNote> {
        let mut tx = self.begin_write().await?;
        load_for_update(&mut tx, tenant, booking).await?;
        let note = BookingNote {
            id: new_id(),
            booking_id: booking,
            content: new.content,
            category: new.category,
            priority: new.priority,
            is_internal: new.is_internal,
            created_by: actor.id.clone().unwrap_or_default(),
            created_by_name: actor.name.clone().unwrap_or_default(),
            created_at: now,
            updated_at: now,
        };
        sqlx::query(
            "INSERT INTO booking_notes (tenant_id, id, booking_id, content, category, priority,
                 is_internal, created_by, created_by_name, created_at, updated_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $10)",
        )
        .bind(tenant.as_str())
        .bind(note.id)
        .bind(booking)
        .bind(&note.content)
        .bind(&note.category)
        .bind(&note.priority)
        .bind(note.is_internal)
        .bind(&note.created_by)
        .bind(&note.created_by_name)
        .bind(now)
        .execute(&mut *tx)
        .await?;
        audit::record(
            &mut tx,
            tenant,
            actor,
            Change {
                action: "booking.note_added",
                entity_type: "booking",
                entity_id: booking.to_string(),
                changes: json!({"noteId": note.id, "category": note.category}),
            },
            now,
        )
        .await?;
        tx.commit().await?;
        Ok(note)
    }

    /// Notes of the given bookings, oldest first.
    pub async fn list_notes(
        &self,
        tenant: &TenantId,
        bookings: Vec<Uuid>,
    ) -> StoreResult<Vec<BookingNote>> {
        if bookings.is_empty() {
            return Ok(Vec::new());
        }
        let mut q = QueryBuilder::<Db>::new(
            "SELECT id, booking_id, content, category, priority, is_internal, created_by,
                    created_by_name, created_at, updated_at
             FROM booking_notes WHERE tenant_id = ",
        );
        q.push_bind(tenant.as_str());
        q.push(" AND booking_id IN (");
        let mut sep = q.separated(", ");
        for id in bookings {
            sep.push_bind(id);
        }
        q.push(") ORDER BY created_at, id");
        let rows: Vec<NoteRow> = q.build_query_as().fetch_all(&self.read).await?;
        Ok(rows.into_iter().map(BookingNote::from).collect())
    }

    /// Replaces a note's fields; `NotFound` unless the note belongs to the booking.
    pub async fn update_note(
        &self,
        tenant: &TenantId,
        booking: Uuid,
        id: Uuid,
        new: NewNote,
        actor: &Actor,
        now: Timestamp,
    ) -> StoreResult<BookingNote> {
        let mut tx = self.begin_write().await?;
        let before = load_note(&mut tx, tenant, booking, id).await?;
        let row: Option<NoteRow> = sqlx::query_as(
            "UPDATE booking_notes SET content = $4, category = $5, priority = $6, is_internal = $7,
                 updated_at = $8
             WHERE tenant_id = $1 AND booking_id = $2 AND id = $3
             RETURNING id, booking_id, content, category, priority, is_internal, created_by,
                       created_by_name, created_at, updated_at",
        )
        .bind(tenant.as_str())
        .bind(booking)
        .bind(id)
        .bind(&new.content)
        .bind(&new.category)
        .bind(&new.priority)
        .bind(new.is_internal)
        .bind(now)
        .fetch_optional(&mut *tx)
        .await?;
        let note = BookingNote::from(row.ok_or(StoreError::NotFound)?);
        audit::record(
            &mut tx,
            tenant,
            actor,
            Change {
                action: "booking.note_updated",
                entity_type: "booking",
                entity_id: booking.to_string(),
                changes: note_changes(&before, &note),
            },
            now,
        )
        .await?;
        tx.commit().await?;
        Ok(note)
    }

    pub async fn delete_note(
        &self,
        tenant: &TenantId,
        booking: Uuid,
        id: Uuid,
        actor: &Actor,
        now: Timestamp,
    ) -> StoreResult<()> {
        let mut tx = self.begin_write().await?;
        let before = load_note(&mut tx, tenant, booking, id).await?;
        let done = sqlx::query(
            "DELETE FROM booking_notes WHERE tenant_id = $1 AND booking_id = $2 AND id = $3",
        )
        .bind(tenant.as_str())
        .bind(booking)
        .bind(id)
        .execute(&mut *tx)
        .await?;
        if done.rows_affected() == 0 {
            return Err(StoreError::NotFound);
        }
        audit::record(
            &mut tx,
            tenant,
            actor,
            Change {
                action: "booking.note_deleted",
                entity_type: "booking",
                entity_id: booking.to_string(),
                changes: json!({
                    "noteId": id,
                    "content": before.content,
                    "category": before.category,
                    "priority": before.priority,
                    "isInternal": before.is_internal,
                }),
            },
            now,
        )
        .await?;
        tx.commit().await?;
        Ok(())
    }

    /// The tenant's outbox messages, oldest first: (kind, payload, status).
    pub async fn list_outbox(
        &self,
        tenant: &TenantId,
    ) -> StoreResult<Vec<(String, Value, String)>> {
        let rows: Vec<(String, Json<Value>, String)> = sqlx::query_as(
            "SELECT kind, payload, status FROM outbox WHERE tenant_id = $1 ORDER BY created_at, id",
        )
        .bind(tenant.as_str())
        .fetch_all(&self.read)
        .await?;
        Ok(rows.into_iter().map(|(k, p, s)| (k, p.0, s)).collect())
    }

    /// Slots whose `booked` differs from the seats of the bookings holding them:
    /// (slot id, booked, seats held). Empty when the capacity invariant holds.
    pub async fn capacity_mismatches(
        &self,
        tenant: &TenantId,
    ) -> StoreResult<Vec<(Uuid, i64, i64)>> {
        Ok(sqlx::query_as(
            "SELECT s.id, CAST(s.booked AS BIGINT), CAST(COALESCE(SUM(b.party_size), 0) AS BIGINT)
             FROM slots s
             LEFT JOIN bookings b ON b.tenant_id = s.tenant_id AND b.slot_id = s.id
                  AND b.status NOT IN ('canceled', 'expired')
             WHERE s.tenant_id = $1
             GROUP BY s.id, s.booked
             HAVING s.booked <> COALESCE(SUM(b.party_size), 0)",
        )
        .bind(tenant.as_str())
        .fetch_all(&self.read)
        .await?)
    }
}

const NOTE_COLUMNS: &str = "id, booking_id, content, category, priority, is_internal, \
     created_by, created_by_name, created_at, updated_at";

async fn load_note(
    tx: &mut Tx,
    tenant: &TenantId,
    booking: Uuid,
    id: Uuid,
) -> StoreResult<BookingNote> {
    let row: Option<NoteRow> = sqlx::query_as(&format!(
        "SELECT {NOTE_COLUMNS} FROM booking_notes
         WHERE tenant_id = $1 AND booking_id = $2 AND id = $3{}",
        dialect::FOR_UPDATE
    ))
    .bind(tenant.as_str())
    .bind(booking)
    .bind(id)
    .fetch_optional(&mut **tx)
    .await?;
    Ok(row.ok_or(StoreError::NotFound)?.into())
}

/// `{noteId, field: {from, to}…}` for the fields of a note an update changed.
fn note_changes(before: &BookingNote, after: &BookingNote) -> Value {
    let mut changes = serde_json::Map::new();
    changes.insert("noteId".into(), json!(after.id));
    for (field, from, to) in [
        ("content", json!(before.content), json!(after.content)),
        ("category", json!(before.category), json!(after.category)),
        ("priority", json!(before.priority), json!(after.priority)),
        (
            "isInternal",
            json!(before.is_internal),
            json!(after.is_internal),
        ),
    ] {
        if from != to {
            changes.insert(field.into(), json!({"from": from, "to": to}));
        }
    }
    Value::Object(changes)
}

#[derive(sqlx::FromRow)]
struct NoteRow {
    id: Uuid,
    booking_id: Uuid,
    content: String,
    category: String,
    priority: String,
    is_internal: bool,
    created_by: String,
    created_by_name: String,
    created_at: Timestamp,
    updated_at: Timestamp,
}

impl From<NoteRow> for BookingNote {
    fn from(r: NoteRow) -> Self {
        BookingNote {
            id: r.id,
            booking_id: r.booking_id,
            content: r.content,
            category: r.category,
            priority: r.priority,
            is_internal: r.is_internal,
            created_by: r.created_by,
            created_by_name: r.created_by_name,
            created_at: r.created_at,
            updated_at: r.updated_at,
        }
    }
}
