//! What a use case answers when it cannot do what was asked.
//!
//! A store refusal is passed on as it is ([`AppError::Booking`], [`AppError::Payments`],
//! [`AppError::Store`]): the HTTP layer keeps each area's one table from refusal to status
//! and code. What the layer decides itself (a provider declined the card, a refund was
//! refused) is a [`Failure`]: a spec code, an HTTP status class, a message for the caller
//! and optional details.

use http::StatusCode;
use kairos_domain::FieldErrors;
use kairos_store::{
    BookingError, FeeError, GroupError, IssueError, PaymentsError, StoreError, VoucherError,
};
use serde_json::{Value, json};

/// The spec's error codes (spec Part A 7, Part B 7), one definition for every layer.
pub mod code {
    pub const VALIDATION_ERROR: &str = "VALIDATION_ERROR";
    pub const EMAIL_EXISTS: &str = "EMAIL_EXISTS";
    pub const INVALID_CREDENTIALS: &str = "INVALID_CREDENTIALS";
    pub const NOT_FOUND: &str = "NOT_FOUND";
    pub const INSUFFICIENT_PERMISSIONS: &str = "INSUFFICIENT_PERMISSIONS";
    pub const UNAUTHORIZED: &str = "UNAUTHORIZED";
    pub const TOKEN_EXPIRED: &str = "TOKEN_EXPIRED";
    pub const TENANT_MISMATCH: &str = "TENANT_MISMATCH";
    pub const CONFLICT: &str = "CONFLICT";
    pub const PAYLOAD_TOO_LARGE: &str = "PAYLOAD_TOO_LARGE";
    pub const REQUEST_TIMEOUT: &str = "REQUEST_TIMEOUT";
    pub const UNSUPPORTED_MEDIA_TYPE: &str = "UNSUPPORTED_MEDIA_TYPE";
    pub const METHOD_NOT_ALLOWED: &str = "METHOD_NOT_ALLOWED";
    pub const SERVICE_UNAVAILABLE: &str = "SERVICE_UNAVAILABLE";
    pub const INTERNAL_ERROR: &str = "INTERNAL_ERROR";
    pub const BOOKING_NOT_FOUND: &str = "BOOKING_NOT_FOUND";
    pub const WAIVER_NOT_FOUND: &str = "WAIVER_NOT_FOUND";
    pub const ALREADY_SIGNED: &str = "ALREADY_SIGNED";
    pub const PARTICIPANT_NOT_FOUND: &str = "PARTICIPANT_NOT_FOUND";
    pub const TEMPLATE_INACTIVE: &str = "TEMPLATE_INACTIVE";
    pub const WAIVERS_INCOMPLETE: &str = "WAIVERS_INCOMPLETE";
    pub const SLOT_UNAVAILABLE: &str = "SLOT_UNAVAILABLE";
    pub const PRICING_CHANGED: &str = "PRICING_CHANGED";
    pub const OUTSIDE_WINDOW: &str = "OUTSIDE_WINDOW";
    pub const INVALID_TRANSITION: &str = "INVALID_TRANSITION";
    pub const HOLD_EXPIRED: &str = "HOLD_EXPIRED";
    pub const HOLD_LIMIT_REACHED: &str = "HOLD_LIMIT_REACHED";
    pub const AMOUNT_EXCEEDS_BALANCE: &str = "AMOUNT_EXCEEDS_BALANCE";
    pub const IDEMPOTENCY_KEY_REUSED: &str = "IDEMPOTENCY_KEY_REUSED";
    pub const IDEMPOTENCY_KEY_IN_FLIGHT: &str = "IDEMPOTENCY_KEY_IN_FLIGHT";
    pub const INVALID_PROMOTION: &str = "INVALID_PROMOTION";
    pub const MIN_SPEND_NOT_MET: &str = "MIN_SPEND_NOT_MET";
    pub const USAGE_LIMIT_EXCEEDED: &str = "USAGE_LIMIT_EXCEEDED";
    pub const STACKING_VIOLATION: &str = "STACKING_VIOLATION";
    pub const INSUFFICIENT_FUNDS: &str = "INSUFFICIENT_FUNDS";
    pub const PAYMENT_FAILED: &str = "PAYMENT_FAILED";
    pub const PROVIDER_ERROR: &str = "PROVIDER_ERROR";
    pub const INVALID_SIGNATURE: &str = "INVALID_SIGNATURE";
    pub const DUPLICATE_EVENT: &str = "DUPLICATE_EVENT";
    pub const REFUND_FAILED: &str = "REFUND_FAILED";
    pub const MOVE_EXECUTION_FAILED: &str = "MOVE_EXECUTION_FAILED";
    // Codes the spec leaves to the design (docs/ARCHITECTURE.md, "Daily operations").
    pub const CUSTOMER_BLOCKED: &str = "CUSTOMER_BLOCKED";
    pub const FEE_NOT_OPEN: &str = "FEE_NOT_OPEN";
    pub const FEE_CHARGE_IN_PROGRESS: &str = "FEE_CHARGE_IN_PROGRESS";
    pub const NO_SHOW_NOT_FOUND: &str = "NO_SHOW_NOT_FOUND";
    pub const NO_SHOW_RESOLVED: &str = "NO_SHOW_RESOLVED";
}

