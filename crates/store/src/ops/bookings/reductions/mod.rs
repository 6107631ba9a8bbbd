//! Promotions and vouchers on a booking (spec Part A 4.7): applying and removing codes on a
//! hold, and what the booking's status changes do to their uses and ledger entries.
//!
//! Everything that decides these writes is read inside their transaction, after the
//! booking's row lock: the catalog price, the promotion's row (locked, so its usage count
//! and this customer's uses are counted with no other application in between), the
//! voucher's row (locked; its balance then changes by one conditional statement).
//!
//! A promotion's use is taken (`held`) when it is applied to a hold, becomes `final` when
//! the booking is confirmed, and is `released` when the hold expires, is cancelled or the
//! code is removed. A voucher's amount is a `redeem` entry of its ledger; a hold that
//! expires or is cancelled gives it back with a `reverse` entry.

//! Files: this one (what the reductions of a booking are, and what its status changes do
//! to them), `promotions.rs` (applying and removing codes), `vouchers.rs` (applying
//! vouchers), `invariants.rs` (the checks tests and benchmarks run).

mod invariants;
mod promotions;
mod vouchers;

pub(super) use promotions::{
    customer_uses, insert_use, promotion_for_update, refusal_at, take_use,
};
pub(super) use vouchers::voucher_for_update;

use super::actions::current_price;
use super::transition::apply_transition;
use super::{Tx, Write, load_for_update};
use crate::{
    Actor, AppliedPromotion, AppliedVoucher, Booking, BookingError, BookingRefusal, PriceBreakdown,
    Reductions, StoreResult, Timestamp,
};
use kairos_domain::bookings::{BookingStatus, Trigger};
use kairos_domain::promotions::Discount;
use kairos_domain::{TenantId, new_id};
use sqlx::types::Json;
use uuid::Uuid;

#[derive(kairos_store_macros::FromRow)]
struct UseRow {
    id: Uuid,
    promotion_id: Uuid,
    code: String,
    name: String,
    discount: Json<Discount>,
    is_stackable: bool,
    applied_at: Timestamp,
}

/// The promotions and vouchers a booking holds now: its live uses, in the order applied,
/// and its vouchers' net redemptions, in the order first applied.
pub(super) async fn load_reductions(
    tx: &mut Tx,
    tenant: &TenantId,
    booking: Uuid,
) -> StoreResult<Reductions> {
    let uses: Vec<UseRow> = sqlx::query_as(
        "SELECT id, promotion_id, code, name, discount, is_stackable, applied_at
         FROM promotion_usages
         WHERE tenant_id = $1 AND booking_id = $2 AND status <> 'released'
         ORDER BY applied_at, id",
    )
    .bind(tenant.as_str())
    .bind(booking)
    .fetch_all(&mut **tx)
    .await?;
    let vouchers: Vec<(Uuid, String, i64)> = sqlx::query_as(
        "SELECT t.voucher_id, v.code, CAST(-SUM(t.amount) AS BIGINT)
         FROM voucher_transactions t
         JOIN vouchers v ON v.tenant_id = t.tenant_id AND v.id = t.voucher_id
         WHERE t.tenant_id = $1 AND t.booking_id = $2
         GROUP BY t.voucher_id, v.code
         HAVING SUM(t.amount) < 0
         ORDER BY MIN(t.created_at), t.voucher_id",
    )
    .bind(tenant.as_str())
    .bind(booking)
    .fetch_all(&mut **tx)
    .await?;
    Ok(Reductions {
        promotions: uses
            .into_iter()
            .map(|u| AppliedPromotion {
                usage_id: u.id,
                promotion_id: u.promotion_id,
                code: u.code,
                name: u.name,
                discount: u.discount.0,
                is_stackable: u.is_stackable,
                applied_at: u.applied_at,
            })
            .collect(),
        vouchers: vouchers
            .into_iter()
            .map(|(voucher_id, code, amount)| AppliedVoucher {
                voucher_id,
                code,
                amount,
            })
            .collect(),
    })
}

