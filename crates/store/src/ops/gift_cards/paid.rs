//! A gift card purchase paid (in the provider event's transaction): its `gift_card`
//! voucher issued, the purchase `paid` and its delivery email queued for the delivery
//! date; money for a purchase already cancelled goes before staff.

use super::super::audit::Change;
use super::super::messaging::{ChannelOutcome, Compose, Recipient, queue_message_to};
use super::super::vouchers::insert_voucher;
use super::super::write::Write;
use super::purchases::purchase_in;
use crate::{
    Actor, EventOutcome, GiftCardPurchase, NewVoucher, OnlinePayment, PaymentsError, StoreError,
    Timestamp, VoucherError,
};
use kairos_domain::gift_cards::PurchaseStatus;
use kairos_domain::messaging::Channel;
use kairos_domain::money::to_major;
use kairos_domain::new_id;
use kairos_domain::tenancy::Currency;
use kairos_domain::vouchers::VoucherType;
use serde_json::json;
use uuid::Uuid;

/// The template of the delivery email.
const DELIVERY_TEMPLATE: &str = "gift_card_delivery";

/// Queues the delivery email of a paid purchase to its recipient, at `send_at`; the
/// message's id (None: no email template, or the recipient refuses email).
pub(super) async fn queue_delivery(
    w: &mut Write,
    p: &GiftCardPurchase,
    send_at: Timestamp,
) -> Result<Option<Uuid>, StoreError> {
    let (business, timezone): (String, String) =
        sqlx::query_as("SELECT name, timezone FROM tenants WHERE id = $1")
            .bind(w.tenant.as_str())
            .fetch_one(&mut *w.tx)
            .await?;
    let value = Currency::parse(&p.currency).map_or(0.0, |c| to_major(p.amount, c));
    let name = p.recipient_name.clone().unwrap_or_default();
    let to = Recipient {
        name: name.clone(),
        email: p.recipient_email.clone(),
        phone: String::new(),
        customer_id: None,
        booking_id: None,
        site_id: p.site_id,
        locale: "en".to_owned(),
        data: json!({
            "recipientName": name,
            "customerName": name,
            "customerEmail": p.recipient_email,
            "senderName": p.purchaser_name.clone().unwrap_or_default(),
            "personalMessage": p.personal_message.clone().unwrap_or_default(),
            "voucherCode": p.voucher_code,
            "voucherExpiresAt": p.voucher_expires_at
                .map(|t| t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)),
            "totalAmount": value,
            "currency": p.currency,
            "businessName": business,
            "timezone": timezone,
        }),
    };
    // `now` of a composition is when the message may go: the delivery date.
    let outcomes = queue_message_to(
        w,
        &to,
        Compose {
            channels: &[Channel::Email],
            ..Compose::of(DELIVERY_TEMPLATE, "gift_card", send_at)
        },
    )
    .await?;
    Ok(outcomes.into_iter().find_map(|(_, o)| match o {
        ChannelOutcome::Queued(id) => Some(id),
        _ => None,
    }))
}

fn voucher_failure(e: VoucherError) -> StoreError {
    match e {
        VoucherError::Store(s) => s,
        other => StoreError::Corrupt(format!("issuing a gift card voucher: {other}")),
    }
}

/// Records money collected for a gift card purchase that can no longer take it, for staff
/// to refund.
async fn paid_after_close(
    w: &mut Write,
    payment: &OnlinePayment,
    purchase: &GiftCardPurchase,
) -> Result<(), StoreError> {
    sqlx::query(
        "INSERT INTO dead_letters (tenant_id, id, category, kind, error_type, error_message,
             retry_count, transaction_id, status, failed_at, created_at, updated_at)
         VALUES ($1, $2, 'payment', 'cardpay', 'PAID_AFTER_CLOSE', $3, 0, $4, 'open', $5, $5, $5)",
    )
    .bind(w.tenant.as_str())
    .bind(new_id())
    .bind(format!(
        "{} was collected for gift card purchase {}, which is {}: refund it",
        super::super::dead_letters::amount_text(payment.amount, &payment.currency),
        purchase.id,
        purchase.status
    ))
    .bind(payment.id)
    .bind(w.now)
    .execute(&mut *w.tx)
    .await?;
    Ok(())
}

