//! Actions on a booking (confirm, cancel, mark-*, staff status changes), each through
//! the status machine in one transaction.

use super::super::messaging::{Compose, booking_facts, queue_booking_message};
use super::super::operations::{correct_no_show, track_no_show};
use super::offer::{load_addons, load_offer, load_variant, site_policy};
use super::payments::record_payment;
use super::reductions::{load_reductions, return_excess};
use super::reschedule::reschedule;
use super::transition::{apply_transition, check_window, insert_payment};
use super::{Repo, Write, load_for_update};
use crate::pricing::{Chosen, chosen_types, price_booking, withdrawn_type};
use crate::{
    Actor, Booking, BookingAction, BookingError, BookingRefusal, Idempotency, PriceBreakdown,
    Reductions, StoreError, Timestamp, Written,
};
use kairos_domain::TenantId;
use kairos_domain::bookings::{BookingStatus, Trigger, transition, trigger_for_target};
use kairos_domain::cancellations::RefundBasis;
use kairos_domain::fees::Resolution;
use kairos_domain::payments::{PaymentMethod, PaymentStatus};
use kairos_store_macros::operations;
use sqlx::types::Json;
use uuid::Uuid;

#[operations]
impl Repo {
    /// Changes a booking through the status machine in one transaction. An overdue hold is
    /// expired first, and stays expired when the action is then refused.
    pub async fn apply_booking_action(
        &self,
        tenant: &TenantId,
        id: Uuid,
        action: BookingAction,
        actor: &Actor,
        now: Timestamp,
        idem: Option<Idempotency<'_, Booking>>,
    ) -> Result<Written<Booking>, BookingError> {
        let mut w = self.begin(tenant, now).await?;
        if let Some(replay) = w.claim::<_, BookingError>(idem.as_ref()).await? {
            return Ok(Written::Replayed(replay));
        }
        let mut b = match load_for_update(&mut w.tx, tenant, id).await {
            Ok(b) => b,
            Err(e) => return w.finish(Err(e), None).await,
        };
        let overdue =
            b.status == BookingStatus::Hold && b.hold_expires_at.is_some_and(|t| t <= now);
        let result = act_on_current(&mut w, &mut b, overdue, action, actor).await;
        // A refusal comes before the action writes anything: committing it keeps only the
        // expiry of the overdue hold.
        if overdue && matches!(result, Err(BookingError::Refused(_))) {
            w.keep_on_refusal();
        }
        w.finish(result.map(|()| b), idem.map(|i| i.render))
            .await
            .map(Written::Done)
    }

    /// What `action` would make of the booking, without changing anything: the action
    /// runs as `apply_booking_action` runs it, in a transaction that is rolled back.
    pub async fn preview_booking_action(
        &self,
        tenant: &TenantId,
        id: Uuid,
        action: BookingAction,
        actor: &Actor,
        now: Timestamp,
    ) -> Result<Booking, BookingError> {
        let mut w = self.begin(tenant, now).await?;
        let mut b = load_for_update(&mut w.tx, tenant, id).await?;
        let overdue =
            b.status == BookingStatus::Hold && b.hold_expires_at.is_some_and(|t| t <= now);
        act_on_current(&mut w, &mut b, overdue, action, actor).await?;
        w.tx.rollback().await.map_err(StoreError::from)?;
        Ok(b)
    }
}

async fn act_on_current(
    w: &mut Write,
    b: &mut Booking,
    overdue: bool,
    action: BookingAction,
    actor: &Actor,
) -> Result<(), BookingError> {
    if overdue {
        apply_transition(
            w,
            b,
            Trigger::HoldExpired,
            &Actor::system("hold expiry"),
            None,
        )
        .await?;
    }
    if b.status == BookingStatus::Expired && matches!(action, BookingAction::Confirm { .. }) {
        return Err(BookingRefusal::HoldExpired.into());
    }
    act(w, b, action, actor).await
}

