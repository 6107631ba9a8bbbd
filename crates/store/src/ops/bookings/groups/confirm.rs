//! Confirming a held group (spec Part B 3.3, 4.3): every held booking re-priced from the
//! catalog in one transaction; by invoice or comp each is confirmed at once, by card or
//! bank payment they stay held for the payment window while one payment for the group
//! waits, each booking's share a payment of its own waiting on the group's (`settle.rs`
//! confirms them all when the money arrives).

use super::super::actions::current_price;
use super::super::load_for_update;
use super::super::reductions::{load_reductions, return_excess};
use super::super::transition::{apply_transition, insert_payment};
use super::invoice::queue_invoice;
use super::package::agree;
use super::{GroupError, Write, audit, lock, read};
use crate::{
    Actor, Booking, BookingError, BookingGroup, BookingRefusal, GroupConfirm, Idempotency,
    PriceBreakdown, Timestamp, Written,
};
use kairos_domain::TenantId;
use kairos_domain::booking_groups::GroupStatus;
use kairos_domain::booking_groups::allocate;
use kairos_domain::bookings::{BookingStatus, Trigger};
use kairos_domain::new_id;
use kairos_domain::payments::{PaymentMethod, PaymentStatus};
use kairos_store_macros::operations;
use serde_json::json;
use sqlx::types::Json;
use uuid::Uuid;

/// A held booking of the group being confirmed, locked, with its price now.
struct Held {
    booking: Booking,
    price: PriceBreakdown,
}

/// The group's payment still waiting for its provider: its id, method and amount.
pub(super) async fn open_group_payment(
    w: &mut Write,
    group: Uuid,
) -> Result<Option<(Uuid, String, i64)>, GroupError> {
    Ok(sqlx::query_as(
        "SELECT id, method, amount FROM payments
         WHERE tenant_id = $1 AND group_id = $2 AND booking_id IS NULL
           AND status IN ('PENDING', 'AUTHORIZED', 'CAPTURED', 'FAILED')
         ORDER BY created_at DESC, id DESC LIMIT 1",
    )
    .bind(w.tenant.as_str())
    .bind(group)
    .fetch_optional(&mut *w.tx)
    .await?)
}

/// Locks the group's held bookings in id order (the order every group write takes them)
/// and prices each from the catalog as it is now.
async fn held_bookings(w: &mut Write, group: &BookingGroup) -> Result<Vec<Held>, GroupError> {
    let mut ids: Vec<(usize, Uuid, Uuid)> = group
        .bookings
        .iter()
        .enumerate()
        .filter(|(_, c)| c.status == BookingStatus::Hold)
        .map(|(i, c)| (i, c.booking_id, c.slot_id))
        .collect();
    ids.sort_by_key(|(_, id, _)| *id);
    let mut held = Vec::with_capacity(ids.len());
    for (index, id, slot_id) in ids {
        let activity = |error: BookingError| GroupError::Activity {
            index,
            slot_id,
            error: Box::new(error),
        };
        let booking = load_for_update(&mut w.tx, &w.tenant, id).await?;
        if booking.status != BookingStatus::Hold {
            continue;
        }
        if booking.hold_expires_at.is_some_and(|t| t <= w.now) {
            return Err(GroupError::Booking(BookingRefusal::HoldExpired.into()));
        }
        if booking.starts_at <= w.now {
            return Err(activity(BookingRefusal::SlotStarted.into()));
        }
        let reductions = load_reductions(&mut w.tx, &w.tenant, booking.id).await?;
        let price = current_price(w, &booking, &reductions)
            .await
            .map_err(activity)?;
        return_excess(w, booking.id, &reductions, &price).await?;
        held.push(Held { booking, price });
    }
    Ok(held)
}

/// Writes a booking's price and method as confirmed (`hold_until` keeps it held for the
/// group's payment; `None` confirms it now).
async fn write_price(
    w: &mut Write,
    h: &mut Held,
    method: PaymentMethod,
    hold_until: Option<Timestamp>,
    actor: &Actor,
) -> Result<(), GroupError> {
    if hold_until.is_none() {
        apply_transition(w, &mut h.booking, Trigger::ConfirmOnline, actor, None).await?;
    }
    let now = w.now;
    sqlx::query(
        "UPDATE bookings SET payment_method = $3, price = $4, total = $5, pricing_hash = $6,
                 hold_expires_at = $7, confirmed_at = CASE WHEN $7 IS NULL THEN $8 END,
                 updated_at = $8
         WHERE tenant_id = $1 AND id = $2",
    )
    .bind(w.tenant.as_str())
    .bind(h.booking.id)
    .bind(method.as_str())
    .bind(Json(&h.price))
    .bind(h.price.total)
    .bind(&h.price.pricing_hash)
    .bind(hold_until)
    .bind(now)
    .execute(&mut *w.tx)
    .await?;
    h.booking.price = h.price.clone();
    h.booking.payment_method = Some(method);
    h.booking.hold_expires_at = hold_until;
    Ok(())
}

