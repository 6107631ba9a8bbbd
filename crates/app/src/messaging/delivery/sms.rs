//! SMS through an HTTP provider. For each message Kairos sends
//!
//! ```text
//! POST <sms_url>
//! Authorization: Bearer <sms_token>
//! Idempotency-Key: <message id>
//! Content-Type: application/json
//!
//! {"to": "+358401234567", "from": "<sms_from or null>", "body": "…", "reference": "<message id>"}
//! ```
//!
//! and counts any 2xx answer as delivered. 408, 429 and 5xx answers and network failures
//! are retried; other 4xx answers (a bad number, a refused sender) fail for good.

use kairos_store::{Delivery, DeliveryResult};
use std::time::Duration;

/// How long one request may take.
const TIMEOUT: Duration = Duration::from_secs(15);

pub struct SmsProvider {
    client: reqwest::Client,
    url: reqwest::Url,
    token: String,
    from: Option<String>,
}

impl SmsProvider {
    pub fn new(url: &str, token: &str, from: Option<String>) -> anyhow::Result<SmsProvider> {
        let url = reqwest::Url::parse(url)
            .map_err(|e| anyhow::anyhow!("sms_url (KAIROS_SMS_URL) is not a URL: {e}"))?;
        if !matches!(url.scheme(), "http" | "https") {
            anyhow::bail!("sms_url (KAIROS_SMS_URL) must be an http or https URL");
        }
        let client = crate::http::client_builder()
            .timeout(TIMEOUT)
            .build()
            .map_err(|e| anyhow::anyhow!("building the SMS client: {e}"))?;
        Ok(SmsProvider {
            client,
            url,
            token: token.to_owned(),
            from,
        })
    }

    pub fn describe(&self) -> String {
        format!(
            "{}://{}{}",
            self.url.scheme(),
            self.url.host_str().unwrap_or_default(),
            self.url.path()
        )
    }

    pub async fn send(&self, d: &Delivery) -> DeliveryResult {
        let response = self
            .client
            .post(self.url.clone())
            .bearer_auth(&self.token)
            .header("Idempotency-Key", d.id.to_string())
            .json(&serde_json::json!({
                "to": d.recipient,
                "from": self.from,
                "body": d.body,
                "reference": d.id,
            }))
            .send()
            .await;
        match response {
            Ok(r) if r.status().is_success() => DeliveryResult::Delivered,
            Ok(r) => {
                let status = r.status();
                let text: String = r
                    .text()
                    .await
                    .unwrap_or_default()
                    .chars()
                    .take(300)
                    .collect();
                let message = format!("the SMS provider answered {status}: {text}");
                if status.is_server_error()
                    || status == reqwest::StatusCode::REQUEST_TIMEOUT
                    || status == reqwest::StatusCode::TOO_MANY_REQUESTS
                {
                    DeliveryResult::Transient {
                        error_type: "sms_provider_unavailable".into(),
                        message,
                    }
                } else {
                    DeliveryResult::Permanent {
                        error_type: "sms_rejected".into(),
                        message,
                    }
                }
            }
            Err(e) => DeliveryResult::Transient {
                error_type: "sms_provider_unreachable".into(),
                message: e.to_string(),
            },
        }
    }
}
