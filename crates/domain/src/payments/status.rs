//! The payment status machine (spec Part B 3.1).
//!
//! ```text
//! NOT_STARTED ─created─▶ PENDING ─authorized─▶ AUTHORIZED ─captured─▶ CAPTURED ─settled─▶ COMPLETED
//!                          │  └──────────────── settled (captured at once) ──────────────────▲
//!                          │                                                               │
//!  any of the first four ──failed──▶ FAILED        CAPTURED, COMPLETED ─refund─▶ REFUND_PENDING
//!  NOT_STARTED, PENDING, AUTHORIZED ─canceled─▶ CANCELED     REFUND_PENDING ─refunded (all)─▶ REFUNDED
//!                                                            REFUND_PENDING ─refunded (part)─▶ COMPLETED
//!                                                            REFUND_PENDING ─refund failed──▶ COMPLETED
//! ```
//!
//! `CANCELED` is the product's addition to the spec's values: a payment no longer to be
//! collected (the booking was settled at the desk, or cancelled before paying), which is
//! neither a failure nor a success. A refund that fails does not make the payment
//! `FAILED` (the money was taken): it returns to `COMPLETED` and the refund is
//! dead-lettered for staff (REFUND_FAILED).

text_enum! {
    /// Where a payment stands (spec Part B 3.1).
    pub enum PaymentStatus {
        NotStarted = "NOT_STARTED",
        /// Created: waiting for the customer or the provider.
        Pending = "PENDING",
        /// Funds held (card authorization), not yet captured.
        Authorized = "AUTHORIZED",
        Captured = "CAPTURED",
        /// Collected and confirmed by the provider (or recorded by staff).
        Completed = "COMPLETED",
        Failed = "FAILED",
        RefundPending = "REFUND_PENDING",
        /// Refunded in full.
        Refunded = "REFUNDED",
        /// No longer to be collected.
        Canceled = "CANCELED",
    }
}

/// What happens to a payment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PaymentEvent {
    Created,
    Authorized,
    Captured,
    /// The provider confirmed the money (a capture settled, or a charge captured at once).
    Settled,
    Failed,
    Canceled,
    RefundStarted,
    /// A refund completed; `full` when nothing is left to refund.
    Refunded {
        full: bool,
    },
    RefundFailed,
}

impl PaymentStatus {
    /// The status after `event`, or `None` when it does not apply in this status.
    pub fn after(self, event: PaymentEvent) -> Option<PaymentStatus> {
        use PaymentEvent as E;
        use PaymentStatus as S;
        Some(match (self, event) {
            (S::NotStarted, E::Created) => S::Pending,
            (S::Pending, E::Authorized) => S::Authorized,
            (S::Authorized, E::Captured) => S::Captured,
            (S::Pending | S::Authorized | S::Captured, E::Settled) => S::Completed,
            (S::NotStarted | S::Pending | S::Authorized | S::Captured, E::Failed) => S::Failed,
            (S::NotStarted | S::Pending | S::Authorized, E::Canceled) => S::Canceled,
            (S::Captured | S::Completed, E::RefundStarted) => S::RefundPending,
            (S::RefundPending, E::Refunded { full: true }) => S::Refunded,
            (S::RefundPending, E::Refunded { full: false } | E::RefundFailed) => S::Completed,
            _ => return None,
        })
    }

    /// Whether the money is (or was) taken: what a refund can return.
    pub fn is_collected(self) -> bool {
        matches!(
            self,
            PaymentStatus::Captured
                | PaymentStatus::Completed
                | PaymentStatus::RefundPending
                | PaymentStatus::Refunded
        )
    }

    /// Whether the payment may still be collected.
    pub fn is_open(self) -> bool {
        matches!(
            self,
            PaymentStatus::NotStarted | PaymentStatus::Pending | PaymentStatus::Authorized
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use PaymentEvent as E;
    use PaymentStatus as S;

    #[test]
    fn the_card_flow_authorizes_captures_and_settles() {
        let s = S::NotStarted.after(E::Created).unwrap();
        let s = s.after(E::Authorized).unwrap();
        let s = s.after(E::Captured).unwrap();
        assert_eq!(s.after(E::Settled), Some(S::Completed));
        // A charge captured at once settles straight from PENDING.
        assert_eq!(S::Pending.after(E::Settled), Some(S::Completed));
    }

    #[test]
    fn failure_ends_any_stage_before_the_money_is_confirmed() {
        for s in [S::NotStarted, S::Pending, S::Authorized, S::Captured] {
            assert_eq!(s.after(E::Failed), Some(S::Failed), "{s}");
        }
        for s in [S::Completed, S::Refunded, S::Failed, S::Canceled] {
            assert_eq!(s.after(E::Failed), None, "{s}");
        }
    }

    #[test]
    fn refunds_run_through_refund_pending() {
        assert_eq!(S::Captured.after(E::RefundStarted), Some(S::RefundPending));
        assert_eq!(S::Completed.after(E::RefundStarted), Some(S::RefundPending));
        assert_eq!(S::Pending.after(E::RefundStarted), None);
        assert_eq!(
            S::RefundPending.after(E::Refunded { full: true }),
            Some(S::Refunded)
        );
        assert_eq!(
            S::RefundPending.after(E::Refunded { full: false }),
            Some(S::Completed)
        );
        assert_eq!(S::RefundPending.after(E::RefundFailed), Some(S::Completed));
        assert_eq!(S::Refunded.after(E::RefundStarted), None);
    }

    #[test]
    fn values_are_the_specs() {
        assert_eq!(
            S::ALL.iter().map(|s| s.as_str()).collect::<Vec<_>>(),
            [
                "NOT_STARTED",
                "PENDING",
                "AUTHORIZED",
                "CAPTURED",
                "COMPLETED",
                "FAILED",
                "REFUND_PENDING",
                "REFUNDED",
                "CANCELED"
            ]
        );
        assert!(S::Completed.is_collected() && !S::Pending.is_collected());
        assert!(S::Authorized.is_open() && !S::Completed.is_open());
    }
}
