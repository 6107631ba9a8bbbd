//! A resource add-on given back on a booking paid online: the booking is priced again and
//! the difference refunded by the cancellation rules, once under retries.

use super::payments_cancellation::booking;
use crate::resource_setup::{room, shift};
use kairos_testkit::slot_ids;
use serde_json::json;

#[tokio::test]
async fn an_add_on_given_back_on_a_card_paid_booking_is_refunded_once() {
    let r = room("EXCLUSIVE", 1, json!({})).await;
    let (app, t, fx) = (&r.app, &r.t, &r.fx);
    app.sandbox_cardpay(t).await;
    // Four days ahead: the standard policy gives everything back.
    let hold = r.card_paid(0, true).await;
    let id = hold.str("id").to_owned();
    let paid = booking(app, t, &id).await;
    assert_eq!(paid["price"]["total"], 50.0, "{paid}");
    let allocation = r.addons(&id).await.body["addons"][0]["allocationId"].clone();
    let patch = |body: serde_json::Value| {
        app.patch(&format!("/api/v1/bookings/{id}/resource-addons"))
            .tenant(&t.id)
            .header("x-booking-token", hold.str("bookingToken"))
            .header("idempotency-key", "give-back-1")
            .json(body)
            .send()
    };
    let given_back = patch(json!({"remove": [allocation]})).await;
    given_back.assert_status(200);
    let adj = &given_back.body["paymentAdjustment"];
    assert_eq!(adj["type"], "REFUND", "{}", given_back.text);
    assert_eq!(adj["amount"], 10.0);
    // The retry after a lost answer gets the first answer and refunds nothing more.
    let again = patch(json!({"remove": [allocation]})).await;
    again.assert_status(200);
    assert_eq!(again.body, given_back.body);
    let after = booking(app, t, &id).await;
    assert_eq!(after["status"], "paid", "{after}");
    assert_eq!(after["price"]["total"], 40.0);
    assert_eq!(after["payments"][0]["refundedAmount"], 1000, "{after}");
    assert_eq!(r.addons(&id).await.body["addons"], json!([]));
    // A card payment waiting for the customer's 3-D Secure step: nothing is given back
    // until it has gone through or failed.
    let later = app
        .availability(&t.id, &fx.catalog, "2026-11-25", "2026-11-25", 2)
        .await;
    let waiting = app.hold(&t.id, fx, &slot_ids(&later.body)[1], 2).await;
    let w_id = waiting.str("id").to_owned();
    let w_end = waiting.str("endTime").to_owned();
    let w_added = r.add(&w_id, &w_end, &shift(&w_end, 60), 60).await;
    w_added.assert_status(200);
    let confirmed = app
        .post(&format!("/api/v1/bookings/{w_id}/confirm"))
        .tenant(&t.id)
        .header("x-booking-token", waiting.str("bookingToken"))
        .json(
            json!({"pricingHash": w_added.body["pricingUpdate"]["pricingHash"],
            "paymentMethodId": "pm_card_threeDSecure2Required"}),
        )
        .send()
        .await;
    confirmed.assert_status(200);
    assert_eq!(confirmed.body["status"], "confirmed", "{}", confirmed.text);
    let w_allocation = r.addons(&w_id).await.body["addons"][0]["allocationId"].clone();
    let refused = app
        .patch(&format!("/api/v1/bookings/{w_id}/resource-addons"))
        .tenant(&t.id)
        .header("x-booking-token", waiting.str("bookingToken"))
        .json(json!({"remove": [w_allocation]}))
        .send()
        .await;
    refused.assert_status(409);
    assert_eq!(refused.body["error"], "CONFLICT", "{}", refused.text);
    assert_eq!(
        r.addons(&w_id).await.body["addons"][0]["status"],
        "CONFIRMED"
    );
}
