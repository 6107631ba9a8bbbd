//! Money staff take for a whole group (an invoice paid by bank transfer, say): spread over
//! the group's bookings that still owe, in proportion to what each owes, each booking's
//! part recorded as its own mark-paid would record it.

use super::super::actions::act;
use super::super::load_for_update;
use super::{GroupError, Write, audit, lock, read};
use crate::{Actor, BookingAction, BookingGroup, BookingRefusal, Timestamp};
use kairos_domain::TenantId;
use kairos_domain::booking_groups::allocate;
use kairos_domain::bookings::BookingStatus;
use kairos_store_macros::operations;
use serde_json::json;
use uuid::Uuid;

#[operations]
impl super::super::Repo {
    /// Records `amount` (default: everything owed) taken by staff for the group `id`,
    /// spread over its confirmed, tentative and part-paid bookings in proportion to their
    /// balances by the largest remainder; more than is owed is refused.
    pub async fn record_group_payment(
        &self,
        tenant: &TenantId,
        id: Uuid,
        amount: Option<i64>,
        method: String,
        actor: &Actor,
        now: Timestamp,
    ) -> Result<BookingGroup, GroupError> {
        let mut w = self.begin(tenant, now).await?;
        let result = async {
            let group = lock(&mut w, id).await?;
            spread_payment(&mut w, &group, amount, &method, actor).await?;
            read(&mut w.tx, &w.tenant, id, false)
                .await?
                .ok_or(GroupError::NotFound)
        }
        .await;
        w.finish(result, None).await
    }
}

async fn spread_payment(
    w: &mut Write,
    group: &BookingGroup,
    amount: Option<i64>,
    method: &str,
    actor: &Actor,
) -> Result<(), GroupError> {
    let mut ids: Vec<Uuid> = group.bookings.iter().map(|b| b.booking_id).collect();
    ids.sort();
    let mut owing = Vec::new();
    for id in ids {
        let b = load_for_update(&mut w.tx, &w.tenant, id).await?;
        let open = matches!(
            b.status,
            BookingStatus::Confirmed | BookingStatus::Tentative | BookingStatus::PartPaid
        );
        let balance = (b.price.total - b.paid_amount).max(0);
        if open && balance > 0 {
            owing.push((b, balance));
        }
    }
    let owed: i64 = owing.iter().map(|(_, balance)| balance).sum();
    let amount = amount.unwrap_or(owed);
    if owed == 0 || amount > owed {
        return Err(GroupError::Booking(
            BookingRefusal::AmountExceedsBalance { balance: owed }.into(),
        ));
    }
    let balances: Vec<i64> = owing.iter().map(|(_, balance)| *balance).collect();
    let shares = allocate(amount, &balances);
    let mut parts = Vec::new();
    for ((b, _), share) in owing.iter_mut().zip(shares) {
        if share == 0 {
            continue;
        }
        let action = BookingAction::MarkPaid {
            amount: Some(share),
            method: method.to_owned(),
        };
        act(w, b, action, actor).await?;
        parts.push(json!({"bookingId": b.id, "amount": share}));
    }
    audit(
        w,
        actor,
        "booking_group.payment_recorded",
        group.id,
        json!({"amount": amount, "method": method, "bookings": parts}),
    );
    Ok(())
}
