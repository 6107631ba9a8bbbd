//! Payments: provider credentials (`credentials.rs`), payments through providers
//! (`online.rs`), their events (`events.rs` decides with the domain's `effect_of`, `event_effects.rs`
//! and `charges.rs` carry the effects out), refunds (`refunds.rs`) and
//! those left unfinished (`unfinished.rs`), the tenant's cancellation fee
//! (`refund_policy.rs`).

mod charges;
mod credentials;
mod event_effects;
mod events;
pub(crate) mod online;
pub(crate) mod refund_policy;
mod refunds;
mod unfinished;
