//! What the card provider reports about a collected charge (spec Part B 6 events):
//! `charge.refunded` (a refund made at the provider is recorded, and Kairos refunds only
//! what is left) and `charge.dispute.created` (the payment is marked, the booking gets an
//! urgent note and staff a dead letter), each once.
#![expect(clippy::unwrap_used, reason = "test helpers fail the test loudly")]

use kairos_app::payments::providers::sandbox::webhook_secret;
use kairos_domain::payments::cardpay_signature::header;
use kairos_testkit::{TenantFixture, TestApp, TestResponse};
use serde_json::{Value, json};
use std::time::Duration;

/// A booking paid by card through the sandbox: (app, tenant, booking id, payment id,
/// intent id, webhook secret).
async fn paid_booking() -> (TestApp, TenantFixture, String, String, String, String) {
    let app = TestApp::spawn().await;
    let t = app.tenant("acme").await;
    let fx = app.bookable(&t).await;
    let key = app.sandbox_cardpay(&t).await;
    let hold = app.hold(&t.id, &fx, &fx.slots[0], 2).await;
    let res = app
        .post(&format!("/api/v1/bookings/{}/confirm", hold.str("id")))
        .tenant(&t.id)
        .header("x-booking-token", hold.str("bookingToken"))
        .json(
            json!({"pricingHash": hold.str("pricingHash"), "paymentMethod": "cardpay",
            "paymentMethodId": "pm_card_visa"}),
        )
        .send()
        .await;
    res.assert_status(200);
    let id = hold.str("id").to_owned();
    for _ in 0..100 {
        if booking(&app, &t, &id).await["status"] == "paid" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(booking(&app, &t, &id).await["status"], "paid");
    let p = &res.body["payment"];
    let secret = webhook_secret(&app.state.config.payments.secrets, &key);
    (
        app,
        t,
        id,
        p["paymentId"].as_str().unwrap().to_owned(),
        p["paymentIntentId"].as_str().unwrap().to_owned(),
        secret,
    )
}

async fn booking(app: &TestApp, t: &TenantFixture, id: &str) -> Value {
    app.get(&format!("/api/v1/admin/bookings/{id}"))
        .tenant(&t.id)
        .token(&t.owner_token)
        .send()
        .await
        .body
}

async fn send(app: &TestApp, secret: &str, event: Value) -> TestResponse {
    let body = serde_json::to_vec(&event).unwrap();
    let sig = header(secret, app.clock_now().timestamp(), &body);
    app.post("/payments/cardpay/webhook")
        .header("content-type", "application/json")
        .header("cardpay-signature", &sig)
        .raw(body)
        .send()
        .await
}

fn refunded(event: &str, intent: &str, amount_refunded: i64) -> Value {
    json!({"id": event, "object": "event", "type": "charge.refunded",
        "data": {"object": {"id": "ch_1", "object": "charge", "payment_intent": intent,
            "amount": 4000, "amount_refunded": amount_refunded, "currency": "eur",
            "refunded": amount_refunded >= 4000}}})
}

#[tokio::test]
async fn a_refund_made_at_the_provider_is_recorded_and_kairos_refunds_only_the_rest() {
    let (app, t, id, payment, intent, secret) = paid_booking().await;
    let res = send(&app, &secret, refunded("evt_r1", &intent, 1500)).await;
    res.assert_status(200);
    assert_eq!(res.body["processed"], true, "{}", res.text);
    // The same total again (another event id) records nothing more.
    let again = send(&app, &secret, refunded("evt_r2", &intent, 1500)).await;
    assert_eq!(again.body["processed"], false, "{}", again.text);
    assert_eq!(
        booking(&app, &t, &id).await["payments"][0]["status"],
        "COMPLETED",
        "partly refunded"
    );
    // Kairos refunds at most what is left: 2500.
    let too_much = app
        .post("/api/v1/payments/refund")
        .tenant(&t.id)
        .token(&t.owner_token)
        .json(json!({"paymentId": payment, "amount": 2501}))
        .send()
        .await;
    too_much.assert_error(400, "VALIDATION_ERROR");
    assert!(too_much.text.contains("2500"), "{}", too_much.text);
    // The rest refunded at the provider: the payment is REFUNDED.
    let rest = send(&app, &secret, refunded("evt_r3", &intent, 4000)).await;
    assert_eq!(rest.body["processed"], true, "{}", rest.text);
    assert_eq!(
        booking(&app, &t, &id).await["payments"][0]["status"],
        "REFUNDED"
    );
}

#[tokio::test]
async fn a_disputed_payment_flags_its_booking_and_tells_staff_once() {
    let (app, t, id, payment, intent, secret) = paid_booking().await;
    let dispute = |event: &str| {
        json!({"id": event, "object": "event", "type": "charge.dispute.created",
            "data": {"object": {"id": "dp_1", "object": "dispute", "payment_intent": intent,
                "charge": "ch_1", "amount": 4000, "currency": "eur", "reason": "fraudulent",
                "status": "needs_response"}}})
    };
    let res = send(&app, &secret, dispute("evt_d1")).await;
    res.assert_status(200);
    assert_eq!(res.body["processed"], true, "{}", res.text);
    let again = send(&app, &secret, dispute("evt_d2")).await;
    assert_eq!(again.body["processed"], false, "{}", again.text);

    let notes = app
        .get(&format!("/api/v1/admin/bookings/{id}/notes"))
        .tenant(&t.id)
        .token(&t.owner_token)
        .send()
        .await;
    notes.assert_status(200);
    let flagged: Vec<&Value> = notes.body["notes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|n| n["category"] == "issue" && n["priority"] == "urgent")
        .collect();
    assert_eq!(flagged.len(), 1, "{}", notes.text);
    assert!(
        flagged[0]["content"]
            .as_str()
            .unwrap()
            .contains("fraudulent")
    );
    let letters = app
        .get("/api/v1/admin/dead-letters?type=payment")
        .tenant(&t.id)
        .token(&t.owner_token)
        .send()
        .await;
    let disputes: Vec<&Value> = letters.body["deadLetters"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|l| l["errorType"] == "DISPUTED")
        .collect();
    assert_eq!(disputes.len(), 1, "{}", letters.text);
    assert_eq!(disputes[0]["bookingId"], id.as_str());
    assert_eq!(disputes[0]["transactionId"], payment.as_str());
}
