//! Payments: provider credentials (`credentials.rs`), payments through providers and
//! their events (`online.rs`), refunds (`refunds.rs`).

mod charges;
mod credentials;
pub(crate) mod online;
mod refunds;
