//! Gift card purchases for staff: the purchase list, resending the delivery email, and
//! refunding a purchase whose gift card is unused.

use super::gift_card_purchases::{buy, fixed, messages, paid_purchase, payment_of, status};
use kairos_testkit::TestApp;
use serde_json::{Value, json};

#[tokio::test]
async fn staff_list_purchases_and_resend_the_delivery_email() {
    let app = TestApp::spawn().await;
    let t = app.tenant("acme").await;
    app.sandbox_cardpay(&t).await;
    let product = fixed(&app, &t).await;
    let (paid, code) = paid_purchase(&app, &t, &product, "rita@example.com").await;
    let pending = buy(
        &app,
        &t,
        json!({"giftCardProductId": product, "purchaserEmail": "Other@example.com"}),
    )
    .await;
    let list = |q: &str| {
        let path = format!("/api/v1/admin/gift-card-purchases{q}");
        let app = &app;
        let token = t.owner_token.clone();
        async move {
            let res = app.get(&path).tenant("acme").token(&token).send().await;
            res.assert_status(200);
            res.body
        }
    };
    let all = list("").await;
    assert_eq!(all["total"], 2);
    assert_eq!(
        all["items"][0]["purchaseId"], pending.body["purchaseId"],
        "newest first"
    );
    let p = &all["items"][1];
    assert_eq!(p["voucherCode"], code.as_str());
    assert_eq!(p["purchaserEmail"], "buyer@example.com");
    assert_eq!(p["recipientEmail"], "rita@example.com");
    assert_eq!(p["productName"], "Escape for two");
    assert_eq!(list("?status=paid").await["total"], 1);
    assert_eq!(list("?status=pending").await["total"], 1);
    assert_eq!(list("?purchaserEmail=OTHER@example.com").await["total"], 1);
    let today = app.clock_now().format("%Y-%m-%d").to_string();
    assert_eq!(
        list(&format!("?dateFrom={today}&dateTo={today}")).await["total"],
        2
    );
    assert_eq!(list("?dateTo=2000-01-01").await["total"], 0);
    assert_eq!(
        list("?limit=1&page=2").await["items"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
    for bad in [
        "?status=lost",
        "?dateFrom=yesterday",
        "?limit=0",
        "?purchaserEmail=x",
    ] {
        app.get(&format!("/api/v1/admin/gift-card-purchases{bad}"))
            .tenant("acme")
            .token(&t.owner_token)
            .send()
            .await
            .assert_error(400, "VALIDATION_ERROR");
    }

    let before = messages(&app, &t).await.len();
    let resent = app
        .post(&format!("/api/v1/admin/gift-card-purchases/{paid}/resend"))
        .tenant("acme")
        .token(&t.owner_token)
        .send()
        .await;
    resent.assert_status(200);
    assert_eq!(resent.body["voucherCode"], code.as_str());
    let after = messages(&app, &t).await;
    assert_eq!(after.len(), before + 1);
    assert_eq!(after[0]["id"], resent.body["deliveryMessageId"]);
    assert_eq!(after[0]["recipient"], "rita@example.com");
    // Not paid: nothing to send.
    app.post(&format!(
        "/api/v1/admin/gift-card-purchases/{}/resend",
        pending.str("purchaseId")
    ))
    .tenant("acme")
    .token(&t.owner_token)
    .send()
    .await
    .assert_error(409, "INVALID_TRANSITION");
    app.post(&format!(
        "/api/v1/admin/gift-card-purchases/{}/resend",
        uuid::Uuid::new_v4()
    ))
    .tenant("acme")
    .token(&t.owner_token)
    .send()
    .await
    .assert_error(404, "GIFT_CARD_PURCHASE_NOT_FOUND");
    // Another tenant sees none of it.
    let other = app.tenant("other").await;
    let theirs = app
        .get("/api/v1/admin/gift-card-purchases")
        .tenant(&other.id)
        .token(&other.owner_token)
        .send()
        .await;
    assert_eq!(theirs.body["total"], 0);
    app.post(&format!("/api/v1/admin/gift-card-purchases/{paid}/resend"))
        .tenant(&other.id)
        .token(&other.owner_token)
        .send()
        .await
        .assert_error(404, "GIFT_CARD_PURCHASE_NOT_FOUND");
}

#[tokio::test]
async fn an_unused_gift_card_is_refunded_whole_and_withdrawn_a_used_one_is_not() {
    let app = TestApp::spawn().await;
    let t = app.tenant("acme").await;
    app.sandbox_cardpay(&t).await;
    let product = fixed(&app, &t).await;
    let (id, code) = paid_purchase(&app, &t, &product, "rita@example.com").await;
    let payment = payment_of(&app, &id).await;
    let refund = |body: Value| {
        app.post("/api/v1/payments/refund")
            .tenant("acme")
            .token(&t.owner_token)
            .json(body)
            .send()
    };
    refund(json!({"paymentId": payment.id, "amount": 100}))
        .await
        .assert_error(400, "VALIDATION_ERROR");
    let done = refund(json!({"paymentId": payment.id})).await;
    done.assert_status(200);
    assert_eq!(done.body["net_refund_amount"], 5000);
    let s = status(&app, &t, &id).await;
    assert_eq!(s["status"], "cancelled");
    assert_eq!(s["paymentStatus"], "REFUNDED");
    let balance = app
        .get(&format!("/api/v1/gift-cards/balance/{code}"))
        .tenant("acme")
        .send()
        .await;
    assert_eq!(balance.body["isActive"], false, "withdrawn");

    // A card spent in part is not refunded.
    let (used, used_code) = paid_purchase(&app, &t, &product, "sam@example.com").await;
    let fx = app.bookable(&t).await;
    let hold = app.hold(&t.id, &fx, &fx.slots[0], 1).await;
    app.post(&format!(
        "/api/v1/bookings/{}/apply-voucher",
        hold.str("id")
    ))
    .tenant("acme")
    .header("x-booking-token", hold.str("bookingToken"))
    .json(json!({"voucher_code": used_code}))
    .send()
    .await
    .assert_status(200);
    let used_payment = payment_of(&app, &used).await;
    let refused = refund(json!({"paymentId": used_payment.id})).await;
    refused.assert_error(409, "INVALID_TRANSITION");
    assert!(refused.text.contains("used"), "{}", refused.text);
    assert_eq!(status(&app, &t, &used).await["status"], "paid");
}
