//! API errors and their rendering (spec Part A section 7).
//!
//! Shape A `{error, message, code, details?}` is the default; shape B
//! `{statusCode, message, error}` is used for rate limiting (plus `retryAfter`) and by the
//! notification endpoints (plus `errors[] {field, message}` for validation, spec Part B 7):
//! an error turns into shape B with [`ApiError::shape_b`].
//! A 5xx body never carries internals: the cause is logged once, with the request id.

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use kairos_domain::FieldErrors;
use kairos_store::StoreError;
use serde::Serialize;
use serde_json::Value;
use utoipa::ToSchema;

/// The spec's error codes: one definition, the application layer's.
pub use kairos_app::code;

/// Error body shape A.
#[derive(Debug, Serialize, ToSchema)]
pub struct ErrorBody {
    /// Machine-readable code, for example `VALIDATION_ERROR`.
    #[schema(example = "VALIDATION_ERROR")]
    pub error: String,
    /// Human-readable explanation.
    pub message: String,
    /// The HTTP status.
    #[schema(example = 400)]
    pub code: u16,
    /// Extra facts; validation failures list every bad field in `details.errors`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub details: Option<Value>,
}

/// Error body shape B, used for 429 responses.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RateLimitedBody {
    #[schema(example = 429)]
    pub status_code: u16,
    pub message: String,
    /// Seconds until the window resets.
    pub retry_after: u64,
}

/// Error body shape B of the notification endpoints.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ShapeBBody {
    /// The HTTP status.
    #[schema(example = 400)]
    pub status_code: u16,
    pub message: String,
    /// The HTTP reason phrase, for example `Bad Request`.
    #[schema(example = "Bad Request")]
    pub error: String,
    /// Every bad field of a validation failure.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub errors: Option<Vec<FieldProblem>>,
    /// The machine-readable code, as `error` of shape A (for example `VALIDATION_ERROR`,
    /// `NOT_FOUND`, `TENANT_MISMATCH`).
    #[schema(example = "VALIDATION_ERROR")]
    pub error_code: String,
}

/// One bad field of a shape B validation failure.
#[derive(Debug, Serialize, serde::Deserialize, ToSchema)]
pub struct FieldProblem {
    /// The field as the client sent it.
    pub field: String,
    pub message: String,
}

/// A failed request, rendered as shape A (or B after [`ApiError::shape_b`]).
#[derive(Debug)]
pub struct ApiError {
    pub status: StatusCode,
    pub code: &'static str,
    pub message: String,
    pub details: Option<Box<Value>>,
    /// Seconds for the `Retry-After` header (a 503 that passes soon).
    pub retry_after: Option<u64>,
    /// Logged, never sent.
    pub(crate) source: Option<Box<str>>,
    /// Rendered as shape B.
    pub(crate) shape_b: bool,
}

pub type ApiResult<T> = Result<T, ApiError>;

impl ApiError {
    pub fn new(status: StatusCode, code: &'static str, message: impl Into<String>) -> Self {
        Self {
            status,
            code,
            message: message.into(),
            details: None,
            retry_after: None,
            source: None,
            shape_b: false,
        }
    }

    /// The same error in shape B (`{statusCode, message, error, errors?}`).
    pub fn shape_b(mut self) -> Self {
        self.shape_b = true;
        self
    }

    pub fn with_details(mut self, details: Value) -> Self {
        self.details = Some(Box::new(details));
        self
    }

    /// 503 `SERVICE_UNAVAILABLE` that passes soon: the client retries after `seconds`.
    pub fn busy(message: impl Into<String>, seconds: u64) -> Self {
        let mut e = Self::new(
            StatusCode::SERVICE_UNAVAILABLE,
            code::SERVICE_UNAVAILABLE,
            message,
        );
        e.retry_after = Some(seconds);
        e
    }

    /// 400 `VALIDATION_ERROR` naming every bad field (the application layer's rule).
    pub fn validation(errors: FieldErrors) -> Self {
        kairos_app::AppError::from(kairos_app::Failure::validation(errors)).into()
    }

    /// 400 `VALIDATION_ERROR` for one field.
    pub fn invalid_field(field: &str, message: impl Into<String>) -> Self {
        kairos_app::AppError::from(kairos_app::Failure::invalid_field(field, message)).into()
    }

    pub fn not_found(what: &str) -> Self {
        kairos_app::AppError::from(kairos_app::Failure::not_found(what)).into()
    }

    pub fn unauthorized(message: impl Into<String>) -> Self {
        Self::new(StatusCode::UNAUTHORIZED, code::UNAUTHORIZED, message)
    }

    pub fn forbidden(message: impl Into<String>) -> Self {
        Self::new(
            StatusCode::FORBIDDEN,
            code::INSUFFICIENT_PERMISSIONS,
            message,
        )
    }

    pub fn conflict(code: &'static str, message: impl Into<String>) -> Self {
        Self::new(StatusCode::CONFLICT, code, message)
    }

    /// 500 with a generic body; `cause` goes to the log only.
    #[track_caller]
    pub fn internal(cause: impl std::fmt::Display) -> Self {
        let location = std::panic::Location::caller();
        Self {
            status: StatusCode::INTERNAL_SERVER_ERROR,
            code: code::INTERNAL_ERROR,
            message: "An internal error occurred; it has been logged".to_owned(),
            details: None,
            retry_after: None,
            source: Some(format!("{cause} (at {location})").into_boxed_str()),
            shape_b: false,
        }
    }
}

