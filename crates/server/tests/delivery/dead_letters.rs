//! Email delivery that fails: retries with backoff, the dead-letter queue, and retrying or
//! skipping a dead letter.

use super::{deliver, email, get, queue, settings};
use chrono::Duration;
use kairos_server::delivery::{Mailer, Round};
use kairos_testkit::TestApp;
use kairos_testkit::smtp::{Mode, SmtpSink};
use std::sync::Arc;
use uuid::Uuid;

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
