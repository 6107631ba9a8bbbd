//! Signing links with the confirmation and the waiver reminders (spec Part B 4.8: 7, 2
//! and 1 days before and on the day, while unsigned) under a controlled clock.

use super::waivers::{sign, signer, venue};
use chrono::{DateTime, Utc};
use kairos_domain::TenantId;
use kairos_testkit::TestApp;
use serde_json::json;

fn at(s: &str) -> DateTime<Utc> {
    s.parse().unwrap_or_else(|e| panic!("{e}"))
}

async fn messages(app: &TestApp, key: &str) -> Vec<kairos_store::Message> {
    let mut all = app
        .store
        .list_messages(
            &TenantId::parse("acme").unwrap_or_else(|e| panic!("{e}")),
            &kairos_store::MessageFilter {
                limit: 500,
                ..Default::default()
            },
        )
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    all.retain(|m| m.template_key.as_deref() == Some(key));
    all
}

async fn run(app: &TestApp) {
    app.store
        .run_automation(app.clock_now())
        .await
        .unwrap_or_else(|e| panic!("{e}"));
}

#[tokio::test]
async fn reminders_come_7_and_2_days_before_while_unsigned_and_stop_once_signed() {
    let (app, t, fx, _) = venue().await;
    let res = app
        .post("/api/v1/admin/bookings")
        .tenant(&t.id)
        .token(&t.owner_token)
        .json(json!({
            "siteId": fx.catalog.site_id, "productId": fx.catalog.product_id,
            "startTime": "2026-12-01T08:00:00Z", "partySize": 2, "autoConfirm": true,
            "customerInfo": {"name": "Grace Hopper", "email": "grace@example.com"},
            "participants": [{"firstName": "Ada", "lastName": "L"}]
        }))
        .send()
        .await;
    res.assert_status(200);
    let b = res.str("bookingId").to_owned();
    let link = format!("/book/{}/waivers/{b}", t.id);

    run(&app).await;
    let confirmation = messages(&app, "booking_confirmation").await;
    assert_eq!(confirmation.len(), 1);
    assert!(
        confirmation[0].body.contains(&link),
        "the signing link goes with the confirmation: {}",
        confirmation[0].body
    );

    // Day-based reminders go out at 08:00 on the site's day (06:00Z in Helsinki's winter).
    // A minute before, 7 days before: nothing; at it: one reminder with the link.
    app.clock.set(at("2026-11-24T05:59:00Z"));
    run(&app).await;
    assert!(messages(&app, "waiver_reminder").await.is_empty());
    app.clock.set(at("2026-11-24T06:00:00Z"));
    run(&app).await;
    let reminders = messages(&app, "waiver_reminder").await;
    assert_eq!(reminders.len(), 1);
    assert!(reminders[0].body.contains(&link));
    assert_eq!(reminders[0].recipient, "grace@example.com");
    // Staff see that it went out.
    let token = app
        .admin_token(&t.id, &t.owner_username, &t.owner_password)
        .await;
    let view = app
        .get(&format!("/api/v1/admin/waivers/booking/{b}"))
        .tenant(&t.id)
        .token(&token)
        .send()
        .await;
    assert_eq!(
        view.body["requiredWaivers"][0]["reminderSent"], "2026-11-24T06:00:00Z",
        "{}",
        view.text
    );

    // Ada signs; the unnamed second person has not: 2 days before, another reminder.
    let ada = super::waivers::first_participant(&app, &t, &b).await;
    sign(&app, &t, &b, &ada, signer()).await.assert_status(200);
    app.clock.set(at("2026-11-29T06:00:00Z"));
    run(&app).await;
    assert_eq!(messages(&app, "waiver_reminder").await.len(), 2);

    // Everyone signed: the 1-day and same-day reminders are not sent.
    let token = app
        .admin_token(&t.id, &t.owner_username, &t.owner_password)
        .await;
    let added = app
        .post(&format!("/api/v1/bookings/{b}/participants"))
        .tenant(&t.id)
        .token(&token)
        .json(json!({"firstName": "Bo", "lastName": "K"}))
        .send()
        .await;
    added.assert_status(201);
    sign(&app, &t, &b, added.str("id"), signer())
        .await
        .assert_status(200);
    app.clock.set(at("2026-11-30T06:00:00Z"));
    run(&app).await;
    app.clock.set(at("2026-12-01T06:30:00Z"));
    run(&app).await;
    assert_eq!(messages(&app, "waiver_reminder").await.len(), 2);
}

#[tokio::test]
async fn a_product_without_waivers_gets_no_link_and_no_reminder() {
    let (app, t, fx, _) = venue().await;
    super::waivers::product(
        &app,
        &t,
        &fx.catalog.product_id,
        json!({"requiresWaiver": false}),
    )
    .await;
    let res = app
        .post("/api/v1/admin/bookings")
        .tenant(&t.id)
        .token(&t.owner_token)
        .json(json!({
            "siteId": fx.catalog.site_id, "productId": fx.catalog.product_id,
            "startTime": "2026-12-01T08:00:00Z", "partySize": 2, "autoConfirm": true,
            "customerInfo": {"name": "Grace Hopper", "email": "grace@example.com"}
        }))
        .send()
        .await;
    res.assert_status(200);
    run(&app).await;
    let confirmation = messages(&app, "booking_confirmation").await;
    assert!(
        !confirmation[0].body.contains("/waivers/"),
        "{}",
        confirmation[0].body
    );
    app.clock.set(at("2026-11-24T08:00:00Z"));
    run(&app).await;
    assert!(messages(&app, "waiver_reminder").await.is_empty());
}
