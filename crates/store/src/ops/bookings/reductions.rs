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

use super::super::promotions::{PROMOTION_COLUMNS, PromotionRow, code_key};
use super::actions::current_price;
use super::transition::apply_transition;
use super::{Change, Repo, Tx, Write, load_for_update};
use crate::{
    Actor, AppliedPromotion, AppliedVoucher, Booking, BookingError, BookingRefusal, PriceBreakdown,
    Promotion, PromotionApplied, Reductions, StoreResult, Timestamp, VoucherApplied, stored,
};
use kairos_domain::bookings::{BookingStatus, Trigger};
use kairos_domain::promotions::{Context, Discount, Ineligible, eligibility};
use kairos_domain::vouchers::VoucherType;
use kairos_domain::{TenantId, new_id};
use kairos_store_macros::operations;
use serde_json::json;
use sqlx::types::Json;
use uuid::Uuid;

#[derive(sqlx::FromRow)]
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

/// Releases one use of a promotion: the use record and the promotion's count.
async fn release_use(w: &mut Write, usage: Uuid, promotion: Uuid) -> StoreResult<()> {
    sqlx::query(
        "UPDATE promotion_usages SET status = 'released', released_at = $3
         WHERE tenant_id = $1 AND id = $2",
    )
    .bind(w.tenant.as_str())
    .bind(usage)
    .bind(w.now)
    .execute(&mut *w.tx)
    .await?;
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

async fn insert_entry(
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
fn customer_key(b: &Booking) -> String {
    match (b.customer.id, b.customer.email.as_str()) {
        (Some(id), _) => format!("customer:{id}"),
        (None, "") => String::new(),
        (None, email) => format!("email:{}", email.to_lowercase()),
    }
}

/// The locked booking, which must be a live hold. An overdue hold is expired first (and
/// stays expired: the caller keeps that on refusal).
async fn live_hold(w: &mut Write, id: Uuid, actor: &Actor) -> Result<Booking, BookingError> {
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
async fn checked_price(
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
async fn store_price(
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

/// The promotion a typed code names, locked for the rest of the transaction (PostgreSQL).
async fn promotion_for_update(w: &mut Write, code: &str) -> StoreResult<Option<Promotion>> {
    let row: Option<PromotionRow> = sqlx::query_as(&format!(
        "SELECT {PROMOTION_COLUMNS} FROM promotions
         WHERE tenant_id = $1 AND code_key = $2 AND deleted_at IS NULL{}",
        super::dialect::FOR_UPDATE
    ))
    .bind(w.tenant.as_str())
    .bind(code_key(code))
    .fetch_optional(&mut *w.tx)
    .await?;
    row.map(Promotion::try_from).transpose()
}

/// What refuses a promotion, as the booking flow answers it.
fn refusal(p: &Promotion, reason: Ineligible, price: &PriceBreakdown) -> BookingRefusal {
    match reason {
        Ineligible::UsageLimitReached => BookingRefusal::UsageLimitExceeded {
            reason,
            limit: p.settings.usage_limit,
        },
        Ineligible::PerCustomerLimitReached => BookingRefusal::UsageLimitExceeded {
            reason,
            limit: p.settings.per_customer_limit,
        },
        Ineligible::MinSpendNotMet => BookingRefusal::MinSpendNotMet {
            minimum: p.settings.min_spend.unwrap_or(0),
            subtotal: price.subtotal,
            currency: price.currency.clone(),
        },
        reason => BookingRefusal::InvalidPromotion { reason },
    }
}

#[operations]
impl Repo {
    /// Applies a promotion code to a hold: checks it (rule 5 of spec Part A 4.7), stacks it
    /// with the booking's other promotions, takes one use of it and re-prices the booking.
    /// Applying a code the booking already has changes nothing.
    pub async fn apply_promotion(
        &self,
        tenant: &TenantId,
        booking: Uuid,
        code: &str,
        expected_hash: Option<&str>,
        actor: &Actor,
        now: Timestamp,
    ) -> Result<PromotionApplied, BookingError> {
        let mut w = self.begin(tenant, now).await?;
        let result = apply_promotion(&mut w, booking, code, expected_hash, actor).await;
        w.finish(result, None).await
    }

    /// Takes a promotion code off a hold: its use is released and the booking re-priced.
    pub async fn remove_promotion(
        &self,
        tenant: &TenantId,
        booking: Uuid,
        code: &str,
        expected_hash: Option<&str>,
        actor: &Actor,
        now: Timestamp,
    ) -> Result<Booking, BookingError> {
        let mut w = self.begin(tenant, now).await?;
        let result = remove_promotion(&mut w, booking, code, expected_hash, actor).await;
        w.finish(result, None).await
    }

    /// Applies a voucher to a hold (rule 6 of spec Part A 4.7): the smaller of its balance
    /// and what is left to pay comes off its balance, with a ledger entry. Applying the
    /// same voucher to the same booking again answers the first application.
    pub async fn apply_voucher(
        &self,
        tenant: &TenantId,
        booking: Uuid,
        code: &str,
        expected_hash: Option<&str>,
        actor: &Actor,
        now: Timestamp,
    ) -> Result<VoucherApplied, BookingError> {
        let mut w = self.begin(tenant, now).await?;
        let result = apply_voucher(&mut w, booking, code, expected_hash, actor).await;
        w.finish(result, None).await
    }
}

async fn apply_promotion(
    w: &mut Write,
    booking: Uuid,
    code: &str,
    expected_hash: Option<&str>,
    actor: &Actor,
) -> Result<PromotionApplied, BookingError> {
    let mut b = live_hold(w, booking, actor).await?;
    let (price, mut reductions) = checked_price(w, &b, expected_hash).await?;
    let promotion =
        promotion_for_update(w, code)
            .await?
            .ok_or(BookingRefusal::InvalidPromotion {
                reason: Ineligible::NotFound,
            })?;
    let applied = |b: Booking, price: &PriceBreakdown, at: Timestamp, recalculated: bool| {
        let amount = price
            .discounts
            .iter()
            .find(|d| d.promotion_id == promotion.id)
            .map_or(0, |d| d.discount_applied);
        PromotionApplied {
            booking: b,
            promotion_id: promotion.id,
            code: promotion.settings.code.clone(),
            name: promotion.settings.name.clone(),
            promotion_type: promotion.promotion_type(),
            discount_amount: amount,
            applied_at: at,
            recalculated,
            hash_validated: expected_hash.is_some(),
        }
    };
    if let Some(existing) = reductions
        .promotions
        .iter()
        .find(|p| p.promotion_id == promotion.id)
    {
        let at = existing.applied_at;
        let price = b.price.clone();
        return Ok(applied(b, &price, at, false));
    }
    let key = customer_key(&b);
    let customer_uses = if key.is_empty() {
        None
    } else {
        let uses: i64 = sqlx::query_scalar(
            "SELECT COUNT(*) FROM promotion_usages
             WHERE tenant_id = $1 AND promotion_id = $2 AND customer_key = $3
               AND status <> 'released'",
        )
        .bind(w.tenant.as_str())
        .bind(promotion.id)
        .bind(&key)
        .fetch_one(&mut *w.tx)
        .await?;
        Some(uses)
    };
    let context = Context {
        now: w.now,
        site: Some(b.site_id),
        product: Some(b.product_id),
        subtotal: Some(price.subtotal),
        customer_uses,
    };
    eligibility(&promotion.rules(), &context)
        .map_err(|reason| refusal(&promotion, reason, &price))?;
    let usage_id = new_id();
    reductions.promotions.push(AppliedPromotion {
        usage_id,
        promotion_id: promotion.id,
        code: promotion.settings.code.clone(),
        name: promotion.settings.name.clone(),
        discount: promotion.settings.discount,
        is_stackable: promotion.settings.is_stackable,
        applied_at: w.now,
    });
    let new_price = current_price(w, &b, &reductions).await?;
    if new_price.discounts.len() < reductions.promotions.len() {
        let stopper = new_price
            .stacking
            .as_ref()
            .and_then(|s| s.stopped_by.as_deref())
            .and_then(|id| {
                reductions
                    .promotions
                    .iter()
                    .find(|p| p.promotion_id.to_string() == id)
            });
        let conflicts_with = match stopper {
            Some(p) if p.promotion_id != promotion.id => p.code.clone(),
            _ => reductions
                .promotions
                .iter()
                .filter(|p| p.promotion_id != promotion.id)
                .map(|p| p.code.clone())
                .collect::<Vec<_>>()
                .join(", "),
        };
        return Err(BookingRefusal::StackingViolation {
            code: promotion.settings.code.clone(),
            conflicts_with,
        }
        .into());
    }
    // The use: one conditional statement, so the limit holds whatever runs alongside.
    let taken = sqlx::query(
        "UPDATE promotions SET usage_count = usage_count + 1
         WHERE tenant_id = $1 AND id = $2 AND (usage_limit IS NULL OR usage_count < usage_limit)",
    )
    .bind(w.tenant.as_str())
    .bind(promotion.id)
    .execute(&mut *w.tx)
    .await?;
    if taken.rows_affected() != 1 {
        return Err(refusal(&promotion, Ineligible::UsageLimitReached, &price).into());
    }
    sqlx::query(
        "INSERT INTO promotion_usages (tenant_id, id, promotion_id, booking_id, customer_key,
             status, code, name, discount, is_stackable, discount_amount, applied_at)
         VALUES ($1, $2, $3, $4, $5, 'held', $6, $7, $8, $9, 0, $10)",
    )
    .bind(w.tenant.as_str())
    .bind(usage_id)
    .bind(promotion.id)
    .bind(b.id)
    .bind(&key)
    .bind(&promotion.settings.code)
    .bind(&promotion.settings.name)
    .bind(Json(&promotion.settings.discount))
    .bind(promotion.settings.is_stackable)
    .bind(w.now)
    .execute(&mut *w.tx)
    .await?;
    let before = (price.total, price.pricing_hash.clone());
    store_price(w, &mut b, new_price, &reductions).await?;
    w.audit(
        actor,
        Change {
            action: "booking.promotion_applied",
            entity_type: "booking",
            entity_id: b.id.to_string(),
            changes: json!({
                "promotionId": promotion.id,
                "code": promotion.settings.code,
                "total": {"from": before.0, "to": b.price.total},
                "pricingHash": {"from": before.1, "to": b.price.pricing_hash},
            }),
        },
    );
    let price = b.price.clone();
    let now = w.now;
    Ok(applied(b, &price, now, true))
}

async fn remove_promotion(
    w: &mut Write,
    booking: Uuid,
    code: &str,
    expected_hash: Option<&str>,
    actor: &Actor,
) -> Result<Booking, BookingError> {
    let mut b = live_hold(w, booking, actor).await?;
    let (price, mut reductions) = checked_price(w, &b, expected_hash).await?;
    let key = code_key(code);
    let Some(i) = reductions
        .promotions
        .iter()
        .position(|p| code_key(&p.code) == key)
    else {
        return Err(BookingRefusal::PromotionNotApplied {
            code: code.trim().to_owned(),
        }
        .into());
    };
    let removed = reductions.promotions.remove(i);
    release_use(w, removed.usage_id, removed.promotion_id).await?;
    let new_price = current_price(w, &b, &reductions).await?;
    store_price(w, &mut b, new_price, &reductions).await?;
    w.audit(
        actor,
        Change {
            action: "booking.promotion_removed",
            entity_type: "booking",
            entity_id: b.id.to_string(),
            changes: json!({
                "promotionId": removed.promotion_id,
                "code": removed.code,
                "total": {"from": price.total, "to": b.price.total},
            }),
        },
    );
    Ok(b)
}

#[derive(sqlx::FromRow)]
struct VoucherState {
    id: Uuid,
    code: String,
    voucher_type: String,
    current_balance: i64,
    usage_limit: Option<i32>,
    usage_count: i32,
    expires_at: Option<Timestamp>,
    is_active: bool,
}

async fn apply_voucher(
    w: &mut Write,
    booking: Uuid,
    code: &str,
    expected_hash: Option<&str>,
    actor: &Actor,
) -> Result<VoucherApplied, BookingError> {
    let mut b = live_hold(w, booking, actor).await?;
    let (price, mut reductions) = checked_price(w, &b, expected_hash).await?;
    let voucher: VoucherState = sqlx::query_as(&format!(
        "SELECT id, code, voucher_type, current_balance, usage_limit, usage_count, expires_at,
                is_active
         FROM vouchers WHERE tenant_id = $1 AND code_key = $2{}",
        super::dialect::FOR_UPDATE
    ))
    .bind(w.tenant.as_str())
    .bind(code_key(code))
    .fetch_optional(&mut *w.tx)
    .await?
    .ok_or(BookingRefusal::VoucherNotFound)?;
    let voucher_type = stored("voucher_type", &voucher.voucher_type, VoucherType::parse)?;
    if reductions
        .vouchers
        .iter()
        .any(|v| v.voucher_id == voucher.id)
    {
        // The first application's result, from its ledger entry.
        let (amount, balance_after, at): (i64, i64, Timestamp) = sqlx::query_as(
            "SELECT amount, balance_after, created_at FROM voucher_transactions
             WHERE tenant_id = $1 AND voucher_id = $2 AND booking_id = $3 AND kind = 'redeem'
             ORDER BY created_at DESC, id DESC LIMIT 1",
        )
        .bind(w.tenant.as_str())
        .bind(voucher.id)
        .bind(b.id)
        .fetch_one(&mut *w.tx)
        .await?;
        return Ok(VoucherApplied {
            booking: b,
            voucher_id: voucher.id,
            code: voucher.code,
            voucher_type,
            applied_amount: -amount,
            balance_before: balance_after - amount,
            balance_after,
            applied_at: at,
            recalculated: false,
            hash_validated: expected_hash.is_some(),
        });
    }
    if !voucher.is_active {
        return Err(BookingRefusal::VoucherUnusable { reason: "inactive" }.into());
    }
    if voucher.expires_at.is_some_and(|t| t <= w.now) {
        return Err(BookingRefusal::VoucherUnusable { reason: "expired" }.into());
    }
    if voucher
        .usage_limit
        .is_some_and(|limit| voucher.usage_count >= limit)
    {
        return Err(BookingRefusal::VoucherUnusable {
            reason: "usage_limit_reached",
        }
        .into());
    }
    if voucher.current_balance <= 0 {
        return Err(BookingRefusal::InsufficientFunds {
            balance: voucher.current_balance,
            currency: price.currency,
        }
        .into());
    }
    if price.total <= 0 {
        return Err(BookingRefusal::NothingToPay.into());
    }
    let amount = voucher.current_balance.min(price.total);
    // The decrement is conditional: the balance never goes below zero, whatever runs
    // alongside (the CHECK constraint says so too).
    let balance_after: Option<i64> = sqlx::query_scalar(
        "UPDATE vouchers SET current_balance = current_balance - $3,
             usage_count = usage_count + 1, updated_at = $4
         WHERE tenant_id = $1 AND id = $2 AND current_balance >= $3
           AND (usage_limit IS NULL OR usage_count < usage_limit)
         RETURNING current_balance",
    )
    .bind(w.tenant.as_str())
    .bind(voucher.id)
    .bind(amount)
    .bind(w.now)
    .fetch_optional(&mut *w.tx)
    .await?;
    let Some(balance_after) = balance_after else {
        return Err(BookingRefusal::InsufficientFunds {
            balance: voucher.current_balance,
            currency: price.currency,
        }
        .into());
    };
    insert_entry(w, voucher.id, b.id, "redeem", -amount, balance_after).await?;
    reductions.vouchers.push(AppliedVoucher {
        voucher_id: voucher.id,
        code: voucher.code.clone(),
        amount,
    });
    let new_price = current_price(w, &b, &reductions).await?;
    store_price(w, &mut b, new_price, &reductions).await?;
    w.audit(
        actor,
        Change {
            action: "booking.voucher_applied",
            entity_type: "booking",
            entity_id: b.id.to_string(),
            changes: json!({
                "voucherId": voucher.id,
                "amount": amount,
                "total": {"from": price.total, "to": b.price.total},
            }),
        },
    );
    Ok(VoucherApplied {
        booking: b,
        voucher_id: voucher.id,
        code: voucher.code,
        voucher_type,
        applied_amount: amount,
        balance_before: balance_after + amount,
        balance_after,
        applied_at: w.now,
        recalculated: true,
        hash_validated: expected_hash.is_some(),
    })
}

/// Reads for the invariant checks of the tests and the bench.
#[operations]
impl Repo {
    /// Promotions whose usage count differs from their live use records:
    /// (promotion id, usage_count, live uses). Empty when the invariant holds.
    pub async fn promotion_usage_mismatches(
        &self,
        tenant: &TenantId,
    ) -> StoreResult<Vec<(Uuid, i64, i64)>> {
        Ok(sqlx::query_as(
            "SELECT p.id, CAST(p.usage_count AS BIGINT),
                    CAST((SELECT COUNT(*) FROM promotion_usages u
                          WHERE u.tenant_id = p.tenant_id AND u.promotion_id = p.id
                            AND u.status <> 'released') AS BIGINT)
             FROM promotions p WHERE p.tenant_id = $1
               AND p.usage_count <> (SELECT COUNT(*) FROM promotion_usages u
                          WHERE u.tenant_id = p.tenant_id AND u.promotion_id = p.id
                            AND u.status <> 'released')",
        )
        .bind(tenant.as_str())
        .fetch_all(&self.read)
        .await?)
    }

    /// Vouchers whose balance differs from their ledger: (voucher id, balance, ledger sum).
    /// Empty when every balance equals its original value plus its later entries.
    pub async fn voucher_ledger_mismatches(
        &self,
        tenant: &TenantId,
    ) -> StoreResult<Vec<(Uuid, i64, i64)>> {
        Ok(sqlx::query_as(
            "SELECT v.id, v.current_balance,
                    CAST((SELECT COALESCE(SUM(t.amount), 0) FROM voucher_transactions t
                          WHERE t.tenant_id = v.tenant_id AND t.voucher_id = v.id) AS BIGINT)
             FROM vouchers v WHERE v.tenant_id = $1
               AND v.current_balance <> (SELECT COALESCE(SUM(t.amount), 0)
                          FROM voucher_transactions t
                          WHERE t.tenant_id = v.tenant_id AND t.voucher_id = v.id)",
        )
        .bind(tenant.as_str())
        .fetch_all(&self.read)
        .await?)
    }
}
