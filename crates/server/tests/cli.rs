//! The `kairos` binary: serve on a fresh data directory, and the bootstrap commands on
//! SQLite or PostgreSQL (`TEST_DATABASE_URL`).

use kairos_testkit::TestDb;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Output, Stdio};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
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
            "password must be at least 8 characters",
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

#[test]
fn help_never_shows_the_values_of_environment_variables() {
    for args in [
        vec!["--help"],
        vec!["serve", "--help"],
        vec!["migrate", "--help"],
        vec!["admin", "create", "--help"],
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_kairos"))
            .args(&args)
            .env(
                "DATABASE_URL",
                "postgres://kairos:secret-db-password@db/kairos",
            )
            .env("KAIROS_ADMIN_PASSWORD", "secret-admin-password")
            .env("KAIROS_LISTEN", "10.9.8.7:6543")
            .env("KAIROS_DATA_DIR", "/secret/data/dir")
            .env("KAIROS_CONFIG", "/secret/kairos.toml")
            .output()
            .unwrap_or_else(|e| panic!("{e}"));
        let help = format!("{}{}", stdout(&out), stderr(&out));
        assert!(out.status.success(), "{args:?}: {help}");
        assert!(help.contains("DATABASE_URL"), "{args:?}: {help}");
        for value in ["secret", "10.9.8.7"] {
            assert!(!help.contains(value), "{args:?} shows {value}: {help}");
        }
    }
    let out = Command::new(env!("CARGO_BIN_EXE_kairos"))
        .args(["admin", "create", "--help"])
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    let help = stdout(&out);
    assert!(help.contains("--password-stdin"), "{help}");
    assert!(help.contains("KAIROS_ADMIN_PASSWORD"), "{help}");
}

/// Runs `kairos` on `db` with extra environment variables and, when given, standard input.
fn kairos_with(db: &TestDb, args: &[&str], envs: &[(&str, &str)], input: Option<&str>) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_kairos"));
    cmd.args(args)
        .env("DATABASE_URL", db.url())
        .env_remove("KAIROS_DATA_DIR")
        .env_remove("KAIROS_ADMIN_PASSWORD")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, v) in envs {
        cmd.env(k, v);
    }
    let mut child = cmd
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run kairos: {e}"));
    let mut stdin = child.stdin.take().unwrap_or_else(|| panic!("no stdin"));
    if let Some(input) = input {
        // A command refused before it reads its input closes the pipe early; its output
        // still says why, so a failed write is not the test's concern.
        let _ = stdin.write_all(input.as_bytes());
    }
    drop(stdin);
    child.wait_with_output().unwrap_or_else(|e| panic!("{e}"))
}

/// Whether `password` signs `username` of tenant `acme` in.
async fn password_matches(db: &TestDb, username: &str, password: &str) -> bool {
    let store = kairos_store::Store::open(&kairos_store::ConnectOptions::new(db.url()))
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let tenant = kairos_domain::TenantId::parse("acme").unwrap_or_else(|e| panic!("{e}"));
    let user = store
        .find_admin_user_by_username(&tenant, username)
        .await
        .unwrap_or_else(|e| panic!("{e}"))
        .unwrap_or_else(|| panic!("no user {username}"));
    store.close().await;
    kairos_api::auth::passwords::PasswordHashing::new(1, std::time::Duration::from_secs(60))
        .verify(password.to_owned(), Some(user.password_hash))
        .await
        .unwrap_or_else(|e| panic!("{e:?}"))
}

