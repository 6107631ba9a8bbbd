//! A fee's charge, one attempt at a time: a second charge while one is under way is
//! refused, an attempt whose answer was lost is asked again with the same key (charged
//! once), the provider's event finishes an attempt whose answer never came, and money taken
//! for a fee waived meanwhile is owed back.

#![expect(clippy::unwrap_used, reason = "test helpers fail the test loudly")]
use super::no_shows::{paid_with, venue};
use super::payments_webhooks::deliver;
use kairos_app::payments::providers::sandbox::webhook_secret;
use kairos_domain::TenantId;
use kairos_domain::payments::cardpay_signature::header;
use kairos_store::Actor;
use kairos_testkit::{BookingFixture, TenantFixture, TestApp};
use serde_json::{Value, json};
use uuid::Uuid;

/// A tenant with a flat 15.00 no-show fee, a sandbox card account (its key), and a
/// booking paid by card marked no-show: (app, tenant, key, booking id, fee id).
async fn fee_pending() -> (TestApp, TenantFixture, String, String, Uuid) {
    let app = TestApp::builder()
        .limits(kairos_api::rate_limit::Limits::UNLIMITED)
        .spawn()
        .await;
    let t = app.tenant("acme").await;
    let fx: BookingFixture = app.bookable(&t).await;
    let key = app.sandbox_cardpay(&t).await;
    app.put("/api/v1/admin/no-show/policy")
        .tenant(&t.id)
        .token(&t.owner_token)
        .json(json!({"enabled": true, "feeType": "flat", "flatFee": 1500}))
        .send()
        .await
        .assert_status(200);
    let hold = paid_with(&app, &t, &fx, &fx.slots[0], "pm_card_visa").await;
    let id = hold.str("id").to_owned();
    let res = app
        .post(&format!("/api/v1/admin/bookings/{id}/no-show"))
        .tenant(&t.id)
        .token(&t.owner_token)
        .json(json!({}))
        .send()
        .await;
    res.assert_status(200);
    let fee = res.body["noShow"]["fee"]["id"]
        .as_str()
        .and_then(|f| f.parse().ok())
        .unwrap_or_else(|| panic!("no fee: {}", res.text));
    (app, t, key, id, fee)
}

fn acme() -> TenantId {
    TenantId::parse("acme").unwrap()
}

async fn fee_of(app: &TestApp, t: &TenantFixture, booking: &str) -> Value {
    let token = app
        .admin_token(&t.id, &t.owner_username, &t.owner_password)
        .await;
    let fees = app
        .get(&format!("/api/v1/admin/bookings/{booking}/fees"))
        .tenant(&t.id)
        .token(&token)
        .send()
        .await;
    fees.body["fees"][0].clone()
}

#[tokio::test]
async fn a_charge_under_way_is_refused_and_one_whose_answer_was_lost_is_asked_again_once() {
    let (app, t, _, booking, fee) = fee_pending().await;
    // An attempt begun (as by a request whose answer never came back).
    let begun = app
        .store
        .begin_fee_charge(&acme(), fee, &Actor::system("test"), app.clock_now())
        .await
        .unwrap();
    let charge = app
        .post(&format!("/api/v1/admin/fees/{fee}/charge"))
        .tenant(&t.id)
        .token(&t.owner_token)
        .send()
        .await;
    charge.assert_error(409, "FEE_CHARGE_IN_PROGRESS");
    assert!(charge.header("retry-after").is_some());
    // Its amount is the attempt's while it is under way.
    app.post(&format!(
        "/api/v1/admin/no-show/booking/{booking}/process-fee"
    ))
    .tenant(&t.id)
    .token(&t.owner_token)
    .json(json!({"override_fee_amount": 900}))
    .send()
    .await
    .assert_error(409, "FEE_CHARGE_IN_PROGRESS");
    // Past the lease it is asked again, with the same payment (and key): charged once.
    app.clock.advance(chrono::Duration::minutes(3));
    let token = app
        .admin_token(&t.id, &t.owner_username, &t.owner_password)
        .await;
    let charged = app
        .post(&format!("/api/v1/admin/fees/{fee}/charge"))
        .tenant(&t.id)
        .token(&token)
        .send()
        .await;
    charged.assert_status(200);
    assert_eq!(charged.body["fee"]["status"], "charged", "{}", charged.text);
    assert_eq!(charged.body["fee"]["chargeAttempts"], 1);
    let after = fee_of(&app, &t, &booking).await;
    assert_eq!(after["status"], "charged");
    assert_eq!(begun.amount, 1500);
}

