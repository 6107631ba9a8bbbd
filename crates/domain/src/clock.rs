//! The source of "now". Production uses the system clock; tests move a manual clock.
//! SQL never calls `now()`: every timestamp is passed in from a `Clock`.

use chrono::{DateTime, Duration, Utc};
use std::sync::{Arc, Mutex};

/// Something that tells the current instant.
pub trait Clock: Send + Sync + std::fmt::Debug {
    fn now(&self) -> DateTime<Utc>;
}

/// The machine's clock.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> DateTime<Utc> {
        Utc::now()
    }
}

/// A clock that only moves when told to; shared between clones.
#[derive(Debug, Clone)]
pub struct ManualClock(Arc<Mutex<DateTime<Utc>>>);

impl ManualClock {
    pub fn new(start: DateTime<Utc>) -> Self {
        Self(Arc::new(Mutex::new(start)))
    }

    /// Moves the clock forward (or backward, with a negative duration).
    pub fn advance(&self, by: Duration) {
        let mut guard = self.0.lock().unwrap_or_else(|p| p.into_inner());
        *guard += by;
    }

    pub fn set(&self, to: DateTime<Utc>) {
        let mut guard = self.0.lock().unwrap_or_else(|p| p.into_inner());
        *guard = to;
    }
}

impl Clock for ManualClock {
    fn now(&self) -> DateTime<Utc> {
        *self.0.lock().unwrap_or_else(|p| p.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn manual_clock_moves_only_when_told_and_clones_share_time() {
        let start = DateTime::from_timestamp(1_700_000_000, 0).unwrap_or_default();
        let clock = ManualClock::new(start);
        let other = clock.clone();
        assert_eq!(clock.now(), start);
        other.advance(Duration::seconds(90));
        assert_eq!(clock.now(), start + Duration::seconds(90));
    }
}
