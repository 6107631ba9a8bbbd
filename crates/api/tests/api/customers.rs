use kairos_testkit::TestApp;
use serde_json::{Value, json};

fn registration() -> Value {
    json!({
        "email": "Ada@Example.com", "password": "analytical", "firstName": "Ada",
        "lastName": "Lovelace", "phone": "+358401234567",
        "termsAccepted": true, "privacyPolicyAccepted": true
    })
}

#[tokio::test]
async fn register_returns_a_token_and_the_customer() {
    let app = TestApp::spawn().await;
    app.tenant("acme").await;
    let res = app
        .post("/api/v1/customers/register")
        .tenant("acme")
        .json(registration())
        .send()
        .await;
    res.assert_status(201);
    assert_eq!(res.body["token_type"], "Bearer");
    assert_eq!(res.body["expires_in"], 3600);
    assert_eq!(res.body["customer"]["email"], "ada@example.com");
    assert_eq!(res.body["customer"]["firstName"], "Ada");
    assert_eq!(res.body["customer"]["phone"], "+358401234567");
    assert!(res.body["customer"]["createdAt"].is_string());

    let me = app
        .get("/api/v1/customers/me")
        .tenant("acme")
        .token(res.str("access_token"))
        .send()
        .await;
    me.assert_status(200);
    assert_eq!(me.body["marketingOptIn"], false);
    assert_eq!(me.body["smsOptIn"], false);
    assert_eq!(me.body["lastName"], "Lovelace");
}

#[tokio::test]
async fn registration_rules_are_enforced_and_every_bad_field_named() {
    let app = TestApp::spawn().await;
    app.tenant("acme").await;
    let mut short = registration();
    short["password"] = json!("1234567");
    let res = app
        .post("/api/v1/customers/register")
        .tenant("acme")
        .json(short)
        .send()
        .await;
    res.assert_error(400, "VALIDATION_ERROR");
    assert_eq!(res.error_fields(), ["password"]);

    let res = app
        .post("/api/v1/customers/register")
        .tenant("acme")
        .json(json!({"email": "bad", "password": "long-enough", "termsAccepted": false}))
        .send()
        .await;
    res.assert_error(400, "VALIDATION_ERROR");
    assert_eq!(
        res.error_fields(),
        ["email", "termsAccepted", "privacyPolicyAccepted"]
    );
}

#[tokio::test]
async fn an_email_registers_once_per_tenant_whatever_its_case() {
    let app = TestApp::spawn().await;
    app.tenant("acme").await;
    app.post("/api/v1/customers/register")
        .tenant("acme")
        .json(registration())
        .send()
        .await
        .assert_status(201);
    let mut again = registration();
    again["email"] = json!("ADA@example.COM");
    app.post("/api/v1/customers/register")
        .tenant("acme")
        .json(again)
        .send()
        .await
        .assert_error(409, "EMAIL_EXISTS");
}

#[tokio::test]
async fn login_failure_does_not_reveal_whether_the_email_exists() {
    let app = TestApp::spawn().await;
    app.tenant("acme").await;
    app.post("/api/v1/customers/register")
        .tenant("acme")
        .json(registration())
        .send()
        .await
        .assert_status(201);
    let wrong_password = app
        .post("/api/v1/customers/login")
        .tenant("acme")
        .json(json!({"email": "ada@example.com", "password": "not-the-password"}))
        .send()
        .await;
    let unknown_email = app
        .post("/api/v1/customers/login")
        .tenant("acme")
        .json(json!({"email": "nobody@example.com", "password": "not-the-password"}))
        .send()
        .await;
    wrong_password.assert_error(401, "INVALID_CREDENTIALS");
    unknown_email.assert_error(401, "INVALID_CREDENTIALS");
    assert_eq!(wrong_password.body, unknown_email.body);

    let ok = app
        .post("/api/v1/customers/login")
        .tenant("acme")
        .json(json!({"email": "ADA@example.com", "password": "analytical"}))
        .send()
        .await;
    ok.assert_status(200);
    assert_eq!(ok.body["customer"]["email"], "ada@example.com");
    assert!(ok.body["customer"].get("createdAt").is_none());
}

#[tokio::test]
async fn login_names_missing_fields() {
    let app = TestApp::spawn().await;
    app.tenant("acme").await;
    let res = app
        .post("/api/v1/customers/login")
        .tenant("acme")
        .json(json!({}))
        .send()
        .await;
    res.assert_error(400, "VALIDATION_ERROR");
    assert_eq!(res.error_fields(), ["email", "password"]);
}

#[tokio::test]
async fn profile_patch_changes_only_supplied_fields_and_is_audited() {
    let app = TestApp::spawn().await;
    app.tenant("acme").await;
    let reg = app
        .post("/api/v1/customers/register")
        .tenant("acme")
        .json(registration())
        .send()
        .await;
    let token = reg.str("access_token").to_owned();
    let id = reg.str("customer/id").to_owned();
    app.clock.advance(chrono::Duration::minutes(5));
    let res = app
        .patch("/api/v1/customers/me")
        .tenant("acme")
        .token(&token)
        .json(json!({"lastName": "King", "marketingOptIn": true, "phone": null, "smsOptIn": true}))
        .send()
        .await;
    res.assert_status(200);
    assert_eq!(res.body["firstName"], "Ada");
    assert_eq!(res.body["lastName"], "King");
    assert_eq!(res.body["phone"], Value::Null);
    assert_eq!(res.body["marketingOptIn"], true);
    assert_eq!(res.body["smsOptIn"], true);
    assert_eq!(res.body["updatedAt"], "2026-11-21T09:05:00Z");
    assert!(res.body.get("createdAt").is_none());

    let tenant = kairos_domain::TenantId::parse("acme").unwrap_or_else(|e| panic!("{e}"));
    let audit = app
        .store
        .list_audit(&tenant, "customer", &id)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        audit.last().map(|a| a.action.as_str()),
        Some("customer.profile_updated")
    );
    assert_eq!(
        audit.last().map(|a| a.changes["lastName"].clone()),
        Some(json!({"from": "Lovelace", "to": "King"}))
    );
}

#[tokio::test]
async fn profile_patch_rejects_bad_values() {
    let app = TestApp::spawn().await;
    app.tenant("acme").await;
    let token = app.customer_token("acme", "c@acme.io").await;
    let res = app
        .patch("/api/v1/customers/me")
        .tenant("acme")
        .token(&token)
        .json(json!({"phone": "call me maybe", "marketingOptIn": "yes", "firstName": 7}))
        .send()
        .await;
    res.assert_error(400, "VALIDATION_ERROR");
    let mut fields = res.error_fields();
    fields.sort();
    assert_eq!(fields, ["firstName", "marketingOptIn"]);
}

#[tokio::test]
async fn customer_endpoints_need_a_customer_token() {
    let app = TestApp::spawn().await;
    app.tenant("acme").await;
    app.get("/api/v1/customers/me")
        .tenant("acme")
        .send()
        .await
        .assert_error(401, "UNAUTHORIZED");
    app.patch("/api/v1/customers/me")
        .tenant("acme")
        .json(json!({}))
        .send()
        .await
        .assert_error(401, "UNAUTHORIZED");
}
