//! The sandbox's customers and saved cards, and the off-session decline of a card that
//! needs its customer present.

use super::super::card::{IntentStatus, PaymentIntent, ProviderError};
use super::{Outcome, Sandbox, check_key, event, random_id, refused};

impl Sandbox {
    /// An off-session charge of a card whose bank wants the customer to authenticate:
    /// declined, as Stripe declines it.
    pub(super) fn decline_off_session(
        &self,
        key: &str,
        id: &str,
        pm: &str,
        now: i64,
    ) -> Outcome<PaymentIntent> {
        self.with(key, |a| {
            let Some(intent) = a.intents.get_mut(id) else {
                return (
                    Err(refused(404, "resource_missing", "No such payment_intent")),
                    Vec::new(),
                );
            };
            let (code, message) = (
                "authentication_required".to_owned(),
                "Your card was declined. This transaction requires authentication.".to_owned(),
            );
            intent.payment_method = Some(pm.to_owned());
            intent.status = IntentStatus::RequiresPaymentMethod;
            intent.last_error = Some((code.clone(), message.clone()));
            let failed = event(key, "payment_intent.payment_failed", intent.json(), now);
            (
                Err(ProviderError::Declined {
                    code,
                    decline_code: None,
                    message,
                }),
                vec![failed],
            )
        })
    }

    /// Creates a customer; its id.
    pub fn create_customer(&self, key: &str) -> Result<String, ProviderError> {
        check_key(key)?;
        let id = random_id("cus");
        self.with(key, |a| a.customers.insert(id.clone()));
        Ok(id)
    }

    /// Saves `pm` to `customer` (again: unchanged); the saved payment method's id.
    pub fn save_payment_method(
        &self,
        key: &str,
        pm: &str,
        customer: &str,
    ) -> Result<String, ProviderError> {
        check_key(key)?;
        self.with(key, |a| {
            if !a.customers.contains(customer) {
                return Err(refused(
                    404,
                    "resource_missing",
                    format!("No such customer: '{customer}'"),
                ));
            }
            a.saved.insert(pm.to_owned(), customer.to_owned());
            Ok(pm.to_owned())
        })
    }
}
