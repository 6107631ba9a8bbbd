//! Message delivery (spec Part B 4.8, 4.11): real SMTP to a sink the test starts, an HTTP
//! SMS provider, message files, retries with backoff, the dead-letter queue and retrying
//! from it, and two workers sending each message once.
#![expect(clippy::unwrap_used, reason = "test helpers fail the test loudly")]

use chrono::Duration;
use kairos_domain::TenantId;
use kairos_domain::messaging::{Channel, Priority};
use kairos_server::delivery::{DeliverySettings, Mailer, Round, deliver_due};
use kairos_store::NewMessage;
use kairos_testkit::smtp::{Mode, SmtpSink};
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
async fn a_refusing_sink_dead_letters_after_the_last_attempt_and_retry_delivers() {
    let app = TestApp::spawn().await;
    let t = app.tenant("acme").await;
    let sink = SmtpSink::start().await;
    sink.set_mode(Mode::TempFail);
    let dir = tempfile::tempdir().unwrap();
    let mailer = Arc::new(Mailer::new(&settings(Some(sink.url()), dir.path())).unwrap());
    let booking = Uuid::now_v7();
    let mut m = email("ada@example.com", "Reminder");
    m.booking_id = Some(booking);
    let id = queue(&app, "acme", m).await;

    // Attempt 1 fails; attempt 2 waits 10 s, attempt 3 another 20 s.
    assert_eq!(deliver(&app, &mailer).await.retrying, 1);
    assert_eq!(
        deliver(&app, &mailer).await,
        Round::default(),
        "backing off"
    );
    app.clock.advance(Duration::seconds(9));
    assert_eq!(
        deliver(&app, &mailer).await,
        Round::default(),
        "still backing off"
    );
    app.clock.advance(Duration::seconds(1));
    assert_eq!(deliver(&app, &mailer).await.retrying, 1);
    app.clock.advance(Duration::seconds(19));
    assert_eq!(deliver(&app, &mailer).await, Round::default());
    app.clock.advance(Duration::seconds(1));
    assert_eq!(deliver(&app, &mailer).await.dead_lettered, 1);
    assert!(sink.received().is_empty());

    let list = get(&app, &t, "/api/v1/admin/messaging/messages?status=failed").await;
    let msg = &list["messages"][0];
    assert_eq!(msg["id"], id.to_string());
    assert_eq!(msg["status"], "failed");
    assert_eq!(msg["attempts"], 3);
    assert!(
        msg["lastError"]
            .as_str()
            .unwrap()
            .starts_with("smtp_deferred")
    );

    let dlq = get(
        &app,
        &t,
        "/api/v1/admin/dead-letters?type=notification&status=open",
    )
    .await;
    assert_eq!(dlq["total"], 1);
    let letter = &dlq["deadLetters"][0];
    assert_eq!(letter["type"], "notification");
    assert_eq!(letter["kind"], "email");
    assert_eq!(letter["errorType"], "smtp_deferred");
    assert_eq!(letter["retryCount"], 3);
    assert_eq!(letter["bookingId"], booking.to_string());
    assert_eq!(letter["messageId"], id.to_string());
    assert!(letter["failedAt"].is_string());
    let by_booking = get(
        &app,
        &t,
        &format!("/api/v1/admin/dead-letters?bookingId={booking}"),
    )
    .await;
    assert_eq!(by_booking["total"], 1);
    let letter_id = letter["id"].as_str().unwrap().to_owned();

    // The sink accepts again; retry from the queue delivers once.
    sink.set_mode(Mode::Accept);
    let retry = app
        .post(&format!("/api/v1/admin/dead-letters/{letter_id}/retry"))
        .tenant("acme")
        .token(&t.owner_token)
        .send()
        .await;
    retry.assert_status(200);
    assert_eq!(retry.body["status"], "retrying");
    // A second retry while it is in flight is refused.
    let again = app
        .post(&format!("/api/v1/admin/dead-letters/{letter_id}/retry"))
        .tenant("acme")
        .token(&t.owner_token)
        .send()
        .await;
    again.assert_status(409);
    assert_eq!(again.body["errorCode"], "INVALID_TRANSITION");
    assert_eq!(deliver(&app, &mailer).await.delivered, 1);
    assert_eq!(
        sink.wait_for(1, std::time::Duration::from_secs(5))
            .await
            .len(),
        1
    );
    let letter = get(&app, &t, &format!("/api/v1/admin/dead-letters/{letter_id}")).await;
    assert_eq!(letter["status"], "resolved");
    assert_eq!(letter["resolution"], "delivered on retry");
    let status = get(&app, &t, &format!("/api/v1/admin/messaging/{id}/status")).await;
    assert_eq!(status["status"], "delivered");
    assert_eq!(deliver(&app, &mailer).await, Round::default());
    assert_eq!(sink.received().len(), 1);
}

