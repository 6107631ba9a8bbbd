//! Vouchers on holds: paying from their ledger, refusals, codes applied after a voucher,
//! the invariant checks, and a repeated apply answered once.

use super::booking_promotions::{Fx, apply, assert_invariants, fx, hold, promotion};
use kairos_domain::TenantId;
use kairos_testkit::TestResponse;
use serde_json::{Value, json};

async fn voucher(f: &Fx, body: Value) -> String {
    let res = f
        .app
        .post("/api/v1/admin/vouchers")
        .tenant("acme")
        .token(&f.t.owner_token)
        .json(body)
        .send()
        .await;
    res.assert_status(200);
    res.str("/voucher/id").to_owned()
}

async fn apply_voucher(f: &Fx, booking: &str, token: &str, code: &str) -> TestResponse {
    f.app
        .post(&format!("/api/v1/bookings/{booking}/apply-voucher"))
        .tenant("acme")
        .header("x-booking-token", token)
        .json(json!({"voucher_code": code}))
        .send()
        .await
}

async fn balance(f: &Fx, code: &str) -> f64 {
    let res = f
        .app
        .get(&format!("/api/v1/vouchers/{code}/balance"))
        .tenant("acme")
        .send()
        .await;
    res.assert_status(200);
    res.body["voucher"]["current_balance"]
        .as_f64()
        .unwrap_or(-1.0)
}

#[tokio::test]
async fn vouchers_pay_holds_from_their_ledger_and_get_it_back() {
    let f = fx().await;
    voucher(
        &f,
        json!({"code": "GIFT-AAAA-BBBB", "type": "gift_card", "original_value": 30}),
    )
    .await;
    let (booking, token, _) = hold(&f, 2, "ada@example.com").await;
    let res = apply_voucher(&f, &booking, &token, "gift-aaaa-bbbb").await;
    res.assert_status(200);
    let v = &res.body["applied_voucher"];
    assert_eq!(v["code"], "GIFT-AAAA-BBBB");
    assert_eq!(v["type"], "gift_card");
    assert_eq!(v["applied_amount"], 30.0);
    assert_eq!(v["balance_before"], 30.0);
    assert_eq!(v["balance_after"], 0.0);
    assert_eq!(res.body["booking"]["voucher_applied"], 30.0);
    assert_eq!(res.body["booking"]["total"], 10.0);
    // Vouchers pay; they do not lower the tax of 40.00.
    assert_eq!(res.body["booking"]["tax_amount"], 7.74);
    assert_eq!(res.body["pricing_recalculated"], true);
    let hash = res.str("/booking/pricing_hash").to_owned();

    // The same voucher on the same booking: the first result.
    let again = apply_voucher(&f, &booking, &token, "GIFT-AAAA-BBBB").await;
    again.assert_status(200);
    assert_eq!(again.body["pricing_recalculated"], true);
    assert_eq!(again.body["applied_voucher"], res.body["applied_voucher"]);
    assert_eq!(again.body["applied_voucher"]["applied_amount"], 30.0);
    assert_eq!(again.body["booking"]["pricing_hash"], hash.as_str());
    assert_eq!(balance(&f, "GIFT-AAAA-BBBB").await, 0.0);

    // Used up for another hold; confirming with vouchers that do not cover is refused.
    let (other, other_token, _) = hold(&f, 1, "bob@example.com").await;
    apply_voucher(&f, &other, &other_token, "GIFT-AAAA-BBBB")
        .await
        .assert_error(400, "INSUFFICIENT_FUNDS");
    f.app
        .post(&format!("/api/v1/bookings/{booking}/confirm"))
        .tenant("acme")
        .header("x-booking-token", &token)
        .json(json!({"pricingHash": hash, "paymentMethod": "voucher"}))
        .send()
        .await
        .assert_error(400, "INSUFFICIENT_FUNDS");

    // Cancelled, the hold gives the amount back with a reversing entry.
    f.app
        .post(&format!("/api/v1/bookings/{booking}/cancel"))
        .tenant("acme")
        .header("x-booking-token", &token)
        .json(json!({}))
        .send()
        .await
        .assert_status(200);
    assert_eq!(balance(&f, "GIFT-AAAA-BBBB").await, 30.0);

    // Redeemed against a hold it covers: confirmed without anything to pay.
    let redeemed = f
        .app
        .post("/api/v1/promotions/vouchers/redeem")
        .tenant("acme")
        .header("x-booking-token", &other_token)
        .json(json!({"code": "GIFT-AAAA-BBBB", "booking_id": other}))
        .send()
        .await;
    redeemed.assert_status(200);
    assert_eq!(redeemed.body["applied_voucher"]["applied_amount"], 20.0);
    assert_eq!(redeemed.body["applied_voucher"]["balance_after"], 10.0);
    assert_eq!(redeemed.body["booking"]["total"], 0.0);
    let confirmed = f
        .app
        .post(&format!("/api/v1/bookings/{other}/confirm"))
        .tenant("acme")
        .header("x-booking-token", &other_token)
        .json(json!({"pricingHash": redeemed.str("/booking/pricing_hash"), "paymentMethod": "voucher"}))
        .send()
        .await;
    confirmed.assert_status(200);
    assert_eq!(confirmed.body["status"], "confirmed");
    assert_eq!(confirmed.body["price"]["total"], 0.0);
    assert_eq!(confirmed.body["price"]["voucherApplied"], 20.0);
    // Confirmed bookings keep what their vouchers paid.
    assert_eq!(balance(&f, "GIFT-AAAA-BBBB").await, 10.0);

    let ledger = f
        .app
        .get(&format!(
            "/api/v1/admin/vouchers/{}",
            voucher_id(&f, "GIFT-AAAA-BBBB").await
        ))
        .tenant("acme")
        .token(&f.t.owner_token)
        .send()
        .await;
    let kinds: Vec<&str> = ledger.body["transactions"]
        .as_array()
        .map(|t| t.iter().filter_map(|e| e["kind"].as_str()).collect())
        .unwrap_or_default();
    assert_eq!(kinds, ["issue", "redeem", "reverse", "redeem"]);
    assert_invariants(&f).await;
}

