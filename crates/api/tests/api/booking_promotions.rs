//! Promotion codes on holds (spec Part A 4.7): applying, stacking, refusals, validating,
//! removing, and confirming with the new hash.
//!
//! The fixture's product costs 20.00 per person including 24 % tax.

use kairos_domain::TenantId;
use kairos_testkit::{BookingFixture, TenantFixture, TestApp, TestResponse};
use serde_json::{Value, json};

pub(crate) struct Fx {
    pub(crate) app: TestApp,
    pub(crate) t: TenantFixture,
    pub(crate) fx: BookingFixture,
}

pub(crate) async fn fx() -> Fx {
    let app = TestApp::spawn().await;
    let t = app.tenant("acme").await;
    let fx = app.bookable(&t).await;
    Fx { app, t, fx }
}

/// A hold of `party` on the first slot: (id, token, pricing hash).
pub(crate) async fn hold(f: &Fx, party: u32, email: &str) -> (String, String, String) {
    let res = f
        .app
        .hold_for("acme", &f.fx.catalog, &f.fx.slots[0], party, email)
        .await;
    res.assert_status(200);
    (
        res.str("id").to_owned(),
        res.str("bookingToken").to_owned(),
        res.str("pricingHash").to_owned(),
    )
}

pub(crate) async fn promotion(f: &Fx, body: Value) -> String {
    let mut full = json!({"name": "Offer", "starts_at": "2026-11-01T00:00:00Z"});
    if let (Some(full), Some(extra)) = (full.as_object_mut(), body.as_object()) {
        for (k, v) in extra {
            full.insert(k.clone(), v.clone());
        }
    }
    let res = f
        .app
        .post("/api/v1/admin/promotions")
        .tenant("acme")
        .token(&f.t.owner_token)
        .json(full)
        .send()
        .await;
    res.assert_status(200);
    res.str("/promotion/id").to_owned()
}

pub(crate) async fn apply(f: &Fx, booking: &str, token: &str, code: &str) -> TestResponse {
    f.app
        .post("/api/v1/promotions/apply")
        .tenant("acme")
        .header("x-booking-token", token)
        .json(json!({"booking_id": booking, "promotion_code": code}))
        .send()
        .await
}

async fn remove(f: &Fx, booking: &str, token: &str, code: &str) -> TestResponse {
    f.app
        .delete(&format!("/api/v1/bookings/{booking}/promotions/{code}"))
        .tenant("acme")
        .header("x-booking-token", token)
        .send()
        .await
}

pub(crate) async fn admin_promotion(f: &Fx, id: &str) -> Value {
    let res = f
        .app
        .get(&format!("/api/v1/admin/promotions/{id}"))
        .tenant("acme")
        .token(&f.t.owner_token)
        .send()
        .await;
    res.assert_status(200);
    res.body
}

pub(crate) async fn assert_invariants(f: &Fx) {
    let tenant = TenantId::parse("acme").unwrap_or_else(|e| panic!("{e}"));
    let uses = f.app.store.promotion_usage_mismatches(&tenant).await;
    assert_eq!(uses.ok(), Some(vec![]), "usage counts equal usage records");
    let ledgers = f.app.store.voucher_ledger_mismatches(&tenant).await;
    assert_eq!(ledgers.ok(), Some(vec![]), "balances equal their ledgers");
    f.app.assert_capacity_invariant("acme").await;
}

