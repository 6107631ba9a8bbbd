//! The payment providers behind their traits: a card provider ([`card::CardProvider`],
//! spoken by [`stripe`] over HTTP and by the built-in [`sandbox`]) and a bank-redirect
//! provider ([`bank::BankProvider`], spoken by [`paytrail`]). Use cases see only the
//! traits; which implementation an account uses is decided once, when its stored
//! credentials are opened (`payments::accounts`).

pub mod bank;
pub mod card;
pub mod paytrail;
pub mod sandbox;
pub mod stripe;
pub mod stripe_events;

pub use bank::BankProvider;
pub use card::{CardProvider, IntentStatus, NewIntent, PaymentIntent, ProviderError, Refund};
