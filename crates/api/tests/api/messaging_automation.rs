//! The automation scheduler (spec Part B 4.8, 6): each rule fires once per booking at its
//! time, not for cancelled bookings, following reschedules, catching up after downtime,
//! and once however many schedulers run.
#![expect(clippy::unwrap_used, reason = "test helpers fail the test loudly")]

use chrono::{DateTime, Utc};
use kairos_domain::TenantId;
use kairos_store::{AutomationReport, MessageFilter};
use kairos_testkit::{BookingFixture, TenantFixture, TestApp, TestResponse};
use serde_json::json;

async fn setup() -> (TestApp, TenantFixture, BookingFixture) {
    let app = TestApp::spawn().await;
    let t = app.tenant("acme").await;
    let fx = app.bookable(&t).await;
    (app, t, fx)
}

fn at(s: &str) -> DateTime<Utc> {
    s.parse().unwrap()
}

/// A confirmed booking made by staff for `email` starting at `start` (UTC, 10:00 Helsinki
/// in winter is 08:00Z).
async fn book(
    app: &TestApp,
    t: &TenantFixture,
    fx: &BookingFixture,
    start: &str,
    email: &str,
) -> String {
    let res: TestResponse = app
        .post("/api/v1/admin/bookings")
        .tenant(&t.id)
        .token(&t.owner_token)
        .json(json!({
            "siteId": fx.catalog.site_id, "productId": fx.catalog.product_id,
            "startTime": start, "partySize": 2, "autoConfirm": true,
            "customerInfo": {"name": "Grace Hopper", "email": email, "phone": "+1 555 0100"}
        }))
        .send()
        .await;
    assert_eq!(
        res.status, 200,
        "booking at {start} for {email}: {}",
        res.text
    );
    res.str("bookingId").to_owned()
}

/// A fresh owner token (the clock may have moved past the last one's expiry).
async fn owner(app: &TestApp) -> String {
    app.admin_token("acme", "owner", "owner-password-1").await
}

async fn run(app: &TestApp) -> AutomationReport {
    app.store.run_automation(app.clock_now()).await.unwrap()
}

/// (template key, recipient, booking id) of every message, oldest first.
async fn sent(app: &TestApp, key: &str) -> Vec<kairos_store::Message> {
    let mut all = app
        .store
        .list_messages(
            &TenantId::parse("acme").unwrap(),
            &MessageFilter {
                limit: 500,
                ..Default::default()
            },
        )
        .await
        .unwrap();
    all.retain(|m| m.template_key.as_deref() == Some(key));
    all.reverse();
    all
}

async fn slot_on(app: &TestApp, t: &TenantFixture, fx: &BookingFixture, date: &str) -> String {
    let res = app.availability(&t.id, &fx.catalog, date, date, 1).await;
    res.assert_status(200);
    kairos_testkit::slot_ids(&res.body)[0].clone()
}

