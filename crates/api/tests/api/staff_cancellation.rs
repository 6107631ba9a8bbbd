//! Staff cancellation (spec Part B 4.8): the reason and the named policy decide the
//! refund, to the minute; the preview answers what the cancellation then does; the
//! override needs its permission and a reason; a retry with the same key answers the
//! first answer.

use chrono::{DateTime, Duration, Utc};
use kairos_domain::auth::Role;
use kairos_testkit::{BookingFixture, TenantFixture, TestApp, TestResponse, slot_ids};
use serde_json::{Value, json};

/// A tenant with a bookable product and the sandbox card provider, and a booking for 2
/// (40.00) paid by card on a slot of 25 November (96 h after the test clock's start):
/// (app, tenant, booking id, slot id, the slot's start).
pub(crate) async fn paid_booking() -> (TestApp, TenantFixture, String, String, DateTime<Utc>) {
    let (app, t, _, id, slot, starts) = paid_booking_in().await;
    (app, t, id, slot, starts)
}

/// The same, with the fixture the booking is in.
pub(crate) async fn paid_booking_in() -> (
    TestApp,
    TenantFixture,
    BookingFixture,
    String,
    String,
    DateTime<Utc>,
) {
    // Signing in again after every move of the clock goes past the login's rate limit.
    let app = TestApp::builder()
        .limits(kairos_api::rate_limit::Limits::UNLIMITED)
        .spawn()
        .await;
    let t = app.tenant("acme").await;
    let fx: BookingFixture = app.bookable(&t).await;
    app.sandbox_cardpay(&t).await;
    let later = app
        .availability(&t.id, &fx.catalog, "2026-11-25", "2026-11-25", 1)
        .await;
    let slot = slot_ids(&later.body)[0].clone();
    let starts: DateTime<Utc> = later.body["slots"]
        .as_array()
        .and_then(|s| s.iter().find(|s| s["slotId"] == slot.as_str()))
        .and_then(|s| s["startsAt"].as_str())
        .and_then(|s| DateTime::parse_from_rfc3339(s).ok())
        .map(|d| d.with_timezone(&Utc))
        .unwrap_or_else(|| panic!("no start time: {}", later.text));
    let hold = super::payments_cancellation::card_paid(&app, &t, &fx, &slot).await;
    let id = hold.str("id").to_owned();
    (app, t, fx, id, slot, starts)
}

async fn booking(app: &TestApp, t: &TenantFixture, id: &str) -> Value {
    let token = owner(app, t).await;
    app.get(&format!("/api/v1/admin/bookings/{id}"))
        .tenant(&t.id)
        .token(&token)
        .send()
        .await
        .body
}

/// The owner's token, signed in now: the tests move the clock by days, past a token's hour.
async fn owner(app: &TestApp, t: &TenantFixture) -> String {
    app.admin_token(&t.id, &t.owner_username, &t.owner_password)
        .await
}

async fn preview(app: &TestApp, t: &TenantFixture, id: &str, body: Value) -> TestResponse {
    let token = owner(app, t).await;
    app.post(&format!("/api/v1/admin/bookings/{id}/cancel/preview"))
        .tenant(&t.id)
        .token(&token)
        .json(body)
        .send()
        .await
}

fn cancel_as<'a>(
    app: &'a TestApp,
    t: &TenantFixture,
    token: &str,
    id: &str,
    body: Value,
) -> kairos_testkit::TestRequest<'a> {
    app.post(&format!("/api/v1/admin/bookings/{id}/cancel"))
        .tenant(&t.id)
        .token(token)
        .json(body)
}

