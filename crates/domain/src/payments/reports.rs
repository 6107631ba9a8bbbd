//! What a payment provider reports about a payment, whichever provider it is (the card
//! provider's webhook events, the bank provider's callbacks, what the deadline's poller
//! finds), and what such a report does to the payment: [`effect_of`], a pure function
//! the store carries out in the report's transaction.

use super::PaymentStatus;
use super::credentials::Provider;
use uuid::Uuid;

/// A cardholder's dispute of a charge, as the provider reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dispute {
    pub id: String,
    /// Minor units.
    pub amount: i64,
    pub currency: String,
    /// The provider's reason (`fraudulent`, `product_not_received`, …).
    pub reason: String,
}

/// What a provider reports.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ProviderReport {
    /// The money was collected: the amount (minor units) and currency as reported, `None`
    /// where the report lacks them.
    Succeeded {
        amount: Option<i64>,
        currency: Option<String>,
    },
    /// The attempt failed: the provider's code and message.
    Failed { code: String, message: String },
    /// The charge was refunded: all the provider has refunded of it so far (minor units),
    /// `None` when the report lacks it.
    Refunded { total_refunded: Option<i64> },
    /// A cardholder disputes the charge (`None`: the report is not a readable dispute).
    Disputed(Option<Dispute>),
    /// On its way: the bank has yet to pay.
    Pending,
    /// Anything else a provider sends (its type as sent): acknowledged, nothing done.
    Other(String),
}

/// What the report is about, as the payment it names records it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PaymentFacts<'a> {
    pub provider: Provider,
    pub status: PaymentStatus,
    /// Minor units.
    pub amount: i64,
    pub currency: &'a str,
    /// What the payment pays: a booking, a gift card purchase, or neither.
    pub booking: Option<Uuid>,
    pub gift_card_purchase: Option<Uuid>,
    /// The fee it charges (an off-session charge of a fee on a booking).
    pub fee: Option<Uuid>,
    /// The booking group it pays, all its bookings at once.
    pub group: Option<Uuid>,
}

/// What a report does to its payment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Effect {
    /// Collected for the booking: settle it (paid, reinstated, or money after close).
    SettleBooking(Uuid),
    /// Collected for the gift card purchase: issue its voucher.
    PayGiftCard(Uuid),
    /// Collected for a booking group: every booking of it confirmed and paid its share.
    SettleGroup(Uuid),
    /// Collected for a fee: the fee is charged (or, no longer wanted, refunded).
    SettleFee(Uuid),
    /// A fee's charge failed: the attempt is FAILED and the fee stays pending.
    FailFee {
        fee: Uuid,
        code: String,
        message: String,
    },
    /// Collected, but the payment pays for nothing Kairos sells: nothing to do.
    NothingToPay,
    /// The amount or currency reported is not the payment's (or is missing): not
    /// applied; staff check the payment at the provider.
    AmountMismatch,
    /// The attempt failed: the payment becomes FAILED if still open (PENDING or
    /// AUTHORIZED), and staff see why on the booking.
    Fail { code: String, message: String },
    /// The payment is no longer open: a failure changes nothing.
    Unchanged(PaymentStatus),
    /// The provider has refunded this much of the charge in all (minor units).
    Refunded(i64),
    /// A cardholder disputes the charge.
    Disputed(Dispute),
    /// The bank has yet to pay: wait for it.
    AwaitBank,
    /// Nothing to do; the answer says why.
    Ignore(String),
}

/// Whether a reported amount and currency are the payment's. A report that lacks what the
/// check needs does not match: the amount always (a whole number of minor units), the
/// currency from the card provider (the bank provider's callbacks carry none: its
/// payments are in euros).
pub fn matches_payment(
    payment: &PaymentFacts<'_>,
    amount: Option<i64>,
    currency: Option<&str>,
) -> bool {
    let currency_matches = match (payment.provider, currency) {
        (_, Some(c)) => c.eq_ignore_ascii_case(payment.currency),
        (Provider::Cardpay, None) => false,
        (Provider::Bankpay, None) => true,
    };
    amount == Some(payment.amount) && currency_matches
}

