//! Password hashing with Argon2id (the argon2 crate's defaults: m=19 MiB, t=2, p=1),
//! run on the blocking pool so hashing never stalls the async workers.
//!
//! Each hash takes 19 MiB while it runs, and the allocator keeps what it once used, so
//! [`PasswordHashing`] bounds how many run at once (the others queue); one that cannot
//! start within the configured wait answers 503 with `Retry-After`. Memory then stays
//! bounded however many sign-ins arrive together.

use crate::error::{ApiError, ApiResult};
use argon2::Argon2;
use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;
use tokio::sync::Semaphore;

/// Hashing and checking passwords, at most `concurrency` at once.
#[derive(Debug)]
pub struct PasswordHashing {
    permits: Semaphore,
    wait: Duration,
    running: AtomicUsize,
    peak: AtomicUsize,
}

impl PasswordHashing {
    /// At most `concurrency` (at least 1) hashes at once; a request waits at most `wait`
    /// for its turn.
    pub fn new(concurrency: usize, wait: Duration) -> Self {
        Self {
            permits: Semaphore::new(concurrency.max(1)),
            wait,
            running: AtomicUsize::new(0),
            peak: AtomicUsize::new(0),
        }
    }

    /// The most hashes that ever ran at once.
    pub fn peak(&self) -> usize {
        self.peak.load(Ordering::Relaxed)
    }

    /// Runs `work` on the blocking pool once a permit is free.
    async fn run<T: Send + 'static>(
        &self,
        work: impl FnOnce() -> T + Send + 'static,
    ) -> ApiResult<T> {
        let Ok(Ok(_permit)) = tokio::time::timeout(self.wait, self.permits.acquire()).await else {
            return Err(ApiError::busy(
                "Too many sign-ins at once; retry in a moment",
                1,
            ));
        };
        let now = self.running.fetch_add(1, Ordering::Relaxed) + 1;
        self.peak.fetch_max(now, Ordering::Relaxed);
        // Counted down however this ends, a dropped request included.
        let _running = Running(&self.running);
        tokio::task::spawn_blocking(work)
            .await
            .map_err(ApiError::internal)
    }

    /// Hashes `password` into a PHC string.
    pub async fn hash(&self, password: String) -> ApiResult<String> {
        self.run(move || hash_blocking(&password)).await?
    }

    /// Checks `password` against `stored`. With no stored hash (unknown account) a dummy
    /// hash is checked anyway, so the answer takes as long as for a real account and does
    /// not reveal whether the account exists.
    pub async fn verify(&self, password: String, stored: Option<String>) -> ApiResult<bool> {
        self.run(move || {
            let (phc, known) = match stored {
                Some(s) => (s, true),
                None => (dummy_hash().to_owned(), false),
            };
            let Ok(parsed) = PasswordHash::new(&phc) else {
                return false;
            };
            let ok = Argon2::default()
                .verify_password(password.as_bytes(), &parsed)
                .is_ok();
            ok && known
        })
        .await
    }
}

/// One running hash, counted down when dropped.
struct Running<'a>(&'a AtomicUsize);

impl Drop for Running<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::Relaxed);
    }
}

/// Hashes on the current thread (command line and seeding).
pub fn hash_blocking(password: &str) -> Result<String, ApiError> {
    let salt = SaltString::generate(&mut argon2::password_hash::rand_core::OsRng);
    Argon2::default()
        .hash_password(password.as_bytes(), &salt)
        .map(|h| h.to_string())
        .map_err(ApiError::internal)
}

fn dummy_hash() -> &'static str {
    static DUMMY: OnceLock<String> = OnceLock::new();
    DUMMY.get_or_init(|| hash_blocking("kairos-timing-equaliser").unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn hashes_verify_only_the_right_password() {
        let hashing = PasswordHashing::new(2, Duration::from_secs(30));
        let stored = hashing
            .hash("correct horse".into())
            .await
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(stored.starts_with("$argon2id$"));
        assert!(
            hashing
                .verify("correct horse".into(), Some(stored.clone()))
                .await
                .unwrap_or(false)
        );
        assert!(
            !hashing
                .verify("wrong horse".into(), Some(stored))
                .await
                .unwrap_or(true)
        );
        assert!(
            !hashing
                .verify("kairos-timing-equaliser".into(), None)
                .await
                .unwrap_or(true)
        );
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
    async fn no_more_than_the_permits_hash_at_once_and_the_rest_wait_or_are_turned_away() {
        let hashing = std::sync::Arc::new(PasswordHashing::new(2, Duration::from_secs(60)));
        let runs: Vec<_> = (0..12)
            .map(|i| {
                let h = hashing.clone();
                tokio::spawn(async move { h.hash(format!("password {i}")).await })
            })
            .collect();
        for r in runs {
            assert!(r.await.unwrap_or_else(|e| panic!("{e}")).is_ok());
        }
        assert_eq!(hashing.peak(), 2, "12 hashes queued behind 2 permits");

        // One permit and no patience: a hash that cannot start at once is a 503.
        let hashing = std::sync::Arc::new(PasswordHashing::new(1, Duration::from_millis(1)));
        let runs: Vec<_> = (0..6)
            .map(|i| {
                let h = hashing.clone();
                tokio::spawn(async move { h.hash(format!("password {i}")).await })
            })
            .collect();
        let mut busy = 0;
        for r in runs {
            match r.await.unwrap_or_else(|e| panic!("{e}")) {
                Ok(_) => {}
                Err(e) => {
                    assert_eq!(e.status.as_u16(), 503);
                    assert_eq!(e.retry_after, Some(1));
                    busy += 1;
                }
            }
        }
        assert!(busy > 0, "some of 6 simultaneous hashes were turned away");
        assert_eq!(hashing.peak(), 1);
    }
}
