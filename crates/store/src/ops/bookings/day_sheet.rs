//! The day sheet: every slot of a site's day with the bookings in it, read at one moment.

use super::super::availability::{SLOT_COLUMNS, SlotRow};
use super::{BOOKING_COLUMNS, BookingRow, Repo, dialect};
use crate::{
    Booking, DaySheet, DaySheetBooking, DaySheetResource, DaySheetSlot, StoreResult, Timestamp,
};
use kairos_domain::TenantId;
use kairos_store_macros::operations;
use uuid::Uuid;

#[derive(kairos_store_macros::FromRow)]
struct SheetSlotRow {
    #[sqlx(flatten)]
    slot: SlotRow,
    product_name: String,
}

#[derive(kairos_store_macros::FromRow)]
struct SheetBookingRow {
    #[sqlx(flatten)]
    booking: BookingRow,
    notes: i64,
    open_issues: i64,
}

#[operations]
impl Repo {
    /// Every slot of the site starting in `[from, to)`, orphaned and full ones included,
    /// ordered by product name then start, and every booking starting in the range but
    /// expired holds, with its count of notes and of open issues, and the resources in
    /// use (sessions' and add-ons'). One read transaction, so slot counts and bookings
    /// agree.
    pub async fn day_sheet(
        &self,
        tenant: &TenantId,
        site: Uuid,
        from: Timestamp,
        to: Timestamp,
    ) -> StoreResult<DaySheet> {
        let mut tx = self.read.begin_with(dialect::BEGIN_SNAPSHOT).await?;
        let slots: Vec<SheetSlotRow> = sqlx::query_as(sql!(
            "SELECT {}, p.name AS product_name FROM slots s
             JOIN products p ON p.tenant_id = s.tenant_id AND p.id = s.product_id
             WHERE s.tenant_id = $1 AND s.site_id = $2 AND s.starts_at >= $3 AND s.starts_at < $4
             ORDER BY p.name, p.id, s.starts_at",
            SLOT_COLUMNS
                .split(", ")
                .map(|c| format!("s.{c}"))
                .collect::<Vec<_>>()
                .join(", ")
        ))
        .bind(tenant.as_str())
        .bind(site)
        .bind(from)
        .bind(to)
        .fetch_all(&mut *tx)
        .await?;
        let bookings: Vec<SheetBookingRow> = sqlx::query_as(sql!(
            "SELECT {BOOKING_COLUMNS},
                 (SELECT COUNT(*) FROM booking_notes n
                   WHERE n.tenant_id = b.tenant_id AND n.booking_id = b.id) AS notes,
                 (SELECT COUNT(*) FROM issues i
                   WHERE i.tenant_id = b.tenant_id AND i.booking_id = b.id
                     AND i.status IN ('open', 'in_progress')) AS open_issues
             FROM bookings b
             WHERE b.tenant_id = $1 AND b.site_id = $2 AND b.starts_at >= $3 AND b.starts_at < $4
               AND b.status <> 'expired'
             ORDER BY b.starts_at, b.created_at, b.id"
        ))
        .bind(tenant.as_str())
        .bind(site)
        .bind(from)
        .bind(to)
        .fetch_all(&mut *tx)
        .await?;
        let resources: Vec<DaySheetResource> = sqlx::query_as(
            "SELECT u.slot_id, NULL AS booking_id, u.resource_id, r.name, r.resource_type,
                    k.name AS skill_name, s.starts_at, s.ends_at
             FROM session_resources u
             JOIN slots s ON s.tenant_id = u.tenant_id AND s.id = u.slot_id
             JOIN resources r ON r.tenant_id = u.tenant_id AND r.id = u.resource_id
             LEFT JOIN skills k ON k.tenant_id = u.tenant_id AND k.id = u.skill_id
             WHERE u.tenant_id = $1 AND s.site_id = $2 AND s.starts_at >= $3
               AND s.starts_at < $4 AND s.booked > 0
             UNION ALL
             SELECT b.slot_id, a.booking_id, a.resource_id, r.name, r.resource_type, NULL,
                    a.starts_at, a.ends_at
             FROM resource_allocations a
             JOIN bookings b ON b.tenant_id = a.tenant_id AND b.id = a.booking_id
             JOIN resources r ON r.tenant_id = a.tenant_id AND r.id = a.resource_id
             WHERE a.tenant_id = $1 AND b.site_id = $2 AND b.starts_at >= $3
               AND b.starts_at < $4 AND a.status <> 'RELEASED'
             ORDER BY 4, 7",
        )
        .bind(tenant.as_str())
        .bind(site)
        .bind(from)
        .bind(to)
        .fetch_all(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(DaySheet {
            resources,
            slots: slots
                .into_iter()
                .map(|r| DaySheetSlot {
                    slot: r.slot.into(),
                    product_name: r.product_name,
                })
                .collect(),
            bookings: bookings
                .into_iter()
                .map(|r| {
                    Ok(DaySheetBooking {
                        booking: Booking::try_from(r.booking)?,
                        notes: r.notes,
                        open_issues: r.open_issues,
                    })
                })
                .collect::<StoreResult<_>>()?,
        })
    }
}
