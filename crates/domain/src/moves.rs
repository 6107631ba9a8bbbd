//! Two-phase booking moves (spec Part B 4.10): the conflicts a move to another slot can
//! meet, which block it (hard) and which staff may override (soft).

crate::text_enum! {
    /// A conflict of a move.
    pub enum ConflictType {
        /// The new slot has fewer free seats than the party.
        CapacityExceeded = "capacity_exceeded",
        /// A resource the booking needs is taken at the new time.
        ResourceOverlap = "resource_overlap",
        /// The new slot has started, or the customer has another booking at that time.
        TimeConflict = "time_conflict",
        /// The schedule no longer offers the new slot (a blackout or an override closed it).
        BlackoutWindow = "blackout_window",
        /// The customer's other booking ends or starts less than the minimum gap away.
        MinGapViolation = "min_gap_violation",
        /// A resource the booking prefers is not free at the new time.
        PreferredResourceUnavailable = "preferred_resource_unavailable",
        /// The new slot would be nearly full after the move.
        OverbookingRisk = "overbooking_risk",
        /// The move breaks the site's policy (inside its change window).
        PolicyDeviation = "policy_deviation",
    }
}

impl ConflictType {
    /// Hard conflicts block a move; soft ones need `confirmed_override`.
    pub fn is_hard(self) -> bool {
        matches!(
            self,
            ConflictType::CapacityExceeded
                | ConflictType::ResourceOverlap
                | ConflictType::TimeConflict
                | ConflictType::BlackoutWindow
        )
    }

    /// The conflict's severity as answered: `blocking` (hard) or `warning` (soft).
    pub fn severity(self) -> &'static str {
        if self.is_hard() {
            "blocking"
        } else {
            "warning"
        }
    }
}

/// The least time between two bookings of one customer, in minutes: closer is a
/// `min_gap_violation`.
pub const MIN_GAP_MINUTES: i64 = 15;

/// From this share of a slot's capacity booked (after the move) on, a move is an
/// `overbooking_risk`.
pub const OVERBOOKING_RISK_PERCENT: i64 = 90;

/// Whether a slot of `capacity` with `booked` seats is at overbooking risk.
pub fn overbooking_risk(booked: i64, capacity: i64) -> bool {
    capacity > 0 && booked * 100 >= capacity * OVERBOOKING_RISK_PERCENT
}

/// A slot's utilization in percent, one decimal.
pub fn utilization_percent(booked: i64, capacity: i64) -> f64 {
    if capacity <= 0 {
        return 0.0;
    }
    ((booked as f64) * 1000.0 / (capacity as f64)).round() / 10.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_four_hard_conflicts_block_and_the_four_soft_ones_warn() {
        let hard: Vec<_> = ConflictType::ALL.iter().filter(|c| c.is_hard()).collect();
        assert_eq!(hard.len(), 4);
        assert_eq!(ConflictType::CapacityExceeded.severity(), "blocking");
        assert_eq!(ConflictType::PolicyDeviation.severity(), "warning");
    }

    #[test]
    fn a_slot_nine_tenths_full_is_at_risk() {
        assert!(overbooking_risk(9, 10));
        assert!(!overbooking_risk(8, 10));
        assert!(!overbooking_risk(0, 0));
        assert_eq!(utilization_percent(1, 3), 33.3);
        assert_eq!(utilization_percent(0, 0), 0.0);
    }
}
