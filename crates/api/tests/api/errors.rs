use kairos_api::rate_limit::Limits;
use kairos_testkit::TestApp;
use serde_json::json;

#[tokio::test]
async fn malformed_json_is_a_400_with_its_position() {
    let app = TestApp::spawn().await;
    app.tenant("acme").await;
    let res = app
        .post("/api/v1/customers/register")
        .tenant("acme")
        .header("content-type", "application/json")
        .raw("{\"email\": \"a@b.co\",")
        .send()
        .await;
    res.assert_error(400, "VALIDATION_ERROR");
    assert!(
        res.body["message"]
            .as_str()
            .unwrap_or_default()
            .starts_with("Malformed JSON")
    );
    assert!(res.body["details"]["line"].is_number());
}

#[tokio::test]
async fn wrong_types_and_bad_bodies_name_every_field() {
    let app = TestApp::builder()
        .limits(Limits {
            strict: 100,
            ..Limits::default()
        })
        .spawn()
        .await;
    app.tenant("acme").await;
    let res = app
        .post("/api/v1/customers/register")
        .tenant("acme")
        .json(json!({"email": 42, "password": ["x"], "termsAccepted": "yes", "privacyPolicyAccepted": 1}))
        .send()
        .await;
    res.assert_error(400, "VALIDATION_ERROR");
    assert_eq!(
        res.error_fields(),
        [
            "email",
            "password",
            "termsAccepted",
            "privacyPolicyAccepted"
        ]
    );

    for body in ["[]", "\"text\"", "42", "null"] {
        let res = app
            .post("/api/v1/customers/register")
            .tenant("acme")
            .header("content-type", "application/json")
            .raw(body)
            .send()
            .await;
        res.assert_error(400, "VALIDATION_ERROR");
    }
    app.post("/api/v1/customers/register")
        .tenant("acme")
        .send()
        .await
        .assert_error(400, "VALIDATION_ERROR");
}

#[tokio::test]
async fn non_json_content_type_is_refused() {
    let app = TestApp::spawn().await;
    app.tenant("acme").await;
    app.post("/api/v1/customers/login")
        .tenant("acme")
        .header("content-type", "text/plain")
        .raw("email=a")
        .send()
        .await
        .assert_error(415, "UNSUPPORTED_MEDIA_TYPE");
}

#[tokio::test]
async fn oversized_bodies_are_refused() {
    let app = TestApp::spawn().await;
    app.tenant("acme").await;
    let big = format!("{{\"email\": \"{}\"}}", "a".repeat(2 * 1024 * 1024));
    app.post("/api/v1/customers/register")
        .tenant("acme")
        .header("content-type", "application/json")
        .raw(big)
        .send()
        .await
        .assert_error(413, "PAYLOAD_TOO_LARGE");
}

#[tokio::test]
async fn unknown_routes_and_methods_answer_in_the_error_shape() {
    let app = TestApp::spawn().await;
    app.get("/api/v1/nothing-here")
        .send()
        .await
        .assert_error(404, "NOT_FOUND");
    app.put("/api/v1/customers/me")
        .send()
        .await
        .assert_error(405, "METHOD_NOT_ALLOWED");
}

#[tokio::test]
async fn odd_headers_never_cause_a_server_error() {
    let app = TestApp::spawn().await;
    app.tenant("acme").await;
    let long = "t".repeat(5000);
    app.get("/api/v1/customers/me")
        .tenant(&long)
        .send()
        .await
        .assert_error(404, "NOT_FOUND");
    app.get("/api/v1/customers/me")
        .tenant("acme")
        .header("authorization", "Bearer")
        .send()
        .await
        .assert_error(401, "UNAUTHORIZED");
    app.get("/api/v1/customers/me")
        .tenant("acme")
        .token("eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln")
        .send()
        .await
        .assert_error(401, "UNAUTHORIZED");
}
