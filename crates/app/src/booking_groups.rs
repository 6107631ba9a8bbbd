//! Cancelling a booking group (spec Part B 4.3): every booking of it that may still be
//! cancelled is cancelled through the booking's own cancellation ([`cancel`]), one after
//! the other, each releasing its seats and refunding in full what was paid for it. A
//! booking already cancelled, expired, completed or a no-show is left as it is, and one the
//! status machine does not let cancel (arrived) is reported as kept; one that changed
//! while the group was being cancelled is taken as it is now. Should a booking's
//! cancellation fail (the database), those done stay done and the same request again
//! cancels the rest; refunds a provider refuses or delays are the booking's own
//! cancellation's to finish (the owed-refunds job, or a dead letter before staff).

use crate::App;
use crate::bookings::cancel::{Cancellation, Cancelled, cancel};
use crate::error::{AppError, AppResult};
use kairos_domain::TenantId;
use kairos_domain::booking_groups::GroupStatus;
use kairos_domain::bookings::{BookingStatus, Trigger, transition};
use kairos_store::{Actor, BookingError, BookingGroup, BookingRefusal, GroupError};
use uuid::Uuid;

/// A cancelled group: the group as it is now, each booking cancelled with its refund, and
/// the bookings kept (their status does not allow a cancellation).
#[derive(Debug, Clone)]
pub struct GroupCancelled {
    pub group: BookingGroup,
    pub cancelled: Vec<Cancelled>,
    pub kept: Vec<(Uuid, BookingStatus)>,
}

/// Whether a booking is over: nothing of it to cancel.
fn is_over(status: BookingStatus) -> bool {
    matches!(
        status,
        BookingStatus::Canceled
            | BookingStatus::Expired
            | BookingStatus::Completed
            | BookingStatus::NoShow
    )
}

/// Cancels the group `id` for `reason`.
pub async fn cancel_group(
    app: &App,
    tenant: &TenantId,
    id: Uuid,
    reason: Option<String>,
    actor: &Actor,
) -> AppResult<GroupCancelled> {
    let group = app
        .store
        .booking_group(tenant, id)
        .await?
        .ok_or(GroupError::NotFound)?;
    if group.status(app.now()) == GroupStatus::Draft {
        // Nothing was held: a draft is deleted, not cancelled.
        return Err(GroupError::NothingHeld.into());
    }
    let mut cancelled = Vec::new();
    let mut kept = Vec::new();
    for child in &group.bookings {
        if is_over(child.status) {
            continue;
        }
        if transition(child.status, Trigger::Cancel).is_err() {
            kept.push((child.booking_id, child.status));
            continue;
        }
        let how = Cancellation::Request {
            reason: reason.clone(),
            by_customer: false,
        };
        match cancel(app, tenant, child.booking_id, how, actor).await {
            Ok(done) => cancelled.push(done),
            // It changed since the group was read (expired, cancelled or arrived
            // meanwhile): as it is now, it is over or kept.
            Err(AppError::Booking(BookingError::Refused(BookingRefusal::InvalidTransition(_)))) => {
                if let Some(current) = app.store.get_booking(tenant, child.booking_id).await?
                    && transition(current.status, Trigger::Cancel).is_err()
                    && !is_over(current.status)
                {
                    kept.push((current.id, current.status));
                }
            }
            Err(e) => return Err(e),
        }
    }
    let group = app
        .store
        .booking_group(tenant, id)
        .await?
        .ok_or(GroupError::NotFound)?;
    Ok(GroupCancelled {
        group,
        cancelled,
        kept,
    })
}
