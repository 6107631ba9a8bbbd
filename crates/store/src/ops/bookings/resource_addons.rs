//! A booking's resource add-ons (spec Part B 4.2): taken with its hold, changed (on a
//! hold, or on a confirmed booking with the payment adjusted), and a conflict found at
//! confirmation resolved. Every change re-prices the booking in the same transaction.

use super::super::resources::allocations::{self, live_addons, requests_for, take};
use super::actions::act;
use super::reductions::{checked_price, live_hold, store_price};
use super::{Repo, Write, load_for_update};
use crate::{
    Actor, AddonChange, AddonSelection, AddonsChanged, Booking, BookingAction, BookingAddon,
    BookingError, BookingRefusal, ConflictResolution, Idempotency, PaymentAdjustment, Settlement,
    StoreResult, Timestamp, Written,
};
use kairos_domain::TenantId;
use kairos_domain::bookings::BookingStatus;
use kairos_domain::resources::AllocationStatus;
use kairos_store_macros::operations;
use serde_json::json;
use uuid::Uuid;

use super::super::audit::Change;

#[operations]
impl Repo {
    /// Takes the `selections` for the hold `booking`, all or none, and re-prices it.
    pub async fn add_resource_addons(
        &self,
        tenant: &TenantId,
        booking: Uuid,
        selections: Vec<AddonSelection>,
        actor: &Actor,
        now: Timestamp,
        idem: Option<Idempotency<'_, AddonsChanged>>,
    ) -> Result<Written<AddonsChanged>, BookingError> {
        let mut w = self.begin(tenant, now).await?;
        if let Some(replay) = w.claim::<_, BookingError>(idem.as_ref()).await? {
            return Ok(Written::Replayed(replay));
        }
        let result = async {
            let b = live_hold(&mut w, booking, actor).await?;
            change(&mut w, b, &selections, &[], actor).await
        }
        .await;
        w.finish(result, idem.map(|i| i.render))
            .await
            .map(Written::Done)
    }

    /// Adds `add` and releases `remove` (allocation ids) of a hold or of a confirmed
    /// booking, in one transaction. A confirmed booking's new add-ons are confirmed at
    /// once, and the difference in its price is the answer's payment adjustment.
    pub async fn change_resource_addons(
        &self,
        tenant: &TenantId,
        booking: Uuid,
        requested: AddonChange,
        actor: &Actor,
        now: Timestamp,
        idem: Option<Idempotency<'_, AddonsChanged>>,
    ) -> Result<Written<AddonsChanged>, BookingError> {
        let mut w = self.begin(tenant, now).await?;
        if let Some(replay) = w.claim::<_, BookingError>(idem.as_ref()).await? {
            return Ok(Written::Replayed(replay));
        }
        let result = async {
            let b = load_for_update(&mut w.tx, &w.tenant, booking).await?;
            let b = if b.status == BookingStatus::Hold {
                live_hold(&mut w, booking, actor).await?
            } else {
                b
            };
            change(&mut w, b, &requested.add, &requested.remove, actor).await
        }
        .await;
        w.finish(result, idem.map(|i| i.render))
            .await
            .map(Written::Done)
    }

    /// The live resource add-ons of a booking.
    pub async fn booking_resource_addons(
        &self,
        tenant: &TenantId,
        booking: Uuid,
    ) -> StoreResult<Vec<BookingAddon>> {
        live_addons(&self.read, tenant, booking).await
    }

    /// Settles a resource conflict of the hold `booking` and confirms it, in one
    /// transaction: the price the customer saw must still be `expected_hash`; the
    /// booking is re-priced by the resolution and confirmed at the new price with
    /// `payment_method` (cardpay or pay on arrival).
    pub async fn resolve_resource_conflict(
        &self,
        tenant: &TenantId,
        booking: Uuid,
        settlement: Settlement,
        actor: &Actor,
        now: Timestamp,
        idem: Option<Idempotency<'_, Booking>>,
    ) -> Result<Written<Booking>, BookingError> {
        let mut w = self.begin(tenant, now).await?;
        if let Some(replay) = w.claim::<_, BookingError>(idem.as_ref()).await? {
            return Ok(Written::Replayed(replay));
        }
        let Settlement {
            resolution,
            expected_hash,
            payment_method,
        } = settlement;
        let result = async {
            let b = live_hold(&mut w, booking, actor).await?;
            checked_price(&mut w, &b, Some(&expected_hash)).await?;
            let live = live_addons(&mut *w.tx, &w.tenant, b.id).await?;
            let (add, remove) = match &resolution {
                ConflictResolution::SelectAlternative {
                    allocation_id,
                    starts_at,
                    ends_at,
                } => {
                    let a = live
                        .iter()
                        .find(|a| a.allocation.id == *allocation_id)
                        .ok_or(BookingRefusal::AllocationNotFound {
                            allocation_id: *allocation_id,
                        })?;
                    let mins = (*ends_at - *starts_at).num_minutes();
                    let selection = AddonSelection {
                        config_id: a.allocation.request.config_id,
                        starts_at: *starts_at,
                        ends_at: *ends_at,
                        duration_mins: i32::try_from(mins).unwrap_or(0),
                    };
                    (vec![selection], vec![*allocation_id])
                }
                ConflictResolution::ProceedWithout { release } => (Vec::new(), release.clone()),
            };
            let changed = change(&mut w, b, &add, &remove, actor).await?;
            let mut b = changed.booking;
            let pricing_hash = b.price.pricing_hash.clone();
            act(
                &mut w,
                &mut b,
                BookingAction::Confirm {
                    pricing_hash,
                    payment_method,
                    method_reference: None,
                },
                actor,
            )
            .await?;
            Ok(b)
        }
        .await;
        w.finish(result, idem.map(|i| i.render))
            .await
            .map(Written::Done)
    }
}