/// Writes a payment row of the group: the group's own (`booking` None, `provider` set) or
/// a booking's share waiting on it (`parent`).
async fn insert_group_payment(
    w: &mut Write,
    (group, booking, parent): (Uuid, Option<Uuid>, Option<Uuid>),
    (amount, currency): (i64, &str),
    method: PaymentMethod,
    actor: &Actor,
) -> Result<Uuid, GroupError> {
    let id = new_id();
    sqlx::query(
        "INSERT INTO payments (tenant_id, id, booking_id, amount, currency, method, status,
                               recorded_by, created_at, updated_at, provider, group_id,
                               parent_payment_id)
         VALUES ($1, $2, $3, $4, $5, $6, 'PENDING', $7, $8, $8,
                 CASE WHEN $3 IS NULL THEN $6 END, $9, $10)",
    )
    .bind(w.tenant.as_str())
    .bind(id)
    .bind(booking)
    .bind(amount)
    .bind(currency)
    .bind(method.as_str())
    .bind(actor.id.as_deref())
    .bind(w.now)
    .bind(group)
    .bind(parent)
    .execute(&mut *w.tx)
    .await?;
    Ok(id)
}

/// Confirms the locked, held `group` as `confirm` says.
async fn confirm_locked(
    w: &mut Write,
    group: &BookingGroup,
    confirm: &GroupConfirm,
    actor: &Actor,
) -> Result<(), GroupError> {
    match group.status(w.now) {
        GroupStatus::Hold => {}
        GroupStatus::Expired => {
            return Err(GroupError::Booking(BookingRefusal::HoldExpired.into()));
        }
        other => return Err(GroupError::NotHeld(other)),
    }
    // A total staff set stays unless a confirmation sets another.
    let custom = confirm
        .custom
        .clone()
        .or_else(|| group.custom_total.zip(group.custom_pricing_reason.clone()));
    let custom_total = custom.as_ref().map(|(t, _)| *t);
    let open = open_group_payment(w, group.id).await?;
    if let Some((_, method, _)) = &open
        && method == confirm.method.as_str()
        && custom_total == group.custom_total
    {
        // The same confirmation again (a customer back at the payment step): its
        // payment still waits.
        return Ok(());
    }
    // The bookings first, then the payments (the order a booking's cancellation takes).
    let mut held = held_bookings(w, group).await?;
    if let Some((payment, _, _)) = open {
        // Withdrawn: money that still comes for it is refunded whole.
        sqlx::query(
            "UPDATE payments SET status = 'CANCELED', updated_at = $3
             WHERE tenant_id = $1 AND (id = $2 OR parent_payment_id = $2)
               AND status IN ('NOT_STARTED', 'PENDING', 'AUTHORIZED', 'FAILED')",
        )
        .bind(w.tenant.as_str())
        .bind(payment)
        .bind(w.now)
        .execute(&mut *w.tx)
        .await?;
    }
    if held.is_empty() {
        return Err(GroupError::NotHeld(group.status(w.now)));
    }
    if let Some(total) = custom_total {
        // Staff's total is the group's agreed price (a package's was agreed when the
        // group was held, and stays even if the package is no longer offered).
        // In proportion to what each costs before its codes and vouchers, tax included.
        let weights: Vec<i64> = held
            .iter()
            .map(|h| h.price.total + h.price.voucher_applied + h.price.promotion_discount)
            .collect();
        for (h, share) in held.iter_mut().zip(allocate(total, &weights)) {
            h.price = agree(w, &mut h.booking, share).await?;
        }
    }
    let total: i64 = held.iter().map(|h| h.price.total).sum();
    let currency = held
        .first()
        .map_or_else(|| group.currency.clone(), |h| h.price.currency.clone());
    let method = confirm.method;
    let online = matches!(method, PaymentMethod::Cardpay | PaymentMethod::Bankpay) && total > 0;
    let hold_until = online.then(|| w.now + confirm.payment_window);
    let payment = match online {
        true => Some(
            insert_group_payment(w, (group.id, None, None), (total, &currency), method, actor)
                .await?,
        ),
        false => None,
    };
    for h in &mut held {
        write_price(w, h, method, hold_until, actor).await?;
        let share = h.price.total;
        if share == 0 {
            continue;
        }
        match payment {
            Some(parent) => {
                insert_group_payment(
                    w,
                    (group.id, Some(h.booking.id), Some(parent)),
                    (share, &currency),
                    method,
                    actor,
                )
                .await?;
            }
            // Invoice and comp: to be collected, as a booking confirmed alone.
            None => {
                insert_payment(
                    w,
                    &h.booking,
                    share,
                    method.as_str(),
                    None,
                    PaymentStatus::Pending,
                    actor,
                )
                .await?;
            }
        }
    }
    if method == PaymentMethod::Invoice {
        let bookings: Vec<&Booking> = held.iter().map(|h| &h.booking).collect();
        queue_invoice(w, group, &bookings).await?;
    }
    let (reason, now) = (custom.as_ref().map(|(_, r)| r.clone()), w.now);
    sqlx::query(
        "UPDATE booking_groups SET payment_method = $3, custom_total = $4,
                 custom_pricing_reason = $5,
                 confirmed_at = CASE WHEN $6 IS NULL THEN $7 END,
                 hold_expires_at = $6, updated_at = $7
         WHERE tenant_id = $1 AND id = $2",
    )
    .bind(w.tenant.as_str())
    .bind(group.id)
    .bind(method.as_str())
    .bind(custom_total)
    .bind(&reason)
    .bind(hold_until)
    .bind(now)
    .execute(&mut *w.tx)
    .await?;
    audit(
        w,
        actor,
        "booking_group.confirmed",
        group.id,
        json!({"paymentMethod": method.as_str(), "total": total, "currency": currency,
               "customTotal": custom_total, "customPricingReason": reason,
               "bookings": held.iter().map(|h| json!({"bookingId": h.booking.id,
                   "total": h.price.total})).collect::<Vec<_>>(),
               "awaitingPayment": online}),
    );
    Ok(())
}

