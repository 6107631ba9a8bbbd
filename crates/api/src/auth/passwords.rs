//! Password hashing with Argon2id (the argon2 crate's defaults: m=19 MiB, t=2, p=1),
//! run on the blocking pool so hashing never stalls the async workers.
//!
//! Each hash works in 19 MiB of memory. [`PasswordHashing`] bounds how many run at once
//! (the others queue; one that cannot start within the configured wait answers 503 with
//! `Retry-After`) and gives each running hash one of its own 19 MiB blocks, allocated once
//! and reused. Letting argon2 allocate per hash is what made memory grow with the number
//! of blocking threads: each thread that ever hashed kept 19 MiB in its own malloc arena
//! (glibc keeps up to eight arenas per CPU), so 60 sign-ins at once peaked at 390 to 590
//! MB with only two hashing at a time. With the blocks reused, hashing memory is at most the
//! concurrency × 19 MiB, whichever threads run it.

use crate::error::{ApiError, ApiResult};
use argon2::password_hash::{Output, ParamsString, PasswordHash, SaltString};
use argon2::{Algorithm, Argon2, Block, Params, Version};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;
use tokio::sync::Semaphore;

/// Hashes at once by default: one per CPU, at most four (76 MiB of hashing memory). Four
/// already sign in a hundred people a second; more only adds memory.
pub fn default_concurrency() -> usize {
    std::thread::available_parallelism()
        .map(std::num::NonZeroUsize::get)
        .unwrap_or(2)
        .min(4)
}

/// Hashing and checking passwords, at most `concurrency` at once.
#[derive(Debug)]
pub struct PasswordHashing {
    permits: Arc<Semaphore>,
    wait: Duration,
    /// The memory of hashes not running now, kept for the next (at most one per permit).
    memory: Arc<Mutex<Vec<Vec<Block>>>>,
    /// Hashes running now and the most that ever ran at once, counted on the threads that
    /// run them.
    running: Arc<AtomicUsize>,
    peak: Arc<AtomicUsize>,
}

impl PasswordHashing {
    /// At most `concurrency` (at least 1) hashes at once; a request waits at most `wait`
    /// for its turn.
    pub fn new(concurrency: usize, wait: Duration) -> Self {
        Self {
            permits: Arc::new(Semaphore::new(concurrency.max(1))),
            wait,
            memory: Arc::default(),
            running: Arc::default(),
            peak: Arc::default(),
        }
    }

    /// The most hashes that ever ran at once.
    pub fn peak(&self) -> usize {
        self.peak.load(Ordering::Relaxed)
    }

    /// The memory blocks kept for hashes (one per hash that ran at the same time).
    pub fn memory_kept(&self) -> usize {
        self.memory
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .len()
    }

