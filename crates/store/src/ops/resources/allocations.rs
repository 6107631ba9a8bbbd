//! Taking resources for a booking (spec Part B 2.4, 3.2): every window of a request in one
//! transaction, each checked against the resource's live allocations under a lock of the
//! resource, so a resource is never given beyond what its shared mode allows.

use super::super::audit::Change;
use super::super::{Repo, dialect};
use crate::{Actor, Allocation, AllocationRequest, ResourceError, Timestamp};
use kairos_domain::resources::{AllocationStatus, SharedMode, fits, peak_use};
use kairos_domain::{TenantId, new_id};
use kairos_store_macros::operations;
use uuid::Uuid;

/// The exclusion constraint of EXCLUSIVE resources (PostgreSQL).
const EXCLUSIVE_CONSTRAINT: &str = "resource_allocations_exclusive";

#[operations]
impl Repo {
    /// Takes every requested window for the hold `booking`, HELD, or none of them: a
    /// resource not free for a window (buffers included) is
    /// [`ResourceError::Unavailable`], and nothing is written.
    pub async fn allocate_resources(
        &self,
        tenant: &TenantId,
        booking: Uuid,
        requests: Vec<AllocationRequest>,
        actor: &Actor,
        now: Timestamp,
    ) -> Result<Vec<Allocation>, ResourceError> {
        let mut w = self.begin(tenant, now).await?;
        let status: Option<String> = sqlx::query_scalar(sql!(
            "SELECT status FROM bookings WHERE tenant_id = $1 AND id = $2{}",
            dialect::FOR_UPDATE
        ))
        .bind(tenant.as_str())
        .bind(booking)
        .fetch_optional(&mut *w.tx)
        .await?;
        match status.as_deref() {
            None => return Err(ResourceError::BookingNotFound),
            Some("hold") => {}
            Some(_) => return Err(ResourceError::NotHold),
        }
        let mut made = Vec::new();
        for r in requests {
            // The configuration is the tenant's and gives this resource.
            let gives: Option<Uuid> = sqlx::query_scalar(
                "SELECT resource_id FROM resource_addon_configs WHERE tenant_id = $1 AND id = $2",
            )
            .bind(tenant.as_str())
            .bind(r.config_id)
            .fetch_optional(&mut *w.tx)
            .await?;
            if gives != Some(r.resource_id) {
                return Err(ResourceError::ConfigNotFound);
            }
            // The resource's row is the lock every allocation of it takes first.
            let resource: Option<(String, i32, bool)> = sqlx::query_as(sql!(
                "SELECT shared_mode, capacity, is_active FROM resources
                 WHERE tenant_id = $1 AND id = $2{}",
                dialect::FOR_UPDATE
            ))
            .bind(tenant.as_str())
            .bind(r.resource_id)
            .fetch_optional(&mut *w.tx)
            .await?;
            let Some((mode, capacity, true)) = resource else {
                return Err(ResourceError::ResourceNotFound);
            };
            let mode = crate::stored("shared_mode", &mode, SharedMode::parse)?;
            let taken: Vec<(Timestamp, Timestamp, i32)> = sqlx::query_as(
                "SELECT blocked_from, blocked_until, units FROM resource_allocations
                 WHERE tenant_id = $1 AND resource_id = $2 AND status <> 'RELEASED'
                   AND blocked_from < $4 AND blocked_until > $3",
            )
            .bind(tenant.as_str())
            .bind(r.resource_id)
            .bind(r.blocked_from)
            .bind(r.blocked_until)
            .fetch_all(&mut *w.tx)
            .await?;
            let peak = peak_use(&taken, r.blocked_from, r.blocked_until);
            if !fits(mode, capacity, peak, r.units) {
                return Err(ResourceError::Unavailable {
                    resource_id: r.resource_id,
                });
            }
            let id = new_id();
            let inserted = sqlx::query(
                "INSERT INTO resource_allocations (tenant_id, id, booking_id, config_id,
                     resource_id, position, starts_at, ends_at, blocked_from, blocked_until,
                     duration_mins, units, exclusive, price, status, created_at, updated_at)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, 'HELD',
                     $15, $15)",
            )
            .bind(tenant.as_str())
            .bind(id)
            .bind(booking)
            .bind(r.config_id)
            .bind(r.resource_id)
            .bind(r.position.as_str())
            .bind(r.starts_at)
            .bind(r.ends_at)
            .bind(r.blocked_from)
            .bind(r.blocked_until)
            .bind(r.duration_mins)
            .bind(r.units)
            .bind(mode == SharedMode::Exclusive)
            .bind(r.price)
            .bind(now)
            .execute(&mut *w.tx)
            .await;
            match inserted {
                Err(e) if dialect::violates_exclusion(&e, EXCLUSIVE_CONSTRAINT) => {
                    return Err(ResourceError::Unavailable {
                        resource_id: r.resource_id,
                    });
                }
                other => other?,
            };
            made.push(Allocation {
                id,
                booking_id: booking,
                request: r,
                status: AllocationStatus::Held,
                created_at: now,
            });
        }
        if !made.is_empty() {
            w.audit(
                actor,
                Change {
                    action: "booking.resources_held",
                    entity_type: "booking",
                    entity_id: booking.to_string(),
                    changes: serde_json::json!({ "allocations": made }),
                },
            );
        }
        w.commit(None).await?;
        Ok(made)
    }
}
