//! How the service reaches the payment providers, and keeps their secrets.

use kairos_domain::secrets::SecretBox;

/// Stripe's API, which cardpay speaks.
pub const CARDPAY_API_BASE: &str = "https://api.stripe.com";
/// Stripe's browser library (Stripe.js), which draws cardpay's card element.
pub const CARDPAY_JS_URL: &str = "https://js.stripe.com/v3/";
/// Paytrail's API, which bankpay speaks.
pub const BANKPAY_API_BASE: &str = "https://services.paytrail.com";

/// The platform's bankpay account (spec Part B 4.6: the last step of credential
/// resolution; cardpay has none).
#[derive(Clone)]
pub struct EnvBankpay {
    pub merchant_id: String,
    pub secret: String,
}

impl std::fmt::Debug for EnvBankpay {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EnvBankpay")
            .field("merchant_id", &self.merchant_id)
            .finish_non_exhaustive()
    }
}

/// Payment settings of the HTTP layer.
#[derive(Debug, Clone)]
pub struct PaymentSettings {
    /// Seals and opens stored provider secrets (`KAIROS_SECRET_KEY`).
    pub secrets: SecretBox,
    /// `KAIROS_CARDPAY_API_BASE`.
    pub cardpay_api_base: String,
    /// `KAIROS_CARDPAY_JS_URL`: the provider's browser library the pages load for a real
    /// account's card element (allowed by the pages' content security policy).
    pub cardpay_js_url: String,
    /// `KAIROS_BANKPAY_API_BASE`.
    pub bankpay_api_base: String,
    /// `KAIROS_BANKPAY_MERCHANT_ID` and `KAIROS_BANKPAY_SECRET`.
    pub env_bankpay: Option<EnvBankpay>,
    /// How long an online payment may stay pending before its booking is cancelled
    /// (`KAIROS_PAYMENT_DEADLINE_MINUTES`).
    pub deadline: std::time::Duration,
    /// The service's public address (`KAIROS_PUBLIC_URL`): bankpay's callbacks and the
    /// customer's default return pages are under it.
    pub public_url: Option<String>,
}

impl Default for PaymentSettings {
    /// A random secret key (sealed secrets last as long as the process), the real
    /// providers' addresses, no platform account.
    fn default() -> Self {
        let key = format!(
            "{}{}",
            uuid::Uuid::new_v4().simple(),
            uuid::Uuid::new_v4().simple()
        );
        Self {
            secrets: SecretBox::new(&key),
            cardpay_api_base: CARDPAY_API_BASE.to_owned(),
            cardpay_js_url: CARDPAY_JS_URL.to_owned(),
            bankpay_api_base: BANKPAY_API_BASE.to_owned(),
            env_bankpay: None,
            deadline: std::time::Duration::from_secs(30 * 60),
            public_url: None,
        }
    }
}