    /// Runs `work` with a memory block on the blocking pool once a permit is free.
    async fn run<T: Send + 'static>(
        &self,
        work: impl FnOnce(&mut Vec<Block>) -> T + Send + 'static,
    ) -> ApiResult<T> {
        let Ok(Ok(permit)) =
            tokio::time::timeout(self.wait, self.permits.clone().acquire_owned()).await
        else {
            return Err(ApiError::busy(
                "Too many sign-ins at once; retry in a moment",
                1,
            ));
        };
        let kept = self.memory.clone();
        let (running, peak) = (self.running.clone(), self.peak.clone());
        tokio::task::spawn_blocking(move || {
            // The permit is held until the hash is done, even when the request was dropped
            // meanwhile (the thread runs to the end), so there are never more blocks, or
            // hashes, than permits.
            let _permit = permit;
            let now = running.fetch_add(1, Ordering::Relaxed) + 1;
            peak.fetch_max(now, Ordering::Relaxed);
            let _running = Running(&running);
            let taken = kept.lock().unwrap_or_else(PoisonError::into_inner).pop();
            let mut memory = taken.unwrap_or_default();
            let answer = work(&mut memory);
            kept.lock()
                .unwrap_or_else(PoisonError::into_inner)
                .push(memory);
            answer
        })
        .await
        .map_err(ApiError::internal)
    }

    /// Hashes `password` into a PHC string.
    pub async fn hash(&self, password: String) -> ApiResult<String> {
        self.run(move |memory| hash_with(memory, &password))
            .await?
            .map_err(ApiError::internal)
    }

    /// Checks `password` against `stored`. With no stored hash (unknown account) a dummy
    /// hash is checked anyway, so the answer takes as long as for a real account and does
    /// not reveal whether the account exists.
    pub async fn verify(&self, password: String, stored: Option<String>) -> ApiResult<bool> {
        self.run(move |memory| match stored {
            Some(phc) => verify_with(memory, &password, &phc),
            None => {
                verify_with(memory, &password, DUMMY_HASH);
                false
            }
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

/// Hashes on the current thread (command line and seeding), in memory of its own.
pub fn hash_blocking(password: &str) -> Result<String, ApiError> {
    hash_with(&mut Vec::new(), password).map_err(ApiError::internal)
}

/// `memory` grown to the blocks `params` need (it is never shrunk: the next hash reuses
/// it).
fn blocks_for<'m>(memory: &'m mut Vec<Block>, params: &Params) -> &'m mut [Block] {
    let needed = params.block_count();
    if memory.len() < needed {
        memory.resize(needed, Block::default());
    }
    &mut memory[..needed]
}

/// Hashes `password` with a fresh salt and the default parameters, working in `memory`;
/// the same PHC string as `Argon2::default().hash_password` gives.
fn hash_with(memory: &mut Vec<Block>, password: &str) -> argon2::password_hash::Result<String> {
    let salt = SaltString::generate(&mut argon2::password_hash::rand_core::OsRng);
    let mut salt_bytes = [0u8; 64];
    let salt_bytes = salt.as_salt().decode_b64(&mut salt_bytes)?;
    let params = Params::default();
    let mut out = [0u8; Params::DEFAULT_OUTPUT_LEN];
    Argon2::new(Algorithm::Argon2id, Version::V0x13, params.clone())
        .hash_password_into_with_memory(
            password.as_bytes(),
            salt_bytes,
            &mut out,
            blocks_for(memory, &params),
        )?;
    let phc = PasswordHash {
        algorithm: Algorithm::Argon2id.ident(),
        version: Some(Version::V0x13.into()),
        params: ParamsString::try_from(&params)?,
        salt: Some(salt.as_salt()),
        hash: Some(Output::new(&out)?),
    };
    Ok(phc.to_string())
}

/// Whether `password` matches the PHC string `phc` (any Argon2 variant, version and
/// parameters), computed in `memory`; the outputs are compared in constant time. A
/// malformed `phc` matches nothing.
fn verify_with(memory: &mut Vec<Block>, password: &str, phc: &str) -> bool {
    matches(memory, password, phc).unwrap_or(false)
}

fn matches(
    memory: &mut Vec<Block>,
    password: &str,
    phc: &str,
) -> argon2::password_hash::Result<bool> {
    let parsed = PasswordHash::new(phc)?;
    let (Some(salt), Some(expected)) = (parsed.salt, parsed.hash) else {
        return Ok(false);
    };
    let algorithm = Algorithm::try_from(parsed.algorithm)?;
    let version = parsed
        .version
        .map_or(Ok(Version::default()), Version::try_from)?;
    let params = Params::try_from(&parsed)?;
    let mut salt_bytes = [0u8; 64];
    let salt_bytes = salt.decode_b64(&mut salt_bytes)?;
    let mut out = vec![0u8; expected.len()];
    Argon2::new(algorithm, version, params.clone()).hash_password_into_with_memory(
        password.as_bytes(),
        salt_bytes,
        &mut out,
        blocks_for(memory, &params),
    )?;
    Ok(Output::new(&out)? == expected)
}

/// A hash with the default parameters (of a password nobody has), checked for unknown
/// accounts so that they take as long as known ones.
const DUMMY_HASH: &str = "$argon2id$v=19$m=19456,t=2,p=1$w6/oYllAXoSMLMxNrFP4PQ$tc1B0ghAKEPCFSKVGtZPlyJ20kRAGPEI2NiMz1DviEc";

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

    #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
    async fn running_hashes_reuse_memory_blocks_one_per_permit() {
        let hashing = std::sync::Arc::new(PasswordHashing::new(2, Duration::from_secs(60)));
        let stored = hashing
            .hash("a password".into())
            .await
            .unwrap_or_else(|e| panic!("{e}"));
        let runs: Vec<_> = (0..10)
            .map(|i| {
                let (h, stored) = (hashing.clone(), stored.clone());
                tokio::spawn(async move {
                    let known = (i % 2 == 0).then_some(stored);
                    h.verify("a password".into(), known).await
                })
            })
            .collect();
        let mut matched = 0;
        for r in runs {
            if r.await.unwrap_or_else(|e| panic!("{e}")).unwrap_or(false) {
                matched += 1;
            }
        }
        assert_eq!(matched, 5, "the known account matches, the unknown never");
        assert_eq!(hashing.memory_kept(), hashing.peak());
        assert!(hashing.memory_kept() <= 2, "{}", hashing.memory_kept());
    }

    #[test]
    fn hashes_agree_with_the_argon2_crate_both_ways() {
        use argon2::password_hash::{PasswordHasher, PasswordVerifier};
        let ours = hash_blocking("correct horse").unwrap_or_else(|e| panic!("{e}"));
        let parsed = PasswordHash::new(&ours).unwrap_or_else(|e| panic!("{e}"));
        assert!(
            Argon2::default()
                .verify_password(b"correct horse", &parsed)
                .is_ok()
        );
        assert_eq!(
            Params::try_from(&parsed).map(|p| (p.m_cost(), p.t_cost(), p.p_cost())),
            Ok((
                Params::DEFAULT_M_COST,
                Params::DEFAULT_T_COST,
                Params::DEFAULT_P_COST
            ))
        );
        let salt = SaltString::generate(&mut argon2::password_hash::rand_core::OsRng);
        let theirs = Argon2::default()
            .hash_password(b"correct horse", &salt)
            .map(|h| h.to_string())
            .unwrap_or_else(|e| panic!("{e}"));
        let mut memory = Vec::new();
        assert!(verify_with(&mut memory, "correct horse", &theirs));
        assert!(!verify_with(&mut memory, "correct horsf", &theirs));
        assert!(!verify_with(&mut memory, "correct horse", "not a hash"));
        assert_eq!(
            memory.len(),
            Params::default().block_count(),
            "one block, reused"
        );
    }

    #[test]
    fn the_dummy_hash_costs_what_a_real_one_does() {
        let parsed = PasswordHash::new(DUMMY_HASH).unwrap_or_else(|e| panic!("{e}"));
        let real = hash_blocking("anything").unwrap_or_else(|e| panic!("{e}"));
        let real = PasswordHash::new(&real).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(parsed.algorithm, real.algorithm);
        assert_eq!(parsed.version, real.version);
        assert_eq!(parsed.params, real.params);
        assert!(verify_with(
            &mut Vec::new(),
            "kairos-timing-equaliser",
            DUMMY_HASH
        ));
    }
}