/// What a status change does to a booking's promotion uses and vouchers: confirming a
/// hold makes its uses final; a hold that expires or is cancelled releases its uses and
/// gives its vouchers' amounts back.
pub(super) async fn on_status_change(
    w: &mut Write,
    booking: Uuid,
    from: BookingStatus,
    to: BookingStatus,
) -> StoreResult<()> {
    if from != BookingStatus::Hold {
        return Ok(());
    }
    match to {
        BookingStatus::Confirmed | BookingStatus::Tentative => {
            sqlx::query(
                "UPDATE promotion_usages SET status = 'final', finalized_at = $3
                 WHERE tenant_id = $1 AND booking_id = $2 AND status = 'held'",
            )
            .bind(w.tenant.as_str())
            .bind(booking)
            .bind(w.now)
            .execute(&mut *w.tx)
            .await?;
        }
        BookingStatus::Expired | BookingStatus::Canceled => {
            let held: Vec<(Uuid, Uuid)> = sqlx::query_as(
                "SELECT id, promotion_id FROM promotion_usages
                 WHERE tenant_id = $1 AND booking_id = $2 AND status = 'held'
                 ORDER BY promotion_id",
            )
            .bind(w.tenant.as_str())
            .bind(booking)
            .fetch_all(&mut *w.tx)
            .await?;
            for (usage, promotion) in held {
                release_use(w, usage, promotion).await?;
            }
            let mut reductions = load_reductions(&mut w.tx, &w.tenant, booking).await?;
            reductions.vouchers.sort_by_key(|v| v.voucher_id);
            for v in &reductions.vouchers {
                give_back(w, booking, v.voucher_id, v.amount, true).await?;
            }
        }
        _ => {}
    }
    Ok(())
}

/// Gives back to a booking's vouchers up to `amount` (all they paid when `None`) of what
/// they paid for it, in voucher id order (the order every voucher write takes): the
/// booking did not go ahead (its online payment never came), or a cancellation refunds
/// the vouchers' part. Returns what was given back, per voucher: (voucher, code, amount,
/// balance after).
pub(crate) async fn restore_vouchers(
    w: &mut Write,
    booking: Uuid,
    amount: Option<i64>,
) -> StoreResult<Vec<(Uuid, String, i64, i64)>> {
    let mut reductions = load_reductions(&mut w.tx, &w.tenant, booking).await?;
    reductions.vouchers.sort_by_key(|v| v.voucher_id);
    let mut left = amount.unwrap_or(i64::MAX);
    let mut given = Vec::new();
    for v in &reductions.vouchers {
        let back = v.amount.min(left);
        if back <= 0 {
            break;
        }
        give_back(w, booking, v.voucher_id, back, back == v.amount).await?;
        left -= back;
        let balance: i64 = sqlx::query_scalar(
            "SELECT current_balance FROM vouchers WHERE tenant_id = $1 AND id = $2",
        )
        .bind(w.tenant.as_str())
        .bind(v.voucher_id)
        .fetch_one(&mut *w.tx)
        .await?;
        given.push((v.voucher_id, v.code.clone(), back, balance));
    }
    Ok(given)
}

/// Whether another booking of the group of `booking` (if it is in one) still uses the
/// promotion, or still has the voucher's money: a group counts as one use of either.
async fn sibling_uses(
    w: &mut Write,
    booking: Uuid,
    promotion: Option<Uuid>,
    voucher: Option<Uuid>,
) -> StoreResult<bool> {
    let count: i64 = sqlx::query_scalar(
        "SELECT COUNT(*) FROM bookings s
         JOIN bookings b ON b.tenant_id = s.tenant_id AND b.group_id = s.group_id
         WHERE s.tenant_id = $1 AND b.id = $2 AND s.id <> $2
           AND (EXISTS (SELECT 1 FROM promotion_usages u
                        WHERE u.tenant_id = s.tenant_id AND u.booking_id = s.id
                          AND u.promotion_id = $3 AND u.status <> 'released')
                OR (SELECT COALESCE(SUM(t.amount), 0) FROM voucher_transactions t
                    WHERE t.tenant_id = s.tenant_id AND t.booking_id = s.id
                      AND t.voucher_id = $4) < 0)",
    )
    .bind(w.tenant.as_str())
    .bind(booking)
    .bind(promotion)
    .bind(voucher)
    .fetch_one(&mut *w.tx)
    .await?;
    Ok(count > 0)
}

