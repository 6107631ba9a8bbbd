//! Cancelling a booking paid by card refunds it at once (spec Part B 4.6, 4.8): the
//! customer gets what they paid minus the site policy's fee, staff's cancellation refunds
//! everything.

use kairos_testkit::{BookingFixture, TenantFixture, TestApp, TestResponse};
use serde_json::{Value, json};
use std::time::Duration;

/// A tenant with a bookable product, the sandbox card provider and its site's
/// cancellation `policy`.
async fn card_venue(policy: &str) -> (TestApp, TenantFixture, BookingFixture) {
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
async fn card_paid(
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
async fn paid(policy: &str) -> (TestApp, TenantFixture, BookingFixture, TestResponse) {
    let (app, t, fx) = card_venue(policy).await;
    let hold = card_paid(&app, &t, &fx, &fx.slots[0]).await;
    (app, t, fx, hold)
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

async fn cancel_by_customer(app: &TestApp, t: &TenantFixture, hold: &TestResponse) -> Value {
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

/// The payment of a booking paid by card, as the store knows it.
async fn payment_of(app: &TestApp, t: &TenantFixture, booking_id: &str) -> uuid::Uuid {
    let b = booking(app, t, booking_id).await;
    b["payments"][0]["paymentId"]
        .as_str()
        .and_then(|id| id.parse().ok())
        .unwrap_or_else(|| panic!("no payment: {b}"))
}

async fn staff_cancel(app: &TestApp, t: &TenantFixture, booking_id: &str) -> TestResponse {
    app.post(&format!("/api/v1/bookings/{booking_id}/cancel"))
        .tenant(&t.id)
        .token(&t.owner_token)
        .json(json!({"reason": "closed for the day"}))
        .send()
        .await
}

async fn owed_refunds(app: &TestApp) -> kairos_app::payments::owed::OwedRefunds {
    kairos_app::payments::owed::finish_unfinished(&app.state.app)
        .await
        .unwrap_or_else(|e| panic!("owed refunds: {} {:?}", e.message(), e))
}

/// A staff refund of `amount` of `payment` begun, whose provider has not answered yet:
/// its refund id.
async fn refund_under_way(
    app: &TestApp,
    t: &TenantFixture,
    payment: uuid::Uuid,
    amount: i64,
) -> uuid::Uuid {
    app.store
        .begin_refund(
            &tenant_of(t),
            payment,
            Some(amount),
            None,
            &kairos_store::Actor::system("test"),
            app.clock_now(),
        )
        .await
        .unwrap_or_else(|e| panic!("begin refund: {e}"))
        .refund_id
}

/// The provider's answer to refund `refund` arrives.
async fn provider_answers(
    app: &TestApp,
    t: &TenantFixture,
    refund: uuid::Uuid,
    result: kairos_store::RefundResult,
) {
    app.store
        .finish_refund(
            &tenant_of(t),
            refund,
            result,
            &kairos_store::Actor::system("test"),
            app.clock_now(),
        )
        .await
        .unwrap_or_else(|e| panic!("finish refund: {e}"));
}

fn tenant_of(t: &TenantFixture) -> kairos_domain::TenantId {
    kairos_domain::TenantId::parse(&t.id).unwrap_or_else(|e| panic!("{e}"))
}

fn completed() -> kairos_store::RefundResult {
    kairos_store::RefundResult::Completed {
        provider_refund_id: "re_partial".into(),
    }
}

/// The tenant's payment dead letters, as staff read them (with a fresh token: the test
/// clock may have moved past the fixture's).
async fn payment_letters(app: &TestApp, t: &TenantFixture) -> TestResponse {
    let token = app
        .admin_token(&t.id, &t.owner_username, &t.owner_password)
        .await;
    let letters = app
        .get("/api/v1/admin/dead-letters?type=payment")
        .tenant(&t.id)
        .token(&token)
        .send()
        .await;
    letters.assert_status(200);
    letters
}

#[tokio::test]
async fn a_cancellation_while_a_partial_refund_is_under_way_refunds_the_rest_after_it() {
    let (app, t, _, hold) = paid("standard").await;
    let payment = payment_of(&app, &t, hold.str("id")).await;
    // Staff began refunding 10.00 of the 40.00; the provider has not answered yet.
    let partial = refund_under_way(&app, &t, payment, 1000).await;
    // Staff cancel meanwhile: everything is owed (the 10.00 under way returns by its own
    // refund, 30.00 more); it cannot be asked for yet.
    let res = staff_cancel(&app, &t, hold.str("id")).await;
    res.assert_status(200);
    let r = &res.body["refund"];
    assert_eq!(r["success"], true, "{}", res.text);
    assert_eq!(
        r["refund_breakdown"][0]["status"], "Processing",
        "{}",
        res.text
    );
    assert_eq!(r["refund_breakdown"][0]["refund_amount"], 3000);
    // Nothing to do while the first refund is under way.
    assert_eq!(owed_refunds(&app).await.refunded, 0);
    // The first refund completes at the provider; the job refunds the other 30.00.
    provider_answers(&app, &t, partial, completed()).await;
    let pass = owed_refunds(&app).await;
    assert_eq!((pass.refunded, pass.failed), (1, 0), "{pass:?}");
    assert_eq!(
        booking(&app, &t, hold.str("id")).await["payments"][0]["status"],
        "REFUNDED"
    );
    assert_eq!(owed_refunds(&app).await, Default::default(), "nothing more");
}

#[tokio::test]
async fn a_customer_cancellation_during_a_staff_refund_keeps_only_its_fee() {
    let (app, t, _, hold) = paid("flexible").await;
    let payment = payment_of(&app, &t, hold.str("id")).await;
    let partial = refund_under_way(&app, &t, payment, 1000).await;
    // A day ahead under the flexible policy: the fee is half of what the staff refund
    // under way leaves (30.00), so 15.00 more is owed.
    let r = cancel_by_customer(&app, &t, &hold).await;
    assert_eq!(r["total_refund_amount"], 3000, "{r}");
    assert_eq!(r["fee_deducted"], 1500, "{r}");
    assert_eq!(r["refund_breakdown"][0]["status"], "Processing", "{r}");
    provider_answers(&app, &t, partial, completed()).await;
    assert_eq!(owed_refunds(&app).await.refunded, 1);
    // 25.00 back in all, as if the staff refund had finished first: the payment keeps the
    // fee.
    let p = &booking(&app, &t, hold.str("id")).await["payments"][0];
    assert_eq!(p["refundedAmount"], 2500, "{p}");
    let unfinished = app
        .store
        .unfinished_refunds(app.clock_now(), 10)
        .await
        .unwrap();
    assert!(unfinished.is_empty(), "{unfinished:?}");
    assert_eq!(
        booking(&app, &t, hold.str("id")).await["payments"][0]["status"],
        "COMPLETED"
    );
}

#[tokio::test]
async fn a_refund_the_provider_refuses_puts_what_the_cancellation_owes_before_staff() {
    let (app, t, _, hold) = paid("standard").await;
    let payment = payment_of(&app, &t, hold.str("id")).await;
    let partial = refund_under_way(&app, &t, payment, 1000).await;
    staff_cancel(&app, &t, hold.str("id"))
        .await
        .assert_status(200);
    // The refund under way is refused: staff see the failure and the 40.00 still owed.
    let refused = kairos_store::RefundResult::Failed {
        message: "card expired".into(),
    };
    provider_answers(&app, &t, partial, refused).await;
    let letters = payment_letters(&app, &t).await;
    assert!(
        letters.text.contains("still owes 4000"),
        "the owed amount is before staff: {}",
        letters.text
    );
    // And no job asks the provider again behind staff's back.
    assert_eq!(owed_refunds(&app).await, Default::default());
}

#[tokio::test]
async fn a_refund_and_a_cancellation_sent_together_end_with_everything_refunded() {
    let (app, t, fx) = card_venue("standard").await;
    let tries = 10;
    let mut met = 0;
    let mut bookings = Vec::new();
    for i in 0..tries {
        // Four slots of 10 seats: parties of 2 fit five to a slot.
        let hold = card_paid(&app, &t, &fx, &fx.slots[i % fx.slots.len()]).await;
        bookings.push(hold.str("id").to_owned());
    }
    for id in &bookings {
        let payment = payment_of(&app, &t, id).await;
        let refund = app
            .post("/api/v1/payments/refund")
            .tenant(&t.id)
            .token(&t.owner_token)
            .json(json!({"paymentId": payment, "amount": 1000}))
            .send();
        let (refund, cancel) = tokio::join!(refund, staff_cancel(&app, &t, id));
        cancel.assert_status(200);
        // The two met: the cancellation's refund waited for the other one.
        if cancel.body["refund"]["refund_breakdown"][0]["status"] == "Processing" {
            met += 1;
        }
        assert!(
            [200, 400, 409].contains(&refund.status.as_u16()),
            "the refund: {}",
            refund.text
        );
    }
    // What could not be refunded at once is the job's; a refund whose provider call was
    // cut short is resumed a minute later.
    owed_refunds(&app).await;
    app.clock.advance(chrono::Duration::seconds(61));
    owed_refunds(&app).await;
    let mut refunded = 0;
    for id in &bookings {
        let status = booking(&app, &t, id).await["payments"][0]["status"].clone();
        assert_eq!(status, "REFUNDED", "booking {id}: all 40.00 back");
        refunded += 1;
    }
    println!(
        "refund and cancellation together: {refunded} of {tries} bookings refunded in full; \
         in {met} the cancellation met the refund under way"
    );
}

#[tokio::test]
async fn a_refund_with_no_outcome_for_a_day_goes_before_staff_once() {
    let (app, t, _, hold) = paid("standard").await;
    let payment = payment_of(&app, &t, hold.str("id")).await;
    // A staff refund begun, whose request died before the provider's answer, and nobody
    // sent it again.
    refund_under_way(&app, &t, payment, 1000).await;
    assert_eq!(owed_refunds(&app).await.stalled, 0, "not yet");
    app.clock.advance(chrono::Duration::hours(25));
    assert_eq!(owed_refunds(&app).await.stalled, 1);
    assert_eq!(owed_refunds(&app).await.stalled, 0, "never twice");
    let letters = payment_letters(&app, &t).await;
    assert_eq!(
        letters.text.matches("REFUND_STALLED").count(),
        1,
        "{}",
        letters.text
    );
}

#[tokio::test]
async fn a_customer_cancellation_and_the_owed_refunds_job_together_refund_once() {
    let (app, t, fx) = card_venue("flexible").await;
    let mut holds = Vec::new();
    // The first slot starts in 23 hours: flexible keeps half. Ten seats: five parties.
    for _ in 0..5 {
        holds.push(card_paid(&app, &t, &fx, &fx.slots[0]).await);
    }
    for hold in &holds {
        // The job of another instance runs while the cancellation's own request asks.
        let (answer, _) = tokio::join!(cancel_by_customer(&app, &t, hold), owed_refunds(&app));
        assert_eq!(answer["fee_deducted"], 2000, "{answer}");
    }
    owed_refunds(&app).await;
    for hold in &holds {
        let p = &booking(&app, &t, hold.str("id")).await["payments"][0];
        // Half of 40.00 back, never more: the fee is kept however the two met.
        assert_eq!(p["refundedAmount"], 2000, "{p}");
        assert_eq!(p["status"], "COMPLETED");
    }
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
