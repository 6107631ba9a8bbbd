//! Card payments against the payment deadline and cancellation: unpaid bookings cancelled,
//! lost events settled by asking the provider, late money refunded, cancelled bookings
//! unpayable.

use super::payments_webhooks::{booking, confirm_by_card, deliver, setup, succeeded};
use kairos_app::payments::providers::sandbox::webhook_secret;
use kairos_domain::payments::cardpay_signature::header;
use serde_json::json;

#[tokio::test]
async fn an_unpaid_booking_is_cancelled_at_the_payment_deadline_and_its_seats_freed() {
    let (app, t, fx, _) = setup().await;
    let (hold, res) = confirm_by_card(&app, &t, &fx, 0, json!({})).await;
    res.assert_status(200);
    let id = hold.str("id").to_owned();
    // Not yet: the deadline (30 minutes) has not passed.
    app.clock.advance(chrono::Duration::minutes(20));
    let report = kairos_app::payments::deadline::run_once(&app.state.app)
        .await
        .unwrap();
    assert_eq!((report.settled, report.canceled), (0, 0));
    assert_eq!(booking(&app, &t, &id).await["status"], "confirmed");

    app.clock.advance(chrono::Duration::minutes(11));
    let report = kairos_app::payments::deadline::run_once(&app.state.app)
        .await
        .unwrap();
    assert_eq!((report.settled, report.canceled), (0, 1));
    let b = booking(&app, &t, &id).await;
    assert_eq!(b["status"], "canceled");
    assert_eq!(b["payments"][0]["status"], "CANCELED");
    app.assert_capacity_invariant(&t.id).await;
    // The customer is told.
    let messages = app
        .get(&format!("/api/v1/admin/messaging/messages?bookingId={id}"))
        .tenant(&t.id)
        .token(&app.admin_token("acme", "owner", "owner-password-1").await)
        .send()
        .await;
    assert!(
        messages.body["messages"]
            .as_array()
            .unwrap()
            .iter()
            .any(|m| m["templateKey"] == "cancellation"),
        "{}",
        messages.text
    );
    // Nothing more to do on the next pass.
    let report = kairos_app::payments::deadline::run_once(&app.state.app)
        .await
        .unwrap();
    assert_eq!(report, Default::default());
}

#[tokio::test]
async fn a_payment_whose_event_was_lost_is_settled_by_asking_the_provider() {
    let (app, t, fx, _) = setup().await;
    let (hold, res) = confirm_by_card(&app, &t, &fx, 0, json!({})).await;
    let intent = res.body["payment"]["paymentIntentId"]
        .as_str()
        .unwrap()
        .to_owned();
    let secret = res.body["payment"]["clientSecret"]
        .as_str()
        .unwrap()
        .to_owned();
    // The customer pays, and the provider's event never arrives.
    let (paid, _lost_events) = app.state.app.sandbox.sandbox.confirm(
        kairos_app::payments::providers::sandbox::Caller::ClientSecret(&secret),
        &intent,
        Some("pm_card_visa"),
        app.clock_now().timestamp(),
    );
    paid.unwrap();
    app.clock.advance(chrono::Duration::minutes(31));
    let report = kairos_app::payments::deadline::run_once(&app.state.app)
        .await
        .unwrap();
    assert_eq!((report.settled, report.canceled), (1, 0));
    let b = booking(&app, &t, hold.str("id")).await;
    assert_eq!(b["status"], "paid");
    assert_eq!(b["payments"][0]["status"], "COMPLETED");
}

#[tokio::test]
async fn money_taken_after_staff_cancelled_the_booking_is_refunded_automatically() {
    let (app, t, fx, key) = setup().await;
    let secret = webhook_secret(&app.state.config.payments.secrets, &key);
    let (hold, res) = confirm_by_card(&app, &t, &fx, 0, json!({})).await;
    let intent = res.body["payment"]["paymentIntentId"]
        .as_str()
        .unwrap()
        .to_owned();
    // The customer pays at the provider; its event is late (it arrives below).
    let (paid, _late_events) = app.state.app.sandbox.sandbox.confirm(
        kairos_app::payments::providers::sandbox::Caller::SecretKey(&key),
        &intent,
        Some("pm_card_visa"),
        app.clock_now().timestamp(),
    );
    paid.unwrap();
    app.post(&format!("/api/v1/bookings/{}/cancel", hold.str("id")))
        .tenant(&t.id)
        .token(&t.owner_token)
        .send()
        .await
        .assert_status(200);
    let body = succeeded("evt_late", &intent, 4000);
    let res = deliver(
        &app,
        Some(&header(&secret, app.clock_now().timestamp(), &body)),
        &body,
    )
    .await;
    res.assert_status(200);
    assert!(
        res.body["message"].as_str().unwrap().contains("refund"),
        "{}",
        res.text
    );
    assert_eq!(res.body["error"], "PAID_AFTER_CLOSE");
    // Cancelled by staff: the booking stays cancelled and the money goes back.
    let b = booking(&app, &t, hold.str("id")).await;
    assert_eq!(b["status"], "canceled");
    assert_eq!(
        b["payments"][0]["status"], "REFUNDED",
        "refunded automatically"
    );
    let letters = app
        .get("/api/v1/admin/dead-letters?type=payment")
        .tenant(&t.id)
        .token(&t.owner_token)
        .send()
        .await;
    let letter = &letters.body["deadLetters"][0];
    assert_eq!(letter["errorType"], "PAID_AFTER_CLOSE", "{}", letters.text);
    assert_eq!(letter["status"], "resolved", "{}", letters.text);
}

