//! Booking groups (spec Part B 2.5, 3.3, 4.3): several activities booked, held, paid and
//! cancelled together. A group's status is never stored: it is derived from its child
//! bookings (and, before they exist, from its plan), so it changes exactly when a child
//! changes.

use crate::bookings::BookingStatus;
use chrono::{DateTime, Utc};

text_enum! {
    /// A group's status (spec Part B 3.3).
    pub enum GroupStatus {
        Draft = "DRAFT",
        Hold = "HOLD",
        Confirmed = "CONFIRMED",
        Completed = "COMPLETED",
        PartiallyCanceled = "PARTIALLY_CANCELED",
        Canceled = "CANCELED",
        Expired = "EXPIRED",
    }
}

text_enum! {
    /// PACKAGE (a package's activities at its price) or CUSTOM (any activities at their
    /// own prices).
    pub enum GroupType {
        Package = "PACKAGE",
        Custom = "CUSTOM",
    }
}

/// The most people a group may book for (spec Part B 8).
pub const MAX_PARTY: i32 = 500;
/// The most activities one group holds.
pub const MAX_ACTIVITIES: usize = 20;

/// What a child booking says about its group's status.
#[derive(Debug, Clone, Copy)]
pub struct Child {
    pub status: BookingStatus,
    pub hold_expires_at: Option<DateTime<Utc>>,
}

/// The status of a group whose children are `children` at `now`.
///
/// A hold past its expiry counts as expired (the expiry job may not have run yet; a
/// group's holds share one expiry, so they lapse together). Then:
/// - no children: DRAFT (planned, nothing held);
/// - every child expired: EXPIRED;
/// - any live hold: HOLD;
/// - every child terminal: CANCELED when all were cancelled, else COMPLETED;
/// - some cancelled and others active: PARTIALLY_CANCELED;
/// - otherwise CONFIRMED.
pub fn derive_status(children: &[Child], now: DateTime<Utc>) -> GroupStatus {
    use BookingStatus as B;
    if children.is_empty() {
        return GroupStatus::Draft;
    }
    let children: Vec<Child> = children
        .iter()
        .map(|c| {
            let overdue = c.status == B::Hold && c.hold_expires_at.is_none_or(|t| t <= now);
            Child {
                status: if overdue { B::Expired } else { c.status },
                ..*c
            }
        })
        .collect();
    if children.iter().all(|c| c.status == B::Expired) {
        return GroupStatus::Expired;
    }
    if children.iter().any(|c| c.status == B::Hold) {
        return GroupStatus::Hold;
    }
    let canceled = children
        .iter()
        .filter(|c| matches!(c.status, B::Canceled | B::Expired))
        .count();
    let terminal = |c: &Child| {
        matches!(
            c.status,
            B::Canceled | B::Expired | B::Completed | B::NoShow
        )
    };
    if children.iter().all(terminal) {
        return if canceled == children.len() {
            GroupStatus::Canceled
        } else {
            GroupStatus::Completed
        };
    }
    if canceled > 0 {
        GroupStatus::PartiallyCanceled
    } else {
        GroupStatus::Confirmed
    }
}

/// Splits `total` (minor units) over parts in proportion to `weights` (each booking's own
/// price) by the largest remainder, so the parts sum to `total` exactly; equal parts when
/// every weight is zero. Ties go to the earlier part.
pub fn allocate(total: i64, weights: &[i64]) -> Vec<i64> {
    if weights.is_empty() {
        return Vec::new();
    }
    let weights: Vec<i128> = if weights.iter().all(|w| *w <= 0) {
        vec![1; weights.len()]
    } else {
        weights.iter().map(|w| i128::from((*w).max(0))).collect()
    };
    let sum: i128 = weights.iter().sum();
    let total_wide = i128::from(total);
    let mut parts: Vec<i128> = weights.iter().map(|w| total_wide * w / sum).collect();
    let mut order: Vec<usize> = (0..weights.len()).collect();
    // Largest remainder first; the earlier part wins a tie.
    order.sort_by_key(|&i| (std::cmp::Reverse(total_wide * weights[i] % sum), i));
    let mut left = total_wide - parts.iter().sum::<i128>();
    for i in order {
        if left <= 0 {
            break;
        }
        parts[i] += 1;
        left -= 1;
    }
    parts
        .into_iter()
        .map(|p| i64::try_from(p).unwrap_or(0))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::Duration;

    fn at(status: BookingStatus) -> Child {
        Child {
            status,
            hold_expires_at: None,
        }
    }

    #[test]
    fn status_follows_the_children() {
        use BookingStatus as B;
        let now = Utc::now();
        let live = Child {
            status: B::Hold,
            hold_expires_at: Some(now + Duration::minutes(5)),
        };
        let lapsed = Child {
            status: B::Hold,
            hold_expires_at: Some(now),
        };
        assert_eq!(derive_status(&[], now), GroupStatus::Draft);
        assert_eq!(derive_status(&[live, live], now), GroupStatus::Hold);
        assert_eq!(derive_status(&[lapsed, lapsed], now), GroupStatus::Expired);
        assert_eq!(
            derive_status(&[at(B::Expired), at(B::Expired)], now),
            GroupStatus::Expired
        );
        assert_eq!(
            derive_status(&[at(B::Confirmed), at(B::Paid)], now),
            GroupStatus::Confirmed
        );
        assert_eq!(
            derive_status(&[at(B::Canceled), at(B::Paid)], now),
            GroupStatus::PartiallyCanceled
        );
        assert_eq!(
            derive_status(&[at(B::Canceled), at(B::Canceled)], now),
            GroupStatus::Canceled
        );
        assert_eq!(
            derive_status(&[at(B::Completed), at(B::NoShow)], now),
            GroupStatus::Completed
        );
        assert_eq!(
            derive_status(&[at(B::Canceled), at(B::Completed)], now),
            GroupStatus::Completed
        );
        // A lapsed hold beside a booking staff confirmed on its own is gone, not the group.
        assert_eq!(
            derive_status(&[lapsed, at(B::Confirmed)], now),
            GroupStatus::PartiallyCanceled
        );
    }

    #[test]
    fn a_total_is_split_by_the_largest_remainder_and_sums_exactly() {
        assert_eq!(allocate(100, &[1, 1, 1]), vec![34, 33, 33]);
        assert_eq!(allocate(10_000, &[4_000, 6_000]), vec![4_000, 6_000]);
        assert_eq!(allocate(9_999, &[4_000, 6_000]), vec![4_000, 5_999]);
        assert_eq!(allocate(5, &[0, 0]), vec![3, 2]);
        assert_eq!(allocate(0, &[2_500, 7_500]), vec![0, 0]);
        assert!(allocate(7, &[]).is_empty());
        let parts = allocate(123_457, &[3_333, 3_333, 3_334, 17]);
        assert_eq!(parts.iter().sum::<i64>(), 123_457);
    }
}
