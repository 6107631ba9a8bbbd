//! Booking use cases that take more than one transaction or an outside party.

pub mod cancel;
