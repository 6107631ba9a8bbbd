//! Bulk sends (spec Part B 4.8 `POST /admin/messaging/bulk`): one message to the customer
//! of every live booking in a local date range, now or scheduled, in batches with visible
//! progress, each booking reached once however many workers run, and cancelable.
#![expect(clippy::unwrap_used, reason = "test helpers fail the test loudly")]

use chrono::{DateTime, Duration, Utc};
use kairos_domain::TenantId;
use kairos_store::{BulkReport, DeliveryResult, MessageFilter};
use kairos_testkit::{BookingFixture, TenantFixture, TestApp, TestResponse};
use serde_json::{Value, json};

pub(crate) const BULK: &str = "/api/v1/admin/messaging/bulk";

pub(crate) async fn setup() -> (TestApp, TenantFixture, BookingFixture) {
    // Some tests book a hundred times and more.
    let app = TestApp::builder()
        .limits(kairos_api::rate_limit::Limits::UNLIMITED)
        .spawn()
        .await;
    let t = app.tenant("acme").await;
    let fx = app.bookable(&t).await;
    (app, t, fx)
}

/// A confirmed booking made by staff for `name` <`email`> starting at `start` (UTC; 10:00
/// Helsinki is 08:00Z in winter).
async fn book(
    app: &TestApp,
    t: &TenantFixture,
    fx: &BookingFixture,
    start: &str,
    name: &str,
    email: &str,
) -> String {
    let res = app
        .post("/api/v1/admin/bookings")
        .tenant(&t.id)
        .token(&t.owner_token)
        .json(json!({
            "siteId": fx.catalog.site_id, "productId": fx.catalog.product_id,
            "startTime": start, "partySize": 1, "autoConfirm": true,
            "customerInfo": {"name": name, "email": email, "phone": "+358 40 765 4321"}
        }))
        .send()
        .await;
    assert_eq!(res.status, 200, "booking at {start}: {}", res.text);
    res.str("bookingId").to_owned()
}

pub(crate) async fn create(app: &TestApp, t: &TenantFixture, body: Value) -> TestResponse {
    app.post(BULK)
        .tenant(&t.id)
        .token(&t.owner_token)
        .json(body)
        .send()
        .await
}

async fn get(app: &TestApp, t: &TenantFixture, id: &str) -> Value {
    let res = app
        .get(&format!("{BULK}/{id}"))
        .tenant(&t.id)
        .token(&t.owner_token)
        .send()
        .await;
    res.assert_status(200);
    res.body
}

async fn run(app: &TestApp, batches: usize) -> BulkReport {
    app.store
        .run_bulk_sends(app.clock_now(), batches)
        .await
        .unwrap()
}

/// The messages of bulk send `id`, oldest first.
async fn messages_of(app: &TestApp, id: &str) -> Vec<kairos_store::Message> {
    let mut all = app
        .store
        .list_messages(
            &TenantId::parse("acme").unwrap(),
            &MessageFilter {
                bulk_id: Some(id.parse().unwrap()),
                limit: 500,
                ..Default::default()
            },
        )
        .await
        .unwrap();
    all.reverse();
    all
}

/// Claims every due message and records it delivered.
async fn deliver_all(app: &TestApp) -> usize {
    let now = app.clock_now();
    let claimed = app
        .store
        .claim_deliveries(now, 500, now + Duration::minutes(5))
        .await
        .unwrap();
    for d in &claimed {
        app.store
            .record_delivery(
                &d.tenant,
                d.id,
                d.attempt,
                DeliveryResult::Delivered,
                None,
                now,
            )
            .await
            .unwrap();
    }
    claimed.len()
}

fn at(s: &str) -> DateTime<Utc> {
    s.parse().unwrap()
}

