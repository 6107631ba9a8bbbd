//! Paying by bank redirect (bankpay, Paytrail's API; spec Part B 4.6, 5, 6): the payment
//! is created at a Paytrail-compatible provider with a signed request, the customer is
//! sent to its page, and the provider's signed callback (as the spec shows it, or as
//! Paytrail calls callback URLs) makes the booking `paid`, once. A bank payment is
//! refunded at the same provider and account (`POST /payments/{transactionId}/refund`);
//! a refund it reports on later is finished by its own signed callback.
#![expect(clippy::unwrap_used, reason = "test helpers fail the test loudly")]

use kairos_domain::payments::bankpay_signature::{Algorithm, sign};
use kairos_testkit::bankpay::BankpayServer;
use kairos_testkit::{BankpaySetup, BookingFixture, TenantFixture, TestApp, TestResponse};
use serde_json::{Value, json};

const MERCHANT: &str = "375917";
const SECRET: &str = "SAIPPUAKAUPPIAS";
const PUBLIC: &str = "https://kairos.example.com";

/// A tenant with bankpay credentials (unless `env`: the platform's account only).
async fn setup(env: bool) -> (TestApp, TenantFixture, BookingFixture, BankpayServer) {
    let server = BankpayServer::start(MERCHANT, SECRET).await;
    let app = TestApp::builder()
        .bankpay(BankpaySetup {
            api_base: server.url.clone(),
            public_url: PUBLIC.to_owned(),
            env: env.then(|| (MERCHANT.to_owned(), SECRET.to_owned())),
        })
        .spawn()
        .await;
    let t = app.tenant("acme").await;
    let fx = app.bookable(&t).await;
    if !env {
        app.put("/api/v1/admin/payments/credentials/bankpay")
            .tenant(&t.id)
            .token(&t.owner_token)
            .json(json!({"merchantId": MERCHANT, "secretKey": SECRET}))
            .send()
            .await
            .assert_status(200);
    }
    (app, t, fx, server)
}

/// A hold confirmed with bankpay: (hold, answer).
async fn confirm_by_bank(
    app: &TestApp,
    t: &TenantFixture,
    fx: &BookingFixture,
    extra: Value,
) -> (TestResponse, TestResponse) {
    let hold = app.hold(&t.id, fx, &fx.slots[0], 2).await;
    hold.assert_status(200);
    let mut body = json!({"pricingHash": hold.str("pricingHash"), "paymentMethod": "bankpay"});
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
    (hold, res)
}

fn transaction_of(res: &TestResponse) -> String {
    res.body["payment"]["redirectUrl"]
        .as_str()
        .unwrap()
        .rsplit('/')
        .next()
        .unwrap()
        .to_owned()
}

/// A callback as the spec shows it: signing headers, JSON body.
async fn callback(
    app: &TestApp,
    transaction: &str,
    status: &str,
    amount: &str,
    age_seconds: i64,
    secret: &str,
) -> TestResponse {
    let timestamp = (app.clock_now() - chrono::Duration::seconds(age_seconds)).to_rfc3339();
    let headers = [
        ("checkout-account", MERCHANT),
        ("checkout-algorithm", "sha256"),
        ("checkout-method", "POST"),
        ("checkout-timestamp", timestamp.as_str()),
        ("checkout-nonce", "n-1"),
    ];
    let body = json!({"checkout-stamp": "s", "checkout-transaction-id": transaction,
        "checkout-status": status, "checkout-amount": amount, "checkout-reference": "r",
        "checkout-provider": "nordea"})
    .to_string();
    let signature = sign(secret, Algorithm::Sha256, headers, &body);
    let mut req = app
        .post("/webhooks/bankpay/callback")
        .header("content-type", "application/json")
        .header("signature", &signature);
    for (k, v) in headers {
        req = req.header(k, v);
    }
    req.raw(body.into_bytes()).send().await
}

/// A callback as Paytrail calls callback URLs: a GET with the signed query.
async fn query_callback(app: &TestApp, query: &str) -> TestResponse {
    app.get(&format!("/webhooks/bankpay/callback?{query}"))
        .send()
        .await
}

/// The bank's own transaction of the `nth` refund it was asked for.
fn refund_transaction(server: &BankpayServer, nth: usize) -> String {
    server.refunds()[nth]["refundTransactionId"]
        .as_str()
        .unwrap()
        .to_owned()
}

