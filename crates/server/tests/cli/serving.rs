//! `kairos serve`: the demo tenant on a fresh data directory, explicit databases, rate
//! limits, the start banner, log output and CORS origins from the environment.

use super::stderr;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Output, Stdio};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// A running `kairos serve`, killed when dropped.
struct Server {
    child: Child,
    /// Lines the server logged (standard error), as they come.
    logs: mpsc::Receiver<String>,
    /// Everything the server printed on standard output.
    stdout: Arc<Mutex<String>>,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Server {
    /// The lines logged since the last call, waiting briefly for more to arrive.
    fn more_logs(&self) -> String {
        let mut logs = String::new();
        while let Ok(line) = self.logs.recv_timeout(Duration::from_millis(500)) {
            logs.push_str(&line);
        }
        logs
    }

    fn stdout(&self) -> String {
        self.stdout.lock().map(|s| s.clone()).unwrap_or_default()
    }
}

/// Starts `kairos serve` and returns it with its address and what it logged until ready
/// (the start banner). The environment's logging and CORS settings are cleared first.
fn serve(args: &[&str], envs: &[(&str, &str)]) -> (Server, String, String) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_kairos"));
    cmd.arg("serve")
        .args(["--listen", "127.0.0.1:0"])
        .args(args);
    for var in [
        "DATABASE_URL",
        "KAIROS_DATA_DIR",
        "RUST_LOG",
        "KAIROS_LOG_LEVEL",
        "KAIROS_LOG_FORMAT",
        "KAIROS_CORS_ORIGINS",
        "NO_COLOR",
    ] {
        cmd.env_remove(var);
    }
    for (k, v) in envs {
        cmd.env(k, v);
    }
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("{e}"));
    let err = child.stderr.take().unwrap_or_else(|| panic!("no stderr"));
    let out = child.stdout.take().unwrap_or_else(|| panic!("no stdout"));
    // Both pipes are drained for the server's whole life, so that it never blocks on a
    // full pipe and every line can be inspected.
    let (tx, logs) = mpsc::channel();
    std::thread::spawn(move || {
        let mut reader = BufReader::new(err);
        loop {
            let mut line = String::new();
            if reader.read_line(&mut line).unwrap_or(0) == 0 || tx.send(line).is_err() {
                break;
            }
        }
    });
    let stdout = Arc::new(Mutex::new(String::new()));
    let sink = stdout.clone();
    std::thread::spawn(move || {
        let mut text = String::new();
        let _ = BufReader::new(out).read_to_string(&mut text);
        if let Ok(mut s) = sink.lock() {
            s.push_str(&text);
        }
    });
    let server = Server {
        child,
        logs,
        stdout,
    };
    let mut banner = String::new();
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut addr = String::new();
    while let Some(left) = deadline.checked_duration_since(Instant::now()) {
        let Ok(line) = server.logs.recv_timeout(left) else {
            break;
        };
        banner.push_str(&line);
        if let Some(rest) = line.split("listening on http://").nth(1) {
            addr = rest
                .split_whitespace()
                .next()
                .unwrap_or_default()
                .to_owned();
        }
        if line.contains("ready; press Ctrl-C") {
            break;
        }
    }
    assert!(!addr.is_empty(), "server did not start: {banner}");
    (server, addr, banner)
}

