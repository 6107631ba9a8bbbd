//! Two-phase booking moves (spec Part B 4.10): the check of a move (its hard and soft
//! conflicts and warnings), answered by the precheck in a transaction rolled back, and run
//! again by the commit inside its own transaction on the locked booking and slots, so what
//! decides the move is read where it is made. A booking covers one slot (its product's
//! duration, setup and cleanup included), so a move releases that slot's seats and takes
//! the new one's, all or nothing.

use super::super::resources::following;
use super::offer::site_policy;
use super::seats::{release_seats, take_seats_reclaiming};
use super::{Change, Repo, Write, dialect, load_for_update, lock_slots};
use crate::{
    Actor, Booking, BookingError, BookingRefusal, MoveCheck, MoveConflict, MoveDone, MoveError,
    MoveRequest, MoveWarning, SeatPolicy, SlotCapacity, StoreError, Timestamp,
};
use kairos_domain::bookings::BookingStatus;
use kairos_domain::moves::{ConflictType, MIN_GAP_MINUTES, overbooking_risk};
use kairos_domain::{TenantId, new_id};
use kairos_store_macros::operations;
use serde_json::json;
use uuid::Uuid;

#[derive(kairos_store_macros::FromRow)]
struct Target {
    id: Uuid,
    product_id: Uuid,
    starts_at: Timestamp,
    ends_at: Timestamp,
    capacity: i32,
    booked: i32,
    is_orphaned: bool,
}

async fn target(w: &mut Write, id: Uuid) -> Result<Target, MoveError> {
    let t: Option<Target> = sqlx::query_as(
        "SELECT id, product_id, starts_at, ends_at, capacity, booked, is_orphaned FROM slots
         WHERE tenant_id = $1 AND id = $2",
    )
    .bind(w.tenant.as_str())
    .bind(id)
    .fetch_optional(&mut *w.tx)
    .await?;
    t.ok_or(MoveError::SlotNotFound)
}

fn conflict(
    kind: ConflictType,
    message: impl Into<String>,
    details: serde_json::Value,
) -> MoveConflict {
    MoveConflict {
        kind,
        message: message.into(),
        details,
    }
}

