//! The built-in sandbox card provider: a Stripe-compatible subset (PaymentIntents with
//! automatic or manual capture, refunds, test payment methods) that keeps its objects in
//! memory and sends signed events to the card webhook, so the embedded demo pays end to
//! end with no outside service.
//!
//! Accounts are secret keys: each key sees its own objects. A sandbox account's webhook
//! signing secret is derived from its secret key ([`webhook_secret`]), so credentials
//! marked `sandbox` need no webhook secret of their own. Test payment methods:
//! `pm_card_visa` (and any other `pm_…`) succeeds; `pm_card_chargeDeclined`,
//! `pm_card_visa_chargeDeclined` and `pm_card_chargeCustomerFail` are declined
//! (`card_declined`), `pm_card_chargeDeclinedInsufficientFunds` too (`insufficient_funds`);
//! `pm_card_threeDSecure…` leaves the intent `requires_action` (the browser's step);
//! `pm_card_authenticationRequired` pays with the customer present but is declined
//! off-session (`authentication_required`), as a card whose bank asks for
//! authentication on every payment is. Customers and saved cards: a card paid with by an
//! intent of a customer that asked to keep it (`setup_future_usage`) is saved to that
//! customer, and only a saved card is charged off-session.
//!
//! Kept in memory: a restart forgets the sandbox's objects (payments pending there then
//! fail at their deadline). It is for trying the flow, never for money.

use super::card::{IntentStatus, NewIntent, PaymentIntent, ProviderError, Refund};
use kairos_domain::secrets::SecretBox;
use serde_json::{Value, json};
use std::collections::HashMap;
use std::sync::Mutex;

/// The webhook signing secret of the sandbox account with `secret_key`: derived with
/// the service's own key, so knowing (or guessing) a sandbox secret key is not enough to
/// sign events.
pub fn webhook_secret(secrets: &SecretBox, secret_key: &str) -> String {
    let derived = secrets.derive(&format!("sandbox-webhook/{secret_key}"));
    format!("whsec_sandbox_{}", &derived[..32])
}

fn random_id(prefix: &str) -> String {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    let tail: String = (0..24)
        .map(|_| {
            let i = rand::random_range(0..ALPHABET.len());
            char::from(ALPHABET[i])
        })
        .collect();
    format!("{prefix}_{tail}")
}

#[derive(Debug, Clone)]
struct Intent {
    id: String,
    amount: i64,
    currency: String,
    manual_capture: bool,
    status: IntentStatus,
    client_secret: String,
    metadata: serde_json::Map<String, Value>,
    payment_method: Option<String>,
    latest_charge: Option<String>,
    last_error: Option<(String, String)>,
    refunded: i64,
    created: i64,
    customer: Option<String>,
    save_card: bool,
}

impl Intent {
    fn view(&self) -> PaymentIntent {
        PaymentIntent {
            id: self.id.clone(),
            status: self.status.clone(),
            amount: self.amount,
            currency: self.currency.clone(),
            client_secret: Some(self.client_secret.clone()),
            latest_charge: self.latest_charge.clone(),
            last_error: self.last_error.clone(),
            metadata: self.metadata.clone(),
            payment_method: self.payment_method.clone(),
            customer: self.customer.clone(),
        }
    }

    /// The object as Stripe's API and events show it.
    pub fn json(&self) -> Value {
        json!({
            "id": self.id,
            "object": "payment_intent",
            "amount": self.amount,
            "amount_received": if self.status == IntentStatus::Succeeded { self.amount } else { 0 },
            "currency": self.currency,
            "capture_method": if self.manual_capture { "manual" } else { "automatic" },
            "status": self.status.as_str(),
            "client_secret": self.client_secret,
            "metadata": self.metadata,
            "payment_method": self.payment_method,
            "customer": self.customer,
            "latest_charge": self.latest_charge,
            "last_payment_error": self.last_error.as_ref().map(|(code, message)| json!({
                "type": "card_error", "code": code, "message": message,
            })),
            "created": self.created,
            "livemode": false,
        })
    }
}

/// A call's answer and the events it sends (a declined charge answers an error and
/// still sends its `payment_intent.payment_failed`).
pub type Outcome<T> = (Result<T, ProviderError>, Vec<SandboxEvent>);

/// An event the sandbox sends to the card webhook, with the account it is signed for.
#[derive(Clone)]
pub struct SandboxEvent {
    pub secret_key: String,
    pub body: Value,
}

impl std::fmt::Debug for SandboxEvent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SandboxEvent")
            .field("type", &self.body["type"])
            .finish_non_exhaustive()
    }
}

