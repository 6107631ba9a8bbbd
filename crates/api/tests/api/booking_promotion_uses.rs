//! A promotion code's uses on holds: given back when a hold expires or is reclaimed, final
//! once confirmed, and kept by bookings after the promotion is deleted.

use super::booking_promotions::{admin_promotion, apply, assert_invariants, fx, hold, promotion};
use serde_json::json;

#[tokio::test]
async fn a_use_is_given_back_when_the_hold_expires_and_final_once_confirmed() {
    let f = fx().await;
    let id = promotion(
        &f,
        json!({"code": "ONCE", "type": "fixed_amount", "discount_value": 2, "usage_limit": 1}),
    )
    .await;
    let (booking, token, _) = hold(&f, 1, "ada@example.com").await;
    apply(&f, &booking, &token, "ONCE").await.assert_status(200);
    assert_eq!(admin_promotion(&f, &id).await["usage_count"], 1);

    // Past its time-to-live the hold expires (by the sweep) and the use comes back.
    f.app.clock.advance(chrono::Duration::minutes(16));
    let expired = f
        .app
        .store
        .expire_overdue_holds(f.app.clock_now(), 100)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(expired, 1);
    assert_eq!(admin_promotion(&f, &id).await["usage_count"], 0);
    apply(&f, &booking, &token, "ONCE")
        .await
        .assert_error(409, "INVALID_TRANSITION");

    // Confirmed, the use is final: cancelling the booking afterwards keeps it.
    let (next, next_token, _) = hold(&f, 1, "bob@example.com").await;
    let res = apply(&f, &next, &next_token, "ONCE").await;
    res.assert_status(200);
    let hash = res.str("/booking/pricing_hash").to_owned();
    f.app
        .post(&format!("/api/v1/bookings/{next}/confirm"))
        .tenant("acme")
        .header("x-booking-token", &next_token)
        .json(json!({"pricingHash": hash, "paymentMethod": "poa"}))
        .send()
        .await
        .assert_status(200);
    f.app
        .post(&format!("/api/v1/bookings/{next}/cancel"))
        .tenant("acme")
        .token(&f.t.owner_token)
        .json(json!({}))
        .send()
        .await
        .assert_status(200);
    assert_eq!(admin_promotion(&f, &id).await["usage_count"], 1);
    assert_invariants(&f).await;
}

#[tokio::test]
async fn a_hold_reclaimed_by_a_later_hold_gives_its_use_back_and_limits_respect_uses() {
    let f = fx().await;
    let id = promotion(
        &f,
        json!({"code": "TEAM", "type": "fixed_amount", "discount_value": 5, "usage_limit": 3}),
    )
    .await;
    // The whole slot (capacity 10) on hold, with the code.
    let (booking, token, _) = hold(&f, 10, "ada@example.com").await;
    apply(&f, &booking, &token, "TEAM").await.assert_status(200);
    let (second, second_token, _) = {
        let res = f
            .app
            .hold_for("acme", &f.fx.catalog, &f.fx.slots[1], 1, "bob@example.com")
            .await;
        res.assert_status(200);
        (
            res.str("id").to_owned(),
            res.str("bookingToken").to_owned(),
            (),
        )
    };
    apply(&f, &second, &second_token, "TEAM")
        .await
        .assert_status(200);
    // Two uses taken: the limit cannot go below them.
    let patch = f
        .app
        .patch(&format!("/api/v1/admin/promotions/{id}"))
        .tenant("acme")
        .token(&f.t.owner_token)
        .json(json!({"usage_limit": 1}))
        .send()
        .await;
    patch.assert_error(400, "VALIDATION_ERROR");
    assert_eq!(patch.error_fields(), vec!["usage_limit"]);

    // Overdue, the full hold is reclaimed by the next hold on its slot: its use comes back.
    f.app.clock.advance(chrono::Duration::minutes(16));
    let res = f
        .app
        .hold_for("acme", &f.fx.catalog, &f.fx.slots[0], 2, "cy@example.com")
        .await;
    res.assert_status(200);
    assert_eq!(admin_promotion(&f, &id).await["usage_count"], 1);
    apply(&f, &booking, &token, "TEAM")
        .await
        .assert_error(409, "INVALID_TRANSITION");
    assert_invariants(&f).await;
}

#[tokio::test]
async fn a_deleted_promotion_never_applies_again_but_stays_on_the_bookings_that_have_it() {
    let f = fx().await;
    let id = promotion(
        &f,
        json!({"code": "GONE", "type": "fixed_amount", "discount_value": 5, "is_stackable": true}),
    )
    .await;
    let (booking, token, _) = hold(&f, 2, "ada@example.com").await;
    let res = apply(&f, &booking, &token, "GONE").await;
    res.assert_status(200);
    let hash = res.str("/booking/pricing_hash").to_owned();
    f.app
        .delete(&format!("/api/v1/admin/promotions/{id}"))
        .tenant("acme")
        .token(&f.t.owner_token)
        .send()
        .await
        .assert_status(200);
    let (other, other_token, _) = hold(&f, 1, "bob@example.com").await;
    let refused = apply(&f, &other, &other_token, "GONE").await;
    refused.assert_error(400, "INVALID_PROMOTION");
    assert_eq!(refused.body["details"]["reason"], "not_found");
    // The hold that has it keeps its price, and confirms with it.
    let confirmed = f
        .app
        .post(&format!("/api/v1/bookings/{booking}/confirm"))
        .tenant("acme")
        .header("x-booking-token", &token)
        .json(json!({"pricingHash": hash, "paymentMethod": "poa"}))
        .send()
        .await;
    confirmed.assert_status(200);
    assert_eq!(confirmed.body["price"]["total"], 35.0);
    assert_eq!(confirmed.body["price"]["discounts"][0]["code"], "GONE");
    assert_invariants(&f).await;
}