impl From<StoreError> for ApiError {
    #[track_caller]
    fn from(e: StoreError) -> Self {
        if e.gave_way() {
            // Another change met this one and the database gave this one up: nothing of
            // it was written, and the same request again may well succeed.
            let mut conflict = ApiError::conflict(
                code::CONFLICT,
                "Another change to the same records was made at the same moment; nothing was changed: send the request again",
            );
            conflict.retry_after = Some(1);
            return conflict;
        }
        ApiError::internal(e)
    }
}

/// A use case's refusal: store refusals through their area's table, the layer's own
/// failures as they are.
impl From<kairos_app::AppError> for ApiError {
    #[track_caller]
    fn from(e: kairos_app::AppError) -> Self {
        use kairos_app::AppError;
        match e {
            AppError::Booking(e) => e.into(),
            AppError::Payments(e) => e.into(),
            AppError::Voucher(e) => e.into(),
            AppError::Fee(e) => e.into(),
            AppError::Issue(e) => e.into(),
            AppError::Group(e) => e.into(),
            AppError::Store(e) => e.into(),
            AppError::Failure(f) => ApiError {
                status: f.status,
                code: f.code,
                message: f.message,
                details: f.details,
                retry_after: f.retry_after,
                source: f.cause,
                shape_b: false,
            },
        }
    }
}

impl ApiError {
    /// The body as JSON text, in the error's shape (stored for idempotent replays).
    pub fn body_text(&self) -> String {
        if self.shape_b {
            return serde_json::to_string(&self.shape_b_body()).unwrap_or_default();
        }
        let body = ErrorBody {
            error: self.code.to_owned(),
            message: self.message.clone(),
            code: self.status.as_u16(),
            details: self.details.as_deref().cloned(),
        };
        serde_json::to_string(&body).unwrap_or_default()
    }

    /// The shape B body: `errors[]` from `details.errors`.
    fn shape_b_body(&self) -> ShapeBBody {
        let errors = self
            .details
            .as_deref()
            .and_then(|d| d.get("errors").cloned())
            .and_then(|e| serde_json::from_value(e).ok());
        ShapeBBody {
            status_code: self.status.as_u16(),
            message: self.message.clone(),
            error: self.status.canonical_reason().unwrap_or("Error").to_owned(),
            errors,
            error_code: self.code.to_owned(),
        }
    }
}

impl std::fmt::Display for ApiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} {}: {}",
            self.status.as_u16(),
            self.code,
            self.message
        )
    }
}

/// An error answer as rendered, kept on the response so that [`shape_b_errors`] can
/// render it again in shape B.
#[derive(Debug, Clone)]
struct Rendered {
    code: &'static str,
    message: String,
    details: Option<Value>,
}

/// Middleware of the notification endpoints (spec Part B 7): every error answer of the
/// routes it wraps, extractor rejections and authentication included, in shape B.
pub async fn shape_b_errors(req: axum::extract::Request, next: axum::middleware::Next) -> Response {
    let response = next.run(req).await;
    let Some(rendered) = response.extensions().get::<Rendered>().cloned() else {
        return response;
    };
    let (parts, _) = response.into_parts();
    let mut again = ApiError {
        status: parts.status,
        code: rendered.code,
        message: rendered.message,
        details: rendered.details.map(Box::new),
        retry_after: None,
        source: None,
        shape_b: true,
    }
    .into_response();
    for (name, value) in &parts.headers {
        if name != header::CONTENT_TYPE && name != header::CONTENT_LENGTH {
            again.headers_mut().insert(name.clone(), value.clone());
        }
    }
    again
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        if self.status.is_server_error() {
            // The request id is on the enclosing span (see router::trace_layer).
            tracing::error!(
                status = self.status.as_u16(),
                code = self.code,
                cause = self.source.as_deref().unwrap_or(""),
                "request failed"
            );
        }
        let mut response = if self.shape_b {
            (self.status, axum::Json(self.shape_b_body())).into_response()
        } else {
            let rendered = Rendered {
                code: self.code,
                message: self.message.clone(),
                details: self.details.as_deref().cloned(),
            };
            let body = ErrorBody {
                error: self.code.to_owned(),
                message: self.message,
                code: self.status.as_u16(),
                details: self.details.map(|d| *d),
            };
            let mut response = (self.status, axum::Json(body)).into_response();
            response.extensions_mut().insert(rendered);
            response
        };
        if let Some(v) = self
            .retry_after
            .and_then(|s| HeaderValue::from_str(&s.to_string()).ok())
        {
            response.headers_mut().insert(header::RETRY_AFTER, v);
        }
        response
    }
}

/// The 429 response: shape B with `Retry-After`.
pub fn rate_limited(retry_after: u64) -> Response {
    let body = RateLimitedBody {
        status_code: 429,
        message: format!("Too many requests; retry in {retry_after} seconds"),
        retry_after,
    };
    let mut response = (StatusCode::TOO_MANY_REQUESTS, axum::Json(body)).into_response();
    if let Ok(v) = HeaderValue::from_str(&retry_after.to_string()) {
        response.headers_mut().insert(header::RETRY_AFTER, v);
    }
    response
}
