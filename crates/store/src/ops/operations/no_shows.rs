//! The no-show tracking record (spec Part B 2.8): written in the transaction that makes a
//! booking `no_show` (staff's no-show, `mark-no-show`, a status change, the detection
//! job), with the fee of the tenant's policy and the block of the customer; corrected in
//! the transaction that makes it `arrived` again.

use super::super::audit::Change;
use super::super::write::Write;
use super::super::{Db, Repo, dialect};
use super::fees::{
    FEE_COLUMNS, FeeRow, attempt_of, insert_fee, lock_booking, lock_fee, set_fee_status,
};
use super::policy::read_no_show_policy;
use crate::{
    Actor, Booking, BookingFee, ContactAttempt, FeeError, NewFee, NoShowMark, NoShowRecord,
    PendingNoShow, PendingNoShows, StoreError, StoreResult, Timestamp, actor_label, stored,
};
use kairos_domain::fees::{DetectionMethod, FeeKind, FeeStatus, Resolution};
use kairos_domain::{TenantId, new_id};
use kairos_store_macros::operations;
use serde_json::json;
use sqlx::types::Json;
use uuid::Uuid;

const RECORD_COLUMNS: &str = "n.id, n.booking_id, n.no_show_time, n.minutes_past_start_time, \
     n.detected_at, n.detection_method, n.fee_calculated, n.fee_id, n.marked_by, n.reason, \
     n.notes, n.contact_attempts, n.block_future_bookings, n.resolution, n.resolved_at, \
     n.resolution_notes";

#[derive(kairos_store_macros::FromRow)]
struct RecordRow {
    id: Uuid,
    booking_id: Uuid,
    no_show_time: Timestamp,
    minutes_past_start_time: i32,
    detected_at: Timestamp,
    detection_method: String,
    fee_calculated: i64,
    fee_id: Option<Uuid>,
    marked_by: String,
    reason: Option<String>,
    notes: Option<String>,
    contact_attempts: Json<Vec<ContactAttempt>>,
    block_future_bookings: bool,
    resolution: Option<String>,
    resolved_at: Option<Timestamp>,
    resolution_notes: Option<String>,
}

impl RecordRow {
    fn into_record(self, fee: Option<BookingFee>) -> Result<NoShowRecord, StoreError> {
        Ok(NoShowRecord {
            id: self.id,
            booking_id: self.booking_id,
            no_show_time: self.no_show_time,
            minutes_past_start_time: self.minutes_past_start_time,
            detected_at: self.detected_at,
            detection_method: stored(
                "detection method",
                &self.detection_method,
                DetectionMethod::parse,
            )?,
            fee_calculated: self.fee_calculated,
            fee,
            marked_by: self.marked_by,
            reason: self.reason,
            notes: self.notes,
            contact_attempts: self.contact_attempts.0,
            block_future_bookings: self.block_future_bookings,
            resolution: self
                .resolution
                .as_deref()
                .map(|r| stored("resolution", r, Resolution::parse))
                .transpose()?,
            resolved_at: self.resolved_at,
            resolution_notes: self.resolution_notes,
        })
    }
}

async fn fee_of<'e>(
    db: impl sqlx::Executor<'e, Database = Db>,
    tenant: &TenantId,
    id: Option<Uuid>,
) -> StoreResult<Option<BookingFee>> {
    let Some(id) = id else { return Ok(None) };
    let row: Option<FeeRow> = sqlx::query_as(sql!(
        "SELECT {FEE_COLUMNS} FROM booking_fees f WHERE f.tenant_id = $1 AND f.id = $2"
    ))
    .bind(tenant.as_str())
    .bind(id)
    .fetch_optional(db)
    .await?;
    row.map(BookingFee::try_from).transpose()
}

