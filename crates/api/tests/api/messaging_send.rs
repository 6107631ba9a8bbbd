//! Sending a message by hand (spec Part B 4.8 `POST /admin/messaging/send`).

use kairos_testkit::{TenantFixture, TestApp};
use serde_json::{Value, json};

const SEND: &str = "/api/v1/admin/messaging/send";

async fn customer(app: &TestApp, email: &str) -> String {
    let res = app
        .post("/api/v1/customers/register")
        .tenant("acme")
        .json(json!({
            "email": email, "password": "customer-pass-1", "firstName": "Grace",
            "lastName": "Hopper", "phone": "+358401234567", "termsAccepted": true,
            "privacyPolicyAccepted": true
        }))
        .send()
        .await;
    res.assert_status(201);
    res.str("customer/id").to_owned()
}

async fn send(app: &TestApp, t: &TenantFixture, body: Value) -> kairos_testkit::TestResponse {
    app.post(SEND)
        .tenant("acme")
        .token(&t.owner_token)
        .json(body)
        .send()
        .await
}

#[tokio::test]
async fn staff_send_a_message_to_a_booking_or_a_customer() {
    let app = TestApp::spawn().await;
    let t = app.tenant("acme").await;
    let fx = app.bookable(&t).await;
    let hold = app.hold("acme", &fx, &fx.slots[0], 2).await;
    let booking = hold.str("id").to_owned();
    let res = send(
        &app,
        &t,
        json!({
            "recipientType": "booking", "recipientId": booking, "channel": "email",
            "templateId": "booking_update", "priority": "high", "trackDelivery": true,
            "variables": {"message": "The room is ready early <3"},
        }),
    )
    .await;
    res.assert_status(200);
    assert_eq!(res.body["success"], true);
    assert_eq!(res.body["status"], "queued");
    let id = res.body["messageId"].as_str().unwrap().to_owned();
    let list = app
        .get(&format!(
            "/api/v1/admin/messaging/messages?bookingId={booking}"
        ))
        .tenant("acme")
        .token(&t.owner_token)
        .send()
        .await;
    let m = &list.body["messages"][0];
    assert_eq!(m["id"], id.as_str());
    assert_eq!(m["recipient"], "ada@example.com");
    assert_eq!(m["source"], "send");
    assert_eq!(m["templateKey"], "booking_update");
    assert!(
        m["subject"]
            .as_str()
            .unwrap()
            .starts_with("News about your booking ")
    );
    assert!(
        m["body"]
            .as_str()
            .unwrap()
            .contains("The room is ready early &lt;3"),
        "escaped: {}",
        m["body"]
    );

    // To a customer account: SMS needs their opt-in; marketing needs theirs.
    let grace = customer(&app, "grace@example.com").await;
    let sms = send(
        &app,
        &t,
        json!({"recipientType": "customer", "recipientId": grace, "channel": "sms",
            "templateId": "booking_update", "variables": {"message": "Hi"}}),
    )
    .await;
    sms.assert_status(409);
    assert_eq!(sms.body["statusCode"], 409);
    assert!(sms.body["message"].as_str().unwrap().contains("SMS"));
    let offer = send(
        &app,
        &t,
        json!({"recipientType": "customer", "recipientId": grace,
            "templateId": "special_offer", "variables": {"message": "20% off"}}),
    )
    .await;
    offer.assert_status(409);
    app.patch(&format!("/api/v1/admin/customers/{grace}/preferences"))
        .tenant("acme")
        .token(&t.owner_token)
        .json(json!({"smsOptIn": true, "marketingOptIn": true}))
        .send()
        .await
        .assert_status(200);
    let sms = send(
        &app,
        &t,
        json!({"recipientType": "customer", "recipientId": grace, "channel": "sms",
            "templateId": "booking_update", "variables": {"message": "Hi"}}),
    )
    .await;
    sms.assert_status(200);
    let offer = send(
        &app,
        &t,
        json!({"recipientType": "customer", "recipientId": grace,
            "templateId": "special_offer", "variables": {"message": "20% off"}}),
    )
    .await;
    offer.assert_status(200);
    // No SMS template of special_offer anywhere: 400 naming templateId.
    let no_template = send(
        &app,
        &t,
        json!({"recipientType": "customer", "recipientId": grace, "channel": "sms",
            "templateId": "special_offer"}),
    )
    .await;
    no_template.assert_status(400);
    assert_eq!(no_template.error_fields(), ["templateId"]);
}

#[tokio::test]
async fn bad_sends_are_refused_naming_each_field() {
    let app = TestApp::spawn().await;
    let t = app.tenant("acme").await;
    let missing = send(&app, &t, json!({})).await;
    missing.assert_status(400);
    assert_eq!(
        missing.error_fields(),
        ["recipientId", "recipientType", "templateId"]
    );
    let bad = send(
        &app,
        &t,
        json!({"recipientType": "fax", "recipientId": "x", "channel": "pigeon",
            "templateId": "Nope!", "variables": [1], "priority": "urgent"}),
    )
    .await;
    assert_eq!(
        bad.error_fields(),
        [
            "recipientId",
            "recipientType",
            "channel",
            "templateId",
            "variables",
            "priority"
        ]
    );
    for kind in ["booking", "customer"] {
        let unknown = send(
            &app,
            &t,
            json!({"recipientType": kind, "recipientId": "0190f4c2-7b1e-7a3c-9d2e-5f6a7b8c9d0e",
                "templateId": "booking_update"}),
        )
        .await;
        unknown.assert_status(404);
        assert_eq!(unknown.body["statusCode"], 404);
    }
}

#[tokio::test]
async fn a_new_account_gets_the_welcome_email() {
    let app = TestApp::spawn().await;
    let t = app.tenant("acme").await;
    let id = customer(&app, "grace@example.com").await;
    let list = app
        .get(&format!("/api/v1/admin/messaging/messages?customerId={id}"))
        .tenant("acme")
        .token(&t.owner_token)
        .send()
        .await;
    list.assert_status(200);
    let messages = list.body["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 1, "{}", list.body);
    let m = &messages[0];
    assert_eq!(m["templateKey"], "welcome");
    assert_eq!(m["channel"], "email");
    assert_eq!(m["recipient"], "grace@example.com");
    assert_eq!(m["subject"], "Welcome to Tenant acme");
    assert!(m["body"].as_str().unwrap().contains("Hello Grace Hopper"));
}