/// The booking's price from the catalog as it is now, with `reductions` (its promotions
/// and vouchers); `ItemWithdrawn` when its product, variant or an add-on is no longer
/// offered (priced without it, the booking would no longer be what was held).
pub(super) async fn current_price(
    w: &mut Write,
    b: &Booking,
    reductions: &Reductions,
) -> Result<PriceBreakdown, BookingError> {
    let offer = load_offer(&mut w.tx, &w.tenant, b.product_id, None)
        .await?
        .filter(|o| o.product.is_active)
        .ok_or(BookingRefusal::ItemWithdrawn)?;
    let variant = match b.variant_id {
        None => None,
        Some(id) => Some(
            load_variant(&mut w.tx, &w.tenant, b.product_id, id)
                .await?
                .ok_or(BookingRefusal::ItemWithdrawn)?,
        ),
    };
    let catalog = if b.addons.is_empty() {
        Vec::new()
    } else {
        load_addons(&mut w.tx, &w.tenant, b.product_id).await?
    };
    let withdrawn_addon = b
        .addons
        .iter()
        .any(|c| !catalog.iter().any(|a| a.id == c.addon_id && a.is_active));
    let types = chosen_types(&b.price);
    if withdrawn_addon || withdrawn_type(&offer.product, &types) {
        return Err(BookingRefusal::ItemWithdrawn.into());
    }
    let resources =
        super::super::resources::allocations::live_addons(&mut *w.tx, &w.tenant, b.id).await?;
    let agreed: Option<Option<i64>> =
        sqlx::query_scalar("SELECT agreed_price FROM bookings WHERE tenant_id = $1 AND id = $2")
            .bind(w.tenant.as_str())
            .bind(b.id)
            .fetch_optional(&mut *w.tx)
            .await
            .map_err(StoreError::from)?;
    Ok(price_booking(
        &offer.product,
        variant.as_ref(),
        &catalog,
        Chosen {
            addons: &b.addons,
            resources: &resources,
            types: &types,
            agreed: agreed.flatten(),
        },
        u32::try_from(b.party_size).unwrap_or(0),
        offer.currency,
        reductions,
    ))
}

/// Refuses to confirm `b` alone, or to change its promotions or vouchers alone, when it
/// is a booking of a group: the group's confirmation confirms it and codes apply to the
/// group (its price is the group's allocation, its money the group's).
pub(super) async fn refuse_held_in_group(w: &mut Write, b: &Booking) -> Result<(), BookingError> {
    let group: Option<Option<Uuid>> =
        sqlx::query_scalar("SELECT group_id FROM bookings WHERE tenant_id = $1 AND id = $2")
            .bind(w.tenant.as_str())
            .bind(b.id)
            .fetch_optional(&mut *w.tx)
            .await
            .map_err(StoreError::from)?;
    match group {
        Some(Some(group)) => Err(BookingRefusal::HeldInGroup(group).into()),
        _ => Ok(()),
    }
}

