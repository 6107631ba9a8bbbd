//! Test support: an in-process [`TestApp`] on a fresh database per test, request
//! helpers, factories and a controllable clock.
//!
//! The backend is SQLite in a temporary directory unless `TEST_DATABASE_URL` names a
//! PostgreSQL server, in which case each test creates its own database there and drops
//! it when the app is dropped.

pub mod bankpay;
mod db;
mod fixtures;
mod request;
pub mod smtp;

pub use db::TestDb;
pub use fixtures::{BookingFixture, CatalogFixture, slot_ids};
pub use request::{TestRequest, TestResponse};

use chrono::{DateTime, Utc};
use kairos_api::auth::passwords;
use kairos_api::auth::tokens::TokenKeys;
use kairos_api::rate_limit::{Limits, RateLimiter};
use kairos_api::{ApiConfig, AppState};
use kairos_domain::auth::Role;
use kairos_domain::{ManualClock, TenantId};
use kairos_store::{Actor, NewAdminUser, NewTenant, Store};
use serde_json::json;
use std::sync::Arc;

/// The instant every test clock starts at (a Saturday).
pub fn test_epoch() -> DateTime<Utc> {
    DateTime::parse_from_rfc3339("2026-11-21T09:00:00Z")
        .map(|d| d.with_timezone(&Utc))
        .unwrap_or_default()
}

/// Options for [`TestApp::builder`].
pub struct TestAppBuilder {
    limits: Limits,
    redis: Option<(String, String)>,
    db: Option<Arc<TestDb>>,
    availability_cache: std::time::Duration,
    cors: kairos_api::cors::CorsOrigins,
    password_hashing: Option<(usize, std::time::Duration)>,
    connections: kairos_api::ConnectionLimits,
    body_read_timeout: Option<std::time::Duration>,
    hold_caps: (u32, u32),
    cardpay_api_base: Option<String>,
    bankpay: Option<BankpaySetup>,
    secret_key: Option<String>,
}

/// Where bankpay is reached, the service's public address, and a platform account.
#[derive(Debug, Clone)]
pub struct BankpaySetup {
    pub api_base: String,
    pub public_url: String,
    /// `(merchant id, secret)` of the platform's account, if any.
    pub env: Option<(String, String)>,
}

impl TestAppBuilder {
    /// Where real (not sandbox) cardpay credentials reach the provider (default Stripe's,
    /// which tests never reach).
    pub fn cardpay_api_base(mut self, base: &str) -> Self {
        self.cardpay_api_base = Some(base.to_owned());
        self
    }

    /// Where bankpay is reached, the public address its callbacks use, and the platform
    /// account (default: Paytrail's address, none).
    pub fn bankpay(mut self, setup: BankpaySetup) -> Self {
        self.bankpay = Some(setup);
        self
    }

    /// The key stored provider secrets are sealed with (`KAIROS_SECRET_KEY`; default a
    /// random one): a `kairos serve` given the same key opens them.
    pub fn secret_key(mut self, key: &str) -> Self {
        self.secret_key = Some(key.to_owned());
        self
    }

    /// Rate limits per tier (default: the spec's 5 / 100 / 200).
    pub fn limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// Shares rate limit counts through Redis at `url`, under `prefix`.
    pub fn redis(mut self, url: &str, prefix: &str) -> Self {
        self.redis = Some((url.to_owned(), prefix.to_owned()));
        self
    }

    /// Serves availability from the per-instance cache for `ttl` (default: off, so tests
    /// that write to the store directly see their writes at once).
    pub fn availability_cache(mut self, ttl: std::time::Duration) -> Self {
        self.availability_cache = ttl;
        self
    }

    /// Lets browsers on these origins call the API (default: no cross-origin access).
    pub fn cors(mut self, origins: kairos_api::cors::CorsOrigins) -> Self {
        self.cors = origins;
        self
    }

    /// At most `concurrency` password hashes at once, each waiting at most `wait`.
    pub fn password_hashing(mut self, concurrency: usize, wait: std::time::Duration) -> Self {
        self.password_hashing = Some((concurrency, wait));
        self
    }