async fn booking(app: &TestApp, t: &TenantFixture, id: &str) -> Value {
    app.get(&format!("/api/v1/admin/bookings/{id}"))
        .tenant(&t.id)
        .token(&t.owner_token)
        .send()
        .await
        .body
}

#[tokio::test]
async fn a_booking_paid_by_bank_redirect_is_paid_by_its_signed_callback() {
    let (app, t, fx, server) = setup(false).await;
    let (hold, res) = confirm_by_bank(
        &app,
        &t,
        &fx,
        json!({"successUrl": "https://venue.example.com/thanks"}),
    )
    .await;
    res.assert_status(200);
    assert_eq!(res.body["status"], "confirmed");
    let p = &res.body["payment"];
    assert_eq!(p["provider"], "bankpay");
    assert_eq!(p["status"], "PENDING");
    assert_eq!(p["amount"], 4000);
    assert!(
        p["redirectUrl"]
            .as_str()
            .unwrap()
            .starts_with("https://pay.paytrail.test/pay/")
    );
    // What the provider was asked, signed (it refuses an unsigned request).
    let asked = server.accepted();
    assert_eq!(asked.len(), 1);
    assert_eq!(asked[0]["stamp"], p["paymentId"]);
    assert_eq!(asked[0]["amount"], 4000);
    assert_eq!(asked[0]["currency"], "EUR");
    assert_eq!(asked[0]["reference"], hold.body["reference"]);
    assert_eq!(
        asked[0]["redirectUrls"]["success"],
        "https://venue.example.com/thanks"
    );
    assert_eq!(
        asked[0]["redirectUrls"]["cancel"],
        format!("{PUBLIC}/?booking={}&payment=cancel", hold.str("id"))
    );
    assert_eq!(
        asked[0]["callbackUrls"]["success"],
        format!("{PUBLIC}/webhooks/bankpay/callback")
    );
    // Asking again (authorize) gives the same page: one payment at the provider.
    let again = app
        .post("/api/v1/payments/authorize")
        .tenant(&t.id)
        .header("x-booking-token", hold.str("bookingToken"))
        .json(json!({"bookingId": hold.str("id")}))
        .send()
        .await;
    again.assert_status(200);
    assert_eq!(again.body["redirectUrl"], p["redirectUrl"]);
    assert_eq!(server.accepted().len(), 1);

    let txn = transaction_of(&res);
    let pending = callback(&app, &txn, "pending", "4000", 0, SECRET).await;
    pending.assert_status(200);
    assert_eq!(pending.body["processed"], false);
    let ok = callback(&app, &txn, "ok", "4000", 10, SECRET).await;
    ok.assert_status(200);
    assert_eq!(ok.body["status"], "ok");
    assert_eq!(ok.body["processed"], true, "{}", ok.text);
    assert_eq!(ok.body["idempotency_key"], format!("{txn}:ok"));
    let b = booking(&app, &t, hold.str("id")).await;
    assert_eq!(b["status"], "paid");
    assert_eq!(b["payments"][0]["status"], "COMPLETED");
    // Once.
    let dup = callback(&app, &txn, "ok", "4000", 0, SECRET).await;
    dup.assert_status(200);
    assert_eq!(dup.body["error"], "DUPLICATE_EVENT");
    let health = app
        .post("/webhooks/bankpay/health")
        .tenant(&t.id)
        .token(&t.owner_token)
        .send()
        .await;
    health.assert_status(200);
    assert_eq!(health.body["stats"]["total_events_processed"], 2);
    assert_eq!(health.body["stats"]["duplicate_events_rejected"], 1);
}

