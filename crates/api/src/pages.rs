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
//! content security policy that allows scripts, styles and requests from this origin
//! only; the console may not be framed, the widget may be framed by any site.

use crate::error::ApiError;
use axum::Router;
use axum::extract::Path;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use rust_embed::Embed;
use tower_http::compression::CompressionLayer;

#[derive(Embed)]
#[folder = "../../web/ui"]
struct Ui;

/// Sources allowed to the pages: this origin only (the sandbox card form included); the
/// API is same-origin.
const CSP_BASE: &str = "default-src 'self'; script-src 'self'; style-src 'self'; \
     img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; \
     form-action 'self'";

/// Who may frame a page.
#[derive(Clone, Copy)]
enum Framing {
    /// The console: nobody (clickjacking).
    Never,
    /// The widget: any site, the venue's own.
    Anyone,
}

/// The pages' routes, each answer compressed when the client accepts gzip.
pub fn routes<S: Clone + Send + Sync + 'static>() -> Router<S> {
    Router::new()
        .route("/admin", get(console))
        .route("/admin/", get(console))
        .route("/admin/{*rest}", get(console))
        .route("/book/{tenant}", get(widget))
        .route("/book/{tenant}/", get(widget))
        .route("/book/{tenant}/{*rest}", get(widget))
        .route("/ui/{*path}", get(asset))
        .layer(CompressionLayer::new())
}

async fn console(headers: HeaderMap) -> Response {
    file("admin.html", &headers, Framing::Never)
}

async fn widget(headers: HeaderMap) -> Response {
    file("book.html", &headers, Framing::Anyone)
}

async fn asset(Path(path): Path<String>, headers: HeaderMap) -> Response {
    if path.ends_with(".html") {
        return ApiError::not_found("File").into_response();
    }
    file(&path, &headers, Framing::Never)
}

/// One embedded file with its type, an `ETag` (its SHA-256) and `Cache-Control:
/// no-cache`: the browser keeps it and asks again each time, answered 304 while the file
/// is the same, so a new release is seen at once.
fn file(path: &str, headers: &HeaderMap, framing: Framing) -> Response {
    let Some(content) = Ui::get(path) else {
        return ApiError::not_found("File").into_response();
    };
    let etag = format!("\"{}\"", hex(&content.metadata.sha256_hash()));
    let frame = match framing {
        Framing::Never => "frame-ancestors 'none'",
        Framing::Anyone => "frame-ancestors *",
    };
    let mut out = HeaderMap::new();
    if let Ok(v) = HeaderValue::from_str(&etag) {
        out.insert(header::ETAG, v);
    }
    out.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    if let Ok(v) = HeaderValue::from_str(&format!("{CSP_BASE}; {frame}")) {
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
    let unchanged = headers
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.split(',').any(|t| t.trim() == etag));
    if unchanged {
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

fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write;
    bytes.iter().fold(String::new(), |mut s, b| {
        let _ = write!(s, "{b:02x}");
        s
    })
}
