//! `POST /api/v1/payments/authorize`, `/capture` and `/refund` with the sandbox provider.

use kairos_testkit::{BookingFixture, TenantFixture, TestApp, TestResponse};
use serde_json::{Value, json};
use std::time::Duration;

async fn setup() -> (TestApp, TenantFixture, BookingFixture) {
    let app = TestApp::spawn().await;
    let t = app.tenant("acme").await;
    let fx = app.bookable(&t).await;
    app.sandbox_cardpay(&t).await;
    (app, t, fx)
}

async fn confirm(
    app: &TestApp,
    t: &TenantFixture,
    fx: &BookingFixture,
    extra: Value,
) -> (TestResponse, TestResponse) {
    let hold = app.hold(&t.id, fx, &fx.slots[0], 2).await;
    let mut body = json!({"pricingHash": hold.str("pricingHash"), "paymentMethod": "cardpay"});
    if let (Value::Object(b), Value::Object(e)) = (&mut body, extra) {
        b.extend(e);
    }
    let res = app
        .post(&format!("/api/v1/bookings/{}/confirm", hold.str("id")))
        .tenant(&t.id)
        .header("x-booking-token", hold.str("bookingToken"))
        .json(body)
        .send()
        .await;
    res.assert_status(200);
    (hold, res)
}

async fn detail(app: &TestApp, t: &TenantFixture, id: &str) -> Value {
    app.get(&format!("/api/v1/admin/bookings/{id}"))
        .tenant(&t.id)
        .token(&t.owner_token)
        .send()
        .await
        .body
}