/// What moving `b` to `t` meets now.
async fn check(w: &mut Write, b: &Booking, t: &Target) -> Result<MoveCheck, MoveError> {
    let mut hard = Vec::new();
    let mut soft = Vec::new();
    let mut warnings = Vec::new();
    // Holds past their expiry give their seats back when the seats are taken.
    let overdue: Option<i64> = sqlx::query_scalar(
        "SELECT CAST(SUM(party_size) AS BIGINT) FROM bookings
         WHERE tenant_id = $1 AND slot_id = $2 AND status = 'hold' AND hold_expires_at <= $3",
    )
    .bind(w.tenant.as_str())
    .bind(t.id)
    .bind(w.now)
    .fetch_one(&mut *w.tx)
    .await?;
    let overdue = i32::try_from(overdue.unwrap_or(0)).unwrap_or(0);
    let free = t.capacity - t.booked + overdue;
    if free < b.party_size {
        hard.push(conflict(
            ConflictType::CapacityExceeded,
            format!(
                "The slot has {free} free seats; the party is {}",
                b.party_size
            ),
            json!({"available_capacity": free.max(0), "party_size": b.party_size}),
        ));
    }
    if t.starts_at <= w.now {
        hard.push(conflict(
            ConflictType::TimeConflict,
            "The slot has started",
            json!({"slot_starts_at": t.starts_at}),
        ));
    }
    if t.is_orphaned {
        hard.push(conflict(
            ConflictType::BlackoutWindow,
            "The schedule no longer offers this slot (a blackout or an override closed it)",
            json!({"slot_id": t.id}),
        ));
    }
    // The customer's other bookings at, or close to, the new time.
    let gap = chrono::Duration::minutes(MIN_GAP_MINUTES);
    let others: Vec<(Uuid, Timestamp, Timestamp)> = sqlx::query_as(
        "SELECT id, starts_at, ends_at FROM bookings
         WHERE tenant_id = $1 AND id <> $2 AND customer_email = $3 AND customer_email <> ''
           AND status NOT IN ('canceled', 'expired', 'no_show', 'completed')
           AND starts_at < $5 AND ends_at > $4",
    )
    .bind(w.tenant.as_str())
    .bind(b.id)
    .bind(&b.customer.email)
    .bind(t.starts_at - gap)
    .bind(t.ends_at + gap)
    .fetch_all(&mut *w.tx)
    .await?;
    for (other, starts, ends) in others {
        if starts < t.ends_at && ends > t.starts_at {
            hard.push(conflict(
                ConflictType::TimeConflict,
                "The customer has another booking at that time",
                json!({"booking_id": other, "starts_at": starts, "ends_at": ends}),
            ));
        } else {
            soft.push(conflict(
                ConflictType::MinGapViolation,
                format!("The customer's other booking is less than {MIN_GAP_MINUTES} minutes away"),
                json!({"booking_id": other, "starts_at": starts, "ends_at": ends,
                    "min_gap_minutes": MIN_GAP_MINUTES}),
            ));
        }
    }
    // Its resource add-ons move with it: each must be free at the new time.
    for m in following::moved_with(w, b, (t.starts_at, t.ends_at)).await? {
        if !m.fits {
            hard.push(conflict(
                ConflictType::ResourceOverlap,
                format!("{} is not free at the new time", m.resource_name),
                json!({"allocation_id": m.id, "resource_id": m.request.resource_id,
                    "resource_name": m.resource_name, "starts_at": m.request.starts_at,
                    "ends_at": m.request.ends_at}),
            ));
        }
    }
    if let Some((resource, skill)) = session_refusal(w, b, t).await? {
        hard.push(conflict(
            ConflictType::ResourceOverlap,
            "A room, piece of equipment or staff member the new session needs is taken",
            json!({"resource_id": resource, "skill_id": skill}),
        ));
    }
    let after = i64::from(t.booked - overdue + b.party_size);
    if free >= b.party_size && overbooking_risk(after, i64::from(t.capacity)) {
        soft.push(conflict(
            ConflictType::OverbookingRisk,
            format!("The slot would be {after} of {} full", t.capacity),
            json!({"booked_after": after, "capacity": t.capacity}),
        ));
    }
    let (policy, _) = site_policy(&mut w.tx, &w.tenant, b.site_id).await?;
    // A hold is the customer's to change freely; past it, the site's window applies.
    if b.status != BookingStatus::Hold && b.starts_at - w.now < policy.customer_window() {
        soft.push(conflict(
            ConflictType::PolicyDeviation,
            format!(
                "The booking is inside the site's {} policy window: a customer could not move it",
                policy.as_str()
            ),
            json!({"policy": policy.as_str(), "window_hours": policy.customer_window().num_hours()}),
        ));
    }
    if t.starts_at.date_naive() != b.starts_at.date_naive() {
        warnings.push(MoveWarning {
            kind: "different_day",
            message: "The booking moves to another day: tell the customer".to_owned(),
            details: json!({"from": b.starts_at, "to": t.starts_at}),
        });
    }
    if b.paid_amount > 0 {
        warnings.push(MoveWarning {
            kind: "paid_booking",
            message: "The booking is paid: its price and payment stay as they are".to_owned(),
            details: json!({"paid_amount": b.paid_amount}),
        });
    }
    Ok(MoveCheck {
        booking_id: b.id,
        original_slot_id: b.slot_id,
        new_slot_id: t.id,
        hard,
        soft,
        warnings,
    })
}

/// What the new session needs (its rooms, a qualified staff member per skill) is taken:
/// the resource, or the skill no free staff member has. Tried as the commit takes them,
/// the booking's seats given back first, under a savepoint that is then undone.
async fn session_refusal(
    w: &mut Write,
    b: &Booking,
    t: &Target,
) -> Result<Option<(Option<Uuid>, Option<Uuid>)>, StoreError> {
    // A booking that does not move (cancelled, an expired hold) is refused for that.
    if !movable(b, w.now) {
        return Ok(None);
    }
    sqlx::query("SAVEPOINT move_session_check")
        .execute(&mut *w.tx)
        .await?;
    let tried = match release_seats(&mut w.tx, &w.tenant, b.slot_id, b.party_size, w.now).await {
        Ok(()) => super::super::resources::sessions::claim(w, t.id, b.party_size).await,
        Err(e) => Err(e.into()),
    };
    sqlx::query("ROLLBACK TO SAVEPOINT move_session_check")
        .execute(&mut *w.tx)
        .await?;
    sqlx::query("RELEASE SAVEPOINT move_session_check")
        .execute(&mut *w.tx)
        .await?;
    match tried {
        Ok(()) => Ok(None),
        Err(BookingError::Refused(BookingRefusal::SessionUnavailable {
            resource_id,
            skill_id,
        })) => Ok(Some((resource_id, skill_id))),
        Err(BookingError::Store(e)) => Err(e),
        Err(other) => Err(StoreError::Corrupt(other.to_string())),
    }
}