/// A refusal the application layer decides: status class, spec code, message.
#[derive(Debug)]
pub struct Failure {
    pub status: StatusCode,
    pub code: &'static str,
    pub message: String,
    pub details: Option<Box<Value>>,
    /// Seconds after which the same request may succeed (a refusal that passes).
    pub retry_after: Option<u64>,
    /// Logged, never shown to the caller (internal failures).
    pub cause: Option<Box<str>>,
}

impl Failure {
    pub fn new(status: StatusCode, code: &'static str, message: impl Into<String>) -> Self {
        Self {
            status,
            code,
            message: message.into(),
            details: None,
            retry_after: None,
            cause: None,
        }
    }

    pub fn with_details(mut self, details: Value) -> Self {
        self.details = Some(Box::new(details));
        self
    }

    /// 400 `VALIDATION_ERROR` naming every bad field.
    pub fn validation(errors: FieldErrors) -> Self {
        let list = errors.into_vec();
        let message = if list.is_empty() {
            "Invalid input".to_owned()
        } else {
            let parts: Vec<String> = list
                .iter()
                .map(|e| format!("{} {}", e.field, e.message))
                .collect();
            format!("Invalid input: {}", parts.join("; "))
        };
        Self::new(StatusCode::BAD_REQUEST, code::VALIDATION_ERROR, message)
            .with_details(json!({ "errors": list }))
    }

    /// 400 `VALIDATION_ERROR` for one field.
    pub fn invalid_field(field: &str, message: impl Into<String>) -> Self {
        let mut errors = FieldErrors::new();
        errors.add(field, message);
        Self::validation(errors)
    }

    pub fn not_found(what: &str) -> Self {
        Self::new(
            StatusCode::NOT_FOUND,
            code::NOT_FOUND,
            format!("{what} not found"),
        )
    }

    /// 409 with `code`.
    pub fn conflict(code: &'static str, message: impl Into<String>) -> Self {
        Self::new(StatusCode::CONFLICT, code, message)
    }

    /// A failure of the service itself; `cause` is logged, never shown.
    #[track_caller]
    pub fn internal(cause: impl std::fmt::Display) -> Self {
        let location = std::panic::Location::caller();
        Self {
            cause: Some(format!("{cause} (at {location})").into_boxed_str()),
            ..Self::new(
                StatusCode::INTERNAL_SERVER_ERROR,
                code::INTERNAL_ERROR,
                "An internal error occurred; it has been logged",
            )
        }
    }
}

/// Why a use case did not do what was asked.
#[derive(Debug, thiserror::Error)]
pub enum AppError {
    #[error("{0}")]
    Booking(BookingError),
    #[error("{0}")]
    Payments(PaymentsError),
    #[error("{0}")]
    Voucher(VoucherError),
    #[error("{0}")]
    Fee(FeeError),
    #[error("{0}")]
    Issue(IssueError),
    #[error("{0}")]
    Group(GroupError),
    #[error("{0}")]
    Store(StoreError),
    #[error("{} {}: {}", .0.status.as_u16(), .0.code, .0.message)]
    Failure(Failure),
}

impl AppError {
    /// The spec code when the layer decided the refusal itself.
    pub fn code(&self) -> Option<&'static str> {
        match self {
            AppError::Failure(f) => Some(f.code),
            _ => None,
        }
    }

    /// What the caller may be told: a refusal's text; for a failure of the store, the
    /// generic text of an internal error (its cause goes to the log, never to a caller).
    pub fn message(&self) -> String {
        match self {
            AppError::Failure(f) => f.message.clone(),
            AppError::Store(_) => "An internal error occurred; it has been logged".to_owned(),
            other => other.to_string(),
        }
    }
}

impl From<Failure> for AppError {
    fn from(f: Failure) -> Self {
        AppError::Failure(f)
    }
}

impl From<BookingError> for AppError {
    fn from(e: BookingError) -> Self {
        AppError::Booking(e)
    }
}

impl From<PaymentsError> for AppError {
    fn from(e: PaymentsError) -> Self {
        AppError::Payments(e)
    }
}

impl From<VoucherError> for AppError {
    fn from(e: VoucherError) -> Self {
        AppError::Voucher(e)
    }
}

impl From<FeeError> for AppError {
    fn from(e: FeeError) -> Self {
        AppError::Fee(e)
    }
}

impl From<IssueError> for AppError {
    fn from(e: IssueError) -> Self {
        AppError::Issue(e)
    }
}

impl From<GroupError> for AppError {
    fn from(e: GroupError) -> Self {
        AppError::Group(e)
    }
}

impl From<StoreError> for AppError {
    fn from(e: StoreError) -> Self {
        AppError::Store(e)
    }
}

pub type AppResult<T> = Result<T, AppError>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_store_failure_tells_the_caller_nothing_of_its_cause() {
        let e = AppError::from(StoreError::Corrupt("row 7 of secret_table".to_owned()));
        assert!(!e.message().contains("secret_table"), "{}", e.message());
        assert_eq!(e.code(), None);
        let refused = AppError::from(Failure::invalid_field("amount", "must be positive"));
        assert_eq!(refused.code(), Some(code::VALIDATION_ERROR));
        assert_eq!(refused.message(), "Invalid input: amount must be positive");
    }
}
