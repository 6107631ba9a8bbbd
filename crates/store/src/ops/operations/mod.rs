//! Daily operations: the tenant's no-show fee policy (`policy.rs`), the no-show tracking
//! record (`no_shows.rs`) and its detection (`detection.rs`), fees on bookings (`fees.rs`)
//! and their off-session charges (`charges.rs`), customers blocked from new holds (`blocks.rs`).

mod blocks;
mod charges;
mod detection;
mod fees;
mod no_shows;
mod policy;

pub(crate) use blocks::refuse_blocked;
pub(crate) use charges::finish_attempt;
pub(crate) use no_shows::{correct_no_show, track_no_show};
