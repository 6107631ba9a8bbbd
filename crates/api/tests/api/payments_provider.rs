//! Card payments through a real provider protocol: an unreachable provider is
//! PROVIDER_ERROR, and, end to end against localstripe (a Stripe-compatible server nobody
//! here wrote; `TEST_CARDPAY_URL`, set by `scripts/localstripe.sh` and CI), a booking is
//! confirmed by card, the customer pays, the provider's signed webhook arrives over HTTP
//! and the booking is `paid`. A no-show fee is then charged off-session to the card kept
//! at the provider.
#![expect(clippy::unwrap_used, reason = "test helpers fail the test loudly")]

use kairos_testkit::{TenantFixture, TestApp, slot_ids};
use serde_json::json;
use std::time::Duration;

/// A tenant with a product open 10:00–14:00 daily and real (not sandbox) cardpay
/// credentials; the id of a slot two days from the clock's today.
async fn venue(app: &TestApp) -> (TenantFixture, kairos_testkit::CatalogFixture, String) {
    let t = app.tenant("acme").await;
    let catalog = app.catalog(&t).await;
    app.daily_hours(&t, "site", &catalog.site_id, "10:00", "14:00")
        .await;
    app.put("/api/v1/admin/payments/credentials/cardpay")
        .tenant(&t.id)
        .token(&t.owner_token)
        .json(
            json!({"secretKey": "sk_test_kairos_e2e", "webhookSecret": "whsec_kairos_e2e",
            "publishableKey": "pk_test_kairos_e2e"}),
        )
        .send()
        .await
        .assert_status(200);
    let day = (app.clock_now() + chrono::Duration::days(2))
        .format("%Y-%m-%d")
        .to_string();
    let res = app.availability(&t.id, &catalog, &day, &day, 2).await;
    res.assert_status(200);
    let slot = slot_ids(&res.body)
        .into_iter()
        .next()
        .unwrap_or_else(|| panic!("no slot on {day}: {}", res.text));
    (t, catalog, slot)
}

#[tokio::test]
async fn an_unreachable_provider_is_provider_error_and_the_payment_can_be_resumed() {
    let app = TestApp::builder()
        .cardpay_api_base("http://127.0.0.1:9")
        .spawn()
        .await;
    let (t, catalog, slot) = venue(&app).await;
    let hold = app.hold_in(&t.id, &catalog, &slot, 2).await;
    hold.assert_status(200);
    let res = app
        .post(&format!("/api/v1/bookings/{}/confirm", hold.str("id")))
        .tenant(&t.id)
        .header("x-booking-token", hold.str("bookingToken"))
        .json(json!({"pricingHash": hold.str("pricingHash"), "paymentMethod": "cardpay"}))
        .expect_server_error()
        .send()
        .await;
    res.assert_error(502, "PROVIDER_ERROR");
    // Confirmed (the payment is recorded first); the payment is resumed later.
    let again = app
        .post("/api/v1/payments/authorize")
        .tenant(&t.id)
        .header("x-booking-token", hold.str("bookingToken"))
        .json(json!({"bookingId": hold.str("id")}))
        .expect_server_error()
        .send()
        .await;
    again.assert_error(502, "PROVIDER_ERROR");
}

