//! The invoice of a group confirmed by invoice: one email to its customer (template
//! `group_invoice`) with the invoice number, a line per booking with its tax, the total,
//! the due date and the venue's details, queued in the confirmation's transaction.

use super::super::super::messaging::{Compose, booking_facts, queue_booking_message};
use super::{GroupError, Write};
use crate::{Booking, BookingGroup};
use chrono::{Days, SecondsFormat};
use kairos_domain::money::to_major;
use kairos_domain::tenancy::Currency;
use serde_json::json;

/// Days an invoice is payable in, unless the first activity comes sooner.
const INVOICE_DAYS: u64 = 14;

/// The invoice's number: the group's reference, prefixed.
fn invoice_number(group: &BookingGroup) -> String {
    format!("INV-{}", group.reference)
}

/// Queues the invoice of `group`, whose `bookings` were just confirmed by invoice, to its
/// customer (through the first booking's customer and venue details).
pub(super) async fn queue_invoice(
    w: &mut Write,
    group: &BookingGroup,
    bookings: &[&Booking],
) -> Result<(), GroupError> {
    let Some(first) = bookings.iter().min_by_key(|b| (b.starts_at, b.id)) else {
        return Ok(());
    };
    let Some(facts) = booking_facts(w, first.id).await? else {
        return Ok(());
    };
    let currency = Currency::parse(&first.price.currency)
        .map_err(|e| crate::StoreError::Corrupt(format!("booking currency: {e}")))?;
    let major = |minor: i64| to_major(minor, currency);
    let mut lines = Vec::with_capacity(bookings.len());
    for b in bookings {
        let product: Option<String> =
            sqlx::query_scalar("SELECT name FROM products WHERE tenant_id = $1 AND id = $2")
                .bind(w.tenant.as_str())
                .bind(b.product_id)
                .fetch_optional(&mut *w.tx)
                .await?;
        lines.push(json!({
            "bookingReference": b.reference,
            "productName": product.unwrap_or_default(),
            "bookingDateTime": b.starts_at.to_rfc3339_opts(SecondsFormat::Secs, true),
            "partySize": b.party_size,
            "amount": major(b.price.total),
            "taxAmount": major(b.price.tax),
        }));
    }
    let total: i64 = bookings.iter().map(|b| b.price.total).sum();
    let tax: i64 = bookings.iter().map(|b| b.price.tax).sum();
    let due = (w.now + Days::new(INVOICE_DAYS)).min(first.starts_at);
    let extra = json!({
        "invoiceNumber": invoice_number(group),
        "invoiceDate": w.now.to_rfc3339_opts(SecondsFormat::Secs, true),
        "dueDate": due.to_rfc3339_opts(SecondsFormat::Secs, true),
        "groupReference": group.reference,
        "invoiceLines": lines,
        "taxTotal": major(tax),
        "totalAmount": major(total),
        "customerName": group.customer.name,
        "customerEmail": group.customer.email,
    });
    let mut compose = Compose::of("group_invoice", "group", w.now);
    compose.channels = &[kairos_domain::messaging::Channel::Email];
    compose.extra = Some(&extra);
    queue_booking_message(w, &facts, compose).await?;
    Ok(())
}