#[tokio::test]
async fn each_policy_keeps_its_fee_to_the_minute_and_the_cancel_does_what_the_preview_said() {
    let (app, t, id, _, starts) = paid_booking().await;
    let minutes = Duration::minutes;
    // (reason, policy, minutes before the start, fee kept of 4000)
    let cases = [
        ("customer_request", "standard", 48 * 60 + 1, 0),
        ("customer_request", "standard", 48 * 60, 2000),
        ("customer_request", "standard", 24 * 60, 2000),
        ("customer_request", "standard", 24 * 60 - 1, 4000),
        ("customer_request", "flexible", 24 * 60 + 1, 0),
        ("customer_request", "flexible", 24 * 60, 2000),
        ("customer_request", "flexible", 10, 2000),
        ("customer_request", "strict", 72 * 60 + 1, 200),
        ("customer_request", "strict", 72 * 60, 4000),
        ("weather", "strict", 72 * 60, 4000),
        ("customer_no_show", "flexible", 48 * 60, 4000),
    ];
    for (reason, policy, before, fee) in cases {
        app.clock.set(starts - minutes(before));
        let res = preview(
            &app,
            &t,
            &id,
            json!({"reason": reason, "refundPolicy": policy}),
        )
        .await;
        res.assert_status(200);
        assert_eq!(
            res.body["cancellationFee"], fee,
            "{reason} {policy} {before} min: {}",
            res.text
        );
        assert_eq!(res.body["paidAmount"], 4000);
        assert_eq!(res.body["refundAmount"], 4000 - fee);
        assert_eq!(res.body["minutesBeforeStart"], before);
    }
    // Without a named policy: the venue's reasons refund in full, a customer's request
    // takes the site's (standard) schedule, a no-show nothing.
    app.clock.set(starts - minutes(30 * 60));
    for (reason, fee) in [
        ("weather", 0),
        ("equipment_failure", 0),
        ("capacity_issue", 0),
        ("admin_initiated", 0),
        ("duplicate", 0),
        ("customer_request", 2000),
        ("customer_no_show", 4000),
    ] {
        let res = preview(&app, &t, &id, json!({"reason": reason})).await;
        assert_eq!(res.body["cancellationFee"], fee, "{reason}: {}", res.text);
    }
    // The preview changed nothing.
    let b = booking(&app, &t, &id).await;
    assert_eq!(b["status"], "paid");
    assert_eq!(b["payments"][0]["status"], "COMPLETED");

    // The cancellation does what the preview said.
    let body = json!({"reason": "customer_request", "refundPolicy": "standard",
        "cancellationNotes": "called the desk"});
    let said = preview(&app, &t, &id, body.clone()).await;
    let token = owner(&app, &t).await;
    let res = cancel_as(&app, &t, &token, &id, body).send().await;
    res.assert_status(200);
    assert_eq!(res.body["bookingId"], id.as_str());
    assert_eq!(res.body["status"], "canceled");
    assert_eq!(res.body["cancellationFee"], said.body["cancellationFee"]);
    assert_eq!(res.body["refundAmount"], said.body["refundAmount"]);
    assert_eq!(res.body["refundAmount"], 2000, "{}", res.text);
    assert!(res.body["refundRequestId"].is_string());
    assert_eq!(
        res.body["refund"]["refund_breakdown"][0]["refund_amount"],
        2000
    );
    assert!(res.body["cancelledBy"]["id"].is_string());
    assert!(res.body["cancelledAt"].is_string());
    assert_eq!(res.body["warnings"], json!([]));
    let b = booking(&app, &t, &id).await;
    assert_eq!(b["status"], "canceled");
    assert_eq!(
        b["payments"][0]["status"], "COMPLETED",
        "half refunded: {b}"
    );
    // A cancelled booking is not cancelled again.
    let again = cancel_as(&app, &t, &token, &id, json!({"reason": "weather"}))
        .send()
        .await;
    again.assert_status(409);
    assert_eq!(again.body["error"], "INVALID_TRANSITION", "{}", again.text);
    app.assert_capacity_invariant(&t.id).await;
}

#[tokio::test]
async fn overriding_the_policy_needs_its_permission_and_a_documented_reason() {
    let (app, t, id, _, starts) = paid_booking().await;
    app.clock.set(starts - Duration::hours(2));
    app.staff(&t.id, "desk", "desk-pass-123", &[Role::FrontDesk])
        .await;
    let owner_token = owner(&app, &t).await;
    let desk = app.admin_token(&t.id, "desk", "desk-pass-123").await;
    let body = json!({"reason": "customer_no_show", "overridePolicy": true,
        "cancellationNotes": "arrived late; manager agreed"});
    let refused = cancel_as(&app, &t, &desk, &id, body.clone()).send().await;
    refused.assert_status(403);
    assert_eq!(
        refused.body["error"], "INSUFFICIENT_PERMISSIONS",
        "{}",
        refused.text
    );
    // The desk may cancel by the policy: a no-show keeps everything.
    let by_policy = preview(&app, &t, &id, json!({"reason": "customer_no_show"})).await;
    assert_eq!(by_policy.body["refundAmount"], 0);
    // The override without a reason is refused.
    let unexplained = cancel_as(
        &app,
        &t,
        &owner_token,
        &id,
        json!({"reason": "customer_no_show", "overridePolicy": true}),
    )
    .send()
    .await;
    unexplained.assert_status(400);
    assert_eq!(
        unexplained.body["error"], "VALIDATION_ERROR",
        "{}",
        unexplained.text
    );
    assert_eq!(booking(&app, &t, &id).await["status"], "paid");
    let res = cancel_as(&app, &t, &owner_token, &id, body).send().await;
    res.assert_status(200);
    assert_eq!(res.body["cancellationFee"], 0, "{}", res.text);
    assert_eq!(res.body["refundAmount"], 4000);
    let b = booking(&app, &t, &id).await;
    assert_eq!(b["payments"][0]["status"], "REFUNDED");
}