#[tokio::test]
async fn the_reminder_comes_once_at_its_time_and_not_for_a_cancelled_booking() {
    let (app, t, fx) = setup().await;
    let kept = book(&app, &t, &fx, "2026-11-25T08:00:00Z", "grace@example.com").await;
    let cancelled = book(&app, &t, &fx, "2026-11-25T08:00:00Z", "alan@example.com").await;
    let first = run(&app).await;
    assert_eq!(first.messages, 2, "two confirmations: {first:?}");
    assert_eq!(sent(&app, "booking_confirmation").await.len(), 2);
    assert!(sent(&app, "pre_arrival_reminder").await.is_empty());
    app.post(&format!("/api/v1/bookings/{cancelled}/cancel"))
        .tenant("acme")
        .token(&t.owner_token)
        .send()
        .await
        .assert_status(200);

    // A minute before it is due: nothing. At 24 hours before the start: the email (no SMS
    // without opt-in), for the booking that was kept.
    app.clock.set(at("2026-11-24T07:59:00Z"));
    run(&app).await;
    assert!(sent(&app, "pre_arrival_reminder").await.is_empty());
    app.clock.set(at("2026-11-24T08:00:00Z"));
    let due = run(&app).await;
    assert_eq!(due.messages, 1, "{due:?}");
    let reminders = sent(&app, "pre_arrival_reminder").await;
    assert_eq!(reminders.len(), 1);
    let r = &reminders[0];
    assert_eq!(r.booking_id.map(|b| b.to_string()), Some(kept.clone()));
    assert_eq!(r.recipient, "grace@example.com");
    assert_eq!(r.channel.as_str(), "email");
    assert!(
        r.subject.starts_with("See you tomorrow at "),
        "{}",
        r.subject
    );
    assert!(
        r.body.contains("November 25, 2026 at 10:00"),
        "in the site's time zone: {}",
        r.body
    );
    // Again: nothing new.
    assert_eq!(run(&app).await.messages, 0);
    assert_eq!(sent(&app, "pre_arrival_reminder").await.len(), 1);
    assert_eq!(sent(&app, "cancellation").await.len(), 1);
    // No waiver to sign: no waiver reminders.
    app.clock.set(at("2026-11-25T07:00:00Z"));
    run(&app).await;
    assert!(sent(&app, "waiver_reminder").await.is_empty());
}

#[tokio::test]
async fn two_schedulers_fire_each_rule_once() {
    let (app, t, fx) = setup().await;
    for i in 0..6 {
        book(
            &app,
            &t,
            &fx,
            ["2026-11-25T08:00:00Z", "2026-11-25T09:00:00Z"][i % 2],
            &format!("guest{i}@example.com"),
        )
        .await;
    }
    let now = app.clock_now();
    let (a, b) = tokio::join!(app.store.run_automation(now), app.store.run_automation(now));
    let (a, b) = (a.unwrap(), b.unwrap());
    assert_eq!(a.messages + b.messages, 6, "{a:?} {b:?}");
    assert_eq!(sent(&app, "booking_confirmation").await.len(), 6);
    app.clock.set(at("2026-11-24T09:00:00Z"));
    let now = app.clock_now();
    let (a, b) = tokio::join!(app.store.run_automation(now), app.store.run_automation(now));
    assert_eq!(a.unwrap().messages + b.unwrap().messages, 6);
    assert_eq!(sent(&app, "pre_arrival_reminder").await.len(), 6);
}

#[tokio::test]
async fn a_rescheduled_booking_is_reminded_at_its_new_time() {
    let (app, t, fx) = setup().await;
    let id = book(&app, &t, &fx, "2026-11-25T08:00:00Z", "grace@example.com").await;
    run(&app).await;
    let reschedule = |date: &'static str| {
        let (app, t, fx, id) = (&app, &t, &fx, id.clone());
        async move {
            let slot = slot_on(app, t, fx, date).await;
            app.post(&format!("/api/v1/bookings/{id}/reschedule"))
                .tenant("acme")
                .token(&owner(app).await)
                .json(json!({"slotId": slot}))
                .send()
                .await
                .assert_status(200);
        }
    };
    reschedule("2026-11-27").await;
    app.clock.set(at("2026-11-24T08:00:00Z"));
    run(&app).await;
    assert!(
        sent(&app, "pre_arrival_reminder").await.is_empty(),
        "not at the old time"
    );
    app.clock.set(at("2026-11-26T08:00:00Z"));
    run(&app).await;
    assert_eq!(sent(&app, "pre_arrival_reminder").await.len(), 1);
    // Moved again after the reminder: reminded again for the new date.
    reschedule("2026-11-29").await;
    app.clock.set(at("2026-11-28T08:00:00Z"));
    run(&app).await;
    let reminders = sent(&app, "pre_arrival_reminder").await;
    assert_eq!(reminders.len(), 2);
    assert!(
        reminders[1].body.contains("November 29, 2026"),
        "{}",
        reminders[1].body
    );
}

