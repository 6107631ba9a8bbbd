//! Promotion codes and vouchers on a group's total (spec Part A 4.7 applied to a group):
//! checked once against the group, split over its bookings, one use of the code and of
//! the voucher for the whole group, given back when the group lets them go; on top of a
//! package's price; refused on a group's booking alone.
//!
//! The venue: climbing 20.00 and the room 30.00 per person, tax included.

use super::booking_groups::{Venue, hold, hold_body, selection, venue};
use chrono::Duration;
use kairos_domain::TenantId;
use kairos_testkit::TestResponse;
use serde_json::{Value, json};

/// A held group of `party` (climbing on slot `n`, the room on slot `n + 1`) for `email`.
async fn held(v: &Venue, n: usize, party: u32, email: &str) -> TestResponse {
    let mut body = hold_body(
        party,
        vec![
            selection(&v.climbing.catalog, &v.climbing.slots[n]),
            selection(&v.room, &v.room_slots[n + 1]),
        ],
    );
    body["customerEmail"] = json!(email);
    let res = hold(&v.app, &v.t.id, body).await;
    res.assert_status(200);
    res
}

async fn promotion(v: &Venue, body: Value) -> String {
    let mut full = json!({"name": "Offer", "starts_at": "2026-11-01T00:00:00Z"});
    if let (Value::Object(full), Value::Object(extra)) = (&mut full, body) {
        full.extend(extra);
    }
    let res = v
        .app
        .post("/api/v1/admin/promotions")
        .tenant(&v.t.id)
        .token(&v.t.owner_token)
        .json(full)
        .send()
        .await;
    res.assert_status(200);
    res.str("/promotion/id").to_owned()
}

async fn usage_count(v: &Venue, promotion: &str) -> i64 {
    let res = v
        .app
        .get(&format!("/api/v1/admin/promotions/{promotion}"))
        .tenant(&v.t.id)
        .token(&v.t.owner_token)
        .send()
        .await;
    res.assert_status(200);
    res.body["usage_count"].as_i64().unwrap_or(-1)
}

async fn apply(v: &Venue, group: &TestResponse, code: &str) -> TestResponse {
    v.app
        .post(&format!(
            "/api/v1/booking-groups/{}/apply-promo",
            group.str("id")
        ))
        .tenant(&v.t.id)
        .header("x-booking-token", group.str("groupToken"))
        .json(json!({"promotion_code": code}))
        .send()
        .await
}

async fn apply_voucher(v: &Venue, group: &TestResponse, code: &str) -> TestResponse {
    v.app
        .post(&format!(
            "/api/v1/booking-groups/{}/apply-voucher",
            group.str("id")
        ))
        .tenant(&v.t.id)
        .header("x-booking-token", group.str("groupToken"))
        .json(json!({"voucher_code": code}))
        .send()
        .await
}

async fn voucher_state(v: &Venue, code: &str) -> (f64, i64) {
    let res = v
        .app
        .get(&format!("/api/v1/vouchers/{code}/balance"))
        .tenant(&v.t.id)
        .send()
        .await;
    res.assert_status(200);
    let voucher = &res.body["voucher"];
    (
        voucher["current_balance"].as_f64().unwrap_or(-1.0),
        voucher["usage_count"].as_i64().unwrap_or(-1),
    )
}

fn totals(group: &Value) -> Vec<f64> {
    let mut parts: Vec<f64> = group["pricing"]["allocations"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|x| x["allocatedTotal"].as_f64())
                .collect()
        })
        .unwrap_or_default();
    parts.sort_by(f64::total_cmp);
    parts
}

async fn assert_invariants(v: &Venue) {
    let tenant = TenantId::parse(&v.t.id).unwrap_or_else(|e| panic!("{e}"));
    let uses = v.app.store.promotion_usage_mismatches(&tenant).await;
    assert_eq!(uses.ok(), Some(Vec::new()), "usage counts");
    let ledgers = v.app.store.voucher_ledger_mismatches(&tenant).await;
    assert_eq!(ledgers.ok(), Some(Vec::new()), "voucher ledgers");
}

