//! The HTTP API of Kairos: router, extractors, error rendering, rate limiting and
//! OpenAPI, with one module per area. Handlers are thin: extract, call one store
//! operation, map to a response type.

pub mod auth;
pub mod availability;
pub mod booking_groups;
pub mod bookings;
pub mod catalog;
pub mod cors;
pub mod customers;
pub mod dead_letters;
pub mod deleted;
pub mod error;
pub mod etag;
pub mod export;
pub mod extract;
pub mod gift_cards;
pub mod idempotency;
pub mod import;
pub mod issues;
pub mod messaging;
pub mod no_shows;
pub mod openapi;
pub mod operations;
pub mod pages;
pub mod payments;
pub mod promotions;
pub mod rate_limit;
pub mod request_body;
pub mod resources;
pub mod router;
pub mod scheduling;
pub mod serve;
pub mod state;
pub mod vouchers;
pub mod waivers;

pub use error::{ApiError, ApiResult};
pub use router::{openapi, openapi_json, router};
pub use serve::{ConnectionLimits, TrustedProxies, serve};
pub use state::{ApiConfig, AppState};
