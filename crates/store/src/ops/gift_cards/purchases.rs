//! Gift card purchases (spec Part A 2.8, 3.2, 4.10, 6): recorded `pending` with the
//! product's value and validity read in the purchase's transaction; paid through the card
//! provider (one open payment per purchase, reused by every attempt); on the provider's
//! success, in the event's transaction, a `gift_card` voucher is issued, the purchase
//! becomes `paid` and the delivery email is queued for its delivery date; the email's
//! delivery makes it `delivered` (`ops/messaging/messages.rs`). Never paid by the payment
//! deadline: `cancelled`.

use super::super::Repo;
use super::super::audit::Change;
use super::super::dialect;
use super::super::payments::online::{COLUMNS as PAYMENT_COLUMNS, FROM as PAYMENT_FROM, OnlineRow};
use super::super::write::Write;
use super::paid::queue_delivery;
use super::products::product_in;
use crate::{
    Actor, GiftCardError, GiftCardPurchase, GiftCardPurchaseFilter, Idempotency,
    NewGiftCardPurchase, OnlinePayment, StoreError, StoreResult, Timestamp, Written, stored,
};
use kairos_domain::gift_cards::PurchaseStatus;
use kairos_domain::payments::PaymentStatus;
use kairos_domain::{TenantId, new_id};
use kairos_store_macros::operations;
use serde_json::json;
use sqlx::QueryBuilder;
use uuid::Uuid;

#[derive(kairos_store_macros::FromRow)]
struct PurchaseRow {
    id: Uuid,
    product_id: Uuid,
    product_name: String,
    site_id: Option<Uuid>,
    amount: i64,
    currency: String,
    validity_days: i32,
    status: String,
    purchaser_email: String,
    purchaser_name: Option<String>,
    purchaser_phone: Option<String>,
    recipient_email: String,
    recipient_name: Option<String>,
    personal_message: Option<String>,
    delivery_date: Option<Timestamp>,
    voucher_id: Option<Uuid>,
    voucher_code: Option<String>,
    voucher_expires_at: Option<Timestamp>,
    payment_status: Option<String>,
    delivery_message_id: Option<Uuid>,
    paid_at: Option<Timestamp>,
    delivered_at: Option<Timestamp>,
    created_at: Timestamp,
    updated_at: Timestamp,
}

const COLUMNS: &str = "g.id, g.product_id, pr.name AS product_name, g.site_id, g.amount, \
     g.currency, g.validity_days, g.status, g.purchaser_email, g.purchaser_name, \
     g.purchaser_phone, g.recipient_email, g.recipient_name, g.personal_message, \
     g.delivery_date, g.voucher_id, v.code AS voucher_code, v.expires_at AS voucher_expires_at, \
     (SELECT p.status FROM payments p WHERE p.tenant_id = g.tenant_id \
        AND p.gift_card_purchase_id = g.id ORDER BY p.created_at DESC, p.id DESC LIMIT 1) \
        AS payment_status, \
     g.delivery_message_id, g.paid_at, g.delivered_at, g.created_at, g.updated_at";

const FROM: &str = "gift_card_purchases g \
     JOIN gift_card_products pr ON pr.tenant_id = g.tenant_id AND pr.id = g.product_id \
     LEFT JOIN vouchers v ON v.tenant_id = g.tenant_id AND v.id = g.voucher_id";

impl TryFrom<PurchaseRow> for GiftCardPurchase {
    type Error = StoreError;

    fn try_from(r: PurchaseRow) -> Result<Self, StoreError> {
        Ok(GiftCardPurchase {
            id: r.id,
            product_id: r.product_id,
            product_name: r.product_name,
            site_id: r.site_id,
            amount: r.amount,
            currency: r.currency,
            validity_days: r.validity_days,
            status: stored("purchase status", &r.status, PurchaseStatus::parse)?,
            purchaser_email: r.purchaser_email,
            purchaser_name: r.purchaser_name,
            purchaser_phone: r.purchaser_phone,
            recipient_email: r.recipient_email,
            recipient_name: r.recipient_name,
            personal_message: r.personal_message,
            delivery_date: r.delivery_date,
            voucher_id: r.voucher_id,
            voucher_code: r.voucher_code,
            voucher_expires_at: r.voucher_expires_at,
            payment_status: r
                .payment_status
                .as_deref()
                .map(|s| stored("payment status", s, PaymentStatus::parse))
                .transpose()?,
            delivery_message_id: r.delivery_message_id,
            paid_at: r.paid_at,
            delivered_at: r.delivered_at,
            created_at: r.created_at,
            updated_at: r.updated_at,
        })
    }
}

