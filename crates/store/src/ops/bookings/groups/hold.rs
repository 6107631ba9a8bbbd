//! Holding a group's activities: every booking in one transaction with one shared expiry,
//! or none (the refusal names the activity); and a group's price.

use super::super::hold::{GroupLink, check_hold_caps, create_in};
use super::super::offer::load_offer;
use super::admin::{check_item, check_plan, insert_group};
use super::package::{check_package, package_of, package_shares, price_held_at_package};
use super::{GroupError, Write, audit, lock, read, require_draft};
use crate::pricing::{Chosen, price_booking};
use crate::{
    Actor, BookingCustomer, BookingError, BookingGroup, GroupItem, GroupPricing, HoldCaps,
    Idempotency, NewBooking, NewGroupHold, PriceBreakdown, Reductions, SeatPolicy, SlotChoice,
    Timestamp, Written, group_pricing,
};
use kairos_domain::TenantId;
use kairos_domain::booking_groups::MAX_ACTIVITIES;
use kairos_domain::bookings::BookingStatus;
use kairos_domain::ids::new_secret;
use kairos_store_macros::operations;
use serde_json::json;
use uuid::Uuid;

/// Holds every planned activity of `group` (locked or new in this transaction): checks
/// them all first, then takes the seats slot by slot in slot id order (so two groups
/// sharing slots lock them in the same order), every booking expiring at the same time:
/// the shortest hold time-to-live of their sites. Any refusal rolls the whole
/// transaction back.
async fn hold_items(
    w: &mut Write,
    group: &BookingGroup,
    caps: Option<&HoldCaps>,
    actor: &Actor,
) -> Result<BookingGroup, GroupError> {
    let items = &group.items;
    if items.is_empty() {
        return Err(GroupError::Empty);
    }
    if items.len() > MAX_ACTIVITIES {
        return Err(GroupError::TooManyActivities(MAX_ACTIVITIES));
    }
    let activity = |index: usize, error: BookingError| GroupError::Activity {
        index,
        slot_id: items[index].slot_id,
        error: Box::new(error),
    };
    let package = match group.package_id {
        Some(id) => {
            let package = package_of(w, id, true).await?;
            check_package(&package, items)?;
            Some(package)
        }
        None => None,
    };
    let mut sites = Vec::with_capacity(items.len());
    for (index, item) in items.iter().enumerate() {
        sites.push(check_item(w, item).await.map_err(|e| activity(index, e))?);
    }
    check_plan(items, &sites).map_err(|(index, e)| activity(index, e))?;
    let ttl = sites.iter().map(|s| s.hold_ttl).min().unwrap_or_default();
    let hold_expires_at = w.now + ttl;
    if let Some(caps) = caps {
        // A group counts as one hold against the caps.
        check_hold_caps(w, caps, &group.customer.email, group.customer.id).await?;
    }
    let mut order: Vec<usize> = (0..items.len()).collect();
    order.sort_by_key(|&i| (items[i].slot_id, i));
    for index in order {
        let item = &items[index];
        let new = NewBooking {
            site_id: item.site_id,
            product_id: item.product_id,
            slot: SlotChoice::Id(item.slot_id),
            variant_id: None,
            customer: BookingCustomer {
                id: group.customer.id,
                name: group.customer.name.clone(),
                email: group.customer.email.clone(),
                phone: group.customer.phone.clone(),
            },
            party_size: item.party_size,
            addons: Vec::new(),
            participants: Vec::new(),
            // A group's activities are priced per person at the activity's price.
            participant_types: Vec::new(),
            // The group's token opens the group; its bookings are reached through it.
            token_hash: new_secret().1,
            source: group.source,
            status: BookingStatus::Hold,
            admin_notes: None,
            send_confirmation: true,
            seats: SeatPolicy::Checked,
            allow_closed_slot: false,
            // Recorded with each booking (its client address); checked once above.
            hold_caps: caps.cloned(),
            created_reason: None,
            terms_accepted_on_behalf: false,
        };
        let link = GroupLink {
            group_id: group.id,
            booking_id: item.id,
            hold_expires_at,
        };
        create_in(w, new, actor, Some(&link))
            .await
            .map_err(|e| activity(index, e))?;
    }
    if let Some(package) = &package {
        price_held_at_package(w, group.id, package, group.party_size).await?;
    }
    sqlx::query(
        "UPDATE booking_groups SET held_at = $3, hold_expires_at = $4, updated_at = $3
         WHERE tenant_id = $1 AND id = $2",
    )
    .bind(w.tenant.as_str())
    .bind(group.id)
    .bind(w.now)
    .bind(hold_expires_at)
    .execute(&mut *w.tx)
    .await?;
    audit(
        w,
        actor,
        "booking_group.held",
        group.id,
        json!({"activities": items.len(), "holdExpiresAt": hold_expires_at}),
    );
    read(&mut w.tx, &w.tenant, group.id, false)
        .await?
        .ok_or(GroupError::NotFound)
}