async fn wait_paid(app: &TestApp, t: &TenantFixture, id: &str) {
    for _ in 0..100 {
        if detail(app, t, id).await["status"] == "paid" {
            return;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("booking {id} never became paid");
}

async fn staff_post(app: &TestApp, t: &TenantFixture, path: &str, body: Value) -> TestResponse {
    app.post(path)
        .tenant(&t.id)
        .token(&t.owner_token)
        .json(body)
        .send()
        .await
}

#[tokio::test]
async fn held_funds_are_captured_by_staff_and_the_booking_is_paid() {
    let (app, t, fx) = setup().await;
    let (hold, res) = confirm(
        &app,
        &t,
        &fx,
        json!({"captureMethod": "manual", "paymentMethodId": "pm_card_visa"}),
    )
    .await;
    assert_eq!(res.body["payment"]["providerStatus"], "requires_capture");
    let payment = res.body["payment"]["paymentId"]
        .as_str()
        .unwrap()
        .to_owned();
    tokio::time::sleep(Duration::from_millis(400)).await;
    assert_eq!(
        detail(&app, &t, hold.str("id")).await["status"],
        "confirmed",
        "only held"
    );

    let captured = staff_post(
        &app,
        &t,
        "/api/v1/payments/capture",
        json!({"paymentId": payment}),
    )
    .await;
    captured.assert_status(200);
    assert_eq!(captured.body["status"], "CAPTURED");
    assert_eq!(captured.body["amountCaptured"], 4000);
    wait_paid(&app, &t, hold.str("id")).await;
    assert_eq!(
        detail(&app, &t, hold.str("id")).await["payments"][0]["status"],
        "COMPLETED"
    );
    staff_post(
        &app,
        &t,
        "/api/v1/payments/capture",
        json!({"paymentId": payment}),
    )
    .await
    .assert_error(409, "INVALID_TRANSITION");
    staff_post(
        &app,
        &t,
        "/api/v1/payments/capture",
        json!({"paymentId": uuid::Uuid::new_v4()}),
    )
    .await
    .assert_error(404, "NOT_FOUND");
    let bad = staff_post(&app, &t, "/api/v1/payments/capture", json!({"amount": 0})).await;
    bad.assert_error(400, "VALIDATION_ERROR");
    assert_eq!(bad.error_fields(), vec!["paymentId", "amount"]);
}

#[tokio::test]
async fn a_paid_booking_is_refunded_in_parts_then_in_full() {
    let (app, t, fx) = setup().await;
    let (hold, res) = confirm(&app, &t, &fx, json!({"paymentMethodId": "pm_card_visa"})).await;
    let payment = res.body["payment"]["paymentId"]
        .as_str()
        .unwrap()
        .to_owned();
    wait_paid(&app, &t, hold.str("id")).await;

    let part = staff_post(
        &app,
        &t,
        "/api/v1/payments/refund",
        json!({"paymentId": payment, "amount": 1000, "reason": "one player fewer"}),
    )
    .await;
    part.assert_status(200);
    assert_eq!(part.body["success"], true);
    assert_eq!(part.body["total_refund_amount"], 1000);
    assert_eq!(part.body["fee_deducted"], 0);
    assert_eq!(part.body["net_refund_amount"], 1000);
    let line = &part.body["refund_breakdown"][0];
    assert_eq!(line["payment_method"], "cardpay");
    assert_eq!(line["original_amount"], 4000);
    assert!(
        line["provider_refund_id"]
            .as_str()
            .unwrap()
            .starts_with("re_")
    );
    assert_eq!(
        detail(&app, &t, hold.str("id")).await["payments"][0]["status"],
        "COMPLETED"
    );

    let too_much = staff_post(
        &app,
        &t,
        "/api/v1/payments/refund",
        json!({"paymentId": payment, "amount": 3001}),
    )
    .await;
    too_much.assert_error(400, "VALIDATION_ERROR");
    assert_eq!(too_much.error_fields(), vec!["amount"]);

    let rest = staff_post(
        &app,
        &t,
        "/api/v1/payments/refund",
        json!({"paymentId": payment}),
    )
    .await;
    rest.assert_status(200);
    assert_eq!(rest.body["total_refund_amount"], 3000);
    assert_eq!(
        detail(&app, &t, hold.str("id")).await["payments"][0]["status"],
        "REFUNDED"
    );
    staff_post(
        &app,
        &t,
        "/api/v1/payments/refund",
        json!({"paymentId": payment}),
    )
    .await
    .assert_error(409, "INVALID_TRANSITION");
}

#[tokio::test]
async fn a_refund_the_provider_cannot_make_goes_to_the_dead_letter_queue() {
    let (app, t, fx) = setup().await;
    let (hold, res) = confirm(&app, &t, &fx, json!({"paymentMethodId": "pm_card_visa"})).await;
    let payment = res.body["payment"]["paymentId"]
        .as_str()
        .unwrap()
        .to_owned();
    wait_paid(&app, &t, hold.str("id")).await;
    // The account the payment was made with is gone.
    app.delete("/api/v1/admin/payments/credentials/cardpay")
        .tenant(&t.id)
        .token(&t.owner_token)
        .send()
        .await
        .assert_status(200);
    let res = app
        .post("/api/v1/payments/refund")
        .tenant(&t.id)
        .token(&t.owner_token)
        .json(json!({"paymentId": payment}))
        .expect_server_error()
        .send()
        .await;
    res.assert_error(500, "REFUND_FAILED");
    assert_eq!(
        detail(&app, &t, hold.str("id")).await["payments"][0]["status"],
        "COMPLETED"
    );
    let letters = app
        .get("/api/v1/admin/dead-letters?type=payment")
        .tenant(&t.id)
        .token(&t.owner_token)
        .send()
        .await;
    letters.assert_status(200);
    let letter = &letters.body["deadLetters"][0];
    assert_eq!(letter["errorType"], "REFUND_FAILED", "{}", letters.text);
    assert_eq!(letter["bookingId"], hold.str("id"));
}

#[tokio::test]
async fn authorize_resumes_the_card_payment_of_a_confirmed_booking() {
    let (app, t, fx) = setup().await;
    let (hold, res) = confirm(&app, &t, &fx, json!({})).await;
    let intent = res.body["payment"]["paymentIntentId"]
        .as_str()
        .unwrap()
        .to_owned();
    let again = app
        .post("/api/v1/payments/authorize")
        .tenant(&t.id)
        .header("x-booking-token", hold.str("bookingToken"))
        .json(json!({"bookingId": hold.str("id")}))
        .send()
        .await;
    again.assert_status(200);
    assert_eq!(
        again.body["paymentIntentId"],
        intent.as_str(),
        "the same intent"
    );
    assert!(again.body["clientSecret"].is_string());
    // Pay on arrival has nothing to authorize.
    let poa = app.hold(&t.id, &fx, &fx.slots[1], 1).await;
    app.post(&format!("/api/v1/bookings/{}/confirm", poa.str("id")))
        .tenant(&t.id)
        .header("x-booking-token", poa.str("bookingToken"))
        .json(json!({"pricingHash": poa.str("pricingHash"), "paymentMethod": "poa"}))
        .send()
        .await
        .assert_status(200);
    app.post("/api/v1/payments/authorize")
        .tenant(&t.id)
        .header("x-booking-token", poa.str("bookingToken"))
        .json(json!({"bookingId": poa.str("id")}))
        .send()
        .await
        .assert_error(409, "INVALID_TRANSITION");
    // Another booking's token sees nothing.
    app.post("/api/v1/payments/authorize")
        .tenant(&t.id)
        .header("x-booking-token", poa.str("bookingToken"))
        .json(json!({"bookingId": hold.str("id")}))
        .send()
        .await
        .assert_error(404, "BOOKING_NOT_FOUND");
}

async fn keyed_refund(app: &TestApp, t: &TenantFixture, key: &str, body: Value) -> TestResponse {
    app.post("/api/v1/payments/refund")
        .tenant(&t.id)
        .token(&t.owner_token)
        .header("Idempotency-Key", key)
        .json(body)
        .send()
        .await
}

#[tokio::test]
async fn a_refund_repeated_with_its_idempotency_key_is_made_once() {
    let (app, t, fx) = setup().await;
    let (hold, res) = confirm(&app, &t, &fx, json!({"paymentMethodId": "pm_card_visa"})).await;
    let payment = res.body["payment"]["paymentId"]
        .as_str()
        .unwrap()
        .to_owned();
    wait_paid(&app, &t, hold.str("id")).await;
    let body = json!({"paymentId": payment, "amount": 1000});
    let first = keyed_refund(&app, &t, "refund-1", body.clone()).await;
    first.assert_status(200);
    assert!(first.headers.get("idempotent-replayed").is_none());
    // The same request again (a lost answer retried): the first answer, nothing more.
    let again = keyed_refund(&app, &t, "refund-1", body.clone()).await;
    again.assert_status(200);
    assert_eq!(
        again.headers.get("idempotent-replayed").unwrap(),
        "true",
        "{}",
        again.text
    );
    assert_eq!(again.body["refund_id"], first.body["refund_id"]);
    // The key for another request is refused; a new key refunds again.
    keyed_refund(
        &app,
        &t,
        "refund-1",
        json!({"paymentId": payment, "amount": 500}),
    )
    .await
    .assert_error(422, "IDEMPOTENCY_KEY_REUSED");
    let second = keyed_refund(&app, &t, "refund-2", body).await;
    second.assert_status(200);
    assert_ne!(second.body["refund_id"], first.body["refund_id"]);
    // Two keys on one request: which is meant is unknown, so nothing is done.
    let two = app
        .post("/api/v1/payments/refund")
        .tenant(&t.id)
        .token(&t.owner_token)
        .header("Idempotency-Key", "refund-a")
        .header("Idempotency-Key", "refund-b")
        .json(json!({"paymentId": payment, "amount": 1000}))
        .send()
        .await;
    two.assert_error(400, "VALIDATION_ERROR");
    assert!(two.text.contains("once"), "{}", two.text);
    // 1000 + 1000 of 4000 returned: the payment still has 2000 left.
    let rest = keyed_refund(&app, &t, "refund-3", json!({"paymentId": payment})).await;
    rest.assert_status(200);
    assert_eq!(rest.body["total_refund_amount"], 2000, "{}", rest.text);
    // A refusal is the key's answer too.
    let refused = keyed_refund(&app, &t, "refund-4", json!({"paymentId": payment})).await;
    refused.assert_error(409, "INVALID_TRANSITION");
    keyed_refund(&app, &t, "refund-4", json!({"paymentId": payment}))
        .await
        .assert_error(409, "INVALID_TRANSITION");
}

#[tokio::test]
async fn authorize_and_capture_repeated_with_their_keys_answer_the_first_answer() {
    let (app, t, fx) = setup().await;
    let (hold, _) = confirm(
        &app,
        &t,
        &fx,
        json!({"captureMethod": "manual", "paymentMethodId": "pm_card_visa"}),
    )
    .await;
    let authorize = |key: &'static str| {
        app.post("/api/v1/payments/authorize")
            .tenant(&t.id)
            .header("x-booking-token", hold.str("bookingToken"))
            .header("Idempotency-Key", key)
            .json(json!({"bookingId": hold.str("id")}))
            .send()
    };
    let first = authorize("auth-1").await;
    first.assert_status(200);
    let again = authorize("auth-1").await;
    again.assert_status(200);
    assert_eq!(again.headers.get("idempotent-replayed").unwrap(), "true");
    assert_eq!(again.body, first.body);
    let payment = first.body["paymentId"].as_str().unwrap().to_owned();
    let capture = |key: &'static str| {
        app.post("/api/v1/payments/capture")
            .tenant(&t.id)
            .token(&t.owner_token)
            .header("Idempotency-Key", key)
            .json(json!({"paymentId": payment}))
            .send()
    };
    let captured = capture("cap-1").await;
    captured.assert_status(200);
    assert_eq!(captured.body["status"], "CAPTURED");
    let replay = capture("cap-1").await;
    replay.assert_status(200);
    assert_eq!(replay.headers.get("idempotent-replayed").unwrap(), "true");
    assert_eq!(replay.body, captured.body);
    wait_paid(&app, &t, hold.str("id")).await;
}