#[tokio::test]
async fn a_code_discounts_a_hold_and_confirm_checks_the_new_hash() {
    let f = fx().await;
    let id = promotion(
        &f,
        json!({"code": "TENOFF", "type": "percentage", "discount_value": 10, "is_stackable": true}),
    )
    .await;
    let (booking, token, hash) = hold(&f, 2, "ada@example.com").await;

    // A stale hash changes nothing.
    let stale = f
        .app
        .post("/api/v1/promotions/apply")
        .tenant("acme")
        .header("x-booking-token", &token)
        .json(json!({"booking_id": booking, "promotion_code": "tenoff", "expected_pricing_hash": "ph1_stale"}))
        .send()
        .await;
    stale.assert_error(409, "PRICING_CHANGED");
    assert_eq!(stale.body["details"]["pricingHash"], hash.as_str());

    let res = f
        .app
        .post("/api/v1/promotions/apply")
        .tenant("acme")
        .header("x-booking-token", &token)
        .json(json!({"booking_id": booking, "promotion_code": "tenoff", "expected_pricing_hash": hash}))
        .send()
        .await;
    res.assert_status(200);
    let b = &res.body["booking"];
    assert_eq!(res.body["success"], true);
    assert_eq!(b["status"], "hold");
    assert_eq!(b["subtotal"], 40.0);
    assert_eq!(b["promotion_discount"], 4.0);
    // Tax after the discount: 36.00 including 24 % holds 6.97.
    assert_eq!(b["tax_amount"], 6.97);
    assert_eq!(b["total"], 36.0);
    assert_eq!(b["currency"], "EUR");
    let new_hash = b["pricing_hash"].as_str().unwrap_or_default().to_owned();
    assert_ne!(new_hash, hash);
    let applied = &res.body["applied_promotion"];
    assert_eq!(applied["id"], id.as_str());
    assert_eq!(applied["code"], "TENOFF");
    assert_eq!(applied["type"], "percentage");
    assert_eq!(applied["discount_amount"], 4.0);
    assert_eq!(res.body["pricing_recalculated"], true);
    assert_eq!(res.body["hash_validated"], true);
    let stacking = &res.body["stacking"];
    assert_eq!(stacking["canonicalOrder"], json!(["TENOFF"]));
    assert_eq!(stacking["stackingStopped"], false);
    assert_eq!(stacking["totalDiscountAmount"], 4.0);
    assert_eq!(stacking["discountBreakdown"][0]["subtotalBefore"], 40.0);
    assert_eq!(stacking["discountBreakdown"][0]["subtotalAfter"], 36.0);

    // The same code again: nothing changes, and the answer is the first one.
    let again = apply(&f, &booking, &token, "TenOff").await;
    again.assert_status(200);
    assert_eq!(again.body["pricing_recalculated"], true);
    assert_eq!(
        again.body["applied_promotion"],
        res.body["applied_promotion"]
    );
    assert_eq!(again.body["booking"]["pricing_hash"], new_hash.as_str());
    assert_eq!(admin_promotion(&f, &id).await["usage_count"], 1);

    // The booking shows the discount; confirm wants the new hash.
    let got = f
        .app
        .get(&format!("/api/v1/bookings/{booking}"))
        .tenant("acme")
        .header("x-booking-token", &token)
        .send()
        .await;
    got.assert_status(200);
    assert_eq!(got.body["price"]["promotionDiscount"], 4.0);
    assert_eq!(got.body["price"]["discounts"][0]["code"], "TENOFF");
    assert_eq!(got.body["pricingHash"], new_hash.as_str());
    f.app
        .post(&format!("/api/v1/bookings/{booking}/confirm"))
        .tenant("acme")
        .header("x-booking-token", &token)
        .json(json!({"pricingHash": hash, "paymentMethod": "poa"}))
        .send()
        .await
        .assert_error(409, "PRICING_CHANGED");
    let confirmed = f
        .app
        .post(&format!("/api/v1/bookings/{booking}/confirm"))
        .tenant("acme")
        .header("x-booking-token", &token)
        .json(json!({"pricingHash": new_hash, "paymentMethod": "poa"}))
        .send()
        .await;
    confirmed.assert_status(200);
    assert_eq!(confirmed.body["price"]["total"], 36.0);

    // A confirmed booking takes no more codes.
    apply(&f, &booking, &token, "TENOFF")
        .await
        .assert_error(409, "INVALID_TRANSITION");

    // The statistics come from the use records.
    let stats = f
        .app
        .get(&format!("/api/v1/admin/promotions/{id}/stats"))
        .tenant("acme")
        .token(&f.t.owner_token)
        .send()
        .await;
    stats.assert_status(200);
    let s = &stats.body["statistics"];
    assert_eq!(stats.body["promotion"]["code"], "TENOFF");
    assert_eq!(s["total_usage_count"], 1);
    assert_eq!(s["remaining_uses"], Value::Null);
    assert_eq!(s["total_discount_given"], 4.0);
    assert_eq!(s["average_discount_per_use"], 4.0);
    assert_eq!(s["unique_customers"], 1);
    assert_eq!(s["bookings_with_promotion"], 1);
    assert_eq!(s["peak_usage_day"], "2026-11-21");
    assert_eq!(
        s["usage_by_day"],
        json!([{"date": "2026-11-21", "usage_count": 1, "total_discount": 4.0}])
    );
    assert!(s["first_used_at"].is_string() && s["last_used_at"].is_string());
    assert_invariants(&f).await;
}