#[tokio::test]
async fn bank_callbacks_are_verified_before_anything_else() {
    let (app, t, fx, _server) = setup(false).await;
    let (hold, res) = confirm_by_bank(&app, &t, &fx, json!({})).await;
    res.assert_status(200);
    let txn = transaction_of(&res);
    callback(&app, &txn, "ok", "4000", 0, "WRONG")
        .await
        .assert_error(403, "INVALID_SIGNATURE");
    callback(&app, &txn, "ok", "4000", 301, SECRET)
        .await
        .assert_error(403, "INVALID_SIGNATURE");
    callback(&app, "no-such-transaction", "ok", "4000", 0, SECRET)
        .await
        .assert_error(403, "INVALID_SIGNATURE");
    app.post("/webhooks/bankpay/callback")
        .header("content-type", "application/json")
        .raw(
            json!({"checkout-transaction-id": txn, "checkout-status": "ok"})
                .to_string()
                .into_bytes(),
        )
        .send()
        .await
        .assert_error(403, "INVALID_SIGNATURE");
    callback(&app, &txn, "maybe", "4000", 0, SECRET)
        .await
        .assert_error(400, "VALIDATION_ERROR");
    // Another amount than the payment's changes nothing.
    let short = callback(&app, &txn, "ok", "100", 0, SECRET).await;
    short.assert_status(200);
    assert_eq!(short.body["processed"], false, "{}", short.text);
    assert_eq!(
        booking(&app, &t, hold.str("id")).await["status"],
        "confirmed"
    );
    // Staff see it: money may have moved that the booking does not show.
    let letters = payment_dead_letters(&app, &t).await;
    assert!(
        letters.as_array().is_some_and(|l| l
            .iter()
            .any(|d| d["errorType"] == "AMOUNT_MISMATCH" && d["kind"] == "bankpay")),
        "{letters}"
    );
    // A callback without its amount is refused (nothing can be checked).
    let headers = [
        ("checkout-account", MERCHANT),
        ("checkout-algorithm", "sha256"),
        ("checkout-method", "POST"),
        ("checkout-timestamp", &app.clock_now().to_rfc3339()),
        ("checkout-nonce", "n-2"),
    ];
    let body = json!({"checkout-stamp": "s", "checkout-transaction-id": txn,
        "checkout-status": "ok", "checkout-reference": "r"})
    .to_string();
    let mut req = app
        .post("/webhooks/bankpay/callback")
        .header("content-type", "application/json")
        .header(
            "signature",
            &sign(SECRET, Algorithm::Sha256, headers, &body),
        );
    for (k, v) in headers {
        req = req.header(k, v);
    }
    let unpriced = req.raw(body.into_bytes()).send().await;
    unpriced.assert_error(400, "VALIDATION_ERROR");
    assert!(
        unpriced.text.contains("checkout-amount"),
        "{}",
        unpriced.text
    );
    // The wrong amount did not use up the callback: the right one still settles it.
    let right = callback(&app, &txn, "ok", "4000", 0, SECRET).await;
    assert_eq!(right.body["processed"], true, "{}", right.text);
    assert_eq!(booking(&app, &t, hold.str("id")).await["status"], "paid");
}

#[tokio::test]
async fn paytrails_own_callback_form_settles_and_fails_payments() {
    let (app, t, fx, server) = setup(false).await;
    let (hold, res) = confirm_by_bank(&app, &t, &fx, json!({})).await;
    let txn = transaction_of(&res);
    let stamp = res.body["payment"]["paymentId"]
        .as_str()
        .unwrap()
        .to_owned();
    // A failed bank payment: the payment FAILED, the booking waits.
    let failed = query_callback(&app, &server.callback_query(&stamp, &txn, "fail", 4000)).await;
    failed.assert_status(200);
    assert_eq!(failed.body["processed"], true, "{}", failed.text);
    let b = booking(&app, &t, hold.str("id")).await;
    assert_eq!(b["payments"][0]["status"], "FAILED");
    // Then paid after all (as Paytrail calls: GET, or POST, all in the query).
    let tampered = server
        .callback_query(&stamp, &txn, "ok", 4000)
        .replace("checkout-amount=4000", "checkout-amount=4001");
    query_callback(&app, &tampered)
        .await
        .assert_error(403, "INVALID_SIGNATURE");
    let ok = app
        .post(&format!(
            "/webhooks/bankpay/callback?{}",
            server.callback_query(&stamp, &txn, "ok", 4000)
        ))
        .send()
        .await;
    ok.assert_status(200);
    assert_eq!(booking(&app, &t, hold.str("id")).await["status"], "paid");
}

#[tokio::test]
async fn the_platform_account_serves_venues_without_their_own() {
    let (app, t, fx, server) = setup(true).await;
    let (hold, res) = confirm_by_bank(&app, &t, &fx, json!({})).await;
    res.assert_status(200);
    assert_eq!(server.accepted().len(), 1);
    let ok = callback(&app, &transaction_of(&res), "ok", "4000", 0, SECRET).await;
    assert_eq!(ok.body["processed"], true, "{}", ok.text);
    assert_eq!(booking(&app, &t, hold.str("id")).await["status"], "paid");
}

