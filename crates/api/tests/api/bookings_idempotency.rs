//! Idempotency keys on the booking flow: replayed holds and confirmations, keys in flight,
//! and keys scoped to their caller.

use super::bookings::{available, setup, token};
use serde_json::json;

#[tokio::test]
async fn idempotent_hold_replays_the_first_response() {
    let (app, t, fx) = setup().await;
    let body = json!({"siteId": fx.catalog.site_id, "productId": fx.catalog.product_id,
                      "slotId": fx.slots[0], "partySize": 2});
    let send = |body: serde_json::Value| {
        app.post("/api/v1/bookings/hold")
            .tenant(&t.id)
            .header("Idempotency-Key", "hold-123")
            .json(body)
            .send()
    };
    let first = send(body.clone()).await;
    first.assert_status(200);
    let again = send(body.clone()).await;
    again.assert_status(200);
    assert_eq!(again.body, first.body);
    assert_eq!(again.header("idempotent-replayed"), Some("true"));
    assert_eq!(available(&app, &t.id, &fx, &fx.slots[0]).await, 8);
    let mut other = body.clone();
    other["partySize"] = json!(3);
    send(other)
        .await
        .assert_error(422, "IDEMPOTENCY_KEY_REUSED");
    // A refusal is the request's answer too.
    let bad = json!({"partySize": 1});
    app.post("/api/v1/bookings/hold")
        .tenant(&t.id)
        .header("Idempotency-Key", "bad-1")
        .json(bad.clone())
        .send()
        .await
        .assert_error(400, "VALIDATION_ERROR");
    let res = app
        .post("/api/v1/bookings/hold")
        .tenant(&t.id)
        .header("Idempotency-Key", "bad-1")
        .json(bad)
        .send()
        .await;
    res.assert_error(400, "VALIDATION_ERROR");
    assert_eq!(res.header("idempotent-replayed"), Some("true"));
    // Keys are kept 24 hours, then the same key is new again.
    app.clock.advance(chrono::Duration::hours(25));
    let later = send(body).await;
    later.assert_status(409);
}

#[tokio::test]
async fn idempotent_confirm_has_one_effect() {
    let (app, t, fx) = setup().await;
    let a = app.hold(&t.id, &fx, &fx.slots[0], 2).await;
    let path = format!("/api/v1/bookings/{}/confirm", a.str("id"));
    let body = json!({"pricingHash": a.str("pricingHash"), "paymentMethod": "cardpay"});
    for _ in 0..3 {
        let res = app
            .post(&path)
            .tenant(&t.id)
            .header("x-booking-token", &token(&a))
            .header("Idempotency-Key", "confirm-1")
            .json(body.clone())
            .send()
            .await;
        res.assert_status(200);
        assert_eq!(res.body["status"], "confirmed");
    }
    let detail = app
        .get(&format!("/api/v1/admin/bookings/{}", a.str("id")))
        .tenant(&t.id)
        .token(&t.owner_token)
        .send()
        .await;
    assert_eq!(detail.body["payments"].as_array().map(Vec::len), Some(1));
}

#[tokio::test]
async fn a_key_still_in_flight_is_409_until_its_attempt_is_abandoned() {
    let (app, t, fx) = setup().await;
    let body = json!({"siteId": fx.catalog.site_id, "productId": fx.catalog.product_id,
                      "slotId": fx.slots[0], "partySize": 2});
    let hash =
        kairos_api::idempotency::request_hash("anonymous", "POST", "/api/v1/bookings/hold", &body);
    let tenant = kairos_domain::TenantId::parse(&t.id).unwrap_or_else(|e| panic!("{e}"));
    // Another request holds the key and has not finished.
    let claim = app
        .store
        .claim_idempotency_key(&tenant, "k-1", &hash, app.clock_now())
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(claim, kairos_store::IdempotencyClaim::Fresh);
    let send = || {
        app.post("/api/v1/bookings/hold")
            .tenant(&t.id)
            .header("Idempotency-Key", "k-1")
            .json(body.clone())
            .send()
    };
    send().await.assert_error(409, "IDEMPOTENCY_KEY_IN_FLIGHT");
    assert_eq!(available(&app, &t.id, &fx, &fx.slots[0]).await, 10);
    // An attempt that never committed within a minute died: a retry takes the key over.
    app.clock.advance(chrono::Duration::seconds(61));
    send().await.assert_status(200);
    send().await.assert_status(200);
    assert_eq!(available(&app, &t.id, &fx, &fx.slots[0]).await, 8);
    app.post("/api/v1/bookings/hold")
        .tenant(&t.id)
        .header("Idempotency-Key", "")
        .json(body.clone())
        .send()
        .await
        .assert_error(400, "VALIDATION_ERROR");
}

#[tokio::test]
async fn an_idempotency_key_is_scoped_to_its_caller() {
    let (app, t, fx) = setup().await;
    let body = json!({"siteId": fx.catalog.site_id, "productId": fx.catalog.product_id,
                      "slotId": fx.slots[0], "partySize": 2});
    let me = app.customer_token(&t.id, "bob@example.com").await;
    let mine = app
        .post("/api/v1/bookings/hold")
        .tenant(&t.id)
        .token(&me)
        .header("Idempotency-Key", "shared-key")
        .json(body.clone())
        .send()
        .await;
    mine.assert_status(200);
    // The same key and body from someone else never replays Bob's booking token.
    let res = app
        .post("/api/v1/bookings/hold")
        .tenant(&t.id)
        .header("Idempotency-Key", "shared-key")
        .json(body)
        .send()
        .await;
    res.assert_error(422, "IDEMPOTENCY_KEY_REUSED");
    assert!(!res.text.contains(mine.str("bookingToken")));
}

#[tokio::test]
async fn a_stored_confirmation_is_replayed_only_to_who_may_see_the_booking() {
    let (app, t, fx) = setup().await;
    let a = app.hold(&t.id, &fx, &fx.slots[0], 2).await;
    let path = format!("/api/v1/bookings/{}/confirm", a.str("id"));
    let body = json!({"pricingHash": a.str("pricingHash"), "paymentMethod": "poa"});
    app.post(&path)
        .tenant(&t.id)
        .header("x-booking-token", &token(&a))
        .header("Idempotency-Key", "confirm-once")
        .json(body.clone())
        .send()
        .await
        .assert_status(200);
    let res = app
        .post(&path)
        .tenant(&t.id)
        .header("Idempotency-Key", "confirm-once")
        .json(body)
        .send()
        .await;
    res.assert_error(404, "BOOKING_NOT_FOUND");
    assert!(!res.text.contains("ada@example.com"));
}
