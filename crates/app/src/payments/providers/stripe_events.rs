//! Stripe's webhook events, read at the edge into typed values: the event's id and type,
//! and the parts of its object Kairos uses, then one [`ProviderReport`]. Reading is
//! lenient where Stripe-compatible senders differ (a missing field is `None`; an amount
//! that is not a whole number is `None`, which the report's check refuses).

use kairos_domain::payments::reports::{Dispute, ProviderReport};
use serde::{Deserialize, Deserializer};
use serde_json::Value;

/// An event as sent.
#[derive(Debug, Deserialize)]
pub struct CardEvent {
    /// Empty when the body has none (not an event).
    #[serde(default, deserialize_with = "lenient_text")]
    pub id: String,
    #[serde(rename = "type", default, deserialize_with = "lenient_text")]
    pub kind: String,
    #[serde(default, deserialize_with = "lenient_data")]
    pub data: EventData,
}

#[derive(Debug, Default, Deserialize)]
pub struct EventData {
    #[serde(default, deserialize_with = "lenient_object")]
    pub object: EventObject,
}

fn lenient_text<'de, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    Ok(lenient(d)?.unwrap_or_default())
}

fn lenient_data<'de, D: Deserializer<'de>>(d: D) -> Result<EventData, D::Error> {
    Ok(lenient(d)?.unwrap_or_default())
}

fn lenient_object<'de, D: Deserializer<'de>>(d: D) -> Result<EventObject, D::Error> {
    Ok(lenient(d)?.unwrap_or_default())
}

/// The event's object: a PaymentIntent, a charge or a dispute (what `object` says),
/// with the fields any of them may carry.
#[derive(Debug, Default, Deserialize)]
pub struct EventObject {
    #[serde(default, deserialize_with = "lenient")]
    pub object: Option<String>,
    #[serde(default, deserialize_with = "lenient")]
    pub id: Option<String>,
    /// A charge's or dispute's PaymentIntent.
    #[serde(default, deserialize_with = "lenient")]
    pub payment_intent: Option<String>,
    #[serde(default, deserialize_with = "whole")]
    pub amount: Option<i64>,
    #[serde(default, deserialize_with = "whole")]
    pub amount_received: Option<i64>,
    #[serde(default, deserialize_with = "whole")]
    pub amount_refunded: Option<i64>,
    #[serde(default, deserialize_with = "lenient")]
    pub currency: Option<String>,
    #[serde(default, deserialize_with = "lenient")]
    pub reason: Option<String>,
    #[serde(default, deserialize_with = "lenient")]
    pub last_payment_error: Option<PaymentError>,
    #[serde(default, deserialize_with = "lenient")]
    pub metadata: Option<Metadata>,
}

#[derive(Debug, Default, Deserialize)]
pub struct PaymentError {
    #[serde(default, deserialize_with = "lenient")]
    pub code: Option<String>,
    #[serde(default, deserialize_with = "lenient")]
    pub message: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
pub struct Metadata {
    #[serde(default, deserialize_with = "lenient")]
    pub tenant_id: Option<String>,
    /// The Kairos payment the intent was made for.
    #[serde(default, deserialize_with = "lenient")]
    pub payment_id: Option<String>,
}

/// The value when it has the expected shape, `None` otherwise (a field of another type is
/// as good as missing).
fn lenient<'de, D: Deserializer<'de>, T: serde::de::DeserializeOwned>(
    d: D,
) -> Result<Option<T>, D::Error> {
    Ok(serde_json::from_value(Value::deserialize(d)?).ok())
}

/// A whole number, or `None` for anything else (text, a fraction, null).
fn whole<'de, D: Deserializer<'de>>(d: D) -> Result<Option<i64>, D::Error> {
    Ok(Value::deserialize(d)?.as_i64())
}

/// The kinds of object an event carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ObjectKind {
    PaymentIntent,
    Charge,
    Dispute,
    Other,
}

impl EventObject {
    pub fn kind(&self) -> ObjectKind {
        match self.object.as_deref() {
            Some("payment_intent") => ObjectKind::PaymentIntent,
            Some("charge") => ObjectKind::Charge,
            Some("dispute") => ObjectKind::Dispute,
            _ => ObjectKind::Other,
        }
    }
}

impl CardEvent {
    /// Reads a JSON object as an event (its id or type may be missing: see
    /// [`CardEvent::is_event`]); `None` when the body is not one.
    pub fn parse(body: &[u8]) -> Option<CardEvent> {
        serde_json::from_slice(body).ok()
    }

    /// Whether it has the id and type every event has.
    pub fn is_event(&self) -> bool {
        !self.id.is_empty() && !self.kind.is_empty()
    }

    /// The PaymentIntent the event is about.
    pub fn payment_intent(&self) -> Option<&str> {
        let o = &self.data.object;
        match o.kind() {
            ObjectKind::PaymentIntent => o.id.as_deref(),
            _ => o.payment_intent.as_deref(),
        }
    }

    /// The Kairos payment a PaymentIntent's metadata names (written on every intent).
    pub fn metadata_payment(&self) -> Option<uuid::Uuid> {
        match self.data.object.kind() {
            ObjectKind::PaymentIntent => self
                .data
                .object
                .metadata
                .as_ref()?
                .payment_id
                .as_deref()?
                .parse()
                .ok(),
            _ => None,
        }
    }

