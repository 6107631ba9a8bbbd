//! Payments: provider credentials (`credentials.rs`).

mod credentials;
