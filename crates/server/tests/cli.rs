//! The `kairos` binary: serve on a fresh data directory, and the bootstrap commands on
//! SQLite or PostgreSQL (`TEST_DATABASE_URL`).

#[path = "cli/configuration.rs"]
mod configuration;
#[path = "cli/serving.rs"]
mod serving;

use kairos_testkit::TestDb;
use std::io::Write;
use std::process::{Command, Output, Stdio};
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
