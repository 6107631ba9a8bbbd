//! Vouchers: prepaid value a customer spends on bookings (spec Part A 2.6).
//!
//! A voucher's balance is a ledger: it starts at its original value (an `issue`
//! transaction) and every use or return is a transaction, so the balance always equals
//! the original value plus the sum of the later transactions, and never goes below zero.

use crate::ids::REFERENCE_ALPHABET;

crate::text_enum! {
    /// What a voucher is.
    pub enum VoucherType {
        /// Spent once: its first use redeems it, whatever is left.
        SingleUse = "single_use",
        /// Spent over several bookings until its balance or usage limit runs out.
        MultiUse = "multi_use",
        /// Bought as a gift; spent like multi_use. Codes look like GIFT-XXXX-XXXX.
        GiftCard = "gift_card",
        /// Given by the venue (a complaint, a loyalty reward); spent like multi_use.
        LoyaltyCredit = "loyalty_credit",
    }
}

crate::text_enum! {
    /// What a ledger entry records.
    pub enum TransactionKind {
        /// The voucher's original value.
        Issue = "issue",
        /// Applied to a booking (negative).
        Redeem = "redeem",
        /// Given back by a booking that did not go ahead (positive).
        Reverse = "reverse",
    }
}

impl VoucherType {
    /// The prefix of a generated code.
    pub fn code_prefix(self) -> &'static str {
        match self {
            VoucherType::GiftCard => "GIFT",
            _ => "VCHR",
        }
    }

    /// The usage limit a voucher of this type has when none is given.
    pub fn default_usage_limit(self) -> Option<i32> {
        match self {
            VoucherType::SingleUse => Some(1),
            _ => None,
        }
    }
}

/// A new code `PREFIX-XXXX-XXXX` from the spec's set `ABCDEFGHJKLMNPQRSTUVWXYZ23456789`
/// (no 0, O, 1 or I; the set as the spec writes it keeps L, although its note says "no L").
pub fn generate_code(kind: VoucherType) -> String {
    use rand::Rng;
    let mut rng = rand::rng();
    let mut group = || -> String {
        (0..4)
            .map(|_| char::from(REFERENCE_ALPHABET[rng.random_range(0..REFERENCE_ALPHABET.len())]))
            .collect()
    };
    let (a, b) = (group(), group());
    format!("{}-{a}-{b}", kind.code_prefix())
}

/// Whether a voucher is used up: no balance left, or every use of its limit taken.
pub fn is_redeemed(balance: i64, usage_count: i32, usage_limit: Option<i32>) -> bool {
    balance <= 0 || usage_limit.is_some_and(|limit| usage_count >= limit)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_codes_have_the_gift_card_form() {
        for _ in 0..200 {
            let code = generate_code(VoucherType::GiftCard);
            let parts: Vec<&str> = code.split('-').collect();
            assert_eq!(parts.len(), 3, "{code}");
            assert_eq!(parts[0], "GIFT");
            for part in &parts[1..] {
                assert_eq!(part.len(), 4, "{code}");
                assert!(
                    part.bytes().all(|b| REFERENCE_ALPHABET.contains(&b)),
                    "{code}"
                );
                assert!(!part.contains(['0', 'O', '1', 'I']), "{code}");
            }
        }
        assert!(generate_code(VoucherType::MultiUse).starts_with("VCHR-"));
    }

    #[test]
    fn a_voucher_is_redeemed_when_its_balance_or_its_uses_run_out() {
        assert!(!is_redeemed(500, 0, Some(1)));
        assert!(is_redeemed(500, 1, Some(1)));
        assert!(is_redeemed(0, 0, None));
        assert!(!is_redeemed(1, 40, None));
    }
}
