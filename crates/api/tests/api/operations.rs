use kairos_testkit::TestApp;

#[tokio::test]
async fn health_and_readiness() {
    let app = TestApp::spawn().await;
    let res = app.get("/healthz").send().await;
    res.assert_status(200);
    assert_eq!(res.body["status"], "ok");
    let res = app.get("/readyz").send().await;
    res.assert_status(200);
    assert_eq!(res.body["database"], "ok");
}

#[tokio::test]
async fn readiness_fails_when_the_database_is_gone() {
    let app = TestApp::spawn().await;
    app.store.close().await;
    app.get("/readyz")
        .send()
        .await
        .assert_error(503, "SERVICE_UNAVAILABLE");
}

#[tokio::test]
async fn every_response_carries_a_request_id() {
    let app = TestApp::spawn().await;
    let res = app.get("/healthz").send().await;
    assert!(res.header("x-request-id").is_some_and(|id| id.len() >= 32));
    let res = app
        .get("/healthz")
        .header("x-request-id", "abc-123")
        .send()
        .await;
    assert_eq!(res.header("x-request-id"), Some("abc-123"));
}

#[tokio::test]
async fn metrics_count_requests_per_route() {
    let app = TestApp::spawn().await;
    app.get("/healthz").send().await.assert_status(200);
    app.get("/api/v1/customers/me")
        .send()
        .await
        .assert_status(400);
    let res = app.get("/metrics").send().await;
    res.assert_status(200);
    assert!(
        res.header("content-type")
            .is_some_and(|c| c.starts_with("text/plain"))
    );
    assert!(res.text.contains("http_requests_total{"), "{}", res.text);
    assert!(res.text.contains("route=\"/healthz\""));
    assert!(res.text.contains("route=\"/api/v1/customers/me\""));
    assert!(res.text.contains("http_request_duration_seconds_bucket{"));
}

#[tokio::test]
async fn openapi_document_lists_every_route_with_its_errors() {
    let app = TestApp::spawn().await;
    let res = app.get("/api/openapi.json").send().await;
    res.assert_status(200);
    assert!(
        res.body["openapi"]
            .as_str()
            .is_some_and(|v| v.starts_with("3.1"))
    );
    let paths = res.body["paths"].as_object().cloned().unwrap_or_default();
    for (path, method) in [
        ("/api/auth/login", "post"),
        ("/api/v1/admin/users", "get"),
        ("/api/v1/admin/users", "post"),
        ("/api/v1/admin/users/{id}", "get"),
        ("/api/v1/admin/users/{id}", "patch"),
        ("/api/v1/admin/users/{id}", "delete"),
        ("/api/v1/customers/register", "post"),
        ("/api/v1/customers/login", "post"),
        ("/api/v1/customers/me", "get"),
        ("/api/v1/customers/me", "patch"),
        ("/healthz", "get"),
        ("/readyz", "get"),
        ("/metrics", "get"),
        ("/api/openapi.json", "get"),
    ] {
        assert!(
            paths.get(path).and_then(|p| p.get(method)).is_some(),
            "{method} {path} undocumented"
        );
    }
    assert_eq!(
        res.body["paths"]["/api/v1/customers/register"]["post"]["responses"]["409"]["description"],
        "EMAIL_EXISTS"
    );
    assert!(res.body["components"]["securitySchemes"]["bearer"].is_object());
}

#[tokio::test]
async fn interactive_docs_are_served_without_the_network() {
    let app = TestApp::spawn().await;
    let res = app.get("/docs/").send().await;
    res.assert_status(200);
    assert!(
        res.text.contains("<html") || res.text.contains("<!DOCTYPE html"),
        "{}",
        res.text
    );
    let init = app.get("/docs/swagger-initializer.js").send().await;
    init.assert_status(200);
    assert!(init.text.contains("/api/openapi.json"));
    assert!(!init.text.contains("https://"), "no external assets");
    app.get("/docs/swagger-ui-bundle.js")
        .send()
        .await
        .assert_status(200);
}