async fn voucher_id(f: &Fx, code: &str) -> String {
    let res = f
        .app
        .get(&format!("/api/v1/vouchers/{code}/balance"))
        .tenant("acme")
        .send()
        .await;
    res.str("/voucher/id").to_owned()
}

#[tokio::test]
async fn unusable_vouchers_are_refused_with_a_reason() {
    let f = fx().await;
    voucher(&f, json!({"code": "OLD", "type": "multi_use", "original_value": 10, "expires_at": "2026-11-21T10:00:00Z"})).await;
    let off = voucher(
        &f,
        json!({"code": "OFF", "type": "multi_use", "original_value": 10}),
    )
    .await;
    f.app
        .delete(&format!("/api/v1/admin/vouchers/{off}"))
        .tenant("acme")
        .token(&f.t.owner_token)
        .send()
        .await
        .assert_status(200);
    voucher(
        &f,
        json!({"code": "ONE", "type": "single_use", "original_value": 5}),
    )
    .await;
    // OLD expires at 10:00; the clock moves past it.
    f.app.clock.advance(chrono::Duration::hours(2));
    let (booking, token, _) = hold(&f, 2, "ada@example.com").await;
    apply_voucher(&f, &booking, &token, "NOSUCH")
        .await
        .assert_error(404, "NOT_FOUND");
    for (code, reason) in [("OLD", "expired"), ("OFF", "inactive")] {
        let res = apply_voucher(&f, &booking, &token, code).await;
        res.assert_error(400, "INVALID_PROMOTION");
        assert_eq!(res.body["details"]["reason"], reason);
    }
    // A single-use voucher is spent by its one use.
    apply_voucher(&f, &booking, &token, "ONE")
        .await
        .assert_status(200);
    let (other, other_token, _) = hold(&f, 1, "bob@example.com").await;
    let spent = apply_voucher(&f, &other, &other_token, "ONE").await;
    spent.assert_error(400, "INVALID_PROMOTION");
    assert_eq!(spent.body["details"]["reason"], "usage_limit_reached");
    let bad = f
        .app
        .post("/api/v1/promotions/vouchers/redeem")
        .tenant("acme")
        .header("x-booking-token", &token)
        .json(json!({"code": ""}))
        .send()
        .await;
    bad.assert_error(400, "VALIDATION_ERROR");
    assert_eq!(bad.error_fields(), vec!["code", "booking_id"]);
    assert_invariants(&f).await;
}

#[tokio::test]
async fn a_code_applied_after_a_voucher_gives_the_voucher_back_what_it_no_longer_pays() {
    let f = fx().await;
    promotion(
        &f,
        json!({"code": "TEN", "type": "percentage", "discount_value": 10, "is_stackable": true}),
    )
    .await;
    voucher(
        &f,
        json!({"code": "BIG", "type": "multi_use", "original_value": 100}),
    )
    .await;
    let (booking, token, _) = hold(&f, 2, "ada@example.com").await;
    let paid = apply_voucher(&f, &booking, &token, "BIG").await;
    paid.assert_status(200);
    assert_eq!(paid.body["applied_voucher"]["applied_amount"], 40.0);
    assert_eq!(balance(&f, "BIG").await, 60.0);
    // 10 % off: 36.00 to pay, all by the voucher; the 4.00 it no longer pays goes back.
    let res = apply(&f, &booking, &token, "TEN").await;
    res.assert_status(200);
    assert_eq!(res.body["booking"]["voucher_applied"], 36.0);
    assert_eq!(res.body["booking"]["total"], 0.0);
    assert_eq!(balance(&f, "BIG").await, 64.0);
    // Cancelled, the rest comes back too.
    f.app
        .post(&format!("/api/v1/bookings/{booking}/cancel"))
        .tenant("acme")
        .header("x-booking-token", &token)
        .json(json!({}))
        .send()
        .await
        .assert_status(200);
    assert_eq!(balance(&f, "BIG").await, 100.0);
    let got = f
        .app
        .get("/api/v1/vouchers/BIG/balance")
        .tenant("acme")
        .send()
        .await;
    assert_eq!(got.body["voucher"]["usage_count"], 0);
    assert_invariants(&f).await;
}

