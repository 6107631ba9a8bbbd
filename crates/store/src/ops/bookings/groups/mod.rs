//! Booking groups (spec Part B 2.5, 3.3, 4.3): reading a group with its bookings, and the
//! changes staff make to a draft (`admin.rs`); holding a group's activities in one
//! transaction and its price (`hold.rs`).

mod admin;
mod codes;
mod confirm;
mod hold;
mod invoice;
mod package;
mod paid;
mod settle;

pub(crate) use settle::{group_charge_refunded, settle_group_payment};

use super::super::Db;
use super::{Change, Write, dialect};
use crate::{
    Actor, BookingGroup, GroupChild, GroupCustomer, GroupError, GroupFilter, GroupItem,
    PriceBreakdown, StoreError, StoreResult, Timestamp, stored,
};
use kairos_domain::TenantId;
use kairos_domain::booking_groups::{GroupStatus, GroupType};
use kairos_domain::bookings::{BookingSource, BookingStatus};
use kairos_domain::payments::PaymentMethod;
use kairos_store_macros::operations;
use serde_json::json;
use sqlx::types::Json;
use uuid::Uuid;

type Conn = <Db as sqlx::Database>::Connection;

const GROUP_COLUMNS: &str = "g.id, g.reference, g.group_type, g.package_id, g.party_size, \
     g.customer_id, g.customer_name, g.customer_email, g.customer_phone, g.internal_notes, \
     g.items, g.held_at, g.hold_expires_at, g.token_hash, g.source, g.created_by, \
     g.created_at, g.updated_at, g.payment_method, g.confirmed_at, g.custom_total, \
     g.custom_pricing_reason, \
     (SELECT t.currency FROM tenants t WHERE t.id = g.tenant_id) AS currency";

#[derive(kairos_store_macros::FromRow)]
struct GroupRow {
    id: Uuid,
    reference: String,
    group_type: String,
    package_id: Option<Uuid>,
    party_size: i32,
    customer_id: Option<Uuid>,
    customer_name: String,
    customer_email: String,
    customer_phone: String,
    internal_notes: Option<String>,
    items: Json<Vec<GroupItem>>,
    held_at: Option<Timestamp>,
    hold_expires_at: Option<Timestamp>,
    token_hash: String,
    source: String,
    created_by: Option<String>,
    created_at: Timestamp,
    updated_at: Timestamp,
    payment_method: Option<String>,
    confirmed_at: Option<Timestamp>,
    custom_total: Option<i64>,
    custom_pricing_reason: Option<String>,
    currency: String,
}

impl TryFrom<GroupRow> for BookingGroup {
    type Error = StoreError;

    fn try_from(r: GroupRow) -> Result<Self, StoreError> {
        Ok(BookingGroup {
            id: r.id,
            reference: r.reference,
            group_type: stored("group type", &r.group_type, GroupType::parse)?,
            package_id: r.package_id,
            party_size: r.party_size,
            customer: GroupCustomer {
                id: r.customer_id,
                name: r.customer_name,
                email: r.customer_email,
                phone: r.customer_phone,
            },
            internal_notes: r.internal_notes,
            items: r.items.0,
            held_at: r.held_at,
            hold_expires_at: r.hold_expires_at,
            token_hash: r.token_hash,
            source: stored("group source", &r.source, BookingSource::parse)?,
            created_by: r.created_by,
            created_at: r.created_at,
            updated_at: r.updated_at,
            bookings: Vec::new(),
            currency: r.currency,
            payment_method: r
                .payment_method
                .as_deref()
                .map(|m| stored("payment method", m, PaymentMethod::parse))
                .transpose()?,
            confirmed_at: r.confirmed_at,
            custom_total: r.custom_total,
            custom_pricing_reason: r.custom_pricing_reason,
        })
    }
}

const CHILD_COLUMNS: &str = "b.group_id, b.id, b.reference, b.status, b.product_id, b.site_id, \
     b.slot_id, b.party_size, b.starts_at, b.ends_at, b.hold_expires_at, b.price, b.paid_amount";

#[derive(kairos_store_macros::FromRow)]
struct ChildRow {
    group_id: Uuid,
    id: Uuid,
    reference: String,
    status: String,
    product_id: Uuid,
    site_id: Uuid,
    slot_id: Uuid,
    party_size: i32,
    starts_at: Timestamp,
    ends_at: Timestamp,
    hold_expires_at: Option<Timestamp>,
    price: Json<PriceBreakdown>,
    paid_amount: i64,
}

impl ChildRow {
    fn into_child(self) -> Result<(Uuid, GroupChild), StoreError> {
        Ok((
            self.group_id,
            GroupChild {
                booking_id: self.id,
                reference: self.reference,
                status: stored("booking status", &self.status, BookingStatus::parse)?,
                product_id: self.product_id,
                site_id: self.site_id,
                slot_id: self.slot_id,
                party_size: self.party_size,
                starts_at: self.starts_at,
                ends_at: self.ends_at,
                hold_expires_at: self.hold_expires_at,
                price: self.price.0,
                paid_amount: self.paid_amount,
            },
        ))
    }
}

/// Gives each group its bookings, in the order of its plan.
fn attach(groups: &mut [BookingGroup], children: Vec<ChildRow>) -> StoreResult<()> {
    for row in children {
        let (group_id, child) = row.into_child()?;
        if let Some(g) = groups.iter_mut().find(|g| g.id == group_id) {
            g.bookings.push(child);
        }
    }
    for g in groups.iter_mut() {
        let items = &g.items;
        g.bookings.sort_by_key(|b| {
            items
                .iter()
                .position(|i| i.id == b.booking_id)
                .unwrap_or(usize::MAX)
        });
    }
    Ok(())
}

