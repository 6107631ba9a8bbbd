//! Configuration: defaults, then a TOML file (`kairos.toml` or `--config`), then
//! `KAIROS_*` environment variables (and `DATABASE_URL`, `REDIS_URL`), then flags.
//!
//! A key the file does not know is an error naming it, so a misspelt setting is never
//! silently ignored. Only the environment variables of known settings are read: other
//! `KAIROS_*` variables (`KAIROS_CONFIG`, `KAIROS_ADMIN_PASSWORD`) belong to the CLI.

use figment::Figment;
use figment::providers::{Env, Format, Serialized, Toml};
use kairos_api::TrustedProxies;
use kairos_api::cors::CorsOrigins;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum LogFormat {
    #[default]
    Text,
    Json,
}

/// Every setting of the `kairos` binary. Environment names are `KAIROS_` plus the
/// upper-cased field name (for example `KAIROS_RATE_LIMIT_STRICT`).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Config {
    /// Address to listen on.
    pub listen: String,
    /// `sqlite:PATH` or `postgres://…`; unset means SQLite in `data_dir` (the embedded
    /// default, which also seeds the demo tenant).
    pub database_url: Option<String>,
    /// Directory of the embedded database.
    pub data_dir: PathBuf,
    pub log_format: LogFormat,
    /// `tracing` filter, e.g. `info` or `kairos=debug,info`; `RUST_LOG` wins when set.
    pub log_level: String,
    /// Shares rate limits between instances when set.
    pub redis_url: Option<String>,
    /// Token signing secret; unset means a random secret kept in the database.
    pub jwt_secret: Option<String>,
    /// Requests per 60 s per client and tenant; 0 = unlimited.
    pub rate_limit_strict: u32,
    pub rate_limit_standard: u32,
    pub rate_limit_relaxed: u32,
    /// Requests per minute to the notification endpoints: reads, and writes.
    pub rate_limit_notification_read: u32,
    pub rate_limit_notification_write: u32,
    /// Take client addresses from `X-Forwarded-For` (only behind a trusted proxy).
    pub trust_forwarded_for: bool,
    /// Largest accepted JSON body in bytes.
    pub body_limit_bytes: usize,
    /// Database pool size.
    pub max_connections: u32,
    /// Client connections open at once; past it a new connection gets a 503 at once.
    pub http_max_connections: usize,
    /// Client connections open at once from one peer address (an IPv6 client is its /64);
    /// past it that address's new connection gets a 503 at once. 0 = no cap.
    pub http_max_connections_per_address: usize,
    /// Peers not capped per address, the proxies in front: addresses or networks
    /// (`10.0.0.5, 192.168.0.0/16, fd00::/8`), comma-separated; empty = none.
    pub http_trusted_proxies: String,
    /// Milliseconds a connection has to send a complete request head, from its opening or
    /// from its previous response (the header-read and idle keep-alive timeout).
    pub http_header_timeout_ms: u64,
    /// Milliseconds a request body has to arrive in full (408 past it).
    pub http_body_timeout_ms: u64,
    /// Milliseconds a public availability answer may be served from memory (0 = off).
    pub availability_cache_ms: u64,
    /// Origins whose browsers may call the API: comma-separated `scheme://host[:port]`,
    /// or `*` for any; empty means no cross-origin access.
    pub cors_origins: String,
    /// Password hashes (Argon2id, 19 MiB each) run at once at most; 0 = one per CPU, at
    /// most four.
    pub password_hash_concurrency: usize,
    /// Milliseconds a sign-in waits for its turn to hash before a 503 with `Retry-After`.
    pub password_hash_wait_ms: u64,
    /// Live holds one customer (account or email) may have in a tenant; 0 = no cap.
    pub holds_per_customer: u32,
    /// Live holds one client address may have in a tenant; 0 = no cap.
    pub holds_per_address: u32,
    /// Sends email over SMTP when set: `smtp://host:port` (plain, or STARTTLS with
    /// `?tls=required`), `smtps://user:pass@host:465`. Unset: email is written to files
    /// under `data_dir/messages`.
    pub smtp_url: Option<String>,
    /// The sender of email, e.g. `Kairos <bookings@example.com>`.
    pub mail_from: String,
    /// Sends SMS through an HTTP provider when set with `sms_token` (see docs). Unset: SMS
    /// are written to files under `data_dir/messages`.
    pub sms_url: Option<String>,
    /// Bearer token of the SMS provider.
    pub sms_token: Option<String>,
    /// Sender name or number of SMS, if the provider takes one.
    pub sms_from: Option<String>,
    /// The service's public address (`https://book.example.com`), for the open-tracking
    /// pixel and click links in tracked emails; unset, emails are not rewritten.
    pub public_url: Option<String>,
    /// Delivery attempts of a message before it goes to the dead-letter queue.
    pub delivery_max_attempts: i32,
    /// Seconds before the second attempt; each later wait doubles (at most an hour).
    pub delivery_backoff_secs: u64,
    /// The key provider secrets are stored encrypted with (32 characters or more); unset
    /// means a random key kept in the database. Changing it makes stored secrets unusable.
    pub secret_key: Option<String>,
    /// The card provider's API (it speaks Stripe's), e.g. a Stripe-compatible test server.
    pub cardpay_api_base: String,
    /// The card provider's browser library (Stripe.js, or a Stripe-compatible test
    /// server's stand-in), loaded by the pages for a real account's card element.
    pub cardpay_js_url: String,
    /// The bank provider's API (it speaks Paytrail's).
    pub bankpay_api_base: String,
    /// The platform's bankpay account, used when neither the site nor the tenant has one.
    pub bankpay_merchant_id: Option<String>,
    pub bankpay_secret: Option<String>,
    /// Minutes an online payment may stay pending before its booking is cancelled (its
    /// provider is asked first: a payment collected after all is settled).
    pub payment_deadline_minutes: u64,
}