/// Writes the tracking record of `b`, made `no_show` in this transaction: the fee of the
/// tenant's policy (when it is applied and comes to more than nothing), and the block of
/// the customer. A booking marked again after a correction gets its record anew.
pub(crate) async fn track_no_show(
    w: &mut Write,
    b: &Booking,
    mark: &NoShowMark,
    actor: &Actor,
) -> StoreResult<()> {
    let policy = read_no_show_policy(&mut *w.tx, &w.tenant).await?.policy;
    let calculated = policy.calculated_fee(b.price.total);
    let apply = mark.apply_fee.unwrap_or(policy.enabled);
    let fee = if apply && calculated > 0 {
        Some(
            insert_fee(
                w,
                b.id,
                &b.price.currency,
                &NewFee {
                    kind: FeeKind::NoShow,
                    amount: calculated,
                    reason: Some("no_show".to_owned()),
                    notes: None,
                },
                actor,
            )
            .await?,
        )
    } else {
        None
    };
    let minutes = (w.now - b.starts_at)
        .num_minutes()
        .clamp(0, i64::from(i32::MAX));
    let method = if mark.automatic {
        DetectionMethod::Auto
    } else {
        DetectionMethod::Manual
    };
    sqlx::query(
        "INSERT INTO no_shows (tenant_id, id, booking_id, no_show_time, minutes_past_start_time,
             detected_at, detection_method, fee_calculated, fee_id, marked_by, reason, notes,
             contact_attempts, block_future_bookings)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)
         ON CONFLICT (tenant_id, booking_id) DO UPDATE SET
             no_show_time = excluded.no_show_time,
             minutes_past_start_time = excluded.minutes_past_start_time,
             detected_at = excluded.detected_at, detection_method = excluded.detection_method,
             fee_calculated = excluded.fee_calculated, fee_id = excluded.fee_id,
             marked_by = excluded.marked_by, reason = excluded.reason, notes = excluded.notes,
             contact_attempts = excluded.contact_attempts,
             block_future_bookings = excluded.block_future_bookings,
             resolution = NULL, resolved_at = NULL, resolution_notes = NULL",
    )
    .bind(w.tenant.as_str())
    .bind(new_id())
    .bind(b.id)
    .bind(mark.no_show_time.unwrap_or(b.starts_at))
    .bind(i32::try_from(minutes).unwrap_or(i32::MAX))
    .bind(w.now)
    .bind(method.as_str())
    .bind(calculated)
    .bind(fee.as_ref().map(|f| f.id))
    .bind(actor_label(actor))
    .bind(mark.reason.as_deref())
    .bind(mark.notes.as_deref())
    .bind(Json(&mark.contact_attempts))
    .bind(mark.block_future_bookings)
    .execute(&mut *w.tx)
    .await?;
    if mark.block_future_bookings {
        super::blocks::insert_block(
            w,
            &b.customer.email,
            b.customer.id,
            Some(b.id),
            &format!("no-show on booking {}", b.reference),
            actor,
        )
        .await?;
    }
    w.audit(
        actor,
        Change {
            action: "no_show.recorded",
            entity_type: "booking",
            entity_id: b.id.to_string(),
            changes: json!({"detectionMethod": method.as_str(), "feeCalculated": calculated,
                "feeId": fee.as_ref().map(|f| f.id),
                "blockFutureBookings": mark.block_future_bookings}),
        },
    );
    Ok(())
}

