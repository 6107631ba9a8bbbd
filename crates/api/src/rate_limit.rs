//! Rate limiting (spec Part A section 8): fixed 60-second windows per tier, keyed by
//! tier, tenant and client (token subject, else IP address). In memory for one
//! instance; in Redis when configured, so every instance shares the count.

use crate::error::rate_limited;
use crate::extract::{TENANT_HEADER, bearer_token};
use crate::state::AppState;
use axum::extract::Request;
use axum::http::HeaderValue;
use axum::middleware::Next;
use axum::response::Response;
use std::collections::HashMap;
use std::sync::Mutex;

/// Length of a rate limit window.
pub const WINDOW_SECS: i64 = 60;

/// The spec's tiers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tier {
    /// Login, register, customer authentication.
    Strict,
    /// Most authenticated endpoints.
    Standard,
    /// Availability and public reads.
    Relaxed,
    /// Reads of the notification endpoints (spec Part B 8).
    NotificationRead,
    /// Writes (POST, PUT, PATCH, DELETE) of the notification endpoints.
    NotificationWrite,
}

impl Tier {
    /// Puts every route of `router` in this tier: the tier's middleware, and its name on
    /// each operation of the OpenAPI document (for the 429 it documents).
    pub fn apply(
        self,
        mut router: utoipa_axum::router::OpenApiRouter<AppState>,
    ) -> utoipa_axum::router::OpenApiRouter<AppState> {
        crate::openapi::mark_tier(router.get_openapi_mut(), self.as_str());
        // Every route is in a tier: its path parameters pass the text rule here, inside
        // the notification endpoints' shape B wrapper.
        let router = router.layer(axum::middleware::from_fn(crate::extract::check_path_params));
        match self {
            Tier::Strict => router.layer(axum::middleware::from_fn(strict)),
            Tier::Standard => router.layer(axum::middleware::from_fn(standard)),
            Tier::Relaxed => router.layer(axum::middleware::from_fn(relaxed)),
            Tier::NotificationRead | Tier::NotificationWrite => {
                router.layer(axum::middleware::from_fn(notifications))
            }
        }
    }

    /// Puts the notification endpoints of `router` in their tiers: reads in
    /// [`Tier::NotificationRead`], writes in [`Tier::NotificationWrite`] (spec Part B 8).
    pub fn notifications(
        mut router: utoipa_axum::router::OpenApiRouter<AppState>,
    ) -> utoipa_axum::router::OpenApiRouter<AppState> {
        crate::openapi::mark_tier_by_method(
            router.get_openapi_mut(),
            Tier::NotificationRead.as_str(),
            Tier::NotificationWrite.as_str(),
        );
        router
            .layer(axum::middleware::from_fn(crate::extract::check_path_params))
            .layer(axum::middleware::from_fn(crate::error::shape_b_errors))
            .layer(axum::middleware::from_fn(notifications))
    }

    fn as_str(self) -> &'static str {
        match self {
            Tier::Strict => "strict",
            Tier::Standard => "standard",
            Tier::Relaxed => "relaxed",
            Tier::NotificationRead => "notification_read",
            Tier::NotificationWrite => "notification_write",
        }
    }
}

/// Requests per window for each tier; 0 means unlimited.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    pub strict: u32,
    pub standard: u32,
    pub relaxed: u32,
    pub notification_read: u32,
    pub notification_write: u32,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            strict: 5,
            standard: 100,
            relaxed: 200,
            notification_read: 100,
            notification_write: 30,
        }
    }
}

impl Limits {
    /// No limit on any tier (benchmarks, and tests about something else).
    pub const UNLIMITED: Limits = Limits {
        strict: 0,
        standard: 0,
        relaxed: 0,
        notification_read: 0,
        notification_write: 0,
    };

    fn of(&self, tier: Tier) -> u32 {
        match tier {
            Tier::Strict => self.strict,
            Tier::Standard => self.standard,
            Tier::Relaxed => self.relaxed,
            Tier::NotificationRead => self.notification_read,
            Tier::NotificationWrite => self.notification_write,
        }
    }
}

enum Counter {
    Memory(Mutex<HashMap<String, (i64, u32)>>),
    Redis {
        conn: redis::aio::ConnectionManager,
        prefix: String,
    },
}

/// Counts requests per key and window.
pub struct RateLimiter {
    limits: Limits,
    counter: Counter,
}

/// The outcome of one counted request.
#[derive(Debug, Clone, Copy)]
struct Decision {
    limit: u32,
    remaining: u32,
    reset: i64,
    allowed: bool,
}

/// Redis side of a hit: count in the window, expiring with it.
const REDIS_HIT: &str = r"
local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return n
";

impl RateLimiter {
    pub fn in_memory(limits: Limits) -> Self {
        Self {
            limits,
            counter: Counter::Memory(Mutex::new(HashMap::new())),
        }
    }

    /// Shares counts through Redis at `url`; keys start with `prefix`.
    pub async fn redis(limits: Limits, url: &str, prefix: &str) -> Result<Self, redis::RedisError> {
        let client = redis::Client::open(url)?;
        let conn = client.get_connection_manager().await?;
        Ok(Self {
            limits,
            counter: Counter::Redis {
                conn,
                prefix: prefix.to_owned(),
            },
        })
    }

    pub fn limits(&self) -> Limits {
        self.limits
    }