fn activity_error(index: usize, item: &GroupItem, error: BookingError) -> GroupError {
    GroupError::Activity {
        index,
        slot_id: item.slot_id,
        error: Box::new(error),
    }
}

/// One activity's price as the catalog prices it now (a draft's plan line).
/// `agreed`: its share of the group's agreed price.
async fn price_item(
    w: &mut Write,
    item: &GroupItem,
    agreed: Option<i64>,
) -> Result<PriceBreakdown, BookingError> {
    check_item(w, item).await?;
    let offer = load_offer(&mut w.tx, &w.tenant, item.product_id, None)
        .await?
        .ok_or(BookingError::ProductNotFound)?;
    Ok(price_booking(
        &offer.product,
        None,
        &[],
        Chosen {
            addons: &[],
            resources: &[],
            types: &[],
            agreed,
        },
        u32::try_from(item.party_size).unwrap_or(0),
        offer.currency,
        &Reductions::default(),
    ))
}

#[operations]
impl super::super::Repo {
    /// Creates a group and holds all its activities in one transaction (the public hold):
    /// one shared expiry, or nothing held.
    pub async fn hold_new_booking_group(
        &self,
        tenant: &TenantId,
        hold: NewGroupHold,
        actor: &Actor,
        now: Timestamp,
        idem: Option<Idempotency<'_, BookingGroup>>,
    ) -> Result<Written<BookingGroup>, GroupError> {
        let mut w = self.begin(tenant, now).await?;
        if let Some(replay) = w.claim::<_, GroupError>(idem.as_ref()).await? {
            return Ok(Written::Replayed(replay));
        }
        let result = async {
            let group = insert_group(&mut w, hold.group, hold.items, actor).await?;
            hold_items(&mut w, &group, hold.caps.as_ref(), actor).await
        }
        .await;
        w.finish(result, idem.map(|i| i.render))
            .await
            .map(Written::Done)
    }

    /// Holds a DRAFT group's planned activities (staff): all or none.
    pub async fn hold_booking_group(
        &self,
        tenant: &TenantId,
        id: Uuid,
        actor: &Actor,
        now: Timestamp,
    ) -> Result<BookingGroup, GroupError> {
        let mut w = self.begin(tenant, now).await?;
        let result = async {
            let group = lock(&mut w, id).await?;
            require_draft(&group, w.now)?;
            hold_items(&mut w, &group, None, actor).await
        }
        .await;
        w.finish(result, None).await
    }

    /// The group's price: its bookings' prices once held, else its plan priced from the
    /// catalog as it is now.
    pub async fn price_booking_group(
        &self,
        tenant: &TenantId,
        id: Uuid,
        now: Timestamp,
    ) -> Result<GroupPricing, GroupError> {
        let mut w = self.begin(tenant, now).await?;
        let result = async {
            let group = read(&mut w.tx, &w.tenant, id, false)
                .await?
                .ok_or(GroupError::NotFound)?;
            if !group.bookings.is_empty() {
                let prices: Vec<(Uuid, &PriceBreakdown)> = group
                    .bookings
                    .iter()
                    .map(|b| (b.booking_id, &b.price))
                    .collect();
                return Ok(group_pricing(
                    &group.currency,
                    group.pricing_method(),
                    &prices,
                ));
            }
            let mut priced = Vec::new();
            for (index, item) in group.items.iter().enumerate() {
                let price = price_item(&mut w, item, None)
                    .await
                    .map_err(|e| activity_error(index, item, e))?;
                priced.push((item.id, price));
            }
            if let Some(package) = group.package_id {
                let package = package_of(&mut w, package, false).await?;
                let catalog: Vec<i64> = priced.iter().map(|(_, p)| p.total).collect();
                let shares = package_shares(&package, group.party_size, &catalog);
                for (index, (item, share)) in group.items.iter().zip(shares).enumerate() {
                    priced[index].1 = price_item(&mut w, item, Some(share))
                        .await
                        .map_err(|e| activity_error(index, item, e))?;
                }
            }
            let prices: Vec<(Uuid, &PriceBreakdown)> =
                priced.iter().map(|(id, p)| (*id, p)).collect();
            Ok(group_pricing(
                &group.currency,
                group.pricing_method(),
                &prices,
            ))
        }
        .await;
        w.finish(result, None).await
    }
}
