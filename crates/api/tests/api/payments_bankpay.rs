//! Paying by bank redirect (bankpay, Paytrail's API; spec Part B 4.6, 5, 6): the payment
//! is created at a Paytrail-compatible provider with a signed request, the customer is
//! sent to its page, and the provider's signed callback (as the spec shows it, or as
//! Paytrail calls callback URLs) makes the booking `paid`, once.
#![expect(clippy::unwrap_used, reason = "test helpers fail the test loudly")]

use kairos_domain::payments::bankpay_signature::{Algorithm, sign};
use kairos_testkit::bankpay::BankpayServer;
use kairos_testkit::{BankpaySetup, BookingFixture, TenantFixture, TestApp, TestResponse};
use serde_json::{Value, json};

const MERCHANT: &str = "375917";

pub(crate) const SECRET: &str = "SAIPPUAKAUPPIAS";

pub(crate) const PUBLIC: &str = "https://kairos.example.com";

/// A tenant with bankpay credentials (unless `env`: the platform's account only).
pub(crate) async fn setup(env: bool) -> (TestApp, TenantFixture, BookingFixture, BankpayServer) {
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
pub(crate) async fn confirm_by_bank(
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

pub(crate) fn transaction_of(res: &TestResponse) -> String {
    res.body["payment"]["redirectUrl"]
        .as_str()
        .unwrap()
        .rsplit('/')
        .next()
        .unwrap()
        .to_owned()
}

/// A callback as the spec shows it: signing headers, JSON body.
pub(crate) async fn callback(
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
pub(crate) async fn query_callback(app: &TestApp, query: &str) -> TestResponse {
    app.get(&format!("/webhooks/bankpay/callback?{query}"))
        .send()
        .await
}

pub(crate) async fn booking(app: &TestApp, t: &TenantFixture, id: &str) -> Value {
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

pub(crate) async fn payment_dead_letters(app: &TestApp, t: &TenantFixture) -> Value {
    let letters = app
        .get("/api/v1/admin/dead-letters?type=payment")
        .tenant(&t.id)
        .token(&t.owner_token)
        .send()
        .await;
    letters.assert_status(200);
    letters.body["deadLetters"].clone()
}
