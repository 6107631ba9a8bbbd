//! Promotion codes and vouchers on a held group (spec Part A 4.7 on the group's total).
//!
//! A code is checked once against the group: its validity, its usage limits (the group is
//! one use, and one use of its customer), its minimum spend against the group's subtotal.
//! It discounts the group's bookings its sites and products allow; a fixed amount (and a
//! percentage's cap) is split over them in proportion to their subtotals, so the group gets
//! exactly the discount one booking of the same total would. Each booking keeps its part as
//! a use of its own, stacked with its other codes and released with it (the promotion's
//! count goes back when the last booking of the group lets it go).
//!
//! A voucher pays the group's bookings in id order, each up to what is left to pay, as one
//! use of the voucher; each booking's part is a ledger entry of its own, so an expired or
//! cancelled booking gives its part back.

use super::super::Repo;
use super::super::actions::current_price;
use super::super::reductions::{
    checked_price, customer_key, customer_uses, insert_entry, insert_use, live_hold,
    load_reductions, promotion_for_update, refusal_at, release_use, store_price, take_use,
    voucher_for_update,
};
use super::confirm::open_group_payment;
use super::{GroupError, Write, audit, lock, read};
use crate::{
    Actor, AppliedPromotion, AppliedVoucher, Booking, BookingGroup, BookingRefusal,
    GroupPromotionApplied, GroupVoucherApplied, PriceBreakdown, Reductions, Timestamp, stored,
};
use kairos_domain::TenantId;
use kairos_domain::booking_groups::{GroupStatus, allocate};
use kairos_domain::bookings::BookingStatus;
use kairos_domain::new_id;
use kairos_domain::promotions::{
    Cart, Context, Discount, Ineligible, Promotion, eligibility, stack,
};
use kairos_domain::vouchers::VoucherType;
use kairos_store_macros::operations;
use serde_json::json;
use sqlx::types::Json;
use uuid::Uuid;

/// One held booking of the group, locked, with its price and reductions now.
pub(super) struct Priced {
    pub(super) booking: Booking,
    pub(super) price: PriceBreakdown,
    pub(super) reductions: Reductions,
}

/// The locked group, which must be held with no payment under way, and its held bookings
/// (locked in id order, the order every group write takes them), each priced now.
pub(super) async fn held_group(
    w: &mut Write,
    id: Uuid,
    actor: &Actor,
) -> Result<(BookingGroup, Vec<Priced>), GroupError> {
    let group = lock(w, id).await?;
    match group.status(w.now) {
        GroupStatus::Hold => {}
        GroupStatus::Expired => return Err(BookingRefusal::HoldExpired.into()),
        other => return Err(GroupError::NotHeld(other)),
    }
    if open_group_payment(w, group.id).await?.is_some() {
        return Err(GroupError::PaymentUnderWay);
    }
    let mut ids: Vec<Uuid> = group
        .bookings
        .iter()
        .filter(|c| c.status == BookingStatus::Hold)
        .map(|c| c.booking_id)
        .collect();
    ids.sort();
    let mut held = Vec::with_capacity(ids.len());
    for id in ids {
        let booking = live_hold(w, id, actor).await?;
        let (price, reductions) = checked_price(w, &booking, None).await?;
        held.push(Priced {
            booking,
            price,
            reductions,
        });
    }
    if held.is_empty() {
        return Err(GroupError::NotHeld(group.status(w.now)));
    }
    Ok((group, held))
}

