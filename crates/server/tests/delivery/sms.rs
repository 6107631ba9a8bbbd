//! SMS delivery through the HTTP provider, its retries, and the checks on the sender and
//! SMS settings.

use super::{deliver, email, queue, settings};
use chrono::Duration;
use kairos_domain::messaging::Channel;
use kairos_server::delivery::Mailer;
use kairos_testkit::TestApp;
use serde_json::Value;
use std::sync::Arc;

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
