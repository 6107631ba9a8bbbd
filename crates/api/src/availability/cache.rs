//! Availability answers (a product's slots, a resource add-on's windows) kept in memory
//! per instance, dropped on any write of the tenant.

use crate::state::AppState;
use chrono::{DateTime, Utc};

use serde_json::value::RawValue;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// A short-lived per-instance cache of availability answers (see
/// [`crate::ApiConfig::availability_cache_ttl`]). Holds and every other write check
/// capacity in the database, so a stale answer can only show a slot that a hold then
/// refuses, never oversell one.
pub struct AvailabilityCache {
    ttl: chrono::Duration,
    entries: Mutex<HashMap<String, (DateTime<Utc>, Cached)>>,
    /// One answer is computed at a time per stripe of keys: requests missing the same
    /// key wait for the first one's answer instead of all computing it (when an entry
    /// runs out under load, every connection would otherwise ask the database at once).
    computing: Vec<tokio::sync::Mutex<()>>,
}

/// Stripes of [`AvailabilityCache::computing`]: enough that different keys rarely wait
/// for each other.
const STRIPES: usize = 64;

#[derive(Clone)]
pub(crate) struct Cached {
    /// The ids the answer names besides its list (availability: the product and the
    /// site; windows: the configuration).
    pub(crate) ids: [String; 2],
    /// The answer's list, rendered once (slots, or windows).
    pub(crate) list: Arc<RawValue>,
}

impl AvailabilityCache {
    pub fn new(ttl: std::time::Duration) -> Self {
        Self {
            ttl: chrono::Duration::from_std(ttl).unwrap_or_default(),
            entries: Mutex::new(HashMap::new()),
            computing: (0..STRIPES).map(|_| tokio::sync::Mutex::new(())).collect(),
        }
    }

    /// The answer for `key`: from memory while fresh, otherwise computed by `compute`
    /// once for every request waiting on it, and kept.
    pub(crate) async fn get_or_compute<F, Fut, E>(
        &self,
        key: String,
        now: DateTime<Utc>,
        compute: F,
    ) -> Result<Cached, E>
    where
        F: FnOnce() -> Fut,
        Fut: std::future::Future<Output = Result<Cached, E>>,
    {
        if self.ttl.is_zero() {
            return compute().await;
        }
        if let Some(hit) = self.get(&key, now) {
            return Ok(hit);
        }
        let stripe = {
            use std::hash::{BuildHasher, RandomState};
            static SEED: std::sync::OnceLock<RandomState> = std::sync::OnceLock::new();
            let hash = SEED.get_or_init(RandomState::new).hash_one(&key);
            usize::try_from(hash % STRIPES as u64).unwrap_or(0)
        };
        let Some(lock) = self.computing.get(stripe) else {
            return compute().await;
        };
        let _turn = lock.lock().await;
        // Another request may have computed it while this one waited.
        if let Some(hit) = self.get(&key, now) {
            return Ok(hit);
        }
        let fresh = compute().await?;
        self.put(key, fresh.clone(), now);
        Ok(fresh)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, (DateTime<Utc>, Cached)>> {
        self.entries.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn get(&self, key: &str, now: DateTime<Utc>) -> Option<Cached> {
        if self.ttl.is_zero() {
            return None;
        }
        let entries = self.lock();
        let (at, cached) = entries.get(key)?;
        (now - *at < self.ttl).then(|| cached.clone())
    }

    fn put(&self, key: String, value: Cached, now: DateTime<Utc>) {
        if self.ttl.is_zero() {
            return;
        }
        let mut entries = self.lock();
        if entries.len() >= 20_000 {
            let ttl = self.ttl;
            entries.retain(|_, (at, _)| now - *at < ttl);
        }
        entries.insert(key, (now, value));
    }

    /// Forgets every answer of `tenant` (after a write through this instance).
    pub fn invalidate(&self, tenant: &str) {
        let prefix = format!("{tenant}\u{1f}");
        self.lock().retain(|k, _| !k.starts_with(&prefix));
    }
}

/// Middleware: a successful write names its tenant; drop that tenant's cached answers.
pub async fn invalidate_on_write(
    req: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    let write = !matches!(
        *req.method(),
        axum::http::Method::GET | axum::http::Method::HEAD | axum::http::Method::OPTIONS
    );
    let tenant = write
        .then(|| {
            req.headers()
                .get(crate::extract::TENANT_HEADER)
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned)
        })
        .flatten();
    let state = req.extensions().get::<AppState>().cloned();
    let response = next.run(req).await;
    if let (Some(tenant), Some(state)) = (tenant, state)
        && response.status().is_success()
    {
        state.availability_cache.invalidate(&tenant);
    }
    response
}

#[cfg(test)]
mod tests {
    use super::{AvailabilityCache, Cached};
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::Duration;

    fn answer() -> Cached {
        Cached {
            ids: ["p".into(), "s".into()],
            list: Arc::from(
                serde_json::value::RawValue::from_string("[]".into())
                    .unwrap_or_else(|e| panic!("{e}")),
            ),
        }
    }

    /// Requests missing the same key at once compute it once; another key, and the
    /// cache switched off, compute their own.
    #[tokio::test]
    async fn requests_missing_one_key_together_compute_it_once() {
        let cache = Arc::new(AvailabilityCache::new(Duration::from_secs(1)));
        let computed = Arc::new(AtomicUsize::new(0));
        let now = chrono::Utc::now();
        let ask = |cache: Arc<AvailabilityCache>, key: &'static str| {
            let computed = computed.clone();
            async move {
                cache
                    .get_or_compute(key.to_owned(), now, || async {
                        computed.fetch_add(1, Ordering::SeqCst);
                        tokio::time::sleep(Duration::from_millis(50)).await;
                        Ok::<_, ()>(answer())
                    })
                    .await
            }
        };
        let answers =
            futures::future::join_all((0..16).map(|_| ask(cache.clone(), "tenant\u{1f}a"))).await;
        assert!(answers.iter().all(Result::is_ok));
        assert_eq!(computed.load(Ordering::SeqCst), 1);
        assert!(ask(cache.clone(), "tenant\u{1f}b").await.is_ok());
        assert_eq!(computed.load(Ordering::SeqCst), 2);
        let off = Arc::new(AvailabilityCache::new(Duration::ZERO));
        futures::future::join_all((0..3).map(|_| ask(off.clone(), "tenant\u{1f}a"))).await;
        assert_eq!(computed.load(Ordering::SeqCst), 5);
    }
}
