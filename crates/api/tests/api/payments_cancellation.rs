//! Cancelling a booking paid by card refunds it at once (spec Part B 4.6, 4.8): the
//! customer gets what they paid minus the site policy's fee, staff's cancellation refunds
//! everything.

use kairos_testkit::{BookingFixture, TenantFixture, TestApp, TestResponse};
use serde_json::{Value, json};
use std::time::Duration;

/// A tenant with a bookable product, the sandbox card provider and its site's
/// cancellation `policy`.
pub(crate) async fn card_venue(policy: &str) -> (TestApp, TenantFixture, BookingFixture) {
    let app = TestApp::spawn().await;
    let t = app.tenant("acme").await;
    let fx = app.bookable(&t).await;
    app.sandbox_cardpay(&t).await;
    app.patch(&format!("/api/v1/admin/sites/{}", fx.catalog.site_id))
        .tenant(&t.id)
        .token(&t.owner_token)
        .json(json!({"cancellationPolicy": policy}))
        .send()
        .await
        .assert_status(200);
    (app, t, fx)
}

/// A booking for 2 (40.00) on `slot`, paid by card through the sandbox: its hold answer.
pub(crate) async fn card_paid(
    app: &TestApp,
    t: &TenantFixture,
    fx: &BookingFixture,
    slot: &str,
) -> TestResponse {
    let hold = app.hold(&t.id, fx, slot, 2).await;
    app.post(&format!("/api/v1/bookings/{}/confirm", hold.str("id")))
        .tenant(&t.id)
        .header("x-booking-token", hold.str("bookingToken"))
        .json(
            json!({"pricingHash": hold.str("pricingHash"), "paymentMethod": "cardpay",
            "paymentMethodId": "pm_card_visa"}),
        )
        .send()
        .await
        .assert_status(200);
    for _ in 0..100 {
        if booking(app, t, hold.str("id")).await["status"] == "paid" {
            return hold;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("never paid");
}

/// A booking for 2 (40.00) paid by card through the sandbox: (app, tenant, hold).
pub(crate) async fn paid(policy: &str) -> (TestApp, TenantFixture, BookingFixture, TestResponse) {
    let (app, t, fx) = card_venue(policy).await;
    let hold = card_paid(&app, &t, &fx, &fx.slots[0]).await;
    (app, t, fx, hold)
}

pub(crate) async fn booking(app: &TestApp, t: &TenantFixture, id: &str) -> Value {
    app.get(&format!("/api/v1/admin/bookings/{id}"))
        .tenant(&t.id)
        .token(&t.owner_token)
        .send()
        .await
        .body
}

#[tokio::test]
async fn a_customer_cancelling_under_the_flexible_policy_a_day_ahead_gets_half_back() {
    let (app, t, _, hold) = paid("flexible").await;
    // The slot starts in 23 hours: flexible keeps half.
    let res = app
        .post(&format!("/api/v1/bookings/{}/cancel", hold.str("id")))
        .tenant(&t.id)
        .header("x-booking-token", hold.str("bookingToken"))
        .send()
        .await;
    res.assert_status(200);
    assert_eq!(res.body["status"], "canceled");
    let r = &res.body["refund"];
    assert_eq!(r["success"], true, "{}", res.text);
    assert_eq!(r["total_refund_amount"], 4000);
    assert_eq!(r["fee_deducted"], 2000);
    assert_eq!(r["net_refund_amount"], 2000);
    assert_eq!(r["refund_breakdown"][0]["refund_amount"], 2000);
    assert!(r["refund_breakdown"][0]["provider_refund_id"].is_string());
    let b = booking(&app, &t, hold.str("id")).await;
    assert_eq!(b["payments"][0]["status"], "COMPLETED", "partly refunded");
}

#[tokio::test]
async fn staff_cancelling_a_paid_booking_refund_it_in_full() {
    let (app, t, _, hold) = paid("standard").await;
    let res = app
        .post(&format!("/api/v1/bookings/{}/cancel", hold.str("id")))
        .tenant(&t.id)
        .token(&t.owner_token)
        .json(json!({"reason": "weather"}))
        .send()
        .await;
    res.assert_status(200);
    let r = &res.body["refund"];
    assert_eq!(r["fee_deducted"], 0, "{}", res.text);
    assert_eq!(r["net_refund_amount"], 4000);
    let b = booking(&app, &t, hold.str("id")).await;
    assert_eq!(b["payments"][0]["status"], "REFUNDED");
}

#[tokio::test]
async fn a_cancellation_with_nothing_paid_by_card_refunds_nothing() {
    let app = TestApp::spawn().await;
    let t = app.tenant("acme").await;
    let fx = app.bookable(&t).await;
    let hold = app.hold(&t.id, &fx, &fx.slots[0], 2).await;
    let res = app
        .post(&format!("/api/v1/bookings/{}/cancel", hold.str("id")))
        .tenant(&t.id)
        .header("x-booking-token", hold.str("bookingToken"))
        .send()
        .await;
    res.assert_status(200);
    assert!(res.body.get("refund").is_none(), "{}", res.text);
}

/// A hold for 2 (40.00) with 30.00 of gift card `GIFT-MIXD-TEND` applied, confirmed by
/// card for the remaining 10.00 (`card`: the test card, or none for the browser later).
async fn mixed(
    policy: &str,
    card: Option<&str>,
) -> (TestApp, TenantFixture, TestResponse, TestResponse) {
    let app = TestApp::spawn().await;
    let t = app.tenant("acme").await;
    let fx = app.bookable(&t).await;
    app.sandbox_cardpay(&t).await;
    app.patch(&format!("/api/v1/admin/sites/{}", fx.catalog.site_id))
        .tenant(&t.id)
        .token(&t.owner_token)
        .json(json!({"cancellationPolicy": policy}))
        .send()
        .await
        .assert_status(200);
    app.post("/api/v1/admin/vouchers")
        .tenant(&t.id)
        .token(&t.owner_token)
        .json(json!({"code": "GIFT-MIXD-TEND", "type": "gift_card", "original_value": 30}))
        .send()
        .await
        .assert_status(200);
    let hold = app.hold(&t.id, &fx, &fx.slots[0], 2).await;
    let applied = app
        .post(&format!(
            "/api/v1/bookings/{}/apply-voucher",
            hold.str("id")
        ))
        .tenant(&t.id)
        .header("x-booking-token", hold.str("bookingToken"))
        .json(json!({"voucher_code": "GIFT-MIXD-TEND"}))
        .send()
        .await;
    applied.assert_status(200);
    let mut body =
        json!({"pricingHash": applied.str("/booking/pricing_hash"), "paymentMethod": "cardpay"});
    if let Some(card) = card {
        body["paymentMethodId"] = json!(card);
    }
    let confirmed = app
        .post(&format!("/api/v1/bookings/{}/confirm", hold.str("id")))
        .tenant(&t.id)
        .header("x-booking-token", hold.str("bookingToken"))
        .json(body)
        .send()
        .await;
    (app, t, hold, confirmed)
}

async fn balance(app: &TestApp, t: &TenantFixture) -> f64 {
    let res = app
        .get("/api/v1/gift-cards/balance/GIFT-MIXD-TEND")
        .tenant(&t.id)
        .send()
        .await;
    res.assert_status(200);
    res.body["currentBalance"].as_f64().unwrap_or(-1.0)
}

#[tokio::test]
async fn a_voucher_pays_first_and_gets_its_part_back_when_the_card_never_pays() {
    let (app, t, hold, confirmed) = mixed("standard", None).await;
    confirmed.assert_status(200);
    assert_eq!(
        confirmed.body["payment"]["amount"], 1000,
        "the rest, by card"
    );
    // Both parts in the mixed-tender result (Part B 2.8).
    let m = &confirmed.body["mixedTender"];
    assert_eq!(m["success"], true, "{}", confirmed.text);
    assert_eq!(m["total_amount_charged"], 4000);
    assert_eq!(m["voucher_payment"]["voucher_code"], "GIFT-MIXD-TEND");
    assert_eq!(m["voucher_payment"]["amount_redeemed"], 3000);
    assert_eq!(m["voucher_payment"]["remaining_voucher_balance"], 0);
    assert!(m["voucher_payment"]["voucher_transaction_id"].is_string());
    assert_eq!(m["external_payment"]["provider"], "cardpay");
    assert_eq!(m["external_payment"]["amount_charged"], 1000);
    assert_eq!(m["external_payment"]["requires_action"], true);
    assert!(m["external_payment"]["client_secret"].is_string());
    assert_eq!(
        m["external_payment"]["payment_intent_id"],
        confirmed.body["payment"]["paymentIntentId"]
    );
    assert_eq!(balance(&app, &t).await, 0.0, "the voucher paid first");
    // The card payment never comes: the deadline cancels the booking and the voucher's
    // redemption is reversed.
    app.clock.advance(chrono::Duration::minutes(31));
    let report = kairos_app::payments::deadline::run_once(&app.state.app)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(report.canceled, 1);
    assert_eq!(
        booking(&app, &t, hold.str("id")).await["status"],
        "canceled"
    );
    assert_eq!(balance(&app, &t).await, 30.0);
}

#[tokio::test]
async fn a_mixed_payment_is_refunded_card_first_then_voucher() {
    let (app, t, hold, confirmed) = mixed("flexible", Some("pm_card_visa")).await;
    confirmed.assert_status(200);
    for _ in 0..100 {
        if booking(&app, &t, hold.str("id")).await["status"] == "paid" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(booking(&app, &t, hold.str("id")).await["status"], "paid");
    // 23 hours ahead under flexible: half of 40.00 is kept; 20.00 goes back, the card's
    // 10.00 first, then 10.00 to the voucher.
    let res = app
        .post(&format!("/api/v1/bookings/{}/cancel", hold.str("id")))
        .tenant(&t.id)
        .header("x-booking-token", hold.str("bookingToken"))
        .send()
        .await;
    res.assert_status(200);
    let r = &res.body["refund"];
    assert_eq!(r["total_refund_amount"], 4000, "{}", res.text);
    assert_eq!(r["fee_deducted"], 2000);
    assert_eq!(r["net_refund_amount"], 2000);
    let parts = r["refund_breakdown"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert_eq!(parts.len(), 2, "{}", res.text);
    assert_eq!(parts[0]["payment_method"], "cardpay");
    assert_eq!(parts[0]["refund_amount"], 1000);
    assert_eq!(parts[1]["payment_method"], "voucher");
    assert_eq!(parts[1]["refund_amount"], 1000);
    assert_eq!(parts[1]["voucher_new_balance"], 1000);
    assert_eq!(balance(&app, &t).await, 10.0);
    assert_eq!(
        booking(&app, &t, hold.str("id")).await["payments"][0]["status"],
        "REFUNDED"
    );
}

async fn put_refund_policy(app: &TestApp, t: &TenantFixture, body: Value) -> TestResponse {
    app.put("/api/v1/admin/payments/refund-policy")
        .tenant(&t.id)
        .token(&t.owner_token)
        .json(body)
        .send()
        .await
}

pub(crate) async fn cancel_by_customer(
    app: &TestApp,
    t: &TenantFixture,
    hold: &TestResponse,
) -> Value {
    let res = app
        .post(&format!("/api/v1/bookings/{}/cancel", hold.str("id")))
        .tenant(&t.id)
        .header("x-booking-token", hold.str("bookingToken"))
        .send()
        .await;
    res.assert_status(200);
    res.body["refund"].clone()
}

#[tokio::test]
async fn a_tenant_flat_fee_replaces_the_site_schedule() {
    let (app, t, _, hold) = paid("flexible").await;
    // Time-based (the site policy's schedule) until the tenant sets another.
    let first = app
        .get("/api/v1/admin/payments/refund-policy")
        .tenant(&t.id)
        .token(&t.owner_token)
        .send()
        .await;
    first.assert_status(200);
    assert_eq!(first.body["feeType"], "time_based");
    assert!(first.body["updatedAt"].is_null());
    let set = put_refund_policy(&app, &t, json!({"feeType": "flat", "flatFee": 500})).await;
    set.assert_status(200);
    assert_eq!(set.body["feeType"], "flat");
    assert_eq!(set.body["flatFee"], 500);
    assert!(set.body["percentage"].is_null());
    assert!(set.body["updatedAt"].is_string());
    // 23 hours ahead under flexible would keep half: the flat fee keeps 5.00.
    let r = cancel_by_customer(&app, &t, &hold).await;
    assert_eq!(r["total_refund_amount"], 4000, "{r}");
    assert_eq!(r["fee_deducted"], 500);
    assert_eq!(r["net_refund_amount"], 3500);
    assert_eq!(r["refund_breakdown"][0]["refund_amount"], 3500);
}

#[tokio::test]
async fn a_tenant_percentage_fee_keeps_its_share_and_staff_still_refund_all() {
    let (app, t, fx, hold) = paid("flexible").await;
    put_refund_policy(&app, &t, json!({"feeType": "percentage", "percentage": 15}))
        .await
        .assert_status(200);
    let r = cancel_by_customer(&app, &t, &hold).await;
    assert_eq!(r["fee_deducted"], 600, "{r}");
    assert_eq!(r["net_refund_amount"], 3400);
    // Staff's cancellation is the venue's decision: everything back, whatever the fee.
    let other = app.hold(&t.id, &fx, &fx.slots[0], 1).await;
    other.assert_status(200);
    let confirmed = app
        .post(&format!("/api/v1/bookings/{}/confirm", other.str("id")))
        .tenant(&t.id)
        .header("x-booking-token", other.str("bookingToken"))
        .json(
            json!({"pricingHash": other.str("pricingHash"), "paymentMethod": "cardpay",
            "paymentMethodId": "pm_card_visa"}),
        )
        .send()
        .await;
    confirmed.assert_status(200);
    for _ in 0..100 {
        if booking(&app, &t, other.str("id")).await["status"] == "paid" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let res = app
        .post(&format!("/api/v1/bookings/{}/cancel", other.str("id")))
        .tenant(&t.id)
        .token(&t.owner_token)
        .json(json!({"reason": "weather"}))
        .send()
        .await;
    res.assert_status(200);
    assert_eq!(res.body["refund"]["fee_deducted"], 0, "{}", res.text);
    assert_eq!(res.body["refund"]["net_refund_amount"], 2000);
}

#[tokio::test]
async fn a_refund_policy_is_checked_as_a_whole() {
    let app = TestApp::spawn().await;
    let t = app.tenant("acme").await;
    for (body, fields) in [
        (json!({}), vec!["feeType"]),
        (json!({"feeType": "weekly"}), vec!["feeType"]),
        (json!({"feeType": "flat"}), vec!["flatFee"]),
        (
            json!({"feeType": "flat", "flatFee": -1, "percentage": 5}),
            vec!["flatFee", "percentage"],
        ),
        (
            json!({"feeType": "flat", "flatFee": 100_000_001}),
            vec!["flatFee"],
        ),
        (json!({"feeType": "percentage"}), vec!["percentage"]),
        (
            json!({"feeType": "percentage", "percentage": 101}),
            vec!["percentage"],
        ),
        (
            json!({"feeType": "time_based", "flatFee": 5}),
            vec!["flatFee"],
        ),
        (json!({"feeType": "flat", "flatFee": "5"}), vec![]),
    ] {
        let res = put_refund_policy(&app, &t, body.clone()).await;
        res.assert_error(400, "VALIDATION_ERROR");
        for field in fields {
            assert!(res.text.contains(field), "{body}: {}", res.text);
        }
    }
    // Nothing was stored by the refusals.
    let now = app
        .get("/api/v1/admin/payments/refund-policy")
        .tenant(&t.id)
        .token(&t.owner_token)
        .send()
        .await;
    assert_eq!(now.body["feeType"], "time_based", "{}", now.text);
    // Back to the schedule.
    put_refund_policy(&app, &t, json!({"feeType": "flat", "flatFee": 0}))
        .await
        .assert_status(200);
    let back = put_refund_policy(&app, &t, json!({"feeType": "time_based"})).await;
    back.assert_status(200);
    assert!(back.body["flatFee"].is_null(), "{}", back.text);
}

#[tokio::test]
async fn a_cancellation_no_provider_refund_names_has_its_own_refund_id() {
    let (app, t, _, hold) = paid("flexible").await;
    // A fee that keeps everything: nothing goes back to the card.
    put_refund_policy(
        &app,
        &t,
        json!({"feeType": "percentage", "percentage": 100}),
    )
    .await
    .assert_status(200);
    let r = cancel_by_customer(&app, &t, &hold).await;
    assert_eq!(r["fee_deducted"], 4000, "{r}");
    assert_eq!(r["net_refund_amount"], 0);
    let booking_id: uuid::Uuid = hold.str("id").parse().unwrap();
    let own = uuid::Uuid::new_v5(&booking_id, b"kairos:cancellation-refund");
    assert_eq!(r["refund_id"], own.to_string(), "never the nil id");
}

#[tokio::test]
async fn staff_cancelling_by_a_status_change_refund_in_full_too() {
    let (app, t, _, hold) = paid("standard").await;
    let res = app
        .patch(&format!("/api/v1/admin/bookings/{}/status", hold.str("id")))
        .tenant(&t.id)
        .token(&t.owner_token)
        .json(json!({"status": "canceled", "reason": "closed for the day"}))
        .send()
        .await;
    res.assert_status(200);
    assert_eq!(res.body["status"], "canceled");
    assert_eq!(
        res.body["refund"]["net_refund_amount"], 4000,
        "{}",
        res.text
    );
    assert_eq!(res.body["refund"]["fee_deducted"], 0);
    let p = &booking(&app, &t, hold.str("id")).await["payments"][0];
    assert_eq!(p["status"], "REFUNDED", "{p}");
    assert_eq!(p["refundedAmount"], 4000);
}