/// The booking and its target, checked for a move: the booking movable, the slot its
/// product's and not its own.
async fn prepare(w: &mut Write, req: &MoveRequest) -> Result<(Booking, Target), MoveError> {
    let b = match load_for_update(&mut w.tx, &w.tenant, req.booking_id).await {
        Ok(b) => b,
        Err(BookingError::BookingNotFound) => return Err(MoveError::BookingNotFound),
        Err(BookingError::Store(e)) => return Err(e.into()),
        Err(other) => return Err(StoreError::Corrupt(other.to_string()).into()),
    };
    let t = target(w, req.new_slot_id).await?;
    if t.product_id != b.product_id {
        return Err(MoveError::OtherProduct);
    }
    if t.id == b.slot_id {
        return Err(MoveError::SameSlot);
    }
    Ok((b, t))
}

/// Whether a booking may move now: held (and not expired), tentative, confirmed or paid.
pub(super) fn movable(b: &Booking, now: Timestamp) -> bool {
    match b.status {
        BookingStatus::Hold => b.hold_expires_at.is_none_or(|t| t > now),
        status => matches!(
            status,
            BookingStatus::Tentative
                | BookingStatus::Confirmed
                | BookingStatus::PartPaid
                | BookingStatus::Paid
        ),
    }
}

fn failed(reason: &'static str, message: impl Into<String>, action: &'static str) -> MoveError {
    MoveError::Failed {
        reason,
        message: message.into(),
        suggested_action: action,
        check: None,
    }
}

/// Seats of a slot as they are now, locked above.
async fn seats(w: &mut Write, slot: Uuid) -> Result<(i32, i32, i64), MoveError> {
    Ok(sqlx::query_as(
        "SELECT booked, capacity, projection_version FROM slots WHERE tenant_id = $1 AND id = $2",
    )
    .bind(w.tenant.as_str())
    .bind(slot)
    .fetch_one(&mut *w.tx)
    .await?)
}

