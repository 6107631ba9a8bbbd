//! The public booking flow: holds, confirmation, cancellation, moves, staff actions,
//! access by booking token, idempotency.

use kairos_domain::auth::Role;
use kairos_testkit::{BookingFixture, TestApp, TestResponse};
use serde_json::json;

async fn setup() -> (TestApp, kairos_testkit::TenantFixture, BookingFixture) {
    let app = TestApp::spawn().await;
    let t = app.tenant("acme").await;
    let fx = app.bookable(&t).await;
    app.sandbox_cardpay(&t).await;
    (app, t, fx)
}

fn token(res: &TestResponse) -> String {
    res.str("bookingToken").to_owned()
}

async fn available(app: &TestApp, t: &str, fx: &BookingFixture, slot: &str) -> i64 {
    let res = app
        .availability(t, &fx.catalog, "2026-11-22", "2026-11-22", 1)
        .await;
    res.body["slots"]
        .as_array()
        .and_then(|a| a.iter().find(|s| s["slotId"] == slot))
        .map(|s| s["availableCapacity"].as_i64().unwrap_or(-1))
        .unwrap_or(0)
}

#[tokio::test]
async fn hold_reserves_seats_and_returns_price_hash_and_token() {
    let (app, t, fx) = setup().await;
    let res = app.hold(&t.id, &fx, &fx.slots[0], 3).await;
    res.assert_status(200);
    assert_eq!(res.body["status"], "hold");
    assert_eq!(res.str("reference").len(), 8);
    assert_eq!(res.body["partySize"], 3);
    // 3 × 20.00 including 24 % tax.
    assert_eq!(res.body["price"]["basePrice"], 60.0);
    assert_eq!(res.body["price"]["subtotal"], 60.0);
    assert_eq!(res.body["price"]["tax"], 11.61);
    assert_eq!(res.body["price"]["total"], 60.0);
    assert_eq!(res.body["price"]["currency"], "EUR");
    assert!(res.str("pricingHash").starts_with("ph1_"));
    assert_eq!(token(&res).len(), 64);
    // Default time-to-live: 15 minutes from the test clock's 09:00Z.
    assert_eq!(res.body["holdExpiresAt"], "2026-11-21T09:15:00Z");
    assert_eq!(available(&app, &t.id, &fx, &fx.slots[0]).await, 7);
    app.assert_capacity_invariant(&t.id).await;
}

#[tokio::test]
async fn hold_on_full_slot_is_rejected() {
    let (app, t, fx) = setup().await;
    app.hold(&t.id, &fx, &fx.slots[0], 8)
        .await
        .assert_status(200);
    app.hold(&t.id, &fx, &fx.slots[0], 3)
        .await
        .assert_error(409, "SLOT_UNAVAILABLE");
    app.hold(&t.id, &fx, &fx.slots[0], 2)
        .await
        .assert_status(200);
    app.hold(&t.id, &fx, &fx.slots[0], 1)
        .await
        .assert_error(409, "SLOT_UNAVAILABLE");
    app.assert_capacity_invariant(&t.id).await;
}

#[tokio::test]
async fn hold_validates_input_and_unknown_ids_are_404() {
    let (app, t, fx) = setup().await;
    let res = app
        .post("/api/v1/bookings/hold")
        .tenant(&t.id)
        .json(
            json!({"slotId": fx.slots[0], "partySize": 0, "customer": {"email": "nope"},
                     "participants": [{"firstName": "A"}]}),
        )
        .send()
        .await;
    res.assert_error(400, "VALIDATION_ERROR");
    let fields = res.error_fields();
    for f in ["siteId", "productId", "partySize", "customer.email"] {
        assert!(fields.contains(&f.to_owned()), "{f} in {fields:?}");
    }
    let res = app
        .post("/api/v1/bookings/hold")
        .tenant(&t.id)
        .json(json!({"siteId": fx.catalog.site_id, "productId": fx.catalog.product_id, "partySize": 11, "slotId": fx.slots[0]}))
        .send()
        .await;
    res.assert_error(400, "VALIDATION_ERROR");
    assert_eq!(res.error_fields(), vec!["partySize"]);

    let unknown = "01890000-0000-7000-8000-000000000000";
    for body in [
        json!({"siteId": fx.catalog.site_id, "productId": unknown, "slotId": fx.slots[0], "partySize": 1}),
        json!({"siteId": unknown, "productId": fx.catalog.product_id, "slotId": fx.slots[0], "partySize": 1}),
        json!({"siteId": fx.catalog.site_id, "productId": fx.catalog.product_id, "slotId": unknown, "partySize": 1}),
        json!({"siteId": fx.catalog.site_id, "productId": fx.catalog.product_id, "slotId": fx.slots[0], "partySize": 1, "variantId": unknown}),
    ] {
        app.post("/api/v1/bookings/hold")
            .tenant(&t.id)
            .json(body)
            .send()
            .await
            .assert_error(404, "NOT_FOUND");
    }
    app.assert_capacity_invariant(&t.id).await;
}