#[derive(Default)]
struct Account {
    intents: HashMap<String, Intent>,
    /// Idempotency-Key → the intent or refund id it made.
    keys: HashMap<String, String>,
    /// Refund id → (its intent, the refund).
    refunds: HashMap<String, (String, Refund)>,
    /// Customer ids.
    customers: std::collections::HashSet<String>,
    /// Saved payment method → its customer.
    saved: HashMap<String, String>,
}

/// Who calls: the account's secret key, or a customer with the intent's client secret.
#[derive(Debug, Clone, Copy)]
pub enum Caller<'a> {
    SecretKey(&'a str),
    ClientSecret(&'a str),
}

/// Most PaymentIntents the sandbox keeps (its routes are public: anyone may create
/// some); past it the oldest tenth is forgotten.
const MAX_INTENTS: usize = 10_000;

/// Forgets the oldest tenth of the intents, their keys and refunds, and the accounts left
/// empty.
fn forget_oldest(accounts: &mut HashMap<String, Account>) {
    let mut all: Vec<(i64, String)> = accounts
        .values()
        .flat_map(|a| a.intents.values().map(|i| (i.created, i.id.clone())))
        .collect();
    all.sort_unstable();
    let gone: std::collections::HashSet<String> = all
        .into_iter()
        .take(MAX_INTENTS / 10)
        .map(|(_, id)| id)
        .collect();
    for account in accounts.values_mut() {
        account.intents.retain(|id, _| !gone.contains(id));
        account
            .refunds
            .retain(|_, (intent, _)| !gone.contains(intent));
        let kept_refunds: std::collections::HashSet<&String> = account.refunds.keys().collect();
        let intents = &account.intents;
        account
            .keys
            .retain(|_, id| intents.contains_key(id) || kept_refunds.contains(id));
    }
    accounts.retain(|_, a| !a.intents.is_empty());
}

/// The sandbox's accounts.
#[derive(Default)]
pub struct Sandbox {
    accounts: Mutex<HashMap<String, Account>>,
}

impl std::fmt::Debug for Sandbox {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Sandbox(..)")
    }
}

fn refused(status: u16, code: &str, message: impl Into<String>) -> ProviderError {
    ProviderError::Refused {
        status,
        code: code.to_owned(),
        message: message.into(),
    }
}

fn check_key(key: &str) -> Result<(), ProviderError> {
    if key.starts_with("sk_") && key.len() > 5 {
        Ok(())
    } else {
        Err(refused(401, "unauthorized", "Invalid API key"))
    }
}

/// What charging with `payment_method` does: Ok, or a decline (code, message).
fn charge(payment_method: &str) -> Result<(), (String, String)> {
    match payment_method {
        "pm_card_chargeDeclined" | "pm_card_visa_chargeDeclined" | "pm_card_chargeCustomerFail" => {
            Err(("card_declined".into(), "Your card was declined.".into()))
        }
        "pm_card_chargeDeclinedInsufficientFunds" => Err((
            "insufficient_funds".into(),
            "Your card has insufficient funds.".into(),
        )),
        _ => Ok(()),
    }
}

impl Sandbox {
    fn with<T>(&self, key: &str, f: impl FnOnce(&mut Account) -> T) -> T {
        let mut accounts = self.accounts.lock().unwrap_or_else(|p| p.into_inner());
        let total: usize = accounts.values().map(|a| a.intents.len()).sum();
        if total >= MAX_INTENTS {
            forget_oldest(&mut accounts);
        }
        f(accounts.entry(key.to_owned()).or_default())
    }

    /// Finds the account and intent a caller may act on.
    fn locate(&self, caller: Caller<'_>, id: &str) -> Result<String, ProviderError> {
        let accounts = self.accounts.lock().unwrap_or_else(|p| p.into_inner());
        match caller {
            Caller::SecretKey(key) => {
                check_key(key)?;
                accounts
                    .get(key)
                    .and_then(|a| a.intents.get(id))
                    .map(|_| key.to_owned())
                    .ok_or_else(|| {
                        refused(
                            404,
                            "resource_missing",
                            format!("No such payment_intent: '{id}'"),
                        )
                    })
            }
            Caller::ClientSecret(secret) => accounts
                .iter()
                .find(|(_, a)| a.intents.get(id).is_some_and(|i| i.client_secret == secret))
                .map(|(k, _)| k.clone())
                .ok_or_else(|| {
                    refused(
                        404,
                        "resource_missing",
                        format!("No such payment_intent: '{id}'"),
                    )
                }),
        }
    }