/// Each in-scope booking's part of `discount`, given what each has left to discount
/// (`left`: its subtotal less the codes already on it). A fixed amount or a percentage is
/// worked out once on the group's total left, as on one cart (its cap included), and
/// split over them in proportion to what each has left by the largest remainder, so the
/// parts sum to it exactly. A percentage's part stays a percentage (all of the booking's
/// price, capped at its part) so that the booking's codes keep stacking in the canonical
/// order. A per-person discount is each booking's own.
fn parts(discount: Discount, party: i32, left: &[i64]) -> Vec<Discount> {
    let whole = |d: Discount| {
        let cart = Cart {
            subtotal: left.iter().sum(),
            party_size: u32::try_from(party).unwrap_or(0),
            unit_price: None,
            places: &[],
        };
        let promotion = Promotion {
            id: String::new(),
            code: String::new(),
            discount: d,
            stackable: true,
        };
        stack(&cart, &[promotion]).total_discount
    };
    match discount {
        Discount::FixedAmount { .. } => allocate(whole(discount), left)
            .into_iter()
            .map(|amount| Discount::FixedAmount { amount })
            .collect(),
        Discount::Percentage { .. } => allocate(whole(discount), left)
            .into_iter()
            .map(|part| Discount::Percentage {
                basis_points: 10_000,
                cap: Some(part),
            })
            .collect(),
        other => vec![other; left.len()],
    }
}

/// Refuses a code that would combine with a non-stackable one anywhere on the group (or a
/// non-stackable code beside any other), whichever activities each covers.
fn check_stacking(held: &[Priced], code: &str, stackable: bool) -> Result<(), GroupError> {
    let mut conflicting: Vec<String> = held
        .iter()
        .flat_map(|h| h.reductions.promotions.iter())
        .filter(|p| !stackable || !p.is_stackable)
        .map(|p| p.code.clone())
        .collect();
    if conflicting.is_empty() {
        return Ok(());
    }
    conflicting.sort();
    conflicting.dedup();
    Err(BookingRefusal::StackingViolation {
        code: code.to_owned(),
        conflicts_with: conflicting.join(", "),
    }
    .into())
}

/// After the group's prices went down (a code applied), what its vouchers gave back is
/// poured into what its other bookings still owe, in id order, so that no voucher keeps a
/// balance while the group pays the rest otherwise.
async fn repour_vouchers(w: &mut Write, held: &mut [Priced]) -> Result<(), GroupError> {
    let mut vouchers: Vec<Uuid> = held
        .iter()
        .flat_map(|h| h.reductions.vouchers.iter().map(|v| v.voucher_id))
        .collect();
    vouchers.sort();
    vouchers.dedup();
    for voucher in vouchers {
        let balance: Option<i64> = sqlx::query_scalar(sql!(
            "SELECT current_balance FROM vouchers WHERE tenant_id = $1 AND id = $2{}",
            super::super::dialect::FOR_UPDATE
        ))
        .bind(w.tenant.as_str())
        .bind(voucher)
        .fetch_optional(&mut *w.tx)
        .await?;
        let Some(mut balance) = balance else { continue };
        for h in held.iter_mut() {
            if balance <= 0 {
                break;
            }
            h.reductions = load_reductions(&mut w.tx, &w.tenant, h.booking.id).await?;
            let amount = balance.min(h.booking.price.total);
            if amount <= 0 {
                continue;
            }
            balance = redeem(w, h, voucher, amount, false).await?;
        }
    }
    Ok(())
}

/// Takes `amount` off the voucher's balance for the held booking `h` (a ledger entry; the
/// first booking of the group it pays counts as the voucher's use) and re-prices the
/// booking. Returns the balance after; refuses when the balance does not cover `amount`.
async fn redeem(
    w: &mut Write,
    h: &mut Priced,
    voucher: Uuid,
    amount: i64,
    first: bool,
) -> Result<i64, GroupError> {
    // Conditional: the balance never goes below zero, and the group is one use.
    let after: Option<i64> = sqlx::query_scalar(
        "UPDATE vouchers SET current_balance = current_balance - $3,
             usage_count = usage_count + CASE WHEN $5 THEN 1 ELSE 0 END, updated_at = $4
         WHERE tenant_id = $1 AND id = $2 AND current_balance >= $3
           AND (NOT $5 OR usage_limit IS NULL OR usage_count < usage_limit)
         RETURNING current_balance",
    )
    .bind(w.tenant.as_str())
    .bind(voucher)
    .bind(amount)
    .bind(w.now)
    .bind(first)
    .fetch_optional(&mut *w.tx)
    .await?;
    let Some(after) = after else {
        return Err(BookingRefusal::InsufficientFunds {
            balance: 0,
            currency: h.price.currency.clone(),
        }
        .into());
    };
    insert_entry(w, voucher, h.booking.id, "redeem", -amount, after).await?;
    match h
        .reductions
        .vouchers
        .iter_mut()
        .find(|v| v.voucher_id == voucher)
    {
        Some(v) => v.amount += amount,
        None => {
            let code: String =
                sqlx::query_scalar("SELECT code FROM vouchers WHERE tenant_id = $1 AND id = $2")
                    .bind(w.tenant.as_str())
                    .bind(voucher)
                    .fetch_one(&mut *w.tx)
                    .await?;
            h.reductions.vouchers.push(AppliedVoucher {
                voucher_id: voucher,
                code,
                amount,
            });
        }
    }
    let price = current_price(w, &h.booking, &h.reductions).await?;
    store_price(w, &mut h.booking, price, &h.reductions).await?;
    Ok(after)
}