#[tokio::test]
async fn a_booking_is_visible_only_to_its_token_customer_or_staff() {
    let (app, t, fx) = setup().await;
    let res = app.hold(&t.id, &fx, &fx.slots[0], 2).await;
    let id = res.str("id").to_owned();
    let tok = token(&res);
    let path = format!("/api/v1/bookings/{id}");
    app.get(&path)
        .tenant(&t.id)
        .header("x-booking-token", &tok)
        .send()
        .await
        .assert_status(200);
    app.get(&path)
        .tenant(&t.id)
        .token(&t.owner_token)
        .send()
        .await
        .assert_status(200);
    app.get(&path)
        .tenant(&t.id)
        .send()
        .await
        .assert_error(404, "BOOKING_NOT_FOUND");
    app.get(&path)
        .tenant(&t.id)
        .header("x-booking-token", "wrong")
        .send()
        .await
        .assert_error(404, "BOOKING_NOT_FOUND");
    let stranger = app.customer_token(&t.id, "eve@example.com").await;
    app.get(&path)
        .tenant(&t.id)
        .token(&stranger)
        .send()
        .await
        .assert_error(404, "BOOKING_NOT_FOUND");
    app.get("/api/v1/bookings/not-an-id")
        .tenant(&t.id)
        .token(&t.owner_token)
        .send()
        .await
        .assert_error(404, "BOOKING_NOT_FOUND");

    // A hold made with a customer token belongs to that customer.
    let me = app.customer_token(&t.id, "bob@example.com").await;
    let res = app
        .post("/api/v1/bookings/hold")
        .tenant(&t.id)
        .token(&me)
        .json(json!({"siteId": fx.catalog.site_id, "productId": fx.catalog.product_id, "slotId": fx.slots[1], "partySize": 1}))
        .send()
        .await;
    res.assert_status(200);
    assert_eq!(res.body["customer"]["email"], "bob@example.com");
    app.get(&format!("/api/v1/bookings/{}", res.str("id")))
        .tenant(&t.id)
        .token(&me)
        .send()
        .await
        .assert_status(200);

    // Another tenant's staff see nothing.
    let other = app.tenant("other").await;
    app.get(&path)
        .tenant(&other.id)
        .token(&other.owner_token)
        .send()
        .await
        .assert_error(404, "BOOKING_NOT_FOUND");
}

#[tokio::test]
async fn confirm_pay_on_arrival_is_tentative_and_online_is_confirmed_with_a_pending_payment() {
    let (app, t, fx) = setup().await;
    let a = app.hold(&t.id, &fx, &fx.slots[0], 2).await;
    let res = app
        .post(&format!("/api/v1/bookings/{}/confirm", a.str("id")))
        .tenant(&t.id)
        .header("x-booking-token", &token(&a))
        .json(json!({"pricingHash": a.str("pricingHash"), "paymentMethod": "poa"}))
        .send()
        .await;
    res.assert_status(200);
    assert_eq!(res.body["status"], "tentative");
    assert_eq!(res.body["holdExpiresAt"], serde_json::Value::Null);

    let b = app.hold(&t.id, &fx, &fx.slots[1], 2).await;
    let res = app
        .post(&format!("/api/v1/bookings/{}/confirm", b.str("id")))
        .tenant(&t.id)
        .header("x-booking-token", &token(&b))
        .json(json!({"pricingHash": b.str("pricingHash"), "paymentMethodId": "pm_card_threeDSecure2Required"}))
        .send()
        .await;
    res.assert_status(200);
    assert_eq!(res.body["status"], "confirmed");
    assert_eq!(res.body["paymentMethod"], "cardpay");
    // The card needs the customer's 3-D Secure step: nothing is collected yet.
    assert_eq!(res.body["payment"]["providerStatus"], "requires_action");
    assert_eq!(res.body["payment"]["requiresAction"], true);
    let detail = app
        .get(&format!("/api/v1/admin/bookings/{}", b.str("id")))
        .tenant(&t.id)
        .token(&t.owner_token)
        .send()
        .await;
    detail.assert_status(200);
    assert_eq!(detail.body["payments"][0]["status"], "PENDING");
    assert_eq!(detail.body["payments"][0]["amount"], 4000);

    // Confirming again is not a transition of the table.
    app.post(&format!("/api/v1/bookings/{}/confirm", b.str("id")))
        .tenant(&t.id)
        .header("x-booking-token", &token(&b))
        .json(json!({"pricingHash": b.str("pricingHash"), "paymentMethod": "poa"}))
        .send()
        .await
        .assert_error(409, "INVALID_TRANSITION");
    // A hash is required; comp is for staff.
    let c = app.hold(&t.id, &fx, &fx.slots[2], 1).await;
    let path = format!("/api/v1/bookings/{}/confirm", c.str("id"));
    let res = app
        .post(&path)
        .tenant(&t.id)
        .header("x-booking-token", &token(&c))
        .json(json!({"paymentMethod": "bankpay"}))
        .send()
        .await;
    res.assert_error(400, "VALIDATION_ERROR");
    assert_eq!(res.error_fields(), vec!["pricingHash"]);
    app.post(&path)
        .tenant(&t.id)
        .header("x-booking-token", &token(&c))
        .json(json!({"pricingHash": c.str("pricingHash"), "paymentMethod": "comp"}))
        .send()
        .await
        .assert_error(403, "INSUFFICIENT_PERMISSIONS");
    let res = app
        .post(&path)
        .tenant(&t.id)
        .token(&t.owner_token)
        .json(json!({"pricingHash": c.str("pricingHash"), "paymentMethod": "comp"}))
        .send()
        .await;
    res.assert_status(200);
    assert_eq!(res.body["status"], "confirmed");
}