/// What `report` does to `payment`.
pub fn effect_of(report: &ProviderReport, payment: &PaymentFacts<'_>) -> Effect {
    match report {
        ProviderReport::Succeeded { amount, currency } => {
            if !matches_payment(payment, *amount, currency.as_deref()) {
                Effect::AmountMismatch
            } else if let Some(booking) = payment.booking {
                Effect::SettleBooking(booking)
            } else if let Some(purchase) = payment.gift_card_purchase {
                Effect::PayGiftCard(purchase)
            } else if let Some(group) = payment.group {
                Effect::SettleGroup(group)
            } else if let Some(fee) = payment.fee {
                Effect::SettleFee(fee)
            } else {
                Effect::NothingToPay
            }
        }
        ProviderReport::Failed { code, message } => match (payment.status, payment.fee) {
            (PaymentStatus::Pending, Some(fee)) => Effect::FailFee {
                fee,
                code: code.clone(),
                message: message.clone(),
            },
            (PaymentStatus::Pending | PaymentStatus::Authorized, _) => Effect::Fail {
                code: code.clone(),
                message: message.clone(),
            },
            (other, _) => Effect::Unchanged(other),
        },
        ProviderReport::Refunded {
            total_refunded: Some(total),
        } => Effect::Refunded(*total),
        ProviderReport::Refunded {
            total_refunded: None,
        } => Effect::Ignore("no amount_refunded: ignored".to_owned()),
        ProviderReport::Disputed(Some(dispute)) => Effect::Disputed(dispute.clone()),
        ProviderReport::Disputed(None) => Effect::Ignore("not a dispute: ignored".to_owned()),
        ProviderReport::Pending => Effect::AwaitBank,
        ProviderReport::Other(kind) => Effect::Ignore(format!("{kind} ignored")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn card(status: PaymentStatus) -> PaymentFacts<'static> {
        PaymentFacts {
            provider: Provider::Cardpay,
            status,
            amount: 5000,
            currency: "EUR",
            booking: Some(Uuid::nil()),
            gift_card_purchase: None,
            fee: None,
            group: None,
        }
    }

    fn succeeded(amount: Option<i64>, currency: Option<&str>) -> ProviderReport {
        ProviderReport::Succeeded {
            amount,
            currency: currency.map(str::to_owned),
        }
    }

    #[test]
    fn money_collected_settles_what_the_payment_pays_for() {
        let p = card(PaymentStatus::Pending);
        assert_eq!(
            effect_of(&succeeded(Some(5000), Some("eur")), &p),
            Effect::SettleBooking(Uuid::nil())
        );
        let purchase = Uuid::from_u128(7);
        let gift = PaymentFacts {
            booking: None,
            gift_card_purchase: Some(purchase),
            ..p
        };
        assert_eq!(
            effect_of(&succeeded(Some(5000), Some("EUR")), &gift),
            Effect::PayGiftCard(purchase)
        );
        let group = Uuid::from_u128(8);
        let of_group = PaymentFacts {
            booking: None,
            group: Some(group),
            ..p
        };
        assert_eq!(
            effect_of(&succeeded(Some(5000), Some("EUR")), &of_group),
            Effect::SettleGroup(group)
        );
        assert_eq!(
            effect_of(&succeeded(Some(4999), Some("EUR")), &of_group),
            Effect::AmountMismatch
        );
        let neither = PaymentFacts { booking: None, ..p };
        assert_eq!(
            effect_of(&succeeded(Some(5000), Some("EUR")), &neither),
            Effect::NothingToPay
        );
    }

    #[test]
    fn a_fees_charge_settles_the_fee_and_its_failure_fails_only_an_open_attempt() {
        let fee = Uuid::from_u128(9);
        let p = PaymentFacts {
            booking: None,
            fee: Some(fee),
            ..card(PaymentStatus::Pending)
        };
        assert_eq!(
            effect_of(&succeeded(Some(5000), Some("EUR")), &p),
            Effect::SettleFee(fee)
        );
        assert_eq!(
            effect_of(&succeeded(Some(4000), Some("EUR")), &p),
            Effect::AmountMismatch
        );
        let failed = ProviderReport::Failed {
            code: "card_declined".to_owned(),
            message: "declined".to_owned(),
        };
        assert_eq!(
            effect_of(&failed, &p),
            Effect::FailFee {
                fee,
                code: "card_declined".to_owned(),
                message: "declined".to_owned(),
            }
        );
        let done = PaymentFacts {
            status: PaymentStatus::Completed,
            ..p
        };
        assert_eq!(
            effect_of(&failed, &done),
            Effect::Unchanged(PaymentStatus::Completed)
        );
    }

    #[test]
    fn another_or_a_missing_amount_or_currency_is_not_applied() {
        let p = card(PaymentStatus::Pending);
        for report in [
            succeeded(Some(4999), Some("EUR")),
            succeeded(Some(5000), Some("USD")),
            succeeded(None, Some("EUR")),
            succeeded(Some(5000), None),
        ] {
            assert_eq!(effect_of(&report, &p), Effect::AmountMismatch, "{report:?}");
        }
        // The bank's callbacks carry no currency: its payments are in euros.
        let bank = PaymentFacts {
            provider: Provider::Bankpay,
            ..p
        };
        assert_eq!(
            effect_of(&succeeded(Some(5000), None), &bank),
            Effect::SettleBooking(Uuid::nil())
        );
        assert_eq!(
            effect_of(&succeeded(None, None), &bank),
            Effect::AmountMismatch
        );
    }

    #[test]
    fn a_failure_changes_only_an_open_payment() {
        let failed = ProviderReport::Failed {
            code: "card_declined".into(),
            message: "declined".into(),
        };
        for open in [PaymentStatus::Pending, PaymentStatus::Authorized] {
            assert!(matches!(
                effect_of(&failed, &card(open)),
                Effect::Fail { ref code, .. } if code == "card_declined"
            ));
        }
        for closed in [
            PaymentStatus::Completed,
            PaymentStatus::Failed,
            PaymentStatus::Refunded,
        ] {
            assert_eq!(effect_of(&failed, &card(closed)), Effect::Unchanged(closed));
        }
    }

    #[test]
    fn refunds_disputes_and_the_rest() {
        let p = card(PaymentStatus::Completed);
        assert_eq!(
            effect_of(
                &ProviderReport::Refunded {
                    total_refunded: Some(1200)
                },
                &p
            ),
            Effect::Refunded(1200)
        );
        assert!(matches!(
            effect_of(
                &ProviderReport::Refunded {
                    total_refunded: None
                },
                &p
            ),
            Effect::Ignore(_)
        ));
        let dispute = Dispute {
            id: "dp_1".into(),
            amount: 5000,
            currency: "eur".into(),
            reason: "fraudulent".into(),
        };
        assert_eq!(
            effect_of(&ProviderReport::Disputed(Some(dispute.clone())), &p),
            Effect::Disputed(dispute)
        );
        assert!(matches!(
            effect_of(&ProviderReport::Disputed(None), &p),
            Effect::Ignore(_)
        ));
        assert_eq!(effect_of(&ProviderReport::Pending, &p), Effect::AwaitBank);
        assert_eq!(
            effect_of(&ProviderReport::Other("customer.created".into()), &p),
            Effect::Ignore("customer.created ignored".into())
        );
    }
}