pub(super) async fn act(
    w: &mut Write,
    b: &mut Booking,
    action: BookingAction,
    actor: &Actor,
) -> Result<(), BookingError> {
    let now = w.now;
    let before = b.status;
    let mut no_show = None;
    match action {
        BookingAction::Confirm {
            pricing_hash,
            payment_method,
            method_reference,
        } => {
            if b.status == BookingStatus::Hold && b.starts_at <= now {
                return Err(BookingRefusal::SlotStarted.into());
            }
            let pay_on_arrival = payment_method.pays_on_arrival();
            let trigger = if pay_on_arrival {
                Trigger::ConfirmPayOnArrival
            } else {
                Trigger::ConfirmOnline
            };
            // An impossible confirmation says so before any price question.
            transition(b.status, trigger).map_err(BookingRefusal::InvalidTransition)?;
            refuse_held_in_group(w, b).await?;
            let reductions = load_reductions(&mut w.tx, &w.tenant, b.id).await?;
            let price = current_price(w, b, &reductions).await?;
            if price.pricing_hash != pricing_hash {
                return Err(BookingRefusal::PricingChanged {
                    price: Box::new(price),
                }
                .into());
            }
            if payment_method == PaymentMethod::Voucher && price.total > 0 {
                return Err(BookingRefusal::VouchersDoNotCover {
                    total: price.total,
                    currency: price.currency,
                }
                .into());
            }
            // A price that went down since vouchers were applied: they pay no more than it.
            return_excess(w, b.id, &reductions, &price).await?;
            apply_transition(w, b, trigger, actor, None).await?;
            sqlx::query(
                "UPDATE bookings SET payment_method = $3, price = $4, total = $5,
                         pricing_hash = $6, hold_expires_at = NULL, confirmed_at = $7
                     WHERE tenant_id = $1 AND id = $2",
            )
            .bind(w.tenant.as_str())
            .bind(b.id)
            .bind(payment_method.as_str())
            .bind(Json(&price))
            .bind(price.total)
            .bind(&price.pricing_hash)
            .bind(now)
            .execute(&mut *w.tx)
            .await?;
            b.price = price;
            b.payment_method = Some(payment_method);
            b.hold_expires_at = None;
            b.confirmed_at = Some(now);
            // Nothing to collect when vouchers (or discounts) cover the whole price.
            if !pay_on_arrival && b.price.total > 0 {
                let total = b.price.total;
                insert_payment(
                    w,
                    b,
                    total,
                    payment_method.as_str(),
                    method_reference.as_deref(),
                    PaymentStatus::Pending,
                    actor,
                )
                .await?;
            }
            // Its confirmation is sent by the automation rule on booking_created.
        }
        BookingAction::Cancel {
            reason,
            customer_window,
        } => {
            // An impossible cancellation says so before any window question.
            transition(b.status, Trigger::Cancel).map_err(BookingRefusal::InvalidTransition)?;
            if customer_window {
                check_window(w, b).await?;
            }
            cancel(w, b, reason.as_deref(), actor, true).await?;
            let basis = if customer_window {
                RefundBasis::TenantRule
            } else {
                RefundBasis::InFull
            };
            b.cancellation = super::cancellation::owe_refund(w, b, basis, actor).await?;
        }
        BookingAction::StaffCancel {
            reason,
            refund,
            notify,
        } => {
            transition(b.status, Trigger::Cancel).map_err(BookingRefusal::InvalidTransition)?;
            cancel(w, b, reason.as_deref(), actor, notify).await?;
            b.cancellation = super::cancellation::owe_refund(w, b, refund, actor).await?;
        }
        BookingAction::ReduceParty {
            party_size,
            types,
            reason,
            refund,
            notify,
        } => {
            super::reduce::reduce_party(
                w,
                b,
                (party_size, types.as_deref()),
                reason.as_deref(),
                refund,
                notify,
                actor,
            )
            .await?;
        }
        BookingAction::CancelUnpaid { reason } => {
            // Decided on the locked booking: paid in the meantime (online or at the desk),
            // it stays.
            if b.status != BookingStatus::Confirmed || b.paid_amount > 0 {
                return Err(BookingRefusal::NoTransition {
                    from: b.status,
                    to: BookingStatus::Canceled,
                }
                .into());
            }
            cancel(w, b, Some(&reason), actor, true).await?;
            // The provider's part never came: what vouchers paid goes back to them.
            super::reductions::restore_vouchers(w, b.id, None).await?;
            sqlx::query(
                "UPDATE bookings SET canceled_unpaid = TRUE WHERE tenant_id = $1 AND id = $2",
            )
            .bind(w.tenant.as_str())
            .bind(b.id)
            .execute(&mut *w.tx)
            .await?;
        }
        BookingAction::Reschedule {
            slot_id,
            customer_window,
        } => {
            reschedule(w, b, slot_id, customer_window, actor).await?;
        }
        BookingAction::MarkArrived => {
            apply_transition(w, b, Trigger::MarkArrived, actor, None).await?;
        }
        BookingAction::MarkNoShow(mark) => {
            apply_transition(w, b, Trigger::MarkNoShow, actor, mark.reason.as_deref()).await?;
            no_show = Some(mark);
        }
        BookingAction::MarkPaid { amount, method } => {
            let balance = (b.price.total - b.paid_amount).max(0);
            let amount = amount.unwrap_or(balance);
            if amount > balance {
                return Err(BookingRefusal::AmountExceedsBalance { balance }.into());
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
                apply_transition(w, b, trigger, actor, None).await?;
            }
            record_payment(w, b, amount, &method, actor).await?;
        }
        BookingAction::SetStatus {
            status,
            reason,
            admin_notes,
        } => {
            let trigger =
                trigger_for_target(b.status, status).ok_or(BookingRefusal::NoTransition {
                    from: b.status,
                    to: status,
                })?;
            if b.status == BookingStatus::Hold && status != BookingStatus::Expired {
                // A group's held booking leaves its hold with its group.
                refuse_held_in_group(w, b).await?;
            }
            apply_transition(w, b, trigger, actor, reason.as_deref()).await?;
            match trigger {
                Trigger::Rehold => {
                    let (_, hold_ttl) = site_policy(&mut w.tx, &w.tenant, b.site_id).await?;
                    let expires = now + hold_ttl;
                    sqlx::query(
                        "UPDATE bookings SET hold_expires_at = $3 WHERE tenant_id = $1 AND id = $2",
                    )
                    .bind(w.tenant.as_str())
                    .bind(b.id)
                    .bind(expires)
                    .execute(&mut *w.tx)
                    .await?;
                    b.hold_expires_at = Some(expires);
                }
                Trigger::ConfirmOnline | Trigger::ConfirmPayOnArrival => {
                    sqlx::query(
                        "UPDATE bookings SET hold_expires_at = NULL, confirmed_at = $3
                             WHERE tenant_id = $1 AND id = $2",
                    )
                    .bind(w.tenant.as_str())
                    .bind(b.id)
                    .bind(now)
                    .execute(&mut *w.tx)
                    .await?;
                    b.hold_expires_at = None;
                    b.confirmed_at = Some(now);
                }
                Trigger::MarkPaid | Trigger::PaymentRecorded { settles: true } => {
                    let balance = (b.price.total - b.paid_amount).max(0);
                    record_payment(w, b, balance, "manual", actor).await?;
                }
                Trigger::Cancel => {
                    cancel_uncollected_payments(w, b).await?;
                    // Staff cancelled: everything paid is owed back, as by the cancel action.
                    b.cancellation =
                        super::cancellation::owe_refund(w, b, RefundBasis::InFull, actor).await?;
                }
                _ => {}
            }
            if let Some(notes) = admin_notes {
                sqlx::query(
                    "UPDATE bookings SET admin_notes = $3 WHERE tenant_id = $1 AND id = $2",
                )
                .bind(w.tenant.as_str())
                .bind(b.id)
                .bind(&notes)
                .execute(&mut *w.tx)
                .await?;
                b.admin_notes = Some(notes);
            }
        }
    }
    // Every way into no_show writes its tracking record; every way out of it to arrived
    // corrects it.
    if before != BookingStatus::NoShow && b.status == BookingStatus::NoShow {
        let mark = no_show.unwrap_or_default();
        track_no_show(w, b, &mark, actor).await?;
    } else if before == BookingStatus::NoShow && b.status == BookingStatus::Arrived {
        correct_no_show(w, b, Resolution::ArrivedLate, None, actor).await?;
    }
    Ok(())
}