/// Releases `remove` and takes `add` for the locked booking `b`, re-prices it and says
/// what its payment must do.
async fn change(
    w: &mut Write,
    mut b: Booking,
    add: &[AddonSelection],
    remove: &[Uuid],
    actor: &Actor,
) -> Result<AddonsChanged, BookingError> {
    let paid_online = matches!(
        b.status,
        BookingStatus::Confirmed | BookingStatus::PartPaid | BookingStatus::Paid
    );
    let status = match b.status {
        BookingStatus::Hold => AllocationStatus::Held,
        // Paid at the desk on arrival: the new total is what is collected there.
        BookingStatus::Tentative => AllocationStatus::Confirmed,
        // Paid online: add-ons given back are refunded by the cancellation rules; new
        // ones are charged through the booking's payment method.
        _ if paid_online => AllocationStatus::Confirmed,
        other => return Err(BookingRefusal::AddonsClosed { status: other }.into()),
    };
    if paid_online {
        super::reduce::refuse_open_payment(w, &b).await?;
    }
    let live = live_addons(&mut *w.tx, &w.tenant, b.id).await?;
    for id in remove {
        if !live.iter().any(|a| a.allocation.id == *id) {
            return Err(BookingRefusal::AllocationNotFound { allocation_id: *id }.into());
        }
    }
    let before = b.price.clone();
    allocations::release(w, b.id, Some(remove)).await?;
    let by_staff = actor.kind == kairos_domain::auth::ActorKind::Admin;
    let requests = requests_for(w, &b, add, by_staff).await?;
    let added = take(w, b.id, b.party_size, requests, status).await?;
    // Re-priced as the booking is: its promotions and vouchers with the new lines.
    let (price, reductions) = checked_price(w, &b, None).await?;
    store_price(w, &mut b, price, &reductions).await?;
    let delta = b.price.total - before.total;
    let opened = if paid_online && delta > 0 {
        super::payments::charge_more(w, &mut b, delta, actor).await?
    } else {
        false
    };
    if paid_online && delta < 0 {
        let basis = kairos_domain::cancellations::RefundBasis::TenantRule;
        super::reduce::refund_beyond_price(w, &mut b, basis, actor, Some("add-on removed")).await?;
    }
    let refunded = b.cancellation.as_ref().map(|c| c.paid - c.fee);
    let adjustment = match (status, delta) {
        (AllocationStatus::Held, _) | (_, 0) => PaymentAdjustment::None,
        (_, d) if d > 0 && opened => PaymentAdjustment::ChargeOpened(d),
        (_, d) if d > 0 => PaymentAdjustment::AdditionalCharge(d),
        // Online: what the cancellation rules give back of it (none when the fee keeps
        // it all).
        _ if paid_online => PaymentAdjustment::Refund(refunded.unwrap_or_default()),
        (_, d) if b.paid_amount == 0 => PaymentAdjustment::DueReduced(-d),
        (_, d) => PaymentAdjustment::Refund(-d),
    };
    w.audit(
        actor,
        Change {
            action: "booking.resource_addons_changed",
            entity_type: "booking",
            entity_id: b.id.to_string(),
            changes: json!({
                "added": added,
                "removed": remove,
                "total": {"from": before.total, "to": b.price.total},
            }),
        },
    );
    let addons = live_addons(&mut *w.tx, &w.tenant, b.id).await?;
    Ok(AddonsChanged {
        booking: b,
        added,
        addons,
        before,
        adjustment,
    })
}
