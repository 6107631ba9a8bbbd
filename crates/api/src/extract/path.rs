//! Path parameters pass the text rule (`kairos_domain::text`) like every other string of a
//! request, on every route, before any handler reads them: a NUL or an escape sequence in
//! a path is a 400 naming the parameter on both databases (PostgreSQL cannot store or
//! compare NUL), never a 500.

use crate::error::ApiError;
use axum::extract::rejection::RawPathParamsRejection;
use axum::extract::{RawPathParams, Request};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use kairos_domain::FieldErrors;
use kairos_domain::text::{TextKind, check_text};

/// Middleware of every route (added with its rate limit tier): the route's path
/// parameters, percent-decoded, are one line of UTF-8 text each (bytes that are not UTF-8
/// are a 400 in the error shape too, not the router's plain-text rejection).
pub async fn check_path_params(
    params: Result<RawPathParams, RawPathParamsRejection>,
    req: Request,
    next: Next,
) -> Response {
    if let Err(RawPathParamsRejection::InvalidUtf8InPathParam(_)) = params {
        return ApiError::invalid_field("path", "must be UTF-8 text once percent-decoded")
            .into_response();
    }
    if let Ok(params) = params {
        let mut errors = FieldErrors::new();
        for (name, value) in &params {
            if let Err(message) = check_text(value, TextKind::Line) {
                errors.add(name, message);
            }
        }
        if !errors.is_empty() {
            return ApiError::validation(errors).into_response();
        }
    }
    next.run(req).await
}