#[tokio::test]
async fn a_bulk_send_reaches_each_live_booking_of_the_range_once() {
    let (app, t, fx) = setup().await;
    // 2026-11-22 in Helsinki: two confirmed bookings, one cancelled, one hold.
    let ada = book(
        &app,
        &t,
        &fx,
        "2026-11-22T08:00:00Z",
        "Ada Lovelace",
        "ada@example.com",
    )
    .await;
    let bob = book(
        &app,
        &t,
        &fx,
        "2026-11-22T09:00:00Z",
        "Bob Byte",
        "bob@example.com",
    )
    .await;
    let dan = book(
        &app,
        &t,
        &fx,
        "2026-11-22T10:00:00Z",
        "Dan Drop",
        "dan@example.com",
    )
    .await;
    app.post(&format!("/api/v1/bookings/{dan}/cancel"))
        .tenant(&t.id)
        .token(&t.owner_token)
        .send()
        .await
        .assert_status(200);
    app.hold_for(&t.id, &fx.catalog, &fx.slots[3], 1, "hal@example.com")
        .await
        .assert_status(200);
    // The next day is out of the range.
    book(
        &app,
        &t,
        &fx,
        "2026-11-23T08:00:00Z",
        "Carol Cache",
        "carol@example.com",
    )
    .await;

    let res = create(
        &app,
        &t,
        json!({
            "recipientFilter": {"bookingDateFrom": "2026-11-22", "bookingDateTo": "2026-11-22",
                "siteId": fx.catalog.site_id},
            "message": {"channel": "email", "subject": "About {{productName}} today",
                "body": "<p>Hi {{customerName}}, use the north door at {{formatDate bookingDateTime \"h:mm a\"}}.</p>"},
        }),
    )
    .await;
    res.assert_status(202);
    let id = res.str("bulkId").to_owned();
    assert_eq!(
        res.header("location"),
        Some(format!("{BULK}/{id}").as_str())
    );
    assert_eq!(
        res.body["status"], "scheduled",
        "until the worker starts it"
    );
    assert_eq!(res.body["recipientFilter"]["bookingDateFrom"], "2026-11-22");
    assert_eq!(res.body["progress"]["total"], 0);

    let report = run(&app, 20).await;
    assert_eq!(report.started, 1);
    assert_eq!(report.messages, 2, "{report:?}");
    let b = get(&app, &t, &id).await;
    assert_eq!(b["status"], "sending", "{b}");
    assert_eq!(b["progress"]["total"], 2);
    assert_eq!(b["progress"]["processed"], 2);
    assert_eq!(b["progress"]["queued"], 2);
    assert_eq!(b["progress"]["percent"], 0);
    assert!(b["startedAt"].is_string() && b["preparedAt"].is_string());

    let sent = messages_of(&app, &id).await;
    let mut to: Vec<(&str, Option<String>)> = sent
        .iter()
        .map(|m| (m.recipient.as_str(), m.booking_id.map(|b| b.to_string())))
        .collect();
    to.sort();
    assert_eq!(
        to,
        vec![
            ("ada@example.com", Some(ada.clone())),
            ("bob@example.com", Some(bob.clone()))
        ]
    );
    let ada_message = sent
        .iter()
        .find(|m| m.recipient == "ada@example.com")
        .unwrap();
    assert_eq!(ada_message.subject, "About Climbing session today");
    assert!(
        ada_message
            .body
            .contains("Hi Ada Lovelace, use the north door at 10:00 AM."),
        "rendered in the site's zone: {}",
        ada_message.body
    );
    assert_eq!(ada_message.source, "bulk");
    assert_eq!(ada_message.template_key, None);

    // The message list filters by bulk send.
    let list = app
        .get(&format!("/api/v1/admin/messaging/messages?bulkId={id}"))
        .tenant(&t.id)
        .token(&t.owner_token)
        .send()
        .await;
    list.assert_status(200);
    assert_eq!(list.body["messages"].as_array().unwrap().len(), 2);
    assert_eq!(list.body["messages"][0]["bulkId"], id.as_str());

    // Delivered: the next pass completes it; later passes write nothing more.
    assert_eq!(
        deliver_all(&app).await,
        3,
        "the two bulk messages and Dan's cancellation"
    );
    let report = run(&app, 20).await;
    assert_eq!(report.completed, 1);
    assert_eq!(run(&app, 20).await, BulkReport::default());
    let b = get(&app, &t, &id).await;
    assert_eq!(b["status"], "completed");
    assert_eq!(b["progress"]["delivered"], 2);
    assert_eq!(b["progress"]["percent"], 100);
    assert!(b["finishedAt"].is_string());
    assert_eq!(messages_of(&app, &id).await.len(), 2);

    // Listed, newest first, and by status.
    let list = app
        .get(&format!("{BULK}?status=completed"))
        .tenant(&t.id)
        .token(&t.owner_token)
        .send()
        .await;
    list.assert_status(200);
    assert_eq!(list.body["bulkSends"][0]["bulkId"], id.as_str());
    let none = app
        .get(&format!("{BULK}?status=scheduled"))
        .tenant(&t.id)
        .token(&t.owner_token)
        .send()
        .await;
    assert_eq!(none.body["bulkSends"], json!([]));

    // Another tenant sees nothing of it.
    let other = app.tenant("globex").await;
    app.get(&format!("{BULK}/{id}"))
        .tenant(&other.id)
        .token(&other.owner_token)
        .send()
        .await
        .assert_status(404);
}

