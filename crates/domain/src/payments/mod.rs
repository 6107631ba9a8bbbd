//! How a booking is paid: the method it is confirmed with (spec Part A 4.2) and the status
//! of a payment recorded against it; the providers' signature schemes
//! ([`cardpay_signature`], [`bankpay_signature`]); the payment status machine
//! ([`PaymentStatus`]); which account a payment goes through ([`credentials`]); what a
//! cancellation refunds ([`refund_policy`]); what a provider's report does to a payment
//! ([`reports`]).
//!
//! What staff record with mark-paid (`cash`, `card_terminal`, `manual`, …) is an open set
//! the spec leaves to the venue, so a payment's own method stays text.

pub mod bankpay_signature;
pub mod cardpay_signature;
pub mod credentials;
pub mod refund_policy;
pub mod reports;
mod status;

pub use status::{PaymentEvent, PaymentStatus};

text_enum! {
    /// The method a hold is confirmed with.
    pub enum PaymentMethod {
        /// Pay on arrival: the booking becomes `tentative`.
        Poa = "poa",
        /// Card payment online, with the provider's `paymentMethodId`.
        Cardpay = "cardpay",
        /// Bank payment online, with the provider's `paymentMethodId`.
        Bankpay = "bankpay",
        /// Staff only: complimentary.
        Comp = "comp",
        /// Staff only: invoiced.
        Invoice = "invoice",
        /// Paid in full by the vouchers applied to the hold: nothing to collect. Only
        /// when they cover the whole total (else 400 INSUFFICIENT_FUNDS).
        Voucher = "voucher",
    }
}

impl PaymentMethod {
    /// Whether the booking is paid at the venue: confirming makes it `tentative` and
    /// records no payment.
    pub fn pays_on_arrival(self) -> bool {
        match self {
            PaymentMethod::Poa => true,
            PaymentMethod::Cardpay
            | PaymentMethod::Bankpay
            | PaymentMethod::Comp
            | PaymentMethod::Invoice
            | PaymentMethod::Voucher => false,
        }
    }

    /// Whether confirming needs the provider's payment method reference.
    pub fn is_online(self) -> bool {
        match self {
            PaymentMethod::Cardpay | PaymentMethod::Bankpay => true,
            PaymentMethod::Poa
            | PaymentMethod::Comp
            | PaymentMethod::Invoice
            | PaymentMethod::Voucher => false,
        }
    }

    /// The permission staff need to confirm with it: comp and invoice both confirm without
    /// collecting anything now, a decision `admin:bookings:create:comp` grants (owners and
    /// managers, not the front desk).
    pub fn staff_permission(self) -> Option<&'static str> {
        match self {
            PaymentMethod::Comp | PaymentMethod::Invoice => {
                Some(crate::auth::perm::BOOKINGS_CREATE_COMP)
            }
            PaymentMethod::Poa
            | PaymentMethod::Cardpay
            | PaymentMethod::Bankpay
            | PaymentMethod::Voucher => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_value_parses_back_from_its_text() {
        for m in PaymentMethod::ALL {
            assert_eq!(PaymentMethod::parse(m.as_str()), Some(*m));
        }
        for s in PaymentStatus::ALL {
            assert_eq!(PaymentStatus::parse(s.as_str()), Some(*s));
        }
        assert_eq!(PaymentMethod::parse("cash"), None);
        assert_eq!(
            PaymentMethod::choices(),
            "poa, cardpay, bankpay, comp, invoice or voucher"
        );
    }

    #[test]
    fn only_poa_pays_on_arrival_and_only_online_methods_need_a_reference() {
        let on_arrival: Vec<_> = PaymentMethod::ALL
            .iter()
            .filter(|m| m.pays_on_arrival())
            .collect();
        assert_eq!(on_arrival, [&PaymentMethod::Poa]);
        let online: Vec<_> = PaymentMethod::ALL
            .iter()
            .filter(|m| m.is_online())
            .collect();
        assert_eq!(online, [&PaymentMethod::Cardpay, &PaymentMethod::Bankpay]);
        let staff: Vec<_> = PaymentMethod::ALL
            .iter()
            .filter(|m| m.staff_permission() == Some("admin:bookings:create:comp"))
            .collect();
        assert_eq!(staff, [&PaymentMethod::Comp, &PaymentMethod::Invoice]);
        assert!(
            PaymentMethod::ALL
                .iter()
                .all(|m| staff.contains(&m) || m.staff_permission().is_none())
        );
    }
}
