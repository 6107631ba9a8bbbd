//! Tracked emails: opens and clicks are recorded, and the click redirect goes only to the
//! message's own links.

use super::{deliver, get, settings};
use kairos_server::delivery::Mailer;
use kairos_testkit::TestApp;
use kairos_testkit::smtp::SmtpSink;
use serde_json::Value;
use std::sync::Arc;
use uuid::Uuid;

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