/// Settings that are text even when they look like numbers (a merchant id `375917`, a
/// sender `+358401234567`, an all-digit secret): read from the environment as they are
/// written, where the other settings' values are parsed (`KAIROS_RATE_LIMIT_STRICT=0`).
const TEXT_KEYS: [&str; 7] = [
    "http_trusted_proxies",
    "jwt_secret",
    "sms_token",
    "sms_from",
    "secret_key",
    "bankpay_merchant_id",
    "bankpay_secret",
];

/// The `KAIROS_*` variables of [`TEXT_KEYS`] that are set, verbatim.
fn text_from_env() -> std::collections::BTreeMap<&'static str, String> {
    TEXT_KEYS
        .iter()
        .filter_map(|key| {
            let value = std::env::var(format!("KAIROS_{}", key.to_uppercase())).ok()?;
            Some((*key, value))
        })
        .collect()
}

impl Default for Config {
    fn default() -> Self {
        Self {
            listen: "127.0.0.1:8080".into(),
            database_url: None,
            data_dir: PathBuf::from("./data"),
            log_format: LogFormat::Text,
            log_level: "info".into(),
            redis_url: None,
            jwt_secret: None,
            rate_limit_strict: 5,
            rate_limit_standard: 100,
            rate_limit_relaxed: 200,
            rate_limit_notification_read: 100,
            rate_limit_notification_write: 30,
            trust_forwarded_for: false,
            body_limit_bytes: 1024 * 1024,
            max_connections: 16,
            http_max_connections: 1024,
            http_max_connections_per_address: 64,
            http_trusted_proxies: TrustedProxies::LOOPBACK.into(),
            http_header_timeout_ms: 10_000,
            http_body_timeout_ms: 10_000,
            availability_cache_ms: 1000,
            cors_origins: String::new(),
            password_hash_concurrency: 0,
            password_hash_wait_ms: 5000,
            holds_per_customer: 5,
            holds_per_address: 20,
            smtp_url: None,
            mail_from: "Kairos <no-reply@kairos.localhost>".into(),
            sms_url: None,
            sms_token: None,
            sms_from: None,
            public_url: None,
            delivery_max_attempts: kairos_domain::messaging::MAX_ATTEMPTS,
            delivery_backoff_secs: 30,
            secret_key: None,
            cardpay_api_base: kairos_app::payments::settings::CARDPAY_API_BASE.into(),
            cardpay_js_url: kairos_app::payments::settings::CARDPAY_JS_URL.into(),
            bankpay_api_base: kairos_app::payments::settings::BANKPAY_API_BASE.into(),
            bankpay_merchant_id: None,
            bankpay_secret: None,
            payment_deadline_minutes: 30,
        }
    }
}

