//! What Kairos asks of a bank-redirect provider: the [`BankProvider`] trait and the
//! objects it speaks in (Paytrail's protocol: payments the customer pays at the
//! provider's page, refunds, signed answers and callbacks). The implementation is
//! [`super::paytrail`].

use super::card::ProviderError;
use serde::{Deserialize, Serialize};

/// Where the provider sends the customer's browser and its callbacks.
#[derive(Debug, Clone, Serialize)]
pub struct Urls {
    pub success: String,
    pub cancel: String,
}

/// A payment to create (Paytrail's request body; amounts in minor units).
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NewBankPayment {
    /// Unique per merchant: the payment's id.
    pub stamp: String,
    /// The booking's reference (shown to the customer).
    pub reference: String,
    pub amount: i64,
    /// Upper case (EUR).
    pub currency: String,
    /// FI, SV or EN.
    pub language: String,
    pub customer: Customer,
    pub redirect_urls: Urls,
    pub callback_urls: Urls,
}

#[derive(Debug, Clone, Serialize)]
pub struct Customer {
    pub email: String,
}

/// The provider's answer: the transaction and the page the customer goes to.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BankPayment {
    pub transaction_id: String,
    pub href: String,
}

/// A refund to ask for (Paytrail's refund request body; minor units).
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NewBankRefund {
    pub amount: i64,
    /// Unique per merchant: the refund's id.
    pub refund_stamp: String,
    pub refund_reference: String,
    /// Where the provider reports a refund it could not finish at once.
    pub callback_urls: Urls,
}

/// The provider's answer to a refund: `ok`, `pending` or `fail`, and the refund's own
/// transaction.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BankRefund {
    pub status: String,
    pub transaction_id: String,
    #[serde(default)]
    pub provider: Option<String>,
}

/// A payment as the provider knows it (`GET /payments/{transactionId}`): `status` is
/// `new` (not paid yet), `ok`, `fail`, `pending` or `delayed`; `amount` in minor units,
/// `currency` upper case.
#[derive(Debug, Clone, Deserialize)]
pub struct BankPaymentInfo {
    pub id: String,
    pub status: String,
    pub amount: i64,
    pub currency: String,
}

/// A merchant account at a bank-redirect provider.
#[async_trait::async_trait]
pub trait BankProvider: Send + Sync + std::fmt::Debug {
    fn merchant_id(&self) -> &str;

    /// Whether `signature` signs `params` and `body` with this account's secret (the
    /// provider's callbacks and redirects are signed so).
    fn verifies(&self, params: &[(&str, &str)], body: &str, signature: &str) -> bool;

    /// Creates a payment: the customer pays at its `href`.
    async fn create_payment(&self, new: &NewBankPayment) -> Result<BankPayment, ProviderError>;

    /// What the provider knows of the payment `transaction`.
    async fn get_payment(&self, transaction: &str) -> Result<BankPaymentInfo, ProviderError>;

    /// Refunds `refund.amount` of the payment `transaction`: `ok` at once, `pending` when
    /// its outcome comes later to the refund's callback URLs, `fail` when refused.
    async fn refund(
        &self,
        transaction: &str,
        refund: &NewBankRefund,
    ) -> Result<BankRefund, ProviderError>;
}
