//! No-show detection: bookings with no arrival recorded within their site's detection
//! window after the start (off unless the site sets one) are marked no-show
//! (`detectionMethod: auto`) through the status machine, with the fee of the tenant's
//! policy, charged at once when the policy says so. Several instances: each booking is
//! marked on its locked row, so a booking marked (or arrived) meanwhile is skipped.

use super::{Job, JobError};
use crate::App;
use kairos_domain::fees::FeeStatus;
use kairos_store::{Actor, BookingAction, BookingError, NoShowMark};
use std::time::Duration;

/// Most bookings one pass marks.
const BATCH: i64 = 200;

pub struct DetectNoShows;

#[async_trait::async_trait]
impl Job for DetectNoShows {
    fn name(&self) -> &'static str {
        "detect_no_shows"
    }

    fn every(&self) -> Duration {
        Duration::from_secs(60)
    }

    async fn run(&self, app: &App) -> Result<u64, JobError> {
        Ok(detect_no_shows(app).await?)
    }
}

/// One pass: how many bookings it marked no-show.
pub async fn detect_no_shows(app: &App) -> crate::AppResult<u64> {
    let actor = Actor::system("no-show detection");
    let mut marked = 0;
    for (tenant, booking) in app.store.no_show_candidates(app.now(), BATCH).await? {
        let mark = NoShowMark {
            reason: Some("no arrival recorded within the site's detection window".to_owned()),
            automatic: true,
            ..Default::default()
        };
        match app
            .store
            .apply_booking_action(
                &tenant,
                booking,
                BookingAction::MarkNoShow(mark),
                &actor,
                app.now(),
                None,
            )
            .await
        {
            Ok(_) => marked += 1,
            // Arrived, cancelled or marked by another instance meanwhile.
            Err(BookingError::Refused(_) | BookingError::BookingNotFound) => continue,
            Err(e) => return Err(e.into()),
        }
        let policy = app.store.no_show_policy(&tenant).await?.policy;
        if !policy.auto_charge {
            continue;
        }
        if let Some(fee) = app
            .store
            .no_show_record(&tenant, booking)
            .await?
            .and_then(|r| r.fee)
            .filter(|f| f.status == FeeStatus::Pending)
            && let Err(e) = crate::fees::charge_fee(app, &tenant, fee.id, &actor).await
        {
            // Left pending, before staff on the no-show list.
            tracing::info!(booking = %booking, error = %e, "automatic no-show fee not charged");
        }
    }
    Ok(marked)
}