#[tokio::test]
async fn confirm_with_an_unknown_payment_method_is_a_400_naming_it_and_the_choices() {
    let (app, t, fx) = setup().await;
    let a = app.hold(&t.id, &fx, &fx.slots[0], 2).await;
    let path = format!("/api/v1/bookings/{}/confirm", a.str("id"));
    for method in ["bitcoin", "POA", "cash"] {
        let res = app
            .post(&path)
            .tenant(&t.id)
            .token(&t.owner_token)
            .json(json!({"pricingHash": a.str("pricingHash"), "paymentMethod": method}))
            .send()
            .await;
        res.assert_error(400, "VALIDATION_ERROR");
        assert_eq!(res.error_fields(), vec!["paymentMethod"], "{method}");
        assert_eq!(
            res.body["details"]["errors"][0]["message"],
            "must be poa, cardpay, bankpay, comp, invoice or voucher"
        );
    }
    let res = app
        .get(&format!("/api/v1/bookings/{}", a.str("id")))
        .tenant(&t.id)
        .header("x-booking-token", &token(&a))
        .send()
        .await;
    assert_eq!(res.body["status"], "hold");
    assert_eq!(res.body["paymentMethod"], serde_json::Value::Null);
    let res = app
        .post(&path)
        .tenant(&t.id)
        .header("x-booking-token", &token(&a))
        .json(json!({"pricingHash": a.str("pricingHash"), "paymentMethod": "poa"}))
        .send()
        .await;
    res.assert_status(200);
    assert_eq!(res.body["paymentMethod"], "poa");
}

