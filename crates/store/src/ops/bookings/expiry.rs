//! The hold expiry sweep.

use super::transition::apply_transition;
use super::{Repo, dialect, load_for_update};
use crate::{Actor, StoreError, StoreResult, Timestamp};
use kairos_domain::TenantId;
use kairos_domain::bookings::BookingStatus;
use kairos_domain::bookings::Trigger;
use kairos_store_macros::operations;
use uuid::Uuid;

#[operations]
impl Repo {
    /// Expires up to `batch` overdue holds of every tenant and gives their seats back.
    /// Safe with several workers: rows another transaction holds are skipped.
    pub async fn expire_overdue_holds(&self, now: Timestamp, batch: i64) -> StoreResult<u64> {
        let mut tx = self.begin_write().await?;
        let due: Vec<(String, Uuid)> = sqlx::query_as(&format!(
            "SELECT tenant_id, id FROM bookings
             WHERE status = 'hold' AND hold_expires_at <= $1
             ORDER BY hold_expires_at, id LIMIT $2{}",
            dialect::FOR_UPDATE_SKIP_LOCKED
        ))
        .bind(now)
        .bind(batch)
        .fetch_all(&mut *tx)
        .await?;
        let mut expired = 0;
        for (tenant, id) in due {
            let tenant = TenantId::parse(&tenant)
                .map_err(|e| StoreError::Corrupt(format!("tenant id: {e}")))?;
            let mut b = load_for_update(&mut tx, &tenant, id).await?;
            if b.status != BookingStatus::Hold {
                continue;
            }
            apply_transition(
                &mut tx,
                &tenant,
                &mut b,
                Trigger::HoldExpired,
                &Actor::system("hold expiry"),
                None,
                now,
            )
            .await?;
            expired += 1;
        }
        tx.commit().await?;
        Ok(expired)
    }
}