#[tokio::test]
async fn after_downtime_due_messages_are_caught_up_but_not_after_the_start() {
    let (app, t, fx) = setup().await;
    let later = book(&app, &t, &fx, "2026-11-25T08:00:00Z", "grace@example.com").await;
    let sooner = book(&app, &t, &fx, "2026-11-23T08:00:00Z", "alan@example.com").await;
    run(&app).await;
    // The scheduler was down from the 21st to the evening of the 24th: the sooner
    // booking has started (its reminder is dropped), the later one is reminded now.
    app.clock.set(at("2026-11-24T20:00:00Z"));
    let caught = run(&app).await;
    let reminders = sent(&app, "pre_arrival_reminder").await;
    assert_eq!(reminders.len(), 1, "{caught:?}");
    assert_eq!(reminders[0].booking_id.map(|b| b.to_string()), Some(later));
    assert!(
        caught.skipped >= 1,
        "the dropped reminder is recorded: {caught:?}"
    );
    let _ = sooner;
    assert_eq!(run(&app).await, AutomationReport::default());
}

#[tokio::test]
async fn a_rule_switched_off_sends_nothing_and_does_not_catch_up_when_back_on() {
    let (app, t, fx) = setup().await;
    book(&app, &t, &fx, "2026-11-25T08:00:00Z", "grace@example.com").await;
    let rules = app
        .get("/api/v1/admin/messaging/automation-rules?templateKey=pre_arrival_reminder")
        .tenant("acme")
        .token(&t.owner_token)
        .send()
        .await;
    let rule = rules.body["rules"][0]["id"].as_str().unwrap().to_owned();
    let set = |active: bool| {
        let (app, rule) = (&app, rule.clone());
        async move {
            app.put(&format!("/api/v1/admin/messaging/automation-rules/{rule}"))
                .tenant("acme")
                .token(&owner(app).await)
                .json(json!({"isActive": active}))
                .send()
                .await
                .assert_status(200);
        }
    };
    set(false).await;
    app.clock.set(at("2026-11-24T08:30:00Z"));
    run(&app).await;
    assert!(sent(&app, "pre_arrival_reminder").await.is_empty());
    set(true).await;
    run(&app).await;
    assert!(
        sent(&app, "pre_arrival_reminder").await.is_empty(),
        "what came due while off is not sent"
    );
    // The confirmation rule, untouched, did its work.
    assert_eq!(sent(&app, "booking_confirmation").await.len(), 1);
}

/// Registers a customer and returns its id.
async fn customer(app: &TestApp, email: &str) -> String {
    let res = app
        .post("/api/v1/customers/register")
        .tenant("acme")
        .json(json!({
            "email": email, "password": "customer-pass-1", "firstName": "Grace",
            "lastName": "Hopper", "termsAccepted": true, "privacyPolicyAccepted": true
        }))
        .send()
        .await;
    res.assert_status(201);
    res.str("customer/id").to_owned()
}

