//! A gift card end to end: bought, paid by card at the provider, the voucher
//! code arrives by email over real SMTP, and it pays a booking. Against localstripe (a
//! Stripe-compatible server nobody here wrote; `TEST_CARDPAY_URL`, set by
//! `scripts/localstripe.sh` and CI) when it runs, with its signed webhook reaching the
//! served app over HTTP; otherwise against the built-in sandbox provider.
#![expect(clippy::unwrap_used, reason = "test helpers fail the test loudly")]

use kairos_server::delivery::{DeliverySettings, Mailer, deliver_due};
use kairos_testkit::smtp::SmtpSink;
use kairos_testkit::{TenantFixture, TestApp, slot_ids};
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::Duration;

fn settings(smtp: String, dir: &std::path::Path) -> DeliverySettings {
    DeliverySettings {
        smtp_url: Some(smtp),
        mail_from: "Acme Adventures <bookings@acme.test>".into(),
        sms_url: None,
        sms_token: None,
        sms_from: None,
        public_url: None,
        files_dir: dir.to_path_buf(),
        max_attempts: 3,
        backoff: Duration::from_secs(10),
    }
}

/// The card account: localstripe's (its webhook pointed at the served app), or the
/// sandbox's.
async fn card_account(app: &TestApp, t: &TenantFixture, base: Option<&str>) {
    let Some(base) = base else {
        app.sandbox_cardpay(t).await;
        return;
    };
    app.put("/api/v1/admin/payments/credentials/cardpay")
        .tenant(&t.id)
        .token(&t.owner_token)
        .json(json!({"secretKey": "sk_test_kairos_gift", "webhookSecret": "whsec_kairos_gift"}))
        .send()
        .await
        .assert_status(200);
    let addr = app.serve().await;
    let hook = format!("kairos-{}", uuid::Uuid::new_v4().simple());
    let registered = kairos_app::http::client_builder()
        .build()
        .unwrap()
        .post(format!("{base}/_config/webhooks/{hook}"))
        .form(&[
            (
                "url",
                format!("http://127.0.0.1:{}/payments/cardpay/webhook", addr.port()),
            ),
            ("secret", "whsec_kairos_gift".to_owned()),
            ("events[]", "payment_intent.succeeded".to_owned()),
        ])
        .send()
        .await
        .unwrap();
    assert!(registered.status().is_success());
}

/// The customer's card confirms the payment, as the provider's browser library would.
async fn customer_pays(app: &TestApp, base: Option<&str>, payment: &Value) {
    let intent = payment["paymentIntentId"].as_str().unwrap();
    let Some(base) = base else {
        app.post(payment["sandboxConfirmUrl"].as_str().unwrap())
            .header("content-type", "application/x-www-form-urlencoded")
            .raw(format!(
                "client_secret={}&payment_method=pm_card_visa",
                payment["clientSecret"].as_str().unwrap()
            ))
            .send()
            .await
            .assert_status(200);
        return;
    };
    let http = kairos_app::http::client_builder().build().unwrap();
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
            .header("authorization", "Bearer sk_test_kairos_gift")
            .form(&form)
            .send()
            .await
            .unwrap();
        assert!(r.status().is_success(), "{}", r.text().await.unwrap());
    }
}

async fn purchase_status(app: &TestApp, t: &TenantFixture, id: &str) -> Value {
    let res = app
        .get(&format!("/api/v1/gift-cards/purchase/{id}/status"))
        .tenant(&t.id)
        .send()
        .await;
    res.assert_status(200);
    res.body
}

/// The first `GIFT-XXXX-XXXX` in `text`.
fn gift_code(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    (0..bytes.len().saturating_sub(13)).find_map(|i| {
        let candidate = text.get(i..i + 14)?;
        let ok = candidate.starts_with("GIFT-")
            && candidate.as_bytes()[9] == b'-'
            && candidate
                .bytes()
                .enumerate()
                .filter(|(j, _)| *j >= 5 && *j != 9)
                .all(|(_, b)| b.is_ascii_uppercase() || b.is_ascii_digit());
        ok.then(|| candidate.to_owned())
    })
}