#[tokio::test]
async fn funds_held_for_capture_are_not_cancelled_at_the_deadline() {
    let (app, t, fx, _) = setup().await;
    let (hold, res) = confirm_by_card(
        &app,
        &t,
        &fx,
        0,
        json!({"captureMethod": "manual", "paymentMethodId": "pm_card_visa"}),
    )
    .await;
    res.assert_status(200);
    app.clock.advance(chrono::Duration::minutes(31));
    let report = kairos_app::payments::deadline::run_once(&app.state.app)
        .await
        .unwrap();
    assert_eq!((report.canceled, report.skipped), (0, 1));
    let b = booking(&app, &t, hold.str("id")).await;
    assert_eq!(b["status"], "confirmed");
    assert_eq!(b["payments"][0]["status"], "AUTHORIZED");
    // Out of the deadline's queue now.
    let report = kairos_app::payments::deadline::run_once(&app.state.app)
        .await
        .unwrap();
    assert_eq!(report, Default::default());
}

#[tokio::test]
async fn a_cancelled_booking_cannot_be_paid_afterwards() {
    let (app, t, fx, _) = setup().await;
    let (hold, res) = confirm_by_card(&app, &t, &fx, 0, json!({})).await;
    let p = res.body["payment"].clone();
    // Staff cancel (a customer is past the policy window a day before).
    app.post(&format!("/api/v1/bookings/{}/cancel", hold.str("id")))
        .tenant(&t.id)
        .token(&t.owner_token)
        .send()
        .await
        .assert_status(200);
    // The intent was canceled at the provider: the customer's card is refused.
    let late = app
        .post(p["sandboxConfirmUrl"].as_str().unwrap())
        .header("content-type", "application/x-www-form-urlencoded")
        .raw(format!(
            "client_secret={}&payment_method=pm_card_visa",
            p["clientSecret"].as_str().unwrap()
        ))
        .send()
        .await;
    late.assert_status(400);
    assert_eq!(
        late.body["error"]["code"],
        "payment_intent_unexpected_state"
    );
    let b = booking(&app, &t, hold.str("id")).await;
    assert_eq!(b["status"], "canceled");
    assert_eq!(b["payments"][0]["status"], "CANCELED");
}

#[tokio::test]
async fn a_booking_cancelled_by_a_status_change_cannot_be_paid_either() {
    let (app, t, fx, _) = setup().await;
    let (hold, res) = confirm_by_card(&app, &t, &fx, 0, json!({})).await;
    let p = res.body["payment"].clone();
    app.patch(&format!("/api/v1/admin/bookings/{}/status", hold.str("id")))
        .tenant(&t.id)
        .token(&t.owner_token)
        .json(json!({"status": "canceled", "reason": "venue closed"}))
        .send()
        .await
        .assert_status(200);
    let b = booking(&app, &t, hold.str("id")).await;
    assert_eq!(b["payments"][0]["status"], "CANCELED");
    let late = app
        .post(p["sandboxConfirmUrl"].as_str().unwrap())
        .header("content-type", "application/x-www-form-urlencoded")
        .raw(format!(
            "client_secret={}&payment_method=pm_card_visa",
            p["clientSecret"].as_str().unwrap()
        ))
        .send()
        .await;
    late.assert_status(400);
}

#[tokio::test]
async fn a_booking_whose_intent_was_canceled_before_is_cancelled_at_the_deadline() {
    let (app, t, fx, key) = setup().await;
    let (hold, res) = confirm_by_card(&app, &t, &fx, 0, json!({})).await;
    let intent = res.body["payment"]["paymentIntentId"]
        .as_str()
        .unwrap()
        .to_owned();
    // An earlier pass (or another instance) canceled the intent and did not save the
    // booking's cancellation: the provider now refuses to cancel it again.
    app.state.app.sandbox.sandbox.cancel(&key, &intent).unwrap();
    app.clock.advance(chrono::Duration::minutes(31));
    let report = kairos_app::payments::deadline::run_once(&app.state.app)
        .await
        .unwrap();
    assert_eq!((report.settled, report.canceled), (0, 1));
    assert_eq!(
        booking(&app, &t, hold.str("id")).await["status"],
        "canceled"
    );
    app.assert_capacity_invariant(&t.id).await;
}
