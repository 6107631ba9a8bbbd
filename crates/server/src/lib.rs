//! The parts of the `kairos` binary: configuration, demo seeding and the list of
//! background jobs. `main.rs` is the command line over them. Message delivery is the
//! application's (`kairos_app::messaging::delivery`), re-exported here.

pub use kairos_app::messaging::delivery;

pub mod config;
pub mod demo;
mod demo_waivers;
pub mod payments;
pub mod workers;