/// What the promotion takes off the group's bookings now.
fn discount_of(held: &[Priced], promotion: Uuid) -> i64 {
    held.iter()
        .flat_map(|h| h.booking.price.discounts.iter())
        .filter(|d| d.promotion_id == promotion)
        .map(|d| d.discount_applied)
        .sum()
}

pub(super) async fn apply_promotion(
    w: &mut Write,
    id: Uuid,
    code: &str,
    actor: &Actor,
) -> Result<GroupPromotionApplied, GroupError> {
    let (group, mut held) = held_group(w, id, actor).await?;
    let key = super::super::super::promotions::code_key(code);
    // A repeat answers the first application (spec Part A 4.7 rule 6), before any check.
    let first = held.iter().find_map(|h| {
        h.reductions
            .promotions
            .iter()
            .find(|p| super::super::super::promotions::code_key(&p.code) == key)
            .cloned()
    });
    if let Some(first) = first {
        for h in &mut held {
            h.booking.price = h.price.clone();
        }
        let discount_amount = discount_of(&held, first.promotion_id);
        return Ok(GroupPromotionApplied {
            group: reread(w, group.id).await?,
            promotion_id: first.promotion_id,
            code: first.code,
            name: first.name,
            promotion_type: first.discount.promotion_type(),
            discount_amount,
            applied_at: first.applied_at,
        });
    }
    let promotion =
        promotion_for_update(w, code)
            .await?
            .ok_or(BookingRefusal::InvalidPromotion {
                reason: Ineligible::NotFound,
            })?;
    let subtotal: i64 = held.iter().map(|h| h.price.subtotal).sum();
    let currency = held[0].price.currency.clone();
    let customer = customer_key(&held[0].booking);
    let context = Context {
        now: w.now,
        site: None,
        product: None,
        subtotal: Some(subtotal),
        customer_uses: customer_uses(w, promotion.id, &customer).await?,
    };
    let rules = promotion.rules();
    eligibility(&rules, &context)
        .map_err(|reason| refusal_at(&promotion, reason, subtotal, &currency))?;
    // The bookings its sites and products allow.
    let mut in_scope = Vec::new();
    let mut out_of_scope = None;
    for (i, h) in held.iter().enumerate() {
        let scope = Context {
            now: w.now,
            site: Some(h.booking.site_id),
            product: Some(h.booking.product_id),
            subtotal: None,
            customer_uses: None,
        };
        match eligibility(&rules, &scope) {
            Ok(()) => in_scope.push(i),
            Err(reason) => out_of_scope = out_of_scope.or(Some(reason)),
        }
    }
    if in_scope.is_empty() {
        let reason = out_of_scope.unwrap_or(Ineligible::NotApplicableProduct);
        return Err(BookingRefusal::InvalidPromotion { reason }.into());
    }
    check_stacking(
        &held,
        &promotion.settings.code,
        promotion.settings.is_stackable,
    )?;
    let left: Vec<i64> = in_scope
        .iter()
        .map(|&i| held[i].price.subtotal - held[i].price.promotion_discount)
        .collect();
    let discounts = parts(promotion.settings.discount, group.party_size, &left);
    for (&i, discount) in in_scope.iter().zip(discounts) {
        let h = &mut held[i];
        let usage_id = new_id();
        h.reductions.promotions.push(AppliedPromotion {
            usage_id,
            promotion_id: promotion.id,
            code: promotion.settings.code.clone(),
            name: promotion.settings.name.clone(),
            discount,
            is_stackable: promotion.settings.is_stackable,
            applied_at: w.now,
        });
        let price = current_price(w, &h.booking, &h.reductions).await?;
        if price.discounts.len() < h.reductions.promotions.len() {
            let conflicts_with = h
                .reductions
                .promotions
                .iter()
                .filter(|p| p.promotion_id != promotion.id)
                .map(|p| p.code.clone())
                .collect::<Vec<_>>()
                .join(", ");
            return Err(BookingRefusal::StackingViolation {
                code: promotion.settings.code.clone(),
                conflicts_with,
            }
            .into());
        }
        insert_use(
            w,
            (usage_id, h.booking.id, &customer),
            &promotion,
            &discount,
        )
        .await?;
        store_price(w, &mut h.booking, price, &h.reductions).await?;
    }
    // One use for the group: one conditional statement, so the limit holds whatever runs
    // alongside.
    if !take_use(w, promotion.id).await? {
        return Err(refusal_at(
            &promotion,
            Ineligible::UsageLimitReached,
            subtotal,
            &currency,
        )
        .into());
    }
    repour_vouchers(w, &mut held).await?;
    let discount_amount = discount_of(&held, promotion.id);
    audit(
        w,
        actor,
        "booking_group.promotion_applied",
        group.id,
        json!({"promotionId": promotion.id, "code": promotion.settings.code,
               "discount": discount_amount}),
    );
    Ok(GroupPromotionApplied {
        group: reread(w, group.id).await?,
        promotion_id: promotion.id,
        code: promotion.settings.code.clone(),
        name: promotion.settings.name.clone(),
        promotion_type: promotion.promotion_type(),
        discount_amount,
        applied_at: w.now,
    })
}

