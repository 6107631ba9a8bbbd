//! Payments failures → HTTP status and code: the area's one table.

use crate::error::{ApiError, code};
use axum::http::StatusCode;
use kairos_store::PaymentsError;

impl From<PaymentsError> for ApiError {
    #[track_caller]
    fn from(e: PaymentsError) -> Self {
        match e {
            PaymentsError::SiteNotFound => ApiError::not_found("Site"),
            PaymentsError::CredentialsNotFound(provider) => ApiError::new(
                StatusCode::NOT_FOUND,
                code::NOT_FOUND,
                format!("No {provider} credentials of this scope"),
            ),
            PaymentsError::PaymentNotFound => ApiError::not_found("Payment"),
            PaymentsError::RefundInProgress => {
                // Passes by itself: `Retry-After`, and never the stored answer of a key.
                let mut e = ApiError::new(
                    StatusCode::CONFLICT,
                    code::INVALID_TRANSITION,
                    "The payment's refund is being asked of its provider right now; ask again in a minute",
                );
                e.retry_after = Some(60);
                e
            }
            PaymentsError::NothingOwed => ApiError::new(
                StatusCode::CONFLICT,
                code::INVALID_TRANSITION,
                "Nothing is owed from the payment any more: its refund was made meanwhile",
            ),
            PaymentsError::PaymentState(status) => ApiError::new(
                StatusCode::CONFLICT,
                code::INVALID_TRANSITION,
                format!("The payment is {status}: this does not apply to it"),
            ),
            PaymentsError::GiftCardUsed(balance, original) => ApiError::new(
                StatusCode::CONFLICT,
                code::INVALID_TRANSITION,
                format!(
                    "The gift card bought with this payment was used ({balance} of {original} left, minor units): it is no longer refunded"
                ),
            ),
            PaymentsError::GroupPayment => ApiError::invalid_field(
                "paymentId",
                "a booking group's payment is refunded booking by booking: refund the payment of each booking's share, or cancel the booking",
            ),
            PaymentsError::GiftCardWhole => ApiError::invalid_field(
                "amount",
                "a gift card purchase is refunded in full (leave amount out): its voucher is withdrawn",
            ),
            PaymentsError::RefundTooLarge(left) => ApiError::invalid_field(
                "amount",
                format!(
                    "must be more than 0 and at most {left} (what is left to refund, minor units)"
                ),
            ),
            PaymentsError::Missing(field) => {
                ApiError::invalid_field(field, "is required for new credentials")
            }
            PaymentsError::Store(e) => e.into(),
        }
    }
}
