//! Idempotency keys.

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

/// Why a request's Idempotency-Key cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum IdempotencyError {
    /// The key was used before for a different request.
    #[error("the Idempotency-Key was used for a different request")]
    Reused,
    /// The first request with this key is still running.
    #[error("a request with this Idempotency-Key is still being processed")]
    InFlight,
}

/// A stored answer to replay.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Replay {
    pub status: u16,
    pub body: String,
}

/// The outcome of an operation run under an Idempotency-Key.
#[derive(Debug, Clone)]
pub enum Written<T> {
    /// The operation ran now.
    Done(T),
    /// The same request was answered before; nothing ran.
    Replayed(Replay),
}

/// Renders the response (status, JSON body) stored for an operation's result.
pub type Render<'a, T> = &'a (dyn Fn(&T) -> (u16, String) + Send + Sync);

/// An Idempotency-Key for an operation: the key, the caller-scoped hash of the request,
/// and how to render the response that is stored with the effect.
pub struct Idempotency<'a, T> {
    pub key: &'a str,
    pub request_hash: &'a str,
    pub render: Render<'a, T>,
}

impl<T> std::fmt::Debug for Idempotency<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Idempotency")
            .field("key", &self.key)
            .finish_non_exhaustive()
    }
}
