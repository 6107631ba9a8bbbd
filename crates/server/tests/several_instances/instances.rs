//! The `kairos serve` processes and the client that spreads requests over them.

use crate::{CARD_KEY, INSTANCES, JWT_SECRET, OWNER_PASSWORD, SECRET_KEY, TENANT};
use serde_json::Value;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// The running instances, killed if the test ends before stopping them.
pub struct Instances {
    children: Vec<Child>,
    pub addrs: Vec<String>,
}

impl Drop for Instances {
    fn drop(&mut self) {
        for child in &mut self.children {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

impl Instances {
    /// Starts the instances at once on `database`, workers on, with the same keys, the
    /// same mail server `smtp` and card provider `cardpay`, and one-minute payment
    /// deadlines. Holds are not capped per customer or address, nor requests rate limited:
    /// every request of the test comes from one address.
    pub fn start(
        database: &str,
        smtp: &str,
        cardpay: Option<&str>,
        data: &std::path::Path,
    ) -> Instances {
        let mut instances = Instances {
            children: Vec::new(),
            addrs: Vec::new(),
        };
        for _ in 0..INSTANCES {
            let mut cmd = Command::new(env!("CARGO_BIN_EXE_kairos"));
            cmd.args(["serve", "--listen", "127.0.0.1:0"]);
            for var in [
                "RUST_LOG",
                "REDIS_URL",
                "KAIROS_LOG_FORMAT",
                "KAIROS_CORS_ORIGINS",
            ] {
                cmd.env_remove(var);
            }
            cmd.env("DATABASE_URL", database)
                .env("KAIROS_DATA_DIR", data)
                .env("KAIROS_SECRET_KEY", SECRET_KEY)
                .env("KAIROS_JWT_SECRET", JWT_SECRET)
                .env("KAIROS_SMTP_URL", smtp)
                .env("KAIROS_PAYMENT_DEADLINE_MINUTES", "1")
                .env("KAIROS_HOLDS_PER_CUSTOMER", "0")
                .env("KAIROS_HOLDS_PER_ADDRESS", "0")
                .env("KAIROS_RATE_LIMIT_STRICT", "0")
                .env("KAIROS_RATE_LIMIT_STANDARD", "0")
                .env("KAIROS_RATE_LIMIT_RELAXED", "0")
                .env("KAIROS_AVAILABILITY_CACHE_MS", "0")
                .env("KAIROS_MAX_CONNECTIONS", "10");
            if let Some(base) = cardpay {
                cmd.env("KAIROS_CARDPAY_API_BASE", base);
            }
            let child = cmd
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap_or_else(|e| panic!("cannot start kairos serve: {e}"));
            instances.children.push(child);
        }
        for child in &mut instances.children {
            let addr = crate::common::listening_address(child);
            instances.addrs.push(addr);
        }
        instances
    }

    /// Stops every instance as an operator would (SIGTERM): whether each finished its
    /// requests and workers and exited with success within 30 s.
    pub fn stop(mut self) -> Vec<bool> {
        for child in &self.children {
            let sent = Command::new("kill")
                .args(["-TERM", &child.id().to_string()])
                .status()
                .unwrap_or_else(|e| panic!("cannot run kill: {e}"));
            assert!(sent.success(), "kill -TERM {}", child.id());
        }
        let give_up = Instant::now() + Duration::from_secs(30);
        let mut clean = Vec::new();
        for mut child in std::mem::take(&mut self.children) {
            let status = loop {
                match child.try_wait() {
                    Ok(Some(status)) => break Some(status),
                    Ok(None) if Instant::now() < give_up => {
                        std::thread::sleep(Duration::from_millis(100));
                    }
                    _ => break None,
                }
            };
            if status.is_none() {
                let _ = child.kill();
                let _ = child.wait();
            }
            clean.push(status.is_some_and(|s| s.success()));
        }
        clean
    }
}

/// Requests to the instances in turn, as a load balancer would send them.
pub struct Api {
    pub http: reqwest::Client,
    addrs: Vec<String>,
    next: AtomicUsize,
    token: String,
}

impl Api {
    pub fn new(addrs: &[String]) -> Api {
        Api {
            http: kairos_app::http::client_builder()
                .build()
                .unwrap_or_else(|e| panic!("http client: {e}")),
            addrs: addrs.to_vec(),
            next: AtomicUsize::new(0),
            token: String::new(),
        }
    }

    /// Signs the owner in (on the next instance); staff requests then carry the token.
    pub async fn sign_in(&mut self) {
        let login = serde_json::json!({"username": "owner", "password": OWNER_PASSWORD,
                                       "tenantId": TENANT});
        let (status, answer) = self
            .send("POST", "/api/auth/login", &[], Some(login), false)
            .await;
        assert_eq!(status, 200, "{answer}");
        self.token = answer["access_token"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
    }

    /// Sends to the next instance; the status and the JSON body.
    pub async fn send(
        &self,
        method: &str,
        path: &str,
        headers: &[(&str, &str)],
        body: Option<Value>,
        staff: bool,
    ) -> (u16, Value) {
        let addr = &self.addrs[self.next.fetch_add(1, Ordering::Relaxed) % self.addrs.len()];
        let method = reqwest::Method::from_bytes(method.as_bytes())
            .unwrap_or_else(|e| panic!("{method}: {e}"));
        let mut req = self
            .http
            .request(method, format!("http://{addr}{path}"))
            .header("x-tenant-id", TENANT);
        for (name, value) in headers {
            req = req.header(*name, *value);
        }
        if staff {
            req = req.bearer_auth(&self.token);
        }
        if let Some(body) = body {
            req = req.json(&body);
        }
        let res = req
            .send()
            .await
            .unwrap_or_else(|e| panic!("{path} on {addr}: {e}"));
        let status = res.status().as_u16();
        let text = res.text().await.unwrap_or_default();
        let body = serde_json::from_str(&text).unwrap_or(Value::String(text));
        (status, body)
    }

    /// A staff request that must answer 200; its body.
    pub async fn staff(&self, method: &str, path: &str, body: Value) -> Value {
        let (status, answer) = self.send(method, path, &[], Some(body), true).await;
        assert_eq!(status, 200, "{method} {path}: {answer}");
        answer
    }

    /// The customer pays `intent` at the provider `base`, as its browser library would.
    pub async fn pay_at_provider(&self, base: &str, intent: &str) {
        let steps = [
            (String::new(), vec![("payment_method", "pm_card_visa")]),
            ("/confirm".to_owned(), vec![]),
        ];
        for (step, form) in steps {
            let r = self
                .http
                .post(format!("{base}/v1/payment_intents/{intent}{step}"))
                .bearer_auth(CARD_KEY)
                .form(&form)
                .send()
                .await
                .unwrap_or_else(|e| panic!("the provider: {e}"));
            let status = r.status();
            assert!(
                status.is_success(),
                "{status}: {}",
                r.text().await.unwrap_or_default()
            );
        }
    }

    /// The status of `intent` at the provider `base`.
    pub async fn intent_status(&self, base: &str, intent: &str) -> String {
        let r = self
            .http
            .get(format!("{base}/v1/payment_intents/{intent}"))
            .bearer_auth(CARD_KEY)
            .send()
            .await
            .unwrap_or_else(|e| panic!("the provider: {e}"));
        let body: Value = r.json().await.unwrap_or_default();
        body["status"].as_str().unwrap_or_default().to_owned()
    }
}

/// Runs `kairos` with `args` on `database`, expecting success (the owner's password from
/// the environment, as an operator would give it).
pub fn kairos(database: &str, args: &[&str]) {
    let out = Command::new(env!("CARGO_BIN_EXE_kairos"))
        .args(args)
        .env("DATABASE_URL", database)
        .env("KAIROS_ADMIN_PASSWORD", OWNER_PASSWORD)
        .env_remove("KAIROS_DATA_DIR")
        .output()
        .unwrap_or_else(|e| panic!("cannot run kairos: {e}"));
    assert!(
        out.status.success(),
        "kairos {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}