#[tokio::test]
async fn a_code_discounts_the_group_total_once_and_its_use_comes_back_when_the_hold_lapses() {
    let v = venue().await;
    // Each activity alone is under the minimum spend; the group (100.00) is not.
    let id = promotion(
        &v,
        json!({"code": "CLASS10", "type": "fixed_amount", "discount_value": 10,
               "min_spend_amount": 80, "usage_limit": 1}),
    )
    .await;
    let group = held(&v, 0, 2, "teacher@example.com").await;
    assert_eq!(group.body["pricing"]["grandTotal"], 100.0);

    let res = apply(&v, &group, "class10").await;
    res.assert_status(200);
    assert_eq!(res.body["applied_promotion"]["code"], "CLASS10");
    assert_eq!(res.body["applied_promotion"]["discount_amount"], 10.0);
    let pricing = &res.body["group"]["pricing"];
    assert_eq!(pricing["subtotal"], 100.0);
    assert_eq!(pricing["promotionDiscount"], 10.0);
    assert_eq!(pricing["grandTotal"], 90.0);
    assert_eq!(
        pricing["promotions"],
        json!([{"code": "CLASS10", "amount": 10.0}])
    );
    // Split by the activities' prices: 40.00 − 4.00 and 60.00 − 6.00.
    assert_eq!(totals(&res.body["group"]), vec![36.0, 54.0]);
    assert_eq!(usage_count(&v, &id).await, 1, "one use for the group");

    // The retry after a lost answer gets the first answer and takes nothing more.
    let again = apply(&v, &group, "CLASS10").await;
    again.assert_status(200);
    assert_eq!(
        again.body["applied_promotion"],
        res.body["applied_promotion"]
    );
    assert_eq!(again.body["group"]["pricing"]["grandTotal"], 90.0);
    assert_eq!(usage_count(&v, &id).await, 1);
    assert_invariants(&v).await;

    // The limit of one is the group's: another group is refused.
    let other = held(&v, 1, 2, "other@example.com").await;
    apply(&v, &other, "CLASS10")
        .await
        .assert_error(409, "USAGE_LIMIT_EXCEEDED");

    // A booking of the group takes no code alone.
    let child = group.body["bookings"][0]["bookingId"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    let alone = v
        .app
        .post(&format!("/api/v1/bookings/{child}/apply-promo"))
        .tenant(&v.t.id)
        .token(&v.t.owner_token)
        .json(json!({"promotion_code": "CLASS10"}))
        .send()
        .await;
    alone.assert_error(409, "INVALID_TRANSITION");
    assert_eq!(alone.body["details"]["groupId"], group.str("id"));

    // The hold lapses: the group's use comes back once, and the other group may use it.
    v.app.clock.advance(Duration::minutes(16));
    let swept = v
        .app
        .store
        .expire_overdue_holds(v.app.clock_now(), 100)
        .await;
    assert_eq!(swept.ok(), Some(4), "both groups' holds");
    assert_eq!(usage_count(&v, &id).await, 0);
    assert_invariants(&v).await;
    let third = held(&v, 2, 2, "third@example.com").await;
    apply(&v, &third, "CLASS10").await.assert_status(200);
    assert_eq!(usage_count(&v, &id).await, 1);
    assert_invariants(&v).await;
}

#[tokio::test]
async fn a_group_counts_once_toward_its_customers_limit_and_codes_come_off_again() {
    let v = venue().await;
    let id = promotion(
        &v,
        json!({"code": "TWICE", "type": "percentage", "discount_value": 10,
               "per_customer_limit": 2}),
    )
    .await;
    let first = held(&v, 0, 2, "coach@example.com").await;
    let res = apply(&v, &first, "TWICE").await;
    res.assert_status(200);
    assert_eq!(res.body["group"]["pricing"]["grandTotal"], 90.0);
    // Two bookings discounted, one use of the customer's two.
    let second = held(&v, 1, 2, "Coach@Example.com").await;
    apply(&v, &second, "TWICE").await.assert_status(200);
    let third = held(&v, 2, 2, "coach@example.com").await;
    let refused = apply(&v, &third, "TWICE").await;
    refused.assert_error(409, "USAGE_LIMIT_EXCEEDED");
    assert!(
        refused.text.contains("per_customer_limit_reached"),
        "{}",
        refused.text
    );
    assert_eq!(usage_count(&v, &id).await, 2);

    // Taken off the first group: its price is whole again and its use given back once.
    let path = format!(
        "/api/v1/booking-groups/{}/promotions/twice",
        first.str("id")
    );
    let removed = v
        .app
        .delete(&path)
        .tenant(&v.t.id)
        .header("x-booking-token", first.str("groupToken"))
        .send()
        .await;
    removed.assert_status(200);
    assert_eq!(removed.body["removed_code"], "twice");
    assert_eq!(removed.body["group"]["pricing"]["grandTotal"], 100.0);
    assert_eq!(removed.body["group"]["pricing"]["promotions"], json!([]));
    assert_eq!(usage_count(&v, &id).await, 1);
    v.app
        .delete(&path)
        .tenant(&v.t.id)
        .header("x-booking-token", first.str("groupToken"))
        .send()
        .await
        .assert_error(404, "NOT_FOUND");
    apply(&v, &third, "TWICE").await.assert_status(200);
    assert_invariants(&v).await;
}

#[tokio::test]
async fn a_code_is_checked_against_the_group_and_discounts_only_what_it_covers() {
    let v = venue().await;
    promotion(
        &v,
        json!({"code": "BIG", "type": "fixed_amount", "discount_value": 10,
               "min_spend_amount": 150}),
    )
    .await;
    promotion(
        &v,
        json!({"code": "ROOM", "type": "fixed_amount", "discount_value": 10,
               "applicable_products": [v.room.product_id]}),
    )
    .await;
    let group = held(&v, 0, 2, "lead@example.com").await;
    let res = apply(&v, &group, "BIG").await;
    res.assert_error(409, "MIN_SPEND_NOT_MET");
    assert_eq!(
        res.body["details"]["current_subtotal"], 100.0,
        "{}",
        res.text
    );
    apply(&v, &group, "NOPE")
        .await
        .assert_error(400, "INVALID_PROMOTION");
    apply(&v, &group, " ")
        .await
        .assert_error(400, "VALIDATION_ERROR");

    // Only the room is discounted, by the whole 10.00.
    let res = apply(&v, &group, "ROOM").await;
    res.assert_status(200);
    assert_eq!(totals(&res.body["group"]), vec![40.0, 50.0]);

    // Nobody else's: without the token the group does not exist.
    v.app
        .post(&format!(
            "/api/v1/booking-groups/{}/apply-promo",
            group.str("id")
        ))
        .tenant(&v.t.id)
        .json(json!({"promotion_code": "ROOM"}))
        .send()
        .await
        .assert_error(404, "NOT_FOUND");
    assert_invariants(&v).await;
}

#[tokio::test]
async fn a_voucher_pays_the_group_as_one_use_and_comes_back_whole_when_the_group_is_cancelled() {
    let v = venue().await;
    let res = v
        .app
        .post("/api/v1/admin/vouchers")
        .tenant(&v.t.id)
        .token(&v.t.owner_token)
        .json(
            json!({"code": "ONCE-2026", "type": "multi_use", "original_value": 70,
                     "usage_limit": 1}),
        )
        .send()
        .await;
    res.assert_status(200);
    let group = held(&v, 0, 2, "payer@example.com").await;
    let res = apply_voucher(&v, &group, "once-2026").await;
    res.assert_status(200);
    let applied = &res.body["applied_voucher"];
    assert_eq!(applied["applied_amount"], 70.0);
    assert_eq!(applied["balance_before"], 70.0);
    assert_eq!(applied["balance_after"], 0.0);
    let pricing = &res.body["group"]["pricing"];
    assert_eq!(pricing["voucherApplied"], 70.0);
    assert_eq!(pricing["grandTotal"], 30.0);
    assert_eq!(
        pricing["vouchers"],
        json!([{"code": "ONCE-2026", "amount": 70.0}])
    );
    // Over both bookings, yet one use of a voucher that allows one.
    assert_eq!(voucher_state(&v, "ONCE-2026").await, (0.0, 1));
    let again = apply_voucher(&v, &group, "ONCE-2026").await;
    again.assert_status(200);
    assert_eq!(again.body["applied_voucher"]["applied_amount"], 70.0);
    assert_eq!(again.body["group"]["pricing"]["grandTotal"], 30.0);
    assert_invariants(&v).await;

    let cancel = v
        .app
        .post(&format!(
            "/api/v1/admin/booking-groups/{}/cancel",
            group.str("id")
        ))
        .tenant(&v.t.id)
        .token(&v.t.owner_token)
        .json(json!({"reason": "Trip called off"}))
        .send()
        .await;
    cancel.assert_status(200);
    assert_eq!(voucher_state(&v, "ONCE-2026").await, (70.0, 0));
    assert_invariants(&v).await;
}

#[tokio::test]
async fn a_package_price_takes_codes_and_vouchers_on_top_and_the_invoice_is_for_the_rest() {
    let v = venue().await;
    let res = v
        .app
        .post("/api/v1/admin/packages")
        .tenant(&v.t.id)
        .token(&v.t.owner_token)
        .json(json!({
            "name": "Climb & Escape",
            "productIds": [v.climbing.catalog.product_id, v.room.product_id],
            "priceType": "PACKAGE_PRICE", "pricePerPerson": 35
        }))
        .send()
        .await;
    res.assert_status(201);
    let package = res.str("id").to_owned();
    let group = hold(
        &v.app,
        &v.t.id,
        json!({
            "groupType": "PACKAGE", "packageId": package, "partySize": 4,
            "customerName": "Stag party", "customerEmail": "best.man@example.com",
            "slotSelections": [
                selection(&v.climbing.catalog, &v.climbing.slots[0]),
                selection(&v.room, &v.room_slots[1]),
            ]
        }),
    )
    .await;
    group.assert_status(200);
    assert_eq!(group.body["pricing"]["grandTotal"], 140.0);
    promotion(
        &v,
        json!({"code": "STAG", "type": "percentage", "discount_value": 10}),
    )
    .await;
    let res = apply(&v, &group, "STAG").await;
    res.assert_status(200);
    assert_eq!(res.body["applied_promotion"]["discount_amount"], 14.0);
    assert_eq!(res.body["group"]["pricing"]["grandTotal"], 126.0);
    assert_eq!(res.body["group"]["pricing"]["pricingMethod"], "PACKAGE");
    v.app
        .post("/api/v1/admin/vouchers")
        .tenant(&v.t.id)
        .token(&v.t.owner_token)
        .json(json!({"code": "GIFT-STAG-2026", "type": "gift_card", "original_value": 50}))
        .send()
        .await
        .assert_status(200);
    let res = apply_voucher(&v, &group, "GIFT-STAG-2026").await;
    res.assert_status(200);
    assert_eq!(res.body["group"]["pricing"]["grandTotal"], 76.0);

    // Confirmed by invoice: the package's price less the code, the voucher paying 50.00.
    let confirmed = v
        .app
        .post(&format!(
            "/api/v1/admin/booking-groups/{}/confirm",
            group.str("id")
        ))
        .tenant(&v.t.id)
        .token(&v.t.owner_token)
        .json(json!({"paymentMethod": "INVOICE"}))
        .send()
        .await;
    confirmed.assert_status(200);
    assert_eq!(confirmed.body["status"], "CONFIRMED");
    let pricing = &confirmed.body["pricing"];
    assert_eq!(pricing["grandTotal"], 76.0);
    assert_eq!(pricing["promotionDiscount"], 14.0);
    assert_eq!(pricing["voucherApplied"], 50.0);
    let sum: f64 = totals(&confirmed.body).iter().sum();
    assert!((sum - 76.0).abs() < 1e-9, "{sum}");
    assert_invariants(&v).await;
}

#[tokio::test]
async fn codes_wait_while_the_groups_card_payment_is_under_way() {
    let v = venue().await;
    v.app.sandbox_cardpay(&v.t).await;
    promotion(
        &v,
        json!({"code": "LATE", "type": "fixed_amount", "discount_value": 5}),
    )
    .await;
    let group = held(&v, 0, 2, "card@example.com").await;
    v.app
        .post(&format!(
            "/api/v1/booking-groups/{}/confirm",
            group.str("id")
        ))
        .tenant(&v.t.id)
        .header("x-booking-token", group.str("groupToken"))
        .json(json!({"paymentMethod": "CARDPAY"}))
        .send()
        .await
        .assert_status(200);
    let res = apply(&v, &group, "LATE").await;
    res.assert_error(409, "INVALID_TRANSITION");
    assert!(res.text.contains("payment"), "{}", res.text);
}

#[tokio::test]
async fn a_percentage_is_worked_out_on_the_group_total_with_its_cap_and_no_code_combines_with_a_non_stackable_one()
 {
    let v = venue().await;
    promotion(
        &v,
        json!({"code": "CAPPED", "type": "percentage", "discount_value": 10,
               "max_discount_amount": 7}),
    )
    .await;
    promotion(
        &v,
        json!({"code": "ALONE", "type": "fixed_amount", "discount_value": 5,
               "is_stackable": false, "applicable_products": [v.room.product_id]}),
    )
    .await;
    promotion(
        &v,
        json!({"code": "CLIMB", "type": "fixed_amount", "discount_value": 5,
               "applicable_products": [v.climbing.catalog.product_id]}),
    )
    .await;
    // 10 % of the group's 100.00 is 10.00, capped once at 7.00 for the group.
    let group = held(&v, 0, 2, "cap@example.com").await;
    let res = apply(&v, &group, "CAPPED").await;
    res.assert_status(200);
    assert_eq!(res.body["applied_promotion"]["discount_amount"], 7.0);
    assert_eq!(res.body["group"]["pricing"]["grandTotal"], 93.0);
    assert_eq!(totals(&res.body["group"]), vec![37.2, 55.8]);

    // A non-stackable code on the room stops a code on the climbing wall too.
    let other = held(&v, 1, 2, "alone@example.com").await;
    apply(&v, &other, "ALONE").await.assert_status(200);
    let refused = apply(&v, &other, "CLIMB").await;
    refused.assert_error(409, "STACKING_VIOLATION");
    assert!(refused.text.contains("ALONE"), "{}", refused.text);
    assert_invariants(&v).await;
}

#[tokio::test]
async fn a_code_after_a_voucher_lets_the_voucher_pay_what_the_group_still_owes() {
    let v = venue().await;
    v.app
        .post("/api/v1/admin/vouchers")
        .tenant(&v.t.id)
        .token(&v.t.owner_token)
        .json(json!({"code": "GIFT-FIFTY-26", "type": "gift_card", "original_value": 50}))
        .send()
        .await
        .assert_status(200);
    promotion(
        &v,
        json!({"code": "HALF", "type": "fixed_amount", "discount_value": 50}),
    )
    .await;
    let group = held(&v, 0, 2, "pour@example.com").await;
    let res = apply_voucher(&v, &group, "GIFT-FIFTY-26").await;
    res.assert_status(200);
    assert_eq!(res.body["group"]["pricing"]["grandTotal"], 50.0);
    // 50.00 off the 100.00: the voucher's 50.00 now pays all that is left, whichever
    // booking it first paid.
    let res = apply(&v, &group, "HALF").await;
    res.assert_status(200);
    let pricing = &res.body["group"]["pricing"];
    assert_eq!(pricing["promotionDiscount"], 50.0);
    assert_eq!(pricing["voucherApplied"], 50.0);
    assert_eq!(pricing["grandTotal"], 0.0);
    assert_eq!(voucher_state(&v, "GIFT-FIFTY-26").await, (0.0, 1));
    // The same voucher again: the first application's answer, not what it paid since.
    let again = apply_voucher(&v, &group, "GIFT-FIFTY-26").await;
    again.assert_status(200);
    let first = &again.body["applied_voucher"];
    assert_eq!(
        (
            &first["applied_amount"],
            &first["balance_before"],
            &first["balance_after"]
        ),
        (&json!(50.0), &json!(50.0), &json!(0.0))
    );
    // Nothing is left to pay: another voucher has nothing to do.
    v.app
        .post("/api/v1/admin/vouchers")
        .tenant(&v.t.id)
        .token(&v.t.owner_token)
        .json(json!({"code": "GIFT-MORE-26", "type": "gift_card", "original_value": 10}))
        .send()
        .await
        .assert_status(200);
    let nothing = apply_voucher(&v, &group, "GIFT-MORE-26").await;
    nothing.assert_error(409, "CONFLICT");
    assert!(nothing.text.contains("group"), "{}", nothing.text);
    assert_invariants(&v).await;
}