    pub fn create_intent(
        &self,
        key: &str,
        new: &NewIntent<'_>,
        idempotency_key: &str,
        now: i64,
    ) -> Outcome<PaymentIntent> {
        if let Err(e) = check_key(key) {
            return (Err(e), Vec::new());
        }
        if new.amount <= 0 {
            return (
                Err(refused(
                    400,
                    "parameter_invalid_integer",
                    "amount must be positive",
                )),
                Vec::new(),
            );
        }
        let existing = self.with(key, |a| {
            a.keys
                .get(idempotency_key)
                .and_then(|id| a.intents.get(id))
                .map(Intent::view)
        });
        if let Some(pi) = existing {
            return (Ok(pi), Vec::new());
        }
        if new.off_session {
            let saved = self.with(key, |a| match (new.payment_method, new.customer) {
                (Some(pm), Some(c)) => a.saved.get(pm).is_some_and(|owner| owner == c),
                _ => false,
            });
            if !saved {
                return (
                    Err(refused(
                        400,
                        "payment_method_not_available",
                        "An off-session payment needs a customer and a payment method saved to it",
                    )),
                    Vec::new(),
                );
            }
        }
        let id = random_id("pi");
        let intent = Intent {
            client_secret: format!("{id}_secret_{}", random_id("s")),
            id: id.clone(),
            amount: new.amount,
            currency: new.currency.to_ascii_lowercase(),
            manual_capture: new.manual_capture,
            status: IntentStatus::RequiresPaymentMethod,
            metadata: new
                .metadata
                .iter()
                .map(|(k, v)| ((*k).to_owned(), Value::String(v.clone())))
                .collect(),
            payment_method: None,
            latest_charge: None,
            last_error: None,
            refunded: 0,
            created: now,
            customer: new.customer.map(str::to_owned),
            save_card: new.save_card,
        };
        self.with(key, |a| {
            a.keys.insert(idempotency_key.to_owned(), id.clone());
            a.intents.insert(id.clone(), intent);
        });
        match new.payment_method {
            Some(pm) if new.off_session && pm == "pm_card_authenticationRequired" => {
                self.decline_off_session(key, &id, pm, now)
            }
            Some(pm) => self.confirm(Caller::SecretKey(key), &id, Some(pm), now),
            None => (self.retrieve(Caller::SecretKey(key), &id), Vec::new()),
        }
    }

    pub fn retrieve(&self, caller: Caller<'_>, id: &str) -> Result<PaymentIntent, ProviderError> {
        let key = self.locate(caller, id)?;
        self.with(&key, |a| a.intents.get(id).map(Intent::view))
            .ok_or_else(|| refused(404, "resource_missing", "No such payment_intent"))
    }

    /// The intent as Stripe's API shows it.
    pub fn intent_json(&self, caller: Caller<'_>, id: &str) -> Result<Value, ProviderError> {
        let key = self.locate(caller, id)?;
        self.with(&key, |a| a.intents.get(id).map(Intent::json))
            .ok_or_else(|| refused(404, "resource_missing", "No such payment_intent"))
    }

    /// Confirms with `payment_method` (default `pm_card_visa`): the charge succeeds
    /// (`succeeded`, or `requires_capture` with manual capture) or is declined (402, and
    /// the intent asks for another payment method).
    pub fn confirm(
        &self,
        caller: Caller<'_>,
        id: &str,
        payment_method: Option<&str>,
        now: i64,
    ) -> Outcome<PaymentIntent> {
        let key = match self.locate(caller, id) {
            Ok(k) => k,
            Err(e) => return (Err(e), Vec::new()),
        };
        self.with(&key, |a| {
            let Some(intent) = a.intents.get_mut(id) else {
                return (
                    Err(refused(404, "resource_missing", "No such payment_intent")),
                    Vec::new(),
                );
            };
            if !matches!(
                intent.status,
                IntentStatus::RequiresPaymentMethod | IntentStatus::RequiresConfirmation
            ) {
                return (
                    Err(refused(
                        400,
                        "payment_intent_unexpected_state",
                        format!("This PaymentIntent's status is {}", intent.status.as_str()),
                    )),
                    Vec::new(),
                );
            }
            let pm = payment_method
                .map(str::to_owned)
                .or_else(|| intent.payment_method.clone())
                .unwrap_or_else(|| "pm_card_visa".to_owned());
            intent.payment_method = Some(pm.clone());
            if pm.starts_with("pm_card_threeDSecure") {
                // The customer's bank asks for 3-D Secure: the browser completes it.
                intent.status = IntentStatus::RequiresAction;
                return (Ok(intent.view()), Vec::new());
            }
            let charge_id = random_id("ch");
            match charge(&pm) {
                Ok(()) => {
                    intent.latest_charge = Some(charge_id);
                    intent.last_error = None;
                    if intent.save_card
                        && let Some(customer) = &intent.customer
                    {
                        a.saved.insert(pm.clone(), customer.clone());
                    }
                    let mut events = Vec::new();
                    if intent.manual_capture {
                        intent.status = IntentStatus::RequiresCapture;
                    } else {
                        intent.status = IntentStatus::Succeeded;
                        events.push(event(&key, "payment_intent.succeeded", intent.json(), now));
                    }
                    (Ok(intent.view()), events)
                }
                Err((code, message)) => {
                    intent.status = IntentStatus::RequiresPaymentMethod;
                    intent.last_error = Some((code.clone(), message.clone()));
                    let failed = event(&key, "payment_intent.payment_failed", intent.json(), now);
                    (
                        Err(ProviderError::Declined {
                            code,
                            decline_code: None,
                            message,
                        }),
                        vec![failed],
                    )
                }
            }
        })
    }

