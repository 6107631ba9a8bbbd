//! The parts of the `kairos` binary: configuration, demo seeding, the background workers
//! and message delivery. `main.rs` is the command line over them.

pub mod config;
pub mod delivery;
pub mod demo;
pub mod payments;
pub mod workers;