impl Config {
    /// Loads defaults, the file, then the environment.
    pub fn load(file: Option<&Path>) -> Result<Config, Box<figment::Error>> {
        let mut figment = Figment::from(Serialized::defaults(Config::default()));
        figment = match file {
            Some(path) => figment.merge(Toml::file_exact(path)),
            None => figment.merge(Toml::file("kairos.toml")),
        };
        let known = Self::keys();
        figment
            .merge(Env::prefixed("KAIROS_").filter(move |key| {
                known.iter().any(|k| key == k.as_str()) && !TEXT_KEYS.contains(&key.as_str())
            }))
            .merge(Serialized::defaults(text_from_env()))
            .merge(Env::raw().only(&["DATABASE_URL", "REDIS_URL"]))
            .extract()
            .map_err(Box::new)
    }

    /// The setting names, as in the file (the environment adds `KAIROS_` and upper case).
    fn keys() -> Vec<String> {
        match serde_json::to_value(Config::default()) {
            Ok(serde_json::Value::Object(map)) => map.keys().cloned().collect(),
            _ => Vec::new(),
        }
    }

    /// The allowed cross-origin callers, checked.
    pub fn cors(&self) -> Result<CorsOrigins, String> {
        CorsOrigins::parse(&self.cors_origins)
            .map_err(|e| format!("cors_origins (KAIROS_CORS_ORIGINS): {e}"))
    }

    /// The proxies not capped per address, checked.
    pub fn trusted_proxies(&self) -> Result<TrustedProxies, String> {
        TrustedProxies::parse(&self.http_trusted_proxies)
            .map_err(|e| format!("http_trusted_proxies (KAIROS_HTTP_TRUSTED_PROXIES): {e}"))
    }

    /// Message delivery as configured: SMTP and the SMS provider when set, files under
    /// `data_dir/messages` otherwise.
    pub fn mailer(&self) -> anyhow::Result<crate::delivery::Mailer> {
        crate::delivery::Mailer::new(&crate::delivery::DeliverySettings {
            smtp_url: self.smtp_url.clone().filter(|u| !u.is_empty()),
            mail_from: self.mail_from.clone(),
            sms_url: self.sms_url.clone().filter(|u| !u.is_empty()),
            sms_token: self.sms_token.clone().filter(|t| !t.is_empty()),
            sms_from: self.sms_from.clone(),
            public_url: self.public_url.clone().filter(|u| !u.is_empty()),
            files_dir: self.data_dir.join("messages"),
            max_attempts: self.delivery_max_attempts,
            backoff: std::time::Duration::from_secs(self.delivery_backoff_secs.max(1)),
        })
    }

    /// The database URL in use and whether it is the embedded default.
    pub fn database(&self) -> (String, bool) {
        match &self.database_url {
            Some(url) if !url.trim().is_empty() => (url.clone(), false),
            _ => {
                let path = self.data_dir.join("kairos.db");
                (format!("sqlite://{}", path.display()), true)
            }
        }
    }
}

