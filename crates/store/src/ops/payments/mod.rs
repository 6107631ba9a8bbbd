//! Payments: provider credentials (`credentials.rs`), payments through providers and
//! their events (`online.rs`).

mod credentials;
mod online;
