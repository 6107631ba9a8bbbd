//! A crash while a provider event is being processed loses nothing and doubles nothing
//! `kairos serve` is killed (SIGKILL) while it processes a card payment's
//! success, the provider redelivers the event to a restarted server, and it is processed
//! exactly once. The event's row is written in the transaction that acts on it, so the
//! killed attempt leaves no trace. PostgreSQL only (`TEST_DATABASE_URL`): a row lock held
//! by the test stops the server inside its transaction, where the kill lands.
#![expect(clippy::unwrap_used, reason = "test helpers fail the test loudly")]

mod common;
use kairos_app::payments::providers::sandbox::webhook_secret;
use kairos_domain::payments::cardpay_signature::header;
use kairos_domain::secrets::SecretBox;
use kairos_testkit::TestApp;
use serde_json::json;
use sqlx::Connection;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

const SECRET_KEY: &str = "c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00";

/// `kairos serve` on `database`, without workers: the child and its address.
fn serve(database: &str) -> (Child, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_kairos"))
        .args(["serve", "--listen", "127.0.0.1:0", "--no-workers"])
        .env("DATABASE_URL", database)
        .env("KAIROS_SECRET_KEY", SECRET_KEY)
        .env_remove("KAIROS_DATA_DIR")
        .env_remove("RUST_LOG")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let addr = common::listening_address(&mut child);
    (child, addr)
}

/// POSTs the signed event; the status and body (None when the connection died).
fn deliver(addr: &str, body: &str, signature: &str) -> Option<(u16, String)> {
    let mut stream = TcpStream::connect(addr).ok()?;
    let request = format!(
        "POST /payments/cardpay/webhook HTTP/1.1\r\nhost: {addr}\r\nconnection: close\r\ncontent-type: application/json\r\ncardpay-signature: {signature}\r\ncontent-length: {}\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).ok()?;
    let mut response = String::new();
    stream.read_to_string(&mut response).ok()?;
    let status = response.split(' ').nth(1)?.parse().ok()?;
    let (_, body) = response.split_once("\r\n\r\n")?;
    Some((status, body.to_owned()))
}

#[tokio::test]
async fn an_event_whose_processing_was_killed_is_processed_once_when_redelivered() {
    let Ok(pg) = std::env::var("TEST_DATABASE_URL") else {
        return;
    };
    if !pg.starts_with("postgres") {
        return;
    }
    let app = TestApp::builder().secret_key(SECRET_KEY).spawn().await;
    let t = app.tenant("acme").await;
    let fx = app.bookable(&t).await;
    let key = app.sandbox_cardpay(&t).await;
    let hold = app.hold(&t.id, &fx, &fx.slots[0], 2).await;
    let res = app
        .post(&format!("/api/v1/bookings/{}/confirm", hold.str("id")))
        .tenant(&t.id)
        .header("x-booking-token", hold.str("bookingToken"))
        .json(json!({"pricingHash": hold.str("pricingHash"), "paymentMethod": "cardpay"}))
        .send()
        .await;
    res.assert_status(200);
    let booking = hold.str("id").to_owned();
    let intent = res.body["payment"]["paymentIntentId"]
        .as_str()
        .unwrap()
        .to_owned();
    let secret = webhook_secret(&SecretBox::new(SECRET_KEY), &key);
    let event = json!({
        "id": "evt_crash_1", "object": "event", "type": "payment_intent.succeeded",
        "data": {"object": {"id": intent, "object": "payment_intent", "amount": 4000,
            "amount_received": 4000, "currency": "eur", "status": "succeeded",
            "metadata": {"tenant_id": "acme"}}}
    })
    .to_string();
    let sign = || header(&secret, chrono::Utc::now().timestamp(), event.as_bytes());

    // The test holds the booking's row: the server's processing waits on it, inside its
    // transaction, after claiming the event.
    let mut blocker = sqlx::PgConnection::connect(app.database_url())
        .await
        .unwrap();
    sqlx::query("BEGIN").execute(&mut blocker).await.unwrap();
    sqlx::query("SELECT 1 FROM bookings WHERE tenant_id = 'acme' AND id = $1::uuid FOR UPDATE")
        .bind(&booking)
        .execute(&mut blocker)
        .await
        .unwrap();
    let (mut server, addr) = serve(app.database_url());
    let first = {
        let (addr, signature) = (addr.clone(), sign());
        let body = event.clone();
        std::thread::spawn(move || deliver(&addr, &body, &signature))
    };
    // Wait until the server waits on the lock (up to 30 s on a busy machine), then kill it
    // there.
    // Watched from a connection of its own: inside the blocker's transaction PostgreSQL
    // would answer every read of pg_stat_activity from its first snapshot.
    let mut watcher = sqlx::PgConnection::connect(app.database_url())
        .await
        .unwrap();
    let mut waiting = false;
    for _ in 0..300 {
        if first.is_finished() {
            break;
        }
        let n: i64 = sqlx::query_scalar(
            "SELECT COUNT(*) FROM pg_stat_activity
             WHERE datname = current_database() AND wait_event_type = 'Lock'",
        )
        .fetch_one(&mut watcher)
        .await
        .unwrap();
        if n > 0 {
            waiting = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    if !waiting {
        let answered = if first.is_finished() {
            format!("{:?}", first.join().unwrap())
        } else {
            "no answer yet".to_owned()
        };
        server.kill().unwrap();
        panic!("the server never reached the booking's lock; the delivery got: {answered}");
    }
    server.kill().unwrap();
    server.wait().unwrap();
    assert!(
        first.join().unwrap().is_none(),
        "the killed server answered"
    );
    sqlx::query("ROLLBACK").execute(&mut blocker).await.unwrap();

    // Nothing of the killed attempt remains.
    let events: i64 =
        sqlx::query_scalar("SELECT COUNT(*) FROM payment_events WHERE event_id = 'evt_crash_1'")
            .fetch_one(&mut blocker)
            .await
            .unwrap();
    assert_eq!(events, 0);

    // The provider redelivers to the restarted server: processed once.
    let (mut server, addr) = serve(app.database_url());
    let (status, body) = deliver(&addr, &event, &sign()).unwrap();
    assert_eq!(status, 200, "{body}");
    let answer: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(answer["processed"], true, "{body}");
    let (status, body) = deliver(&addr, &event, &sign()).unwrap();
    assert_eq!(status, 200, "{body}");
    let again: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(again["error"], "DUPLICATE_EVENT", "{body}");
    server.kill().unwrap();
    server.wait().unwrap();

    let (status, paid): (String, i64) = sqlx::query_as(
        "SELECT status, paid_amount FROM bookings WHERE tenant_id = 'acme' AND id = $1::uuid",
    )
    .bind(&booking)
    .fetch_one(&mut blocker)
    .await
    .unwrap();
    assert_eq!((status.as_str(), paid), ("paid", 4000));
    let completed: i64 = sqlx::query_scalar(
        "SELECT COUNT(*) FROM payments WHERE tenant_id = 'acme' AND booking_id = $1::uuid AND status = 'COMPLETED'",
    )
    .bind(&booking)
    .fetch_one(&mut blocker)
    .await
    .unwrap();
    assert_eq!(completed, 1);
}
