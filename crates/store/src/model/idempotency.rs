//! Idempotency keys.

use super::bookings::Booking;

/// Hands a stored idempotent response to the operation that makes it, so the response
/// is recorded in the same transaction as its effect.
pub struct IdempotentFinish<'a> {
    pub key: &'a str,
    /// Renders the response (status, JSON body) of the created or changed booking.
    pub render: &'a (dyn Fn(&Booking) -> (u16, String) + Send + Sync),
}

impl std::fmt::Debug for IdempotentFinish<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("IdempotentFinish")
            .field("key", &self.key)
            .finish_non_exhaustive()
    }
}

/// What an idempotency key says about a request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IdempotencyClaim {
    /// First use (or a retry after an abandoned attempt): go ahead.
    Fresh,
    /// Done before with the same request: answer this.
    Replay { status: u16, body: String },
    /// Used before for a different request.
    Mismatch,
    /// The first request with this key is still running.
    InFlight,
}
