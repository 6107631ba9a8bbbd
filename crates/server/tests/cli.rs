//! The `kairos` binary: serve on a fresh data directory, and the bootstrap commands on
//! SQLite or PostgreSQL (`TEST_DATABASE_URL`).

use kairos_testkit::TestDb;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

fn kairos(db: &TestDb, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_kairos"))
        .args(args)
        .env("DATABASE_URL", db.url())
        .env_remove("KAIROS_DATA_DIR")
        .output()
        .unwrap_or_else(|e| panic!("cannot run kairos: {e}"))
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[tokio::test]
async fn tenant_and_admin_bootstrap_commands() {
    let db = TestDb::create().await;
    let out = kairos(&db, &["migrate"]);
    assert!(out.status.success(), "{}", stderr(&out));

    let out = kairos(
        &db,
        &[
            "tenant",
            "create",
            "--id",
            "acme",
            "--name",
            "Acme Climbing",
            "--timezone",
            "Europe/Helsinki",
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("tenant 'acme' created (EUR, Europe/Helsinki)"));

    let out = kairos(
        &db,
        &["tenant", "create", "--id", "acme", "--name", "Again"],
    );
    assert!(!out.status.success());
    assert!(stderr(&out).contains("already exists"), "{}", stderr(&out));

    let out = kairos(
        &db,
        &[
            "admin",
            "create",
            "--tenant",
            "acme",
            "--username",
            "boss",
            "--password",
            "boss-password",
            "--role",
            "owner",
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("administrator 'boss' created"));

    let out = kairos(
        &db,
        &[
            "admin",
            "create",
            "--tenant",
            "acme",
            "--username",
            "boss",
            "--password",
            "boss-password",
        ],
    );
    assert!(!out.status.success());
    assert!(stderr(&out).contains("already exists"));
}

#[tokio::test]
async fn bootstrap_commands_refuse_bad_input_with_a_clear_message() {
    let db = TestDb::create().await;
    for (args, message) in [
        (
            vec![
                "tenant",
                "create",
                "--id",
                "acme",
                "--name",
                "A",
                "--timezone",
                "Mars/Base",
            ],
            "not an IANA time zone",
        ),
        (
            vec![
                "tenant",
                "create",
                "--id",
                "acme",
                "--name",
                "A",
                "--currency",
                "XYZW",
            ],
            "not an ISO 4217",
        ),
        (
            vec!["tenant", "create", "--id", "a b", "--name", "A"],
            "--id",
        ),
        (
            vec!["tenant", "create", "--id", "acme", "--name", " "],
            "--name",
        ),
        (
            vec![
                "admin",
                "create",
                "--tenant",
                "ghost",
                "--username",
                "boss",
                "--password",
                "boss-password",
            ],
            "does not exist",
        ),
        (
            vec![
                "admin",
                "create",
                "--tenant",
                "acme",
                "--username",
                "boss",
                "--password",
                "short",
            ],
            "--password",
        ),
        (
            vec![
                "admin",
                "create",
                "--tenant",
                "acme",
                "--username",
                "boss",
                "--password",
                "boss-password",
                "--role",
                "god",
            ],
            "not a role",
        ),
    ] {
        let out = kairos(&db, &args);
        assert!(!out.status.success(), "{args:?} succeeded");
        assert!(stderr(&out).contains(message), "{args:?}: {}", stderr(&out));
    }
}

#[test]
fn openapi_command_prints_the_document() {
    let out = Command::new(env!("CARGO_BIN_EXE_kairos"))
        .arg("openapi")
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(out.status.success());
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_default();
    assert!(
        doc["openapi"]
            .as_str()
            .is_some_and(|v| v.starts_with("3.1"))
    );
    assert!(doc["paths"]["/api/auth/login"]["post"].is_object());
}

struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts `kairos serve` and returns it with its address and the banner it printed.
fn serve(args: &[&str], envs: &[(&str, &str)]) -> (Server, String, String) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_kairos"));
    cmd.arg("serve")
        .args(["--listen", "127.0.0.1:0"])
        .args(args);
    cmd.env_remove("DATABASE_URL").env_remove("KAIROS_DATA_DIR");
    for (k, v) in envs {
        cmd.env(k, v);
    }
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|e| panic!("{e}"));
    let out = child.stdout.take().unwrap_or_else(|| panic!("no stdout"));
    let server = Server(child);
    let mut reader = BufReader::new(out);
    let mut banner = String::new();
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut addr = String::new();
    while Instant::now() < deadline {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            break;
        }
        banner.push_str(&line);
        if let Some(rest) = line.split("listening on http://").nth(1) {
            addr = rest.trim().to_owned();
        }
        if line.starts_with("Ready;") {
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
    let body = response
        .split("\r\n\r\n")
        .nth(1)
        .unwrap_or_default()
        .to_owned();
    (status, body)
}

#[test]
fn serve_on_a_fresh_data_directory_creates_and_prints_the_demo_tenant() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let data = dir.path().join("data");
    let data = data.to_str().unwrap_or_default();
    let (server, addr, banner) = serve(&["--data-dir", data], &[]);
    assert!(banner.contains("Demo tenant created"), "{banner}");
    assert!(banner.contains("tenant id : demo"));
    assert!(banner.contains("admin / kairos-demo-admin"));
    assert!(banner.contains("frontdesk / kairos-demo-staff"));
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
    drop(server);

    // A second start finds the demo tenant and does not create it again.
    let (_server, _, banner) = serve(&["--data-dir", data], &[]);
    assert!(!banner.contains("Demo tenant created"), "{banner}");
    assert!(banner.contains("demo     : tenant 'demo'"), "{banner}");
}

#[test]
fn no_demo_and_explicit_databases_get_no_demo_tenant() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let data = dir.path().to_str().unwrap_or_default();
    let (_server, addr, banner) = serve(&["--data-dir", data, "--no-demo"], &[]);
    assert!(!banner.contains("demo"), "{banner}");
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
    assert!(!banner.contains("Demo tenant created"), "{banner}");
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
