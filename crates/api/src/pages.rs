//! The pages for people, served as files embedded in the binary from `web/ui/` (read from
//! the source tree at run time in debug builds, so a page edit needs no rebuild):
//!
//! - `/admin` and every path under it: the staff console (`admin.html`; the page routes
//!   on the client);
//! - `/book/{tenantId}` and every path under it: the booking widget (`book.html`), which
//!   the venue embeds in its own site with an iframe;
//! - `/ui/…`: the pages' scripts, styles and the vendored UI library.
//!
//! The pages are clients of the public HTTP API and nothing else. Every answer carries a
//! content security policy that allows scripts, styles and requests from this origin,
//! and besides them only the card provider's browser library (`KAIROS_CARDPAY_JS_URL`,
//! Stripe.js by default), its frames and its API, for a venue's own card account; the
//! console may not be framed, the widget may be framed by any site.

use crate::error::ApiError;
use axum::Router;
use axum::extract::Path;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use rust_embed::Embed;
use std::sync::Arc;
use tower_http::compression::CompressionLayer;

#[derive(Embed)]
#[folder = "../../web/ui"]
struct Ui;

/// The origins Stripe.js needs besides its own (Stripe's published content security
/// policy): its frames' hosts.
const STRIPE_FRAMES: &str = "https://*.js.stripe.com https://hooks.stripe.com";

/// Sources allowed to the pages: this origin (the API and the sandbox card form are
/// same-origin), the card provider's browser library from `card_script`'s origin, its
/// frames, and the provider's API at `card_api`.
pub fn content_policy(card_script: &str, card_api: &str) -> String {
    let origin = |url: &str| {
        reqwest::Url::parse(url)
            .ok()
            .map(|u| u.origin().ascii_serialization())
            .filter(|o| o != "null")
    };
    let script = origin(card_script);
    let api = origin(card_api);
    let sources = |first: &str, more: &[Option<&str>]| {
        std::iter::once(first)
            .chain(more.iter().flatten().copied())
            .collect::<Vec<_>>()
            .join(" ")
    };
    let script = script.as_deref();
    let stripe = (script == Some("https://js.stripe.com")).then_some(STRIPE_FRAMES);
    // This origin too: the console previews the widget in a frame.
    let frames = sources("'self'", &[script, stripe]);
    format!(
        "default-src 'self'; script-src {}; style-src 'self'; img-src {}; \
         connect-src {}; frame-src {frames}; object-src 'none'; base-uri 'none'; \
         form-action 'self'",
        sources("'self'", &[script]),
        sources("'self' data:", &[script]),
        sources("'self'", &[script, api.as_deref()]),
    )
}

/// Who may frame a page.
#[derive(Clone, Copy)]
enum Framing {
    /// The console: nobody (clickjacking).
    Never,
    /// The widget: any site, the venue's own.
    Anyone,
}

/// The pages' routes under `policy` (see [`content_policy`]), each answer compressed
/// when the client accepts gzip.
pub fn routes<S: Clone + Send + Sync + 'static>(policy: &str) -> Router<S> {
    let policy: Arc<str> = policy.into();
    let (p1, p2, p3) = (policy.clone(), policy.clone(), policy);
    let console = move |headers: HeaderMap| {
        let policy = p1.clone();
        async move { file("admin.html", &headers, &policy, Framing::Never) }
    };
    let widget = move |headers: HeaderMap| {
        let policy = p2.clone();
        async move { file("book.html", &headers, &policy, Framing::Anyone) }
    };
    let asset = move |Path(path): Path<String>, headers: HeaderMap| {
        let policy = p3.clone();
        async move {
            if path.ends_with(".html") {
                return ApiError::not_found("File").into_response();
            }
            file(&path, &headers, &policy, Framing::Never)
        }
    };
    Router::new()
        .route("/admin", get(console.clone()))
        .route("/admin/", get(console.clone()))
        .route("/admin/{*rest}", get(console))
        .route("/book/{tenant}", get(widget.clone()))
        .route("/book/{tenant}/", get(widget.clone()))
        .route("/book/{tenant}/{*rest}", get(widget))
        .route("/ui/{*path}", get(asset))
        .layer(CompressionLayer::new())
}

/// One embedded file with its type, an `ETag` (its SHA-256) and `Cache-Control:
/// no-cache`: the browser keeps it and asks again each time, answered 304 while the file
/// is the same, so a new release is seen at once.
fn file(path: &str, headers: &HeaderMap, policy: &str, framing: Framing) -> Response {
    let Some(content) = Ui::get(path) else {
        return ApiError::not_found("File").into_response();
    };
    let etag = format!("\"{}\"", hex::encode(content.metadata.sha256_hash()));
    let frame = match framing {
        Framing::Never => "frame-ancestors 'none'",
        Framing::Anyone => "frame-ancestors *",
    };
    let mut out = HeaderMap::new();
    if let Ok(v) = HeaderValue::from_str(&etag) {
        out.insert(header::ETAG, v);
    }
    out.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    if let Ok(v) = HeaderValue::from_str(&format!("{policy}; {frame}")) {
        out.insert(header::CONTENT_SECURITY_POLICY, v);
    }
    out.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    out.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("same-origin"),
    );
    if crate::etag::unchanged(headers, &etag) {
        return (StatusCode::NOT_MODIFIED, out).into_response();
    }
    let mime = content.metadata.mimetype();
    let mime = match mime {
        // ES modules need a JavaScript type; mime_guess knows .mjs as such too.
        "application/javascript" | "text/javascript" => "text/javascript; charset=utf-8",
        "text/html" => "text/html; charset=utf-8",
        "text/css" => "text/css; charset=utf-8",
        other => other,
    };
    if let Ok(v) = HeaderValue::from_str(mime) {
        out.insert(header::CONTENT_TYPE, v);
    }
    (out, content.data.into_owned()).into_response()
}