/// The group `id` with its bookings; with `lock`, the group row locked for the rest of the
/// transaction (PostgreSQL).
async fn read(
    conn: &mut Conn,
    tenant: &TenantId,
    id: Uuid,
    lock: bool,
) -> StoreResult<Option<BookingGroup>> {
    let lock = if lock { dialect::FOR_UPDATE } else { "" };
    let row: Option<GroupRow> = sqlx::query_as(sql!(
        "SELECT {GROUP_COLUMNS} FROM booking_groups g WHERE g.tenant_id = $1 AND g.id = $2{lock}"
    ))
    .bind(tenant.as_str())
    .bind(id)
    .fetch_optional(&mut *conn)
    .await?;
    let Some(row) = row else { return Ok(None) };
    let mut groups = [BookingGroup::try_from(row)?];
    let children: Vec<ChildRow> = sqlx::query_as(sql!(
        "SELECT {CHILD_COLUMNS} FROM bookings b WHERE b.tenant_id = $1 AND b.group_id = $2"
    ))
    .bind(tenant.as_str())
    .bind(id)
    .fetch_all(&mut *conn)
    .await?;
    attach(&mut groups, children)?;
    let [group] = groups;
    Ok(Some(group))
}

/// The group `id`, locked, for a change; `NotFound` when there is none.
async fn lock(w: &mut Write, id: Uuid) -> Result<BookingGroup, GroupError> {
    read(&mut w.tx, &w.tenant, id, true)
        .await?
        .ok_or(GroupError::NotFound)
}

/// Refuses a change that needs a DRAFT group.
fn require_draft(group: &BookingGroup, now: Timestamp) -> Result<(), GroupError> {
    match group.status(now) {
        GroupStatus::Draft if group.held_at.is_none() => Ok(()),
        other => Err(GroupError::NotDraft(other)),
    }
}

/// Writes a group's plan.
async fn save_items(w: &mut Write, group: &BookingGroup) -> Result<(), GroupError> {
    sqlx::query(
        "UPDATE booking_groups SET items = $3, updated_at = $4 WHERE tenant_id = $1 AND id = $2",
    )
    .bind(w.tenant.as_str())
    .bind(group.id)
    .bind(Json(&group.items))
    .bind(w.now)
    .execute(&mut *w.tx)
    .await?;
    Ok(())
}

fn audit(w: &mut Write, actor: &Actor, action: &'static str, id: Uuid, changes: serde_json::Value) {
    w.audit(
        actor,
        Change {
            action,
            entity_type: "booking_group",
            entity_id: id.to_string(),
            changes,
        },
    );
}

#[operations]
impl super::Repo {
    /// The group `id` with its bookings.
    pub async fn booking_group(
        &self,
        tenant: &TenantId,
        id: Uuid,
    ) -> StoreResult<Option<BookingGroup>> {
        let mut conn = self.read.acquire().await?;
        read(&mut conn, tenant, id, false).await
    }

    /// How many bookings of the tenant belong to a group (benchmarks check their count).
    pub async fn count_group_bookings(&self, tenant: &TenantId) -> StoreResult<i64> {
        Ok(sqlx::query_scalar(
            "SELECT COUNT(*) FROM bookings WHERE tenant_id = $1 AND group_id IS NOT NULL",
        )
        .bind(tenant.as_str())
        .fetch_one(&self.read)
        .await?)
    }

    /// The groups matching `f`, newest first, with their bookings, and how many match.
    /// The status is derived at `now` (spec Part B 3.3), so the status filter applies to
    /// the derived status.
    pub async fn list_booking_groups(
        &self,
        tenant: &TenantId,
        f: &GroupFilter,
        now: Timestamp,
    ) -> StoreResult<(Vec<BookingGroup>, i64)> {
        let mut conn = self.read.acquire().await?;
        let rows: Vec<GroupRow> = sqlx::query_as(sql!(
            "SELECT {GROUP_COLUMNS} FROM booking_groups g
             WHERE g.tenant_id = $1 AND ($2 IS NULL OR g.customer_email = $2)
             ORDER BY g.created_at DESC, g.id"
        ))
        .bind(tenant.as_str())
        .bind(f.customer_email.as_deref())
        .fetch_all(&mut *conn)
        .await?;
        let mut groups = rows
            .into_iter()
            .map(BookingGroup::try_from)
            .collect::<StoreResult<Vec<_>>>()?;
        let children: Vec<ChildRow> = sqlx::query_as(sql!(
            "SELECT {CHILD_COLUMNS} FROM bookings b
             WHERE b.tenant_id = $1 AND b.group_id IN (
                 SELECT g.id FROM booking_groups g
                 WHERE g.tenant_id = $1 AND ($2 IS NULL OR g.customer_email = $2))"
        ))
        .bind(tenant.as_str())
        .bind(f.customer_email.as_deref())
        .fetch_all(&mut *conn)
        .await?;
        attach(&mut groups, children)?;
        if let Some(status) = f.status {
            groups.retain(|g| g.status(now) == status);
        }
        let total = i64::try_from(groups.len()).unwrap_or(i64::MAX);
        let page = groups
            .into_iter()
            .skip(usize::try_from(f.offset).unwrap_or(0))
            .take(usize::try_from(f.limit).unwrap_or(0))
            .collect();
        Ok((page, total))
    }
}

/// The audit changes of a new group.
fn created_changes(group: &BookingGroup) -> serde_json::Value {
    json!({
        "groupType": group.group_type.as_str(),
        "partySize": group.party_size,
        "activities": group.items.len(),
    })
}