    async fn hit(&self, tier: Tier, key: &str, now_unix: i64) -> Option<Decision> {
        let limit = self.limits.of(tier);
        if limit == 0 {
            return None;
        }
        let window = now_unix.div_euclid(WINDOW_SECS);
        let reset = (window + 1) * WINDOW_SECS;
        let count: u32 = match &self.counter {
            Counter::Memory(map) => {
                let mut map = map.lock().unwrap_or_else(|p| p.into_inner());
                if map.len() > 100_000 {
                    map.retain(|_, (w, _)| *w == window);
                }
                let entry = map.entry(key.to_owned()).or_insert((window, 0));
                if entry.0 != window {
                    *entry = (window, 0);
                }
                entry.1 = entry.1.saturating_add(1);
                entry.1
            }
            Counter::Redis { conn, prefix } => {
                let mut conn = conn.clone();
                let redis_key = format!("{prefix}{key}:{window}");
                let result: Result<i64, _> = redis::Script::new(REDIS_HIT)
                    .key(&redis_key)
                    .arg(WINDOW_SECS * 1000)
                    .invoke_async(&mut conn)
                    .await;
                match result {
                    Ok(n) => u32::try_from(n).unwrap_or(u32::MAX),
                    Err(e) => {
                        // Fail open: an unreachable Redis must not take the API down.
                        tracing::warn!(error = %e, "rate limit store unavailable; request allowed");
                        return None;
                    }
                }
            }
        };
        Some(Decision {
            limit,
            remaining: limit.saturating_sub(count),
            reset,
            allowed: count <= limit,
        })
    }
}

/// Who is asking: the verified token subject, else the client address.
fn client_key(state: &AppState, req: &Request) -> String {
    if let Some(token) = bearer_token(req.headers())
        && let Ok(claims) = state.tokens.verify(token, state.now())
    {
        return format!("sub:{}", claims.sub);
    }
    match crate::extract::ClientAddress::of(state, req.headers(), req.extensions()).0 {
        Some(ip) => format!("ip:{ip}"),
        None => "ip:unknown".to_owned(),
    }
}

pub async fn enforce(tier: Tier, state: AppState, req: Request, next: Next) -> Response {
    let tenant = req
        .headers()
        .get(TENANT_HEADER)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("-")
        .chars()
        .take(64)
        .collect::<String>();
    let key = format!("{}:{}:{}", tier.as_str(), tenant, client_key(&state, &req));
    let now = state.now().timestamp();
    let Some(decision) = state.limiter.hit(tier, &key, now).await else {
        return next.run(req).await;
    };
    let mut response = if decision.allowed {
        next.run(req).await
    } else {
        let retry_after = u64::try_from((decision.reset - now).max(1)).unwrap_or(1);
        rate_limited(retry_after)
    };
    let headers = response.headers_mut();
    for (name, value) in [
        ("x-ratelimit-limit", decision.limit.to_string()),
        ("x-ratelimit-remaining", decision.remaining.to_string()),
        ("x-ratelimit-reset", decision.reset.to_string()),
    ] {
        if let Ok(v) = HeaderValue::from_str(&value) {
            headers.insert(name, v);
        }
    }
    response
}

async fn tier(
    tier: Tier,
    req: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    let Some(state) = req.extensions().get::<AppState>().cloned() else {
        return next.run(req).await;
    };
    enforce(tier, state, req, next).await
}

/// Middleware of the strict tier (sign-in and registration).
pub async fn strict(
    req: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    tier(Tier::Strict, req, next).await
}

/// Middleware of the standard tier (authenticated endpoints).
pub async fn standard(
    req: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    tier(Tier::Standard, req, next).await
}

/// Middleware of the relaxed tier (public reads, operational endpoints).
pub async fn relaxed(
    req: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    tier(Tier::Relaxed, req, next).await
}

/// Middleware of the notification endpoints: reads and writes counted apart.
pub async fn notifications(
    req: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    let t = if matches!(
        *req.method(),
        axum::http::Method::GET | axum::http::Method::HEAD
    ) {
        Tier::NotificationRead
    } else {
        Tier::NotificationWrite
    };
    tier(t, req, next).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn counts_per_key_and_resets_with_the_window() {
        let limiter = RateLimiter::in_memory(Limits {
            strict: 2,
            standard: 0,
            relaxed: 5,
            ..Limits::default()
        });
        let t = 1_800_000_050;
        let a1 = limiter.hit(Tier::Strict, "a", t).await;
        let a2 = limiter.hit(Tier::Strict, "a", t).await;
        let a3 = limiter.hit(Tier::Strict, "a", t).await;
        let b1 = limiter.hit(Tier::Strict, "b", t).await;
        assert_eq!(a1.map(|d| (d.allowed, d.remaining)), Some((true, 1)));
        assert_eq!(a2.map(|d| (d.allowed, d.remaining)), Some((true, 0)));
        assert_eq!(a3.map(|d| (d.allowed, d.remaining)), Some((false, 0)));
        assert_eq!(b1.map(|d| d.allowed), Some(true));
        assert_eq!(a1.map(|d| d.reset), Some(1_800_000_060));
        let next_window = limiter.hit(Tier::Strict, "a", t + 10).await;
        assert_eq!(
            next_window.map(|d| (d.allowed, d.remaining)),
            Some((true, 1))
        );
        assert!(
            limiter.hit(Tier::Standard, "a", t).await.is_none(),
            "0 is unlimited"
        );
    }
}
