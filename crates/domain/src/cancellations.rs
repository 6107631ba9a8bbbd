//! Why staff cancel a booking, and what its customer gets back for it (spec Part B 4.8).
//!
//! A staff cancellation names one of eight reasons. What is refunded follows from the
//! reason and, when staff name one, a refund policy:
//!
//! | reason | refund policy named | refund |
//! |---|---|---|
//! | `customer_request` | none | the tenant's fee rule with the site's policy, as when the customer cancels |
//! | `customer_request` | standard, flexible or strict | that policy's schedule by notice |
//! | `admin_initiated`, `capacity_issue`, `equipment_failure`, `weather`, `duplicate` | none | in full: the venue's decision |
//! | those five | standard, flexible or strict | that policy's schedule by notice |
//! | `customer_no_show` | any | nothing: every policy's "no-show: none" |
//! | `reduced_party_size` | none | a partial cancellation: the tenant's fee rule, on what the smaller party no longer costs |
//! | `reduced_party_size` | standard, flexible or strict | that policy's schedule by notice, on the same part |
//!
//! `overridePolicy` (permission `admin:cancellations:override`, with a documented reason)
//! refunds in full whatever the reason and policy.

use crate::catalog::CancellationPolicy;
use crate::payments::refund_policy::{FeeRule, cancellation_fee};
use chrono::Duration;

text_enum! {
    /// Why staff cancel a booking (spec Part B 4.8's reason codes).
    pub enum CancellationReason {
        CustomerRequest = "customer_request",
        AdminInitiated = "admin_initiated",
        CapacityIssue = "capacity_issue",
        EquipmentFailure = "equipment_failure",
        Weather = "weather",
        CustomerNoShow = "customer_no_show",
        Duplicate = "duplicate",
        /// A partial cancellation: fewer people.
        ReducedPartySize = "reduced_party_size",
    }
}

impl CancellationReason {
    /// Whether the venue, not the customer, calls the booking off.
    pub fn by_the_venue(self) -> bool {
        matches!(
            self,
            CancellationReason::AdminInitiated
                | CancellationReason::CapacityIssue
                | CancellationReason::EquipmentFailure
                | CancellationReason::Weather
                | CancellationReason::Duplicate
        )
    }

    /// How the refund of a staff cancellation for this reason is worked out, given the
    /// policy staff named (if any) and whether they override the policy.
    pub fn refund_basis(
        self,
        named: Option<CancellationPolicy>,
        override_policy: bool,
    ) -> RefundBasis {
        if override_policy {
            return RefundBasis::InFull;
        }
        match (self, named) {
            (CancellationReason::CustomerNoShow, _) => RefundBasis::Nothing,
            (_, Some(policy)) => RefundBasis::Policy(policy),
            (reason, None) if reason.by_the_venue() => RefundBasis::InFull,
            (_, None) => RefundBasis::TenantRule,
        }
    }
}

/// How much of what was paid a cancellation keeps as its fee.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RefundBasis {
    /// The tenant's fee rule (by default the site policy's schedule by notice): a
    /// customer's own cancellation.
    TenantRule,
    /// This policy's schedule by notice, whatever the tenant's rule.
    Policy(CancellationPolicy),
    /// No fee: everything back.
    InFull,
    /// Everything kept: nothing back.
    Nothing,
}

impl RefundBasis {
    /// The fee kept of `paid` (minor units) for a booking of a site under `site` policy,
    /// in a tenant with fee rule `rule`, cancelled `notice` before its start.
    pub fn fee(self, rule: FeeRule, site: CancellationPolicy, paid: i64, notice: Duration) -> i64 {
        let paid = paid.max(0);
        match self {
            RefundBasis::TenantRule => rule.fee(site, paid, notice),
            RefundBasis::Policy(policy) => cancellation_fee(policy, paid, notice),
            RefundBasis::InFull => 0,
            RefundBasis::Nothing => paid,
        }
    }