/// The purchase `id` inside `w`, locked when `lock`.
pub(super) async fn purchase_in(
    w: &mut Write,
    id: Uuid,
    lock: bool,
) -> Result<Option<GiftCardPurchase>, StoreError> {
    if lock {
        // Lock the purchase row alone (the joined rows stay free).
        sqlx::query(sql!(
            "SELECT 1 FROM gift_card_purchases WHERE tenant_id = $1 AND id = $2{}",
            dialect::FOR_UPDATE
        ))
        .bind(w.tenant.as_str())
        .bind(id)
        .fetch_optional(&mut *w.tx)
        .await?;
    }
    let row: Option<PurchaseRow> = sqlx::query_as(sql!(
        "SELECT {COLUMNS} FROM {FROM} WHERE g.tenant_id = $1 AND g.id = $2"
    ))
    .bind(w.tenant.as_str())
    .bind(id)
    .fetch_optional(&mut *w.tx)
    .await?;
    row.map(GiftCardPurchase::try_from).transpose()
}

#[operations]
impl Repo {
    /// Records a purchase, `pending`: the product must be active, the amount within its
    /// range (its value and validity are read in this transaction and kept).
    pub async fn create_gift_card_purchase(
        &self,
        tenant: &TenantId,
        new: NewGiftCardPurchase,
        now: Timestamp,
        idem: Option<Idempotency<'_, GiftCardPurchase>>,
    ) -> Result<Written<GiftCardPurchase>, GiftCardError> {
        let mut w = self.begin(tenant, now).await?;
        if let Some(replay) = w.claim::<_, GiftCardError>(idem.as_ref()).await? {
            return Ok(Written::Replayed(replay));
        }
        let result = async {
            let product = product_in(&mut w, new.product_id)
                .await?
                .filter(|p| p.fields.is_active)
                .ok_or(GiftCardError::ProductNotFound)?;
            let amount = product
                .fields
                .purchase_amount(new.amount)
                .map_err(GiftCardError::InvalidAmount)?;
            let currency: String = sqlx::query_scalar("SELECT currency FROM tenants WHERE id = $1")
                .bind(tenant.as_str())
                .fetch_one(&mut *w.tx)
                .await?;
            let id = new_id();
            let purchaser = new.purchaser_email.trim().to_lowercase();
            let recipient = new
                .recipient_email
                .as_deref()
                .map_or_else(|| purchaser.clone(), |e| e.trim().to_lowercase());
            sqlx::query(
                "INSERT INTO gift_card_purchases (tenant_id, id, product_id, site_id, amount,
                     currency, validity_days, status, purchaser_email, purchaser_name,
                     purchaser_phone, recipient_email, recipient_name, personal_message,
                     delivery_date, created_at, updated_at)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, 'pending', $8, $9, $10, $11, $12, $13,
                         $14, $15, $15)",
            )
            .bind(tenant.as_str())
            .bind(id)
            .bind(product.id)
            .bind(product.fields.site_id)
            .bind(amount)
            .bind(&currency)
            .bind(product.fields.validity_days)
            .bind(&purchaser)
            .bind(&new.purchaser_name)
            .bind(&new.purchaser_phone)
            .bind(&recipient)
            .bind(&new.recipient_name)
            .bind(&new.personal_message)
            .bind(new.delivery_date)
            .bind(now)
            .execute(&mut *w.tx)
            .await?;
            w.audit(
                &Actor::system("gift card shop"),
                Change {
                    action: "gift_card.purchase_created",
                    entity_type: "gift_card_purchase",
                    entity_id: id.to_string(),
                    changes: json!({"productId": product.id, "amount": amount,
                        "currency": currency, "purchaserEmail": purchaser,
                        "recipientEmail": recipient, "deliveryDate": new.delivery_date}),
                },
            );
            purchase_in(&mut w, id, false)
                .await?
                .ok_or(GiftCardError::PurchaseNotFound)
        }
        .await;
        w.finish(result, idem.map(|i| i.render))
            .await
            .map(Written::Done)
    }

    /// A purchase of the tenant.
    pub async fn gift_card_purchase(
        &self,
        tenant: &TenantId,
        id: Uuid,
    ) -> StoreResult<Option<GiftCardPurchase>> {
        let row: Option<PurchaseRow> = sqlx::query_as(sql!(
            "SELECT {COLUMNS} FROM {FROM} WHERE g.tenant_id = $1 AND g.id = $2"
        ))
        .bind(tenant.as_str())
        .bind(id)
        .fetch_optional(&self.read)
        .await?;
        row.map(GiftCardPurchase::try_from).transpose()
    }

    /// The newest payment of a purchase.
    pub async fn gift_card_payment(
        &self,
        tenant: &TenantId,
        purchase: Uuid,
    ) -> StoreResult<Option<OnlinePayment>> {
        let row: Option<OnlineRow> = sqlx::query_as(sql!(
            "SELECT {PAYMENT_COLUMNS} FROM {PAYMENT_FROM}
             WHERE p.tenant_id = $1 AND p.gift_card_purchase_id = $2
             ORDER BY p.created_at DESC, p.id DESC LIMIT 1"
        ))
        .bind(tenant.as_str())
        .bind(purchase)
        .fetch_optional(&self.read)
        .await?;
        row.map(OnlinePayment::try_from).transpose()
    }

    /// One page of the tenant's purchases, newest first, and how many match.
    pub async fn list_gift_card_purchases(
        &self,
        tenant: &TenantId,
        filter: &GiftCardPurchaseFilter,
    ) -> StoreResult<(Vec<GiftCardPurchase>, i64)> {
        let conditions = |q: &mut QueryBuilder<super::super::Db>| {
            q.push(" WHERE g.tenant_id = ")
                .push_bind(tenant.as_str().to_owned());
            if let Some(status) = filter.status {
                q.push(" AND g.status = ").push_bind(status.as_str());
            }
            if let Some(email) = &filter.purchaser_email {
                q.push(" AND g.purchaser_email = ")
                    .push_bind(email.trim().to_lowercase());
            }
            if let Some(from) = filter.from {
                q.push(" AND g.created_at >= ").push_bind(from);
            }
            if let Some(to) = filter.to {
                q.push(" AND g.created_at < ").push_bind(to);
            }
        };
        let mut count = QueryBuilder::new("SELECT COUNT(*) FROM gift_card_purchases g");
        conditions(&mut count);
        let total: i64 = count.build_query_scalar().fetch_one(&self.read).await?;
        let mut q = QueryBuilder::new(format!("SELECT {COLUMNS} FROM {FROM}"));
        conditions(&mut q);
        let limit = i64::from(filter.limit.clamp(1, 100));
        let offset = i64::from(filter.page.max(1) - 1) * limit;
        q.push(" ORDER BY g.created_at DESC, g.id DESC LIMIT ")
            .push_bind(limit)
            .push(" OFFSET ")
            .push_bind(offset);
        let rows: Vec<PurchaseRow> = q.build_query_as().fetch_all(&self.read).await?;
        let items = rows
            .into_iter()
            .map(GiftCardPurchase::try_from)
            .collect::<Result<_, _>>()?;
        Ok((items, total))
    }

    /// The purchase's card payment to collect: its open one (a declined card is followed
    /// by another on the same payment), or a new PENDING one for the purchase's amount.
    /// The purchase becomes `pending` again after a decline.
    pub async fn open_gift_card_payment(
        &self,
        tenant: &TenantId,
        purchase: Uuid,
        now: Timestamp,
    ) -> Result<(GiftCardPurchase, OnlinePayment), GiftCardError> {
        let mut w = self.begin(tenant, now).await?;
        let p = purchase_in(&mut w, purchase, true)
            .await?
            .ok_or(GiftCardError::PurchaseNotFound)?;
        if p.status.is_paid() {
            return Err(GiftCardError::AlreadyPaid);
        }
        if p.status == PurchaseStatus::Cancelled {
            return Err(GiftCardError::PurchaseCancelled);
        }
        let open = format!(
            "SELECT {PAYMENT_COLUMNS} FROM {PAYMENT_FROM}
             WHERE p.tenant_id = $1 AND p.gift_card_purchase_id = $2
               AND p.status IN ('PENDING', 'AUTHORIZED', 'FAILED')
             ORDER BY p.created_at DESC, p.id DESC LIMIT 1"
        );
        let found: Option<OnlineRow> = sqlx::query_as(sqlx::AssertSqlSafe(open.as_str()))
            .bind(tenant.as_str())
            .bind(purchase)
            .fetch_optional(&mut *w.tx)
            .await?;
        if found.is_none() {
            sqlx::query(
                "INSERT INTO payments (tenant_id, id, booking_id, gift_card_purchase_id, amount,
                     currency, method, status, created_at, updated_at, provider)
                 VALUES ($1, $2, NULL, $3, $4, $5, 'cardpay', 'PENDING', $6, $6, 'cardpay')",
            )
            .bind(tenant.as_str())
            .bind(new_id())
            .bind(purchase)
            .bind(p.amount)
            .bind(&p.currency)
            .bind(now)
            .execute(&mut *w.tx)
            .await?;
        }
        sqlx::query(
            "UPDATE payments SET status = 'PENDING', updated_at = $3
             WHERE tenant_id = $1 AND gift_card_purchase_id = $2 AND status = 'FAILED'",
        )
        .bind(tenant.as_str())
        .bind(purchase)
        .bind(now)
        .execute(&mut *w.tx)
        .await?;
        sqlx::query(
            "UPDATE gift_card_purchases SET status = 'pending', updated_at = $3
             WHERE tenant_id = $1 AND id = $2 AND status = 'payment_failed'",
        )
        .bind(tenant.as_str())
        .bind(purchase)
        .bind(now)
        .execute(&mut *w.tx)
        .await?;
        let row: OnlineRow = sqlx::query_as(sqlx::AssertSqlSafe(open.as_str()))
            .bind(tenant.as_str())
            .bind(purchase)
            .fetch_one(&mut *w.tx)
            .await?;
        let p = purchase_in(&mut w, purchase, false)
            .await?
            .ok_or(GiftCardError::PurchaseNotFound)?;
        w.commit(None).await?;
        Ok((p, OnlinePayment::try_from(row)?))
    }

    /// Gives up an unpaid purchase whose payment deadline passed: its payment CANCELED,
    /// the purchase `cancelled`. False when it was paid (or given up) meanwhile.
    pub async fn cancel_unpaid_gift_card(
        &self,
        tenant: &TenantId,
        purchase: Uuid,
        payment: Uuid,
        now: Timestamp,
    ) -> StoreResult<bool> {
        let mut w = self.begin(tenant, now).await?;
        let Some(p) = purchase_in(&mut w, purchase, true).await? else {
            return Ok(false);
        };
        if !p.status.can_pay() {
            return Ok(false);
        }
        let canceled = sqlx::query(
            "UPDATE payments SET status = 'CANCELED', updated_at = $3
             WHERE tenant_id = $1 AND id = $2 AND status IN ('PENDING', 'FAILED')",
        )
        .bind(tenant.as_str())
        .bind(payment)
        .bind(now)
        .execute(&mut *w.tx)
        .await?;
        if canceled.rows_affected() == 0 {
            return Ok(false);
        }
        sqlx::query(
            "UPDATE gift_card_purchases SET status = 'cancelled', updated_at = $3
             WHERE tenant_id = $1 AND id = $2",
        )
        .bind(tenant.as_str())
        .bind(purchase)
        .bind(now)
        .execute(&mut *w.tx)
        .await?;
        w.audit(
            &Actor::system("payments"),
            Change {
                action: "gift_card.cancelled",
                entity_type: "gift_card_purchase",
                entity_id: purchase.to_string(),
                changes: json!({"paymentId": payment, "reason": "payment_deadline"}),
            },
        );
        w.commit(None).await?;
        Ok(true)
    }

    /// Queues the delivery email of a paid purchase again, now, to its recipient (the
    /// voucher is the same).
    pub async fn resend_gift_card_delivery(
        &self,
        tenant: &TenantId,
        purchase: Uuid,
        actor: &Actor,
        now: Timestamp,
    ) -> Result<GiftCardPurchase, GiftCardError> {
        let mut w = self.begin(tenant, now).await?;
        let p = purchase_in(&mut w, purchase, true)
            .await?
            .ok_or(GiftCardError::PurchaseNotFound)?;
        if !p.status.is_paid() || p.voucher_code.is_none() {
            return Err(GiftCardError::NotPaid);
        }
        let message = queue_delivery(&mut w, &p, now).await?;
        sqlx::query(
            "UPDATE gift_card_purchases SET delivery_message_id = COALESCE($3, delivery_message_id),
                 updated_at = $4
             WHERE tenant_id = $1 AND id = $2",
        )
        .bind(tenant.as_str())
        .bind(purchase)
        .bind(message)
        .bind(now)
        .execute(&mut *w.tx)
        .await?;
        w.audit(
            actor,
            Change {
                action: "gift_card.delivery_resent",
                entity_type: "gift_card_purchase",
                entity_id: purchase.to_string(),
                changes: json!({"recipientEmail": p.recipient_email, "messageId": message}),
            },
        );
        let p = purchase_in(&mut w, purchase, false)
            .await?
            .ok_or(GiftCardError::PurchaseNotFound)?;
        w.commit(None).await?;
        Ok(p)
    }
}
