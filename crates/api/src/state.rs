//! Shared application state: the store, the clock, token keys, the rate limiter.

use crate::auth::tokens::TokenKeys;
use crate::rate_limit::RateLimiter;
use kairos_domain::{Clock, TenantId};
use kairos_store::{Store, Tenant};
use metrics_exporter_prometheus::PrometheusHandle;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Settings of the HTTP layer.
#[derive(Debug, Clone)]
pub struct ApiConfig {
    /// Largest accepted request body, in bytes.
    pub body_limit_bytes: usize,
    /// Time a request body has to arrive in full (408 past it).
    pub body_read_timeout: Duration,
    /// Lifetime of issued access tokens (spec: 3600 s).
    pub token_ttl_secs: i64,
    /// Take the client address from `X-Forwarded-For` (only behind a trusted proxy).
    pub trust_forwarded_for: bool,
    /// How long a tenant lookup is cached.
    pub tenant_cache_ttl: Duration,
    /// How long a public availability answer may be served from this instance's memory.
    /// Writes through this instance invalidate the tenant's entries at once; other
    /// instances see a change within this time. Zero disables the cache.
    pub availability_cache_ttl: Duration,
    /// Browser origins allowed to call the API cross-origin (default: none).
    pub cors: crate::cors::CorsOrigins,
    /// Password hashes (19 MiB each) run at once at most; the others queue. Default: one
    /// per CPU, at most four.
    pub password_hash_concurrency: usize,
    /// How long a sign-in waits for its turn to hash before a 503 with `Retry-After`.
    pub password_hash_wait: Duration,
    /// Live holds one customer (account or email) may have in a tenant; 0 = no cap.
    pub holds_per_customer: u32,
    /// Live holds one client address may have in a tenant; 0 = no cap.
    pub holds_per_address: u32,
    /// How payment providers are reached and their secrets kept.
    pub payments: crate::payments::PaymentSettings,
}

impl Default for ApiConfig {
    fn default() -> Self {
        Self {
            body_limit_bytes: 1024 * 1024,
            body_read_timeout: Duration::from_secs(10),
            token_ttl_secs: 3600,
            trust_forwarded_for: false,
            tenant_cache_ttl: Duration::from_secs(30),
            availability_cache_ttl: Duration::from_secs(1),
            cors: crate::cors::CorsOrigins::None,
            password_hash_concurrency: crate::auth::passwords::default_concurrency(),
            password_hash_wait: Duration::from_secs(5),
            holds_per_customer: 5,
            holds_per_address: 20,
            payments: crate::payments::PaymentSettings::default(),
        }
    }
}

/// Everything a handler may need; cheap to clone.
#[derive(Clone)]
pub struct AppState(Arc<Inner>);

pub struct Inner {
    pub store: Store,
    pub clock: Arc<dyn Clock>,
    pub tokens: TokenKeys,
    pub limiter: RateLimiter,
    pub metrics: Option<PrometheusHandle>,
    pub config: ApiConfig,
    pub availability_cache: crate::availability::AvailabilityCache,
    pub passwords: crate::auth::passwords::PasswordHashing,
    /// The application layer: use cases and what they need (providers, settings).
    pub app: kairos_app::App,
    tenants: Mutex<HashMap<TenantId, (Instant, Arc<Tenant>)>>,
}

impl std::ops::Deref for AppState {
    type Target = Inner;
    fn deref(&self) -> &Inner {
        &self.0
    }
}

impl AppState {
    pub fn new(
        store: Store,
        clock: Arc<dyn Clock>,
        tokens: TokenKeys,
        limiter: RateLimiter,
        metrics: Option<PrometheusHandle>,
        config: ApiConfig,
    ) -> Self {
        let app = kairos_app::App::new(store.clone(), clock.clone(), config.payments.clone());
        Self(Arc::new(Inner {
            store,
            clock,
            tokens,
            limiter,
            metrics,
            availability_cache: crate::availability::AvailabilityCache::new(
                config.availability_cache_ttl,
            ),
            passwords: crate::auth::passwords::PasswordHashing::new(
                config.password_hash_concurrency,
                config.password_hash_wait,
            ),
            app,
            config,
            tenants: Mutex::new(HashMap::new()),
        }))
    }

    pub fn now(&self) -> chrono::DateTime<chrono::Utc> {
        self.clock.now()
    }

    /// Looks a tenant up, caching hits briefly: every request names its tenant.
    pub async fn tenant(
        &self,
        id: &TenantId,
    ) -> Result<Option<Arc<Tenant>>, kairos_store::StoreError> {
        let ttl = self.config.tenant_cache_ttl;
        if let Some((at, tenant)) = self.tenant_cache().get(id)
            && at.elapsed() < ttl
        {
            return Ok(Some(tenant.clone()));
        }
        let Some(tenant) = self.store.get_tenant(id).await? else {
            return Ok(None);
        };
        let tenant = Arc::new(tenant);
        let mut cache = self.tenant_cache();
        if cache.len() > 10_000 {
            cache.retain(|_, (at, _)| at.elapsed() < ttl);
        }
        cache.insert(id.clone(), (Instant::now(), tenant.clone()));
        Ok(Some(tenant))
    }

    fn tenant_cache(&self) -> std::sync::MutexGuard<'_, HashMap<TenantId, (Instant, Arc<Tenant>)>> {
        self.tenants.lock().unwrap_or_else(|p| p.into_inner())
    }
}
