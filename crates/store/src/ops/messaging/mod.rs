//! Messaging: templates (`templates.rs`), automation rules and their firing (`rules.rs`,
//! `automation.rs`), composing a message for a booking or customer (`compose.rs`), the
//! message log and its delivery through the outbox (`messages.rs`), customers' choices
//! (`preferences.rs`), staff's messages (`send.rs`) and bulk sends (`bulk.rs`). The
//! dead-letter queue is `ops/dead_letters`.

mod automation;
mod bulk;
mod compose;
mod messages;
mod preferences;
mod rules;
mod send;
mod templates;

pub(crate) use compose::{
    ChannelOutcome, Compose, Recipient, booking_facts, customer_recipient, queue_booking_message,
    queue_message_to,
};
pub(crate) use rules::insert_default_rules;