/// Releases one use of a promotion: the use record and the promotion's count (a group's
/// count when the last of its bookings lets the promotion go).
pub(super) async fn release_use(w: &mut Write, usage: Uuid, promotion: Uuid) -> StoreResult<()> {
    let booking: Uuid = sqlx::query_scalar(
        "UPDATE promotion_usages SET status = 'released', released_at = $3
         WHERE tenant_id = $1 AND id = $2
         RETURNING booking_id",
    )
    .bind(w.tenant.as_str())
    .bind(usage)
    .bind(w.now)
    .fetch_one(&mut *w.tx)
    .await?;
    // The promotion's row is locked before the check, so two of the group's bookings let
    // go at once (two sweeps, a cancellation beside a sweep) see each other's release.
    sqlx::query(sql!(
        "SELECT id FROM promotions WHERE tenant_id = $1 AND id = $2{}",
        super::dialect::FOR_UPDATE
    ))
    .bind(w.tenant.as_str())
    .bind(promotion)
    .fetch_optional(&mut *w.tx)
    .await?;
    if sibling_uses(w, booking, Some(promotion), None).await? {
        return Ok(());
    }
    sqlx::query(
        "UPDATE promotions SET usage_count = usage_count - 1
         WHERE tenant_id = $1 AND id = $2 AND usage_count > 0",
    )
    .bind(w.tenant.as_str())
    .bind(promotion)
    .execute(&mut *w.tx)
    .await?;
    Ok(())
}

/// Gives `amount` of what a voucher paid for `booking` back to it, with a reversing
/// ledger entry. `whole`: the booking no longer uses the voucher at all, so the use is
/// given back too.
async fn give_back(
    w: &mut Write,
    booking: Uuid,
    voucher: Uuid,
    amount: i64,
    whole: bool,
) -> StoreResult<()> {
    // Locked before the check, as for a promotion's use (`release_use`).
    sqlx::query(sql!(
        "SELECT id FROM vouchers WHERE tenant_id = $1 AND id = $2{}",
        super::dialect::FOR_UPDATE
    ))
    .bind(w.tenant.as_str())
    .bind(voucher)
    .fetch_optional(&mut *w.tx)
    .await?;
    let whole = whole && !sibling_uses(w, booking, None, Some(voucher)).await?;
    let balance: i64 = sqlx::query_scalar(
        "UPDATE vouchers SET current_balance = current_balance + $3,
             usage_count = CASE WHEN $5 AND usage_count > 0 THEN usage_count - 1
                                ELSE usage_count END,
             updated_at = $4
         WHERE tenant_id = $1 AND id = $2
         RETURNING current_balance",
    )
    .bind(w.tenant.as_str())
    .bind(voucher)
    .bind(amount)
    .bind(w.now)
    .bind(whole)
    .fetch_one(&mut *w.tx)
    .await?;
    insert_entry(w, voucher, booking, "reverse", amount, balance).await
}

/// Gives back what vouchers took for a booking beyond what its `price` lets them pay (the
/// price went down after they were applied: a promotion, a catalog change), so that no
/// voucher pays more than the booking costs. In voucher id order, as every write that
/// changes several vouchers locks them.
pub(super) async fn return_excess(
    w: &mut Write,
    booking: Uuid,
    reductions: &Reductions,
    price: &PriceBreakdown,
) -> StoreResult<()> {
    let mut vouchers: Vec<&AppliedVoucher> = reductions.vouchers.iter().collect();
    vouchers.sort_by_key(|v| v.voucher_id);
    for v in vouchers {
        let used = price
            .vouchers
            .iter()
            .find(|p| p.voucher_id == v.voucher_id)
            .map_or(0, |p| p.amount);
        if used < v.amount {
            give_back(w, booking, v.voucher_id, v.amount - used, used == 0).await?;
        }
    }
    Ok(())
}