#[tokio::test]
async fn confirm_with_a_stale_hash_is_pricing_changed() {
    let (app, t, fx) = setup().await;
    let a = app.hold(&t.id, &fx, &fx.slots[0], 2).await;
    let path = format!("/api/v1/bookings/{}/confirm", a.str("id"));
    let res = app
        .post(&path)
        .tenant(&t.id)
        .header("x-booking-token", &token(&a))
        .json(json!({"pricingHash": "ph1_wrong", "paymentMethod": "poa"}))
        .send()
        .await;
    res.assert_error(409, "PRICING_CHANGED");
    assert_eq!(res.body["details"]["pricingHash"], a.body["pricingHash"]);

    // The price changes after the hold: the held hash is stale.
    app.patch(&format!("/api/v1/admin/products/{}", fx.catalog.product_id))
        .tenant(&t.id)
        .token(&t.owner_token)
        .json(json!({"basePrice": 25.0}))
        .send()
        .await
        .assert_status(200);
    let res = app
        .post(&path)
        .tenant(&t.id)
        .header("x-booking-token", &token(&a))
        .json(json!({"pricingHash": a.str("pricingHash"), "paymentMethod": "poa"}))
        .send()
        .await;
    res.assert_error(409, "PRICING_CHANGED");
    assert_eq!(res.body["details"]["price"]["total"], 50.0);
    let fresh = res.body["details"]["pricingHash"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    assert_ne!(fresh, a.str("pricingHash"));
    // Accepting the new price confirms at it.
    let res = app
        .post(&path)
        .tenant(&t.id)
        .header("x-booking-token", &token(&a))
        .json(json!({"pricingHash": fresh, "paymentMethod": "poa"}))
        .send()
        .await;
    res.assert_status(200);
    assert_eq!(res.body["price"]["total"], 50.0);
    assert_eq!(res.body["status"], "tentative");
}

#[tokio::test]
async fn an_expired_hold_cannot_be_confirmed_and_its_seats_return() {
    let (app, t, fx) = setup().await;
    let a = app.hold(&t.id, &fx, &fx.slots[0], 10).await;
    a.assert_status(200);
    app.hold(&t.id, &fx, &fx.slots[0], 1)
        .await
        .assert_error(409, "SLOT_UNAVAILABLE");
    app.clock.advance(chrono::Duration::minutes(16));
    // The next hold on the slot reclaims the overdue hold itself.
    app.hold(&t.id, &fx, &fx.slots[0], 4)
        .await
        .assert_status(200);
    let res = app
        .post(&format!("/api/v1/bookings/{}/confirm", a.str("id")))
        .tenant(&t.id)
        .header("x-booking-token", &token(&a))
        .json(json!({"pricingHash": a.str("pricingHash"), "paymentMethod": "poa"}))
        .send()
        .await;
    res.assert_error(409, "HOLD_EXPIRED");
    let res = app
        .get(&format!("/api/v1/bookings/{}", a.str("id")))
        .tenant(&t.id)
        .header("x-booking-token", &token(&a))
        .send()
        .await;
    assert_eq!(res.body["status"], "expired");
    app.assert_capacity_invariant(&t.id).await;
}

#[tokio::test]
async fn confirming_an_overdue_hold_expires_it_even_before_any_worker_runs() {
    let (app, t, fx) = setup().await;
    let a = app.hold(&t.id, &fx, &fx.slots[0], 5).await;
    app.clock.advance(chrono::Duration::minutes(15));
    app.post(&format!("/api/v1/bookings/{}/confirm", a.str("id")))
        .tenant(&t.id)
        .header("x-booking-token", &token(&a))
        .json(json!({"pricingHash": a.str("pricingHash"), "paymentMethod": "poa"}))
        .send()
        .await
        .assert_error(409, "HOLD_EXPIRED");
    assert_eq!(available(&app, &t.id, &fx, &fx.slots[0]).await, 10);
    app.assert_capacity_invariant(&t.id).await;
}

#[tokio::test]
async fn cancel_releases_capacity_once() {
    let (app, t, fx) = setup().await;
    let a = app.hold(&t.id, &fx, &fx.slots[0], 4).await;
    assert_eq!(available(&app, &t.id, &fx, &fx.slots[0]).await, 6);
    let path = format!("/api/v1/bookings/{}/cancel", a.str("id"));
    let res = app
        .post(&path)
        .tenant(&t.id)
        .header("x-booking-token", &token(&a))
        .json(json!({"reason": "changed plans"}))
        .send()
        .await;
    res.assert_status(200);
    assert_eq!(res.body["status"], "canceled");
    assert_eq!(available(&app, &t.id, &fx, &fx.slots[0]).await, 10);
    app.post(&path)
        .tenant(&t.id)
        .header("x-booking-token", &token(&a))
        .send()
        .await
        .assert_error(409, "INVALID_TRANSITION");
    assert_eq!(available(&app, &t.id, &fx, &fx.slots[0]).await, 10);
    app.assert_capacity_invariant(&t.id).await;
}

async fn confirmed(
    app: &TestApp,
    t: &str,
    fx: &BookingFixture,
    slot: &str,
    party: u32,
) -> (String, String) {
    let a = app.hold(t, fx, slot, party).await;
    a.assert_status(200);
    app.post(&format!("/api/v1/bookings/{}/confirm", a.str("id")))
        .tenant(t)
        .header("x-booking-token", &token(&a))
        .json(json!({"pricingHash": a.str("pricingHash"), "paymentMethod": "poa"}))
        .send()
        .await
        .assert_status(200);
    (a.str("id").to_owned(), token(&a))
}

#[tokio::test]
async fn customers_cannot_cancel_or_move_inside_the_policy_window_but_staff_can() {
    let (app, t, fx) = setup().await;
    // Tomorrow 10:00 Helsinki is 23 hours away: inside the standard 24-hour window.
    let (id, tok) = confirmed(&app, &t.id, &fx, &fx.slots[0], 2).await;
    let res = app
        .post(&format!("/api/v1/bookings/{id}/cancel"))
        .tenant(&t.id)
        .header("x-booking-token", &tok)
        .send()
        .await;
    res.assert_error(409, "OUTSIDE_WINDOW");
    assert_eq!(res.body["details"]["startTime"], "2026-11-22T08:00:00Z");
    app.post(&format!("/api/v1/bookings/{id}/reschedule"))
        .tenant(&t.id)
        .header("x-booking-token", &tok)
        .json(json!({"slotId": fx.slots[1]}))
        .send()
        .await
        .assert_error(409, "OUTSIDE_WINDOW");
    // A flexible policy allows changes until the start.
    app.patch(&format!("/api/v1/admin/sites/{}", fx.catalog.site_id))
        .tenant(&t.id)
        .token(&t.owner_token)
        .json(json!({"cancellationPolicy": "flexible"}))
        .send()
        .await
        .assert_status(200);
    app.post(&format!("/api/v1/bookings/{id}/reschedule"))
        .tenant(&t.id)
        .header("x-booking-token", &tok)
        .json(json!({"slotId": fx.slots[1]}))
        .send()
        .await
        .assert_status(200);
    // Staff are not bound by the window.
    app.patch(&format!("/api/v1/admin/sites/{}", fx.catalog.site_id))
        .tenant(&t.id)
        .token(&t.owner_token)
        .json(json!({"cancellationPolicy": "strict"}))
        .send()
        .await
        .assert_status(200);
    let slots = app
        .availability(&t.id, &fx.catalog, "2026-11-22", "2026-11-22", 1)
        .await;
    assert!(slots.text.contains(&fx.slots[0]));
    let res = app
        .post(&format!("/api/v1/bookings/{id}/cancel"))
        .tenant(&t.id)
        .token(&t.owner_token)
        .send()
        .await;
    res.assert_status(200);
    assert_eq!(res.body["status"], "canceled");
    app.assert_capacity_invariant(&t.id).await;
}

#[tokio::test]
async fn reschedule_moves_seats_atomically() {
    let (app, t, fx) = setup().await;
    let a = app.hold(&t.id, &fx, &fx.slots[0], 4).await;
    app.hold(&t.id, &fx, &fx.slots[1], 8)
        .await
        .assert_status(200);
    let path = format!("/api/v1/bookings/{}/reschedule", a.str("id"));
    // The target has 2 seats left: refused, nothing moves.
    app.post(&path)
        .tenant(&t.id)
        .header("x-booking-token", &token(&a))
        .json(json!({"slotId": fx.slots[1]}))
        .send()
        .await
        .assert_error(409, "SLOT_UNAVAILABLE");
    assert_eq!(available(&app, &t.id, &fx, &fx.slots[0]).await, 6);
    let res = app
        .post(&path)
        .tenant(&t.id)
        .header("x-booking-token", &token(&a))
        .json(json!({"slotId": fx.slots[2]}))
        .send()
        .await;
    res.assert_status(200);
    assert_eq!(res.body["slotId"], fx.slots[2].as_str());
    assert_eq!(res.body["startTime"], "2026-11-22T10:00:00Z");
    assert_eq!(available(&app, &t.id, &fx, &fx.slots[0]).await, 10);
    assert_eq!(available(&app, &t.id, &fx, &fx.slots[2]).await, 6);
    app.post(&path)
        .tenant(&t.id)
        .header("x-booking-token", &token(&a))
        .json(json!({}))
        .send()
        .await
        .assert_error(400, "VALIDATION_ERROR");
    app.post(&path)
        .tenant(&t.id)
        .header("x-booking-token", &token(&a))
        .json(json!({"slotId": "01890000-0000-7000-8000-000000000000"}))
        .send()
        .await
        .assert_error(404, "NOT_FOUND");
    app.assert_capacity_invariant(&t.id).await;
}

#[tokio::test]
async fn staff_run_a_booking_through_its_day() {
    let (app, t, fx) = setup().await;
    let (id, tok) = confirmed(&app, &t.id, &fx, &fx.slots[0], 2).await;
    // Customers cannot mark their own booking.
    app.post(&format!("/api/v1/bookings/{id}/mark-paid"))
        .tenant(&t.id)
        .header("x-booking-token", &tok)
        .send()
        .await
        .assert_error(401, "UNAUTHORIZED");
    app.staff(&t.id, "viewer", "viewer-pass-1", &[Role::Viewer])
        .await;
    let viewer = app.admin_token(&t.id, "viewer", "viewer-pass-1").await;
    app.post(&format!("/api/v1/bookings/{id}/mark-paid"))
        .tenant(&t.id)
        .token(&viewer)
        .send()
        .await
        .assert_error(403, "INSUFFICIENT_PERMISSIONS");
    // Tentative: arriving before paying is not in the table.
    app.post(&format!("/api/v1/bookings/{id}/mark-arrived"))
        .tenant(&t.id)
        .token(&t.owner_token)
        .send()
        .await
        .assert_error(409, "INVALID_TRANSITION");
    let res = app
        .post(&format!("/api/v1/bookings/{id}/mark-paid"))
        .tenant(&t.id)
        .token(&t.owner_token)
        .json(json!({"paymentMethod": "cash"}))
        .send()
        .await;
    res.assert_status(200);
    assert_eq!(res.body["status"], "paid");
    assert_eq!(res.body["paidAmount"], 40.0);
    assert_eq!(res.body["balanceDue"], 0.0);
    let res = app
        .post(&format!("/api/v1/bookings/{id}/mark-arrived"))
        .tenant(&t.id)
        .token(&t.owner_token)
        .send()
        .await;
    res.assert_status(200);
    assert_eq!(res.body["status"], "arrived");
    let res = app
        .patch(&format!("/api/v1/bookings/{id}/mark-no-show"))
        .tenant(&t.id)
        .token(&t.owner_token)
        .json(json!({"reason": "late correction"}))
        .send()
        .await;
    res.assert_status(200);
    assert_eq!(res.body["status"], "no_show");
    app.post(&format!("/api/v1/bookings/{id}/cancel"))
        .tenant(&t.id)
        .token(&t.owner_token)
        .send()
        .await
        .assert_error(409, "INVALID_TRANSITION");
    app.assert_capacity_invariant(&t.id).await;
}

#[tokio::test]
async fn partial_payment_makes_a_confirmed_booking_part_paid() {
    let (app, t, fx) = setup().await;
    let a = app.hold(&t.id, &fx, &fx.slots[0], 2).await;
    app.post(&format!("/api/v1/bookings/{}/confirm", a.str("id")))
        .tenant(&t.id)
        .header("x-booking-token", &token(&a))
        .json(json!({"pricingHash": a.str("pricingHash"), "paymentMethod": "cardpay"}))
        .send()
        .await
        .assert_status(200);
    let path = format!("/api/v1/bookings/{}/mark-paid", a.str("id"));
    app.post(&path)
        .tenant(&t.id)
        .token(&t.owner_token)
        .json(json!({"amount": 50.0}))
        .send()
        .await
        .assert_error(409, "AMOUNT_EXCEEDS_BALANCE");
    app.post(&path)
        .tenant(&t.id)
        .token(&t.owner_token)
        .json(json!({"amount": -1}))
        .send()
        .await
        .assert_error(400, "VALIDATION_ERROR");
    let res = app
        .post(&path)
        .tenant(&t.id)
        .token(&t.owner_token)
        .json(json!({"amount": 15.0}))
        .send()
        .await;
    res.assert_status(200);
    assert_eq!(res.body["status"], "part_paid");
    assert_eq!(res.body["balanceDue"], 25.0);
    // Another instalment keeps it part_paid.
    let res = app
        .post(&path)
        .tenant(&t.id)
        .token(&t.owner_token)
        .json(json!({"amount": 5.0}))
        .send()
        .await;
    res.assert_status(200);
    assert_eq!(res.body["status"], "part_paid");
    assert_eq!(res.body["balanceDue"], 20.0);
    app.post(&path)
        .tenant(&t.id)
        .token(&t.owner_token)
        .json(json!({"amount": 1.005}))
        .send()
        .await
        .assert_error(400, "VALIDATION_ERROR");
    let res = app
        .post(&path)
        .tenant(&t.id)
        .token(&t.owner_token)
        .send()
        .await;
    res.assert_status(200);
    assert_eq!(res.body["status"], "paid");
    assert_eq!(res.body["paidAmount"], 40.0);
    // Settled at the desk: the pending online payment will not collect again.
    let detail = app
        .get(&format!("/api/v1/admin/bookings/{}", a.str("id")))
        .tenant(&t.id)
        .token(&t.owner_token)
        .send()
        .await;
    let statuses: Vec<&str> = detail.body["payments"]
        .as_array()
        .map(|p| p.iter().filter_map(|p| p["status"].as_str()).collect())
        .unwrap_or_default();
    assert_eq!(
        statuses,
        ["CANCELED", "COMPLETED", "COMPLETED", "COMPLETED"]
    );
}

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
async fn the_expiry_worker_releases_overdue_holds() {
    let (app, t, fx) = setup().await;
    let a = app.hold(&t.id, &fx, &fx.slots[0], 6).await;
    let b = app.hold(&t.id, &fx, &fx.slots[1], 2).await;
    app.clock.advance(chrono::Duration::minutes(20));
    let expired = app
        .store
        .expire_overdue_holds(app.clock_now(), 1)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(expired, 1, "one per batch");
    let expired = app
        .store
        .expire_overdue_holds(app.clock_now(), 100)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(expired, 1);
    for res in [&a, &b] {
        let got = app
            .get(&format!("/api/v1/bookings/{}", res.str("id")))
            .tenant(&t.id)
            .header("x-booking-token", &token(res))
            .send()
            .await;
        assert_eq!(got.body["status"], "expired");
    }
    assert_eq!(available(&app, &t.id, &fx, &fx.slots[0]).await, 10);
    app.assert_capacity_invariant(&t.id).await;
    // An expired hold may still be canceled, once, without releasing again.
    app.post(&format!("/api/v1/bookings/{}/cancel", a.str("id")))
        .tenant(&t.id)
        .header("x-booking-token", &token(&a))
        .send()
        .await
        .assert_status(200);
    app.assert_capacity_invariant(&t.id).await;
}

#[tokio::test]
async fn a_hold_prices_its_variant_addons_and_keeps_participants() {
    let (app, t, fx) = setup().await;
    let base = format!("/api/v1/admin/products/{}", fx.catalog.product_id);
    let admin = |path: String, body: serde_json::Value| {
        app.post(&path)
            .tenant(&t.id)
            .token(&t.owner_token)
            .json(body)
            .send()
    };
    let student = admin(
        format!("{base}/variants"),
        json!({"name": "Student", "priceMode": "adjustment", "priceAmount": -5}),
    )
    .await;
    student.assert_status(200);
    let shoes = admin(
        format!("{base}/addons"),
        json!({"name": "Shoes", "addonType": "item", "mode": "per_participant", "priceType": "per_person", "unitPrice": 4}),
    )
    .await;
    let photo = admin(
        format!("{base}/addons"),
        json!({"name": "Photo", "addonType": "upgrade", "mode": "yesno", "priceType": "fixed", "price": 9.9}),
    )
    .await;
    let chalk = admin(
        format!("{base}/addons"),
        json!({"name": "Chalk", "addonType": "item", "mode": "free_qty", "priceType": "fixed", "unitPrice": 1.5, "maxQuantity": 5}),
    )
    .await;
    let hold = |addons: serde_json::Value, participants: serde_json::Value| {
        app.post("/api/v1/bookings/hold")
            .tenant(&t.id)
            .json(json!({
                "siteId": fx.catalog.site_id, "productId": fx.catalog.product_id,
                "slotId": fx.slots[0], "partySize": 2, "variantId": student.str("id"),
                "addons": addons, "participants": participants
            }))
            .send()
    };
    let res = hold(
        json!([
            {"addonId": shoes.str("id"), "quantity": 1},
            {"addonId": photo.str("id"), "quantity": 1},
            {"addonId": chalk.str("id"), "quantity": 3}
        ]),
        json!([{"firstName": "Ada", "lastName": "Lovelace", "dateOfBirth": "1990-12-10"}]),
    )
    .await;
    res.assert_status(200);
    // 2 × (20 − 5) = 30; shoes 2 × 4 = 8; photo 9.90; chalk 3 × 1.50 = 4.50.
    assert_eq!(res.body["price"]["basePrice"], 30.0);
    assert_eq!(res.body["price"]["total"], 52.4);
    let lines: Vec<(String, u64, f64)> = res.body["price"]["addons"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|l| {
                    (
                        l["name"].as_str().unwrap_or_default().to_owned(),
                        l["quantity"].as_u64().unwrap_or(0),
                        l["total"].as_f64().unwrap_or(0.0),
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    assert_eq!(
        lines,
        vec![
            ("Shoes".to_owned(), 2, 8.0),
            ("Photo".to_owned(), 1, 9.9),
            ("Chalk".to_owned(), 3, 4.5)
        ]
    );
    assert_eq!(res.body["participants"][0]["firstName"], "Ada");
    assert_eq!(
        res.body["addons"][0]["quantity"], 2,
        "stored as priced: one per participant"
    );
    assert_eq!(res.body["variantId"], student.body["id"]);

    let res = hold(
        json!([
            {"addonId": photo.str("id"), "quantity": 2},
            {"addonId": chalk.str("id"), "quantity": 9},
            {"addonId": chalk.str("id"), "quantity": 1},
            {"addonId": "01890000-0000-7000-8000-000000000000"}
        ]),
        json!([{"firstName": "A"}, {"lastName": "B", "dateOfBirth": "10/12/1990"}, {"firstName": "C", "lastName": "D"}]),
    )
    .await;
    res.assert_error(400, "VALIDATION_ERROR");
    let mut fields = res.error_fields();
    fields.sort();
    assert_eq!(
        fields,
        [
            "participants",
            "participants[0].lastName",
            "participants[1].dateOfBirth",
            "participants[1].firstName",
        ]
    );
    let res = hold(
        json!([
            {"addonId": photo.str("id"), "quantity": 2},
            {"addonId": chalk.str("id"), "quantity": 9},
            {"addonId": chalk.str("id"), "quantity": 1},
            {"addonId": "01890000-0000-7000-8000-000000000000"}
        ]),
        json!([]),
    )
    .await;
    res.assert_error(400, "VALIDATION_ERROR");
    assert_eq!(
        res.error_fields(),
        [
            "addons[0].quantity",
            "addons[1].quantity",
            "addons[2].addonId",
            "addons[3].addonId"
        ]
    );
    app.assert_capacity_invariant(&t.id).await;
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
async fn staff_without_the_permission_are_refused_not_misled() {
    let (app, t, fx) = setup().await;
    let a = app.hold(&t.id, &fx, &fx.slots[0], 2).await;
    app.staff(&t.id, "viewer", "viewer-pass-1", &[Role::Viewer])
        .await;
    let viewer = app.admin_token(&t.id, "viewer", "viewer-pass-1").await;
    app.get(&format!("/api/v1/bookings/{}", a.str("id")))
        .tenant(&t.id)
        .token(&viewer)
        .send()
        .await
        .assert_status(200);
    for action in ["cancel", "reschedule", "confirm"] {
        app.post(&format!("/api/v1/bookings/{}/{action}", a.str("id")))
            .tenant(&t.id)
            .token(&viewer)
            .json(json!({}))
            .send()
            .await
            .assert_error(403, "INSUFFICIENT_PERMISSIONS");
    }
    assert_eq!(available(&app, &t.id, &fx, &fx.slots[0]).await, 8);
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
async fn a_hold_whose_variant_or_addon_was_withdrawn_cannot_be_confirmed() {
    let (app, t, fx) = setup().await;
    let base = format!("/api/v1/admin/products/{}", fx.catalog.product_id);
    let variant = app
        .post(&format!("{base}/variants"))
        .tenant(&t.id)
        .token(&t.owner_token)
        .json(json!({"name": "Student", "priceMode": "adjustment", "priceAmount": -5}))
        .send()
        .await;
    let addon = app
        .post(&format!("{base}/addons"))
        .tenant(&t.id)
        .token(&t.owner_token)
        .json(json!({"name": "Photo", "addonType": "upgrade", "mode": "yesno", "priceType": "fixed", "price": 9.9}))
        .send()
        .await;
    let hold = |extra: serde_json::Value| {
        let mut body = json!({"siteId": fx.catalog.site_id, "productId": fx.catalog.product_id,
                              "slotId": fx.slots[0], "partySize": 1});
        if let (Some(map), serde_json::Value::Object(extra)) = (body.as_object_mut(), extra) {
            map.extend(extra);
        }
        app.post("/api/v1/bookings/hold")
            .tenant(&t.id)
            .json(body)
            .send()
    };
    let with_variant = hold(json!({"variantId": variant.str("id")})).await;
    let with_addon = hold(json!({"addons": [{"addonId": addon.str("id")}]})).await;
    let plain = hold(json!({})).await;
    for path in [
        format!("{base}/variants/{}", variant.str("id")),
        format!("{base}/addons/{}", addon.str("id")),
    ] {
        app.delete(&path)
            .tenant(&t.id)
            .token(&t.owner_token)
            .send()
            .await
            .assert_status(200);
    }
    for h in [&with_variant, &with_addon] {
        let res = app
            .post(&format!("/api/v1/bookings/{}/confirm", h.str("id")))
            .tenant(&t.id)
            .header("x-booking-token", &token(h))
            .json(json!({"pricingHash": h.str("pricingHash"), "paymentMethod": "poa"}))
            .send()
            .await;
        res.assert_error(409, "PRICING_CHANGED");
        assert_eq!(res.body["details"]["reason"], "item_withdrawn");
        assert!(res.body["details"].get("pricingHash").is_none());
    }
    app.delete(&base)
        .tenant(&t.id)
        .token(&t.owner_token)
        .send()
        .await
        .assert_status(200);
    let res = app
        .post(&format!("/api/v1/bookings/{}/confirm", plain.str("id")))
        .tenant(&t.id)
        .header("x-booking-token", &token(&plain))
        .json(json!({"pricingHash": plain.str("pricingHash"), "paymentMethod": "poa"}))
        .send()
        .await;
    res.assert_error(409, "PRICING_CHANGED");
    assert_eq!(res.body["details"]["reason"], "item_withdrawn");
}

#[tokio::test]
async fn only_bookings_still_to_come_can_be_rescheduled() {
    let (app, t, fx) = setup().await;
    let (id, _) = confirmed(&app, &t.id, &fx, &fx.slots[0], 2).await;
    for action in ["mark-paid", "mark-arrived"] {
        app.post(&format!("/api/v1/bookings/{id}/{action}"))
            .tenant(&t.id)
            .token(&t.owner_token)
            .send()
            .await
            .assert_status(200);
    }
    let res = app
        .post(&format!("/api/v1/bookings/{id}/reschedule"))
        .tenant(&t.id)
        .token(&t.owner_token)
        .json(json!({"slotId": fx.slots[1]}))
        .send()
        .await;
    res.assert_error(409, "INVALID_TRANSITION");
    assert_eq!(res.body["details"]["currentStatus"], "arrived");
    assert_eq!(available(&app, &t.id, &fx, &fx.slots[1]).await, 10);
    app.assert_capacity_invariant(&t.id).await;
}

#[tokio::test]
async fn a_hold_on_a_slot_that_has_started_cannot_be_confirmed() {
    let (app, t, fx) = setup().await;
    app.patch(&format!("/api/v1/admin/sites/{}", fx.catalog.site_id))
        .tenant(&t.id)
        .token(&t.owner_token)
        .json(json!({"holdTtlMinutes": 180}))
        .send()
        .await
        .assert_status(200);
    // Today 12:00 Helsinki (10:00Z) is an hour away.
    let today = app
        .availability(&t.id, &fx.catalog, "2026-11-21", "2026-11-21", 1)
        .await;
    let slot = today.body["slots"][1]["slotId"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    assert_eq!(today.body["slots"][1]["startsAt"], "2026-11-21T10:00:00Z");
    let a = app.hold(&t.id, &fx, &slot, 2).await;
    a.assert_status(200);
    app.clock.advance(chrono::Duration::minutes(61));
    let res = app
        .post(&format!("/api/v1/bookings/{}/confirm", a.str("id")))
        .tenant(&t.id)
        .header("x-booking-token", &token(&a))
        .json(json!({"pricingHash": a.str("pricingHash"), "paymentMethod": "poa"}))
        .send()
        .await;
    res.assert_error(409, "SLOT_UNAVAILABLE");
    assert!(res.str("message").contains("started"), "{}", res.text);
}

#[tokio::test]
async fn booking_texts_are_bounded_and_checked() {
    let (app, t, fx) = setup().await;
    let long = "x".repeat(1001);
    let res = app
        .post("/api/v1/bookings/hold")
        .tenant(&t.id)
        .json(json!({
            "siteId": fx.catalog.site_id, "productId": fx.catalog.product_id,
            "slotId": fx.slots[0], "partySize": 2,
            "customer": {"name": "Eve"},
            "participants": [
                {"firstName": "y".repeat(101), "lastName": "L", "email": "nope", "phone": "abc",
                 "dateOfBirth": "1800-01-01", "specialRequests": long},
                {"firstName": "A", "lastName": "B", "dateOfBirth": "2027-01-01"}
            ]
        }))
        .send()
        .await;
    res.assert_error(400, "VALIDATION_ERROR");
    let mut fields = res.error_fields();
    fields.sort();
    assert_eq!(
        fields,
        [
            "participants[0].dateOfBirth",
            "participants[0].email",
            "participants[0].firstName",
            "participants[0].phone",
            "participants[0].specialRequests",
            "participants[1].dateOfBirth",
        ]
    );
    // Control characters are refused before anything else is looked at (one text rule
    // for every request string): a header injection in a name is named alone.
    let res = app
        .post("/api/v1/bookings/hold")
        .tenant(&t.id)
        .json(json!({
            "siteId": fx.catalog.site_id, "productId": fx.catalog.product_id,
            "slotId": fx.slots[0], "partySize": 2,
            "customer": {"name": "Eve\r\nBcc: x@example.com"},
        }))
        .send()
        .await;
    res.assert_error(400, "VALIDATION_ERROR");
    assert_eq!(res.error_fields(), ["customer.name"]);
    app.post("/api/v1/bookings/hold")
        .tenant(&t.id)
        .header("Idempotency-Key", "tab\there")
        .json(json!({}))
        .send()
        .await
        .assert_error(400, "VALIDATION_ERROR");
    let a = app.hold(&t.id, &fx, &fx.slots[0], 1).await;
    let res = app
        .post(&format!("/api/v1/bookings/{}/cancel", a.str("id")))
        .tenant(&t.id)
        .header("x-booking-token", &token(&a))
        .json(json!({"reason": long}))
        .send()
        .await;
    res.assert_error(400, "VALIDATION_ERROR");
    assert_eq!(res.error_fields(), ["reason"]);
    assert_eq!(
        available(&app, &t.id, &fx, &fx.slots[0]).await,
        9,
        "nothing canceled"
    );
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