    /// The connection bounds of [`TestApp::serve`] (default: those of `kairos serve`).
    pub fn connections(mut self, limits: kairos_api::ConnectionLimits) -> Self {
        self.connections = limits;
        self
    }

    /// Caps on live holds per customer and per client address (default: none, so that
    /// tests may hold freely; `kairos serve` caps them).
    pub fn hold_caps(mut self, per_customer: u32, per_address: u32) -> Self {
        self.hold_caps = (per_customer, per_address);
        self
    }

    /// Time a request body has to arrive in (default: that of `kairos serve`).
    pub fn body_read_timeout(mut self, timeout: std::time::Duration) -> Self {
        self.body_read_timeout = Some(timeout);
        self
    }

    /// Runs on the database of another app (a second instance of the same deployment).
    pub fn same_database_as(mut self, other: &TestApp) -> Self {
        self.db = Some(other.db.clone());
        self
    }

    pub async fn spawn(self) -> TestApp {
        let db = match self.db {
            Some(db) => db,
            None => Arc::new(TestDb::create().await),
        };
        let store = Store::open(&kairos_store::ConnectOptions::new(db.url()))
            .await
            .unwrap_or_else(|e| panic!("cannot open test database: {e}"));
        let clock = ManualClock::new(test_epoch());
        let limiter = match &self.redis {
            Some((url, prefix)) => RateLimiter::redis(self.limits, url, prefix)
                .await
                .unwrap_or_else(|e| panic!("cannot reach redis: {e}")),
            None => RateLimiter::in_memory(self.limits),
        };
        let state = AppState::new(
            store.clone(),
            Arc::new(clock.clone()),
            TokenKeys::from_secret(b"kairos-test-signing-key-0123456789"),
            limiter,
            kairos_api::operations::install_metrics(),
            {
                let defaults = ApiConfig::default();
                let (concurrency, wait) = self.password_hashing.unwrap_or((
                    defaults.password_hash_concurrency,
                    defaults.password_hash_wait,
                ));
                ApiConfig {
                    availability_cache_ttl: self.availability_cache,
                    cors: self.cors,
                    password_hash_concurrency: concurrency,
                    password_hash_wait: wait,
                    body_read_timeout: self.body_read_timeout.unwrap_or(defaults.body_read_timeout),
                    holds_per_customer: self.hold_caps.0,
                    holds_per_address: self.hold_caps.1,
                    payments: kairos_api::payments::PaymentSettings {
                        cardpay_api_base: self
                            .cardpay_api_base
                            .clone()
                            .unwrap_or_else(|| defaults.payments.cardpay_api_base.clone()),
                        bankpay_api_base: self.bankpay.as_ref().map_or_else(
                            || defaults.payments.bankpay_api_base.clone(),
                            |b| b.api_base.clone(),
                        ),
                        public_url: self.bankpay.as_ref().map(|b| b.public_url.clone()),
                        env_bankpay: self.bankpay.as_ref().and_then(|b| {
                            b.env.as_ref().map(|(merchant_id, secret)| {
                                kairos_api::payments::settings::EnvBankpay {
                                    merchant_id: merchant_id.clone(),
                                    secret: secret.clone(),
                                }
                            })
                        }),
                        secrets: self.secret_key.as_deref().map_or_else(
                            || defaults.payments.secrets.clone(),
                            kairos_domain::secrets::SecretBox::new,
                        ),
                        ..defaults.payments.clone()
                    },
                    ..defaults
                }
            },
        );
        let router = kairos_api::router(state.clone());
        TestApp {
            state,
            router,
            clock,
            store,
            db,
            connections: self.connections,
        }
    }
}

/// One application instance on its own database.
pub struct TestApp {
    pub state: AppState,
    pub router: axum::Router,
    pub clock: ManualClock,
    pub store: Store,
    db: Arc<TestDb>,
    connections: kairos_api::ConnectionLimits,
}