    /// The tenant the object's metadata names (Kairos writes it on every intent).
    pub fn metadata_tenant(&self) -> Option<&str> {
        self.data.object.metadata.as_ref()?.tenant_id.as_deref()
    }

    /// What the event reports.
    pub fn report(&self) -> ProviderReport {
        let o = &self.data.object;
        let kind = o.kind();
        match self.kind.as_str() {
            "payment_intent.succeeded" => ProviderReport::Succeeded {
                amount: (kind == ObjectKind::PaymentIntent)
                    .then(|| o.amount_received.filter(|a| *a > 0).or(o.amount))
                    .flatten(),
                currency: (kind == ObjectKind::PaymentIntent)
                    .then(|| o.currency.clone())
                    .flatten(),
            },
            "payment_intent.payment_failed" => {
                let error = o.last_payment_error.as_ref();
                ProviderReport::Failed {
                    code: error
                        .and_then(|e| e.code.clone())
                        .unwrap_or_else(|| "failed".to_owned()),
                    message: error.and_then(|e| e.message.clone()).unwrap_or_default(),
                }
            }
            "charge.refunded" => ProviderReport::Refunded {
                total_refunded: (kind == ObjectKind::Charge)
                    .then_some(o.amount_refunded)
                    .flatten(),
            },
            "charge.dispute.created" => ProviderReport::Disputed(
                (kind == ObjectKind::Dispute)
                    .then(|| {
                        Some(Dispute {
                            id: o.id.clone()?,
                            amount: o.amount?,
                            currency: o.currency.clone()?,
                            reason: o.reason.clone().unwrap_or_else(|| "general".to_owned()),
                        })
                    })
                    .flatten(),
            ),
            other => ProviderReport::Other(other.to_owned()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn event(kind: &str, object: Value) -> CardEvent {
        let body =
            serde_json::to_vec(&json!({"id": "evt_1", "type": kind, "data": {"object": object}}))
                .unwrap_or_default();
        CardEvent::parse(&body).unwrap_or_else(|| panic!("not an event"))
    }

    #[test]
    fn a_succeeded_intent_reports_what_was_received() {
        let e = event(
            "payment_intent.succeeded",
            json!({"id": "pi_1", "object": "payment_intent", "amount": 5000,
                "amount_received": 4000, "currency": "eur", "metadata": {"tenant_id": "acme"}}),
        );
        assert_eq!(e.payment_intent(), Some("pi_1"));
        assert_eq!(e.metadata_tenant(), Some("acme"));
        assert_eq!(
            e.report(),
            ProviderReport::Succeeded {
                amount: Some(4000),
                currency: Some("eur".into())
            }
        );
        // Nothing received yet (an older sender): the amount.
        let e = event(
            "payment_intent.succeeded",
            json!({"id": "pi_1", "object": "payment_intent", "amount": 5000,
                "amount_received": 0, "currency": "eur"}),
        );
        assert!(matches!(
            e.report(),
            ProviderReport::Succeeded {
                amount: Some(5000),
                ..
            }
        ));
    }

    #[test]
    fn amounts_that_are_not_whole_numbers_are_missing() {
        for amount in [json!("4000"), json!(4000.5), Value::Null] {
            let e = event(
                "payment_intent.succeeded",
                json!({"id": "pi_1", "object": "payment_intent", "amount": amount, "currency": "eur"}),
            );
            assert!(
                matches!(e.report(), ProviderReport::Succeeded { amount: None, .. }),
                "{amount}"
            );
        }
    }

    #[test]
    fn failures_refunds_and_disputes() {
        let e = event(
            "payment_intent.payment_failed",
            json!({"id": "pi_1", "object": "payment_intent",
                "last_payment_error": {"code": "card_declined", "message": "No"}}),
        );
        assert_eq!(
            e.report(),
            ProviderReport::Failed {
                code: "card_declined".into(),
                message: "No".into()
            }
        );
        let e = event(
            "charge.refunded",
            json!({"id": "ch_1", "object": "charge", "payment_intent": "pi_1", "amount_refunded": 700}),
        );
        assert_eq!(e.payment_intent(), Some("pi_1"));
        assert_eq!(
            e.report(),
            ProviderReport::Refunded {
                total_refunded: Some(700)
            }
        );
        let e = event(
            "charge.dispute.created",
            json!({"id": "dp_1", "object": "dispute", "payment_intent": "pi_1",
                "amount": 5000, "currency": "eur"}),
        );
        assert!(matches!(
            e.report(),
            ProviderReport::Disputed(Some(Dispute { ref reason, .. })) if reason == "general"
        ));
        let e = event("charge.dispute.created", json!({"object": "charge"}));
        assert_eq!(e.report(), ProviderReport::Disputed(None));
        let e = event(
            "customer.created",
            json!({"id": "cus_1", "object": "customer"}),
        );
        assert_eq!(e.report(), ProviderReport::Other("customer.created".into()));
        assert_eq!(e.payment_intent(), None);
    }
}
