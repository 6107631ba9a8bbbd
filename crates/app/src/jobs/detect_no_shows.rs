//! No-show detection: bookings with no arrival recorded within their site's detection
//! window after the start (off unless the site sets one) are marked no-show
//! (`detectionMethod: auto`) through the status machine, with the fee of the tenant's
//! policy, charged at once when the policy says so. Several instances: each booking is
//! marked on its locked row, so a booking marked (or arrived) meanwhile is skipped.

use super::{Job, JobError};
use crate::App;
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
    let (mut marked, mut failed) = (0, 0);
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
            // One booking that cannot be marked holds up none of the others.
            Err(e) => {
                failed += 1;
                tracing::warn!(booking = %booking, error = %e, "booking not marked no-show; tried again next pass");
                continue;
            }
        }
        match crate::fees::after_no_show(app, &tenant, booking, &actor).await {
            // Left for staff on the no-show list.
            Ok(warnings) => {
                for w in warnings {
                    tracing::info!(booking = %booking, "{w}");
                }
            }
            Err(e) => tracing::warn!(booking = %booking, error = %e, "no-show fee not settled"),
        }
    }
    if marked == 0 && failed > 0 {
        return Err(crate::error::Failure::internal(format!(
            "{failed} bookings could not be marked no-show"
        ))
        .into());
    }
    Ok(marked)
}