/// A tenant made by [`TestApp::tenant`], with its owner signed in.
#[derive(Debug, Clone)]
pub struct TenantFixture {
    pub id: String,
    pub owner_username: String,
    pub owner_password: String,
    pub owner_token: String,
}

impl TestApp {
    pub fn builder() -> TestAppBuilder {
        TestAppBuilder {
            limits: Limits::default(),
            redis: None,
            db: None,
            availability_cache: std::time::Duration::ZERO,
            cors: kairos_api::cors::CorsOrigins::None,
            password_hashing: None,
            connections: kairos_api::ConnectionLimits::default(),
            body_read_timeout: None,
            hold_caps: (0, 0),
            cardpay_api_base: None,
            bankpay: None,
            secret_key: None,
        }
    }

    pub async fn spawn() -> TestApp {
        Self::builder().spawn().await
    }

    pub fn get(&self, path: &str) -> TestRequest<'_> {
        TestRequest::new(self, http::Method::GET, path)
    }

    pub fn post(&self, path: &str) -> TestRequest<'_> {
        TestRequest::new(self, http::Method::POST, path)
    }

    pub fn patch(&self, path: &str) -> TestRequest<'_> {
        TestRequest::new(self, http::Method::PATCH, path)
    }

    pub fn put(&self, path: &str) -> TestRequest<'_> {
        TestRequest::new(self, http::Method::PUT, path)
    }

    pub fn delete(&self, path: &str) -> TestRequest<'_> {
        TestRequest::new(self, http::Method::DELETE, path)
    }

    /// An `OPTIONS` request, as a browser sends for a CORS preflight.
    pub fn options(&self, path: &str) -> TestRequest<'_> {
        TestRequest::new(self, http::Method::OPTIONS, path)
    }

    /// Creates tenant `id` (EUR, Europe/Helsinki) with an owner, signed in through the API.
    pub async fn tenant(&self, id: &str) -> TenantFixture {
        let tenant = TenantId::parse(id).unwrap_or_else(|e| panic!("{e}"));
        self.store
            .create_tenant(
                NewTenant {
                    id: tenant.clone(),
                    name: format!("Tenant {id}"),
                    currency: "EUR".into(),
                    timezone: "Europe/Helsinki".into(),
                },
                self.clock_now(),
            )
            .await
            .unwrap_or_else(|e| panic!("create tenant: {e}"));
        let owner_password = "owner-password-1".to_owned();
        self.staff(id, "owner", &owner_password, &[Role::Owner])
            .await;
        let owner_token = self.admin_token(id, "owner", &owner_password).await;
        TenantFixture {
            id: id.to_owned(),
            owner_username: "owner".into(),
            owner_password,
            owner_token,
        }
    }

    /// Creates a staff account directly in the store.
    pub async fn staff(
        &self,
        tenant: &str,
        username: &str,
        password: &str,
        roles: &[Role],
    ) -> uuid::Uuid {
        let tenant = TenantId::parse(tenant).unwrap_or_else(|e| panic!("{e}"));
        let hash = passwords::hash_blocking(password).unwrap_or_else(|e| panic!("{e}"));
        self.store
            .create_admin_user(
                &tenant,
                NewAdminUser {
                    username: username.into(),
                    display_name: format!("{username} (test)"),
                    email: None,
                    password_hash: hash,
                    roles: roles.to_vec(),
                },
                &Actor::system("testkit"),
                self.clock_now(),
            )
            .await
            .unwrap_or_else(|e| panic!("create staff: {e}"))
            .id
    }

    /// Signs a staff member in through `POST /api/auth/login` and returns the token.
    pub async fn admin_token(&self, tenant: &str, username: &str, password: &str) -> String {
        let res = self
            .post("/api/auth/login")
            .tenant(tenant)
            .json(json!({"username": username, "password": password, "tenantId": tenant}))
            .send()
            .await;
        res.assert_status(200);
        res.str("access_token").to_owned()
    }

    /// Registers a customer through the API and returns its token.
    pub async fn customer_token(&self, tenant: &str, email: &str) -> String {
        let res = self
            .post("/api/v1/customers/register")
            .tenant(tenant)
            .json(json!({
                "email": email, "password": "customer-pass-1", "firstName": "Test",
                "lastName": "Customer", "termsAccepted": true, "privacyPolicyAccepted": true
            }))
            .send()
            .await;
        res.assert_status(201);
        res.str("access_token").to_owned()
    }

    /// The URL of the app's database (a `kairos serve` may run on it too).
    pub fn database_url(&self) -> &str {
        self.db.url()
    }

    pub fn clock_now(&self) -> DateTime<Utc> {
        use kairos_domain::Clock;
        self.clock.now()
    }
}

