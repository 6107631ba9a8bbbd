//! Message delivery (spec Part B 4.8, 4.11): real SMTP to a sink the test starts, an HTTP
//! SMS provider, message files, retries with backoff, the dead-letter queue and retrying
//! from it, and two workers sending each message once.
#![expect(clippy::unwrap_used, reason = "test helpers fail the test loudly")]

#[path = "delivery/dead_letters.rs"]
mod dead_letters;
#[path = "delivery/sms.rs"]
mod sms;
#[path = "delivery/tracking.rs"]
mod tracking;

use chrono::Duration;
use kairos_domain::TenantId;
use kairos_domain::messaging::{Channel, Priority};
use kairos_server::delivery::{DeliverySettings, Mailer, Round, deliver_due};
use kairos_store::NewMessage;
use kairos_testkit::smtp::SmtpSink;
use kairos_testkit::{TenantFixture, TestApp};
use serde_json::Value;
use std::sync::Arc;
use uuid::Uuid;

fn settings(smtp: Option<String>, dir: &std::path::Path) -> DeliverySettings {
    DeliverySettings {
        smtp_url: smtp,
        mail_from: "Acme Adventures <bookings@acme.test>".into(),
        sms_url: None,
        sms_token: None,
        sms_from: None,
        public_url: None,
        files_dir: dir.to_path_buf(),
        max_attempts: 3,
        backoff: std::time::Duration::from_secs(10),
    }
}

fn email(to: &str, subject: &str) -> NewMessage {
    NewMessage {
        channel: Channel::Email,
        template_key: Some("booking_update".into()),
        source: "send",
        recipient: to.into(),
        recipient_name: "Ada Lovelace".into(),
        customer_id: None,
        booking_id: None,
        rule_id: None,
        bulk_id: None,
        subject: subject.into(),
        body: "<p>Hello &amp; welcome</p>".into(),
        priority: Priority::Normal,
        track_delivery: false,
        send_after: kairos_testkit::test_epoch(),
    }
}

async fn queue(app: &TestApp, tenant: &str, m: NewMessage) -> Uuid {
    app.store
        .queue_message(&TenantId::parse(tenant).unwrap(), m, app.clock_now())
        .await
        .unwrap()
}

async fn deliver(app: &TestApp, mailer: &Arc<Mailer>) -> Round {
    deliver_due(&app.store, mailer, app.clock_now())
        .await
        .unwrap()
}

async fn get(app: &TestApp, t: &TenantFixture, path: &str) -> Value {
    let res = app
        .get(path)
        .tenant(&t.id)
        .token(&t.owner_token)
        .send()
        .await;
    res.assert_status(200);
    res.body
}

#[tokio::test]
async fn email_is_delivered_over_smtp_and_its_status_recorded() {
    let app = TestApp::spawn().await;
    let t = app.tenant("acme").await;
    let sink = SmtpSink::start().await;
    let dir = tempfile::tempdir().unwrap();
    let mailer = Arc::new(Mailer::new(&settings(Some(sink.url()), dir.path())).unwrap());
    let id = queue(
        &app,
        "acme",
        email("ada@example.com", "Your visit on Saturday"),
    )
    .await;

    let status = get(&app, &t, &format!("/api/v1/admin/messaging/{id}/status")).await;
    assert_eq!(status["status"], "queued");
    assert_eq!(status["sentAt"], Value::Null);

    let round = deliver(&app, &mailer).await;
    assert_eq!(round.delivered, 1);
    let got = sink.wait_for(1, std::time::Duration::from_secs(5)).await;
    assert_eq!(got.len(), 1);
    let mail = &got[0];
    assert_eq!(mail.from, "bookings@acme.test");
    assert_eq!(mail.to, ["ada@example.com"]);
    assert_eq!(
        mail.header("Subject").as_deref(),
        Some("Your visit on Saturday")
    );
    assert_eq!(
        mail.header("Message-ID").as_deref(),
        Some(format!("<{id}@kairos>").as_str())
    );
    assert!(mail.header("To").unwrap().contains("Ada Lovelace"));
    assert!(mail.data.contains("Hello &amp; welcome"), "{}", mail.data);

    let status = get(&app, &t, &format!("/api/v1/admin/messaging/{id}/status")).await;
    assert_eq!(status["status"], "delivered");
    assert_eq!(status["channel"], "email");
    assert!(status["sentAt"].is_string() && status["deliveredAt"].is_string());
    assert_eq!(status["openedAt"], Value::Null);

    // Nothing is due any more: a second round sends nothing.
    assert_eq!(deliver(&app, &mailer).await, Round::default());
    assert_eq!(sink.received().len(), 1);

    // Staff read what was sent.
    let list = get(&app, &t, "/api/v1/admin/messaging/messages").await;
    assert_eq!(list["messages"][0]["id"], id.to_string());
    assert_eq!(list["messages"][0]["body"], "<p>Hello &amp; welcome</p>");
    assert_eq!(list["messages"][0]["attempts"], 1);
}