    /// In words, for the audit log and the preview.
    pub fn describe(self, rule: FeeRule, site: CancellationPolicy) -> String {
        match self {
            RefundBasis::TenantRule => match rule {
                FeeRule::TimeBased => format!("the site's {site} policy"),
                FeeRule::Flat(amount) => format!("the tenant's flat fee of {amount}"),
                FeeRule::Percentage(p) => format!("the tenant's {p} % fee"),
            },
            RefundBasis::Policy(policy) => format!("the {policy} policy"),
            RefundBasis::InFull => "in full".to_owned(),
            RefundBasis::Nothing => "nothing refunded (no-show)".to_owned(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use CancellationPolicy::{Flexible, Standard, Strict};
    use CancellationReason::*;

    #[test]
    fn the_reason_and_the_named_policy_decide_the_basis() {
        assert_eq!(
            CustomerRequest.refund_basis(None, false),
            RefundBasis::TenantRule
        );
        assert_eq!(
            CustomerRequest.refund_basis(Some(Strict), false),
            RefundBasis::Policy(Strict)
        );
        for venue in [
            AdminInitiated,
            CapacityIssue,
            EquipmentFailure,
            Weather,
            Duplicate,
        ] {
            assert_eq!(venue.refund_basis(None, false), RefundBasis::InFull);
            assert_eq!(
                venue.refund_basis(Some(Flexible), false),
                RefundBasis::Policy(Flexible)
            );
        }
        assert_eq!(
            CustomerNoShow.refund_basis(Some(Flexible), false),
            RefundBasis::Nothing
        );
        assert_eq!(
            ReducedPartySize.refund_basis(None, false),
            RefundBasis::TenantRule
        );
        for reason in CancellationReason::ALL {
            assert_eq!(
                reason.refund_basis(Some(Strict), true),
                RefundBasis::InFull,
                "{reason:?}"
            );
        }
    }

    #[test]
    fn each_basis_keeps_its_fee() {
        let h = Duration::hours;
        let percent = FeeRule::Percentage(10);
        assert_eq!(
            RefundBasis::TenantRule.fee(percent, Standard, 4000, h(100)),
            400
        );
        assert_eq!(
            RefundBasis::TenantRule.fee(FeeRule::TimeBased, Standard, 4000, h(30)),
            2000
        );
        assert_eq!(
            RefundBasis::Policy(Strict).fee(percent, Standard, 4000, h(73)),
            200,
            "the named policy, not the tenant's rule"
        );
        assert_eq!(
            RefundBasis::Policy(Strict).fee(percent, Standard, 4000, h(72)),
            4000
        );
        assert_eq!(RefundBasis::InFull.fee(percent, Strict, 4000, h(1)), 0);
        assert_eq!(
            RefundBasis::Nothing.fee(percent, Flexible, 4000, h(100)),
            4000
        );
        assert_eq!(RefundBasis::Nothing.fee(percent, Flexible, -3, h(100)), 0);
    }

    #[test]
    fn the_standard_schedule_turns_at_the_minute() {
        let m = Duration::minutes;
        let standard = RefundBasis::Policy(Standard);
        let rule = FeeRule::TimeBased;
        assert_eq!(standard.fee(rule, Strict, 4000, m(48 * 60 + 1)), 0);
        assert_eq!(standard.fee(rule, Strict, 4000, m(48 * 60)), 2000);
        assert_eq!(standard.fee(rule, Strict, 4000, m(24 * 60)), 2000);
        assert_eq!(standard.fee(rule, Strict, 4000, m(24 * 60 - 1)), 4000);
        let flexible = RefundBasis::Policy(Flexible);
        assert_eq!(flexible.fee(rule, Strict, 4000, m(24 * 60 + 1)), 0);
        assert_eq!(flexible.fee(rule, Strict, 4000, m(24 * 60)), 2000);
        let strict = RefundBasis::Policy(Strict);
        assert_eq!(strict.fee(rule, Standard, 4000, m(72 * 60 + 1)), 200);
        assert_eq!(strict.fee(rule, Standard, 4000, m(72 * 60)), 4000);
    }

    #[test]
    fn descriptions_name_the_rule() {
        assert_eq!(
            RefundBasis::TenantRule.describe(FeeRule::TimeBased, Strict),
            "the site's strict policy"
        );
        assert_eq!(
            RefundBasis::Policy(Flexible).describe(FeeRule::Flat(500), Strict),
            "the flexible policy"
        );
    }
}
