//! Schedule failures → HTTP status and spec code: the area's one table.

use crate::error::ApiError;
use kairos_store::{DateRuleKind, ScheduleError};

impl From<ScheduleError> for ApiError {
    #[track_caller]
    fn from(e: ScheduleError) -> Self {
        match e {
            ScheduleError::ScopeNotFound => {
                ApiError::not_found("Scope (site, product or resource)")
            }
            ScheduleError::ProductNotFound => ApiError::not_found("Product"),
            ScheduleError::TemplateNotFound => ApiError::not_found("Template"),
            ScheduleError::RuleNotFound(DateRuleKind::Override) => ApiError::not_found("Override"),
            ScheduleError::RuleNotFound(DateRuleKind::Blackout) => ApiError::not_found("Blackout"),
            ScheduleError::Store(e) => e.into(),
        }
    }
}