#[tokio::test]
async fn admin_passwords_come_from_stdin_or_the_environment_and_are_never_echoed() {
    let db = TestDb::create().await;
    let out = kairos(&db, &["tenant", "create", "--id", "acme", "--name", "Acme"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let create = |username: &'static str| {
        vec![
            "admin",
            "create",
            "--tenant",
            "acme",
            "--username",
            username,
        ]
    };
    let quiet = |out: &Output, password: &str| {
        let all = format!("{}{}", stdout(out), stderr(out));
        assert!(!all.contains(password), "the password was echoed: {all}");
    };

    // Standard input: the line break that ends the input is not part of the password.
    let mut args = create("fromstdin");
    args.push("--password-stdin");
    let out = kairos_with(&db, &args, &[], Some("stdin-password-1\n"));
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("administrator 'fromstdin' created"));
    quiet(&out, "stdin-password-1");
    assert!(password_matches(&db, "fromstdin", "stdin-password-1").await);

    // The environment.
    let out = kairos_with(
        &db,
        &create("fromenv"),
        &[("KAIROS_ADMIN_PASSWORD", "env-password-1")],
        None,
    );
    assert!(out.status.success(), "{}", stderr(&out));
    quiet(&out, "env-password-1");
    assert!(password_matches(&db, "fromenv", "env-password-1").await);

    // Refusals name the problem, never the password.
    let out = kairos_with(&db, &args, &[], Some("pw-7chr\n"));
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("at least 8 characters"),
        "{}",
        stderr(&out)
    );
    quiet(&out, "pw-7chr");
    let mut ghost = vec!["admin", "create", "--tenant", "ghost", "--username", "boss"];
    ghost.push("--password-stdin");
    let out = kairos_with(&db, &ghost, &[], Some("ghost-password-1"));
    assert!(stderr(&out).contains("does not exist"), "{}", stderr(&out));
    quiet(&out, "ghost-password-1");
    let out = kairos_with(&db, &create("nopassword"), &[], None);
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("--password-stdin"),
        "{}",
        stderr(&out)
    );
    let mut both = create("both");
    both.extend(["--password-stdin", "--password", "flag-password-1"]);
    let out = kairos_with(&db, &both, &[], Some("stdin-password-2"));
    assert!(!out.status.success(), "{}", stdout(&out));
    quiet(&out, "flag-password-1");
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

/// A TCP port on 127.0.0.1 that nothing listens on.
fn closed_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap_or_else(|e| panic!("{e}"));
    listener
        .local_addr()
        .unwrap_or_else(|e| panic!("{e}"))
        .port()
}

fn migrate_on(url: &str) -> (Output, Duration) {
    let started = Instant::now();
    let out = Command::new(env!("CARGO_BIN_EXE_kairos"))
        .arg("migrate")
        .env("DATABASE_URL", url)
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    (out, started.elapsed())
}

#[test]
fn an_unreachable_postgres_fails_fast_naming_the_server_and_the_cause() {
    let port = closed_port();
    let (out, took) = migrate_on(&format!(
        "postgres://kairos:hunter2-secret@127.0.0.1:{port}/kairos"
    ));
    let err = stderr(&out);
    assert!(!out.status.success(), "{err}");
    assert!(took < Duration::from_secs(5), "took {took:?}: {err}");
    assert!(
        err.contains(&format!("cannot connect to PostgreSQL at 127.0.0.1:{port}")),
        "{err}"
    );
    assert!(err.to_lowercase().contains("refused"), "{err}");
    assert!(!err.contains("hunter2"), "{err}");
}

#[test]
fn a_postgres_that_never_answers_fails_after_the_connect_timeout() {
    // Connections complete in the kernel's backlog but nobody ever answers on them.
    let silent = std::net::TcpListener::bind("127.0.0.1:0").unwrap_or_else(|e| panic!("{e}"));
    let port = silent.local_addr().unwrap_or_else(|e| panic!("{e}")).port();
    let (out, took) = migrate_on(&format!(
        "postgres://kairos:hunter2-secret@127.0.0.1:{port}/kairos"
    ));
    let err = stderr(&out);
    assert!(!out.status.success(), "{err}");
    assert!(took < Duration::from_secs(10), "took {took:?}: {err}");
    assert!(
        err.contains(&format!(
            "cannot connect to PostgreSQL at 127.0.0.1:{port}: no answer within 5 s"
        )),
        "{err}"
    );
    assert!(!err.contains("hunter2"), "{err}");
    drop(silent);
}

