//! The hold expiry sweep.

use super::transition::apply_transition;
use super::{Repo, dialect, load_for_update};
use crate::{Actor, BookingError, StoreError, StoreResult, Timestamp};
use kairos_domain::TenantId;
use kairos_domain::bookings::{BookingStatus, Trigger};
use kairos_store_macros::operations;
use uuid::Uuid;

#[operations]
impl Repo {
    /// Expires up to `batch` overdue holds of every tenant and gives their seats back.
    /// Safe with several workers: rows another transaction holds are skipped.
    pub async fn expire_overdue_holds(&self, now: Timestamp, batch: i64) -> StoreResult<u64> {
        let system = TenantId::parse("system")
            .map_err(|e| StoreError::Corrupt(format!("tenant id: {e}")))?;
        let mut w = self.begin(&system, now).await?;
        let mut due: Vec<(String, Uuid, Uuid)> = sqlx::query_as(sql!(
            "SELECT tenant_id, id, slot_id FROM bookings
             WHERE status = 'hold' AND hold_expires_at <= $1
             ORDER BY hold_expires_at, id LIMIT $2{}",
            dialect::FOR_UPDATE_SKIP_LOCKED
        ))
        .bind(now)
        .bind(batch)
        .fetch_all(&mut *w.tx)
        .await?;
        // Seats are given back slot by slot in slot id order, the order in which a group
        // hold (and a move) takes its slots, so the sweep never waits for a slot another
        // transaction holds while holding one that transaction waits for.
        due.sort_by_key(|(_, id, slot)| (*slot, *id));
        let mut expired = 0;
        for (tenant, id, _) in due {
            let tenant = TenantId::parse(&tenant)
                .map_err(|e| StoreError::Corrupt(format!("tenant id: {e}")))?;
            // The sweep crosses tenants: each booking's rows are written for its own.
            w.switch_tenant(tenant.clone());
            let mut b = load_for_update(&mut w.tx, &tenant, id)
                .await
                .map_err(into_store)?;
            if b.status != BookingStatus::Hold {
                continue;
            }
            apply_transition(
                &mut w,
                &mut b,
                Trigger::HoldExpired,
                &Actor::system("hold expiry"),
                None,
            )
            .await
            .map_err(into_store)?;
            expired += 1;
        }
        w.commit(None).await?;
        Ok(expired)
    }
}

/// Expiring a hold is always possible; any other failure is the database's.
fn into_store(e: BookingError) -> StoreError {
    match e {
        BookingError::Store(e) => e,
        other => StoreError::Corrupt(format!("hold expiry: {other}")),
    }
}