#[tokio::test]
async fn without_a_bankpay_account_the_confirmation_is_refused_before_anything_changes() {
    let app = TestApp::spawn().await;
    let t = app.tenant("acme").await;
    let fx = app.bookable(&t).await;
    let (hold, res) = confirm_by_bank(&app, &t, &fx, json!({})).await;
    res.assert_error(400, "PAYMENT_FAILED");
    assert_eq!(res.body["details"]["provider"], "bankpay");
    assert_eq!(res.body["details"]["provider_error_code"], "not_configured");
    assert_eq!(booking(&app, &t, hold.str("id")).await["status"], "hold");
    let (_, bad) =
        confirm_by_bank(&app, &t, &fx, json!({"successUrl": "javascript:alert(1)"})).await;
    bad.assert_error(400, "VALIDATION_ERROR");
    assert!(bad.text.contains("successUrl"), "{}", bad.text);
}

#[tokio::test]
async fn an_unpaid_bank_payment_is_cancelled_at_the_deadline_and_a_late_one_reinstates_it() {
    let (app, t, fx, server) = setup(false).await;
    let (hold, res) = confirm_by_bank(&app, &t, &fx, json!({})).await;
    res.assert_status(200);
    app.clock.advance(chrono::Duration::minutes(31));
    let report = kairos_app::payments::deadline::run_once(&app.state.app)
        .await
        .unwrap();
    assert_eq!(report.canceled, 1);
    // The provider was asked first: the payment was `new` (never paid).
    assert_eq!(server.status_queries(), 1);
    assert_eq!(
        booking(&app, &t, hold.str("id")).await["status"],
        "canceled"
    );
    app.assert_capacity_invariant(&t.id).await;
    // The bank transfer arrives after all: the seats are free, the booking is paid.
    let ok = callback(&app, &transaction_of(&res), "ok", "4000", 0, SECRET).await;
    assert_eq!(ok.body["processed"], true, "{}", ok.text);
    assert_eq!(booking(&app, &t, hold.str("id")).await["status"], "paid");
    app.assert_capacity_invariant(&t.id).await;
}

#[tokio::test]
async fn a_bank_payment_past_its_deadline_is_asked_about_at_the_provider() {
    let (app, t, fx, server) = setup(false).await;
    let (hold, res) = confirm_by_bank(&app, &t, &fx, json!({})).await;
    res.assert_status(200);
    let txn = transaction_of(&res);
    app.clock.advance(chrono::Duration::minutes(31));
    let pass = || async {
        kairos_app::payments::deadline::run_once(&app.state.app)
            .await
            .unwrap()
    };
    // The bank has the transfer on its way: the booking waits for it.
    server.set_payment_status(&txn, "delayed");
    let report = pass().await;
    assert_eq!((report.skipped, report.canceled), (1, 0), "{report:?}");
    assert_eq!(
        booking(&app, &t, hold.str("id")).await["status"],
        "confirmed"
    );
    // The money came but its callback was lost: the next pass settles it.
    server.set_payment_status(&txn, "ok");
    let report = pass().await;
    assert_eq!(report.settled, 1, "{report:?}");
    let b = booking(&app, &t, hold.str("id")).await;
    assert_eq!(b["status"], "paid");
    assert_eq!(b["payments"][0]["status"], "COMPLETED");
    assert_eq!(server.status_queries(), 2);
    // The callback arriving after all changes nothing; the next pass asks nothing.
    let late = callback(&app, &txn, "ok", "4000", 0, SECRET).await;
    assert_eq!(late.body["error"], "DUPLICATE_EVENT", "{}", late.text);
    assert_eq!(pass().await, Default::default());
    assert_eq!(server.status_queries(), 2);
    app.assert_capacity_invariant(&t.id).await;
}

/// A booking paid by bank: (hold, payment id, the payment's transaction).
async fn paid_by_bank(
    app: &TestApp,
    t: &TenantFixture,
    fx: &BookingFixture,
) -> (TestResponse, String, String) {
    let (hold, res) = confirm_by_bank(app, t, fx, json!({})).await;
    res.assert_status(200);
    let txn = transaction_of(&res);
    let ok = callback(app, &txn, "ok", "4000", 0, SECRET).await;
    assert_eq!(ok.body["processed"], true, "{}", ok.text);
    let payment = res.body["payment"]["paymentId"]
        .as_str()
        .unwrap()
        .to_owned();
    (hold, payment, txn)
}