#[operations]
impl super::super::Repo {
    /// Confirms a held group: by invoice or comp every held booking is confirmed now; by
    /// card or bank payment they stay held for `payment_window` with one payment for the
    /// group (its provider's event confirms them). The same confirmation again leaves a
    /// waiting payment as it is; another withdraws it.
    pub async fn confirm_booking_group(
        &self,
        tenant: &TenantId,
        id: Uuid,
        confirm: GroupConfirm,
        actor: &Actor,
        now: Timestamp,
        idem: Option<Idempotency<'_, BookingGroup>>,
    ) -> Result<Written<BookingGroup>, GroupError> {
        let mut w = self.begin(tenant, now).await?;
        if let Some(replay) = w.claim::<_, GroupError>(idem.as_ref()).await? {
            return Ok(Written::Replayed(replay));
        }
        let result = async {
            let group = lock(&mut w, id).await?;
            confirm_locked(&mut w, &group, &confirm, actor).await?;
            read(&mut w.tx, &w.tenant, id, false)
                .await?
                .ok_or(GroupError::NotFound)
        }
        .await;
        w.finish(result, idem.map(|i| i.render))
            .await
            .map(Written::Done)
    }

    /// The group's online payment still waiting for its provider, if any.
    pub async fn open_group_payment(
        &self,
        tenant: &TenantId,
        group: Uuid,
    ) -> crate::StoreResult<Option<crate::OnlinePayment>> {
        use super::super::super::payments::online::{COLUMNS, FROM, OnlineRow};
        let row: Option<OnlineRow> = sqlx::query_as(sql!(
            "SELECT {COLUMNS} FROM {FROM}
             WHERE p.tenant_id = $1 AND p.group_id = $2 AND p.booking_id IS NULL
               AND p.provider IS NOT NULL AND p.status IN ('PENDING', 'AUTHORIZED', 'FAILED')
             ORDER BY p.created_at DESC, p.id DESC LIMIT 1"
        ))
        .bind(tenant.as_str())
        .bind(group)
        .fetch_optional(&self.read)
        .await?;
        row.map(crate::OnlinePayment::try_from).transpose()
    }

    /// Withdraws a group's payment nobody made by the payment deadline (its bookings'
    /// holds lapse with it): it and the shares waiting on it are CANCELED. Whether it was
    /// still waiting.
    pub async fn withdraw_group_payment(
        &self,
        tenant: &TenantId,
        payment: Uuid,
        now: Timestamp,
    ) -> crate::StoreResult<bool> {
        let mut w = self.begin(tenant, now).await?;
        let group: Option<Option<Uuid>> =
            sqlx::query_scalar("SELECT group_id FROM payments WHERE tenant_id = $1 AND id = $2")
                .bind(tenant.as_str())
                .bind(payment)
                .fetch_optional(&mut *w.tx)
                .await?;
        let Some(Some(group)) = group else {
            return Ok(false);
        };
        // The group's lock first, as its confirmation and settlement take it.
        let result = async {
            lock(&mut w, group).await?;
            let done = sqlx::query(
                "UPDATE payments SET status = 'CANCELED', updated_at = $3
                 WHERE tenant_id = $1 AND (id = $2 OR parent_payment_id = $2)
                   AND status IN ('NOT_STARTED', 'PENDING', 'FAILED')",
            )
            .bind(w.tenant.as_str())
            .bind(payment)
            .bind(w.now)
            .execute(&mut *w.tx)
            .await?;
            Ok::<_, GroupError>(done.rows_affected() > 0)
        }
        .await;
        w.finish(result, None).await.map_err(|e| match e {
            GroupError::Store(s) => s,
            other => crate::StoreError::Corrupt(other.to_string()),
        })
    }
}