fn http(
    addr: &str,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> (u16, String) {
    let (status, _, body) = http_with_head(addr, method, path, headers, body);
    (status, body)
}

/// One HTTP/1.1 request; the status, the lower-cased head and the body of the answer.
fn http_with_head(
    addr: &str,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> (u16, String, String) {
    let mut stream = TcpStream::connect(addr).unwrap_or_else(|e| panic!("{e}"));
    let mut req = format!(
        "{method} {path} HTTP/1.1\r\nhost: {addr}\r\nconnection: close\r\ncontent-length: {}\r\n",
        body.len()
    );
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    req.push_str("\r\n");
    req.push_str(body);
    stream
        .write_all(req.as_bytes())
        .unwrap_or_else(|e| panic!("{e}"));
    let mut response = String::new();
    let _ = stream.read_to_string(&mut response);
    let status = response
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let (head, body) = response.split_once("\r\n\r\n").unwrap_or_default();
    (status, head.to_ascii_lowercase(), body.to_owned())
}

#[test]
fn serve_on_a_fresh_data_directory_creates_and_prints_the_demo_tenant() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let data = dir.path().join("data");
    let data = data.to_str().unwrap_or_default();
    let (server, addr, banner) = serve(&["--data-dir", data], &[]);
    assert!(
        banner.contains(
            "demo tenant created: x-tenant-id: demo; owner admin / kairos-demo-admin; \
             front desk frontdesk / kairos-demo-staff"
        ),
        "{banner}"
    );
    assert!(std::path::Path::new(data).join("kairos.db").exists());

    let (status, body) = http(&addr, "GET", "/healthz", &[], "");
    assert_eq!(status, 200, "{body}");
    let login = r#"{"username":"admin","password":"kairos-demo-admin","tenantId":"demo"}"#;
    let (status, body) = http(
        &addr,
        "POST",
        "/api/auth/login",
        &[("content-type", "application/json")],
        login,
    );
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("\"roles\":[\"owner\"]"), "{body}");
    let staff = r#"{"username":"frontdesk","password":"kairos-demo-staff","tenantId":"demo"}"#;
    let (status, body) = http(
        &addr,
        "POST",
        "/api/auth/login",
        &[("content-type", "application/json")],
        staff,
    );
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("front_desk"));

    // The demo has schedules: a first availability query finds slots.
    let (_, body) = http(
        &addr,
        "POST",
        "/api/auth/login",
        &[("content-type", "application/json")],
        login,
    );
    let token =
        serde_json::from_str::<serde_json::Value>(&body).unwrap_or_default()["access_token"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
    let auth = format!("Bearer {token}");
    let (status, body) = http(
        &addr,
        "GET",
        "/api/v1/admin/products",
        &[("x-tenant-id", "demo"), ("authorization", &auth)],
        "",
    );
    assert_eq!(status, 200, "{body}");
    let products: serde_json::Value = serde_json::from_str(&body).unwrap_or_default();
    let day = (chrono::Utc::now() + chrono::Duration::days(2)).date_naive();
    for product in products["items"].as_array().cloned().unwrap_or_default() {
        let path = format!(
            "/api/v1/availability?product_id={}&site_id={}&date_from={day}",
            product["id"].as_str().unwrap_or_default(),
            product["siteId"].as_str().unwrap_or_default()
        );
        let (status, body) = http(&addr, "GET", &path, &[("x-tenant-id", "demo")], "");
        assert_eq!(status, 200, "{body}");
        let slots: serde_json::Value = serde_json::from_str(&body).unwrap_or_default();
        let count = slots["slots"].as_array().map(Vec::len).unwrap_or(0);
        let christmas = day.format("%m-%d").to_string().as_str() >= "12-24"
            && day.format("%m-%d").to_string().as_str() <= "12-26";
        assert!(count > 0 || christmas, "no demo slots on {day}: {body}");
    }
    // The course needs an instructor, one of two certified staff.
    let course = products["items"]
        .as_array()
        .and_then(|items| items.iter().find(|p| p["name"] == "Kids' climbing course"))
        .map(|p| p["id"].as_str().unwrap_or_default().to_owned())
        .unwrap_or_else(|| panic!("no demo course: {products}"));
    let (status, body) = http(
        &addr,
        "GET",
        &format!("/api/v1/admin/skills/products/{course}/requirements"),
        &[("x-tenant-id", "demo"), ("authorization", &auth)],
        "",
    );
    assert_eq!(status, 200, "{body}");
    assert!(
        body.contains("\"skillName\":\"Climbing instructor\""),
        "{body}"
    );
    // Two activities are offered together as a package.
    let (status, body) = http(
        &addr,
        "GET",
        "/api/v1/admin/packages",
        &[("x-tenant-id", "demo"), ("authorization", &auth)],
        "",
    );
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("\"name\":\"Climb & Escape\""), "{body}");
    assert!(body.contains("\"pricePerPerson\":35.0"), "{body}");
    drop(server);

    // A second start finds the demo tenant and does not create it again.
    let (_server, _, banner) = serve(&["--data-dir", data], &[]);
    assert!(!banner.contains("demo tenant created"), "{banner}");
    assert!(
        banner.contains("demo tenant: x-tenant-id: demo; owner admin / kairos-demo-admin"),
        "{banner}"
    );
}

#[test]
fn no_demo_and_explicit_databases_get_no_demo_tenant() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let data = dir.path().to_str().unwrap_or_default();
    let (_server, addr, banner) = serve(&["--data-dir", data, "--no-demo"], &[]);
    assert!(!banner.contains("demo tenant"), "{banner}");
    let (status, _) = http(&addr, "GET", "/readyz", &[], "");
    assert_eq!(status, 200);
    let (status, body) = http(
        &addr,
        "GET",
        "/api/v1/customers/me",
        &[("x-tenant-id", "demo")],
        "",
    );
    assert_eq!(status, 404, "{body}");

    let url = format!("sqlite://{}/explicit.db", data);
    let (_server, addr, banner) = serve(&[], &[("DATABASE_URL", url.as_str())]);
    assert!(!banner.contains("demo tenant"), "{banner}");
    let (status, _) = http(
        &addr,
        "GET",
        "/api/v1/customers/me",
        &[("x-tenant-id", "demo")],
        "",
    );
    assert_eq!(status, 404);
}

