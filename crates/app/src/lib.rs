//! The application layer of Kairos: use cases that take more than one transaction or
//! talk to an outside party (payment providers, the mail server), and the background
//! jobs. It sits between the HTTP layer and the store: `server → api → app → store →
//! domain`. A handler extracts and authorizes, calls one function here (or one store
//! operation when a single transaction is the whole story), and maps the result to a
//! response; nothing here knows HTTP requests or responses.

pub mod booking_groups;
pub mod bookings;
pub mod context;
pub mod error;
pub mod fees;
pub mod http;
pub mod issues;
pub mod jobs;
pub mod messaging;
pub mod payments;
pub mod redact;

pub use context::App;
pub use error::{AppError, AppResult, Failure, code};