/// The commit's writes, inside its transaction.
async fn commit(w: &mut Write, req: &MoveRequest, actor: &Actor) -> Result<MoveDone, MoveError> {
    let (mut b, t) = match prepare(w, req).await {
        Err(MoveError::SameSlot) => {
            return Err(failed(
                "already_in_slot",
                "The booking is in this slot already (moved by another request?)",
                "nothing to do; read the booking to see where it is",
            ));
        }
        other => other?,
    };
    if !movable(&b, w.now) {
        return Err(failed(
            "booking_not_movable",
            format!("A {} booking cannot be moved", b.status),
            "only a held (not expired), tentative, confirmed or paid booking moves",
        ));
    }
    // The slots locked (after the booking, in id order) before anything about them is
    // read: what decides the move is what it changes.
    let previous = b.slot_id;
    let mut slots = [previous, t.id];
    lock_slots(&mut w.tx, &w.tenant, &mut slots).await?;
    let t = target(w, t.id).await?;
    let checked = check(w, &b, &t).await?;
    if !checked.hard.is_empty() {
        return Err(MoveError::Failed {
            reason: "hard_conflicts",
            message: "The move meets conflicts that block it".to_owned(),
            suggested_action: "choose another slot (POST /api/v1/admin/calendar/precheck-move lists what blocks it)",
            check: Some(Box::new(checked)),
        });
    }
    if !checked.soft.is_empty() && !req.confirmed_override {
        return Err(MoveError::Failed {
            reason: "soft_conflicts_not_confirmed",
            message: "The move meets conflicts that need confirming".to_owned(),
            suggested_action: "send confirmed_override: true to move anyway, or choose another slot",
            check: Some(Box::new(checked)),
        });
    }
    // Its resource add-ons move with it, or the move is refused.
    match following::follow(w, &b, (t.starts_at, t.ends_at)).await {
        Ok(()) => {}
        Err(BookingError::Refused(BookingRefusal::ResourceUnavailable { .. })) => {
            return Err(failed(
                "resource_unavailable",
                "A resource add-on of the booking is not free at the new time",
                "choose another slot, or change the booking's resource add-ons first",
            ));
        }
        Err(BookingError::Store(e)) => return Err(e.into()),
        Err(other) => return Err(StoreError::Corrupt(other.to_string()).into()),
    }
    let (old_before, _, _) = seats(w, previous).await?;
    let (new_before, _, _) = seats(w, t.id).await?;
    // Given back first, so a session left empty frees what it held for the new one; a
    // refusal rolls both back.
    release_seats(&mut w.tx, &w.tenant, previous, b.party_size, w.now).await?;
    match take_seats_reclaiming(w, t.id, b.party_size, SeatPolicy::Checked).await {
        Ok(_) => {}
        Err(BookingError::Refused(BookingRefusal::SlotUnavailable)) => {
            return Err(failed(
                "capacity_exceeded",
                "The new slot no longer has room for the party",
                "choose another slot",
            ));
        }
        Err(BookingError::Refused(BookingRefusal::SessionUnavailable { .. })) => {
            return Err(failed(
                "resource_unavailable",
                "A room, piece of equipment or staff member the new session needs is taken",
                "choose another slot",
            ));
        }
        Err(BookingError::Store(e)) => return Err(e.into()),
        Err(other) => return Err(StoreError::Corrupt(other.to_string()).into()),
    }
    sqlx::query(
        "UPDATE bookings SET slot_id = $3, starts_at = $4, ends_at = $5, updated_at = $6
         WHERE tenant_id = $1 AND id = $2",
    )
    .bind(w.tenant.as_str())
    .bind(b.id)
    .bind(t.id)
    .bind(t.starts_at)
    .bind(t.ends_at)
    .bind(w.now)
    .execute(&mut *w.tx)
    .await?;
    let (old_after, old_capacity, old_version) = seats(w, previous).await?;
    let (new_after, new_capacity, new_version) = seats(w, t.id).await?;
    let transaction_id = new_id();
    w.audit(
        actor,
        Change {
            action: "booking.moved",
            entity_type: "booking",
            entity_id: b.id.to_string(),
            changes: json!({
                "slotId": {"from": previous, "to": t.id},
                "startTime": {"from": b.starts_at, "to": t.starts_at},
                "reason": req.reason, "requestedBy": req.requested_by,
                "validation": {"hard": [], "soft": checked.soft.iter().map(|c| c.kind.as_str()).collect::<Vec<_>>(),
                    "overridden": req.confirmed_override && !checked.soft.is_empty()},
                "outcome": "committed", "transactionId": transaction_id,
            }),
        },
    );
    b.slot_id = t.id;
    b.starts_at = t.starts_at;
    b.ends_at = t.ends_at;
    b.updated_at = w.now;
    Ok(MoveDone {
        booking: b,
        previous_slot_id: previous,
        moved_at: w.now,
        capacity_updates: vec![
            SlotCapacity {
                slot_id: previous,
                previous_count: old_before,
                new_count: old_after,
                capacity: old_capacity,
                projection_version: old_version,
            },
            SlotCapacity {
                slot_id: t.id,
                previous_count: new_before,
                new_count: new_after,
                capacity: new_capacity,
                projection_version: new_version,
            },
        ],
        transaction_id,
        check: checked,
    })
}

/// Opens a move's transaction within `lock_wait` (SQLite: its one writer), with the
/// statement and lock bounds of the database.
async fn begin_move(
    repo: &Repo,
    tenant: &TenantId,
    now: Timestamp,
    (timeout, lock_wait): (std::time::Duration, std::time::Duration),
) -> Result<Write, MoveError> {
    let mut w = match tokio::time::timeout(lock_wait, repo.begin(tenant, now)).await {
        Ok(w) => w?,
        Err(_) => return Err(busy()),
    };
    for statement in dialect::move_limits(timeout, lock_wait) {
        sqlx::query(sqlx::AssertSqlSafe(statement))
            .execute(&mut *w.tx)
            .await?;
    }
    Ok(w)
}

fn busy() -> MoveError {
    failed(
        "lock_timeout",
        "The booking or a slot was busy for longer than the lock wait",
        "try again in a moment",
    )
}

