//! Confirming a hold: payment methods, stale prices, expired holds, withdrawn variants and
//! add-ons, started slots, and partial payment.

use super::bookings::{available, setup, token};
use serde_json::json;

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
    // The card payment of the whole price would now collect more than is owed: it is
    // withdrawn, and the rest is taken at the desk.
    let detail = app
        .get(&format!("/api/v1/admin/bookings/{}", a.str("id")))
        .tenant(&t.id)
        .token(&t.owner_token)
        .send()
        .await;
    let card = detail.body["payments"]
        .as_array()
        .and_then(|p| p.iter().find(|p| p["method"] == "cardpay"))
        .cloned()
        .unwrap_or_default();
    assert_eq!(card["status"], "CANCELED", "{}", detail.text);
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