/// Corrects the no-show of `b`, made `arrived` again in this transaction (the customer
/// came late): the record resolved `arrived_late`, an open fee cancelled, a charged one
/// refunded (its payment's refund target, returned by the refund asked after the commit
/// or by the owed-refunds job).
pub(crate) async fn correct_no_show(
    w: &mut Write,
    b: &Booking,
    resolution: Resolution,
    notes: Option<&str>,
    actor: &Actor,
) -> StoreResult<()> {
    let fee_id: Option<Option<Uuid>> = sqlx::query_scalar(sql!(
        "SELECT fee_id FROM no_shows WHERE tenant_id = $1 AND booking_id = $2{}",
        dialect::FOR_UPDATE
    ))
    .bind(w.tenant.as_str())
    .bind(b.id)
    .fetch_optional(&mut *w.tx)
    .await?;
    let Some(fee_id) = fee_id else {
        return Ok(());
    };
    sqlx::query(
        "UPDATE no_shows SET resolution = $3, resolved_at = $4, resolution_notes = $5
         WHERE tenant_id = $1 AND booking_id = $2",
    )
    .bind(w.tenant.as_str())
    .bind(b.id)
    .bind(resolution.as_str())
    .bind(w.now)
    .bind(notes)
    .execute(&mut *w.tx)
    .await?;
    if let Some(fee_id) = fee_id {
        let mut fee = lock_fee(w, fee_id).await.map_err(|e| match e {
            FeeError::Store(s) => s,
            other => StoreError::Corrupt(other.to_string()),
        })?;
        let next = fee.status.on_correction();
        if next != fee.status {
            if next == FeeStatus::Refunded {
                sqlx::query(
                    "UPDATE payments SET refund_target = amount
                     WHERE tenant_id = $1 AND fee_id = $2
                       AND status IN ('COMPLETED', 'REFUND_PENDING', 'REFUNDED')",
                )
                .bind(w.tenant.as_str())
                .bind(fee.id)
                .execute(&mut *w.tx)
                .await?;
            }
            set_fee_status(w, &mut fee, next, actor).await?;
        }
    }
    w.audit(
        actor,
        Change {
            action: "no_show.resolved",
            entity_type: "booking",
            entity_id: b.id.to_string(),
            changes: json!({"resolution": resolution.as_str(), "notes": notes}),
        },
    );
    Ok(())
}

#[operations]
impl Repo {
    /// The booking's no-show tracking record, with its fee.
    pub async fn no_show_record(
        &self,
        tenant: &TenantId,
        booking: Uuid,
    ) -> StoreResult<Option<NoShowRecord>> {
        let row: Option<RecordRow> = sqlx::query_as(sql!(
            "SELECT {RECORD_COLUMNS} FROM no_shows n WHERE n.tenant_id = $1 AND n.booking_id = $2"
        ))
        .bind(tenant.as_str())
        .bind(booking)
        .fetch_optional(&self.read)
        .await?;
        let Some(row) = row else { return Ok(None) };
        let fee = fee_of(&self.read, tenant, row.fee_id).await?;
        row.into_record(fee).map(Some)
    }

