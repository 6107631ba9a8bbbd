//! A partial cancellation (spec Part B 4.8 `reduced_party_size`): fewer people on the
//! same booking. Priced again from the catalog at the smaller party (per-participant
//! add-ons follow it), the seats no longer needed released, and what was paid beyond the
//! new total owed back by the cancellation's refund basis, all in the booking's
//! transaction.

use super::super::messaging::{Compose, booking_facts, queue_booking_message};
use super::actions::current_price;
use super::cancellation::owe_refund_beyond;
use super::offer::load_addons;
use super::reductions::load_reductions;
use super::seats::release_seats;
use super::transition::apply_transition;
use super::{Change, Write};
use crate::{Actor, Booking, BookingError, BookingRefusal};
use kairos_domain::FieldErrors;
use kairos_domain::bookings::{BookingStatus, Trigger};
use kairos_domain::cancellations::RefundBasis;
use kairos_domain::pricing::AddonMode;
use serde_json::json;
use sqlx::types::Json;

pub(super) async fn reduce_party(
    w: &mut Write,
    b: &mut Booking,
    (party_size, types): (i32, Option<&[crate::ChosenType]>),
    reason: Option<&str>,
    basis: RefundBasis,
    notify: bool,
    actor: &Actor,
) -> Result<(), BookingError> {
    if !matches!(
        b.status,
        BookingStatus::Hold
            | BookingStatus::Tentative
            | BookingStatus::Confirmed
            | BookingStatus::PartPaid
            | BookingStatus::Paid
    ) {
        return Err(BookingRefusal::NotReducible { status: b.status }.into());
    }
    if party_size < 1 || party_size >= b.party_size {
        let mut errors = FieldErrors::new();
        errors.add(
            "newPartySize",
            format!(
                "must be 1 to {} (fewer than the party of {})",
                b.party_size - 1,
                b.party_size
            ),
        );
        return Err(BookingError::Invalid(errors));
    }
    // A booking never lists more participants than its party: who is no longer coming is
    // removed first (their waiver, if signed, is kept as evidence).
    let listed = b.participants.len();
    if listed > usize::try_from(party_size).unwrap_or(0) {
        let mut errors = FieldErrors::new();
        errors.add(
            "newPartySize",
            format!(
                "the booking names {listed} participants: remove {} of them (those not coming) before making the party {party_size}",
                listed - usize::try_from(party_size).unwrap_or(0)
            ),
        );
        return Err(BookingError::Invalid(errors));
    }
    refuse_open_payment(w, b).await?;
    let before = (b.party_size, b.price.total);
    let mut smaller = b.clone();
    smaller.party_size = party_size;
    if !smaller.addons.is_empty() {
        let catalog = load_addons(&mut w.tx, &w.tenant, b.product_id).await?;
        for c in &mut smaller.addons {
            if catalog
                .iter()
                .any(|a| a.id == c.addon_id && a.mode == AddonMode::PerParticipant)
            {
                c.quantity = u32::try_from(party_size).unwrap_or(0);
            }
        }
    }
    // Typed places keep their type as far as they fit (untyped places go first), unless
    // staff say which places are left.
    let party = u32::try_from(party_size).unwrap_or(0);
    let before_types = crate::pricing::chosen_types(&b.price);
    let kept = match types {
        None => crate::pricing::shrink_types(&before_types, party),
        Some(chosen) => {
            let before = (
                u32::try_from(b.party_size).unwrap_or(0),
                before_types.as_slice(),
            );
            crate::pricing::check_fewer_types(before, chosen, party)
                .map_err(BookingError::Invalid)?
        }
    };
    smaller
        .price
        .participant_types
        .retain(|t| kept.iter().any(|k| k.key == t.key));
    for t in &mut smaller.price.participant_types {
        if let Some(k) = kept.iter().find(|k| k.key == t.key) {
            t.quantity = k.quantity;
        }
    }
    let reductions = load_reductions(&mut w.tx, &w.tenant, b.id).await?;
    // Priced again from the catalog, which must still price the booking as it is: a
    // product whose prices changed since would make the difference someone else's price.
    let now_priced = current_price(w, b, &reductions).await?;
    if now_priced.pricing_hash != b.price.pricing_hash {
        return Err(BookingRefusal::PricingChanged {
            price: Box::new(now_priced),
        }
        .into());
    }
    // An agreed price (a group's package or staff's total) shrinks with the party.
    sqlx::query(
        "UPDATE bookings SET agreed_price = (agreed_price * $3 + $4 / 2) / $4
         WHERE tenant_id = $1 AND id = $2 AND agreed_price IS NOT NULL",
    )
    .bind(w.tenant.as_str())
    .bind(b.id)
    .bind(i64::from(party_size))
    .bind(i64::from(b.party_size.max(1)))
    .execute(&mut *w.tx)
    .await?;
    let price = current_price(w, &smaller, &reductions).await?;
    release_seats(
        &mut w.tx,
        &w.tenant,
        b.slot_id,
        b.party_size - party_size,
        w.now,
    )
    .await?;
    sqlx::query(
        "UPDATE bookings SET party_size = $3, addons = $4, price = $5, total = $6,
             pricing_hash = $7, updated_at = $8
         WHERE tenant_id = $1 AND id = $2",
    )
    .bind(w.tenant.as_str())
    .bind(b.id)
    .bind(party_size)
    .bind(Json(&smaller.addons))
    .bind(Json(&price))
    .bind(price.total)
    .bind(&price.pricing_hash)
    .bind(w.now)
    .execute(&mut *w.tx)
    .await?;
    w.audit(
        actor,
        Change {
            action: "booking.party_reduced",
            entity_type: "booking",
            entity_id: b.id.to_string(),
            changes: json!({"partySize": {"from": before.0, "to": party_size},
                "total": {"from": before.1, "to": price.total}, "reason": reason}),
        },
    );
    b.party_size = party_size;
    b.addons = smaller.addons;
    b.price = price;
    b.updated_at = w.now;
    refund_beyond_price(w, b, basis, actor, reason).await?;
    if notify
        && b.status != BookingStatus::Hold
        && let Some(facts) = booking_facts(w, b.id).await?
    {
        let refund = b.cancellation.as_ref().map_or(0, |c| c.paid - c.fee);
        let message = if refund > 0 {
            format!(
                "Your booking is now for {party_size}. What the smaller party no longer costs ({}) is refunded to how you paid.",
                kairos_domain::money::to_major(
                    refund,
                    kairos_domain::tenancy::Currency::parse(&b.price.currency)
                        .map_err(|e| crate::StoreError::Corrupt(e.to_string()))?
                )
            )
        } else {
            format!("Your booking is now for {party_size}.")
        };
        let extra = json!({"message": message});
        let mut compose = Compose::of("booking_update", "booking", w.now);
        compose.extra = Some(&extra);
        queue_booking_message(w, &facts, compose).await?;
    }
    Ok(())
}

