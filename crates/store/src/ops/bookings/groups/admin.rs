//! What staff do to a group before it is held: create it, plan its activities, change
//! its customer and notes, delete it.

use super::super::offer::load_offer;
use super::{
    BookingGroup, GroupError, Write, audit, created_changes, lock, require_draft, save_items,
};
use crate::{
    Actor, BookingError, BookingRefusal, GroupItem, GroupPatch, NewGroup, SlotChoice, Timestamp,
};
use kairos_domain::booking_groups::MAX_ACTIVITIES;
use kairos_domain::ids::new_reference;
use kairos_domain::{FieldErrors, TenantId, new_id};
use kairos_store_macros::operations;
use serde_json::json;
use sqlx::types::Json;
use uuid::Uuid;

/// Inserts a group with its plan `items` (not yet held).
pub(super) async fn insert_group(
    w: &mut Write,
    new: NewGroup,
    items: Vec<GroupItem>,
    actor: &Actor,
) -> Result<BookingGroup, GroupError> {
    let id = new_id();
    let mut reference = new_reference();
    loop {
        let inserted = sqlx::query(
            "INSERT INTO booking_groups (tenant_id, id, reference, group_type, package_id,
                 party_size, customer_id, customer_name, customer_email, customer_phone,
                 internal_notes, items, token_hash, source, created_by, created_at, updated_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $16)
             ON CONFLICT (tenant_id, reference) DO NOTHING",
        )
        .bind(w.tenant.as_str())
        .bind(id)
        .bind(&reference)
        .bind(new.group_type.as_str())
        .bind(new.package_id)
        .bind(new.party_size)
        .bind(new.customer.id)
        .bind(&new.customer.name)
        .bind(&new.customer.email)
        .bind(&new.customer.phone)
        .bind(new.internal_notes.as_deref())
        .bind(Json(&items))
        .bind(&new.token_hash)
        .bind(new.source.as_str())
        .bind(actor.id.as_deref())
        .bind(w.now)
        .execute(&mut *w.tx)
        .await?;
        if inserted.rows_affected() == 1 {
            break;
        }
        reference = new_reference();
    }
    let currency: String = sqlx::query_scalar("SELECT currency FROM tenants WHERE id = $1")
        .bind(w.tenant.as_str())
        .fetch_one(&mut *w.tx)
        .await?;
    let group = BookingGroup {
        id,
        reference,
        group_type: new.group_type,
        package_id: new.package_id,
        party_size: new.party_size,
        customer: new.customer,
        internal_notes: new.internal_notes,
        items,
        held_at: None,
        hold_expires_at: None,
        token_hash: new.token_hash,
        source: new.source,
        created_by: actor.id.clone(),
        created_at: w.now,
        updated_at: w.now,
        bookings: Vec::new(),
        currency,
        payment_method: None,
        confirmed_at: None,
        custom_total: None,
        custom_pricing_reason: None,
    };
    audit(
        w,
        actor,
        "booking_group.created",
        id,
        created_changes(&group),
    );
    Ok(group)
}

/// What a group needs of an activity's site: its hold time-to-live and currency.
pub(super) struct ItemSite {
    pub hold_ttl: chrono::Duration,
    pub currency: kairos_domain::tenancy::Currency,
}

/// Checks that `item` names an active product of its site, a slot of that product that
/// has not started and a party the product takes.
pub(super) async fn check_item(w: &mut Write, item: &GroupItem) -> Result<ItemSite, BookingError> {
    let offer = load_offer(
        &mut w.tx,
        &w.tenant,
        item.product_id,
        Some(SlotChoice::Id(item.slot_id)),
    )
    .await?
    .ok_or(BookingError::ProductNotFound)?;
    if !offer.product.is_active || offer.product.site_id != item.site_id {
        return Err(BookingError::ProductNotFound);
    }
    if !offer.site_is_active {
        return Err(BookingError::SiteNotFound);
    }
    let Some(slot) = &offer.slot else {
        return Err(BookingError::SlotNotFound);
    };
    if slot.starts_at <= w.now {
        return Err(BookingRefusal::SlotUnavailable.into());
    }
    if item.party_size > offer.product.capacity {
        let mut errors = FieldErrors::new();
        errors.add(
            "partySize",
            format!(
                "must be at most {} for this product",
                offer.product.capacity
            ),
        );
        return Err(BookingError::Invalid(errors));
    }
    Ok(ItemSite {
        hold_ttl: offer.hold_ttl(),
        currency: offer.currency,
    })
}