    /// Open no-shows (no resolution yet), newest first, a page at a time, with the total
    /// and the sum of their open fees (minor units).
    pub async fn pending_no_shows(
        &self,
        tenant: &TenantId,
        site: Option<Uuid>,
        limit: i64,
        offset: i64,
    ) -> StoreResult<PendingNoShows> {
        #[derive(kairos_store_macros::FromRow)]
        struct Row {
            #[sqlx(flatten)]
            record: RecordRow,
            customer_id: Option<Uuid>,
            customer_name: String,
            starts_at: Timestamp,
        }
        let rows: Vec<Row> = sqlx::query_as(sql!(
            "SELECT {RECORD_COLUMNS}, b.customer_id, b.customer_name, b.starts_at
             FROM no_shows n JOIN bookings b ON b.tenant_id = n.tenant_id AND b.id = n.booking_id
             WHERE n.tenant_id = $1 AND n.resolution IS NULL AND ($4 IS NULL OR b.site_id = $4)
             ORDER BY n.detected_at DESC, n.id LIMIT $2 OFFSET $3"
        ))
        .bind(tenant.as_str())
        .bind(limit)
        .bind(offset)
        .bind(site)
        .fetch_all(&self.read)
        .await?;
        let total: i64 = sqlx::query_scalar(
            "SELECT COUNT(*)
             FROM no_shows n JOIN bookings b ON b.tenant_id = n.tenant_id AND b.id = n.booking_id
             WHERE n.tenant_id = $1 AND n.resolution IS NULL AND ($2 IS NULL OR b.site_id = $2)",
        )
        .bind(tenant.as_str())
        .bind(site)
        .fetch_one(&self.read)
        .await?;
        let pending_fees: Vec<(String, i64)> = sqlx::query_as(
            "SELECT f.currency, CAST(SUM(f.amount) AS BIGINT)
             FROM no_shows n JOIN bookings b ON b.tenant_id = n.tenant_id AND b.id = n.booking_id
             JOIN booking_fees f ON f.tenant_id = n.tenant_id AND f.id = n.fee_id
             WHERE n.tenant_id = $1 AND n.resolution IS NULL AND ($2 IS NULL OR b.site_id = $2)
               AND f.status IN ('pending', 'owed')
             GROUP BY f.currency ORDER BY f.currency",
        )
        .bind(tenant.as_str())
        .bind(site)
        .fetch_all(&self.read)
        .await?;
        let mut items = Vec::with_capacity(rows.len());
        for r in rows {
            let fee = fee_of(&self.read, tenant, r.record.fee_id).await?;
            items.push(PendingNoShow {
                record: r.record.into_record(fee)?,
                customer_id: r.customer_id,
                customer_name: r.customer_name,
                booking_time: r.starts_at,
            });
        }
        Ok(PendingNoShows {
            items,
            total,
            pending_fees,
        })
    }

    /// The fee of an open no-show, to process: its open fee (set to `amount` when given),
    /// or a new one of `amount` (default: the fee the policy calculated) linked to the
    /// record. `Nothing` when that comes to 0.
    pub async fn no_show_fee(
        &self,
        tenant: &TenantId,
        booking: Uuid,
        amount: Option<i64>,
        notes: Option<&str>,
        actor: &Actor,
        now: Timestamp,
    ) -> Result<(NoShowRecord, BookingFee), FeeError> {
        let mut w = self.begin(tenant, now).await?;
        lock_booking(&mut w, booking).await?;
        let row: Option<RecordRow> = sqlx::query_as(sql!(
            "SELECT {RECORD_COLUMNS} FROM no_shows n WHERE n.tenant_id = $1 AND n.booking_id = $2{}",
            dialect::FOR_UPDATE
        ))
        .bind(tenant.as_str())
        .bind(booking)
        .fetch_optional(&mut *w.tx)
        .await?;
        let row = row.ok_or(FeeError::NoRecord)?;
        if let Some(done) = row.resolution.as_deref().and_then(Resolution::parse) {
            return Err(FeeError::Resolved(done));
        }
        let fee = match row.fee_id {
            Some(id) => {
                let mut fee = lock_fee(&mut w, id).await?;
                if !fee.status.is_open() {
                    return Err(FeeError::NotOpen(fee.status, "charged"));
                }
                if let Some(amount) = amount.filter(|a| *a != fee.amount) {
                    // A charge under way asks for the amount it began with.
                    if attempt_of(&mut w, &fee)
                        .await?
                        .is_some_and(|(_, status, _, _)| status == "PENDING")
                    {
                        return Err(FeeError::ChargeInProgress);
                    }
                    if amount == 0 {
                        return Err(FeeError::Nothing);
                    }
                    sqlx::query(
                        "UPDATE booking_fees SET amount = $3, notes = COALESCE($4, notes)
                         WHERE tenant_id = $1 AND id = $2",
                    )
                    .bind(tenant.as_str())
                    .bind(id)
                    .bind(amount)
                    .bind(notes)
                    .execute(&mut *w.tx)
                    .await?;
                    w.audit(
                        actor,
                        Change {
                            action: "fee.amount_changed",
                            entity_type: "booking",
                            entity_id: booking.to_string(),
                            changes: json!({"feeId": id, "amount": {"from": fee.amount, "to": amount}}),
                        },
                    );
                    fee.amount = amount;
                }
                fee
            }
            None => {
                let amount = amount.unwrap_or(row.fee_calculated);
                if amount <= 0 {
                    return Err(FeeError::Nothing);
                }
                let currency: String = sqlx::query_scalar(
                    "SELECT currency FROM bookings WHERE tenant_id = $1 AND id = $2",
                )
                .bind(tenant.as_str())
                .bind(booking)
                .fetch_one(&mut *w.tx)
                .await?;
                let new = NewFee {
                    kind: FeeKind::NoShow,
                    amount,
                    reason: Some("no_show".to_owned()),
                    notes: notes.map(str::to_owned),
                };
                let fee = insert_fee(&mut w, booking, &currency, &new, actor).await?;
                sqlx::query(
                    "UPDATE no_shows SET fee_id = $3 WHERE tenant_id = $1 AND booking_id = $2",
                )
                .bind(tenant.as_str())
                .bind(booking)
                .bind(fee.id)
                .execute(&mut *w.tx)
                .await?;
                fee
            }
        };
        let record = row.into_record(Some(fee.clone()))?;
        w.commit(None).await?;
        Ok((record, fee))
    }

