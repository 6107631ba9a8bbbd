//! Cancelling a booking paid by card refunds it at once (spec Part B 4.6, 4.8): the
//! customer gets what they paid minus the site policy's fee, staff's cancellation refunds
//! everything.

use kairos_testkit::{BookingFixture, TenantFixture, TestApp, TestResponse};
use serde_json::{Value, json};
use std::time::Duration;

/// A booking for 2 (40.00) paid by card through the sandbox: (app, tenant, hold).
async fn paid(policy: &str) -> (TestApp, TenantFixture, BookingFixture, TestResponse) {
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
    let hold = app.hold(&t.id, &fx, &fx.slots[0], 2).await;
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
        if booking(&app, &t, hold.str("id")).await["status"] == "paid" {
            return (app, t, fx, hold);
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("never paid");
}

async fn booking(app: &TestApp, t: &TenantFixture, id: &str) -> Value {
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
