//! Vouchers and their ledger.

use super::Timestamp;
use kairos_domain::vouchers::{TransactionKind, VoucherType};
use serde::Serialize;
use uuid::Uuid;

/// A voucher to issue. Amounts in minor units of the tenant's currency.
#[derive(Debug, Clone, Serialize)]
pub struct NewVoucher {
    /// None: a code is generated (`GIFT-XXXX-XXXX` for gift cards).
    pub code: Option<String>,
    pub voucher_type: VoucherType,
    pub original_value: i64,
    pub usage_limit: Option<i32>,
    pub expires_at: Option<Timestamp>,
    pub customer_email: Option<String>,
    pub is_active: bool,
}

#[derive(Debug, Clone, Serialize)]
pub struct Voucher {
    pub id: Uuid,
    pub code: String,
    pub voucher_type: VoucherType,
    pub original_value: i64,
    pub current_balance: i64,
    pub usage_limit: Option<i32>,
    pub usage_count: i32,
    pub expires_at: Option<Timestamp>,
    pub customer_email: Option<String>,
    pub customer_id: Option<Uuid>,
    pub is_active: bool,
    pub issued_by: Option<String>,
    pub issued_at: Timestamp,
    pub updated_at: Timestamp,
}

impl Voucher {
    pub fn is_redeemed(&self) -> bool {
        kairos_domain::vouchers::is_redeemed(
            self.current_balance,
            self.usage_count,
            self.usage_limit,
        )
    }
}

/// One ledger entry.
#[derive(Debug, Clone, Serialize)]
pub struct VoucherTransaction {
    pub id: Uuid,
    pub booking_id: Option<Uuid>,
    pub kind: TransactionKind,
    /// Signed: a redemption is negative.
    pub amount: i64,
    pub balance_after: i64,
    pub created_at: Timestamp,
}

/// What the admin voucher list shows.
#[derive(Debug, Clone)]
pub struct VoucherFilter {
    pub voucher_type: Option<VoucherType>,
    pub is_active: Option<bool>,
    /// Part of the code, any case.
    pub search: Option<String>,
    /// The customer's email, exactly (any case).
    pub customer_email: Option<String>,
    pub customer_id: Option<Uuid>,
    /// Used up (see [`Voucher::is_redeemed`]).
    pub is_redeemed: Option<bool>,
    pub issued_after: Option<Timestamp>,
    pub issued_before: Option<Timestamp>,
    /// From 1.
    pub page: u32,
    pub per_page: u32,
}

#[derive(Debug, thiserror::Error)]
pub enum VoucherError {
    #[error("no such voucher")]
    NotFound,
    #[error("a voucher with code {0} already exists")]
    CodeTaken(String),
    #[error(transparent)]
    Store(#[from] crate::StoreError),
}

crate::store_error_from_sqlx!(VoucherError);

/// A voucher of an import: as issued, then spent down to `current_balance` over
/// `usage_count` uses elsewhere (its ledger records the difference as one entry).
#[derive(Debug, Clone)]
pub struct ImportedVoucher {
    pub voucher: NewVoucher,
    /// Minor units, from 0 to the original value.
    pub current_balance: i64,
    pub usage_count: i32,
}