/// The currency of the site `id`, if it exists.
async fn site_currency(
    w: &mut Write,
    id: Uuid,
) -> Result<Option<kairos_domain::tenancy::Currency>, BookingError> {
    let code: Option<String> =
        sqlx::query_scalar("SELECT currency FROM sites WHERE tenant_id = $1 AND id = $2")
            .bind(w.tenant.as_str())
            .bind(id)
            .fetch_optional(&mut *w.tx)
            .await?;
    Ok(code.and_then(|c| kairos_domain::tenancy::Currency::parse(&c).ok()))
}

/// Refuses a plan whose activities repeat a slot or mix currencies (their sites'): the
/// first activity that does, as its own refusal (`index`).
pub(super) fn check_plan(
    items: &[GroupItem],
    sites: &[ItemSite],
) -> Result<(), (usize, BookingError)> {
    for (index, item) in items.iter().enumerate() {
        let mut errors = FieldErrors::new();
        if items[..index].iter().any(|i| i.slot_id == item.slot_id) {
            errors.add("slotId", "is already an activity of this group");
        }
        if let (Some(first), Some(this)) = (sites.first(), sites.get(index))
            && this.currency != first.currency
        {
            errors.add(
                "siteId",
                format!(
                    "sells in {}, the group's first activity in {}: a group is paid in one currency",
                    this.currency.code(),
                    first.currency.code()
                ),
            );
        }
        if !errors.is_empty() {
            return Err((index, BookingError::Invalid(errors)));
        }
    }
    Ok(())
}

#[operations]
impl super::super::Repo {
    /// Creates a DRAFT group with no activities.
    pub async fn create_booking_group(
        &self,
        tenant: &TenantId,
        new: NewGroup,
        actor: &Actor,
        now: Timestamp,
    ) -> Result<BookingGroup, GroupError> {
        let mut w = self.begin(tenant, now).await?;
        let result = insert_group(&mut w, new, Vec::new(), actor).await;
        w.finish(result, None).await
    }

    /// Changes a group's customer and internal notes (any status; its bookings keep the
    /// customer they were made for).
    pub async fn patch_booking_group(
        &self,
        tenant: &TenantId,
        id: Uuid,
        patch: GroupPatch,
        actor: &Actor,
        now: Timestamp,
    ) -> Result<BookingGroup, GroupError> {
        let mut w = self.begin(tenant, now).await?;
        let result = async {
            let mut group = lock(&mut w, id).await?;
            if let Some(name) = patch.customer_name {
                group.customer.name = name;
            }
            if let Some(email) = patch.customer_email {
                group.customer.email = email;
            }
            if let Some(phone) = patch.customer_phone {
                group.customer.phone = phone;
            }
            if let Some(notes) = patch.internal_notes {
                group.internal_notes = notes;
            }
            sqlx::query(
                "UPDATE booking_groups SET customer_name = $3, customer_email = $4,
                     customer_phone = $5, internal_notes = $6, updated_at = $7
                 WHERE tenant_id = $1 AND id = $2",
            )
            .bind(w.tenant.as_str())
            .bind(id)
            .bind(&group.customer.name)
            .bind(&group.customer.email)
            .bind(&group.customer.phone)
            .bind(group.internal_notes.as_deref())
            .bind(w.now)
            .execute(&mut *w.tx)
            .await?;
            group.updated_at = w.now;
            audit(
                &mut w,
                actor,
                "booking_group.updated",
                id,
                json!({
                    "customerName": group.customer.name,
                    "customerEmail": group.customer.email,
                    "customerPhone": group.customer.phone,
                    "internalNotes": group.internal_notes.is_some(),
                }),
            );
            Ok(group)
        }
        .await;
        w.finish(result, None).await
    }