/// Against the provider at `base`: a tenant, its booking for 2 confirmed by card, the
/// customer's card confirmed at the provider as Stripe.js would, and the provider's signed
/// webhook making it paid. (app, tenant, hold answer, the booking's PaymentIntent).
async fn paid_at_provider(
    base: &str,
) -> (TestApp, TenantFixture, kairos_testkit::TestResponse, String) {
    let app = TestApp::builder()
        .cardpay_api_base(base)
        .limits(kairos_api::rate_limit::Limits::UNLIMITED)
        .spawn()
        .await;
    // The provider signs with its own clock: ours must be the real time.
    app.clock.set(chrono::Utc::now());
    let (t, catalog, slot) = venue(&app).await;
    let addr = app.serve().await;
    let http = kairos_app::http::client_builder().build().unwrap();
    // The provider's webhook endpoint is this server.
    let hook = format!("kairos-{}", uuid::Uuid::new_v4().simple());
    let registered = http
        .post(format!("{base}/_config/webhooks/{hook}"))
        .form(&[
            (
                "url",
                format!("http://127.0.0.1:{}/payments/cardpay/webhook", addr.port()),
            ),
            ("secret", "whsec_kairos_e2e".to_owned()),
            ("events[]", "payment_intent.succeeded".to_owned()),
            ("events[]", "payment_intent.payment_failed".to_owned()),
        ])
        .send()
        .await
        .unwrap();
    assert!(registered.status().is_success(), "{}", registered.status());

    let hold = app.hold_in(&t.id, &catalog, &slot, 2).await;
    hold.assert_status(200);
    let res = app
        .post(&format!("/api/v1/bookings/{}/confirm", hold.str("id")))
        .tenant(&t.id)
        .header("x-booking-token", hold.str("bookingToken"))
        .json(json!({"pricingHash": hold.str("pricingHash"), "paymentMethod": "cardpay"}))
        .send()
        .await;
    res.assert_status(200);
    let intent = res.body["payment"]["paymentIntentId"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(res.body["payment"]["clientSecret"].is_string());
    assert!(res.body["payment"]["sandboxConfirmUrl"].is_null());
    // The pages start the provider's card element with these.
    assert_eq!(res.body["payment"]["publishableKey"], "pk_test_kairos_e2e");
    assert_eq!(
        res.body["payment"]["providerScriptUrl"],
        "https://js.stripe.com/v3/"
    );

    // The customer's card, as Stripe.js would confirm it.
    for (path, form) in [
        (
            format!("{base}/v1/payment_intents/{intent}"),
            vec![("payment_method", "pm_card_visa")],
        ),
        (
            format!("{base}/v1/payment_intents/{intent}/confirm"),
            vec![],
        ),
    ] {
        let r = http
            .post(path)
            .header("authorization", AUTH)
            .form(&form)
            .send()
            .await
            .unwrap();
        assert!(
            r.status().is_success(),
            "{}",
            r.text().await.unwrap_or_default()
        );
    }

    // The provider's signed event arrives over HTTP: the booking is paid.
    for _ in 0..150 {
        let b = app
            .get(&format!("/api/v1/admin/bookings/{}", hold.str("id")))
            .tenant(&t.id)
            .token(&t.owner_token)
            .send()
            .await;
        if b.body["status"] == "paid" {
            assert_eq!(b.body["payments"][0]["status"], "COMPLETED");
            return (app, t, hold, intent);
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("the provider's webhook never made the booking paid");
}

const AUTH: &str = "Bearer sk_test_kairos_e2e";

/// GET of a provider object.
async fn provider_object(base: &str, path: &str) -> serde_json::Value {
    let http = kairos_app::http::client_builder().build().unwrap();
    http.get(format!("{base}{path}"))
        .header("authorization", AUTH)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap()
}

#[tokio::test]
async fn a_booking_paid_at_a_stripe_compatible_provider_is_paid_by_its_webhook() {
    let Ok(base) = std::env::var("TEST_CARDPAY_URL") else {
        return;
    };
    let (_, _, _, intent) = paid_at_provider(&base).await;
    // The booking's card is kept for later: the intent belongs to a customer of its own.
    let pi = provider_object(&base, &format!("/v1/payment_intents/{intent}")).await;
    assert!(
        pi["customer"]
            .as_str()
            .is_some_and(|c| c.starts_with("cus_")),
        "{pi}"
    );
}

#[tokio::test]
async fn a_no_show_fee_is_charged_off_session_at_a_stripe_compatible_provider() {
    let Ok(base) = std::env::var("TEST_CARDPAY_URL") else {
        return;
    };
    let (app, t, hold, intent) = paid_at_provider(&base).await;
    app.put("/api/v1/admin/no-show/policy")
        .tenant(&t.id)
        .token(&t.owner_token)
        .json(json!({"enabled": true, "feeType": "flat", "flatFee": 1500}))
        .send()
        .await
        .assert_status(200);
    let id = hold.str("id");
    app.post(&format!("/api/v1/admin/bookings/{id}/no-show"))
        .tenant(&t.id)
        .token(&t.owner_token)
        .json(json!({}))
        .send()
        .await
        .assert_status(200);
    let res = app
        .post(&format!("/api/v1/admin/no-show/booking/{id}/process-fee"))
        .tenant(&t.id)
        .token(&t.owner_token)
        .json(json!({"charge_immediately": true}))
        .send()
        .await;
    res.assert_status(200);
    assert_eq!(res.body["data"]["chargedFee"], 1500, "{}", res.text);
    let charge = res.body["data"]["chargeResponse"]["chargeId"]
        .as_str()
        .unwrap()
        .to_owned();
    // At the provider: a second PaymentIntent of the same customer, paid off-session.
    let fee = provider_object(&base, &format!("/v1/payment_intents/{charge}")).await;
    let paid = provider_object(&base, &format!("/v1/payment_intents/{intent}")).await;
    assert_eq!(fee["status"], "succeeded", "{fee}");
    assert_eq!(fee["amount"], 1500);
    assert_eq!(fee["currency"], "eur");
    assert_eq!(fee["customer"], paid["customer"]);
    assert_eq!(fee["metadata"]["type"], "fee");
    assert_ne!(charge, intent);
}
