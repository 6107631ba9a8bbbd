use kairos_testkit::TestApp;
use serde_json::json;

#[tokio::test]
async fn missing_tenant_header_is_a_validation_error() {
    let app = TestApp::spawn().await;
    let res = app
        .post("/api/v1/customers/login")
        .json(json!({"email": "a@b.co", "password": "x"}))
        .send()
        .await;
    res.assert_error(400, "VALIDATION_ERROR");
    assert_eq!(res.error_fields(), ["x-tenant-id"]);
}

#[tokio::test]
async fn unknown_tenant_is_not_found() {
    let app = TestApp::spawn().await;
    app.get("/api/v1/customers/me")
        .tenant("nobody")
        .send()
        .await
        .assert_error(404, "NOT_FOUND");
    app.get("/api/v1/customers/me")
        .tenant("bad id!")
        .send()
        .await
        .assert_error(404, "NOT_FOUND");
}

#[tokio::test]
async fn token_used_with_another_tenants_header_is_forbidden() {
    let app = TestApp::spawn().await;
    let a = app.tenant("alpha").await;
    app.tenant("beta").await;
    let res = app
        .get("/api/v1/admin/users")
        .tenant("beta")
        .token(&a.owner_token)
        .send()
        .await;
    res.assert_error(403, "TENANT_MISMATCH");

    let customer = app.customer_token("alpha", "c@alpha.io").await;
    app.get("/api/v1/customers/me")
        .tenant("beta")
        .token(&customer)
        .send()
        .await
        .assert_error(403, "TENANT_MISMATCH");
}

#[tokio::test]
async fn one_tenants_data_is_invisible_to_another() {
    let app = TestApp::spawn().await;
    let a = app.tenant("alpha").await;
    let b = app.tenant("beta").await;
    // The same username and customer email may exist in both tenants.
    let created = app
        .post("/api/v1/admin/users")
        .tenant("alpha")
        .token(&a.owner_token)
        .json(json!({"username": "desk", "password": "desk-password", "roles": ["front_desk"]}))
        .send()
        .await;
    created.assert_status(200);
    let alpha_user = created.str("id").to_owned();

    let list = app
        .get("/api/v1/admin/users")
        .tenant("beta")
        .token(&b.owner_token)
        .send()
        .await;
    list.assert_status(200);
    let names: Vec<&str> = list.body["users"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|u| u["username"].as_str())
        .collect();
    assert_eq!(names, ["owner"]);
    app.get(&format!("/api/v1/admin/users/{alpha_user}"))
        .tenant("beta")
        .token(&b.owner_token)
        .send()
        .await
        .assert_error(404, "NOT_FOUND");
    app.patch(&format!("/api/v1/admin/users/{alpha_user}"))
        .tenant("beta")
        .token(&b.owner_token)
        .json(json!({"displayName": "hijacked"}))
        .send()
        .await
        .assert_error(404, "NOT_FOUND");

    app.customer_token("alpha", "same@example.com").await;
    app.customer_token("beta", "same@example.com").await;
    let login = app
        .post("/api/v1/customers/login")
        .tenant("beta")
        .json(json!({"email": "same@example.com", "password": "customer-pass-1"}))
        .send()
        .await;
    login.assert_status(200);
}