/// Settles a succeeded card payment of gift card purchase `purchase` inside the event's
/// write: the payment COMPLETED; a pending purchase gets its voucher (expiring
/// `validityDays` from now), becomes `paid`, and its delivery email is queued. A purchase
/// paid before gets no second voucher (`GIFT_CARD_ALREADY_PAID`).
pub(crate) async fn pay_gift_card(
    w: &mut Write,
    payment: &OnlinePayment,
    purchase: Uuid,
) -> Result<EventOutcome, PaymentsError> {
    let outcome = |processed: bool, message: String, code: Option<&str>| EventOutcome {
        processed,
        message,
        duplicate: false,
        code: code.map(str::to_owned),
    };
    let Some(p) = purchase_in(w, purchase, true).await? else {
        return Ok(outcome(
            false,
            format!("no gift card purchase {purchase}"),
            None,
        ));
    };
    let completed = sqlx::query(
        "UPDATE payments SET status = 'COMPLETED', completed_at = $3, updated_at = $3
         WHERE tenant_id = $1 AND id = $2 AND status <> 'COMPLETED'",
    )
    .bind(w.tenant.as_str())
    .bind(payment.id)
    .bind(w.now)
    .execute(&mut *w.tx)
    .await?
    .rows_affected()
        == 1;
    let actor = Actor::system("cardpay");
    if !p.status.can_pay() {
        if completed {
            // Money this purchase cannot take (paid by another payment, or given up).
            paid_after_close(w, payment, &p).await?;
        }
        return Ok(outcome(
            completed,
            format!(
                "gift card purchase {} is {}: no second voucher",
                p.id, p.status
            ),
            Some("GIFT_CARD_ALREADY_PAID"),
        ));
    }
    let voucher = insert_voucher(
        w,
        &NewVoucher {
            code: None,
            voucher_type: VoucherType::GiftCard,
            original_value: p.amount,
            usage_limit: None,
            expires_at: Some(w.now + chrono::Duration::days(i64::from(p.validity_days))),
            customer_email: Some(p.recipient_email.clone()),
            is_active: true,
        },
        Some("gift card purchase"),
    )
    .await
    .map_err(voucher_failure)?;
    let paid = GiftCardPurchase {
        status: PurchaseStatus::Paid,
        voucher_id: Some(voucher.id),
        voucher_code: Some(voucher.code.clone()),
        voucher_expires_at: voucher.expires_at,
        ..p
    };
    let send_at = paid.delivery_date.map_or(w.now, |d| d.max(w.now));
    let message = queue_delivery(w, &paid, send_at).await?;
    sqlx::query(
        "UPDATE gift_card_purchases SET status = 'paid', voucher_id = $3, paid_at = $4,
             delivery_message_id = $5, updated_at = $4
         WHERE tenant_id = $1 AND id = $2",
    )
    .bind(w.tenant.as_str())
    .bind(paid.id)
    .bind(voucher.id)
    .bind(w.now)
    .bind(message)
    .execute(&mut *w.tx)
    .await?;
    w.audit(
        &actor,
        Change {
            action: "gift_card.paid",
            entity_type: "gift_card_purchase",
            entity_id: paid.id.to_string(),
            changes: json!({"paymentId": payment.id, "voucherId": voucher.id,
                "amount": paid.amount, "deliveryMessageId": message, "sendAt": send_at}),
        },
    );
    Ok(outcome(
        true,
        format!("gift card purchase {} paid: voucher issued", paid.id),
        None,
    ))
}
