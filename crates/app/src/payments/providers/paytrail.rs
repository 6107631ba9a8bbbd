//! Paytrail's payment API as a [`BankProvider`] (`POST /payments`, `GET
//! /payments/{transactionId}`, `POST /payments/{transactionId}/refund`), each
//! request signed with the `checkout-*` headers and `signature` (HMAC over the sorted
//! `checkout-` headers and the body, `domain/src/payments/bankpay_signature.rs`), each
//! answer's signature checked the same way.

use super::bank::{
    BankPayment, BankPaymentInfo, BankProvider, BankRefund, NewBankPayment, NewBankRefund,
};
use super::card::ProviderError;
use kairos_domain::payments::bankpay_signature::{self, Algorithm};
use serde::Serialize;
use serde_json::Value;
use std::time::Duration;

const TIMEOUT: Duration = Duration::from_secs(20);

/// A merchant account at the bank-redirect provider.
#[derive(Clone)]
pub struct BankpayClient {
    http: reqwest::Client,
    base: String,
    merchant_id: String,
    secret: String,
}

impl std::fmt::Debug for BankpayClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BankpayClient")
            .field("base", &self.base)
            .field("merchant_id", &self.merchant_id)
            .finish_non_exhaustive()
    }
}

impl BankpayClient {
    pub fn new(http: reqwest::Client, base: &str, merchant_id: &str, secret: &str) -> Self {
        Self {
            http,
            base: base.trim_end_matches('/').to_owned(),
            merchant_id: merchant_id.to_owned(),
            secret: secret.to_owned(),
        }
    }

    pub fn merchant_id(&self) -> &str {
        &self.merchant_id
    }

