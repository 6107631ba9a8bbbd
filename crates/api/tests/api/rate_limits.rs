use kairos_api::rate_limit::Limits;
use kairos_testkit::TestApp;
use serde_json::json;

fn login_body() -> serde_json::Value {
    json!({"email": "nobody@acme.io", "password": "whatever-pass"})
}

#[tokio::test]
async fn the_sixth_login_in_a_minute_is_rate_limited() {
    let app = TestApp::spawn().await;
    app.tenant("acme").await;
    // Start in a fresh window: setting up the tenant signed its owner in.
    app.clock.advance(chrono::Duration::seconds(60));
    for i in 0..5 {
        let res = app
            .post("/api/v1/customers/login")
            .tenant("acme")
            .json(login_body())
            .send()
            .await;
        res.assert_error(401, "INVALID_CREDENTIALS");
        assert_eq!(res.header("x-ratelimit-limit"), Some("5"));
        assert_eq!(
            res.header("x-ratelimit-remaining"),
            Some((4 - i).to_string().as_str())
        );
    }
    let res = app
        .post("/api/v1/customers/login")
        .tenant("acme")
        .json(login_body())
        .send()
        .await;
    res.assert_status(429);
    assert_eq!(res.body["statusCode"], 429);
    assert!(res.body["message"].is_string());
    let retry = res.body["retryAfter"].as_u64().unwrap_or(0);
    assert!((1..=60).contains(&retry));
    assert_eq!(res.header("retry-after"), Some(retry.to_string().as_str()));
    let reset: i64 = res
        .header("x-ratelimit-reset")
        .and_then(|r| r.parse().ok())
        .unwrap_or(0);
    assert_eq!(reset, app.clock_now().timestamp() + retry as i64);

    // Admin login shares the strict tier; the window resets after a minute.
    app.post("/api/auth/login")
        .tenant("acme")
        .json(json!({}))
        .send()
        .await
        .assert_status(429);
    app.clock.advance(chrono::Duration::seconds(60));
    app.post("/api/v1/customers/login")
        .tenant("acme")
        .json(login_body())
        .send()
        .await
        .assert_status(401);
}

#[tokio::test]
async fn limits_are_kept_per_tenant_and_per_tier() {
    let app = TestApp::spawn().await;
    app.tenant("acme").await;
    app.tenant("other").await;
    app.clock.advance(chrono::Duration::seconds(60));
    for _ in 0..5 {
        app.post("/api/v1/customers/login")
            .tenant("acme")
            .json(login_body())
            .send()
            .await;
    }
    app.post("/api/v1/customers/login")
        .tenant("acme")
        .json(login_body())
        .send()
        .await
        .assert_status(429);
    app.post("/api/v1/customers/login")
        .tenant("other")
        .json(login_body())
        .send()
        .await
        .assert_status(401);
    let health = app.get("/healthz").send().await;
    health.assert_status(200);
    assert_eq!(health.header("x-ratelimit-limit"), Some("200"));
}

#[tokio::test]
async fn authenticated_clients_are_counted_by_token_subject() {
    let app = TestApp::builder()
        .limits(Limits {
            strict: 50,
            standard: 2,
            relaxed: 200,
            ..Limits::default()
        })
        .spawn()
        .await;
    let acme = app.tenant("acme").await;
    let other_owner = app
        .staff(
            "acme",
            "owner2",
            "owner2-password",
            &[kairos_domain::auth::Role::Owner],
        )
        .await;
    let _ = other_owner;
    let second = app.admin_token("acme", "owner2", "owner2-password").await;
    for _ in 0..2 {
        app.get("/api/v1/admin/users")
            .tenant("acme")
            .token(&acme.owner_token)
            .send()
            .await
            .assert_status(200);
    }
    let res = app
        .get("/api/v1/admin/users")
        .tenant("acme")
        .token(&acme.owner_token)
        .send()
        .await;
    res.assert_status(429);
    assert_eq!(res.header("x-ratelimit-limit"), Some("2"));
    // Another user from the same address has their own budget.
    app.get("/api/v1/admin/users")
        .tenant("acme")
        .token(&second)
        .send()
        .await
        .assert_status(200);
}

#[tokio::test]
async fn a_zero_limit_means_unlimited() {
    let app = TestApp::builder().limits(Limits::UNLIMITED).spawn().await;
    app.tenant("acme").await;
    for _ in 0..8 {
        let res = app
            .post("/api/v1/customers/login")
            .tenant("acme")
            .json(login_body())
            .send()
            .await;
        res.assert_status(401);
        assert!(res.header("x-ratelimit-limit").is_none());
    }
}

#[tokio::test]
async fn instances_sharing_redis_share_the_limit() {
    let Ok(url) = std::env::var("TEST_REDIS_URL") else {
        eprintln!("TEST_REDIS_URL not set: shared rate limit test skipped");
        return;
    };
    let prefix = format!("kairos-test-{}:", uuid::Uuid::new_v4().simple());
    let first = TestApp::builder().redis(&url, &prefix).spawn().await;
    let second = TestApp::builder()
        .redis(&url, &prefix)
        .same_database_as(&first)
        .spawn()
        .await;
    first.tenant("acme").await;
    // Both instances share the tenant's strict budget (tenant() used one login).
    for app in [&first, &second, &first, &second] {
        app.post("/api/v1/customers/login")
            .tenant("acme")
            .json(login_body())
            .send()
            .await
            .assert_status(401);
    }
    let res = second
        .post("/api/v1/customers/login")
        .tenant("acme")
        .json(login_body())
        .send()
        .await;
    res.assert_status(429);
    assert_eq!(res.header("x-ratelimit-remaining"), Some("0"));
    first
        .post("/api/v1/customers/login")
        .tenant("acme")
        .json(login_body())
        .send()
        .await
        .assert_status(429);
}
