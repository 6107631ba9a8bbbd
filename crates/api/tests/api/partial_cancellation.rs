//! A partial cancellation (`reduced_party_size`, spec Part B 4.8): fewer people on the
//! same booking, priced again, the seats no longer needed released, the difference
//! refunded by the same policy at its notice; the preview answers what the partial
//! cancellation then does.

use super::staff_cancellation::{paid_booking, paid_booking_in};
use chrono::Duration;
use kairos_testkit::{TenantFixture, TestApp, TestResponse};
use serde_json::{Value, json};

async fn post(app: &TestApp, t: &TenantFixture, path: &str, body: Value) -> TestResponse {
    let token = app
        .admin_token(&t.id, &t.owner_username, &t.owner_password)
        .await;
    app.post(path)
        .tenant(&t.id)
        .token(&token)
        .json(body)
        .send()
        .await
}

async fn detail(app: &TestApp, t: &TenantFixture, id: &str) -> Value {
    let token = app
        .admin_token(&t.id, &t.owner_username, &t.owner_password)
        .await;
    app.get(&format!("/api/v1/admin/bookings/{id}"))
        .tenant(&t.id)
        .token(&token)
        .send()
        .await
        .body
}

#[tokio::test]
async fn a_smaller_party_keeps_the_booking_and_gets_the_difference_back() {
    // Paid 40.00 for 2, four days ahead: the standard policy refunds in full.
    let (app, t, fx, id, slot, _) = paid_booking_in().await;
    let body = json!({"reason": "reduced_party_size", "newPartySize": 1,
        "cancellationNotes": "one friend is ill"});
    let preview = post(
        &app,
        &t,
        &format!("/api/v1/admin/bookings/{id}/cancel/preview"),
        body.clone(),
    )
    .await;
    preview.assert_status(200);
    assert_eq!(preview.body["paidAmount"], 2000, "{}", preview.text);
    assert_eq!(preview.body["cancellationFee"], 0);
    assert_eq!(preview.body["refundAmount"], 2000);
    assert_eq!(preview.body["partySize"], 1);
    let res = post(
        &app,
        &t,
        &format!("/api/v1/admin/bookings/{id}/cancel"),
        body,
    )
    .await;
    res.assert_status(200);
    assert_eq!(
        res.body["status"], "paid",
        "the booking stays: {}",
        res.text
    );
    assert_eq!(res.body["partySize"], 1);
    assert_eq!(res.body["refundAmount"], preview.body["refundAmount"]);
    assert_eq!(res.body["cancellationFee"], preview.body["cancellationFee"]);
    let b = detail(&app, &t, &id).await;
    assert_eq!(b["partySize"], 1);
    assert_eq!(b["price"]["total"], 20.0);
    assert_eq!(b["payments"][0]["refundedAmount"], 2000);
    // The seat is free again.
    let avail = app
        .availability(&t.id, &fx.catalog, "2026-11-25", "2026-11-25", 1)
        .await;
    let free = avail.body["slots"]
        .as_array()
        .and_then(|s| s.iter().find(|s| s["slotId"] == slot.as_str()))
        .map(|s| s["availableCapacity"].clone());
    assert_eq!(free, Some(json!(9)), "{}", avail.text);
    app.assert_capacity_invariant(&t.id).await;
    // Once more, to one: nothing fewer than one.
    let res = post(
        &app,
        &t,
        &format!("/api/v1/admin/bookings/{id}/cancel"),
        json!({"reason": "reduced_party_size", "newPartySize": 1}),
    )
    .await;
    res.assert_error(400, "VALIDATION_ERROR");
}