    /// Captures an authorized intent (all, or `amount`).
    pub fn capture(
        &self,
        key: &str,
        id: &str,
        amount: Option<i64>,
        now: i64,
    ) -> Result<(PaymentIntent, Vec<SandboxEvent>), ProviderError> {
        let key = self.locate(Caller::SecretKey(key), id)?;
        self.with(&key, |a| {
            let intent = a
                .intents
                .get_mut(id)
                .ok_or_else(|| refused(404, "resource_missing", "No such payment_intent"))?;
            if intent.status != IntentStatus::RequiresCapture {
                return Err(refused(
                    400,
                    "payment_intent_unexpected_state",
                    format!("This PaymentIntent's status is {}", intent.status.as_str()),
                ));
            }
            let amount = amount.unwrap_or(intent.amount);
            if amount <= 0 || amount > intent.amount {
                return Err(refused(
                    400,
                    "amount_too_large",
                    "amount_to_capture is out of range",
                ));
            }
            intent.amount = amount;
            intent.status = IntentStatus::Succeeded;
            let events = vec![event(&key, "payment_intent.succeeded", intent.json(), now)];
            Ok((intent.view(), events))
        })
    }

    pub fn cancel(&self, key: &str, id: &str) -> Result<PaymentIntent, ProviderError> {
        let key = self.locate(Caller::SecretKey(key), id)?;
        self.with(&key, |a| {
            let intent = a
                .intents
                .get_mut(id)
                .ok_or_else(|| refused(404, "resource_missing", "No such payment_intent"))?;
            if matches!(
                intent.status,
                IntentStatus::Succeeded | IntentStatus::Canceled
            ) {
                return Err(refused(
                    400,
                    "payment_intent_unexpected_state",
                    format!("This PaymentIntent's status is {}", intent.status.as_str()),
                ));
            }
            intent.status = IntentStatus::Canceled;
            Ok(intent.view())
        })
    }

    /// Refunds `amount` of a succeeded intent (at most what is left).
    pub fn refund(
        &self,
        key: &str,
        intent_id: &str,
        amount: Option<i64>,
        idempotency_key: &str,
        now: i64,
    ) -> Result<(Refund, Vec<SandboxEvent>), ProviderError> {
        let key = self.locate(Caller::SecretKey(key), intent_id)?;
        self.with(&key, |a| {
            if let Some((_, r)) = a.keys.get(idempotency_key).and_then(|id| a.refunds.get(id)) {
                return Ok((r.clone(), Vec::new()));
            }
            let intent = a
                .intents
                .get_mut(intent_id)
                .ok_or_else(|| refused(404, "resource_missing", "No such payment_intent"))?;
            if intent.status != IntentStatus::Succeeded {
                return Err(refused(
                    400,
                    "charge_not_refundable",
                    "This payment is not captured",
                ));
            }
            let left = intent.amount - intent.refunded;
            let amount = amount.unwrap_or(left);
            if amount <= 0 || amount > left {
                return Err(refused(
                    400,
                    "amount_too_large",
                    format!("Refund amount ({amount}) is greater than unrefunded amount ({left})"),
                ));
            }
            intent.refunded += amount;
            let refund = Refund {
                id: random_id("re"),
                amount,
                status: "succeeded".to_owned(),
            };
            let charge = json!({
                "id": intent.latest_charge,
                "object": "charge",
                "amount": intent.amount,
                "amount_refunded": intent.refunded,
                "refunded": intent.refunded >= intent.amount,
                "currency": intent.currency,
                "payment_intent": intent.id,
                "metadata": intent.metadata,
            });
            let events = vec![event(&key, "charge.refunded", charge, now)];
            a.keys.insert(idempotency_key.to_owned(), refund.id.clone());
            a.refunds
                .insert(refund.id.clone(), (intent_id.to_owned(), refund.clone()));
            Ok((refund, events))
        })
    }
}

fn event(key: &str, kind: &str, object: Value, now: i64) -> SandboxEvent {
    SandboxEvent {
        secret_key: key.to_owned(),
        body: json!({
            "id": random_id("evt"),
            "object": "event",
            "api_version": "2024-06-20",
            "created": now,
            "type": kind,
            "livemode": false,
            "data": {"object": object},
        }),
    }
}

mod account;
mod customers;

pub use account::{SandboxAccount, SandboxProvider};

#[cfg(test)]
mod tests;