/// Refuses a change of price while a payment is not final: it would still collect the
/// old price.
pub(super) async fn refuse_open_payment(w: &mut Write, b: &Booking) -> Result<(), BookingError> {
    let open: Option<i32> = sqlx::query_scalar(
        "SELECT 1 FROM payments WHERE tenant_id = $1 AND booking_id = $2
           AND status IN ('NOT_STARTED', 'PENDING', 'AUTHORIZED', 'CAPTURED', 'FAILED') LIMIT 1",
    )
    .bind(w.tenant.as_str())
    .bind(b.id)
    .fetch_optional(&mut *w.tx)
    .await?;
    if open.is_some() {
        return Err(BookingRefusal::PaymentUnderWay.into());
    }
    Ok(())
}

/// What the card, bank and vouchers keep of the locked booking `b` at its (new) price:
/// the price before vouchers (vouchers are a way of paying), plus what earlier partial
/// cancellations kept as fees, less what compensations already gave back. Money paid at
/// the desk is returned first, by staff at the desk (external money before vouchers,
/// Part B 4.6), so it does not count towards the price here.
pub(super) async fn kept_for(w: &mut Write, b: &Booking) -> Result<i64, BookingError> {
    let (fees_kept, compensated): (i64, i64) = sqlx::query_as(
        "SELECT b.reduction_fees_kept,
                CAST(COALESCE((SELECT SUM(i.compensation_amount) FROM issues i
                   WHERE i.tenant_id = b.tenant_id AND i.booking_id = b.id
                     AND i.compensation_method = 'refund'
                     AND i.compensation_status IN ('refunded', 'pending')), 0) AS BIGINT)
         FROM bookings b WHERE b.tenant_id = $1 AND b.id = $2",
    )
    .bind(w.tenant.as_str())
    .bind(b.id)
    .fetch_one(&mut *w.tx)
    .await?;
    Ok(b.price.total + b.price.voucher_applied + fees_kept - compensated)
}

/// After the locked booking `b`'s price went down: owes back by `basis` what was paid
/// beyond what it keeps now ([`kept_for`]), counts the fee kept, and settles a part-paid
/// booking that what was paid now covers.
pub(super) async fn refund_beyond_price(
    w: &mut Write,
    b: &mut Booking,
    basis: RefundBasis,
    actor: &Actor,
    reason: Option<&str>,
) -> Result<(), BookingError> {
    let keep = kept_for(w, b).await?;
    b.cancellation = owe_refund_beyond(w, b, basis, actor, keep).await?;
    if let Some(fee) = b.cancellation.as_ref().map(|c| c.fee).filter(|f| *f > 0) {
        sqlx::query(
            "UPDATE bookings SET reduction_fees_kept = reduction_fees_kept + $3
             WHERE tenant_id = $1 AND id = $2",
        )
        .bind(w.tenant.as_str())
        .bind(b.id)
        .bind(fee)
        .execute(&mut *w.tx)
        .await?;
    }
    if b.status == BookingStatus::PartPaid && b.paid_amount >= b.price.total {
        apply_transition(
            w,
            b,
            Trigger::PaymentRecorded { settles: true },
            actor,
            reason,
        )
        .await?;
    }
    Ok(())
}
