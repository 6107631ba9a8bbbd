//! Buying gift cards (spec Part A 2.8, 3.2, 4.10, 6) with the built-in sandbox card
//! provider: a purchase is `pending`, paid by card, the provider's event issues one
//! `gift_card` voucher, the delivery email is queued for the delivery date and its
//! delivery makes the purchase `delivered`; the voucher's balance is public by code.
#![expect(clippy::unwrap_used, reason = "test helpers fail the test loudly")]

use chrono::Duration;
use kairos_app::payments::providers::sandbox::webhook_secret;
use kairos_domain::TenantId;
use kairos_domain::payments::cardpay_signature::header;
use kairos_store::DeliveryResult;
use kairos_testkit::{TenantFixture, TestApp, TestResponse};
use serde_json::{Value, json};

const PURCHASE: &str = "/api/v1/gift-cards/purchase";

/// A product of the tenant: its id.
async fn product(app: &TestApp, t: &TenantFixture, body: Value) -> String {
    let res = app
        .post("/api/v1/admin/gift-card-products")
        .tenant(&t.id)
        .token(&t.owner_token)
        .json(body)
        .send()
        .await;
    res.assert_status(200);
    res.str("id").to_owned()
}

pub(crate) async fn fixed(app: &TestApp, t: &TenantFixture) -> String {
    product(
        app,
        t,
        json!({"name": "Escape for two", "valueType": "fixed", "fixedValue": 50, "validityDays": 365}),
    )
    .await
}

pub(crate) async fn buy(app: &TestApp, t: &TenantFixture, body: Value) -> TestResponse {
    app.post(PURCHASE).tenant(&t.id).json(body).send().await
}

pub(crate) async fn status(app: &TestApp, t: &TenantFixture, id: &str) -> Value {
    let res = app
        .get(&format!("{PURCHASE}/{id}/status"))
        .tenant(&t.id)
        .send()
        .await;
    res.assert_status(200);
    res.body
}

async fn pay(app: &TestApp, t: &TenantFixture, id: &str) -> TestResponse {
    app.post(&format!("{PURCHASE}/{id}/payment/cardpay"))
        .tenant(&t.id)
        .send()
        .await
}

/// The customer's browser confirms the payment with `card` at the sandbox.
async fn confirm(app: &TestApp, payment: &Value, card: &str) -> TestResponse {
    app.post(payment["sandboxConfirmUrl"].as_str().unwrap())
        .header("content-type", "application/x-www-form-urlencoded")
        .raw(format!(
            "client_secret={}&payment_method={card}",
            payment["clientSecret"].as_str().unwrap()
        ))
        .send()
        .await
}

