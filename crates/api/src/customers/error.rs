//! Customer account failures → HTTP status and spec code: the area's one table.

use crate::error::{ApiError, code};
use kairos_store::CustomerError;

impl From<CustomerError> for ApiError {
    #[track_caller]
    fn from(e: CustomerError) -> Self {
        match e {
            CustomerError::CustomerNotFound => ApiError::not_found("Customer"),
            CustomerError::EmailExists => ApiError::conflict(
                code::EMAIL_EXISTS,
                "An account with this email already exists",
            ),
            CustomerError::Store(e) => e.into(),
        }
    }
}