async fn refund(app: &TestApp, t: &TenantFixture, body: Value) -> TestResponse {
    app.post("/api/v1/payments/refund")
        .tenant(&t.id)
        .token(&t.owner_token)
        .json(body)
        .send()
        .await
}

#[tokio::test]
async fn a_bank_payment_is_refunded_at_its_provider_with_a_signed_request() {
    let (app, t, fx, server) = setup(false).await;
    let (hold, payment, txn) = paid_by_bank(&app, &t, &fx).await;
    let part = refund(&app, &t, json!({"paymentId": payment, "amount": 1500})).await;
    part.assert_status(200);
    let r = &part.body;
    assert_eq!(r["success"], true, "{}", part.text);
    assert_eq!(r["net_refund_amount"], 1500);
    let piece = &r["refund_breakdown"][0];
    assert_eq!(piece["payment_method"], "bankpay");
    assert_eq!(piece["original_amount"], 4000);
    assert_eq!(piece["status"], "Completed");
    // What the provider was asked: this payment's transaction, the refund's id as
    // its stamp, the bank callback for a later outcome.
    let asked = server.refunds();
    assert_eq!(asked.len(), 1);
    assert_eq!(asked[0]["transactionId"], txn.as_str());
    assert_eq!(asked[0]["amount"], 1500);
    assert_eq!(asked[0]["refundStamp"], r["refund_id"]);
    assert_eq!(
        asked[0]["callbackUrls"]["success"],
        format!("{PUBLIC}/webhooks/bankpay/callback")
    );
    assert_eq!(piece["provider_refund_id"], asked[0]["refundTransactionId"]);
    let b = booking(&app, &t, hold.str("id")).await;
    assert_eq!(b["payments"][0]["status"], "COMPLETED", "partly refunded");
    // The rest, then nothing is left.
    refund(&app, &t, json!({"paymentId": payment}))
        .await
        .assert_status(200);
    assert_eq!(server.refunds()[1]["amount"], 2500);
    let b = booking(&app, &t, hold.str("id")).await;
    assert_eq!(b["payments"][0]["status"], "REFUNDED");
    refund(&app, &t, json!({"paymentId": payment}))
        .await
        .assert_error(409, "INVALID_TRANSITION");
}

#[tokio::test]
async fn a_pending_bank_refund_is_finished_by_its_signed_callback_once() {
    let (app, t, fx, server) = setup(false).await;
    let (hold, payment, txn) = paid_by_bank(&app, &t, &fx).await;
    server.answer_refunds("pending");
    let res = refund(&app, &t, json!({"paymentId": payment})).await;
    res.assert_status(200);
    assert_eq!(res.body["refund_breakdown"][0]["status"], "Processing");
    let refund_id = res.body["refund_id"].as_str().unwrap().to_owned();
    let refund_txn = refund_transaction(&server, 0);
    let b = booking(&app, &t, hold.str("id")).await;
    assert_eq!(b["payments"][0]["status"], "REFUND_PENDING");
    // The same request again does not ask the provider a second time.
    let again = refund(&app, &t, json!({"paymentId": payment})).await;
    again.assert_status(200);
    assert_eq!(again.body["refund_id"], refund_id.as_str());
    assert_eq!(server.refunds().len(), 1);
    // A forged outcome is refused; a transaction not the refund's or its payment's too.
    let forged = server
        .callback_query(&refund_id, &refund_txn, "ok", 4000)
        .replace("checkout-status=ok", "checkout-status=fail");
    query_callback(&app, &forged)
        .await
        .assert_error(403, "INVALID_SIGNATURE");
    let elsewhere = server.callback_query(&refund_id, "another-transaction", "ok", 4000);
    query_callback(&app, &elsewhere)
        .await
        .assert_error(403, "INVALID_SIGNATURE");
    // Still on its way, then returned.
    let waiting = query_callback(
        &app,
        &server.callback_query(&refund_id, &refund_txn, "pending", 4000),
    )
    .await;
    waiting.assert_status(200);
    assert_eq!(waiting.body["processed"], false);
    // A signed `ok` for another sum than was asked for is not applied.
    let other_sum = query_callback(
        &app,
        &server.callback_query(&refund_id, &refund_txn, "ok", 3999),
    )
    .await;
    other_sum.assert_status(200);
    assert_eq!(other_sum.body["processed"], false, "{}", other_sum.text);
    let letters = payment_dead_letters(&app, &t).await;
    assert!(
        letters
            .as_array()
            .is_some_and(|l| l.iter().any(|d| d["errorType"] == "AMOUNT_MISMATCH"
                && d["errorMessage"].as_str().unwrap_or("").contains("3999"))),
        "{letters}"
    );
    let b = booking(&app, &t, hold.str("id")).await;
    assert_eq!(b["payments"][0]["status"], "REFUND_PENDING");
    let done_query = server.callback_query(&refund_id, &refund_txn, "ok", 4000);
    let done = query_callback(&app, &done_query).await;
    done.assert_status(200);
    assert_eq!(done.body["processed"], true, "{}", done.text);
    assert_eq!(
        done.body["idempotency_key"],
        format!("refund:{refund_id}:ok")
    );
    let b = booking(&app, &t, hold.str("id")).await;
    assert_eq!(b["payments"][0]["status"], "REFUNDED");
    // Once: the provider's retry changes nothing.
    let dup = app
        .post(&format!("/webhooks/bankpay/callback?{done_query}"))
        .send()
        .await;
    dup.assert_status(200);
    assert_eq!(dup.body["error"], "DUPLICATE_EVENT");
    // The payment's own callbacks still find the payment.
    let late = callback(&app, &txn, "ok", "4000", 0, SECRET).await;
    assert_eq!(late.body["error"], "DUPLICATE_EVENT", "{}", late.text);
}

