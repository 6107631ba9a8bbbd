//! Paying a booking by card end to end with the built-in sandbox provider, and the card
//! webhook (spec Part B 4.6, 5, 6): signatures verified over the raw body, stale and
//! future timestamps refused, each event processed once, the booking paid.
#![expect(clippy::unwrap_used, reason = "test helpers fail the test loudly")]

use kairos_app::payments::providers::sandbox::webhook_secret;
use kairos_domain::payments::cardpay_signature::{header, signature};
use kairos_testkit::{BookingFixture, TenantFixture, TestApp, TestResponse};
use serde_json::{Value, json};
use std::time::Duration;

const WEBHOOK: &str = "/payments/cardpay/webhook";

/// A tenant with a bookable product and a sandbox cardpay account (its secret key).
pub(crate) async fn setup() -> (TestApp, TenantFixture, BookingFixture, String) {
    let app = TestApp::spawn().await;
    let t = app.tenant("acme").await;
    let fx = app.bookable(&t).await;
    let key = app.sandbox_cardpay(&t).await;
    (app, t, fx, key)
}

/// A hold on `slot` confirmed by card: the answer, with its `payment`.
pub(crate) async fn confirm_by_card(
    app: &TestApp,
    t: &TenantFixture,
    fx: &BookingFixture,
    slot: usize,
    extra: Value,
) -> (TestResponse, TestResponse) {
    let hold = app.hold(&t.id, fx, &fx.slots[slot], 2).await;
    hold.assert_status(200);
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
    (hold, res)
}

pub(crate) async fn booking(app: &TestApp, t: &TenantFixture, id: &str) -> Value {
    let res = app
        .get(&format!("/api/v1/admin/bookings/{id}"))
        .tenant(&t.id)
        .token(&t.owner_token)
        .send()
        .await;
    res.assert_status(200);
    res.body
}

