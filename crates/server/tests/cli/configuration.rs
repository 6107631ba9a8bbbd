//! The binary's configuration: help that never shows settings' values, database URLs that
//! are unreachable, unanswered or unsupported, and unknown keys in the config file.

use super::{stderr, stdout};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

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