    /// Whether `signature` signs `params` and `body` with this account's secret.
    pub fn verifies<'a>(
        &self,
        params: impl IntoIterator<Item = (&'a str, &'a str)> + Clone,
        body: &str,
        signature: &str,
    ) -> bool {
        bankpay_signature::verify(&self.secret, params, body, signature)
    }

    /// Creates a payment: the customer pays at `href`.
    pub async fn create_payment(&self, new: &NewBankPayment) -> Result<BankPayment, ProviderError> {
        let text = self
            .signed_post(&format!("{}/payments", self.base), None, new)
            .await?;
        serde_json::from_str(&text).map_err(|e| {
            ProviderError::Unavailable(format!("bankpay answered what is not a payment: {e}"))
        })
    }

    /// What the provider knows of the payment `transaction` (`GET
    /// /payments/{transactionId}`): the stale-payment poller's question.
    pub async fn get_payment(&self, transaction: &str) -> Result<BankPaymentInfo, ProviderError> {
        let url = self.payment_url(transaction, None)?;
        let text = self
            .signed_request(reqwest::Method::GET, url.as_str(), Some(transaction), None)
            .await?;
        serde_json::from_str(&text).map_err(|e| {
            ProviderError::Unavailable(format!("bankpay answered what is not a payment: {e}"))
        })
    }

    /// `{base}/payments/{transaction}[/{action}]`, the transaction one path segment,
    /// percent-encoded if it must be.
    fn payment_url(
        &self,
        transaction: &str,
        action: Option<&str>,
    ) -> Result<reqwest::Url, ProviderError> {
        let mut url = reqwest::Url::parse(&self.base)
            .map_err(|e| ProviderError::Unavailable(format!("bankpay API base: {e}")))?;
        url.path_segments_mut()
            .map_err(|()| ProviderError::Unavailable("bankpay API base is not a URL".into()))?
            .pop_if_empty()
            .extend(["payments", transaction])
            .extend(action);
        Ok(url)
    }

    /// Refunds `refund.amount` of the payment `transaction` (`POST
    /// /payments/{transactionId}/refund`): `ok` when returned at once, `pending` when its
    /// outcome comes later to the refund's callback URLs, `fail` when refused.
    pub async fn refund(
        &self,
        transaction: &str,
        refund: &NewBankRefund,
    ) -> Result<BankRefund, ProviderError> {
        let url = self.payment_url(transaction, Some("refund"))?;
        let text = self
            .signed_post(url.as_str(), Some(transaction), refund)
            .await?;
        serde_json::from_str(&text).map_err(|e| {
            ProviderError::Unavailable(format!("bankpay answered what is not a refund: {e}"))
        })
    }

    /// POSTs `body` to `url`, signed: see `signed_request`.
    async fn signed_post(
        &self,
        url: &str,
        transaction: Option<&str>,
        body: &impl Serialize,
    ) -> Result<String, ProviderError> {
        let body = serde_json::to_string(body)
            .map_err(|e| ProviderError::Unavailable(format!("bankpay request: {e}")))?;
        self.signed_request(reqwest::Method::POST, url, transaction, Some(body))
            .await
    }

    /// Sends a request to `url`, signed (a GET signs an empty body), and returns the
    /// answer's body once its signature is checked. `transaction` goes in
    /// `checkout-transaction-id` (calls about a payment).
    async fn signed_request(
        &self,
        method: reqwest::Method,
        url: &str,
        transaction: Option<&str>,
        body: Option<String>,
    ) -> Result<String, ProviderError> {
        let body = body.unwrap_or_default();
        let nonce = uuid::Uuid::new_v4().to_string();
        let timestamp = chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
        let mut headers = vec![
            ("checkout-account", self.merchant_id.as_str()),
            ("checkout-algorithm", Algorithm::Sha256.as_str()),
            ("checkout-method", method.as_str()),
            ("checkout-nonce", nonce.as_str()),
            ("checkout-timestamp", timestamp.as_str()),
        ];
        if let Some(t) = transaction {
            headers.push(("checkout-transaction-id", t));
        }
        let signature =
            bankpay_signature::sign(&self.secret, Algorithm::Sha256, headers.clone(), &body);
        let mut request = self
            .http
            .request(method.clone(), url)
            .timeout(TIMEOUT)
            .header("signature", signature);
        if method == reqwest::Method::POST {
            request = request.header("content-type", "application/json; charset=utf-8");
        }
        for (name, value) in headers {
            request = request.header(name, value);
        }
        if !body.is_empty() {
            request = request.body(body);
        }
        let response = request
            .send()
            .await
            .map_err(|e| ProviderError::Unavailable(format!("bankpay not reachable: {e}")))?;
        let status = response.status();
        let answer_headers: Vec<(String, String)> = response
            .headers()
            .iter()
            .filter_map(|(n, v)| Some((n.as_str().to_owned(), v.to_str().ok()?.to_owned())))
            .collect();
        let text = response
            .text()
            .await
            .map_err(|e| ProviderError::Unavailable(format!("bankpay answer cut: {e}")))?;
        if status.is_server_error() || status.as_u16() == 429 {
            return Err(ProviderError::Unavailable(format!(
                "bankpay answered HTTP {status}"
            )));
        }
        if !status.is_success() {
            let v: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
            return Err(ProviderError::Refused {
                status: status.as_u16(),
                code: v["status"].as_str().unwrap_or("error").to_owned(),
                message: v["message"]
                    .as_str()
                    .map_or_else(|| format!("HTTP {status}"), str::to_owned),
            });
        }
        // The answer is signed like the request: an unsigned or mis-signed one is not the
        // provider's.
        let signature = answer_headers
            .iter()
            .find(|(n, _)| n == "signature")
            .map(|(_, v)| v.clone())
            .unwrap_or_default();
        let params = answer_headers.iter().map(|(n, v)| (n.as_str(), v.as_str()));
        if !self.verifies(params, &text, &signature) {
            return Err(ProviderError::Unavailable(
                "bankpay's answer is not signed with this account's secret".to_owned(),
            ));
        }
        Ok(text)
    }
}

#[async_trait::async_trait]
impl BankProvider for BankpayClient {
    fn merchant_id(&self) -> &str {
        &self.merchant_id
    }

    fn verifies(&self, params: &[(&str, &str)], body: &str, signature: &str) -> bool {
        BankpayClient::verifies(self, params.iter().copied(), body, signature)
    }

    async fn create_payment(&self, new: &NewBankPayment) -> Result<BankPayment, ProviderError> {
        BankpayClient::create_payment(self, new).await
    }

    async fn get_payment(&self, transaction: &str) -> Result<BankPaymentInfo, ProviderError> {
        BankpayClient::get_payment(self, transaction).await
    }

    async fn refund(
        &self,
        transaction: &str,
        refund: &NewBankRefund,
    ) -> Result<BankRefund, ProviderError> {
        BankpayClient::refund(self, transaction, refund).await
    }
}
