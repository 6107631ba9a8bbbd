//! Reads every request body in full before any handler runs.
//!
//! A handler that answers early (401, 403, 429 before the body is needed) would otherwise
//! leave the body unread, and the connection could not carry the next request. Reading it
//! here, within a time and a size bound, keeps kept-alive connections usable and turns a
//! slow or oversized upload into a clear answer:
//!
//! - `Content-Length` over the limit: 413 `PAYLOAD_TOO_LARGE` at once, nothing read;
//! - a body that grows past the limit as it arrives (chunked): 413 when it does;
//! - a body not complete within the body timeout: 408 `REQUEST_TIMEOUT`.
//!
//! Those answers carry `Connection: close`, since the rest of the body is never read.
//!
//! The CSV import routes take up to 10 MB (spec Part A 4.9); every other route the
//! configured limit.

use crate::error::{ApiError, code};
use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use http_body_util::{BodyExt, LengthLimitError, Limited};
use std::time::Duration;

/// The bounds of [`read_body`].
#[derive(Debug, Clone, Copy)]
pub struct BodyLimits {
    /// Largest accepted body, in bytes.
    pub max_bytes: usize,
    /// Time the whole body has to arrive in.
    pub read_timeout: Duration,
}

/// Middleware: buffers the request body within [`BodyLimits`].
pub async fn read_body(State(limits): State<BodyLimits>, req: Request, next: Next) -> Response {
    let mut limits = limits;
    if is_upload(req.uri().path()) {
        limits.max_bytes = limits.max_bytes.max(UPLOAD_MAX_BYTES);
    }
    let announced = req
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if announced.is_some_and(|n| n > limits.max_bytes as u64) {
        return closing(too_large(limits.max_bytes));
    }
    let (parts, body) = req.into_parts();
    let read = Limited::new(body, limits.max_bytes).collect();
    let bytes = match tokio::time::timeout(limits.read_timeout, read).await {
        Ok(Ok(collected)) => collected.to_bytes(),
        Ok(Err(e)) if e.downcast_ref::<LengthLimitError>().is_some() => {
            return closing(too_large(limits.max_bytes));
        }
        Ok(Err(e)) => {
            return closing(ApiError::new(
                StatusCode::BAD_REQUEST,
                code::VALIDATION_ERROR,
                format!("The request body could not be read: {e}"),
            ));
        }
        Err(_) => {
            return closing(ApiError::new(
                StatusCode::REQUEST_TIMEOUT,
                code::REQUEST_TIMEOUT,
                format!(
                    "The request body did not arrive within {} seconds; send it in one go \
                     and retry",
                    limits.read_timeout.as_secs_f64()
                ),
            ));
        }
    };
    next.run(Request::from_parts(parts, Body::from(bytes)))
        .await
}

/// The body limit of the CSV imports: the 10 MB file and its multipart framing. The import
/// itself refuses a file over 10 MB.
const UPLOAD_MAX_BYTES: usize = crate::import::MAX_FILE_BYTES + 64 * 1024;

/// The CSV import routes (`…/import`, `…/import/preview`), which take files up to 10 MB.
fn is_upload(path: &str) -> bool {
    path.starts_with("/api/v1/admin/")
        && (path.ends_with("/import") || path.ends_with("/import/preview"))
}

fn too_large(max_bytes: usize) -> ApiError {
    ApiError::new(
        StatusCode::PAYLOAD_TOO_LARGE,
        code::PAYLOAD_TOO_LARGE,
        format!("The request body is larger than the limit of {max_bytes} bytes"),
    )
}

fn closing(error: ApiError) -> Response {
    let mut response = error.into_response();
    response
        .headers_mut()
        .insert(header::CONNECTION, HeaderValue::from_static("close"));
    response
}
