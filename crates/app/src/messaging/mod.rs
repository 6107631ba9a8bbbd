//! Messages leaving the service: delivery of the outbox by email and SMS.

pub mod delivery;
