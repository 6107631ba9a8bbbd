//! The sandbox as a [`CardProvider`]: one account per secret key, whose calls put the
//! events they cause in the sandbox's outbox. The application delivers the outbox to its
//! own card webhook, signed, as a provider would.

use super::super::card::{CardProvider, NewIntent, PaymentIntent, ProviderError, Refund};
use super::{Caller, Sandbox, SandboxEvent};
use kairos_domain::Clock;
use std::sync::Arc;
use tokio::sync::mpsc::UnboundedSender;

/// The sandbox, the clock its events are dated by, and where its events go.
pub struct SandboxProvider {
    pub sandbox: Sandbox,
    clock: Arc<dyn Clock>,
    outbox: UnboundedSender<SandboxEvent>,
}

impl std::fmt::Debug for SandboxProvider {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SandboxProvider(..)")
    }
}

impl SandboxProvider {
    pub fn new(clock: Arc<dyn Clock>, outbox: UnboundedSender<SandboxEvent>) -> Self {
        Self {
            sandbox: Sandbox::default(),
            clock,
            outbox,
        }
    }

    /// Now, in the provider's unix seconds.
    pub fn now(&self) -> i64 {
        self.clock.now().timestamp()
    }

    /// Sends events to the card webhook (when nobody listens any more, they are dropped:
    /// the service is stopping).
    pub fn emit(&self, events: Vec<SandboxEvent>) {
        for e in events {
            if self.outbox.send(e).is_err() {
                tracing::debug!("sandbox event dropped: the service is stopping");
            }
        }
    }

    /// The account with `secret_key`.
    pub fn account(self: &Arc<Self>, secret_key: &str) -> SandboxAccount {
        SandboxAccount {
            provider: self.clone(),
            key: secret_key.to_owned(),
        }
    }

    fn answer<T>(
        &self,
        (result, events): (Result<T, ProviderError>, Vec<SandboxEvent>),
    ) -> Result<T, ProviderError> {
        self.emit(events);
        result
    }
}

/// One sandbox account (a secret key).
#[derive(Clone)]
pub struct SandboxAccount {
    provider: Arc<SandboxProvider>,
    key: String,
}

impl std::fmt::Debug for SandboxAccount {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SandboxAccount(..)")
    }
}

#[async_trait::async_trait]
impl CardProvider for SandboxAccount {
    async fn create_intent(
        &self,
        intent: &NewIntent<'_>,
        key: &str,
    ) -> Result<PaymentIntent, ProviderError> {
        let p = &self.provider;
        p.answer(p.sandbox.create_intent(&self.key, intent, key, p.now()))
    }

    async fn retrieve_intent(&self, id: &str) -> Result<PaymentIntent, ProviderError> {
        self.provider
            .sandbox
            .retrieve(Caller::SecretKey(&self.key), id)
    }

    async fn confirm_intent(
        &self,
        id: &str,
        payment_method: &str,
        _key: &str,
    ) -> Result<PaymentIntent, ProviderError> {
        let p = &self.provider;
        p.answer(p.sandbox.confirm(
            Caller::SecretKey(&self.key),
            id,
            Some(payment_method),
            p.now(),
        ))
    }

    async fn capture_intent(
        &self,
        id: &str,
        amount: Option<i64>,
        _key: &str,
    ) -> Result<PaymentIntent, ProviderError> {
        let p = &self.provider;
        let (pi, events) = p.sandbox.capture(&self.key, id, amount, p.now())?;
        p.emit(events);
        Ok(pi)
    }

    async fn cancel_intent(&self, id: &str, _key: &str) -> Result<(), ProviderError> {
        self.provider.sandbox.cancel(&self.key, id).map(|_| ())
    }

    async fn refund(&self, intent: &str, amount: i64, key: &str) -> Result<Refund, ProviderError> {
        let p = &self.provider;
        let (r, events) = p
            .sandbox
            .refund(&self.key, intent, Some(amount), key, p.now())?;
        p.emit(events);
        Ok(r)
    }

    async fn create_customer(
        &self,
        _email: &str,
        _name: &str,
        _key: &str,
    ) -> Result<String, ProviderError> {
        self.provider.sandbox.create_customer(&self.key)
    }

    async fn save_payment_method(
        &self,
        payment_method: &str,
        customer: &str,
        _key: &str,
    ) -> Result<String, ProviderError> {
        self.provider
            .sandbox
            .save_payment_method(&self.key, payment_method, customer)
    }

    fn test_confirm_url(&self, intent: &str) -> Option<String> {
        Some(format!(
            "/sandbox/cardpay/v1/payment_intents/{intent}/confirm"
        ))
    }
}