/// Cancels the locked booking: seats released, uncollected payments canceled, the
/// customer told (unless it was only a hold).
async fn cancel(
    w: &mut Write,
    b: &mut Booking,
    reason: Option<&str>,
    actor: &Actor,
    tell_customer: bool,
) -> Result<(), BookingError> {
    let notify = tell_customer && !matches!(b.status, BookingStatus::Hold | BookingStatus::Expired);
    apply_transition(w, b, Trigger::Cancel, actor, reason).await?;
    cancel_uncollected_payments(w, b).await?;
    if notify && let Some(facts) = booking_facts(w, b.id).await? {
        let now = w.now;
        queue_booking_message(w, &facts, Compose::of("cancellation", "booking", now)).await?;
    }
    Ok(())
}

/// What a cancelled booking had not collected no longer is.
async fn cancel_uncollected_payments(w: &mut Write, b: &Booking) -> Result<(), BookingError> {
    sqlx::query(
        "UPDATE payments SET status = 'CANCELED', updated_at = $3
         WHERE tenant_id = $1 AND booking_id = $2
           AND status IN ('NOT_STARTED', 'PENDING', 'AUTHORIZED', 'FAILED')",
    )
    .bind(w.tenant.as_str())
    .bind(b.id)
    .bind(w.now)
    .execute(&mut *w.tx)
    .await?;
    Ok(())
}