#[tokio::test]
async fn one_request_at_a_time_asks_the_card_provider_about_a_refund() {
    let (app, t, fx) = setup().await;
    let (hold, res) = confirm(&app, &t, &fx, json!({"paymentMethodId": "pm_card_visa"})).await;
    let payment: uuid::Uuid = res.body["payment"]["paymentId"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    wait_paid(&app, &t, hold.str("id")).await;
    // A request began the refund and is asking the provider right now.
    let tenant = kairos_domain::TenantId::parse(&t.id).unwrap();
    let started = app
        .store
        .begin_refund(
            &tenant,
            payment,
            None,
            None,
            &kairos_store::Actor::system("test"),
            app.clock_now(),
        )
        .await
        .unwrap();
    let body = json!({"paymentId": payment});
    let busy = keyed_refund(&app, &t, "refund-busy", body.clone()).await;
    busy.assert_error(409, "INVALID_TRANSITION");
    assert!(busy.text.contains("right now"), "{}", busy.text);
    assert_eq!(busy.headers["retry-after"], "60");
    // That request died: a minute later the same refund is resumed (the provider's
    // idempotency key makes it one refund) and completed; the 409 passed by itself, so
    // the same Idempotency-Key runs again instead of answering it for a day.
    app.clock.advance(chrono::Duration::seconds(61));
    let resumed = keyed_refund(&app, &t, "refund-busy", body).await;
    resumed.assert_status(200);
    assert_eq!(resumed.body["refund_id"], started.refund_id.to_string());
    assert_eq!(resumed.body["refund_breakdown"][0]["status"], "Completed");
    assert_eq!(
        detail(&app, &t, hold.str("id")).await["payments"][0]["status"],
        "REFUNDED"
    );
}
