//! What a cancelled booking's customer gets back (spec Part B 4.6, 4.8): the amount paid
//! minus the cancellation fee of the site's policy, which depends on how long before the
//! start the booking is cancelled. Amounts are minor units; a fee is rounded down (the
//! customer never pays a fraction of a cent more).
//!
//! | policy | notice | fee |
//! |---|---|---|
//! | standard | over 48 h | none |
//! | standard | 24 to 48 h | 50 % |
//! | standard | under 24 h | all |
//! | flexible | over 24 h | none |
//! | flexible | 24 h or less | 50 % |
//! | strict | over 72 h | the processing fee (5 %) |
//! | strict | 72 h or less | all |
//!
//! A cancellation by staff (the venue's decision) refunds in full.

use crate::catalog::CancellationPolicy;
use chrono::Duration;

/// The strict policy's processing fee, a percentage of the amount paid.
pub const STRICT_PROCESSING_FEE_PERCENT: i64 = 5;

/// The fee kept of `paid` when a booking under `policy` is cancelled `notice` before its
/// start (negative notice: after it started).
pub fn cancellation_fee(policy: CancellationPolicy, paid: i64, notice: Duration) -> i64 {
    let paid = paid.max(0);
    let percent = |p: i64| paid * p / 100;
    let hours = notice.num_minutes() as f64 / 60.0;
    match policy {
        CancellationPolicy::Standard if hours > 48.0 => 0,
        CancellationPolicy::Standard if hours >= 24.0 => percent(50),
        CancellationPolicy::Standard => paid,
        CancellationPolicy::Flexible if hours > 24.0 => 0,
        CancellationPolicy::Flexible => percent(50),
        CancellationPolicy::Strict if hours > 72.0 => percent(STRICT_PROCESSING_FEE_PERCENT),
        CancellationPolicy::Strict => paid,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use CancellationPolicy::{Flexible, Standard, Strict};

    fn h(hours: i64) -> Duration {
        Duration::hours(hours)
    }

    #[test]
    fn standard_refunds_all_then_half_then_nothing() {
        assert_eq!(cancellation_fee(Standard, 4000, h(49)), 0);
        assert_eq!(cancellation_fee(Standard, 4000, h(48)), 2000);
        assert_eq!(cancellation_fee(Standard, 4000, h(24)), 2000);
        assert_eq!(cancellation_fee(Standard, 4000, h(23)), 4000);
        assert_eq!(
            cancellation_fee(Standard, 4001, h(30)),
            2000,
            "rounded down"
        );
    }

    #[test]
    fn flexible_refunds_all_then_half() {
        assert_eq!(cancellation_fee(Flexible, 4000, h(25)), 0);
        assert_eq!(cancellation_fee(Flexible, 4000, h(24)), 2000);
        assert_eq!(cancellation_fee(Flexible, 4000, h(-1)), 2000);
    }

    #[test]
    fn strict_keeps_its_processing_fee_then_everything() {
        assert_eq!(cancellation_fee(Strict, 4000, h(73)), 200);
        assert_eq!(cancellation_fee(Strict, 4000, h(72)), 4000);
        assert_eq!(cancellation_fee(Strict, 0, h(100)), 0);
        assert_eq!(cancellation_fee(Strict, -5, h(100)), 0);
    }
}