/// A database failure of a move as the caller is told: a lock waited for too long, a
/// transaction the database gave up (deadlock, serialization), else the failure itself.
fn classify(e: MoveError) -> MoveError {
    match e {
        MoveError::Store(StoreError::Database(ref db)) if dialect::is_lock_timeout(db) => busy(),
        MoveError::Store(StoreError::Database(ref db)) if dialect::is_transaction_conflict(db) => {
            failed(
                "transaction_failed",
                "The database gave up the move's transaction (another change met it)",
                "try again",
            )
        }
        other => other,
    }
}

#[operations]
impl Repo {
    /// What moving a booking would meet, without moving it (a transaction rolled back,
    /// within the move's bounds).
    pub async fn precheck_move(
        &self,
        tenant: &TenantId,
        req: &MoveRequest,
        now: Timestamp,
        limits: (std::time::Duration, std::time::Duration),
    ) -> Result<(MoveCheck, BookingStatus, bool), MoveError> {
        let mut w = begin_move(self, tenant, now, limits)
            .await
            .map_err(classify)?;
        let checked = match tokio::time::timeout(limits.0, async {
            let (b, t) = prepare(&mut w, req).await?;
            let checked = check(&mut w, &b, &t).await?;
            Ok::<_, MoveError>((checked, b.status, movable(&b, w.now)))
        })
        .await
        {
            Ok(result) => result.map_err(classify),
            Err(_) => Err(busy()),
        };
        if let Err(e) = w.tx.rollback().await {
            tracing::warn!(error = %e, "a move's precheck did not roll back cleanly");
        }
        checked
    }

    /// Moves a booking in one transaction (at most `timeout` in all, a lock waited for at
    /// most `lock_wait`): the check run again on the locked booking and slots, the seats
    /// released from the old slot and taken in the new one, the booking changed and the
    /// move audited, all or nothing. A failed move changes nothing; it is audited on its
    /// own (`booking.move_failed`).
    pub async fn commit_move(
        &self,
        tenant: &TenantId,
        req: &MoveRequest,
        actor: &Actor,
        now: Timestamp,
        limits: (std::time::Duration, std::time::Duration),
    ) -> Result<MoveDone, MoveError> {
        let (timeout, _) = limits;
        let result = match begin_move(self, tenant, now, limits).await {
            Err(e) => Err(e),
            Ok(mut w) => {
                let result = match tokio::time::timeout(timeout, commit(&mut w, req, actor)).await {
                    Ok(result) => result,
                    Err(_) => Err(failed(
                        "transaction_timeout",
                        format!(
                            "The move took longer than {} s and was rolled back",
                            timeout.as_secs()
                        ),
                        "try again in a moment",
                    )),
                };
                match result {
                    Ok(done) => w
                        .commit(None)
                        .await
                        .map(|()| done)
                        .map_err(MoveError::Store),
                    Err(e) => {
                        if let Err(r) = w.tx.rollback().await {
                            tracing::warn!(error = %r, "a failed move did not roll back cleanly");
                        }
                        Err(e)
                    }
                }
            }
        };
        let result = result.map_err(classify);
        if let Err(e) = &result {
            let failure = match e {
                MoveError::Failed { reason, .. } => (*reason).to_owned(),
                MoveError::Store(_) => "internal_error".to_owned(),
                other => other.to_string(),
            };
            if let Err(a) = self
                .audit_failed_move(tenant, req, &failure, actor, now)
                .await
            {
                tracing::warn!(error = %a, "a failed move was not audited");
            }
        }
        result
    }
}

impl Repo {
    async fn audit_failed_move(
        &self,
        tenant: &TenantId,
        req: &MoveRequest,
        reason: &str,
        actor: &Actor,
        now: Timestamp,
    ) -> Result<(), StoreError> {
        let mut w = self.begin(tenant, now).await?;
        w.audit(
            actor,
            Change {
                action: "booking.move_failed",
                entity_type: "booking",
                entity_id: req.booking_id.to_string(),
                changes: json!({"newSlotId": req.new_slot_id, "reason": req.reason,
                    "requestedBy": req.requested_by, "outcome": "failed", "failure": reason,
                    "transactionId": new_id()}),
            },
        );
        w.commit(None).await
    }
}
