//! Stripe's REST API (PaymentIntents and Refunds) as a [`CardProvider`]: form encoded,
//! with the secret key as bearer and an `Idempotency-Key` on every write, at a
//! configurable base (`KAIROS_CARDPAY_API_BASE`), so any Stripe-compatible server works.
//!
//! Responses are read leniently (missing fields default, `latest_charge` as an id or an
//! object, unknown statuses kept), so Stripe-compatible servers that return a subset work.

use super::card::{CardProvider, IntentStatus, NewIntent, PaymentIntent, ProviderError, Refund};
use serde::Deserialize;
use serde_json::Value;
use std::time::Duration;

/// How long one call to the provider may take.
const TIMEOUT: Duration = Duration::from_secs(20);

#[derive(Deserialize)]
struct IntentWire {
    id: String,
    #[serde(default)]
    status: String,
    #[serde(default)]
    amount: i64,
    #[serde(default)]
    currency: String,
    #[serde(default)]
    client_secret: Option<String>,
    #[serde(default)]
    latest_charge: Option<Value>,
    #[serde(default)]
    last_payment_error: Option<Value>,
    #[serde(default)]
    metadata: Option<Value>,
    #[serde(default)]
    payment_method: Option<Value>,
    #[serde(default)]
    customer: Option<Value>,
}

/// An id given as a string, or as the expanded object's `id`.
fn id_of(v: Option<Value>) -> Option<String> {
    match v {
        Some(Value::String(id)) => Some(id),
        Some(Value::Object(o)) => o.get("id").and_then(Value::as_str).map(str::to_owned),
        _ => None,
    }
}

#[derive(Deserialize)]
struct IdWire {
    id: String,
    #[serde(default)]
    customer: Option<Value>,
}

impl From<IntentWire> for PaymentIntent {
    fn from(w: IntentWire) -> Self {
        let latest_charge = id_of(w.latest_charge);
        let last_error = w.last_payment_error.and_then(|e| {
            let code = e.get("code").and_then(Value::as_str).unwrap_or("failed");
            let message = e.get("message").and_then(Value::as_str).unwrap_or("");
            (!e.is_null()).then(|| (code.to_owned(), message.to_owned()))
        });
        PaymentIntent {
            id: w.id,
            status: IntentStatus::parse(&w.status),
            amount: w.amount,
            currency: w.currency,
            client_secret: w.client_secret,
            latest_charge,
            last_error,
            metadata: match w.metadata {
                Some(Value::Object(m)) => m,
                _ => serde_json::Map::new(),
            },
            payment_method: id_of(w.payment_method),
            customer: id_of(w.customer),
        }
    }
}

/// A client for one account.
#[derive(Clone)]
pub struct CardpayClient {
    http: reqwest::Client,
    base: String,
    secret_key: String,
}

impl std::fmt::Debug for CardpayClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CardpayClient")
            .field("base", &self.base)
            .finish_non_exhaustive()
    }
}

impl CardpayClient {
    pub fn new(http: reqwest::Client, base: &str, secret_key: &str) -> CardpayClient {
        CardpayClient {
            http,
            base: base.trim_end_matches('/').to_owned(),
            secret_key: secret_key.to_owned(),
        }
    }

    /// Creates a PaymentIntent; `key` makes a retry return the same one.
    pub async fn create_intent(
        &self,
        intent: &NewIntent<'_>,
        key: &str,
    ) -> Result<PaymentIntent, ProviderError> {
        let mut form: Vec<(String, String)> = vec![
            ("amount".into(), intent.amount.to_string()),
            ("currency".into(), intent.currency.to_ascii_lowercase()),
            (
                "capture_method".into(),
                if intent.manual_capture {
                    "manual"
                } else {
                    "automatic"
                }
                .into(),
            ),
        ];
        if let Some(pm) = intent.payment_method {
            form.push(("payment_method".into(), pm.to_owned()));
            form.push(("confirm".into(), "true".into()));
        }
        if let Some(customer) = intent.customer {
            form.push(("customer".into(), customer.to_owned()));
        }
        if intent.save_card {
            // The card's option rather than the top-level `setup_future_usage`: the same
            // effect at Stripe, and accepted by Stripe-compatible servers that know only it.
            form.push((
                "payment_method_options[card][setup_future_usage]".into(),
                "off_session".into(),
            ));
        }
        if intent.off_session {
            form.push(("off_session".into(), "true".into()));
            form.push(("payment_method_types[]".into(), "card".into()));
        }
        for (k, v) in intent.metadata {
            form.push((format!("metadata[{k}]"), v.clone()));
        }
        let wire: IntentWire = self.post("/v1/payment_intents", &form, key).await?;
        Ok(wire.into())
    }