#[tokio::test]
async fn codes_stack_fixed_first_then_percentage_and_a_non_stackable_one_stands_alone() {
    let f = fx().await;
    promotion(
        &f,
        json!({"code": "TEN", "type": "percentage", "discount_value": 10, "is_stackable": true}),
    )
    .await;
    promotion(
        &f,
        json!({"code": "FIVE", "type": "fixed_amount", "discount_value": 5, "is_stackable": true}),
    )
    .await;
    let solo = promotion(
        &f,
        json!({"code": "SOLO", "type": "percentage", "discount_value": 50, "is_stackable": false}),
    )
    .await;
    let (booking, token, _) = hold(&f, 2, "ada@example.com").await;

    // Applied percentage first, fixed second: computed fixed first all the same.
    apply(&f, &booking, &token, "TEN").await.assert_status(200);
    let res = apply(&f, &booking, &token, "FIVE").await;
    res.assert_status(200);
    assert_eq!(res.body["booking"]["promotion_discount"], 8.5);
    assert_eq!(res.body["booking"]["total"], 31.5);
    assert_eq!(res.body["applied_promotion"]["discount_amount"], 5.0);
    let stacking = &res.body["stacking"];
    assert_eq!(stacking["canonicalOrder"], json!(["FIVE", "TEN"]));
    let lines = &stacking["discountBreakdown"];
    assert_eq!(lines[0]["code"], "FIVE");
    assert_eq!(lines[0]["subtotalAfter"], 35.0);
    assert_eq!(lines[1]["code"], "TEN");
    assert_eq!(lines[1]["discountApplied"], 3.5);
    assert_eq!(lines[1]["subtotalAfter"], 31.5);

    // A non-stackable code cannot join them.
    let refused = apply(&f, &booking, &token, "SOLO").await;
    refused.assert_error(409, "STACKING_VIOLATION");
    assert_eq!(refused.body["details"]["code"], "SOLO");

    // Taken off again, the others make room for it; then nothing joins it.
    remove(&f, &booking, &token, "five")
        .await
        .assert_status(200);
    let after = remove(&f, &booking, &token, "TEN").await;
    after.assert_status(200);
    assert_eq!(after.body["booking"]["total"], 40.0);
    assert_eq!(after.body["booking"]["promotion_discount"], 0.0);
    remove(&f, &booking, &token, "TEN")
        .await
        .assert_error(404, "NOT_FOUND");
    let alone = apply(&f, &booking, &token, "SOLO").await;
    alone.assert_status(200);
    assert_eq!(alone.body["booking"]["total"], 20.0);
    assert_eq!(alone.body["stacking"]["stackingStopped"], true);
    assert_eq!(alone.body["stacking"]["stoppedBy"], solo.as_str());
    let joined = apply(&f, &booking, &token, "TEN").await;
    joined.assert_error(409, "STACKING_VIOLATION");
    assert_eq!(joined.body["details"]["conflictsWith"], "SOLO");
    assert_invariants(&f).await;
}

#[tokio::test]
async fn buy_x_get_y_and_bundle_price_the_party() {
    let f = fx().await;
    // Bring 4, one goes free; every 3 people pay 50.00 together.
    promotion(&f, json!({"code": "FOURTH", "type": "buy_x_get_y", "buy_quantity": 3, "discount_value": 1, "is_stackable": true})).await;
    promotion(&f, json!({"code": "TRIO", "type": "bundle", "bundle_size": 3, "discount_value": 50, "is_stackable": true})).await;
    let (booking, token, _) = hold(&f, 4, "ada@example.com").await;
    let res = apply(&f, &booking, &token, "FOURTH").await;
    res.assert_status(200);
    assert_eq!(res.body["booking"]["total"], 60.0);
    let (other, other_token, _) = hold(&f, 4, "bob@example.com").await;
    let bundle = apply(&f, &other, &other_token, "TRIO").await;
    bundle.assert_status(200);
    // Three at 60.00 pay 50.00; the fourth pays 20.00.
    assert_eq!(bundle.body["booking"]["total"], 70.0);
    assert_eq!(bundle.body["applied_promotion"]["discount_amount"], 10.0);
    // Both: the bundle first, then one free of the remainder's people.
    let both = apply(&f, &other, &other_token, "FOURTH").await;
    both.assert_status(200);
    assert_eq!(
        both.body["stacking"]["canonicalOrder"],
        json!(["TRIO", "FOURTH"])
    );
    assert_eq!(both.body["booking"]["total"], 50.0);
}