pub use kairos_app::redact::redact_url;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[expect(
        clippy::result_large_err,
        reason = "figment::Jail fixes the closure's error type"
    )]
    fn file_then_environment_override_defaults() {
        figment::Jail::expect_with(|jail| {
            jail.create_file(
                "kairos.toml",
                "listen = \"0.0.0.0:9000\"\nrate_limit_relaxed = 7\n",
            )?;
            jail.set_env("KAIROS_RATE_LIMIT_STRICT", "0");
            jail.set_env("DATABASE_URL", "postgres://db/kairos");
            let config = Config::load(None).map_err(|e| e.to_string())?;
            assert_eq!(config.listen, "0.0.0.0:9000");
            assert_eq!(config.rate_limit_relaxed, 7);
            assert_eq!(config.rate_limit_strict, 0);
            assert_eq!(config.rate_limit_standard, 100);
            assert_eq!(
                config.database(),
                ("postgres://db/kairos".to_owned(), false)
            );
            Ok(())
        });
    }

    #[test]
    #[expect(
        clippy::result_large_err,
        reason = "figment::Jail fixes the closure's error type"
    )]
    fn text_settings_keep_what_looks_like_a_number() {
        figment::Jail::expect_with(|jail| {
            jail.set_env("KAIROS_BANKPAY_MERCHANT_ID", "375917");
            jail.set_env("KAIROS_BANKPAY_SECRET", "0012345678");
            jail.set_env("KAIROS_SMS_FROM", "+358401234567");
            jail.set_env("KAIROS_RATE_LIMIT_STRICT", "7");
            let c = Config::load(None).map_err(|e| e.to_string())?;
            assert_eq!(c.bankpay_merchant_id.as_deref(), Some("375917"));
            assert_eq!(c.bankpay_secret.as_deref(), Some("0012345678"));
            assert_eq!(c.sms_from.as_deref(), Some("+358401234567"));
            assert_eq!(c.rate_limit_strict, 7);
            Ok(())
        });
    }

    #[test]
    #[expect(
        clippy::result_large_err,
        reason = "figment::Jail fixes the closure's error type"
    )]
    fn an_unknown_key_in_the_file_is_an_error_naming_it() {
        figment::Jail::expect_with(|jail| {
            jail.create_file(
                "kairos.toml",
                "listen = \"0.0.0.0:9000\"\nrate_limit_strikt = 7\n",
            )?;
            let error = match Config::load(None) {
                Ok(config) => return Err(format!("accepted: {config:?}").into()),
                Err(e) => e.to_string(),
            };
            assert!(error.contains("rate_limit_strikt"), "{error}");
            assert!(error.contains("kairos.toml"), "{error}");
            Ok(())
        });
    }

    #[test]
    #[expect(
        clippy::result_large_err,
        reason = "figment::Jail fixes the closure's error type"
    )]
    fn other_kairos_variables_are_not_settings() {
        figment::Jail::expect_with(|jail| {
            jail.set_env("KAIROS_CONFIG", "elsewhere.toml");
            jail.set_env("KAIROS_ADMIN_PASSWORD", "not-a-setting");
            jail.set_env("KAIROS_LISTEN", "0.0.0.0:9000");
            let config = Config::load(None).map_err(|e| e.to_string())?;
            assert_eq!(config.listen, "0.0.0.0:9000");
            Ok(())
        });
    }

    #[test]
    fn a_bad_cors_origin_names_the_setting() {
        let config = Config {
            cors_origins: "https://shop.example/".into(),
            ..Config::default()
        };
        let error = config.cors().err().unwrap_or_default();
        assert!(error.contains("KAIROS_CORS_ORIGINS"), "{error}");
        assert!(error.contains("https://shop.example/"), "{error}");
        assert_eq!(Config::default().cors(), Ok(CorsOrigins::None));
    }

    #[test]
    #[expect(
        clippy::result_large_err,
        reason = "figment::Jail fixes the closure's error type"
    )]
    fn trusted_proxies_default_to_loopback_and_are_checked() {
        figment::Jail::expect_with(|jail| {
            assert_eq!(
                Config::load(None)
                    .map_err(|e| e.to_string())?
                    .trusted_proxies(),
                Ok(TrustedProxies::loopback())
            );
            jail.set_env("KAIROS_HTTP_TRUSTED_PROXIES", "10.0.0.5,fd00::/8");
            jail.set_env("KAIROS_HTTP_MAX_CONNECTIONS_PER_ADDRESS", "0");
            let config = Config::load(None).map_err(|e| e.to_string())?;
            assert_eq!(config.http_max_connections_per_address, 0);
            let proxies = config.trusted_proxies()?;
            assert!(proxies.contains("fd00::1".parse().map_err(|_| "ip")?));
            assert!(!proxies.contains("127.0.0.1".parse().map_err(|_| "ip")?));
            jail.set_env("KAIROS_HTTP_TRUSTED_PROXIES", "");
            let none = Config::load(None).map_err(|e| e.to_string())?;
            assert_eq!(none.trusted_proxies(), Ok(TrustedProxies::none()));
            jail.set_env("KAIROS_HTTP_TRUSTED_PROXIES", "proxy.local");
            let error = Config::load(None)
                .map_err(|e| e.to_string())?
                .trusted_proxies()
                .err()
                .unwrap_or_default();
            assert!(error.contains("KAIROS_HTTP_TRUSTED_PROXIES"), "{error}");
            assert!(error.contains("proxy.local"), "{error}");
            Ok(())
        });
    }

    #[test]
    fn default_database_is_sqlite_in_the_data_dir() {
        let config = Config::default();
        assert_eq!(
            config.database(),
            ("sqlite://./data/kairos.db".to_owned(), true)
        );
    }
}
