//! Sign-ins hash passwords with Argon2id, 19 MiB of memory each: 60 sign-ins at once
//! (staff and customers, right and wrong passwords, an unknown account) against the real
//! `kairos serve` keep the process's peak memory (`VmHWM`) under 200 MB. Linux only: the
//! figure is read from `/proc/<pid>/status`.
#![cfg(target_os = "linux")]
#![expect(clippy::unwrap_used, reason = "test helpers fail the test loudly")]

mod common;
use kairos_testkit::TestApp;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Barrier};
use std::time::Instant;

const SIGN_INS: usize = 60;
/// 200 MB, in bytes.
const PEAK_LIMIT: u64 = 200_000_000;

/// `kairos serve` on `database`, without workers and without sign-in rate limits: the
/// child and its address.
fn serve(database: &str) -> (Child, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_kairos"))
        .args(["serve", "--listen", "127.0.0.1:0", "--no-workers"])
        .env("DATABASE_URL", database)
        .env("KAIROS_RATE_LIMIT_STRICT", "0")
        // Every sign-in waits its turn, however slow the machine: the test counts
        // answers, not 503s.
        .env("KAIROS_PASSWORD_HASH_WAIT_MS", "120000")
        .env_remove("KAIROS_PASSWORD_HASH_CONCURRENCY")
        .env_remove("KAIROS_DATA_DIR")
        .env_remove("RUST_LOG")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let addr = common::listening_address(&mut child);
    (child, addr)
}

/// POSTs `body` to `path` for tenant `acme`; the status (0 when the connection died).
fn post(addr: &str, path: &str, body: &str) -> u16 {
    let Ok(mut stream) = TcpStream::connect(addr) else {
        return 0;
    };
    let request = format!(
        "POST {path} HTTP/1.1\r\nhost: {addr}\r\nconnection: close\r\nx-tenant-id: acme\r\n\
         content-type: application/json\r\ncontent-length: {}\r\n\r\n{body}",
        body.len()
    );
    let mut response = String::new();
    if stream.write_all(request.as_bytes()).is_err()
        || stream.read_to_string(&mut response).is_err()
    {
        return 0;
    }
    response
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0)
}

/// A memory line of `/proc/<pid>/status` in bytes (`VmHWM`: the peak resident set;
/// `VmRSS`: now); the file counts in KiB.
fn status_bytes(pid: u32, field: &str) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix(field)?.strip_prefix(':'))
        .and_then(|v| v.split_whitespace().next()?.parse::<u64>().ok())
        .map(|kib| kib * 1024)
        .unwrap_or_else(|| panic!("no {field} in /proc/{pid}/status"))
}

/// The `i`th sign-in of the burst: its path, body and the status it must get.
fn sign_in(i: usize) -> (&'static str, String, u16) {
    const STAFF: &str = "/api/auth/login";
    const CUSTOMER: &str = "/api/v1/customers/login";
    let staff = |password: &str| {
        format!(r#"{{"username":"owner","password":"{password}","tenantId":"acme"}}"#)
    };
    let customer =
        |email: &str, password: &str| format!(r#"{{"email":"{email}","password":"{password}"}}"#);
    match i % 5 {
        0 => (STAFF, staff("owner-password-1"), 200),
        1 => (STAFF, staff("not-the-password"), 401),
        2 => (
            CUSTOMER,
            customer("guest@example.com", "customer-pass-1"),
            200,
        ),
        3 => (CUSTOMER, customer("guest@example.com", "wrong-pass-1"), 401),
        // No such account: checked against the dummy hash.
        _ => (
            CUSTOMER,
            customer("nobody@example.com", "customer-pass-1"),
            401,
        ),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sixty_sign_ins_at_once_keep_the_peak_memory_under_200_mb() {
    let app = TestApp::spawn().await;
    let t = app.tenant("acme").await;
    app.customer_token(&t.id, "guest@example.com").await;
    let (mut server, addr) = serve(app.database_url());
    let pid = server.id();
    let at_start = status_bytes(pid, "VmHWM");

    let started = Instant::now();
    let answers = tokio::task::spawn_blocking(move || {
        let go = Arc::new(Barrier::new(SIGN_INS));
        let runs: Vec<_> = (0..SIGN_INS)
            .map(|i| {
                let (go, addr) = (go.clone(), addr.clone());
                std::thread::spawn(move || {
                    let (path, body, expected) = sign_in(i);
                    go.wait();
                    (i, post(&addr, path, &body), expected)
                })
            })
            .collect();
        runs.into_iter()
            .map(|r| r.join().unwrap())
            .collect::<Vec<_>>()
    })
    .await
    .unwrap();
    let took = started.elapsed();
    let peak = status_bytes(pid, "VmHWM");
    let now = status_bytes(pid, "VmRSS");
    let _ = server.kill();
    let _ = server.wait();

    let wrong: Vec<_> = answers
        .iter()
        .filter(|(_, got, expected)| got != expected)
        .collect();
    assert!(
        wrong.is_empty(),
        "sign-ins answered otherwise (index, got, expected): {wrong:?}"
    );
    eprintln!(
        "measured: {SIGN_INS} sign-ins at once answered in {:.1} s; kairos serve peak RSS \
         (VmHWM) {:.1} MB (at start {:.1} MB, after {:.1} MB)",
        took.as_secs_f64(),
        peak as f64 / 1e6,
        at_start as f64 / 1e6,
        now as f64 / 1e6
    );
    assert!(
        peak < PEAK_LIMIT,
        "peak RSS {peak} bytes is over {PEAK_LIMIT}"
    );
}