#[tokio::test]
async fn bad_bodies_are_refused_and_change_nothing() {
    let (app, t, id, slot, _) = paid_booking().await;
    let other_slot = uuid::Uuid::new_v4().to_string();
    for (body, field) in [
        (json!({}), "reason"),
        (json!({"reason": "bored"}), "reason"),
        (json!({"reason": "reduced_party_size"}), "newPartySize"),
        (
            json!({"reason": "reduced_party_size", "newPartySize": 2}),
            "newPartySize",
        ),
        (
            json!({"reason": "weather", "newPartySize": 1}),
            "newPartySize",
        ),
        (
            json!({"reason": "weather", "refundPolicy": "lenient"}),
            "refundPolicy",
        ),
        (
            json!({"reason": "weather", "cancellationNotes": "a\u{0}b"}),
            "cancellationNotes",
        ),
        (
            json!({"reason": "weather", "cancelAll": false}),
            "slotsToCancel",
        ),
        (
            json!({"reason": "weather", "slotsToCancel": [other_slot]}),
            "slotsToCancel",
        ),
        (
            json!({"reason": "weather", "slotsToCanel": [slot], "slotsToCancel": []}),
            "slotsToCancel",
        ),
    ] {
        let res = cancel_as(&app, &t, &t.owner_token, &id, body.clone())
            .send()
            .await;
        res.assert_status(400);
        assert_eq!(res.body["error"], "VALIDATION_ERROR");
        assert!(
            res.text.contains(field),
            "{body} should name {field}: {}",
            res.text
        );
    }
    assert_eq!(booking(&app, &t, &id).await["status"], "paid");
    let missing = cancel_as(
        &app,
        &t,
        &t.owner_token,
        &uuid::Uuid::new_v4().to_string(),
        json!({"reason": "weather"}),
    )
    .send()
    .await;
    missing.assert_status(404);
    assert_eq!(missing.body["error"], "BOOKING_NOT_FOUND");
    // The spec's spelling names the booking's slot.
    let res = cancel_as(
        &app,
        &t,
        &t.owner_token,
        &id,
        json!({"reason": "weather", "cancelAll": false, "slotsToCanel": [slot]}),
    )
    .send()
    .await;
    res.assert_status(200);
    assert_eq!(res.body["refundAmount"], 4000, "{}", res.text);
}

#[tokio::test]
async fn the_same_cancellation_sent_again_answers_the_first_answer() {
    let (app, t, id, _, _) = paid_booking().await;
    let body = json!({"reason": "equipment_failure", "notifyCustomer": false});
    let first = cancel_as(&app, &t, &t.owner_token, &id, body.clone())
        .header("idempotency-key", "cancel-once")
        .send()
        .await;
    first.assert_status(200);
    assert_eq!(first.body["refundAmount"], 4000, "{}", first.text);
    assert_eq!(
        first.body["warnings"],
        json!(["the customer was not told (notifyCustomer false)"])
    );
    let again = cancel_as(&app, &t, &t.owner_token, &id, body)
        .header("idempotency-key", "cancel-once")
        .send()
        .await;
    again.assert_status(200);
    assert_eq!(again.body, first.body);
    assert_eq!(again.header("idempotent-replayed"), Some("true"));
    let b = booking(&app, &t, &id).await;
    assert_eq!(b["payments"][0]["status"], "REFUNDED");
    assert_eq!(b["payments"][0]["refundedAmount"], 4000, "{b}");
    // Not told: no cancellation message.
    let messages = app
        .get(&format!("/api/v1/admin/messaging/messages?bookingId={id}"))
        .tenant(&t.id)
        .token(&t.owner_token)
        .send()
        .await;
    messages.assert_status(200);
    assert!(
        !messages.text.contains("\"cancellation\""),
        "{}",
        messages.text
    );
}