#[tokio::test]
async fn a_permanent_refusal_dead_letters_at_once_and_can_be_skipped() {
    let app = TestApp::spawn().await;
    let t = app.tenant("acme").await;
    let sink = SmtpSink::start().await;
    sink.set_mode(Mode::Reject);
    let dir = tempfile::tempdir().unwrap();
    let mailer = Arc::new(Mailer::new(&settings(Some(sink.url()), dir.path())).unwrap());
    let id = queue(&app, "acme", email("nobody@example.com", "Hello")).await;
    let bad = queue(&app, "acme", email("not an address", "Hello")).await;
    assert_eq!(deliver(&app, &mailer).await.dead_lettered, 2);

    let dlq = get(&app, &t, "/api/v1/admin/dead-letters").await;
    assert_eq!(dlq["total"], 2);
    let types: Vec<&str> = dlq["deadLetters"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["errorType"].as_str().unwrap())
        .collect();
    assert!(
        types.contains(&"smtp_rejected") && types.contains(&"invalid_address"),
        "{types:?}"
    );
    let letter = dlq["deadLetters"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["messageId"] == id.to_string())
        .unwrap();
    assert_eq!(letter["retryCount"], 1);
    let letter_id = letter["id"].as_str().unwrap();

    // Skipping needs a reason.
    let no_reason = app
        .post(&format!("/api/v1/admin/dead-letters/{letter_id}/skip"))
        .tenant("acme")
        .token(&t.owner_token)
        .json(serde_json::json!({}))
        .send()
        .await;
    no_reason.assert_status(400);
    assert_eq!(no_reason.body["errors"][0]["field"], "reason");
    let skip = app
        .post(&format!("/api/v1/admin/dead-letters/{letter_id}/skip"))
        .tenant("acme")
        .token(&t.owner_token)
        .json(serde_json::json!({"reason": "the customer phoned instead"}))
        .send()
        .await;
    skip.assert_status(200);
    assert_eq!(skip.body["status"], "skipped");
    assert_eq!(skip.body["resolution"], "the customer phoned instead");
    assert!(
        skip.body["resolvedBy"]
            .as_str()
            .unwrap()
            .starts_with("owner")
    );
    let msg = get(&app, &t, &format!("/api/v1/admin/messaging/{id}/status")).await;
    assert_eq!(msg["status"], "canceled");
    let retry = app
        .post(&format!("/api/v1/admin/dead-letters/{letter_id}/retry"))
        .tenant("acme")
        .token(&t.owner_token)
        .send()
        .await;
    retry.assert_status(409);

    // The other is resolved by hand.
    let other = dlq["deadLetters"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["messageId"] == bad.to_string())
        .unwrap();
    let resolve = app
        .post(&format!(
            "/api/v1/admin/dead-letters/{}/resolve",
            other["id"].as_str().unwrap()
        ))
        .tenant("acme")
        .token(&t.owner_token)
        .json(serde_json::json!({"note": "address corrected on the booking"}))
        .send()
        .await;
    resolve.assert_status(200);
    assert_eq!(resolve.body["status"], "resolved");
    let open = get(&app, &t, "/api/v1/admin/dead-letters?status=open").await;
    assert_eq!(open["total"], 0);
    let figures = get(&app, &t, "/api/v1/admin/messaging/analytics").await;
    assert_eq!(figures["emailMetrics"]["bounced"], 2, "{figures}");
    assert_eq!(figures["emailMetrics"]["delivered"], 0);
    assert_eq!(figures["emailMetrics"]["openRate"], 0.0);

    // Another tenant sees none of it.
    let other_tenant = app.tenant("other").await;
    let foreign = app
        .get(&format!("/api/v1/admin/dead-letters/{letter_id}"))
        .tenant("other")
        .token(&other_tenant.owner_token)
        .send()
        .await;
    foreign.assert_status(404);
    assert_eq!(foreign.body["statusCode"], 404);
    let foreign_msg = app
        .get(&format!("/api/v1/admin/messaging/{id}/status"))
        .tenant("other")
        .token(&other_tenant.owner_token)
        .send()
        .await;
    foreign_msg.assert_status(404);
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

/// What the SMS provider saw of each request: Authorization, Idempotency-Key, body.
type Seen = Arc<std::sync::Mutex<Vec<(Option<String>, Option<String>, Value)>>>;

/// An SMS provider for the test: records requests, answers with the status it is told.
async fn sms_provider(status: Arc<std::sync::atomic::AtomicU16>, seen: Seen) -> String {
    use axum::http::{HeaderMap, StatusCode};
    let app = axum::Router::new().route(
        "/v1/sms",
        axum::routing::post(
            move |headers: HeaderMap, axum::Json(body): axum::Json<Value>| {
                let status = status.clone();
                let seen = seen.clone();
                async move {
                    let h = |n: &str| {
                        headers
                            .get(n)
                            .and_then(|v| v.to_str().ok())
                            .map(str::to_owned)
                    };
                    seen.lock()
                        .unwrap()
                        .push((h("authorization"), h("idempotency-key"), body));
                    StatusCode::from_u16(status.load(std::sync::atomic::Ordering::SeqCst)).unwrap()
                }
            },
        ),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    format!("http://{addr}/v1/sms")
}

#[tokio::test]
async fn sms_go_to_the_http_provider_with_retries_on_its_failures() {
    let app = TestApp::spawn().await;
    app.tenant("acme").await;
    let status = Arc::new(std::sync::atomic::AtomicU16::new(503));
    let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
    let url = sms_provider(status.clone(), seen.clone()).await;
    let dir = tempfile::tempdir().unwrap();
    let mut s = settings(None, dir.path());
    s.sms_url = Some(url);
    s.sms_token = Some("sms-secret".into());
    s.sms_from = Some("ACME".into());
    let mailer = Arc::new(Mailer::new(&s).unwrap());
    let mut sms = email("+358401234567", "");
    sms.channel = Channel::Sms;
    sms.body = "Your room is ready".into();
    let id = queue(&app, "acme", sms.clone()).await;

    assert_eq!(deliver(&app, &mailer).await.retrying, 1, "503 is retried");
    status.store(200, std::sync::atomic::Ordering::SeqCst);
    app.clock.advance(Duration::seconds(10));
    assert_eq!(deliver(&app, &mailer).await.delivered, 1);
    let requests = seen.lock().unwrap().clone();
    assert_eq!(requests.len(), 2);
    let (auth, key, body) = &requests[1];
    assert_eq!(auth.as_deref(), Some("Bearer sms-secret"));
    assert_eq!(key.as_deref(), Some(id.to_string().as_str()));
    assert_eq!(body["to"], "+358401234567");
    assert_eq!(body["from"], "ACME");
    assert_eq!(body["body"], "Your room is ready");
    assert_eq!(body["reference"], id.to_string());

    // A 4xx from the provider (a bad number) is not retried.
    status.store(422, std::sync::atomic::Ordering::SeqCst);
    queue(&app, "acme", sms).await;
    assert_eq!(deliver(&app, &mailer).await.dead_lettered, 1);
}

#[test]
fn a_bad_sender_or_half_sms_configuration_is_refused() {
    let dir = std::path::Path::new("/tmp");
    let mut s = settings(None, dir);
    s.mail_from = "not a mailbox".into();
    assert!(Mailer::new(&s).is_err());
    let mut s = settings(None, dir);
    s.sms_url = Some("https://sms.example/v1".into());
    let err = Mailer::new(&s).err().unwrap().to_string();
    assert!(err.contains("KAIROS_SMS_TOKEN"), "{err}");
    let mut s = settings(Some("ftp://nope".into()), dir);
    s.smtp_url = Some("ftp://nope".into());
    assert!(Mailer::new(&s).is_err());
}

/// The text of a quoted-printable body, enough for ASCII bodies.
fn unquote(data: &str) -> String {
    data.replace("=\r\n", "").replace("=3D", "=")
}

#[tokio::test]
async fn tracked_emails_record_opens_and_clicks_and_redirect_only_to_their_links() {
    let app = TestApp::spawn().await;
    let t = app.tenant("acme").await;
    let sink = SmtpSink::start().await;
    let dir = tempfile::tempdir().unwrap();
    let mut s = settings(Some(sink.url()), dir.path());
    s.public_url = Some("https://book.acme.test/".into());
    let mailer = Arc::new(Mailer::new(&s).unwrap());
    // The tenant's own update template carries a link.
    app.post("/api/v1/admin/messaging/templates")
        .tenant("acme")
        .token(&t.owner_token)
        .json(serde_json::json!({
            "templateKey": "booking_update", "subjectTemplate": "Directions",
            "bodyTemplate": "<p>{{message}} <a href=\"https://maps.example.com/?q=acme&z=3\">Map</a></p>",
        }))
        .send()
        .await
        .assert_status(201);
    let fx = app.bookable(&t).await;
    let hold = app.hold("acme", &fx, &fx.slots[0], 2).await;
    let sent = app
        .post("/api/v1/admin/messaging/send")
        .tenant("acme")
        .token(&t.owner_token)
        .json(serde_json::json!({
            "recipientType": "booking", "recipientId": hold.str("id"),
            "templateId": "booking_update", "trackDelivery": true,
            "variables": {"message": "Parking is at the back."},
        }))
        .send()
        .await;
    sent.assert_status(200);
    let id = sent.str("messageId").to_owned();
    assert_eq!(deliver(&app, &mailer).await.delivered, 1);
    let mail = &sink.wait_for(1, std::time::Duration::from_secs(5)).await[0];
    let body = unquote(&mail.data);
    let base = format!("https://book.acme.test/track/acme/{id}");
    assert!(
        body.contains(&format!("<img src=\"{base}/open.gif\"")),
        "{body}"
    );
    assert!(
        body.contains(&format!(
            "href=\"{base}/click?url=https%3A%2F%2Fmaps.example.com%2F%3Fq%3Dacme%26z%3D3\""
        )),
        "{body}"
    );

    let status_path = format!("/api/v1/admin/messaging/{id}/status");
    let status = || get(&app, &t, &status_path);
    assert_eq!(status().await["openedAt"], Value::Null);
    let pixel = app.get(&format!("/track/acme/{id}/open.gif")).send().await;
    pixel.assert_status(200);
    assert_eq!(pixel.header("content-type"), Some("image/gif"));
    let opened = status().await;
    assert!(opened["openedAt"].is_string());
    assert_eq!(opened["clickedAt"], Value::Null);

    // Only the message's own link redirects.
    let elsewhere = app
        .get(&format!(
            "/track/acme/{id}/click?url=https%3A%2F%2Fevil.example%2F"
        ))
        .send()
        .await;
    elsewhere.assert_status(404);
    let click = app
        .get(&format!(
            "/track/acme/{id}/click?url=https%3A%2F%2Fmaps.example.com%2F%3Fq%3Dacme%26z%3D3"
        ))
        .send()
        .await;
    click.assert_status(302);
    assert_eq!(
        click.header("location"),
        Some("https://maps.example.com/?q=acme&z=3")
    );
    let clicked = status().await;
    assert!(clicked["clickedAt"].is_string());
    assert_eq!(
        clicked["openedAt"], opened["openedAt"],
        "the first open counts"
    );

    // The figures of the period.
    let figures = get(&app, &t, "/api/v1/admin/messaging/analytics").await;
    let email = &figures["emailMetrics"];
    assert_eq!(
        (
            email["sent"].as_i64(),
            email["delivered"].as_i64(),
            email["opened"].as_i64()
        ),
        (Some(1), Some(1), Some(1)),
        "{figures}"
    );
    assert_eq!(email["clicked"], 1);
    assert_eq!(email["bounced"], 0);
    assert_eq!(email["openRate"], 1.0);
    assert_eq!(email["clickRate"], 1.0);
    assert_eq!(figures["smsMetrics"]["sent"], 0);
    assert_eq!(figures["topTemplates"][0]["templateKey"], "booking_update");
    assert!(figures["period"]["from"].is_string());
    let bad = app
        .get("/api/v1/admin/messaging/analytics?from=2026-12-01T00:00:00Z&to=2026-11-01T00:00:00Z")
        .tenant("acme")
        .token(&t.owner_token)
        .send()
        .await;
    bad.assert_status(400);
    assert_eq!(bad.error_fields(), ["from"]);

    // Unknown tenants and messages: the same pixel, no redirect.
    let unknown = app
        .get(&format!("/track/nobody/{}/open.gif", Uuid::now_v7()))
        .send()
        .await;
    unknown.assert_status(200);
    let malformed = app.get("/track/acme/null,null/open.gif").send().await;
    malformed.assert_status(404);
    let no_message = app
        .get(&format!(
            "/track/acme/{}/click?url=https%3A%2F%2Fmaps.example.com%2F",
            Uuid::now_v7()
        ))
        .send()
        .await;
    no_message.assert_status(404);
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