/// Waits (up to 10 s) for the purchase's status to become `want`.
async fn wait_for(app: &TestApp, t: &TenantFixture, id: &str, want: &str) -> Value {
    for _ in 0..100 {
        let s = status(app, t, id).await;
        if s["status"] == want {
            return s;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    panic!(
        "purchase {id} never became {want}: {}",
        status(app, t, id).await
    );
}

/// Claims every message due now and records it delivered: how many.
async fn deliver_all(app: &TestApp) -> usize {
    let now = app.clock_now();
    let claimed = app
        .store
        .claim_deliveries(now, 500, now + Duration::minutes(5))
        .await
        .unwrap();
    for d in &claimed {
        app.store
            .record_delivery(
                &d.tenant,
                d.id,
                d.attempt,
                DeliveryResult::Delivered,
                None,
                now,
            )
            .await
            .unwrap();
    }
    claimed.len()
}

pub(crate) async fn messages(app: &TestApp, t: &TenantFixture) -> Vec<Value> {
    let res = app
        .get("/api/v1/admin/messaging/messages?limit=100")
        .tenant(&t.id)
        .token(&t.owner_token)
        .send()
        .await;
    res.assert_status(200);
    res.body["messages"].as_array().unwrap().clone()
}

/// A paid purchase of the fixed product for `to`: (purchase id, voucher code).
pub(crate) async fn paid_purchase(
    app: &TestApp,
    t: &TenantFixture,
    product: &str,
    to: &str,
) -> (String, String) {
    let res = buy(
        app,
        t,
        json!({"giftCardProductId": product, "purchaserEmail": "Buyer@Example.com",
            "purchaserName": "Bea Buyer", "recipientEmail": to, "recipientName": "Rita",
            "personalMessage": "Happy birthday!"}),
    )
    .await;
    res.assert_status(200);
    let id = res.str("purchaseId").to_owned();
    let payment = pay(app, t, &id).await;
    payment.assert_status(200);
    confirm(app, &payment.body, "pm_card_visa")
        .await
        .assert_status(200);
    let s = wait_for(app, t, &id, "paid").await;
    (id, s["voucherCode"].as_str().unwrap().to_owned())
}

#[tokio::test]
async fn a_gift_card_bought_and_paid_by_card_is_issued_and_delivered_by_email() {
    let app = TestApp::spawn().await;
    let t = app.tenant("acme").await;
    app.sandbox_cardpay(&t).await;
    let product = fixed(&app, &t).await;

    let res = buy(
        &app,
        &t,
        json!({"giftCardProductId": product, "amount": 999, "purchaserEmail": "Buyer@Example.com",
            "purchaserName": "Bea Buyer", "recipientEmail": "rita@example.com",
            "recipientName": "Rita", "personalMessage": "Happy birthday!"}),
    )
    .await;
    res.assert_status(200);
    assert_eq!(res.body["status"], "pending");
    assert_eq!(res.body["amount"], 50.0, "a fixed product ignores amount");
    assert_eq!(res.body["currency"], "EUR");
    assert_eq!(
        res.body["paymentOptions"],
        json!({"cardpay": true, "bankpay": false})
    );
    assert_eq!(res.body["paymentStatus"], Value::Null);
    assert_eq!(res.body["voucherCode"], Value::Null);
    let id = res.str("purchaseId").to_owned();

    let payment = pay(&app, &t, &id).await;
    payment.assert_status(200);
    assert_eq!(payment.body["amount"], 5000, "minor units");
    assert_eq!(payment.body["currency"], "eur");
    let intent = payment.body["paymentIntentId"].as_str().unwrap().to_owned();
    assert!(
        payment.body["clientSecret"]
            .as_str()
            .unwrap()
            .starts_with(&intent)
    );
    // Asking again finds the same intent.
    let again = pay(&app, &t, &id).await;
    assert_eq!(again.body["paymentIntentId"], intent.as_str());
    assert_eq!(status(&app, &t, &id).await["paymentStatus"], "PENDING");

    confirm(&app, &payment.body, "pm_card_visa")
        .await
        .assert_status(200);
    let s = wait_for(&app, &t, &id, "paid").await;
    assert_eq!(s["paymentStatus"], "COMPLETED");
    let code = s["voucherCode"].as_str().unwrap().to_owned();
    let parts: Vec<&str> = code.split('-').collect();
    assert_eq!(
        (parts[0], parts[1].len(), parts[2].len()),
        ("GIFT", 4, 4),
        "{code}"
    );
    let expires: chrono::DateTime<chrono::Utc> =
        serde_json::from_value(s["voucherExpiresAt"].clone()).unwrap();
    let expected = app.clock_now() + Duration::days(365);
    assert!((expires - expected).num_seconds().abs() < 5, "{expires}");

    // The balance is public by code, any case.
    let balance = app
        .get(&format!(
            "/api/v1/gift-cards/balance/{}",
            code.to_lowercase()
        ))
        .tenant(&t.id)
        .send()
        .await;
    balance.assert_status(200);
    assert_eq!(balance.body["code"], code.as_str());
    assert_eq!(balance.body["originalValue"], 50.0);
    assert_eq!(balance.body["currentBalance"], 50.0);
    assert_eq!(balance.body["currency"], "EUR");
    assert_eq!(balance.body["isActive"], true);
    assert_eq!(balance.body["isRedeemed"], false);

    // The delivery email goes to the recipient with the code; once sent: delivered.
    let mail: Vec<Value> = messages(&app, &t)
        .await
        .into_iter()
        .filter(|m| m["templateKey"] == "gift_card_delivery")
        .collect();
    assert_eq!(mail.len(), 1);
    assert_eq!(mail[0]["recipient"], "rita@example.com");
    let body = mail[0]["body"].as_str().unwrap_or_default().to_owned();
    assert!(body.contains(&code), "{body}");
    assert!(body.contains("Happy birthday!"), "{body}");
    assert!(body.contains("Rita"), "{body}");
    assert!(deliver_all(&app).await >= 1);
    let s = status(&app, &t, &id).await;
    assert_eq!(s["status"], "delivered");

    // Paid: no second payment.
    pay(&app, &t, &id)
        .await
        .assert_error(409, "GIFT_CARD_ALREADY_PAID");
}

#[tokio::test]
async fn a_purchase_is_checked_against_its_product() {
    let app = TestApp::spawn().await;
    let t = app.tenant("acme").await;
    let range = product(
        &app,
        &t,
        json!({"name": "Any amount", "valueType": "custom_range", "minValue": 20, "maxValue": 200}),
    )
    .await;
    // No card account: the purchase is taken, but cannot be paid by card.
    let ok = buy(
        &app,
        &t,
        json!({"giftCardProductId": range, "amount": 75.5, "purchaserEmail": "b@example.com"}),
    )
    .await;
    ok.assert_status(200);
    assert_eq!(ok.body["amount"], 75.5);
    assert_eq!(ok.body["paymentOptions"]["cardpay"], false);
    let refused = pay(&app, &t, ok.str("purchaseId")).await;
    refused.assert_error(400, "PAYMENT_FAILED");
    assert_eq!(
        refused.body["details"]["provider_error_code"],
        "not_configured"
    );
    assert_eq!(
        status(&app, &t, ok.str("purchaseId")).await["paymentStatus"],
        Value::Null
    );

    let missing = buy(
        &app,
        &t,
        json!({"giftCardProductId": range, "purchaserEmail": "b@example.com"}),
    )
    .await;
    missing.assert_error(400, "GIFT_CARD_INVALID_AMOUNT");
    let high = buy(
        &app,
        &t,
        json!({"giftCardProductId": range, "amount": 200.01, "purchaserEmail": "b@example.com"}),
    )
    .await;
    high.assert_error(400, "GIFT_CARD_INVALID_AMOUNT");
    assert_eq!(high.body["details"]["minValue"], 20.0);
    assert_eq!(high.body["details"]["maxValue"], 200.0);

    // Missing or inactive products.
    buy(
        &app,
        &t,
        json!({"giftCardProductId": uuid::Uuid::new_v4(), "purchaserEmail": "b@example.com"}),
    )
    .await
    .assert_error(404, "GIFT_CARD_PRODUCT_NOT_FOUND");
    app.delete(&format!("/api/v1/admin/gift-card-products/{range}"))
        .tenant(&t.id)
        .token(&t.owner_token)
        .send()
        .await
        .assert_status(200);
    buy(
        &app,
        &t,
        json!({"giftCardProductId": range, "amount": 50, "purchaserEmail": "b@example.com"}),
    )
    .await
    .assert_error(404, "GIFT_CARD_PRODUCT_NOT_FOUND");

    // Each bad field is named.
    let bad = buy(
        &app,
        &t,
        json!({"recipientEmail": "nope", "deliveryDate": "2020-01-01T00:00:00Z",
            "amount": -5, "personalMessage": "x".repeat(1001)}),
    )
    .await;
    bad.assert_status(400);
    for field in [
        "giftCardProductId",
        "purchaserEmail",
        "recipientEmail",
        "deliveryDate",
        "amount",
        "personalMessage",
    ] {
        assert!(bad.text.contains(field), "{field}: {}", bad.text);
    }

    // Unknown purchases and codes.
    app.get(&format!("{PURCHASE}/{}/status", uuid::Uuid::new_v4()))
        .tenant(&t.id)
        .send()
        .await
        .assert_error(404, "GIFT_CARD_PURCHASE_NOT_FOUND");
    pay(&app, &t, "not-a-purchase")
        .await
        .assert_error(404, "GIFT_CARD_PURCHASE_NOT_FOUND");
    app.get("/api/v1/gift-cards/balance/GIFT-NOPE-NOPE")
        .tenant(&t.id)
        .send()
        .await
        .assert_error(404, "GIFT_CARD_NOT_FOUND");
    // Another tenant's purchase is not found.
    let other = app.tenant("other").await;
    app.get(&format!("{PURCHASE}/{}/status", ok.str("purchaseId")))
        .tenant(&other.id)
        .send()
        .await
        .assert_error(404, "GIFT_CARD_PURCHASE_NOT_FOUND");
}

#[tokio::test]
async fn a_repeated_purchase_request_with_its_key_makes_one_purchase() {
    let app = TestApp::spawn().await;
    let t = app.tenant("acme").await;
    let product = fixed(&app, &t).await;
    let body = json!({"giftCardProductId": product, "purchaserEmail": "b@example.com"});
    let first = app
        .post(PURCHASE)
        .tenant(&t.id)
        .header("idempotency-key", "gift-1")
        .json(body.clone())
        .send()
        .await;
    first.assert_status(200);
    let second = app
        .post(PURCHASE)
        .tenant(&t.id)
        .header("idempotency-key", "gift-1")
        .json(body)
        .send()
        .await;
    second.assert_status(200);
    assert_eq!(second.body["purchaseId"], first.body["purchaseId"]);
    let list = app
        .get("/api/v1/admin/gift-card-purchases")
        .tenant(&t.id)
        .token(&t.owner_token)
        .send()
        .await;
    assert_eq!(list.body["total"], 1);
}

#[tokio::test]
async fn a_second_payment_event_never_issues_a_second_voucher() {
    let app = TestApp::spawn().await;
    let t = app.tenant("acme").await;
    let key = app.sandbox_cardpay(&t).await;
    let product = fixed(&app, &t).await;
    let (id, _) = paid_purchase(&app, &t, &product, "rita@example.com").await;
    pay(&app, &t, &id)
        .await
        .assert_error(409, "GIFT_CARD_ALREADY_PAID");
    let intent = payment_of(&app, &id).await.provider_payment_id.unwrap();
    // The same event again, and another event for the same intent.
    let secret = webhook_secret(&app.state.config.payments.secrets, &key);
    for (event, expected) in [
        ("evt_gift_again_1", "GIFT_CARD_ALREADY_PAID"),
        ("evt_gift_again_1", "DUPLICATE_EVENT"),
    ] {
        let body = serde_json::to_vec(&json!({
            "id": event, "object": "event", "type": "payment_intent.succeeded",
            "data": {"object": {"id": intent, "object": "payment_intent", "amount": 5000,
                "amount_received": 5000, "currency": "eur", "status": "succeeded",
                "metadata": {"tenant_id": "acme", "type": "gift_card_purchase", "purchase_id": id}}}
        }))
        .unwrap();
        let sig = header(&secret, app.clock_now().timestamp(), &body);
        let res = app
            .post("/payments/cardpay/webhook")
            .header("content-type", "application/json")
            .header("cardpay-signature", &sig)
            .raw(body)
            .send()
            .await;
        res.assert_status(200);
        assert_eq!(res.body["error"], expected, "{}", res.text);
    }
    let vouchers = app
        .get("/api/v1/admin/vouchers?type=gift_card")
        .tenant(&t.id)
        .token(&t.owner_token)
        .send()
        .await;
    vouchers.assert_status(200);
    assert_eq!(vouchers.body["total"], 1, "{}", vouchers.text);
}

/// The newest payment of purchase `id` (tenant acme).
pub(crate) async fn payment_of(app: &TestApp, id: &str) -> kairos_store::OnlinePayment {
    app.store
        .gift_card_payment(&TenantId::parse("acme").unwrap(), id.parse().unwrap())
        .await
        .unwrap()
        .unwrap()
}

#[tokio::test]
async fn a_declined_card_fails_the_purchase_until_another_card_pays_it() {
    let app = TestApp::spawn().await;
    let t = app.tenant("acme").await;
    app.sandbox_cardpay(&t).await;
    let product = fixed(&app, &t).await;
    let res = buy(
        &app,
        &t,
        json!({"giftCardProductId": product, "purchaserEmail": "b@example.com"}),
    )
    .await;
    let id = res.str("purchaseId").to_owned();
    let payment = pay(&app, &t, &id).await;
    confirm(&app, &payment.body, "pm_card_chargeDeclined").await;
    let s = wait_for(&app, &t, &id, "payment_failed").await;
    assert_eq!(s["paymentStatus"], "FAILED");
    // Paying again: the same payment, pending again; another card pays it.
    let again = pay(&app, &t, &id).await;
    again.assert_status(200);
    assert_eq!(again.body["paymentId"], payment.body["paymentId"]);
    assert_eq!(status(&app, &t, &id).await["status"], "pending");
    confirm(&app, &again.body, "pm_card_visa")
        .await
        .assert_status(200);
    wait_for(&app, &t, &id, "paid").await;
}

#[tokio::test]
async fn an_unpaid_purchase_is_cancelled_at_the_payment_deadline() {
    let app = TestApp::spawn().await;
    let t = app.tenant("acme").await;
    app.sandbox_cardpay(&t).await;
    let product = fixed(&app, &t).await;
    let res = buy(
        &app,
        &t,
        json!({"giftCardProductId": product, "purchaserEmail": "b@example.com"}),
    )
    .await;
    let id = res.str("purchaseId").to_owned();
    let payment = pay(&app, &t, &id).await;
    payment.assert_status(200);
    app.clock.advance(Duration::minutes(31));
    let report = kairos_app::payments::deadline::run_once(&app.state.app)
        .await
        .unwrap();
    assert_eq!(report.canceled, 1);
    let s = status(&app, &t, &id).await;
    assert_eq!(s["status"], "cancelled");
    assert_eq!(s["paymentStatus"], "CANCELED");
    pay(&app, &t, &id)
        .await
        .assert_error(409, "INVALID_TRANSITION");
    // The intent was canceled at the provider: the customer cannot pay it any more.
    let late = confirm(&app, &payment.body, "pm_card_visa").await;
    assert!(late.status.is_client_error(), "{}", late.text);
}

#[tokio::test]
async fn a_gift_card_for_later_is_emailed_on_its_delivery_date() {
    let app = TestApp::spawn().await;
    let t = app.tenant("acme").await;
    app.sandbox_cardpay(&t).await;
    let product = fixed(&app, &t).await;
    let when = app.clock_now() + Duration::days(3);
    let res = buy(
        &app,
        &t,
        json!({"giftCardProductId": product, "purchaserEmail": "b@example.com",
            "recipientEmail": "later@example.com", "deliveryDate": when.to_rfc3339()}),
    )
    .await;
    res.assert_status(200);
    let id = res.str("purchaseId").to_owned();
    let payment = pay(&app, &t, &id).await;
    confirm(&app, &payment.body, "pm_card_visa")
        .await
        .assert_status(200);
    wait_for(&app, &t, &id, "paid").await;
    assert_eq!(deliver_all(&app).await, 0, "not before its date");
    assert_eq!(status(&app, &t, &id).await["status"], "paid");
    app.clock.advance(Duration::days(3));
    assert_eq!(deliver_all(&app).await, 1);
    assert_eq!(status(&app, &t, &id).await["status"], "delivered");
}
