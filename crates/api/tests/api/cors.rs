//! Cross-origin access: browsers on configured origins may call the API, preflight
//! included; without configuration nothing is allowed cross-origin.

use kairos_api::cors::CorsOrigins;
use kairos_api::rate_limit::Limits;
use kairos_testkit::{TestApp, TestResponse};

const SHOP: &str = "https://shop.example";

async fn app_allowing(origins: &str) -> TestApp {
    let origins = CorsOrigins::parse(origins).unwrap_or_else(|e| panic!("{e}"));
    TestApp::builder().cors(origins).spawn().await
}

/// The comma-separated values of a response header, lower-cased.
fn listed(res: &TestResponse, name: &str) -> Vec<String> {
    res.header(name)
        .unwrap_or_default()
        .split(',')
        .map(|v| v.trim().to_ascii_lowercase())
        .filter(|v| !v.is_empty())
        .collect()
}

async fn preflight(app: &TestApp, origin: &str, method: &str, headers: &str) -> TestResponse {
    app.options("/api/v1/bookings/hold")
        .header("origin", origin)
        .header("access-control-request-method", method)
        .header("access-control-request-headers", headers)
        .send()
        .await
}

#[tokio::test]
async fn a_preflight_from_an_allowed_origin_is_answered_with_what_the_api_accepts() {
    let app = app_allowing("https://other.example, https://shop.example").await;
    let res = preflight(
        &app,
        SHOP,
        "POST",
        "content-type,idempotency-key,x-tenant-id",
    )
    .await;
    assert!(res.status.is_success(), "preflight answered {}", res.status);
    assert_eq!(res.header("access-control-allow-origin"), Some(SHOP));
    let methods = listed(&res, "access-control-allow-methods");
    for method in ["get", "post", "patch", "delete"] {
        assert!(methods.contains(&method.to_owned()), "{methods:?}");
    }
    let headers = listed(&res, "access-control-allow-headers");
    for header in [
        "content-type",
        "authorization",
        "x-tenant-id",
        "x-booking-token",
        "idempotency-key",
        "x-request-id",
    ] {
        assert!(headers.contains(&header.to_owned()), "{headers:?}");
    }
    assert!(res.header("access-control-max-age").is_some());
    assert!(res.header("access-control-allow-credentials").is_none());
    // Preflights are traced like any request.
    assert!(res.header("x-request-id").is_some());
}

#[tokio::test]
async fn preflights_are_answered_before_the_rate_limits() {
    let origins = CorsOrigins::parse(SHOP).unwrap_or_else(|e| panic!("{e}"));
    let app = TestApp::builder()
        .cors(origins)
        .limits(Limits {
            strict: 1,
            standard: 1,
            relaxed: 1,
            ..Limits::default()
        })
        .spawn()
        .await;
    for _ in 0..3 {
        let res = preflight(&app, SHOP, "POST", "content-type").await;
        assert!(res.status.is_success(), "preflight answered {}", res.status);
    }
    // The one request of the standard tier is still there for the real call.
    let res = app
        .post("/api/v1/bookings/hold")
        .header("origin", SHOP)
        .send()
        .await;
    assert_ne!(res.status.as_u16(), 429, "{}", res.text);
    assert_eq!(res.header("x-ratelimit-remaining"), Some("0"));
}

#[tokio::test]
async fn responses_to_an_allowed_origin_expose_the_request_id_and_rate_limit_headers() {
    let app = app_allowing(SHOP).await;
    let res = app.get("/healthz").header("origin", SHOP).send().await;
    res.assert_status(200);
    assert_eq!(res.header("access-control-allow-origin"), Some(SHOP));
    let exposed = listed(&res, "access-control-expose-headers");
    for header in [
        "x-request-id",
        "x-ratelimit-limit",
        "x-ratelimit-remaining",
        "x-ratelimit-reset",
        "retry-after",
    ] {
        assert!(exposed.contains(&header.to_owned()), "{exposed:?}");
    }
    // Errors are readable cross-origin too.
    let res = app
        .get("/api/v1/customers/me")
        .header("origin", SHOP)
        .send()
        .await;
    assert!(res.status.is_client_error(), "{}", res.status);
    assert_eq!(res.header("access-control-allow-origin"), Some(SHOP));
}

#[tokio::test]
async fn another_origin_gets_no_access() {
    let app = app_allowing(SHOP).await;
    let res = preflight(&app, "https://evil.example", "POST", "content-type").await;
    assert!(res.header("access-control-allow-origin").is_none());
    let res = app
        .get("/healthz")
        .header("origin", "https://evil.example")
        .send()
        .await;
    res.assert_status(200);
    assert!(res.header("access-control-allow-origin").is_none());
    // An origin differing only by scheme or port is another origin.
    for origin in ["http://shop.example", "https://shop.example:8443"] {
        let res = app.get("/healthz").header("origin", origin).send().await;
        assert!(
            res.header("access-control-allow-origin").is_none(),
            "{origin}"
        );
    }
}

#[tokio::test]
async fn by_default_there_is_no_cross_origin_access() {
    let app = TestApp::spawn().await;
    let res = preflight(&app, SHOP, "POST", "content-type").await;
    res.assert_error(405, "METHOD_NOT_ALLOWED");
    let res = app.get("/healthz").header("origin", SHOP).send().await;
    res.assert_status(200);
    let cors_headers: Vec<_> = res
        .headers
        .keys()
        .filter(|name| name.as_str().starts_with("access-control-"))
        .collect();
    assert!(cors_headers.is_empty(), "{cors_headers:?}");
}

#[tokio::test]
async fn a_wildcard_allows_every_origin() {
    let app = app_allowing("*").await;
    for origin in [SHOP, "http://localhost:5173"] {
        let res = preflight(&app, origin, "POST", "content-type,authorization").await;
        assert!(res.status.is_success(), "preflight answered {}", res.status);
        assert_eq!(res.header("access-control-allow-origin"), Some("*"));
        let res = app.get("/healthz").header("origin", origin).send().await;
        assert_eq!(res.header("access-control-allow-origin"), Some("*"));
    }
}