pub(super) async fn insert_entry(
    w: &mut Write,
    voucher: Uuid,
    booking: Uuid,
    kind: &str,
    amount: i64,
    balance_after: i64,
) -> StoreResult<()> {
    sqlx::query(
        "INSERT INTO voucher_transactions (tenant_id, id, voucher_id, booking_id, kind, amount,
             balance_after, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
    )
    .bind(w.tenant.as_str())
    .bind(new_id())
    .bind(voucher)
    .bind(booking)
    .bind(kind)
    .bind(amount)
    .bind(balance_after)
    .bind(w.now)
    .execute(&mut *w.tx)
    .await?;
    Ok(())
}

/// Who counts as one customer for a promotion's per-customer limit: the account, else the
/// email, else nobody ('').
pub(super) fn customer_key(b: &Booking) -> String {
    match (b.customer.id, b.customer.email.as_str()) {
        (Some(id), _) => format!("customer:{id}"),
        (None, "") => String::new(),
        (None, email) => format!("email:{}", email.to_lowercase()),
    }
}

/// The locked booking, which must be a live hold. An overdue hold is expired first (and
/// stays expired: the caller keeps that on refusal).
pub(super) async fn live_hold(
    w: &mut Write,
    id: Uuid,
    actor: &Actor,
) -> Result<Booking, BookingError> {
    let mut b = load_for_update(&mut w.tx, &w.tenant, id).await?;
    if b.status == BookingStatus::Hold && b.hold_expires_at.is_some_and(|t| t <= w.now) {
        apply_transition(w, &mut b, Trigger::HoldExpired, actor, None).await?;
        w.keep_on_refusal();
        return Err(BookingRefusal::HoldExpired.into());
    }
    if b.status != BookingStatus::Hold {
        return Err(BookingRefusal::NotAHold { status: b.status }.into());
    }
    Ok(b)
}

/// The booking's price now, checked against the hash the client last saw, if it sent one.
pub(super) async fn checked_price(
    w: &mut Write,
    b: &Booking,
    expected_hash: Option<&str>,
) -> Result<(PriceBreakdown, Reductions), BookingError> {
    let reductions = load_reductions(&mut w.tx, &w.tenant, b.id).await?;
    let price = current_price(w, b, &reductions).await?;
    if expected_hash.is_some_and(|h| h != price.pricing_hash) {
        return Err(BookingRefusal::PricingChanged {
            price: Box::new(price),
        }
        .into());
    }
    Ok((price, reductions))
}

/// Writes a booking's new price, keeps its uses' discount amounts in step with it, and
/// gives back what its vouchers (`reductions`) no longer pay.
pub(super) async fn store_price(
    w: &mut Write,
    b: &mut Booking,
    price: PriceBreakdown,
    reductions: &Reductions,
) -> StoreResult<()> {
    return_excess(w, b.id, reductions, &price).await?;
    sqlx::query(
        "UPDATE bookings SET price = $3, total = $4, pricing_hash = $5, updated_at = $6
         WHERE tenant_id = $1 AND id = $2",
    )
    .bind(w.tenant.as_str())
    .bind(b.id)
    .bind(Json(&price))
    .bind(price.total)
    .bind(&price.pricing_hash)
    .bind(w.now)
    .execute(&mut *w.tx)
    .await?;
    for line in &price.discounts {
        sqlx::query(
            "UPDATE promotion_usages SET discount_amount = $4
             WHERE tenant_id = $1 AND booking_id = $2 AND promotion_id = $3
               AND status <> 'released'",
        )
        .bind(w.tenant.as_str())
        .bind(b.id)
        .bind(line.promotion_id)
        .bind(line.discount_applied)
        .execute(&mut *w.tx)
        .await?;
    }
    b.price = price;
    b.updated_at = w.now;
    Ok(())
}