/// Whether the suite runs against PostgreSQL (`TEST_DATABASE_URL=postgres://…`).
pub fn on_postgres() -> bool {
    std::env::var("TEST_DATABASE_URL").is_ok_and(|u| u.starts_with("postgres"))
}

impl TestApp {
    /// Serves this app's router on a real TCP listener on 127.0.0.1 (a free port), as
    /// `kairos serve` does (with the peer address as `ConnectInfo`), until the test's
    /// runtime ends. Returns the address to send requests to with [`http`].
    pub async fn serve(&self) -> std::net::SocketAddr {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .unwrap_or_else(|e| panic!("bind a test listener: {e}"));
        let addr = listener
            .local_addr()
            .unwrap_or_else(|e| panic!("test listener address: {e}"));
        tokio::spawn(kairos_api::serve(
            listener,
            self.router.clone(),
            self.connections.clone(),
            std::future::pending(),
        ));
        addr
    }
}

type HttpClient = hyper_util::client::legacy::Client<
    hyper_util::client::legacy::connect::HttpConnector,
    http_body_util::Full<axum::body::Bytes>,
>;

/// The client behind [`http`]: one connection pool for every test in the process.
fn http_client() -> &'static HttpClient {
    static CLIENT: std::sync::OnceLock<HttpClient> = std::sync::OnceLock::new();
    CLIENT.get_or_init(|| {
        let mut connector = hyper_util::client::legacy::connect::HttpConnector::new();
        connector.set_nodelay(true);
        hyper_util::client::legacy::Client::builder(hyper_util::rt::TokioExecutor::new())
            .build(connector)
    })
}

/// Sends one HTTP/1.1 request to a server started by [`TestApp::serve`] and returns the
/// status and the body parsed as JSON (a JSON string holding the text when the body is
/// not JSON, `Null` when it is empty). `body`, when given, is sent as
/// `application/json`. Panics when the request cannot be sent or the answer read.
pub async fn http(
    addr: std::net::SocketAddr,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: Option<serde_json::Value>,
) -> (u16, serde_json::Value) {
    use http_body_util::BodyExt;
    let mut builder = http::Request::builder()
        .method(method)
        .uri(format!("http://{addr}{path}"));
    for (name, value) in headers {
        builder = builder.header(*name, *value);
    }
    let bytes = match &body {
        Some(json) => {
            builder = builder.header("content-type", "application/json");
            axum::body::Bytes::from(json.to_string())
        }
        None => axum::body::Bytes::new(),
    };
    let request = builder
        .body(http_body_util::Full::new(bytes))
        .unwrap_or_else(|e| panic!("bad test request {method} {path}: {e}"));
    let response = http_client()
        .request(request)
        .await
        .unwrap_or_else(|e| panic!("{method} {path} on {addr} failed: {e:?}"));
    let status = response.status().as_u16();
    let bytes = response
        .into_body()
        .collect()
        .await
        .unwrap_or_else(|e| panic!("{method} {path}: reading the body failed: {e}"))
        .to_bytes();
    let body = if bytes.is_empty() {
        serde_json::Value::Null
    } else {
        serde_json::from_slice(&bytes).unwrap_or_else(|_| {
            serde_json::Value::String(String::from_utf8_lossy(&bytes).into_owned())
        })
    };
    (status, body)
}