async fn payment_dead_letters(app: &TestApp, t: &TenantFixture) -> Value {
    let letters = app
        .get("/api/v1/admin/dead-letters?type=payment")
        .tenant(&t.id)
        .token(&t.owner_token)
        .send()
        .await;
    letters.assert_status(200);
    letters.body["deadLetters"].clone()
}

#[tokio::test]
async fn a_bank_refund_the_provider_fails_waits_for_staff_in_the_dead_letter_queue() {
    let (app, t, fx, server) = setup(false).await;
    let (hold, payment, _) = paid_by_bank(&app, &t, &fx).await;
    // Refused at once.
    server.answer_refunds("fail");
    app.post("/api/v1/payments/refund")
        .tenant(&t.id)
        .token(&t.owner_token)
        .json(json!({"paymentId": payment, "amount": 1000}))
        .expect_server_error()
        .send()
        .await
        .assert_error(500, "REFUND_FAILED");
    let b = booking(&app, &t, hold.str("id")).await;
    assert_eq!(b["payments"][0]["status"], "COMPLETED");
    assert_eq!(
        payment_dead_letters(&app, &t)
            .await
            .as_array()
            .unwrap()
            .len(),
        1
    );
    // Pending, then failed by its callback.
    server.answer_refunds("pending");
    let res = refund(&app, &t, json!({"paymentId": payment})).await;
    res.assert_status(200);
    let refund_id = res.body["refund_id"].as_str().unwrap();
    let refund_txn = refund_transaction(&server, 1);
    let failed = query_callback(
        &app,
        &server.callback_query(refund_id, &refund_txn, "fail", 4000),
    )
    .await;
    failed.assert_status(200);
    assert_eq!(failed.body["processed"], true, "{}", failed.text);
    let b = booking(&app, &t, hold.str("id")).await;
    assert_eq!(b["payments"][0]["status"], "COMPLETED");
    let letters = payment_dead_letters(&app, &t).await;
    assert_eq!(letters.as_array().unwrap().len(), 2, "{letters}");
    assert!(
        letters
            .as_array()
            .unwrap()
            .iter()
            .all(|l| l["errorType"] == "REFUND_FAILED")
    );
}