    /// Creates a customer; its id.
    pub async fn create_customer(
        &self,
        email: &str,
        name: &str,
        key: &str,
    ) -> Result<String, ProviderError> {
        let form = vec![
            ("email".to_owned(), email.to_owned()),
            ("name".to_owned(), name.to_owned()),
        ];
        let wire: IdWire = self.post("/v1/customers", &form, key).await?;
        Ok(wire.id)
    }

    /// Attaches `payment_method` to `customer` unless it already is (Stripe attaches a
    /// card paid with `setup_future_usage` itself; compatible servers may not).
    pub async fn save_payment_method(
        &self,
        payment_method: &str,
        customer: &str,
        key: &str,
    ) -> Result<String, ProviderError> {
        let pm: IdWire = self
            .send(
                self.http
                    .get(format!("{}/v1/payment_methods/{payment_method}", self.base))
                    .bearer_auth(&self.secret_key),
            )
            .await?;
        if id_of(pm.customer).as_deref() == Some(customer) {
            return Ok(pm.id);
        }
        let form = vec![("customer".to_owned(), customer.to_owned())];
        let attached: IdWire = self
            .post(
                &format!("/v1/payment_methods/{payment_method}/attach"),
                &form,
                key,
            )
            .await?;
        Ok(attached.id)
    }

    pub async fn retrieve_intent(&self, id: &str) -> Result<PaymentIntent, ProviderError> {
        let wire: IntentWire = self
            .send(
                self.http
                    .get(format!("{}/v1/payment_intents/{id}", self.base))
                    .bearer_auth(&self.secret_key),
            )
            .await?;
        Ok(wire.into())
    }

    /// Confirms a PaymentIntent with a payment method: Stripe charges (or authorizes) it.
    pub async fn confirm_intent(
        &self,
        id: &str,
        payment_method: &str,
        key: &str,
    ) -> Result<PaymentIntent, ProviderError> {
        let form = vec![("payment_method".to_owned(), payment_method.to_owned())];
        let wire: IntentWire = self
            .post(&format!("/v1/payment_intents/{id}/confirm"), &form, key)
            .await?;
        Ok(wire.into())
    }

    /// Captures an authorized PaymentIntent (all of it, or `amount`).
    pub async fn capture_intent(
        &self,
        id: &str,
        amount: Option<i64>,
        key: &str,
    ) -> Result<PaymentIntent, ProviderError> {
        let form: Vec<(String, String)> = amount
            .map(|a| vec![("amount_to_capture".to_owned(), a.to_string())])
            .unwrap_or_default();
        let wire: IntentWire = self
            .post(&format!("/v1/payment_intents/{id}/capture"), &form, key)
            .await?;
        Ok(wire.into())
    }

    /// Cancels a PaymentIntent not yet captured.
    pub async fn cancel_intent(&self, id: &str, key: &str) -> Result<PaymentIntent, ProviderError> {
        let wire: IntentWire = self
            .post(&format!("/v1/payment_intents/{id}/cancel"), &[], key)
            .await?;
        Ok(wire.into())
    }

    /// Refunds `amount` (minor units) of a PaymentIntent.
    pub async fn refund(
        &self,
        intent: &str,
        amount: i64,
        metadata: &[(&str, String)],
        key: &str,
    ) -> Result<Refund, ProviderError> {
        let mut form: Vec<(String, String)> = vec![
            ("payment_intent".into(), intent.to_owned()),
            ("amount".into(), amount.to_string()),
        ];
        for (k, v) in metadata {
            form.push((format!("metadata[{k}]"), v.clone()));
        }
        self.post("/v1/refunds", &form, key).await
    }

