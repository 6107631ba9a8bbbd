//! Customers refused new holds after a no-show (`blockFutureBookings`), by email and by
//! account, until staff lift the block.

use super::super::Repo;
use super::super::audit::Change;
use super::super::write::Write;
use crate::{
    Actor, BookingError, BookingRefusal, CustomerBlock, StoreResult, Timestamp, actor_label,
};
use kairos_domain::{TenantId, new_id};
use kairos_store_macros::operations;
use serde_json::json;
use uuid::Uuid;

const COLUMNS: &str = "id, email, customer_id, booking_id, reason, created_at, created_by, \
     lifted_at, lifted_by, lift_reason";

#[derive(kairos_store_macros::FromRow)]
struct BlockRow {
    id: Uuid,
    email: String,
    customer_id: Option<Uuid>,
    booking_id: Option<Uuid>,
    reason: String,
    created_at: Timestamp,
    created_by: String,
    lifted_at: Option<Timestamp>,
    lifted_by: Option<String>,
    lift_reason: Option<String>,
}

impl From<BlockRow> for CustomerBlock {
    fn from(r: BlockRow) -> Self {
        CustomerBlock {
            id: r.id,
            email: r.email,
            customer_id: r.customer_id,
            booking_id: r.booking_id,
            reason: r.reason,
            created_at: r.created_at,
            created_by: r.created_by,
            lifted_at: r.lifted_at,
            lifted_by: r.lifted_by,
            lift_reason: r.lift_reason,
        }
    }
}

/// Blocks the customer with `email` (and account `customer`) from new holds.
pub(super) async fn insert_block(
    w: &mut Write,
    email: &str,
    customer: Option<Uuid>,
    booking: Option<Uuid>,
    reason: &str,
    actor: &Actor,
) -> StoreResult<()> {
    let id = new_id();
    sqlx::query(
        "INSERT INTO customer_blocks (tenant_id, id, email, customer_id, booking_id, reason,
             created_at, created_by)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
    )
    .bind(w.tenant.as_str())
    .bind(id)
    .bind(email.to_lowercase())
    .bind(customer)
    .bind(booking)
    .bind(reason)
    .bind(w.now)
    .bind(actor_label(actor))
    .execute(&mut *w.tx)
    .await?;
    w.audit(
        actor,
        Change {
            action: "customer_block.created",
            entity_type: "customer_block",
            entity_id: id.to_string(),
            changes: json!({"email": email.to_lowercase(), "customerId": customer,
                "bookingId": booking, "reason": reason}),
        },
    );
    Ok(())
}

/// Refuses a new hold for a blocked customer (by email or account), read in the hold's
/// own transaction.
pub(crate) async fn refuse_blocked(
    w: &mut Write,
    email: &str,
    customer: Option<Uuid>,
) -> Result<(), BookingError> {
    let blocked: Option<i32> = sqlx::query_scalar(
        "SELECT 1 FROM customer_blocks
         WHERE tenant_id = $1 AND lifted_at IS NULL
           AND (email = $2 OR ($3 IS NOT NULL AND customer_id = $3)) LIMIT 1",
    )
    .bind(w.tenant.as_str())
    .bind(email.to_lowercase())
    .bind(customer)
    .fetch_optional(&mut *w.tx)
    .await?;
    if blocked.is_some() {
        return Err(BookingRefusal::CustomerBlocked.into());
    }
    Ok(())
}

#[operations]
impl Repo {
    /// The tenant's customer blocks, newest first: only those in force unless `all`.
    pub async fn customer_blocks(
        &self,
        tenant: &TenantId,
        all: bool,
        limit: i64,
        offset: i64,
    ) -> StoreResult<(Vec<CustomerBlock>, i64)> {
        let rows: Vec<BlockRow> = sqlx::query_as(sql!(
            "SELECT {COLUMNS} FROM customer_blocks
             WHERE tenant_id = $1 AND ($2 OR lifted_at IS NULL)
             ORDER BY created_at DESC, id LIMIT $3 OFFSET $4"
        ))
        .bind(tenant.as_str())
        .bind(all)
        .bind(limit)
        .bind(offset)
        .fetch_all(&self.read)
        .await?;
        let total: i64 = sqlx::query_scalar(
            "SELECT COUNT(*) FROM customer_blocks WHERE tenant_id = $1 AND ($2 OR lifted_at IS NULL)",
        )
        .bind(tenant.as_str())
        .bind(all)
        .fetch_one(&self.read)
        .await?;
        Ok((rows.into_iter().map(Into::into).collect(), total))
    }

    /// Lifts a block (once: a block lifted before answers as it is). None: no such block.
    pub async fn lift_customer_block(
        &self,
        tenant: &TenantId,
        id: Uuid,
        reason: Option<&str>,
        actor: &Actor,
        now: Timestamp,
    ) -> StoreResult<Option<CustomerBlock>> {
        let mut w = self.begin(tenant, now).await?;
        let lifted = sqlx::query(
            "UPDATE customer_blocks SET lifted_at = $3, lifted_by = $4, lift_reason = $5
             WHERE tenant_id = $1 AND id = $2 AND lifted_at IS NULL",
        )
        .bind(tenant.as_str())
        .bind(id)
        .bind(now)
        .bind(actor_label(actor))
        .bind(reason)
        .execute(&mut *w.tx)
        .await?;
        if lifted.rows_affected() > 0 {
            w.audit(
                actor,
                Change {
                    action: "customer_block.lifted",
                    entity_type: "customer_block",
                    entity_id: id.to_string(),
                    changes: json!({"reason": reason}),
                },
            );
        }
        let row: Option<BlockRow> = sqlx::query_as(sql!(
            "SELECT {COLUMNS} FROM customer_blocks WHERE tenant_id = $1 AND id = $2"
        ))
        .bind(tenant.as_str())
        .bind(id)
        .fetch_optional(&mut *w.tx)
        .await?;
        w.commit(None).await?;
        Ok(row.map(Into::into))
    }
}
