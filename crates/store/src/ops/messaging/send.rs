//! A message staff send to a customer or about a booking (spec Part B 4.8).

use super::super::Repo;
use super::super::audit::Change;
use super::compose::{
    ChannelOutcome, Compose, Recipient, booking_facts, customer_recipient, queue_message_to,
};
use crate::{Actor, MessagingError, SendRequest, SendTo, Timestamp};
use kairos_domain::TenantId;
use kairos_store_macros::operations;
use serde_json::json;
use uuid::Uuid;

#[operations]
impl Repo {
    /// Renders and queues one message; refused when there is no template for the channel,
    /// the customer's choices forbid it, or the template does not render.
    pub async fn send_message(
        &self,
        tenant: &TenantId,
        req: SendRequest,
        actor: &Actor,
        now: Timestamp,
    ) -> Result<Uuid, MessagingError> {
        let mut w = self.begin(tenant, now).await?;
        let to: Recipient = match req.to {
            SendTo::Booking(id) => {
                let b = booking_facts(&mut w, id)
                    .await?
                    .ok_or(MessagingError::BookingNotFound)?;
                Recipient::of_booking(&b)
            }
            SendTo::Customer(id) => customer_recipient(&mut w, id)
                .await?
                .ok_or(MessagingError::CustomerNotFound)?,
        };
        let channels = [req.channel];
        let outcomes = queue_message_to(
            &mut w,
            &to,
            Compose {
                channels: &channels,
                extra: req.variables.as_ref(),
                priority: req.priority,
                track_delivery: req.track_delivery,
                ..Compose::of(&req.template_key, "send", now)
            },
        )
        .await?;
        let id = match outcomes.first().map(|(_, o)| *o) {
            Some(ChannelOutcome::Queued(id)) => id,
            Some(ChannelOutcome::Withheld(why)) => {
                return Err(MessagingError::Withheld(why.as_str()));
            }
            Some(ChannelOutcome::RenderFailed) => return Err(MessagingError::RenderFailed),
            Some(ChannelOutcome::NoTemplate) | None => {
                return Err(MessagingError::NoTemplate(req.channel));
            }
        };
        w.audit(
            actor,
            Change {
                action: "message.sent",
                entity_type: "message",
                entity_id: id.to_string(),
                changes: json!({
                    "templateKey": req.template_key,
                    "channel": req.channel.as_str(),
                    "bookingId": to.booking_id,
                    "customerId": to.customer_id,
                }),
            },
        );
        w.commit(None).await?;
        Ok(id)
    }
}
