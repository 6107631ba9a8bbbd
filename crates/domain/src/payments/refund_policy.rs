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
//! That schedule is the tenant's default fee, `time_based`. A tenant may set a `flat` fee
//! (a fixed amount, at most what was paid) or a `percentage` fee (of what was paid,
//! rounded down) instead, kept whatever the notice ([`FeeRule`]). A cancellation by staff
//! (the venue's decision) refunds in full.

use crate::catalog::CancellationPolicy;
use chrono::Duration;

crate::text_enum! {
    /// How a tenant's cancellation fee is worked out (spec Part B 4.6: "flat fee,
    /// percentage fee, or time-based fee").
    pub enum FeeType {
        /// The site policy's schedule by notice (the table above): the default.
        TimeBased = "time_based",
        /// A fixed amount in minor units.
        Flat = "flat",
        /// A share of what was paid.
        Percentage = "percentage",
    }
}

/// The highest flat fee a tenant may set, in minor units (one million in major units).
pub const MAX_FLAT_FEE: i64 = 100_000_000;

/// A tenant's cancellation fee.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum FeeRule {
    /// The site policy's schedule by notice.
    #[default]
    TimeBased,
    /// This many minor units (at most what was paid).
    Flat(i64),
    /// This percentage (0 to 100) of what was paid, rounded down.
    Percentage(i64),
}

impl FeeRule {
    /// Its type and its amount (`flat`) or share (`percentage`).
    pub fn parts(self) -> (FeeType, Option<i64>, Option<i64>) {
        match self {
            FeeRule::TimeBased => (FeeType::TimeBased, None, None),
            FeeRule::Flat(amount) => (FeeType::Flat, Some(amount), None),
            FeeRule::Percentage(p) => (FeeType::Percentage, None, Some(p)),
        }
    }

    /// The fee kept of `paid` when a booking of a site under `policy` is cancelled
    /// `notice` before its start.
    pub fn fee(self, policy: CancellationPolicy, paid: i64, notice: Duration) -> i64 {
        let paid = paid.max(0);
        match self {
            FeeRule::TimeBased => cancellation_fee(policy, paid, notice),
            FeeRule::Flat(amount) => amount.clamp(0, paid),
            FeeRule::Percentage(p) => paid * p.clamp(0, 100) / 100,
        }
    }
}

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

/// How a cancellation's refund of `refund` (minor units) splits over what was paid
/// (spec Part B 4.6): the card and bank payments first, in the order given (`left`: what
/// each has not refunded yet), then the vouchers (`vouchers`: what they paid). Answers
/// each payment's part and the vouchers' part; the parts add up to `refund` bounded by
/// what was paid.
pub fn split_refund(refund: i64, left: &[i64], vouchers: i64) -> (Vec<i64>, i64) {
    let mut rest = refund.max(0);
    let parts = left
        .iter()
        .map(|l| {
            let part = rest.min((*l).max(0));
            rest -= part;
            part
        })
        .collect();
    (parts, rest.min(vouchers.max(0)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refund_takes_the_payments_first_then_the_vouchers() {
        assert_eq!(split_refund(4000, &[4000], 0), (vec![4000], 0));
        assert_eq!(
            split_refund(2000, &[1000, 3000], 3000),
            (vec![1000, 1000], 0)
        );
        assert_eq!(split_refund(3500, &[1000], 3000), (vec![1000], 2500));
        assert_eq!(split_refund(0, &[1000], 3000), (vec![0], 0));
        // Never more than was paid, never negative.
        assert_eq!(split_refund(9000, &[1000], 3000), (vec![1000], 3000));
        assert_eq!(split_refund(-5, &[1000], 3000), (vec![0], 0));
    }
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
    fn a_tenant_fee_rule_replaces_the_schedule() {
        assert_eq!(FeeRule::TimeBased.fee(Flexible, 4000, h(23)), 2000);
        assert_eq!(FeeRule::Flat(500).fee(Flexible, 4000, h(23)), 500);
        assert_eq!(FeeRule::Flat(500).fee(Standard, 4000, h(100)), 500);
        assert_eq!(
            FeeRule::Flat(5000).fee(Standard, 4000, h(1)),
            4000,
            "at most what was paid"
        );
        assert_eq!(FeeRule::Percentage(10).fee(Strict, 4000, h(1)), 400);
        assert_eq!(
            FeeRule::Percentage(15).fee(Strict, 999, h(1)),
            149,
            "rounded down"
        );
        assert_eq!(FeeRule::Percentage(0).fee(Standard, 4000, h(1)), 0);
        assert_eq!(FeeRule::Flat(500).fee(Standard, -1, h(1)), 0);
    }

    #[test]
    fn strict_keeps_its_processing_fee_then_everything() {
        assert_eq!(cancellation_fee(Strict, 4000, h(73)), 200);
        assert_eq!(cancellation_fee(Strict, 4000, h(72)), 4000);
        assert_eq!(cancellation_fee(Strict, 0, h(100)), 0);
        assert_eq!(cancellation_fee(Strict, -5, h(100)), 0);
    }
}
