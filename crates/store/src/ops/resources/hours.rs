//! A resource's own opening hours (spec Part B 4.12), read wherever its use is read:
//! outside them it counts as wholly used (`domain::scheduling::hours`).

use super::super::Db;
use super::super::scheduling::load_schedules;
use super::allocations::Use;
use crate::{StoreError, StoreResult, Timestamp};
use kairos_domain::TenantId;
use kairos_domain::scheduling::ScopeType;
use kairos_domain::scheduling::hours::closed_ranges;
use kairos_domain::tenancy::parse_time_zone;
use uuid::Uuid;

/// The times within `[from, to)` when `resource` is closed, each a use of its whole
/// capacity, in its site's time zone.
pub(super) async fn closed(
    conn: &mut <Db as sqlx::Database>::Connection,
    tenant: &TenantId,
    resource: Uuid,
    (from, to): (Timestamp, Timestamp),
) -> StoreResult<Vec<Use>> {
    let row: Option<(i32, String)> = sqlx::query_as(
        "SELECT r.capacity, s.timezone FROM resources r
         JOIN sites s ON s.tenant_id = r.tenant_id AND s.id = r.site_id
         WHERE r.tenant_id = $1 AND r.id = $2",
    )
    .bind(tenant.as_str())
    .bind(resource)
    .fetch_optional(&mut *conn)
    .await?;
    let Some((capacity, zone)) = row else {
        return Ok(Vec::new());
    };
    let tz = parse_time_zone(&zone).map_err(|e| StoreError::Corrupt(format!("timezone: {e}")))?;
    let schedules = load_schedules(conn, tenant, ScopeType::Resource, resource).await?;
    Ok(closed_ranges(&schedules, &tz, from, to)
        .into_iter()
        .map(|(blocked_from, blocked_until)| Use {
            blocked_from,
            blocked_until,
            units: capacity,
            booking_id: None,
            slot_id: None,
        })
        .collect())
}