/// Waits (up to 10 s) for the booking's status to become `status`.
async fn wait_for_status(app: &TestApp, t: &TenantFixture, id: &str, status: &str) -> Value {
    for _ in 0..100 {
        let b = booking(app, t, id).await;
        if b["status"] == status {
            return b;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!(
        "booking {id} never became {status}: {}",
        booking(app, t, id).await
    );
}

#[tokio::test]
async fn a_card_payment_confirmed_by_the_customer_makes_the_booking_paid() {
    let (app, t, fx, _) = setup().await;
    let (hold, res) = confirm_by_card(&app, &t, &fx, 0, json!({})).await;
    res.assert_status(200);
    assert_eq!(res.body["status"], "confirmed");
    let p = &res.body["payment"];
    assert_eq!(p["provider"], "cardpay");
    assert_eq!(p["status"], "PENDING");
    assert_eq!(p["amount"], 4000, "minor units");
    assert_eq!(p["currency"], "eur");
    assert_eq!(p["requiresAction"], true);
    assert!(res.body.get("mixedTender").is_none(), "no voucher paid");
    let intent = p["paymentIntentId"].as_str().unwrap().to_owned();
    let secret = p["clientSecret"].as_str().unwrap().to_owned();
    assert!(secret.starts_with(&intent));
    let url = p["sandboxConfirmUrl"].as_str().unwrap().to_owned();
    // The sandbox's pages post test cards: no provider card element to start.
    assert!(p["publishableKey"].is_null() && p["providerScriptUrl"].is_null());

    // The customer's browser confirms with a test card.
    let paid = app
        .post(&url)
        .header("content-type", "application/x-www-form-urlencoded")
        .raw(format!(
            "client_secret={secret}&payment_method=pm_card_visa"
        ))
        .send()
        .await;
    paid.assert_status(200);
    assert_eq!(paid.body["status"], "succeeded");
    // A wrong client secret sees nothing.
    app.post(&url)
        .header("content-type", "application/x-www-form-urlencoded")
        .raw("client_secret=pi_x_secret_y")
        .send()
        .await
        .assert_status(404);

    // The provider's event arrives and the booking is paid.
    let b = wait_for_status(&app, &t, hold.str("id"), "paid").await;
    assert_eq!(b["payments"][0]["status"], "COMPLETED");
    let health = app
        .post("/payments/cardpay/webhook/health")
        .tenant(&t.id)
        .token(&t.owner_token)
        .send()
        .await;
    health.assert_status(200);
    assert_eq!(health.body["status"], "ok");
    assert_eq!(health.body["stats"]["total_events_processed"], 1);
    assert_eq!(health.body["stats"]["duplicate_events_rejected"], 0);
}

#[tokio::test]
async fn a_declined_card_is_payment_failed_and_the_payment_fails() {
    let (app, t, fx, _) = setup().await;
    let (hold, res) = confirm_by_card(
        &app,
        &t,
        &fx,
        0,
        json!({"paymentMethodId": "pm_card_chargeDeclined"}),
    )
    .await;
    res.assert_error(400, "PAYMENT_FAILED");
    assert_eq!(res.body["details"]["provider"], "cardpay");
    assert_eq!(res.body["details"]["provider_error_code"], "card_declined");
    assert_eq!(res.body["details"]["retry_allowed"], true);
    assert!(res.body["details"]["suggested_action"].is_string());
    // The failure event marks the payment FAILED; the booking waits for another card.
    for _ in 0..100 {
        let b = booking(&app, &t, hold.str("id")).await;
        if b["payments"][0]["status"] == "FAILED" {
            assert_eq!(b["status"], "confirmed");
            // Staff are told on the booking.
            let notes = app
                .get(&format!("/api/v1/admin/bookings/{}/notes", hold.str("id")))
                .tenant(&t.id)
                .token(&t.owner_token)
                .send()
                .await;
            let issue = notes.body["notes"]
                .as_array()
                .unwrap()
                .iter()
                .find(|n| n["category"] == "issue")
                .cloned()
                .unwrap_or_default();
            assert!(
                issue["content"]
                    .as_str()
                    .unwrap_or_default()
                    .contains("card_declined"),
                "{}",
                notes.text
            );
            return;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("the payment never failed");
}

#[tokio::test]
async fn without_a_cardpay_account_card_payment_is_refused_before_anything_changes() {
    let app = TestApp::spawn().await;
    let t = app.tenant("acme").await;
    let fx = app.bookable(&t).await;
    let (hold, res) = confirm_by_card(&app, &t, &fx, 0, json!({})).await;
    res.assert_error(400, "PAYMENT_FAILED");
    assert_eq!(res.body["details"]["provider_error_code"], "not_configured");
    assert_eq!(res.body["details"]["retry_allowed"], false);
    assert_eq!(booking(&app, &t, hold.str("id")).await["status"], "hold");
}

/// A signed `payment_intent.succeeded` for `intent` of `amount`.
pub(crate) fn succeeded(event_id: &str, intent: &str, amount: i64) -> Vec<u8> {
    serde_json::to_vec(&json!({
        "id": event_id, "object": "event", "type": "payment_intent.succeeded",
        "created": 1, "livemode": false,
        "data": {"object": {"id": intent, "object": "payment_intent", "amount": amount,
            "amount_received": amount, "currency": "eur", "status": "succeeded",
            "metadata": {"tenant_id": "acme"}}}
    }))
    .unwrap()
}

pub(crate) async fn deliver(app: &TestApp, sig: Option<&str>, body: &[u8]) -> TestResponse {
    deliver_to(app, WEBHOOK, sig, body).await
}

async fn deliver_to(app: &TestApp, path: &str, sig: Option<&str>, body: &[u8]) -> TestResponse {
    let mut req = app
        .post(path)
        .header("content-type", "application/json")
        .raw(body.to_vec());
    if let Some(sig) = sig {
        req = req.header("cardpay-signature", sig);
    }
    req.send().await
}

#[tokio::test]
async fn webhook_signatures_are_verified_before_anything_else() {
    let (app, t, fx, key) = setup().await;
    let secret = webhook_secret(&app.state.config.payments.secrets, &key);
    let (hold, res) = confirm_by_card(&app, &t, &fx, 0, json!({})).await;
    let intent = res.body["payment"]["paymentIntentId"]
        .as_str()
        .unwrap()
        .to_owned();
    let now = app.clock_now().timestamp();
    let body = succeeded("evt_sig_1", &intent, 4000);
    let refused = |res: &TestResponse| {
        res.assert_error(400, "INVALID_SIGNATURE");
    };

    refused(&deliver(&app, None, &body).await);
    refused(&deliver(&app, Some("garbage"), &body).await);
    refused(
        &deliver(
            &app,
            Some(&format!("t={now},v0={}", signature(&secret, now, &body))),
            &body,
        )
        .await,
    );
    refused(&deliver(&app, Some(&header("whsec_other", now, &body)), &body).await);
    refused(&deliver(&app, Some(&header(&secret, now - 301, &body)), &body).await);
    refused(&deliver(&app, Some(&header(&secret, now + 61, &body)), &body).await);
    // The body changed after signing.
    let tampered = succeeded("evt_sig_1", &intent, 1);
    refused(&deliver(&app, Some(&header(&secret, now, &body)), &tampered).await);
    assert_eq!(
        booking(&app, &t, hold.str("id")).await["status"],
        "confirmed"
    );

    // A valid signature next to a bad one (a secret being rolled) is enough.
    let both = format!(
        "t={now},v1={},v1={}",
        signature("whsec_old", now, &body),
        signature(&secret, now, &body)
    );
    let res = deliver(&app, Some(&both), &body).await;
    res.assert_status(200);
    assert_eq!(res.body["received"], true);
    assert_eq!(res.body["processed"], true);
    assert_eq!(res.body["eventId"], "evt_sig_1");
    assert_eq!(booking(&app, &t, hold.str("id")).await["status"], "paid");

    // Stripe's own header name works too.
    let again = app
        .post(WEBHOOK)
        .header("stripe-signature", &header(&secret, now, &body))
        .raw(body.clone())
        .send()
        .await;
    again.assert_status(200);
    assert_eq!(again.body["error"], "DUPLICATE_EVENT");
    assert_eq!(again.body["processed"], true, "the first answer, repeated");

    // Not JSON, though signed: refused without a retry (the tenant names the secret).
    let junk = b"{not json".to_vec();
    let res = deliver_to(
        &app,
        &format!("{WEBHOOK}?tenant=acme"),
        Some(&header(&secret, now, &junk)),
        &junk,
    )
    .await;
    res.assert_error(400, "VALIDATION_ERROR");
    // Without the tenant, nothing names a secret.
    deliver(&app, Some(&header(&secret, now, &junk)), &junk)
        .await
        .assert_error(400, "INVALID_SIGNATURE");
}

#[tokio::test]
async fn an_event_whose_amount_differs_from_the_payment_changes_nothing() {
    let (app, t, fx, key) = setup().await;
    let secret = webhook_secret(&app.state.config.payments.secrets, &key);
    let (hold, res) = confirm_by_card(&app, &t, &fx, 0, json!({})).await;
    let intent = res.body["payment"]["paymentIntentId"]
        .as_str()
        .unwrap()
        .to_owned();
    let body = succeeded("evt_amount", &intent, 100);
    let res = deliver(
        &app,
        Some(&header(&secret, app.clock_now().timestamp(), &body)),
        &body,
    )
    .await;
    res.assert_status(200);
    assert_eq!(res.body["processed"], false);
    assert!(res.body["message"].as_str().unwrap().contains("amount"));
    let b = booking(&app, &t, hold.str("id")).await;
    assert_eq!(b["status"], "confirmed");
    assert_eq!(b["payments"][0]["status"], "PENDING");
}

#[tokio::test]
async fn an_event_lacking_what_the_check_needs_is_not_applied_and_goes_before_staff() {
    let (app, t, fx, key) = setup().await;
    let secret = webhook_secret(&app.state.config.payments.secrets, &key);
    let (hold, res) = confirm_by_card(&app, &t, &fx, 0, json!({})).await;
    let intent = res.body["payment"]["paymentIntentId"]
        .as_str()
        .unwrap()
        .to_owned();
    let object = |amount: Option<Value>, currency: Option<&str>| {
        let mut o = json!({"id": intent, "object": "payment_intent", "status": "succeeded",
            "metadata": {"tenant_id": "acme"}});
        if let Some(a) = amount {
            o["amount"] = a.clone();
            o["amount_received"] = a;
        }
        if let Some(c) = currency {
            o["currency"] = json!(c);
        }
        o
    };
    let cases = [
        ("evt_no_amount", object(None, Some("eur"))),
        ("evt_text_amount", object(Some(json!("4000")), Some("eur"))),
        ("evt_fraction", object(Some(json!(4000.5)), Some("eur"))),
        ("evt_no_currency", object(Some(json!(4000)), None)),
    ];
    for (id, object) in &cases {
        let body = serde_json::to_vec(&json!({"id": id, "object": "event",
            "type": "payment_intent.succeeded", "created": 1, "livemode": false,
            "data": {"object": object}}))
        .unwrap();
        let res = deliver(
            &app,
            Some(&header(&secret, app.clock_now().timestamp(), &body)),
            &body,
        )
        .await;
        // Answered, so the provider stops sending it; not applied.
        res.assert_status(200);
        assert_eq!(res.body["processed"], false, "{id}: {}", res.text);
    }
    let b = booking(&app, &t, hold.str("id")).await;
    assert_eq!(b["status"], "confirmed");
    assert_eq!(b["payments"][0]["status"], "PENDING");
    let letters = app
        .get("/api/v1/admin/dead-letters?type=payment")
        .tenant(&t.id)
        .token(&t.owner_token)
        .send()
        .await;
    letters.assert_status(200);
    assert_eq!(
        letters.text.matches("AMOUNT_MISMATCH").count(),
        cases.len(),
        "each before staff: {}",
        letters.text
    );
}

#[tokio::test]
async fn the_same_event_twenty_times_at_once_is_processed_once() {
    let (app, t, fx, key) = setup().await;
    let secret = webhook_secret(&app.state.config.payments.secrets, &key);
    let (hold, res) = confirm_by_card(&app, &t, &fx, 0, json!({})).await;
    let intent = res.body["payment"]["paymentIntentId"]
        .as_str()
        .unwrap()
        .to_owned();
    let body = succeeded("evt_twenty", &intent, 4000);
    let sig = header(&secret, app.clock_now().timestamp(), &body);
    let answers =
        futures::future::join_all((0..20).map(|_| deliver(&app, Some(&sig), &body))).await;
    let mut first = 0;
    for a in &answers {
        a.assert_status(200);
        if a.body["error"].is_null() {
            first += 1;
        } else {
            assert_eq!(a.body["error"], "DUPLICATE_EVENT");
        }
    }
    assert_eq!(first, 1, "one delivery processed it");
    let b = booking(&app, &t, hold.str("id")).await;
    assert_eq!(b["status"], "paid");
    assert_eq!(b["payments"].as_array().unwrap().len(), 1);
    let health = app
        .post("/payments/cardpay/webhook/health")
        .tenant(&t.id)
        .token(&t.owner_token)
        .send()
        .await;
    assert_eq!(health.body["stats"]["duplicate_events_rejected"], 19);
    assert_eq!(health.body["stats"]["total_events_processed"], 1);
}

#[tokio::test]
async fn after_a_declined_card_another_card_pays_the_booking() {
    let (app, t, fx, _) = setup().await;
    let (hold, res) = confirm_by_card(
        &app,
        &t,
        &fx,
        0,
        json!({"paymentMethodId": "pm_card_chargeDeclined"}),
    )
    .await;
    res.assert_error(400, "PAYMENT_FAILED");
    for _ in 0..100 {
        if booking(&app, &t, hold.str("id")).await["payments"][0]["status"] == "FAILED" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let again = app
        .post("/api/v1/payments/authorize")
        .tenant(&t.id)
        .header("x-booking-token", hold.str("bookingToken"))
        .json(json!({"bookingId": hold.str("id"), "paymentMethodId": "pm_card_visa"}))
        .send()
        .await;
    again.assert_status(200);
    assert_eq!(again.body["providerStatus"], "succeeded");
    let b = wait_for_status(&app, &t, hold.str("id"), "paid").await;
    assert_eq!(b["payments"][0]["status"], "COMPLETED");
}

#[tokio::test]
async fn the_pollers_own_event_ids_are_refused_from_outside() {
    let (app, t, fx, key) = setup().await;
    let secret = webhook_secret(&app.state.config.payments.secrets, &key);
    let (_, res) = confirm_by_card(&app, &t, &fx, 0, json!({})).await;
    let intent = res.body["payment"]["paymentIntentId"]
        .as_str()
        .unwrap()
        .to_owned();
    let body = succeeded(&format!("poll:{intent}:succeeded"), &intent, 4000);
    deliver(
        &app,
        Some(&header(&secret, app.clock_now().timestamp(), &body)),
        &body,
    )
    .await
    .assert_error(400, "VALIDATION_ERROR");
}