#[tokio::test]
async fn the_invariant_checks_find_a_count_or_balance_that_drifted() {
    let f = fx().await;
    let id = promotion(
        &f,
        json!({"code": "TEN", "type": "percentage", "discount_value": 10, "is_stackable": true}),
    )
    .await;
    voucher(
        &f,
        json!({"code": "GIFT", "type": "multi_use", "original_value": 10}),
    )
    .await;
    let (booking, token, _) = hold(&f, 1, "ada@example.com").await;
    apply(&f, &booking, &token, "TEN").await.assert_status(200);
    apply_voucher(&f, &booking, &token, "GIFT")
        .await
        .assert_status(200);
    assert_invariants(&f).await;
    // Changed behind the store's back, both checks name what drifted.
    f.app
        .store
        .execute_raw(
            "UPDATE promotions SET usage_count = usage_count + 1;
             UPDATE vouchers SET current_balance = current_balance + 1",
        )
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let tenant = TenantId::parse("acme").unwrap_or_else(|e| panic!("{e}"));
    let uses = f
        .app
        .store
        .promotion_usage_mismatches(&tenant)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(uses.len(), 1);
    assert_eq!((uses[0].0.to_string(), uses[0].1, uses[0].2), (id, 2, 1));
    let ledgers = f
        .app
        .store
        .voucher_ledger_mismatches(&tenant)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(ledgers.len(), 1);
    assert_eq!(ledgers[0].1, ledgers[0].2 + 1);
}

#[tokio::test]
async fn the_same_apply_sent_again_after_a_lost_answer_gets_the_first_answer() {
    let f = fx().await;
    promotion(
        &f,
        json!({"code": "AGAIN10", "type": "percentage", "discount_value": 10, "is_stackable": true}),
    )
    .await;
    voucher(
        &f,
        json!({"code": "AGAIN-VCHR", "type": "multi_use", "original_value": 5}),
    )
    .await;
    let (booking, token, hash) = hold(&f, 2, "ada@example.com").await;
    let send = |path: String, body: Value| {
        let token = token.clone();
        let app = &f.app;
        async move {
            app.post(&path)
                .tenant("acme")
                .header("x-booking-token", &token)
                .json(body)
                .send()
                .await
        }
    };
    // The promotion: the identical request twice (the client never saw the first answer,
    // so it sends the hash the first application changed).
    let body = json!({"booking_id": booking, "promotion_code": "AGAIN10",
        "expected_pricing_hash": hash});
    let first = send("/api/v1/promotions/apply".into(), body.clone()).await;
    first.assert_status(200);
    let (first_promotion, promotion_body) = (first.body.clone(), body.clone());
    let again = send("/api/v1/promotions/apply".into(), body).await;
    again.assert_status(200);
    assert_eq!(
        again.body["booking"], first.body["booking"],
        "{}",
        again.text
    );
    assert_eq!(
        again.body["applied_promotion"],
        first.body["applied_promotion"]
    );
    assert_eq!(again.body, first.body, "the first answer, whole");
    // The voucher, with the hash the promotion left.
    let hash = first.body["booking"]["pricing_hash"]
        .as_str()
        .unwrap()
        .to_owned();
    let path = format!("/api/v1/bookings/{booking}/apply-voucher");
    let body = json!({"voucher_code": "again-vchr", "expected_pricing_hash": hash});
    let first = send(path.clone(), body.clone()).await;
    first.assert_status(200);
    let again = send(path, body).await;
    again.assert_status(200);
    assert_eq!(
        again.body["booking"], first.body["booking"],
        "{}",
        again.text
    );
    assert_eq!(again.body["applied_voucher"], first.body["applied_voucher"]);
    assert_eq!(balance(&f, "AGAIN-VCHR").await, 0.0, "paid once");
    // The promotion deleted meanwhile: a repeat still answers the first application.
    let promotion_id = first_promotion["applied_promotion"]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    f.app
        .delete(&format!("/api/v1/admin/promotions/{promotion_id}"))
        .tenant("acme")
        .token(&f.t.owner_token)
        .send()
        .await
        .assert_status(200);
    let again = send("/api/v1/promotions/apply".into(), promotion_body).await;
    again.assert_status(200);
    assert_eq!(
        again.body["applied_promotion"], first_promotion["applied_promotion"],
        "{}",
        again.text
    );
    // Another code with the stale hash is still a conflict.
    promotion(
        &f,
        json!({"code": "OTHER5", "type": "percentage", "discount_value": 5, "is_stackable": true}),
    )
    .await;
    let stale = send(
        "/api/v1/promotions/apply".into(),
        json!({"booking_id": booking, "promotion_code": "OTHER5", "expected_pricing_hash": hash}),
    )
    .await;
    stale.assert_error(409, "PRICING_CHANGED");
    assert_invariants(&f).await;
}
