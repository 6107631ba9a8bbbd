use chrono::Duration;
use kairos_domain::auth::Role;
use kairos_testkit::TestApp;
use serde_json::json;

#[tokio::test]
async fn admin_login_returns_token_roles_and_permissions() {
    let app = TestApp::spawn().await;
    app.tenant("acme").await;
    app.staff("acme", "desk", "desk-password", &[Role::FrontDesk])
        .await;
    let res = app
        .post("/api/auth/login")
        .json(json!({"username": "desk", "password": "desk-password", "tenantId": "acme"}))
        .send()
        .await;
    res.assert_status(200);
    assert_eq!(res.body["token_type"], "Bearer");
    assert_eq!(res.body["expires_in"], 3600);
    assert_eq!(res.body["user"]["username"], "desk");
    assert_eq!(res.body["user"]["tenant_id"], "acme");
    assert_eq!(res.body["user"]["roles"], json!(["front_desk"]));
    let perms = res.body["user"]["permissions"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert!(perms.contains(&json!("admin:bookings:create")));
    assert!(!perms.contains(&json!("admin:capacity:override")));
    assert!(res.str("access_token").split('.').count() == 3, "a JWT");
}

#[tokio::test]
async fn admin_login_needs_no_tenant_header_and_refuses_bad_credentials_alike() {
    let app = TestApp::spawn().await;
    let acme = app.tenant("acme").await;
    for body in [
        json!({"username": "owner", "password": "wrong-password", "tenantId": "acme"}),
        json!({"username": "ghost", "password": acme.owner_password, "tenantId": "acme"}),
        json!({"username": "owner", "password": acme.owner_password, "tenantId": "other"}),
    ] {
        let res = app.post("/api/auth/login").json(body).send().await;
        res.assert_error(401, "INVALID_CREDENTIALS");
        assert_eq!(res.body["message"], "Invalid username, password or tenant");
    }
}

#[tokio::test]
async fn admin_login_names_missing_fields() {
    let app = TestApp::spawn().await;
    let res = app.post("/api/auth/login").json(json!({})).send().await;
    res.assert_error(400, "VALIDATION_ERROR");
    assert_eq!(res.error_fields(), ["username", "password", "tenantId"]);
}

#[tokio::test]
async fn admin_endpoints_refuse_missing_malformed_and_expired_tokens() {
    let app = TestApp::spawn().await;
    let acme = app.tenant("acme").await;
    app.get("/api/v1/admin/users")
        .tenant("acme")
        .send()
        .await
        .assert_error(401, "UNAUTHORIZED");
    app.get("/api/v1/admin/users")
        .tenant("acme")
        .token("not-a-jwt")
        .send()
        .await
        .assert_error(401, "UNAUTHORIZED");
    app.get("/api/v1/admin/users")
        .tenant("acme")
        .header("authorization", "Basic b3duZXI6cGFzcw==")
        .send()
        .await
        .assert_error(401, "UNAUTHORIZED");

    app.get("/api/v1/admin/users")
        .tenant("acme")
        .token(&acme.owner_token)
        .send()
        .await
        .assert_status(200);
    app.clock.advance(Duration::seconds(3600));
    app.get("/api/v1/admin/users")
        .tenant("acme")
        .token(&acme.owner_token)
        .send()
        .await
        .assert_error(401, "TOKEN_EXPIRED");
}

#[tokio::test]
async fn customer_token_is_refused_on_admin_endpoints_and_admin_token_on_customer_ones() {
    let app = TestApp::spawn().await;
    let acme = app.tenant("acme").await;
    let customer = app.customer_token("acme", "c@acme.io").await;
    app.get("/api/v1/admin/users")
        .tenant("acme")
        .token(&customer)
        .send()
        .await
        .assert_error(403, "INSUFFICIENT_PERMISSIONS");
    app.get("/api/v1/customers/me")
        .tenant("acme")
        .token(&acme.owner_token)
        .send()
        .await
        .assert_error(403, "INSUFFICIENT_PERMISSIONS");
}

#[tokio::test]
async fn deactivated_staff_lose_access_at_once() {
    let app = TestApp::spawn().await;
    let acme = app.tenant("acme").await;
    let id = app
        .staff("acme", "leaver", "leaver-password", &[Role::Owner])
        .await;
    let token = app.admin_token("acme", "leaver", "leaver-password").await;
    app.delete(&format!("/api/v1/admin/users/{id}"))
        .tenant("acme")
        .token(&acme.owner_token)
        .send()
        .await
        .assert_status(200);
    app.get("/api/v1/admin/users")
        .tenant("acme")
        .token(&token)
        .send()
        .await
        .assert_error(401, "UNAUTHORIZED");
    app.post("/api/auth/login")
        .json(json!({"username": "leaver", "password": "leaver-password", "tenantId": "acme"}))
        .send()
        .await
        .assert_error(401, "INVALID_CREDENTIALS");
}

/// A burst of sign-ins queues behind the password hashing permits, so memory stays
/// bounded (19 MiB per running hash); those that cannot start within the wait get 503
/// `SERVICE_UNAVAILABLE` with `Retry-After`, never a 500.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_burst_of_logins_hashes_a_few_at_a_time_and_turns_the_excess_away() {
    let no_limits = kairos_api::rate_limit::Limits::UNLIMITED;
    async fn login(app: &TestApp) -> kairos_testkit::TestResponse {
        app.post("/api/auth/login")
            .json(json!({"username": "owner", "password": "wrong-password", "tenantId": "acme"}))
            .send()
            .await
    }

    // Two permits, a long wait: 20 at once all get their answer, two hashing at a time.
    let app = TestApp::builder()
        .limits(no_limits)
        .password_hashing(2, std::time::Duration::from_secs(60))
        .spawn()
        .await;
    app.tenant("acme").await;
    let answers = futures::future::join_all((0..20).map(|_| login(&app))).await;
    assert!(answers.iter().all(|r| r.status.as_u16() == 401));
    assert!(app.state.passwords.peak() <= 2);

    // One permit, no patience: the excess is a 503 with Retry-After.
    let app = TestApp::builder()
        .limits(no_limits)
        .password_hashing(1, std::time::Duration::from_millis(1))
        .spawn()
        .await;
    app.tenant("acme").await;
    let answers = futures::future::join_all((0..12).map(|_| login(&app))).await;
    let busy: Vec<_> = answers
        .iter()
        .filter(|r| r.status.as_u16() == 503)
        .collect();
    assert!(
        !busy.is_empty(),
        "some of 12 simultaneous logins were turned away"
    );
    for r in &busy {
        r.assert_error(503, "SERVICE_UNAVAILABLE");
        assert_eq!(r.header("retry-after"), Some("1"));
    }
    assert!(
        answers
            .iter()
            .all(|r| matches!(r.status.as_u16(), 401 | 503))
    );
    assert_eq!(app.state.passwords.peak(), 1);
}
