//! Pure business rules of Kairos: no IO, no async, no database.
//!
//! Every other crate builds on these types: identifiers, the clock, validation
//! errors, tenancy rules, administrator roles and permissions, customer account rules.

#[macro_use]
mod text_enum;

pub mod auth;
pub mod booking_groups;
pub mod bookings;
pub mod cancellations;
pub mod catalog;
pub mod clock;
pub mod customers;
pub mod dead_letters;
pub mod fees;
pub mod gift_cards;
pub mod ids;
pub mod issues;
pub mod messaging;
pub mod money;
pub mod moves;
pub mod packages;
pub mod payments;
pub mod pricing;
pub mod promotions;
pub mod resource_policies;
pub mod resources;
pub mod scheduling;
pub mod secrets;
pub mod tenancy;
pub mod text;
pub mod validation;
pub mod vouchers;
pub mod waivers;

pub use clock::{Clock, ManualClock, SystemClock};
pub use ids::{TenantId, new_id};
pub use validation::{FieldError, FieldErrors};