#[tokio::test]
async fn sms_goes_only_to_customers_who_agreed_and_the_rest_are_counted() {
    let (app, t, fx) = setup().await;
    let res = app
        .post("/api/v1/customers/register")
        .tenant(&t.id)
        .json(json!({
            "email": "grace@example.com", "password": "customer-pass-1", "firstName": "Grace",
            "lastName": "Hopper", "phone": "+358401234567", "termsAccepted": true,
            "privacyPolicyAccepted": true
        }))
        .send()
        .await;
    res.assert_status(201);
    let grace = res.str("customer/id").to_owned();
    app.patch(&format!("/api/v1/admin/customers/{grace}/preferences"))
        .tenant(&t.id)
        .token(&t.owner_token)
        .json(json!({"smsOptIn": true}))
        .send()
        .await
        .assert_status(200);
    book(
        &app,
        &t,
        &fx,
        "2026-11-22T08:00:00Z",
        "Grace Hopper",
        "grace@example.com",
    )
    .await;
    book(
        &app,
        &t,
        &fx,
        "2026-11-22T09:00:00Z",
        "Ada Lovelace",
        "ada@example.com",
    )
    .await;

    let res = create(
        &app,
        &t,
        json!({
            "recipientFilter": {"bookingDateFrom": "2026-11-22", "bookingDateTo": "2026-11-22"},
            "message": {"channel": "sms", "body": "{{siteName}}: doors open 15 min late today."},
        }),
    )
    .await;
    res.assert_status(202);
    let id = res.str("bulkId").to_owned();
    assert_eq!(res.body["subject"], "", "SMS has no subject");
    run(&app, 20).await;
    let b = get(&app, &t, &id).await;
    assert_eq!(b["progress"]["total"], 2);
    assert_eq!(b["progress"]["skipped"], 1);
    assert_eq!(b["progress"]["skipReasons"], json!({"no_sms_opt_in": 1}));
    let sent = messages_of(&app, &id).await;
    assert_eq!(sent.len(), 1);
    assert_eq!(sent[0].recipient, "+358 40 765 4321");
    assert_eq!(sent[0].body, "Main hall: doors open 15 min late today.");
}

#[tokio::test]
async fn a_scheduled_send_waits_for_its_time_and_can_be_canceled() {
    let (app, t, fx) = setup().await;
    book(
        &app,
        &t,
        &fx,
        "2026-11-22T08:00:00Z",
        "Ada Lovelace",
        "ada@example.com",
    )
    .await;
    let body = |send_at: &str| {
        json!({
            "recipientFilter": {"bookingDateFrom": "2026-11-22", "bookingDateTo": "2026-11-30"},
            "message": {"subject": "Tomorrow", "body": "<p>See you, {{customerName}}</p>"},
            "sendAt": send_at,
        })
    };
    let later = (app.clock_now() + Duration::hours(6)).to_rfc3339();
    let res = create(&app, &t, body(&later)).await;
    res.assert_status(202);
    let id = res.str("bulkId").to_owned();
    assert_eq!(res.body["status"], "scheduled");
    // Not before its time.
    assert_eq!(run(&app, 20).await, BulkReport::default());
    assert!(messages_of(&app, &id).await.is_empty());
    let report = app
        .store
        .run_bulk_sends(app.clock_now() + Duration::hours(6), 20)
        .await
        .unwrap();
    assert_eq!((report.started, report.messages), (1, 1));

    // A second scheduled send is canceled before its time: nothing goes.
    let res = create(&app, &t, body(&later)).await;
    let second = res.str("bulkId").to_owned();
    let cancel = app
        .post(&format!("{BULK}/{second}/cancel"))
        .tenant(&t.id)
        .token(&t.owner_token)
        .send()
        .await;
    cancel.assert_status(200);
    assert_eq!(cancel.body["status"], "canceled");
    assert!(cancel.body["finishedAt"].is_string());
    let again = app
        .post(&format!("{BULK}/{second}/cancel"))
        .tenant(&t.id)
        .token(&t.owner_token)
        .send()
        .await;
    again.assert_status(409);
    assert_eq!(again.body["errorCode"], "INVALID_TRANSITION");
    assert_eq!(again.body["statusCode"], 409);
    app.store
        .run_bulk_sends(app.clock_now() + Duration::hours(7), 20)
        .await
        .unwrap();
    assert!(messages_of(&app, &second).await.is_empty());
    app.post(&format!("{BULK}/{}/cancel", uuid::Uuid::new_v4()))
        .tenant(&t.id)
        .token(&t.owner_token)
        .send()
        .await
        .assert_status(404);
}

