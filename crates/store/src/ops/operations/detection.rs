//! Candidates for the no-show detection job: bookings of sites with a detection window
//! whose start plus the window has passed with no arrival recorded. The job marks each
//! through the status machine on the locked booking, so a booking marked arrived (or by
//! another instance) meanwhile is left as it is.

use super::super::Repo;
use crate::{StoreError, StoreResult, Timestamp};
use kairos_domain::TenantId;
use kairos_store_macros::operations;
use uuid::Uuid;

/// How far back the job looks: a booking whose window ended over a day ago is left to
/// staff (switching detection on never marks a venue's history).
const LOOK_BACK_HOURS: i64 = 24;

#[operations]
impl Repo {
    /// Bookings (tenant and id) due to be marked no-show at `now`, oldest start first, at
    /// most `limit`: tentative (to pay on arrival), confirmed, part-paid or paid, at a site whose detection window is
    /// set, started over the window ago and less than a day before that.
    pub async fn no_show_candidates(
        &self,
        now: Timestamp,
        limit: i64,
    ) -> StoreResult<Vec<(TenantId, Uuid)>> {
        // The window is at most a day: bookings that started in the last two days.
        let since = now - chrono::Duration::hours(LOOK_BACK_HOURS + 24);
        let rows: Vec<(String, Uuid, Timestamp, i32)> = sqlx::query_as(
            "SELECT b.tenant_id, b.id, b.starts_at, s.no_show_detection_minutes
             FROM bookings b JOIN sites s ON s.tenant_id = b.tenant_id AND s.id = b.site_id
             WHERE s.no_show_detection_minutes IS NOT NULL
               AND b.status IN ('tentative', 'confirmed', 'part_paid', 'paid')
               AND b.starts_at >= $1 AND b.starts_at <= $2
             ORDER BY b.starts_at, b.id",
        )
        .bind(since)
        .bind(now)
        .fetch_all(&self.read)
        .await?;
        let mut due = Vec::new();
        for (tenant, id, starts_at, window) in rows {
            let deadline = starts_at + chrono::Duration::minutes(i64::from(window));
            if deadline <= now && now - deadline <= chrono::Duration::hours(LOOK_BACK_HOURS) {
                let tenant = TenantId::parse(&tenant)
                    .map_err(|e| StoreError::Corrupt(format!("tenant id: {e}")))?;
                due.push((tenant, id));
                if i64::try_from(due.len()).unwrap_or(i64::MAX) >= limit {
                    break;
                }
            }
        }
        Ok(due)
    }
}