#[tokio::test]
async fn every_promotion_refusal_has_its_code() {
    let f = fx().await;
    let other = f.app.catalog(&f.t).await;
    promotion(&f, json!({"code": "LATER", "type": "percentage", "discount_value": 10, "starts_at": "2027-01-01T00:00:00Z"})).await;
    promotion(&f, json!({"code": "OVER", "type": "percentage", "discount_value": 10, "expires_at": "2026-11-10T00:00:00Z"})).await;
    promotion(
        &f,
        json!({"code": "OFF", "type": "percentage", "discount_value": 10, "is_active": false}),
    )
    .await;
    promotion(&f, json!({"code": "ELSEWHERE", "type": "percentage", "discount_value": 10, "applicable_sites": [other.site_id]})).await;
    promotion(&f, json!({"code": "OTHERPROD", "type": "percentage", "discount_value": 10, "applicable_products": [other.product_id]})).await;
    promotion(&f, json!({"code": "BIGSPEND", "type": "fixed_amount", "discount_value": 10, "min_spend_amount": 100})).await;
    promotion(&f, json!({"code": "ONCE", "type": "fixed_amount", "discount_value": 1, "usage_limit": 1, "is_stackable": true})).await;
    promotion(&f, json!({"code": "MINE", "type": "fixed_amount", "discount_value": 1, "per_customer_limit": 1, "is_stackable": true})).await;
    let (booking, token, _) = hold(&f, 2, "ada@example.com").await;
    for (code, reason) in [
        ("NOSUCH", "not_found"),
        ("LATER", "not_started"),
        ("OVER", "expired"),
        ("OFF", "inactive"),
        ("ELSEWHERE", "not_applicable_site"),
        ("OTHERPROD", "not_applicable_product"),
    ] {
        let res = apply(&f, &booking, &token, code).await;
        res.assert_error(400, "INVALID_PROMOTION");
        assert_eq!(res.body["details"]["reason"], reason, "{code}");
        assert_eq!(res.body["details"]["valid"], false);
    }
    let spend = apply(&f, &booking, &token, "BIGSPEND").await;
    spend.assert_error(409, "MIN_SPEND_NOT_MET");
    assert_eq!(spend.body["details"]["minimum_spend"], 100.0);
    assert_eq!(spend.body["details"]["current_subtotal"], 40.0);

    // The only use of ONCE is taken by a hold; given back when that hold is cancelled.
    apply(&f, &booking, &token, "ONCE").await.assert_status(200);
    let (second, second_token, _) = hold(&f, 1, "bob@example.com").await;
    let used = apply(&f, &second, &second_token, "ONCE").await;
    used.assert_error(409, "USAGE_LIMIT_EXCEEDED");
    assert_eq!(used.body["details"]["reason"], "usage_limit_reached");

    // Per customer: the same email on another hold.
    apply(&f, &booking, &token, "MINE").await.assert_status(200);
    let (third, third_token, _) = hold(&f, 1, "ADA@example.com").await;
    let mine = apply(&f, &third, &third_token, "MINE").await;
    mine.assert_error(409, "USAGE_LIMIT_EXCEEDED");
    assert_eq!(mine.body["details"]["reason"], "per_customer_limit_reached");
    apply(&f, &second, &second_token, "MINE")
        .await
        .assert_status(200);

    f.app
        .post(&format!("/api/v1/bookings/{booking}/cancel"))
        .tenant("acme")
        .header("x-booking-token", &token)
        .json(json!({}))
        .send()
        .await
        .assert_status(200);
    // The cancelled hold gave back its uses: ONCE for anyone, MINE for this customer.
    apply(&f, &second, &second_token, "ONCE")
        .await
        .assert_status(200);
    apply(&f, &third, &third_token, "MINE")
        .await
        .assert_status(200);

    // Bad input is a 400 naming the field; someone else's booking is not found.
    let bad = f
        .app
        .post("/api/v1/promotions/apply")
        .tenant("acme")
        .header("x-booking-token", &token)
        .json(json!({"booking_id": "nope"}))
        .send()
        .await;
    bad.assert_error(400, "VALIDATION_ERROR");
    assert_eq!(bad.error_fields(), vec!["promotion_code", "booking_id"]);
    apply(&f, &second, &token, "ONCE")
        .await
        .assert_error(404, "BOOKING_NOT_FOUND");
    // The alias, with the booking in the path.
    let alias = f
        .app
        .post(&format!("/api/v1/bookings/{third}/apply-promo"))
        .tenant("acme")
        .header("x-booking-token", &third_token)
        .json(json!({"promotion_code": "ONCE"}))
        .send()
        .await;
    alias.assert_error(409, "USAGE_LIMIT_EXCEEDED");
    assert_invariants(&f).await;
}

