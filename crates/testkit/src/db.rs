//! A fresh database per test: a temporary SQLite file, or a new PostgreSQL database
//! that is dropped again when the last app using it is dropped.

use sqlx::Connection;
use sqlx::postgres::PgConnection;

pub enum TestDb {
    Sqlite {
        _dir: tempfile::TempDir,
        url: String,
    },
    Postgres {
        server: String,
        name: String,
        url: String,
    },
}

impl TestDb {
    /// A fresh database on `TEST_DATABASE_URL`'s server, or SQLite.
    pub async fn create() -> TestDb {
        let url = std::env::var("TEST_DATABASE_URL").ok();
        Self::create_on(url.as_deref()).await
    }

    /// A fresh database on the PostgreSQL server of `postgres_url`, or SQLite when `None`.
    pub async fn create_on(postgres_url: Option<&str>) -> TestDb {
        match postgres_url {
            Some(url) if url.starts_with("postgres") => Self::create_postgres(url).await,
            _ => {
                let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("tempdir: {e}"));
                let url = format!("sqlite://{}/kairos.db", dir.path().display());
                TestDb::Sqlite { _dir: dir, url }
            }
        }
    }

    async fn create_postgres(admin_url: &str) -> TestDb {
        let without_query = admin_url.split('?').next().unwrap_or(admin_url);
        let scheme_end = without_query.find("://").map(|i| i + 3).unwrap_or(0);
        let server = match without_query[scheme_end..].find('/') {
            Some(i) => without_query[..scheme_end + i].to_owned(),
            None => without_query.to_owned(),
        };
        let name = format!("kairos_test_{}", uuid::Uuid::new_v4().simple());
        let mut conn = PgConnection::connect(admin_url)
            .await
            .unwrap_or_else(|e| panic!("cannot reach TEST_DATABASE_URL: {e}"));
        sqlx::query(sqlx::AssertSqlSafe(format!("CREATE DATABASE {name}")))
            .execute(&mut conn)
            .await
            .unwrap_or_else(|e| panic!("create database: {e}"));
        let _ = conn.close().await;
        let url = format!("{server}/{name}");
        TestDb::Postgres { server, name, url }
    }

    pub fn url(&self) -> &str {
        match self {
            TestDb::Sqlite { url, .. } | TestDb::Postgres { url, .. } => url,
        }
    }
}

impl Drop for TestDb {
    fn drop(&mut self) {
        let TestDb::Postgres { server, name, .. } = self else {
            return;
        };
        let admin = format!("{server}/postgres");
        let name = name.clone();
        // Drop runs inside the test's runtime; use a thread with its own runtime.
        let handle = std::thread::spawn(move || {
            let Ok(rt) = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
            else {
                return;
            };
            rt.block_on(async move {
                if let Ok(mut conn) = PgConnection::connect(&admin).await {
                    let _ = sqlx::query(sqlx::AssertSqlSafe(format!(
                        "DROP DATABASE IF EXISTS {name} WITH (FORCE)"
                    )))
                    .execute(&mut conn)
                    .await;
                    let _ = conn.close().await;
                }
            });
        });
        let _ = handle.join();
    }
}
