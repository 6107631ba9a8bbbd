//! What cancellations still owe, asked of the providers: a refund that could not run when
//! its booking was cancelled (another refund of the payment under way, a provider that
//! did not answer), and card refunds whose outcome was lost. A refund with no outcome for
//! a day goes before staff (REFUND_STALLED).

use super::refund::{refund_owed, refund_payment};
use crate::App;
use crate::error::{AppResult, code};
use kairos_store::Actor;

/// Payments one pass of the owed-refunds job looks at.
const UNFINISHED_BATCH: i64 = 100;

/// What one pass of the owed-refunds job did.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct OwedRefunds {
    /// Refunds asked for and completed (or left to a bank's callback).
    pub refunded: usize,
    /// Refunds that could not run now (another still under way, no answer): next pass.
    pub waiting: usize,
    /// Refunds the provider refused: before staff as REFUND_FAILED dead letters.
    pub failed: usize,
    /// Refunds with no outcome for a day, put before staff (REFUND_STALLED) this pass.
    pub stalled: u64,
}

/// The owed-refunds job: asks the providers for what cancellations still owe (a refund
/// that could not run when the booking was cancelled) and resumes card refunds whose
/// outcome was lost; a refund with no outcome for a day goes before staff. Safe with
/// several instances: each refund is begun on the locked payment, and one request at a
/// time asks the provider.
pub async fn finish_unfinished(app: &App) -> AppResult<OwedRefunds> {
    let mut done = OwedRefunds {
        stalled: app.store.flag_stalled_refunds(app.now()).await?,
        ..OwedRefunds::default()
    };
    let actor = Actor::system("owed refunds");
    for unfinished in app
        .store
        .unfinished_refunds(app.now(), UNFINISHED_BATCH)
        .await?
    {
        let reason = "owed by the cancellation of its booking".to_owned();
        let asked = match unfinished.owed {
            Some(_) => refund_owed(
                app,
                &unfinished.tenant,
                unfinished.payment_id,
                Some(reason),
                &actor,
            )
            .await
            .map(|done| done.is_some()),
            // A card refund whose outcome was lost: resumed as it was.
            None => refund_payment(
                app,
                &unfinished.tenant,
                unfinished.payment_id,
                None,
                Some(reason),
                &actor,
            )
            .await
            .map(|_| true),
        };
        match asked {
            Ok(true) => done.refunded += 1,
            Ok(false) => {}
            Err(e) if e.code() == Some(code::REFUND_FAILED) => done.failed += 1,
            Err(e) => {
                tracing::info!(payment_id = %unfinished.payment_id, reason = %e.message(), "owed refund waits for the next pass");
                done.waiting += 1;
            }
        }
    }
    Ok(done)
}