    async fn post<T: serde::de::DeserializeOwned>(
        &self,
        path: &str,
        form: &[(String, String)],
        key: &str,
    ) -> Result<T, ProviderError> {
        self.send(
            self.http
                .post(format!("{}{path}", self.base))
                .bearer_auth(&self.secret_key)
                .header("Idempotency-Key", key)
                .form(form),
        )
        .await
    }

    async fn send<T: serde::de::DeserializeOwned>(
        &self,
        request: reqwest::RequestBuilder,
    ) -> Result<T, ProviderError> {
        let response = request
            .timeout(TIMEOUT)
            .send()
            .await
            .map_err(|e| ProviderError::Unavailable(format!("cardpay not reachable: {e}")))?;
        let status = response.status();
        let body = response
            .bytes()
            .await
            .map_err(|e| ProviderError::Unavailable(format!("cardpay answer cut: {e}")))?;
        if status.is_success() {
            return serde_json::from_slice(&body).map_err(|e| {
                ProviderError::Unavailable(format!("cardpay answered what is not a payment: {e}"))
            });
        }
        let error: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
        let field = |name: &str| {
            error
                .pointer(&format!("/error/{name}"))
                .and_then(Value::as_str)
                .map(str::to_owned)
        };
        let message = field("message").unwrap_or_else(|| format!("HTTP {status}"));
        let code = field("code").unwrap_or_else(|| "error".to_owned());
        let kind = field("type").unwrap_or_default();
        Err(match status.as_u16() {
            // The same idempotency key in use by a request still running, or a key's
            // request that cannot be compared: the outcome is not known yet.
            409 => ProviderError::Unavailable(format!("cardpay busy with this request: {message}")),
            400 if kind == "idempotency_error" => {
                ProviderError::Unavailable(format!("cardpay idempotency: {message}"))
            }
            402 => ProviderError::Declined {
                code,
                decline_code: field("decline_code"),
                message,
            },
            429 => ProviderError::Unavailable(format!("cardpay rate limited: {message}")),
            s if (400..500).contains(&s) => ProviderError::Refused {
                status: s,
                code,
                message,
            },
            s => ProviderError::Unavailable(format!("cardpay failed ({s}): {message}")),
        })
    }
}

#[async_trait::async_trait]
impl CardProvider for CardpayClient {
    async fn create_intent(
        &self,
        intent: &NewIntent<'_>,
        key: &str,
    ) -> Result<PaymentIntent, ProviderError> {
        CardpayClient::create_intent(self, intent, key).await
    }

    async fn retrieve_intent(&self, id: &str) -> Result<PaymentIntent, ProviderError> {
        CardpayClient::retrieve_intent(self, id).await
    }

    async fn confirm_intent(
        &self,
        id: &str,
        payment_method: &str,
        key: &str,
    ) -> Result<PaymentIntent, ProviderError> {
        CardpayClient::confirm_intent(self, id, payment_method, key).await
    }

    async fn capture_intent(
        &self,
        id: &str,
        amount: Option<i64>,
        key: &str,
    ) -> Result<PaymentIntent, ProviderError> {
        CardpayClient::capture_intent(self, id, amount, key).await
    }

    async fn cancel_intent(&self, id: &str, key: &str) -> Result<(), ProviderError> {
        CardpayClient::cancel_intent(self, id, key)
            .await
            .map(|_| ())
    }

    async fn refund(&self, intent: &str, amount: i64, key: &str) -> Result<Refund, ProviderError> {
        CardpayClient::refund(self, intent, amount, &[], key).await
    }

    async fn create_customer(
        &self,
        email: &str,
        name: &str,
        key: &str,
    ) -> Result<String, ProviderError> {
        CardpayClient::create_customer(self, email, name, key).await
    }

    async fn save_payment_method(
        &self,
        payment_method: &str,
        customer: &str,
        key: &str,
    ) -> Result<String, ProviderError> {
        CardpayClient::save_payment_method(self, payment_method, customer, key).await
    }
}