#[tokio::test]
async fn inside_the_policys_last_day_the_smaller_party_keeps_its_price() {
    let (app, t, id, _, starts) = paid_booking().await;
    // 23 hours before the start: the standard policy keeps everything.
    app.clock.set(starts - Duration::hours(23));
    let res = post(
        &app,
        &t,
        &format!("/api/v1/admin/bookings/{id}/cancel"),
        json!({"reason": "reduced_party_size", "newPartySize": 1, "notifyCustomer": true}),
    )
    .await;
    res.assert_status(200);
    assert_eq!(res.body["refundAmount"], 0, "{}", res.text);
    assert_eq!(res.body["cancellationFee"], 2000);
    assert_eq!(res.body["partySize"], 1);
    let token = app
        .admin_token(&t.id, &t.owner_username, &t.owner_password)
        .await;
    let messages = app
        .get(&format!("/api/v1/admin/messaging/messages?bookingId={id}"))
        .tenant(&t.id)
        .token(&token)
        .send()
        .await;
    assert!(
        messages.text.contains("booking_update"),
        "the customer is told: {}",
        messages.text
    );
    // Named policy: flexible keeps half.
    let (app, t, id, _, starts) = paid_booking().await;
    app.clock.set(starts - Duration::hours(23));
    let res = post(
        &app,
        &t,
        &format!("/api/v1/admin/bookings/{id}/cancel"),
        json!({"reason": "reduced_party_size", "newPartySize": 1, "refundPolicy": "flexible"}),
    )
    .await;
    res.assert_status(200);
    assert_eq!(res.body["refundAmount"], 1000, "{}", res.text);
}

#[tokio::test]
async fn vouchers_are_a_way_of_paying_so_the_smaller_party_refunds_only_its_difference() {
    let f = super::booking_promotions::fx().await;
    let (app, t) = (&f.app, &f.t);
    // 40.00 for 2: a 30.00 voucher and 10.00 at the desk.
    app.post("/api/v1/admin/vouchers")
        .tenant(&t.id)
        .token(&t.owner_token)
        .json(json!({"code": "GIFT-PART-CANC", "type": "gift_card", "original_value": 30}))
        .send()
        .await
        .assert_status(200);
    let (id, token, _) = super::booking_promotions::hold(&f, 2, "ada@example.com").await;
    let applied = app
        .post(&format!("/api/v1/bookings/{id}/apply-voucher"))
        .tenant(&t.id)
        .header("x-booking-token", &token)
        .json(json!({"voucher_code": "GIFT-PART-CANC"}))
        .send()
        .await;
    applied.assert_status(200);
    app.post(&format!("/api/v1/bookings/{id}/confirm"))
        .tenant(&t.id)
        .header("x-booking-token", &token)
        .json(json!({"pricingHash": applied.str("/booking/pricing_hash"), "paymentMethod": "poa"}))
        .send()
        .await
        .assert_status(200);
    app.post(&format!("/api/v1/bookings/{id}/mark-paid"))
        .tenant(&t.id)
        .token(&t.owner_token)
        .send()
        .await
        .assert_status(200);
    // One person: 20.00 of the 40.00 paid. The desk's 10.00 goes back first, at the desk;
    // the voucher gets back the other 10.00 (in full: the venue sets its policy aside).
    let res = post(
        app,
        t,
        &format!("/api/v1/admin/bookings/{id}/cancel"),
        json!({"reason": "reduced_party_size", "newPartySize": 1, "overridePolicy": true,
            "cancellationNotes": "goodwill"}),
    )
    .await;
    res.assert_status(200);
    assert_eq!(res.body["refundAmount"], 1000, "{}", res.text);
    let balance = app
        .get("/api/v1/vouchers/GIFT-PART-CANC/balance")
        .tenant(&t.id)
        .send()
        .await;
    assert_eq!(
        balance.body["voucher"]["current_balance"], 10.0,
        "{}",
        balance.text
    );
    app.assert_capacity_invariant(&t.id).await;
}

#[tokio::test]
async fn a_party_is_not_reduced_while_its_card_payment_is_under_way() {
    let (app, t, fx) = super::payments_cancellation::card_venue("standard").await;
    let hold = app.hold(&t.id, &fx, &fx.slots[0], 2).await;
    let id = hold.str("id").to_owned();
    // Confirmed by card, not paid yet: the payment's amount is the whole booking's.
    app.post(&format!("/api/v1/bookings/{id}/confirm"))
        .tenant(&t.id)
        .header("x-booking-token", hold.str("bookingToken"))
        .json(json!({"pricingHash": hold.str("pricingHash"), "paymentMethod": "cardpay"}))
        .send()
        .await
        .assert_status(200);
    let res = post(
        &app,
        &t,
        &format!("/api/v1/admin/bookings/{id}/cancel"),
        json!({"reason": "reduced_party_size", "newPartySize": 1}),
    )
    .await;
    res.assert_error(409, "CONFLICT");
    assert_eq!(detail(&app, &t, &id).await["partySize"], 2);
    app.assert_capacity_invariant(&t.id).await;
}
