//! Slot reads: the open slots the public availability endpoint shows, and staff listings.

use super::Repo;

use crate::{Slot, StoreResult, Timestamp};
use kairos_domain::TenantId;
use kairos_store_macros::operations;
use uuid::Uuid;

#[derive(kairos_store_macros::FromRow)]
pub(super) struct SlotRow {
    pub(super) id: Uuid,
    pub(super) product_id: Uuid,
    pub(super) site_id: Uuid,
    pub(super) starts_at: Timestamp,
    pub(super) ends_at: Timestamp,
    pub(super) capacity: i32,
    pub(super) booked: i32,
    pub(super) is_orphaned: bool,
    pub(super) projection_version: i64,
}

impl From<SlotRow> for Slot {
    fn from(r: SlotRow) -> Self {
        Slot {
            id: r.id,
            product_id: r.product_id,
            site_id: r.site_id,
            starts_at: r.starts_at,
            ends_at: r.ends_at,
            capacity: r.capacity,
            booked: r.booked,
            is_orphaned: r.is_orphaned,
            projection_version: r.projection_version,
        }
    }
}

pub(super) const SLOT_COLUMNS: &str = "id, product_id, site_id, starts_at, ends_at, capacity, booked, is_orphaned, \
     projection_version";

#[operations]
impl Repo {
    /// Slots of a product open to a party: not started, not orphaned, with room.
    pub async fn open_slots(
        &self,
        tenant: &TenantId,
        product: Uuid,
        from: Timestamp,
        to: Timestamp,
        party_size: i32,
        now: Timestamp,
    ) -> StoreResult<Vec<Slot>> {
        let rows: Vec<SlotRow> = sqlx::query_as(sql!(
            "SELECT {SLOT_COLUMNS} FROM slots
             WHERE tenant_id = $1 AND product_id = $2 AND starts_at >= $3 AND starts_at < $4
               AND is_orphaned = $5 AND capacity - booked >= $6
             ORDER BY starts_at"
        ))
        .bind(tenant.as_str())
        .bind(product)
        .bind(from.max(now))
        .bind(to)
        .bind(false)
        .bind(party_size)
        .fetch_all(&self.read)
        .await?;
        Ok(rows.into_iter().map(Slot::from).collect())
    }

    /// Every slot of a product in a range, orphaned or full ones included (administration).
    pub async fn list_slots(
        &self,
        tenant: &TenantId,
        product: Uuid,
        from: Timestamp,
        to: Timestamp,
    ) -> StoreResult<Vec<Slot>> {
        let rows: Vec<SlotRow> = sqlx::query_as(sql!(
            "SELECT {SLOT_COLUMNS} FROM slots
             WHERE tenant_id = $1 AND product_id = $2 AND starts_at >= $3 AND starts_at < $4
             ORDER BY starts_at"
        ))
        .bind(tenant.as_str())
        .bind(product)
        .bind(from)
        .bind(to)
        .fetch_all(&self.read)
        .await?;
        Ok(rows.into_iter().map(Slot::from).collect())
    }
}