    /// Settles an open no-show without the booking changing: `rescheduled` (the customer
    /// was given another booking, named in `notes`) cancels an open fee; `fee_waived`
    /// waives it. `arrived_late` is the booking's own correction (mark-arrived).
    pub async fn resolve_no_show(
        &self,
        tenant: &TenantId,
        booking: Uuid,
        resolution: Resolution,
        notes: Option<&str>,
        actor: &Actor,
        now: Timestamp,
    ) -> Result<NoShowRecord, FeeError> {
        let mut w = self.begin(tenant, now).await?;
        lock_booking(&mut w, booking).await?;
        let row: Option<RecordRow> = sqlx::query_as(sql!(
            "SELECT {RECORD_COLUMNS} FROM no_shows n WHERE n.tenant_id = $1 AND n.booking_id = $2{}",
            dialect::FOR_UPDATE
        ))
        .bind(tenant.as_str())
        .bind(booking)
        .fetch_optional(&mut *w.tx)
        .await?;
        let row = row.ok_or(FeeError::NoRecord)?;
        if let Some(done) = row.resolution.as_deref().and_then(Resolution::parse) {
            return Err(FeeError::Resolved(done));
        }
        let mut fee = match row.fee_id {
            Some(id) => Some(lock_fee(&mut w, id).await?),
            None => None,
        };
        if let Some(fee) = fee.as_mut() {
            let next = match resolution {
                Resolution::FeeWaived => FeeStatus::Waived,
                _ => FeeStatus::Cancelled,
            };
            if fee.status.is_open() {
                set_fee_status(&mut w, fee, next, actor).await?;
            } else if fee.status == FeeStatus::Charged && resolution == Resolution::FeeWaived {
                return Err(FeeError::NotOpen(fee.status, "waived"));
            }
        }
        sqlx::query(
            "UPDATE no_shows SET resolution = $3, resolved_at = $4, resolution_notes = $5
             WHERE tenant_id = $1 AND booking_id = $2",
        )
        .bind(tenant.as_str())
        .bind(booking)
        .bind(resolution.as_str())
        .bind(now)
        .bind(notes)
        .execute(&mut *w.tx)
        .await?;
        w.audit(
            actor,
            Change {
                action: "no_show.resolved",
                entity_type: "booking",
                entity_id: booking.to_string(),
                changes: json!({"resolution": resolution.as_str(), "notes": notes}),
            },
        );
        let mut record = row.into_record(fee)?;
        record.resolution = Some(resolution);
        record.resolved_at = Some(now);
        record.resolution_notes = notes.map(str::to_owned);
        w.commit(None).await?;
        Ok(record)
    }
}