/// Books `count` single seats from 2026-11-22 on, four slots a day (capacity 10 each).
async fn many_bookings(app: &TestApp, t: &TenantFixture, fx: &BookingFixture, count: usize) {
    let first = at("2026-11-22T08:00:00Z");
    for i in 0..count {
        let day = i64::try_from(i / 40).unwrap();
        let hour = i64::try_from(i % 4).unwrap();
        let start = first + Duration::days(day) + Duration::hours(hour);
        book(
            app,
            t,
            fx,
            &start.to_rfc3339(),
            &format!("Guest {i}"),
            &format!("guest{i}@example.com"),
        )
        .await;
    }
}

#[tokio::test]
async fn progress_shows_batch_by_batch_and_two_workers_reach_each_booking_once() {
    let (app, t, fx) = setup().await;
    many_bookings(&app, &t, &fx, 120).await;
    let res = create(
        &app,
        &t,
        json!({
            "recipientFilter": {"bookingDateFrom": "2026-11-22", "bookingDateTo": "2026-11-24"},
            "message": {"subject": "Parking", "body": "<p>Hi {{customerName}}</p>"},
        }),
    )
    .await;
    res.assert_status(202);
    let id = res.str("bulkId").to_owned();
    // One batch (100 bookings) per pass: progress is visible between them.
    let report = run(&app, 1).await;
    assert_eq!(report.messages, 100);
    let b = get(&app, &t, &id).await;
    assert_eq!(b["status"], "sending");
    assert_eq!(b["progress"]["total"], 120);
    assert_eq!(b["progress"]["processed"], 100);
    assert!(b["preparedAt"].is_null());
    // Two workers go on from the cursor at once: each booking still gets one message.
    let (a, b2) = tokio::join!(run(&app, 5), run(&app, 5));
    assert_eq!(a.messages + b2.messages, 20, "{a:?} {b2:?}");
    let sent = messages_of(&app, &id).await;
    assert_eq!(sent.len(), 120);
    let mut bookings: Vec<_> = sent.iter().map(|m| m.booking_id.unwrap()).collect();
    bookings.sort();
    bookings.dedup();
    assert_eq!(bookings.len(), 120, "one message per booking");
    let b = get(&app, &t, &id).await;
    assert_eq!(b["progress"]["processed"], 120);
    assert_eq!(b["progress"]["total"], 120);
    assert!(b["preparedAt"].is_string());
}

#[tokio::test]
async fn canceling_a_sending_send_stops_what_no_sender_has_picked_up() {
    let (app, t, fx) = setup().await;
    many_bookings(&app, &t, &fx, 110).await;
    let res = create(
        &app,
        &t,
        json!({
            "recipientFilter": {"bookingDateFrom": "2026-11-22", "bookingDateTo": "2026-11-24"},
            "message": {"subject": "Parking", "body": "<p>Hi {{customerName}}</p>"},
        }),
    )
    .await;
    let id = res.str("bulkId").to_owned();
    run(&app, 1).await;
    // A sender picks up one message; then staff cancel.
    let now = app.clock_now();
    let claimed = app
        .store
        .claim_deliveries(now, 1, now + Duration::minutes(5))
        .await
        .unwrap();
    assert_eq!(claimed.len(), 1);
    let cancel = app
        .post(&format!("{BULK}/{id}/cancel"))
        .tenant(&t.id)
        .token(&t.owner_token)
        .send()
        .await;
    cancel.assert_status(200);
    assert_eq!(cancel.body["status"], "canceled");
    assert_eq!(cancel.body["progress"]["canceled"], 99);
    assert_eq!(cancel.body["progress"]["queued"], 1);
    // No more batches, and the canceled messages are never sent.
    assert_eq!(run(&app, 20).await, BulkReport::default());
    assert_eq!(messages_of(&app, &id).await.len(), 100);
    assert_eq!(deliver_all(&app).await, 0);
    // The one being sent completes.
    let d = &claimed[0];
    app.store
        .record_delivery(
            &d.tenant,
            d.id,
            d.attempt,
            DeliveryResult::Delivered,
            None,
            now,
        )
        .await
        .unwrap();
    let b = get(&app, &t, &id).await;
    assert_eq!(b["status"], "canceled");
    assert_eq!(b["progress"]["delivered"], 1);
    assert_eq!(b["progress"]["canceled"], 99);
}
