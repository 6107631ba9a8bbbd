//! Vouchers paying for a hold.

use super::super::super::promotions::code_key;
use super::super::actions::{current_price, refuse_held_in_group};
use super::super::{Change, Repo, Write};
use super::{checked_price, insert_entry, live_hold, load_reductions, store_price};
use crate::{
    Actor, AppliedVoucher, BookingError, BookingRefusal, Timestamp, VoucherApplied, stored,
};
use kairos_domain::TenantId;
use kairos_domain::vouchers::VoucherType;
use kairos_store_macros::operations;
use serde_json::json;
use uuid::Uuid;

#[operations]
impl Repo {
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

/// The voucher a typed code names, locked for the rest of the transaction (PostgreSQL).
pub(in super::super) async fn voucher_for_update(
    w: &mut Write,
    code: &str,
) -> Result<VoucherState, BookingError> {
    let voucher: Option<VoucherState> = sqlx::query_as(sql!(
        "SELECT id, code, voucher_type, current_balance, usage_limit, usage_count, expires_at,
                is_active
         FROM vouchers WHERE tenant_id = $1 AND code_key = $2{}",
        super::super::dialect::FOR_UPDATE
    ))
    .bind(w.tenant.as_str())
    .bind(code_key(code))
    .fetch_optional(&mut *w.tx)
    .await?;
    voucher.ok_or_else(|| BookingRefusal::VoucherNotFound.into())
}

impl VoucherState {
    /// Refuses a voucher that cannot pay now: inactive, expired, used up, or empty.
    pub(in super::super) fn usable(
        &self,
        now: Timestamp,
        currency: &str,
    ) -> Result<(), BookingError> {
        if !self.is_active {
            return Err(BookingRefusal::VoucherUnusable { reason: "inactive" }.into());
        }
        if self.expires_at.is_some_and(|t| t <= now) {
            return Err(BookingRefusal::VoucherUnusable { reason: "expired" }.into());
        }
        if self
            .usage_limit
            .is_some_and(|limit| self.usage_count >= limit)
        {
            return Err(BookingRefusal::VoucherUnusable {
                reason: "usage_limit_reached",
            }
            .into());
        }
        if self.current_balance <= 0 {
            return Err(BookingRefusal::InsufficientFunds {
                balance: self.current_balance,
                currency: currency.to_owned(),
            }
            .into());
        }
        Ok(())
    }
}

#[derive(kairos_store_macros::FromRow)]
pub(in super::super) struct VoucherState {
    pub(in super::super) id: Uuid,
    pub(in super::super) code: String,
    pub(in super::super) voucher_type: String,
    pub(in super::super) current_balance: i64,
    pub(in super::super) usage_limit: Option<i32>,
    pub(in super::super) usage_count: i32,
    pub(in super::super) expires_at: Option<Timestamp>,
    pub(in super::super) is_active: bool,
}

async fn apply_voucher(
    w: &mut Write,
    booking: Uuid,
    code: &str,
    expected_hash: Option<&str>,
    actor: &Actor,
) -> Result<VoucherApplied, BookingError> {
    let mut b = live_hold(w, booking, actor).await?;
    refuse_held_in_group(w, &b).await?;
    let voucher = voucher_for_update(w, code).await?;
    let voucher_type = stored("voucher_type", &voucher.voucher_type, VoucherType::parse)?;
    // A repeat (the retry of a lost answer carries the hash the first one changed)
    // answers the first application before any price check (spec Part A 4.7 rule 6).
    if load_reductions(&mut w.tx, &w.tenant, b.id)
        .await?
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
            recalculated: true,
            hash_validated: expected_hash.is_some(),
        });
    }
    let (price, mut reductions) = checked_price(w, &b, expected_hash).await?;
    voucher.usable(w.now, &price.currency)?;
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