pub(super) async fn remove_promotion(
    w: &mut Write,
    id: Uuid,
    code: &str,
    actor: &Actor,
) -> Result<BookingGroup, GroupError> {
    let (group, mut held) = held_group(w, id, actor).await?;
    let key = super::super::super::promotions::code_key(code);
    let mut removed = None;
    for h in &mut held {
        let Some(i) = h
            .reductions
            .promotions
            .iter()
            .position(|p| super::super::super::promotions::code_key(&p.code) == key)
        else {
            continue;
        };
        let applied = h.reductions.promotions.remove(i);
        release_use(w, applied.usage_id, applied.promotion_id).await?;
        let price = current_price(w, &h.booking, &h.reductions).await?;
        store_price(w, &mut h.booking, price, &h.reductions).await?;
        removed = Some(applied);
    }
    repour_vouchers(w, &mut held).await?;
    let Some(removed) = removed else {
        return Err(GroupError::CodeNotApplied(code.trim().to_owned()));
    };
    audit(
        w,
        actor,
        "booking_group.promotion_removed",
        group.id,
        json!({"promotionId": removed.promotion_id, "code": removed.code}),
    );
    reread(w, group.id).await
}

pub(super) async fn apply_voucher(
    w: &mut Write,
    id: Uuid,
    code: &str,
    actor: &Actor,
) -> Result<GroupVoucherApplied, GroupError> {
    let (group, mut held) = held_group(w, id, actor).await?;
    let voucher = voucher_for_update(w, code).await?;
    let voucher_type = stored("voucher_type", &voucher.voucher_type, VoucherType::parse)
        .map_err(crate::BookingError::from)?;
    // A repeat answers the first application (spec Part A 4.7 rule 6), as its audit entry
    // recorded it (the voucher may have paid more since, after a code lowered the price).
    if held.iter().any(|h| {
        h.reductions
            .vouchers
            .iter()
            .any(|v| v.voucher_id == voucher.id)
    }) {
        let recorded: Vec<(Json<serde_json::Value>, Timestamp)> = sqlx::query_as(
            "SELECT changes, occurred_at FROM audit_log
             WHERE tenant_id = $1 AND entity_type = 'booking_group' AND entity_id = $2
               AND action = 'booking_group.voucher_applied'
             ORDER BY occurred_at, id",
        )
        .bind(w.tenant.as_str())
        .bind(group.id.to_string())
        .fetch_all(&mut *w.tx)
        .await?;
        let voucher_id = voucher.id.to_string();
        let first = recorded
            .iter()
            .find(|(c, _)| c.0["voucherId"].as_str() == Some(voucher_id.as_str()));
        let figure = |key: &str| first.and_then(|(c, _)| c.0[key].as_i64()).unwrap_or(0);
        return Ok(GroupVoucherApplied {
            group: reread(w, group.id).await?,
            voucher_id: voucher.id,
            code: voucher.code,
            voucher_type,
            applied_amount: figure("amount"),
            balance_before: figure("balanceBefore"),
            balance_after: figure("balanceAfter"),
            applied_at: first.map_or(w.now, |(_, at)| *at),
        });
    }
    let currency = held[0].price.currency.clone();
    voucher.usable(w.now, &currency)?;
    let to_pay: i64 = held.iter().map(|h| h.price.total).sum();
    if to_pay <= 0 {
        return Err(GroupError::NothingToPay);
    }
    let mut balance = voucher.current_balance;
    let mut first = true;
    for h in &mut held {
        let amount = balance.min(h.price.total);
        if amount <= 0 {
            continue;
        }
        balance = redeem(w, h, voucher.id, amount, first).await?;
        first = false;
    }
    let applied = voucher.current_balance - balance;
    audit(
        w,
        actor,
        "booking_group.voucher_applied",
        group.id,
        json!({"voucherId": voucher.id, "amount": applied,
               "balanceBefore": voucher.current_balance, "balanceAfter": balance}),
    );
    Ok(GroupVoucherApplied {
        group: reread(w, group.id).await?,
        voucher_id: voucher.id,
        code: voucher.code,
        voucher_type,
        applied_amount: applied,
        balance_before: voucher.current_balance,
        balance_after: balance,
        applied_at: w.now,
    })
}