#[tokio::test]
async fn preferences_are_read_changed_and_checked() {
    let (app, t, _) = setup().await;
    let id = customer(&app, "grace@example.com").await;
    let path = format!("/api/v1/admin/customers/{id}/preferences");
    let got = app
        .get(&path)
        .tenant("acme")
        .token(&t.owner_token)
        .send()
        .await;
    got.assert_status(200);
    assert_eq!(got.body["smsOptIn"], false);
    assert_eq!(got.body["marketingOptIn"], false);
    assert_eq!(got.body["emailNotifications"]["reminders"], true);
    assert_eq!(got.body["smsNotifications"]["arrivalConfirmation"], true);
    assert_eq!(got.body["language"], serde_json::Value::Null);

    let changed = app
        .patch(&path)
        .tenant("acme")
        .token(&t.owner_token)
        .json(json!({
            "emailNotifications": {"reminders": false, "marketing": true},
            "smsNotifications": {"arrivalConfirmation": false},
            "smsOptIn": true, "language": "fi", "timezone": "Europe/Helsinki",
        }))
        .send()
        .await;
    changed.assert_status(200);
    let b = &changed.body;
    assert_eq!(b["customerId"], id.as_str());
    assert_eq!(b["emailNotifications"]["reminders"], false);
    assert_eq!(b["emailNotifications"]["followUp"], true, "untouched");
    assert_eq!(b["emailNotifications"]["marketing"], true);
    assert_eq!(b["marketingOptIn"], true);
    assert_eq!(b["smsOptIn"], true);
    assert_eq!(b["smsNotifications"]["arrivalConfirmation"], false);
    assert_eq!(b["smsNotifications"]["reminders"], true);
    assert_eq!(b["language"], "fi");
    assert_eq!(b["timezone"], "Europe/Helsinki");
    let cleared = app
        .patch(&path)
        .tenant("acme")
        .token(&t.owner_token)
        .json(json!({"language": null, "marketingOptIn": false}))
        .send()
        .await;
    assert_eq!(cleared.body["language"], serde_json::Value::Null);
    assert_eq!(cleared.body["emailNotifications"]["marketing"], false);

    let bad = app
        .patch(&path)
        .tenant("acme")
        .token(&t.owner_token)
        .json(json!({"language": "Finnish!", "timezone": "Mars/Olympus"}))
        .send()
        .await;
    bad.assert_status(400);
    assert_eq!(bad.body["statusCode"], 400);
    assert_eq!(bad.error_fields(), ["language", "timezone"]);
    let unknown = app
        .patch("/api/v1/admin/customers/0190f4c2-7b1e-7a3c-9d2e-5f6a7b8c9d0e/preferences")
        .tenant("acme")
        .token(&t.owner_token)
        .json(json!({"smsOptIn": true}))
        .send()
        .await;
    unknown.assert_status(404);
    assert_eq!(unknown.body["statusCode"], 404);
    let other = app.tenant("other").await;
    let foreign = app
        .get(&path)
        .tenant("other")
        .token(&other.owner_token)
        .send()
        .await;
    foreign.assert_status(404);
}

#[tokio::test]
async fn messages_follow_the_customers_choices() {
    let (app, t, fx) = setup().await;
    let texted = customer(&app, "grace@example.com").await;
    let alan_id = customer(&app, "alan@example.com").await;
    // Grace takes SMS; Alan wants no reminder emails.
    app.patch(&format!("/api/v1/admin/customers/{texted}/preferences"))
        .tenant("acme")
        .token(&t.owner_token)
        .json(json!({"smsOptIn": true}))
        .send()
        .await
        .assert_status(200);
    app.patch(&format!("/api/v1/admin/customers/{alan_id}/preferences"))
        .tenant("acme")
        .token(&t.owner_token)
        .json(json!({"emailNotifications": {"reminders": false}}))
        .send()
        .await
        .assert_status(200);
    book(&app, &t, &fx, "2026-11-25T08:00:00Z", "grace@example.com").await;
    book(&app, &t, &fx, "2026-11-25T08:00:00Z", "alan@example.com").await;
    run(&app).await;
    app.clock.set(at("2026-11-24T08:00:00Z"));
    run(&app).await;
    let reminders = sent(&app, "pre_arrival_reminder").await;
    let got: Vec<(String, String)> = reminders
        .iter()
        .map(|m| (m.channel.as_str().to_owned(), m.recipient.clone()))
        .collect();
    assert_eq!(got.len(), 2, "{got:?}");
    assert!(got.contains(&("email".into(), "grace@example.com".into())));
    assert!(
        got.contains(&("sms".into(), "+1 555 0100".into())),
        "{got:?}"
    );
    let sms = reminders
        .iter()
        .find(|m| m.channel.as_str() == "sms")
        .unwrap();
    assert!(sms.body.contains("25/11/2026 at 10:00"), "{}", sms.body);
    // The arrival SMS on the morning of the day (08:00 Helsinki is 06:00Z), to Grace only.
    app.clock.set(at("2026-11-25T06:00:00Z"));
    run(&app).await;
    let arrival = sent(&app, "arrival_confirmation").await;
    assert_eq!(arrival.len(), 1);
    assert_eq!(arrival[0].channel.as_str(), "sms");
    assert!(
        arrival[0].body.contains("today at 10:00"),
        "{}",
        arrival[0].body
    );
}