#[tokio::test]
async fn staff_cancelling_a_booking_paid_by_bank_refund_it_through_the_bank() {
    let (app, t, fx, server) = setup(true).await;
    let (hold, _, txn) = paid_by_bank(&app, &t, &fx).await;
    let res = app
        .post(&format!("/api/v1/bookings/{}/cancel", hold.str("id")))
        .tenant(&t.id)
        .token(&t.owner_token)
        .json(json!({"reason": "flooded"}))
        .send()
        .await;
    res.assert_status(200);
    let r = &res.body["refund"];
    assert_eq!(r["net_refund_amount"], 4000, "{}", res.text);
    assert_eq!(r["refund_breakdown"][0]["payment_method"], "bankpay");
    // Against the account that took it: the platform's.
    assert_eq!(server.refunds()[0]["transactionId"], txn.as_str());
    let b = booking(&app, &t, hold.str("id")).await;
    assert_eq!(b["payments"][0]["status"], "REFUNDED");
}

#[tokio::test]
async fn a_bank_transfer_arriving_after_its_seats_were_taken_goes_back_through_the_bank() {
    let (app, t, fx, server) = setup(false).await;
    let (hold, res) = confirm_by_bank(&app, &t, &fx, json!({})).await;
    res.assert_status(200);
    app.clock.advance(chrono::Duration::minutes(31));
    kairos_app::payments::deadline::run_once(&app.state.app)
        .await
        .unwrap();
    // Others take every seat of the slot.
    for _ in 0..100 {
        let other = app.hold(&t.id, &fx, &fx.slots[0], 2).await;
        if other.status != 200 {
            other.assert_error(409, "SLOT_UNAVAILABLE");
            break;
        }
    }
    let txn = transaction_of(&res);
    let late = callback(&app, &txn, "ok", "4000", 0, SECRET).await;
    late.assert_status(200);
    assert_eq!(late.body["error"], "PAID_AFTER_CLOSE", "{}", late.text);
    let b = booking(&app, &t, hold.str("id")).await;
    assert_eq!(b["status"], "canceled");
    assert_eq!(b["payments"][0]["status"], "REFUNDED", "{b}");
    let asked = server.refunds();
    assert_eq!(asked.len(), 1);
    assert_eq!(asked[0]["transactionId"], txn.as_str());
    assert_eq!(asked[0]["amount"], 4000);
    // The refund made closes the money's dead letter.
    let letters = payment_dead_letters(&app, &t).await;
    assert_eq!(letters[0]["errorType"], "PAID_AFTER_CLOSE", "{letters}");
    assert_eq!(letters[0]["status"], "resolved", "{letters}");
    app.assert_capacity_invariant(&t.id).await;
}

#[tokio::test]
async fn a_bank_refund_whose_answer_was_lost_is_never_asked_twice_and_its_callback_settles_it() {
    let (app, t, fx, server) = setup(false).await;
    let (hold, payment, _) = paid_by_bank(&app, &t, &fx).await;
    server.answer_refunds("unavailable");
    let lost = app
        .post("/api/v1/payments/refund")
        .tenant(&t.id)
        .token(&t.owner_token)
        .header("Idempotency-Key", "refund-lost")
        .json(json!({"paymentId": payment}))
        .expect_server_error()
        .send()
        .await;
    lost.assert_error(502, "PROVIDER_ERROR");
    assert!(lost.text.contains("callback"), "{}", lost.text);
    let b = booking(&app, &t, hold.str("id")).await;
    assert_eq!(b["payments"][0]["status"], "REFUND_PENDING");
    // Asking again (the bank works again) refunds nothing twice: the refund waits.
    // The outcome was unknown, so the key was released: the same key runs again.
    server.answer_refunds("ok");
    let again = app
        .post("/api/v1/payments/refund")
        .tenant(&t.id)
        .token(&t.owner_token)
        .header("Idempotency-Key", "refund-lost")
        .json(json!({"paymentId": payment}))
        .send()
        .await;
    again.assert_status(200);
    assert_eq!(again.body["refund_breakdown"][0]["status"], "Processing");
    assert!(again.body["refund_breakdown"][0]["provider_refund_id"].is_null());
    assert_eq!(server.refunds().len(), 1, "asked once");
    // The bank's callback names the refund by its signed stamp: it completes it.
    let refund_id = again.body["refund_id"].as_str().unwrap();
    let refund_txn = refund_transaction(&server, 0);
    let done = query_callback(
        &app,
        &server.callback_query(refund_id, &refund_txn, "ok", 4000),
    )
    .await;
    done.assert_status(200);
    assert_eq!(done.body["processed"], true, "{}", done.text);
    let b = booking(&app, &t, hold.str("id")).await;
    assert_eq!(b["payments"][0]["status"], "REFUNDED");
}
