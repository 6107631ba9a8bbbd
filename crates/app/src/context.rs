//! [`App`]: what every use case and job works with: the store, the clock, the payment
//! settings and the providers' shared parts (the HTTP client, the sandbox). Cheap to
//! clone.

use crate::payments::PaymentSettings;
use crate::payments::providers::sandbox::{SandboxEvent, SandboxProvider};
use kairos_domain::Clock;
use kairos_store::Store;
use std::sync::{Arc, Weak};

#[derive(Clone)]
pub struct App(Arc<Inner>);

pub struct Inner {
    pub store: Store,
    pub clock: Arc<dyn Clock>,
    /// How providers are reached and their secrets kept.
    pub payments: PaymentSettings,
    /// The built-in sandbox card provider.
    pub sandbox: Arc<SandboxProvider>,
    /// Outgoing HTTP (payment providers).
    pub http: reqwest::Client,
}

impl std::ops::Deref for App {
    type Target = Inner;
    fn deref(&self) -> &Inner {
        &self.0
    }
}

impl App {
    /// The application over `store`. Inside a Tokio runtime, the sandbox's events are
    /// delivered to the card webhook by a task that ends with the last clone of the App.
    pub fn new(store: Store, clock: Arc<dyn Clock>, payments: PaymentSettings) -> App {
        let (outbox, events) = tokio::sync::mpsc::unbounded_channel();
        let app = App(Arc::new(Inner {
            store,
            sandbox: Arc::new(SandboxProvider::new(clock.clone(), outbox)),
            clock,
            payments,
            http: crate::http::client_builder()
                .build()
                .unwrap_or_else(|e| panic!("the HTTP client cannot be built: {e}")),
        }));
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(deliver_sandbox_events(Arc::downgrade(&app.0), events));
        }
        app
    }

    pub fn now(&self) -> chrono::DateTime<chrono::Utc> {
        self.clock.now()
    }
}

/// Sends the sandbox's events to the card webhook as a provider would: signed, a moment
/// later, retried a few times while the answer is a 5xx. Ends when the App is gone.
async fn deliver_sandbox_events(
    app: Weak<Inner>,
    mut events: tokio::sync::mpsc::UnboundedReceiver<SandboxEvent>,
) {
    while let Some(event) = events.recv().await {
        let app = app.clone();
        tokio::spawn(async move {
            let body = serde_json::to_vec(&event.body).unwrap_or_default();
            for wait in [200u64, 1000, 5000, 30_000] {
                tokio::time::sleep(std::time::Duration::from_millis(wait)).await;
                let Some(inner) = app.upgrade() else {
                    return;
                };
                let app = App(inner);
                let secret = crate::payments::providers::sandbox::webhook_secret(
                    &app.payments.secrets,
                    &event.secret_key,
                );
                let now = app.now().timestamp();
                let header =
                    kairos_domain::payments::cardpay_signature::header(&secret, now, &body);
                let received =
                    crate::payments::card_events::receive(&app, None, Some(&header), &body).await;
                if !received.retry() {
                    break;
                }
            }
        });
    }
}
