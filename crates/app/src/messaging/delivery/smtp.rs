//! Email over SMTP with lettre, and composing the email of a message.

use kairos_store::{Delivery, DeliveryResult};
use lettre::message::header::ContentType;
use lettre::message::{Mailbox, Message};
use lettre::{AsyncSmtpTransport, AsyncTransport, Tokio1Executor};
use std::time::Duration;

/// How long one SMTP conversation may take.
const TIMEOUT: Duration = Duration::from_secs(30);

/// A pooled SMTP client.
pub struct Smtp {
    transport: AsyncSmtpTransport<Tokio1Executor>,
    /// The URL without its password, for logs.
    shown: String,
}

impl Smtp {
    /// From `smtp://…` or `smtps://…` (lettre's URL forms: `?tls=required` for STARTTLS).
    pub fn new(url: &str) -> anyhow::Result<Smtp> {
        let transport = AsyncSmtpTransport::<Tokio1Executor>::from_url(url)
            .map_err(|e| anyhow::anyhow!("smtp_url (KAIROS_SMTP_URL) is not usable: {e}"))?
            .timeout(Some(TIMEOUT))
            .build();
        Ok(Smtp {
            transport,
            shown: crate::redact::redact_url(url),
        })
    }

    pub fn describe(&self) -> &str {
        &self.shown
    }

    pub async fn send(&self, message: Message) -> DeliveryResult {
        match self.transport.send(message).await {
            Ok(_) => DeliveryResult::Delivered,
            Err(e) if e.is_permanent() => DeliveryResult::Permanent {
                error_type: "smtp_rejected".into(),
                message: e.to_string(),
            },
            Err(e) => DeliveryResult::Transient {
                error_type: if e.is_transient() {
                    "smtp_deferred".into()
                } else {
                    "smtp_unavailable".into()
                },
                message: e.to_string(),
            },
        }
    }
}

/// The email of message `d` with HTML `body`, from `from`. A recipient that is not an
/// email address fails for good.
pub fn compose(d: &Delivery, body: &str, from: &Mailbox) -> Result<Message, DeliveryResult> {
    let address = d.recipient.parse().map_err(|e| DeliveryResult::Permanent {
        error_type: "invalid_address".into(),
        message: format!("{:?} is not an email address: {e}", d.recipient),
    })?;
    let name = Some(d.recipient_name.clone()).filter(|n| !n.trim().is_empty());
    Message::builder()
        .from(from.clone())
        .to(Mailbox::new(name, address))
        .subject(d.subject.clone())
        .message_id(Some(format!("<{}@kairos>", d.id)))
        .header(ContentType::TEXT_HTML)
        .body(body.to_owned())
        .map_err(|e| DeliveryResult::Permanent {
            error_type: "invalid_message".into(),
            message: e.to_string(),
        })
}