/// A signed `payment_intent.succeeded` for a fee's charge whose intent Kairos never
/// recorded, naming its payment in the metadata as Kairos writes it.
fn fee_succeeded(event: &str, intent: &str, payment: Uuid, amount: i64) -> Vec<u8> {
    serde_json::to_vec(&json!({
        "id": event, "object": "event", "type": "payment_intent.succeeded",
        "created": 1, "livemode": false,
        "data": {"object": {"id": intent, "object": "payment_intent", "amount": amount,
            "amount_received": amount, "currency": "eur", "status": "succeeded",
            "metadata": {"tenant_id": "acme", "type": "fee", "payment_id": payment.to_string()}}}
    }))
    .unwrap()
}

#[tokio::test]
async fn the_providers_event_finishes_a_charge_whose_answer_never_came() {
    let (app, t, key, booking, fee) = fee_pending().await;
    let secret = webhook_secret(&app.state.config.payments.secrets, &key);
    let begun = app
        .store
        .begin_fee_charge(&acme(), fee, &Actor::system("test"), app.clock_now())
        .await
        .unwrap();
    let body = fee_succeeded("evt_fee_1", "pi_lost_answer", begun.payment_id, 1500);
    let res = deliver(
        &app,
        Some(&header(&secret, app.clock_now().timestamp(), &body)),
        &body,
    )
    .await;
    res.assert_status(200);
    assert_eq!(res.body["processed"], true, "{}", res.text);
    let after = fee_of(&app, &t, &booking).await;
    assert_eq!(after["status"], "charged");
    assert_eq!(after["chargeId"], "pi_lost_answer");
    let record = app
        .get(&format!("/api/v1/admin/no-show/booking/{booking}"))
        .tenant(&t.id)
        .token(&t.owner_token)
        .send()
        .await;
    assert_eq!(record.body["data"]["resolution"], "fee_charged");
    // The answer that comes late changes nothing.
    let late = app
        .store
        .finish_fee_charge(
            &acme(),
            &begun,
            &kairos_store::FeeChargeOutcome::Declined {
                code: "card_declined".to_owned(),
                message: "late".to_owned(),
            },
            &Actor::system("test"),
            app.clock_now(),
        )
        .await
        .unwrap();
    assert_eq!(late.status.as_str(), "charged");
}

#[tokio::test]
async fn money_taken_for_a_fee_waived_meanwhile_is_owed_back() {
    let (app, t, key, booking, fee) = fee_pending().await;
    let secret = webhook_secret(&app.state.config.payments.secrets, &key);
    let begun = app
        .store
        .begin_fee_charge(&acme(), fee, &Actor::system("test"), app.clock_now())
        .await
        .unwrap();
    // Staff waive it while the provider is asked.
    app.post(&format!("/api/v1/admin/fees/{fee}/waive"))
        .tenant(&t.id)
        .token(&t.owner_token)
        .json(json!({"reason": "regular"}))
        .send()
        .await
        .assert_status(200);
    let body = fee_succeeded("evt_fee_2", "pi_taken_anyway", begun.payment_id, 1500);
    deliver(
        &app,
        Some(&header(&secret, app.clock_now().timestamp(), &body)),
        &body,
    )
    .await
    .assert_status(200);
    let after = fee_of(&app, &t, &booking).await;
    assert_eq!(after["status"], "waived");
    // The charge is owed back: the owed-refunds job returns it.
    let owed = app
        .store
        .unfinished_refunds(app.clock_now(), 10)
        .await
        .unwrap();
    assert!(
        owed.iter().any(|o| o.payment_id == begun.payment_id),
        "{owed:?}"
    );
}

#[tokio::test]
async fn marking_a_no_show_by_the_status_endpoints_charges_the_fee_when_the_policy_says_so() {
    let (app, t, fx) =
        venue(json!({"enabled": true, "feeType": "flat", "flatFee": 1500, "autoCharge": true}))
            .await;
    let hold = paid_with(&app, &t, &fx, &fx.slots[0], "pm_card_visa").await;
    let id = hold.str("id");
    app.patch(&format!("/api/v1/bookings/{id}/mark-no-show"))
        .tenant(&t.id)
        .token(&t.owner_token)
        .json(json!({}))
        .send()
        .await
        .assert_status(200);
    let record = app
        .get(&format!("/api/v1/admin/no-show/booking/{id}"))
        .tenant(&t.id)
        .token(&t.owner_token)
        .send()
        .await;
    assert_eq!(
        record.body["data"]["feeStatus"], "charged",
        "{}",
        record.text
    );
    assert_eq!(record.body["data"]["feeCharged"], 1500);
}
