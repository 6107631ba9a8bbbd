//! What Kairos asks of a card provider, whichever it is: the [`CardProvider`] trait and
//! the objects it speaks in (PaymentIntents and refunds, as Stripe's protocol names them).
//! Implementations: [`super::stripe`] (Stripe's HTTP API, or any server that speaks it)
//! and [`super::sandbox`] (the built-in simulator).

use serde::Deserialize;
use serde_json::Value;

/// Why a provider call failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ProviderError {
    /// The card was declined (402): try another card.
    #[error("declined: {message}")]
    Declined {
        code: String,
        decline_code: Option<String>,
        message: String,
    },
    /// The provider refused the request (another 4xx): not worth retrying as it is.
    #[error("refused ({status}): {message}")]
    Refused {
        status: u16,
        code: String,
        message: String,
    },
    /// The provider could not be reached, timed out or failed (5xx, 429): retry later.
    #[error("unavailable: {0}")]
    Unavailable(String),
}

/// A PaymentIntent's status.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IntentStatus {
    RequiresPaymentMethod,
    RequiresConfirmation,
    RequiresAction,
    Processing,
    RequiresCapture,
    Canceled,
    Succeeded,
    Other(String),
}

impl IntentStatus {
    /// The status as the provider writes it.
    pub fn as_str(&self) -> &str {
        match self {
            IntentStatus::RequiresPaymentMethod => "requires_payment_method",
            IntentStatus::RequiresConfirmation => "requires_confirmation",
            IntentStatus::RequiresAction => "requires_action",
            IntentStatus::Processing => "processing",
            IntentStatus::RequiresCapture => "requires_capture",
            IntentStatus::Canceled => "canceled",
            IntentStatus::Succeeded => "succeeded",
            IntentStatus::Other(o) => o,
        }
    }

    pub(crate) fn parse(raw: &str) -> IntentStatus {
        match raw {
            "requires_payment_method" => IntentStatus::RequiresPaymentMethod,
            "requires_confirmation" => IntentStatus::RequiresConfirmation,
            "requires_action" => IntentStatus::RequiresAction,
            "processing" => IntentStatus::Processing,
            "requires_capture" => IntentStatus::RequiresCapture,
            "canceled" => IntentStatus::Canceled,
            "succeeded" => IntentStatus::Succeeded,
            other => IntentStatus::Other(other.to_owned()),
        }
    }
}

/// The parts of a PaymentIntent Kairos uses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PaymentIntent {
    pub id: String,
    pub status: IntentStatus,
    pub amount: i64,
    /// Lower case, as Stripe writes it.
    pub currency: String,
    pub client_secret: Option<String>,
    /// The latest charge's id.
    pub latest_charge: Option<String>,
    /// The last failure: code and message.
    pub last_error: Option<(String, String)>,
    pub metadata: serde_json::Map<String, Value>,
    /// The payment method it was (or is to be) paid with.
    pub payment_method: Option<String>,
    /// The provider's customer it belongs to, whose saved cards may be charged later.
    pub customer: Option<String>,
}

/// A refund as the provider reports it.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct Refund {
    pub id: String,
    #[serde(default)]
    pub amount: i64,
    /// pending, succeeded, failed, canceled, requires_action.
    #[serde(default)]
    pub status: String,
}

/// A PaymentIntent to create.
#[derive(Debug, Clone, Default)]
pub struct NewIntent<'a> {
    /// Minor units.
    pub amount: i64,
    /// Any case; sent lower case.
    pub currency: &'a str,
    /// Authorize only; capture later (`POST /payments/capture`).
    pub manual_capture: bool,
    /// A payment method to confirm with at once (staff, an off-session charge, tests);
    /// None: the customer's browser confirms with the client secret.
    pub payment_method: Option<&'a str>,
    pub metadata: &'a [(&'a str, String)],
    /// The provider's customer the payment belongs to.
    pub customer: Option<&'a str>,
    /// Keep the card for later charges without the customer present (Stripe's
    /// `setup_future_usage=off_session`): a booking's payment, for its fees.
    pub save_card: bool,
    /// Charge a saved card without the customer present (a fee): confirmed at once with
    /// `payment_method`; a card that needs the customer to authenticate is declined.
    pub off_session: bool,
}

/// A card provider account, as the use cases call it. Each write carries an idempotency
/// key derived from the payment it acts on, so a retry after a lost answer has one effect.
#[async_trait::async_trait]
pub trait CardProvider: Send + Sync + std::fmt::Debug {
    /// Creates a PaymentIntent; `key` makes a retry return the same one.
    async fn create_intent(
        &self,
        intent: &NewIntent<'_>,
        key: &str,
    ) -> Result<PaymentIntent, ProviderError>;

    async fn retrieve_intent(&self, id: &str) -> Result<PaymentIntent, ProviderError>;

    /// Confirms a PaymentIntent with a payment method: the provider charges (or
    /// authorizes) it.
    async fn confirm_intent(
        &self,
        id: &str,
        payment_method: &str,
        key: &str,
    ) -> Result<PaymentIntent, ProviderError>;

    /// Captures an authorized PaymentIntent (all of it, or `amount`).
    async fn capture_intent(
        &self,
        id: &str,
        amount: Option<i64>,
        key: &str,
    ) -> Result<PaymentIntent, ProviderError>;

    /// Cancels a PaymentIntent not yet captured (so the customer cannot pay it later).
    async fn cancel_intent(&self, id: &str, key: &str) -> Result<(), ProviderError>;

    /// Refunds `amount` (minor units) of a PaymentIntent.
    async fn refund(&self, intent: &str, amount: i64, key: &str) -> Result<Refund, ProviderError>;

    /// Creates a customer at the provider (whose cards can be saved for later charges);
    /// its id.
    async fn create_customer(
        &self,
        email: &str,
        name: &str,
        key: &str,
    ) -> Result<String, ProviderError>;

    /// Makes sure `payment_method` is saved to `customer` (attached, when the provider did
    /// not attach it when it was paid with); the saved payment method's id.
    async fn save_payment_method(
        &self,
        payment_method: &str,
        customer: &str,
        key: &str,
    ) -> Result<String, ProviderError>;

    /// Where a test card confirms `intent`, for accounts that offer it (the sandbox's).
    fn test_confirm_url(&self, _intent: &str) -> Option<String> {
        None
    }
}