#[tokio::test]
async fn a_gift_card_bought_online_arrives_by_email_and_pays_a_booking() {
    let base = std::env::var("TEST_CARDPAY_URL").ok();
    let app = match &base {
        Some(b) => TestApp::builder().cardpay_api_base(b).spawn().await,
        None => TestApp::spawn().await,
    };
    if base.is_some() {
        // The provider signs with its own clock: ours must be the real time.
        app.clock.set(chrono::Utc::now());
    }
    let t = app.tenant("acme").await;
    let catalog = app.catalog(&t).await;
    app.daily_hours(&t, "site", &catalog.site_id, "10:00", "14:00")
        .await;
    card_account(&app, &t, base.as_deref()).await;
    let product = app
        .post("/api/v1/admin/gift-card-products")
        .tenant(&t.id)
        .token(&t.owner_token)
        .json(json!({"name": "Any amount", "valueType": "custom_range", "minValue": 20, "maxValue": 200}))
        .send()
        .await;
    product.assert_status(200);

    // Bought for a friend, paid by card.
    let purchase = app
        .post("/api/v1/gift-cards/purchase")
        .tenant(&t.id)
        .json(json!({"giftCardProductId": product.str("id"), "amount": 60,
            "purchaserEmail": "bea@example.com", "purchaserName": "Bea",
            "recipientEmail": "rita@example.com", "recipientName": "Rita",
            "personalMessage": "For your birthday"}))
        .send()
        .await;
    purchase.assert_status(200);
    let id = purchase.str("purchaseId").to_owned();
    let payment = app
        .post(&format!("/api/v1/gift-cards/purchase/{id}/payment/cardpay"))
        .tenant(&t.id)
        .send()
        .await;
    payment.assert_status(200);
    assert_eq!(payment.body["amount"], 6000);
    customer_pays(&app, base.as_deref(), &payment.body).await;

    // The provider's event issues the voucher.
    let mut paid = Value::Null;
    for _ in 0..150 {
        paid = purchase_status(&app, &t, &id).await;
        if paid["status"] == "paid" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(paid["status"], "paid", "{paid}");
    let code = paid["voucherCode"].as_str().unwrap().to_owned();

    // The delivery email goes over SMTP to the recipient, with the code.
    let sink = SmtpSink::start().await;
    let dir = tempfile::tempdir().unwrap();
    let mailer = Arc::new(Mailer::new(&settings(sink.url(), dir.path())).unwrap());
    let round = deliver_due(&app.store, &mailer, app.clock_now())
        .await
        .unwrap();
    assert_eq!(round.delivered, 1, "{round:?}");
    let mail = sink.wait_for(1, Duration::from_secs(5)).await;
    assert_eq!(mail[0].to, ["rita@example.com"]);
    let text = mail[0].data.replace("=\r\n", "").replace("=3D", "=");
    assert_eq!(gift_code(&text).as_deref(), Some(code.as_str()), "{text}");
    assert_eq!(purchase_status(&app, &t, &id).await["status"], "delivered");

    // Rita spends it on a booking of 40.00: the voucher pays it all.
    let day = (app.clock_now() + chrono::Duration::days(2))
        .format("%Y-%m-%d")
        .to_string();
    let res = app.availability(&t.id, &catalog, &day, &day, 2).await;
    let slot = slot_ids(&res.body).into_iter().next().unwrap();
    let hold = app.hold_in(&t.id, &catalog, &slot, 2).await;
    hold.assert_status(200);
    let applied = app
        .post(&format!(
            "/api/v1/bookings/{}/apply-voucher",
            hold.str("id")
        ))
        .tenant(&t.id)
        .header("x-booking-token", hold.str("bookingToken"))
        .json(json!({"voucher_code": code}))
        .send()
        .await;
    applied.assert_status(200);
    let total = applied.body["booking"]["total"].as_f64().unwrap();
    let used = applied.body["applied_voucher"]["applied_amount"]
        .as_f64()
        .unwrap();
    assert!(used > 0.0 && total == 0.0, "{}", applied.text);
    let confirmed = app
        .post(&format!("/api/v1/bookings/{}/confirm", hold.str("id")))
        .tenant(&t.id)
        .header("x-booking-token", hold.str("bookingToken"))
        .json(json!({"pricingHash": applied.str("/booking/pricing_hash"), "paymentMethod": "voucher"}))
        .send()
        .await;
    confirmed.assert_status(200);
    let balance = app
        .get(&format!("/api/v1/gift-cards/balance/{code}"))
        .tenant(&t.id)
        .send()
        .await;
    balance.assert_status(200);
    assert_eq!(balance.body["originalValue"], 60.0);
    assert!(
        (balance.body["currentBalance"].as_f64().unwrap() - (60.0 - used)).abs() < 0.001,
        "{}",
        balance.text
    );
}