#[tokio::test]
async fn two_workers_send_each_message_once() {
    let app = TestApp::spawn().await;
    app.tenant("acme").await;
    let sink = SmtpSink::start().await;
    let dir = tempfile::tempdir().unwrap();
    let mailer = Arc::new(Mailer::new(&settings(Some(sink.url()), dir.path())).unwrap());
    for i in 0..40 {
        queue(
            &app,
            "acme",
            email(&format!("guest{i}@example.com"), &format!("n{i}")),
        )
        .await;
    }
    let now = app.clock_now();
    let (a, b) = tokio::join!(
        deliver_due(&app.store, &mailer, now),
        deliver_due(&app.store, &mailer, now)
    );
    let (a, b) = (a.unwrap(), b.unwrap());
    assert_eq!(a.delivered + b.delivered, 40, "{a:?} {b:?}");
    let got = sink.wait_for(40, std::time::Duration::from_secs(10)).await;
    assert_eq!(got.len(), 40);
    let mut ids: Vec<String> = got.iter().filter_map(|m| m.header("Message-ID")).collect();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), 40, "every message once");
}

#[tokio::test]
async fn without_smtp_messages_are_written_as_files() {
    let app = TestApp::spawn().await;
    app.tenant("acme").await;
    let dir = tempfile::tempdir().unwrap();
    let mailer = Arc::new(Mailer::new(&settings(None, dir.path())).unwrap());
    assert!(mailer.describe().contains(".eml files"));
    let id = queue(&app, "acme", email("ada@example.com", "Files please")).await;
    let mut sms = email("+358401234567", "");
    sms.channel = Channel::Sms;
    sms.body = "See you at 18:00".into();
    let sms_id = queue(&app, "acme", sms).await;
    assert_eq!(deliver(&app, &mailer).await.delivered, 2);
    let files: Vec<std::path::PathBuf> = std::fs::read_dir(dir.path().join("acme"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    let eml = files
        .iter()
        .find(|p| p.to_string_lossy().ends_with(&format!("{id}.eml")))
        .unwrap();
    let text = std::fs::read_to_string(eml).unwrap();
    assert!(text.contains("Subject: Files please"), "{text}");
    assert!(
        text.contains(&format!("Message-ID: <{id}@kairos>")),
        "{text}"
    );
    let txt = files
        .iter()
        .find(|p| p.to_string_lossy().ends_with(&format!("{sms_id}.txt")))
        .unwrap();
    assert_eq!(
        std::fs::read_to_string(txt).unwrap(),
        "To: +358401234567\n\nSee you at 18:00\n"
    );
}

#[tokio::test]
async fn a_worker_whose_lease_ran_out_records_nothing() {
    let app = TestApp::spawn().await;
    app.tenant("acme").await;
    let id = queue(&app, "acme", email("ada@example.com", "Lease")).await;
    let tenant = TenantId::parse("acme").unwrap();
    let now = app.clock_now();
    let first = app
        .store
        .claim_deliveries(now, 10, now + Duration::seconds(60))
        .await
        .unwrap();
    assert_eq!(first.len(), 1);
    assert!(
        app.store
            .claim_deliveries(now, 10, now + Duration::seconds(60))
            .await
            .unwrap()
            .is_empty(),
        "hidden while leased"
    );
    // The first worker stalls past its lease; a second takes the message over.
    let later = now + Duration::seconds(61);
    let second = app
        .store
        .claim_deliveries(later, 10, later + Duration::seconds(60))
        .await
        .unwrap();
    assert_eq!((second.len(), second[0].attempt), (1, 2));
    let late = app
        .store
        .record_delivery(
            &tenant,
            id,
            1,
            kairos_store::DeliveryResult::Delivered,
            None,
            later,
        )
        .await
        .unwrap();
    assert_eq!(late, kairos_store::Recorded::Stale);
    let ours = app
        .store
        .record_delivery(
            &tenant,
            id,
            2,
            kairos_store::DeliveryResult::Delivered,
            None,
            later,
        )
        .await
        .unwrap();
    assert_eq!(ours, kairos_store::Recorded::Delivered);
}