#[test]
fn an_unsupported_database_url_is_refused_without_its_password() {
    let (out, _) = migrate_on("mysql://kairos:hunter2-secret@db/kairos");
    let err = stderr(&out);
    assert!(!out.status.success());
    assert!(err.contains("unsupported database URL 'mysql://"), "{err}");
    assert!(!err.contains("hunter2"), "{err}");
}

#[test]
fn an_unknown_key_in_the_config_file_is_an_error_naming_it() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let data = dir.path().join("data");
    let file = dir.path().join("kairos.toml");
    let run = |contents: String, via_env: bool| {
        std::fs::write(&file, contents).unwrap_or_else(|e| panic!("{e}"));
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_kairos"));
        cmd.env_remove("DATABASE_URL").env_remove("KAIROS_DATA_DIR");
        match via_env {
            true => cmd.env("KAIROS_CONFIG", &file).arg("migrate"),
            false => cmd.arg("--config").arg(&file).arg("migrate"),
        };
        cmd.output().unwrap_or_else(|e| panic!("{e}"))
    };
    let out = run(
        format!("data_dir = {:?}\nmax_conections = 4\n", data.display()),
        false,
    );
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("max_conections"), "{}", stderr(&out));

    // The file named by KAIROS_CONFIG is read; the variable itself is not a setting.
    let out = run(format!("data_dir = {:?}\n", data.display()), true);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(data.join("kairos.db").exists());
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

/// Commands run beside a live server: a write another process has under way makes
/// `kairos tenant create` wait for it, not fail with "database is locked".
#[tokio::test]
async fn a_command_waits_for_a_write_in_progress_elsewhere() {
    use sqlx::Connection;
    let db = TestDb::create().await;
    let out = kairos(&db, &["migrate"]);
    assert!(out.status.success(), "{}", stderr(&out));
    // Another process's write transaction, held longer than a request would wait (5 s).
    let held = Duration::from_secs(7);
    let url = db.url().to_owned();
    let writer = tokio::spawn(async move {
        if url.starts_with("postgres") {
            let mut c = sqlx::PgConnection::connect(&url)
                .await
                .unwrap_or_else(|e| panic!("{e}"));
            let mut tx = c.begin().await.unwrap_or_else(|e| panic!("{e}"));
            sqlx::query("LOCK TABLE tenants IN EXCLUSIVE MODE")
                .execute(&mut *tx)
                .await
                .unwrap_or_else(|e| panic!("{e}"));
            tokio::time::sleep(held).await;
            tx.commit().await.unwrap_or_else(|e| panic!("{e}"));
        } else {
            let mut c = sqlx::SqliteConnection::connect(&url)
                .await
                .unwrap_or_else(|e| panic!("{e}"));
            sqlx::query("BEGIN IMMEDIATE")
                .execute(&mut c)
                .await
                .unwrap_or_else(|e| panic!("{e}"));
            tokio::time::sleep(held).await;
            sqlx::query("COMMIT")
                .execute(&mut c)
                .await
                .unwrap_or_else(|e| panic!("{e}"));
        }
    });
    tokio::time::sleep(Duration::from_millis(500)).await;
    let started = Instant::now();
    let out = tokio::task::spawn_blocking({
        let url = db.url().to_owned();
        move || {
            Command::new(env!("CARGO_BIN_EXE_kairos"))
                .args(["tenant", "create", "--id", "live", "--name", "Live"])
                .env("DATABASE_URL", url)
                .env_remove("KAIROS_DATA_DIR")
                .output()
                .unwrap_or_else(|e| panic!("cannot run kairos: {e}"))
        }
    })
    .await
    .unwrap_or_else(|e| panic!("{e}"));
    writer.await.unwrap_or_else(|e| panic!("{e}"));
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("tenant 'live' created"),
        "{}",
        stdout(&out)
    );
    assert!(
        started.elapsed() >= Duration::from_secs(5),
        "it waited for the other write: {:?}",
        started.elapsed()
    );
}
