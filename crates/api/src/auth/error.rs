//! Staff account and tenancy failures → HTTP status and spec code: the area's one table.

use crate::error::{ApiError, code};
use kairos_store::{StaffError, TenancyError};

impl From<StaffError> for ApiError {
    #[track_caller]
    fn from(e: StaffError) -> Self {
        match e {
            StaffError::UserNotFound => ApiError::not_found("User"),
            StaffError::UsernameTaken => {
                ApiError::conflict(code::CONFLICT, "That username is already taken")
                    .with_details(serde_json::json!({"field": "username"}))
            }
            StaffError::LastOwner => ApiError::conflict(
                code::CONFLICT,
                "The tenant must keep at least one active owner",
            ),
            StaffError::Store(e) => e.into(),
        }
    }
}

impl From<TenancyError> for ApiError {
    #[track_caller]
    fn from(e: TenancyError) -> Self {
        match e {
            TenancyError::TenantExists => {
                ApiError::conflict(code::CONFLICT, "A tenant with this id already exists")
            }
            TenancyError::Store(e) => e.into(),
        }
    }
}
