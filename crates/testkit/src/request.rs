//! A small request builder over the in-process router, and assertions on responses.

use crate::TestApp;
use axum::body::Body;
use http::{HeaderMap, Method, Request, StatusCode};
use http_body_util::BodyExt;
use kairos_api::operations::RouteTemplate;
use serde_json::Value;
use tower::ServiceExt;

pub struct TestRequest<'a> {
    app: &'a TestApp,
    method: Method,
    path: String,
    headers: Vec<(String, String)>,
    body: Option<Vec<u8>>,
    /// A 5xx is the answer under test (REFUND_FAILED, a webhook the provider retries).
    server_error_expected: bool,
}

impl<'a> TestRequest<'a> {
    pub(crate) fn new(app: &'a TestApp, method: Method, path: &str) -> Self {
        Self {
            app,
            method,
            path: path.to_owned(),
            headers: Vec::new(),
            body: None,
            server_error_expected: false,
        }
    }

    /// Lets the answer be a 5xx (otherwise any 5xx but 503 fails the test).
    pub fn expect_server_error(mut self) -> Self {
        self.server_error_expected = true;
        self
    }

    pub fn tenant(self, tenant: &str) -> Self {
        self.header("x-tenant-id", tenant)
    }

    pub fn token(self, token: &str) -> Self {
        self.header("authorization", &format!("Bearer {token}"))
    }

    pub fn header(mut self, name: &str, value: &str) -> Self {
        self.headers.push((name.to_owned(), value.to_owned()));
        self
    }

    pub fn json(mut self, body: Value) -> Self {
        self.body = Some(body.to_string().into_bytes());
        self.header("content-type", "application/json")
    }

    /// A raw body, sent as JSON unless a content type header says otherwise.
    pub fn raw(mut self, body: impl Into<Vec<u8>>) -> Self {
        self.body = Some(body.into());
        self
    }

    pub async fn send(self) -> TestResponse {
        let mut builder = Request::builder()
            .method(self.method.clone())
            .uri(&self.path);
        for (k, v) in &self.headers {
            builder = builder.header(k, v);
        }
        let request = builder
            .body(self.body.map(Body::from).unwrap_or_else(Body::empty))
            .unwrap_or_else(|e| panic!("bad test request: {e}"));
        let response = self
            .app
            .router
            .clone()
            .oneshot(request)
            .await
            .unwrap_or_else(|e| panic!("router failed: {e}"));
        if let Some(RouteTemplate(route)) = response.extensions().get::<RouteTemplate>()
            && response.status() != StatusCode::METHOD_NOT_ALLOWED
        {
            assert_documented(&self.method, route);
        }
        let status = response.status();
        let headers = response.headers().clone();
        let bytes = response
            .into_body()
            .collect()
            .await
            .map(|b| b.to_bytes())
            .unwrap_or_default();
        let text = String::from_utf8_lossy(&bytes).into_owned();
        let body = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
        assert!(
            !status.is_server_error()
                || status == StatusCode::SERVICE_UNAVAILABLE
                || self.server_error_expected,
            "{} {} answered {status}: {text}",
            self.method,
            self.path
        );
        TestResponse {
            status,
            headers,
            body,
            text,
        }
    }
}

/// Every route a test reaches must be in the OpenAPI document with its method (but the
/// Swagger UI, the pages for people and the sandbox provider, which stands in for Stripe
/// and is not Kairos' API).
fn assert_documented(method: &Method, route: &str) {
    let pages = ["/admin", "/book/", "/ui/"];
    if route.starts_with("/docs")
        || route.starts_with("/sandbox/")
        || pages.iter().any(|p| route.starts_with(p))
    {
        return;
    }
    let doc = kairos_api::openapi();
    let item = doc
        .paths
        .paths
        .get(route)
        .unwrap_or_else(|| panic!("route {route} is not in the OpenAPI document"));
    let documented = match *method {
        Method::GET => item.get.is_some(),
        Method::POST => item.post.is_some(),
        Method::PUT => item.put.is_some(),
        Method::PATCH => item.patch.is_some(),
        Method::DELETE => item.delete.is_some(),
        _ => true,
    };
    assert!(
        documented,
        "{method} {route} is not in the OpenAPI document"
    );
}

/// A response with its body parsed as JSON (`Null` when it is not JSON).
#[derive(Debug)]
pub struct TestResponse {
    pub status: StatusCode,
    pub headers: HeaderMap,
    pub body: Value,
    pub text: String,
}

impl TestResponse {
    #[track_caller]
    pub fn assert_status(&self, expected: u16) -> &Self {
        assert_eq!(
            self.status.as_u16(),
            expected,
            "unexpected status; body: {}",
            self.text
        );
        self
    }

    /// Asserts a shape A error with this status and code.
    #[track_caller]
    pub fn assert_error(&self, status: u16, code: &str) -> &Self {
        self.assert_status(status);
        assert_eq!(self.body["error"], code, "body: {}", self.text);
        assert_eq!(self.body["code"], status, "body: {}", self.text);
        assert!(
            self.body["message"].as_str().is_some_and(|m| !m.is_empty()),
            "body: {}",
            self.text
        );
        self
    }

    /// The fields named by a validation error's `details.errors`.
    /// The fields a validation failure names: `details.errors` (shape A) or `errors`
    /// (shape B).
    pub fn error_fields(&self) -> Vec<String> {
        let errors = match &self.body["errors"] {
            serde_json::Value::Array(_) => &self.body["errors"],
            _ => &self.body["details"]["errors"],
        };
        errors
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|e| e["field"].as_str().map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default()
    }

    #[track_caller]
    pub fn str(&self, pointer: &str) -> &str {
        let p = if pointer.starts_with('/') {
            pointer.to_owned()
        } else {
            format!("/{pointer}")
        };
        self.body
            .pointer(&p)
            .and_then(Value::as_str)
            .unwrap_or_else(|| panic!("no string at {pointer} in {}", self.text))
    }

    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }
}