async fn reread(w: &mut Write, id: Uuid) -> Result<BookingGroup, GroupError> {
    read(&mut w.tx, &w.tenant, id, false)
        .await?
        .ok_or(GroupError::NotFound)
}

#[operations]
impl Repo {
    /// Applies a promotion code to a held group's total (see the module's documentation).
    pub async fn apply_group_promotion(
        &self,
        tenant: &TenantId,
        group: Uuid,
        code: &str,
        actor: &Actor,
        now: Timestamp,
    ) -> Result<GroupPromotionApplied, GroupError> {
        let mut w = self.begin(tenant, now).await?;
        let result = apply_promotion(&mut w, group, code, actor).await;
        w.finish(result, None).await
    }

    /// Takes a promotion code off a held group: each booking's use is released (the
    /// promotion's count once) and the bookings re-priced.
    pub async fn remove_group_promotion(
        &self,
        tenant: &TenantId,
        group: Uuid,
        code: &str,
        actor: &Actor,
        now: Timestamp,
    ) -> Result<BookingGroup, GroupError> {
        let mut w = self.begin(tenant, now).await?;
        let result = remove_promotion(&mut w, group, code, actor).await;
        w.finish(result, None).await
    }

    /// Pays part or all of a held group with a voucher (see the module's documentation).
    pub async fn apply_group_voucher(
        &self,
        tenant: &TenantId,
        group: Uuid,
        code: &str,
        actor: &Actor,
        now: Timestamp,
    ) -> Result<GroupVoucherApplied, GroupError> {
        let mut w = self.begin(tenant, now).await?;
        let result = apply_voucher(&mut w, group, code, actor).await;
        w.finish(result, None).await
    }
}
