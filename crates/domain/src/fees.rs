//! Fees a venue charges on a booking after the fact (spec Part B 2.8, 4.8, 4.9): the
//! no-show fee of the tenant's policy, and other fees staff apply (damage, a late
//! cancellation). Amounts are minor units.
//!
//! A fee's life:
//!
//! | status | meaning | next |
//! |---|---|---|
//! | `pending` | assessed; the card the booking was paid with is on file | `charged`, `waived`, `cancelled` |
//! | `owed` | assessed; no card on file: staff collect it | `waived`, `cancelled` |
//! | `charged` | taken off-session from the card on file | `refunded` |
//! | `waived` | staff waived it, with a reason | |
//! | `cancelled` | the no-show was corrected (arrived late, rescheduled) before it was charged | |
//! | `refunded` | the no-show was corrected after it was charged: the charge is refunded | |
//!
//! A declined charge leaves the fee `pending` with the decline recorded, so staff can try
//! again or waive it.

crate::text_enum! {
    /// What a fee is for.
    pub enum FeeKind {
        NoShow = "no_show",
        Damage = "damage",
        LateCancellation = "late_cancellation",
        Other = "other",
    }
}

crate::text_enum! {
    /// Where a fee stands (the table above).
    pub enum FeeStatus {
        Pending = "pending",
        Owed = "owed",
        Charged = "charged",
        Waived = "waived",
        Cancelled = "cancelled",
        Refunded = "refunded",
    }
}

impl FeeStatus {
    /// Still to be collected (charged, or settled by staff).
    pub fn is_open(self) -> bool {
        matches!(self, FeeStatus::Pending | FeeStatus::Owed)
    }

    /// The status of a fee just assessed: charged later from the card on file, or owed.
    pub fn assessed(card_on_file: bool) -> FeeStatus {
        if card_on_file {
            FeeStatus::Pending
        } else {
            FeeStatus::Owed
        }
    }

    /// What correcting the no-show (arrived late, rescheduled) makes of its fee: an open
    /// fee is cancelled, a charged one refunded; others stay.
    pub fn on_correction(self) -> FeeStatus {
        match self {
            FeeStatus::Pending | FeeStatus::Owed => FeeStatus::Cancelled,
            FeeStatus::Charged => FeeStatus::Refunded,
            other => other,
        }
    }
}

crate::text_enum! {
    /// How a no-show was found (spec Part B 2.8).
    pub enum DetectionMethod {
        /// The detection job: no arrival within the site's window after the start.
        Auto = "auto",
        /// Staff marked it.
        Manual = "manual",
    }
}

crate::text_enum! {
    /// How a no-show was settled (spec Part B 4.9's resolution options).
    pub enum Resolution {
        FeeCharged = "fee_charged",
        FeeWaived = "fee_waived",
        /// The customer came after all: the booking is corrected to arrived.
        ArrivedLate = "arrived_late",
        /// The customer was given another booking.
        Rescheduled = "rescheduled",
    }
}

crate::text_enum! {
    /// How a tenant's no-show fee is worked out.
    pub enum NoShowFeeType {
        /// A fixed amount in minor units (at most the booking's total).
        Flat = "flat",
        /// A percentage of the booking's total, rounded down.
        Percentage = "percentage",
    }
}

/// The highest flat no-show fee or applied fee, in minor units (one million in major
/// units).
pub const MAX_FEE: i64 = 100_000_000;

/// The longest detection window a site may set: a day.
pub const MAX_DETECTION_MINUTES: i64 = 24 * 60;

/// A tenant's no-show fee policy. Disabled (the default): a no-show carries no fee unless
/// staff give one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct NoShowPolicy {
    pub enabled: bool,
    pub rule: NoShowFee,
    /// Charge the card on file as soon as the fee is assessed (by staff's no-show or the
    /// detection job); otherwise fees wait for staff (charge now, later, or waive).
    pub auto_charge: bool,
}

/// The fee of a no-show.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NoShowFee {
    Flat(i64),
    Percentage(i64),
}

impl Default for NoShowFee {
    fn default() -> Self {
        NoShowFee::Percentage(100)
    }
}

impl NoShowFee {
    /// Its type and its amount (flat) or share (percentage).
    pub fn parts(self) -> (NoShowFeeType, Option<i64>, Option<i64>) {
        match self {
            NoShowFee::Flat(a) => (NoShowFeeType::Flat, Some(a), None),
            NoShowFee::Percentage(p) => (NoShowFeeType::Percentage, None, Some(p)),
        }
    }

    /// The fee of a no-show on a booking whose total is `total` minor units: a flat fee at
    /// most the total, a percentage rounded down; never more than [`MAX_FEE`].
    pub fn amount(self, total: i64) -> i64 {
        let total = total.clamp(0, MAX_FEE);
        match self {
            NoShowFee::Flat(a) => a.clamp(0, total),
            NoShowFee::Percentage(p) => total * p.clamp(0, 100) / 100,
        }
    }
}

impl NoShowPolicy {
    /// The fee calculated for a no-show on a booking of `total`: 0 when disabled.
    pub fn calculated_fee(&self, total: i64) -> i64 {
        if self.enabled {
            self.rule.amount(total)
        } else {
            0
        }
    }

    /// How the fee is worked out, for the answer's `policy_applied`.
    pub fn describe(&self) -> String {
        if !self.enabled {
            return "no-show fees disabled".to_owned();
        }
        match self.rule {
            NoShowFee::Flat(a) => format!("flat {a} (minor units, at most the booking's total)"),
            NoShowFee::Percentage(p) => format!("{p}% of the booking's total, rounded down"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_flat_fee_is_at_most_the_booking_total() {
        assert_eq!(NoShowFee::Flat(1500).amount(4000), 1500);
        assert_eq!(NoShowFee::Flat(1500).amount(1000), 1000);
        assert_eq!(NoShowFee::Flat(1500).amount(-5), 0);
    }

    #[test]
    fn a_percentage_fee_rounds_down() {
        assert_eq!(NoShowFee::Percentage(50).amount(4001), 2000);
        assert_eq!(NoShowFee::Percentage(33).amount(100), 33);
        assert_eq!(NoShowFee::Percentage(150).amount(100), 100);
        assert_eq!(NoShowFee::Percentage(100).amount(MAX_FEE * 3), MAX_FEE);
    }

    #[test]
    fn a_disabled_policy_calculates_nothing() {
        let mut policy = NoShowPolicy {
            enabled: false,
            rule: NoShowFee::Flat(1000),
            auto_charge: false,
        };
        assert_eq!(policy.calculated_fee(5000), 0);
        policy.enabled = true;
        assert_eq!(policy.calculated_fee(5000), 1000);
    }

    #[test]
    fn a_correction_cancels_an_open_fee_and_refunds_a_charged_one() {
        assert_eq!(FeeStatus::Pending.on_correction(), FeeStatus::Cancelled);
        assert_eq!(FeeStatus::Owed.on_correction(), FeeStatus::Cancelled);
        assert_eq!(FeeStatus::Charged.on_correction(), FeeStatus::Refunded);
        assert_eq!(FeeStatus::Waived.on_correction(), FeeStatus::Waived);
        assert!(FeeStatus::assessed(true).is_open());
        assert_eq!(FeeStatus::assessed(false), FeeStatus::Owed);
    }
}