#[tokio::test]
async fn validate_says_whether_a_code_applies_and_why_not() {
    let f = fx().await;
    promotion(&f, json!({"code": "TEN", "type": "percentage", "discount_value": 10, "max_discount_amount": 3, "min_spend_amount": 20, "applicable_sites": [f.fx.catalog.site_id]})).await;
    let ok = f
        .app
        .post("/api/v1/promotions/validate")
        .tenant("acme")
        .json(json!({"code": "ten", "site_id": f.fx.catalog.site_id, "cart_subtotal": 40}))
        .send()
        .await;
    ok.assert_status(200);
    assert_eq!(ok.body["valid"], true);
    assert_eq!(ok.body["promotion"]["code"], "TEN");
    assert_eq!(ok.body["promotion"]["discount_value"], 10.0);
    // 10 % of 40.00 is 4.00, capped at 3.00.
    assert_eq!(ok.body["promotion"]["estimated_discount"], 3.0);
    assert_eq!(ok.body["promotion"]["applicable"], true);
    let no_subtotal = f
        .app
        .post("/api/v1/promotions/validate")
        .tenant("acme")
        .json(json!({"code": "TEN"}))
        .send()
        .await;
    no_subtotal.assert_status(200);
    assert_eq!(no_subtotal.body["promotion"]["estimated_discount"], 0.0);
    assert!(
        !no_subtotal.body["warnings"]
            .as_array()
            .is_none_or(Vec::is_empty)
    );
    for (body, reason) in [
        (json!({"code": "NOPE"}), "not_found"),
        (
            json!({"code": "TEN", "cart_subtotal": 10}),
            "min_spend_not_met",
        ),
        (
            json!({"code": "TEN", "site_id": "00000000-0000-0000-0000-000000000001"}),
            "not_applicable_site",
        ),
    ] {
        let res = f
            .app
            .post("/api/v1/promotions/validate")
            .tenant("acme")
            .json(body)
            .send()
            .await;
        res.assert_error(400, "INVALID_PROMOTION");
        assert_eq!(res.body["valid"], false);
        assert_eq!(res.body["reason"], reason);
        assert_eq!(res.body["details"]["reason"], reason);
    }
    let bad = f
        .app
        .post("/api/v1/promotions/validate")
        .tenant("acme")
        .json(json!({"cart_subtotal": -1, "site_id": "x"}))
        .send()
        .await;
    bad.assert_error(400, "VALIDATION_ERROR");
    assert_eq!(bad.error_fields(), vec!["code", "site_id", "cart_subtotal"]);
}

#[tokio::test]
async fn a_bad_query_on_removing_a_code_is_a_400_in_shape_a() {
    let f = fx().await;
    let (booking, token, _) = hold(&f, 1, "ada@example.com").await;
    let res = f
        .app
        .delete(&format!(
            "/api/v1/bookings/{booking}/promotions/TEN?expected_pricing_hash=a&expected_pricing_hash=b"
        ))
        .tenant("acme")
        .header("x-booking-token", &token)
        .send()
        .await;
    res.assert_error(400, "VALIDATION_ERROR");
    assert_eq!(res.body["code"], 400);
}
