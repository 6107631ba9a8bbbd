//! Applying and removing promotion codes on a hold.

use super::super::super::promotions::{PROMOTION_COLUMNS, PromotionRow, code_key};
use super::super::actions::{current_price, refuse_held_in_group};
use super::super::{Change, Repo, Write};
use super::{checked_price, customer_key, live_hold, load_reductions, release_use, store_price};
use crate::{
    Actor, AppliedPromotion, Booking, BookingError, BookingRefusal, PriceBreakdown, Promotion,
    PromotionApplied, StoreResult, Timestamp,
};
use kairos_domain::TenantId;
use kairos_domain::new_id;
use kairos_domain::promotions::{Context, Discount, Ineligible, eligibility};
use kairos_store_macros::operations;
use serde_json::json;
use sqlx::types::Json;
use uuid::Uuid;

/// The promotion a typed code names, locked for the rest of the transaction (PostgreSQL).
pub(in super::super) async fn promotion_for_update(
    w: &mut Write,
    code: &str,
) -> StoreResult<Option<Promotion>> {
    let row: Option<PromotionRow> = sqlx::query_as(sql!(
        "SELECT {PROMOTION_COLUMNS} FROM promotions
         WHERE tenant_id = $1 AND code_key = $2 AND deleted_at IS NULL{}",
        super::super::dialect::FOR_UPDATE
    ))
    .bind(w.tenant.as_str())
    .bind(code_key(code))
    .fetch_optional(&mut *w.tx)
    .await?;
    row.map(Promotion::try_from).transpose()
}

/// What refuses a promotion, as the booking flow answers it.
fn refusal(p: &Promotion, reason: Ineligible, price: &PriceBreakdown) -> BookingRefusal {
    refusal_at(p, reason, price.subtotal, &price.currency)
}

/// What refuses a promotion for a cart of `subtotal` (a booking's or a group's).
pub(in super::super) fn refusal_at(
    p: &Promotion,
    reason: Ineligible,
    subtotal: i64,
    currency: &str,
) -> BookingRefusal {
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
            subtotal,
            currency: currency.to_owned(),
        },
        reason => BookingRefusal::InvalidPromotion { reason },
    }
}

/// How many times the customer `key` has used the promotion (None for nobody): a group
/// counts once, whatever number of its bookings the code discounts.
pub(in super::super) async fn customer_uses(
    w: &mut Write,
    promotion: Uuid,
    key: &str,
) -> StoreResult<Option<i64>> {
    if key.is_empty() {
        return Ok(None);
    }
    let uses: i64 = sqlx::query_scalar(
        "SELECT COUNT(DISTINCT COALESCE(b.group_id, b.id)) FROM promotion_usages u
         JOIN bookings b ON b.tenant_id = u.tenant_id AND b.id = u.booking_id
         WHERE u.tenant_id = $1 AND u.promotion_id = $2 AND u.customer_key = $3
           AND u.status <> 'released'",
    )
    .bind(w.tenant.as_str())
    .bind(promotion)
    .bind(key)
    .fetch_one(&mut *w.tx)
    .await?;
    Ok(Some(uses))
}

/// Takes one use of the promotion: one conditional statement, so the limit holds whatever
/// runs alongside. False when the limit is reached.
pub(in super::super) async fn take_use(w: &mut Write, promotion: Uuid) -> StoreResult<bool> {
    let taken = sqlx::query(
        "UPDATE promotions SET usage_count = usage_count + 1
         WHERE tenant_id = $1 AND id = $2 AND (usage_limit IS NULL OR usage_count < usage_limit)",
    )
    .bind(w.tenant.as_str())
    .bind(promotion)
    .execute(&mut *w.tx)
    .await?;
    Ok(taken.rows_affected() == 1)
}

/// Records a held use of `promotion` by `booking` for the customer `key`, discounting
/// `discount` (the promotion's, or a booking's part of a group's).
pub(in super::super) async fn insert_use(
    w: &mut Write,
    (usage, booking, key): (Uuid, Uuid, &str),
    promotion: &Promotion,
    discount: &Discount,
) -> StoreResult<()> {
    sqlx::query(
        "INSERT INTO promotion_usages (tenant_id, id, promotion_id, booking_id, customer_key,
             status, code, name, discount, is_stackable, discount_amount, applied_at)
         VALUES ($1, $2, $3, $4, $5, 'held', $6, $7, $8, $9, 0, $10)",
    )
    .bind(w.tenant.as_str())
    .bind(usage)
    .bind(promotion.id)
    .bind(booking)
    .bind(key)
    .bind(&promotion.settings.code)
    .bind(&promotion.settings.name)
    .bind(Json(discount))
    .bind(promotion.settings.is_stackable)
    .bind(w.now)
    .execute(&mut *w.tx)
    .await?;
    Ok(())
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
}

async fn apply_promotion(
    w: &mut Write,
    booking: Uuid,
    code: &str,
    expected_hash: Option<&str>,
    actor: &Actor,
) -> Result<PromotionApplied, BookingError> {
    let mut b = live_hold(w, booking, actor).await?;
    refuse_held_in_group(w, &b).await?;
    // A repeat (the retry of a lost answer carries the hash the first one changed)
    // answers the first application, from the booking's own use of the code, before any
    // price check or any look at the promotion as it is now (edited, deleted, its code
    // reused): spec Part A 4.7 rule 6.
    if let Some(first) = load_reductions(&mut w.tx, &w.tenant, b.id)
        .await?
        .promotions
        .into_iter()
        .find(|p| code_key(&p.code) == code_key(code))
    {
        let discount_amount = b
            .price
            .discounts
            .iter()
            .find(|d| d.promotion_id == first.promotion_id)
            .map_or(0, |d| d.discount_applied);
        return Ok(PromotionApplied {
            booking: b,
            promotion_id: first.promotion_id,
            code: first.code,
            name: first.name,
            promotion_type: first.discount.promotion_type(),
            discount_amount,
            applied_at: first.applied_at,
            recalculated: true,
            hash_validated: expected_hash.is_some(),
        });
    }
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
    let (price, mut reductions) = checked_price(w, &b, expected_hash).await?;
    let key = customer_key(&b);
    let customer_uses = customer_uses(w, promotion.id, &key).await?;
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
    if !take_use(w, promotion.id).await? {
        return Err(refusal(&promotion, Ineligible::UsageLimitReached, &price).into());
    }
    insert_use(
        w,
        (usage_id, b.id, &key),
        &promotion,
        &promotion.settings.discount,
    )
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
    refuse_held_in_group(w, &b).await?;
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
