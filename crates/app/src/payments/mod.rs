//! Payments (spec Part B 4.6): the providers behind their traits (`providers`), a
//! payment's account (`accounts`), starting a payment at its provider (`intents`, `bank`),
//! capturing it (`capture`), settling what providers report (`card_events`,
//! `bank_events`), refunds (`refund`), what cancellations still owe (`owed`), the payment
//! deadline (`deadline`) and the mixed-tender result (`mixed`).

pub mod accounts;
pub mod bank;
pub mod bank_events;
pub mod bank_refunds;
pub mod capture;
pub mod card_events;
pub mod credentials;
pub mod deadline;
pub mod intents;
pub mod mixed;
pub mod owed;
pub mod providers;
pub mod refund;
pub mod settings;

pub use settings::PaymentSettings;
