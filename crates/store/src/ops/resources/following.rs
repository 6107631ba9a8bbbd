//! A booking's resource add-ons moving with it (a reschedule, a staff move): each keeps
//! its position, length and buffers around the new time, or the move is refused.

use super::super::dialect;
use super::super::write::Write;
use super::allocations::{EXCLUSIVE_CONSTRAINT, live_addons, lock_resource, use_of};
use crate::{
    AllocationRequest, Booking, BookingError, BookingRefusal, StoreError, StoreResult, Timestamp,
};
use kairos_domain::resources::{WindowPosition, fits, peak_use};
use uuid::Uuid;

/// A live allocation of a booking, moved with it to a new activity time.
pub(crate) struct Moved {
    pub id: Uuid,
    pub resource_name: String,
    pub request: AllocationRequest,
    /// Its resource is free for it (others' allocations counted).
    pub fits: bool,
}

/// The locked booking's live allocations moved to the activity `[start, end)`, each
/// keeping its position, length and buffers (BEFORE still ends at the start, DURING
/// starts with it, AFTER starts at the end), with whether its resource (locked now) is
/// free for it.
pub(crate) async fn moved_with(
    w: &mut Write,
    b: &Booking,
    (start, end): (Timestamp, Timestamp),
) -> StoreResult<Vec<Moved>> {
    let live = live_addons(&mut *w.tx, &w.tenant, b.id).await?;
    let mut ids: Vec<Uuid> = live
        .iter()
        .map(|a| a.allocation.request.resource_id)
        .collect();
    ids.sort();
    ids.dedup();
    let mut locked = Vec::new();
    for id in ids {
        locked.push((id, lock_resource(&mut w.tx, &w.tenant, id).await?));
    }
    let mut moved: Vec<Moved> = Vec::new();
    for a in live {
        let r = &a.allocation.request;
        let length = r.ends_at - r.starts_at;
        let (starts_at, ends_at) = match r.position {
            WindowPosition::Before => (start - length, start),
            WindowPosition::During => (start, start + length),
            WindowPosition::After => (end, end + length),
        };
        let shift = starts_at - r.starts_at;
        let mut n = r.clone();
        n.starts_at = starts_at;
        n.ends_at = ends_at;
        n.blocked_from = r.blocked_from + shift;
        n.blocked_until = r.blocked_until + shift;
        let resource = locked
            .iter()
            .find(|l| l.0 == r.resource_id)
            .and_then(|l| l.1);
        let fits_now = match resource {
            Some((mode, capacity, true)) => {
                let range = (n.blocked_from, n.blocked_until);
                let mut taken =
                    use_of(&mut w.tx, &w.tenant, r.resource_id, range, Some(b.id)).await?;
                taken.extend(
                    moved
                        .iter()
                        .filter(|m| m.request.resource_id == r.resource_id)
                        .map(|m| {
                            (
                                m.request.blocked_from,
                                m.request.blocked_until,
                                m.request.units,
                            )
                        }),
                );
                fits(mode, capacity, peak_use(&taken, range.0, range.1), n.units)
            }
            _ => false,
        };
        moved.push(Moved {
            id: a.allocation.id,
            resource_name: a.resource_name,
            request: n,
            fits: fits_now,
        });
    }
    Ok(moved)
}

/// Moves the locked booking's live allocations with it to the activity `[start, end)`
/// ([`moved_with`]); a resource not free for a moved window is
/// [`BookingRefusal::ResourceUnavailable`], and the caller's transaction is rolled back.
pub(crate) async fn follow(
    w: &mut Write,
    b: &Booking,
    activity: (Timestamp, Timestamp),
) -> Result<(), BookingError> {
    let mut moved = moved_with(w, b, activity).await?;
    if let Some(m) = moved.iter().find(|m| !m.fits) {
        return Err(BookingRefusal::ResourceUnavailable {
            resource_id: m.request.resource_id,
        }
        .into());
    }
    // Later windows first when moving later (earlier first when earlier), so a booking's
    // own windows never meet on the way (PostgreSQL checks its constraint per row).
    let later = activity.0 > b.starts_at;
    moved.sort_by_key(|m| m.request.starts_at);
    if later {
        moved.reverse();
    }
    for m in moved {
        let n = m.request;
        let updated = sqlx::query(
            "UPDATE resource_allocations SET starts_at = $3, ends_at = $4, blocked_from = $5,
                 blocked_until = $6, updated_at = $7
             WHERE tenant_id = $1 AND id = $2",
        )
        .bind(w.tenant.as_str())
        .bind(m.id)
        .bind(n.starts_at)
        .bind(n.ends_at)
        .bind(n.blocked_from)
        .bind(n.blocked_until)
        .bind(w.now)
        .execute(&mut *w.tx)
        .await;
        match updated {
            Err(e) if dialect::violates_exclusion(&e, EXCLUSIVE_CONSTRAINT) => {
                return Err(BookingRefusal::ResourceUnavailable {
                    resource_id: n.resource_id,
                }
                .into());
            }
            other => other.map_err(StoreError::from)?,
        };
    }
    Ok(())
}