    /// Deletes a DRAFT group (nothing of it was ever held).
    pub async fn delete_booking_group(
        &self,
        tenant: &TenantId,
        id: Uuid,
        actor: &Actor,
        now: Timestamp,
    ) -> Result<(), GroupError> {
        let mut w = self.begin(tenant, now).await?;
        let result = async {
            let group = lock(&mut w, id).await?;
            require_draft(&group, w.now)?;
            sqlx::query("DELETE FROM booking_groups WHERE tenant_id = $1 AND id = $2")
                .bind(w.tenant.as_str())
                .bind(id)
                .execute(&mut *w.tx)
                .await?;
            audit(
                &mut w,
                actor,
                "booking_group.deleted",
                id,
                json!({"reference": group.reference}),
            );
            Ok(())
        }
        .await;
        w.finish(result, None).await
    }

    /// Adds an activity to a DRAFT group's plan: the product must belong to the site and
    /// the slot to the product. A party size of 0 is the group's. Nothing is held yet.
    pub async fn add_booking_group_item(
        &self,
        tenant: &TenantId,
        id: Uuid,
        mut item: GroupItem,
        actor: &Actor,
        now: Timestamp,
    ) -> Result<BookingGroup, GroupError> {
        let mut w = self.begin(tenant, now).await?;
        let result = async {
            let mut group = lock(&mut w, id).await?;
            require_draft(&group, w.now)?;
            if item.party_size == 0 {
                item.party_size = group.party_size;
            }
            if group.items.len() >= MAX_ACTIVITIES {
                return Err(GroupError::TooManyActivities(MAX_ACTIVITIES));
            }
            let added = check_item(&mut w, &item).await?;
            // The plan so far, by its sites' currencies (its slots are checked at the hold).
            let mut sites = Vec::with_capacity(group.items.len() + 1);
            for planned in &group.items {
                let currency = site_currency(&mut w, planned.site_id).await?;
                sites.push(ItemSite {
                    hold_ttl: added.hold_ttl,
                    currency: currency.unwrap_or(added.currency),
                });
            }
            sites.push(added);
            group.items.push(item.clone());
            check_plan(&group.items, &sites).map_err(|(_, e)| e)?;
            save_items(&mut w, &group).await?;
            group.updated_at = w.now;
            audit(
                &mut w,
                actor,
                "booking_group.activity_added",
                id,
                json!({
                    "bookingId": item.id, "productId": item.product_id, "slotId": item.slot_id,
                    "partySize": item.party_size,
                }),
            );
            Ok(group)
        }
        .await;
        w.finish(result, None).await
    }

    /// Removes an activity from a DRAFT group's plan.
    pub async fn remove_booking_group_item(
        &self,
        tenant: &TenantId,
        id: Uuid,
        booking_id: Uuid,
        actor: &Actor,
        now: Timestamp,
    ) -> Result<BookingGroup, GroupError> {
        let mut w = self.begin(tenant, now).await?;
        let result = async {
            let mut group = lock(&mut w, id).await?;
            require_draft(&group, w.now)?;
            let before = group.items.len();
            group.items.retain(|i| i.id != booking_id);
            if group.items.len() == before {
                return Err(GroupError::BookingNotFound);
            }
            save_items(&mut w, &group).await?;
            group.updated_at = w.now;
            audit(
                &mut w,
                actor,
                "booking_group.activity_removed",
                id,
                json!({"bookingId": booking_id}),
            );
            Ok(group)
        }
        .await;
        w.finish(result, None).await
    }
}