#[test]
fn rate_limits_come_from_the_environment() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let data = dir.path().to_str().unwrap_or_default();
    let (_server, addr, _) = serve(
        &["--data-dir", data, "--no-demo"],
        &[("KAIROS_RATE_LIMIT_RELAXED", "2")],
    );
    assert_eq!(http(&addr, "GET", "/healthz", &[], "").0, 200);
    assert_eq!(http(&addr, "GET", "/healthz", &[], "").0, 200);
    let (status, body) = http(&addr, "GET", "/healthz", &[], "");
    assert_eq!(status, 429, "{body}");
    assert!(body.contains("\"retryAfter\""));
}

#[test]
fn the_start_banner_is_logged_with_the_bound_address_and_the_demo_credentials() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let data = dir.path().to_str().unwrap_or_default();
    let (server, addr, banner) = serve(&["--data-dir", data], &[("KAIROS_LOG_FORMAT", "json")]);
    // Every banner line is a log event, nothing is printed around the log format.
    let events: Vec<serde_json::Value> = banner
        .lines()
        .map(|line| {
            serde_json::from_str(line).unwrap_or_else(|e| panic!("not a JSON event ({e}): {line}"))
        })
        .collect();
    let listening = events
        .iter()
        .find(|e| {
            e["fields"]["message"]
                .as_str()
                .is_some_and(|m| m.contains("listening on"))
        })
        .unwrap_or_else(|| panic!("no listening event: {banner}"));
    assert_eq!(listening["level"], "INFO");
    // `--listen 127.0.0.1:0`: the event names the port actually bound, and it answers.
    assert_eq!(listening["fields"]["address"], addr.as_str());
    assert!(!addr.ends_with(":0"), "{addr}");
    assert_eq!(http(&addr, "GET", "/healthz", &[], "").0, 200);
    let demo = events
        .iter()
        .find(|e| {
            e["fields"]["message"]
                .as_str()
                .is_some_and(|m| m.starts_with("demo tenant created"))
        })
        .unwrap_or_else(|| panic!("no demo event: {banner}"));
    let message = demo["fields"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("x-tenant-id: demo"), "{message}");
    assert!(
        message.contains("owner admin / kairos-demo-admin"),
        "{message}"
    );
    assert!(
        message.contains("front desk frontdesk / kairos-demo-staff"),
        "{message}"
    );
    assert_eq!(demo["fields"]["tenant_id"], "demo");
    assert!(server.stdout().is_empty(), "printed: {}", server.stdout());
}

#[test]
fn logs_written_to_a_pipe_have_no_colour_codes() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let data = dir.path().to_str().unwrap_or_default();
    let (server, addr, banner) = serve(&["--data-dir", data, "--no-demo"], &[]);
    assert_eq!(http(&addr, "GET", "/healthz", &[], "").0, 200);
    let logs = format!("{banner}{}", server.more_logs());
    assert!(logs.contains(" INFO "), "{logs}");
    assert!(!logs.contains("\x1b["), "colour codes in {logs:?}");
}

/// Runs `cmd` to completion, killing it after `limit` (a server that should have refused
/// to start would otherwise keep the test waiting forever).
fn output_within(mut cmd: Command, limit: Duration) -> Output {
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("{e}"));
    let deadline = Instant::now() + limit;
    while child.try_wait().ok().flatten().is_none() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    let _ = child.kill();
    child.wait_with_output().unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn cors_origins_come_from_the_environment_and_are_checked_at_start() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let data = dir.path().to_str().unwrap_or_default();
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_kairos"));
    cmd.args(["serve", "--listen", "127.0.0.1:0", "--data-dir", data])
        .env("KAIROS_CORS_ORIGINS", "https://shop.example/")
        .env_remove("DATABASE_URL");
    let out = output_within(cmd, Duration::from_secs(30));
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("KAIROS_CORS_ORIGINS"),
        "{}",
        stderr(&out)
    );
    assert!(
        stderr(&out).contains("'https://shop.example/'"),
        "{}",
        stderr(&out)
    );

    let (_server, addr, _) = serve(
        &["--data-dir", data, "--no-demo"],
        &[("KAIROS_CORS_ORIGINS", "https://shop.example")],
    );
    let (status, head, _) = http_with_head(
        &addr,
        "OPTIONS",
        "/api/v1/availability",
        &[
            ("origin", "https://shop.example"),
            ("access-control-request-method", "GET"),
            ("access-control-request-headers", "x-tenant-id"),
        ],
        "",
    );
    assert_eq!(status, 200, "{head}");
    assert!(
        head.contains("access-control-allow-origin: https://shop.example"),
        "{head}"
    );
    assert!(head.contains("x-tenant-id"), "{head}");
}
