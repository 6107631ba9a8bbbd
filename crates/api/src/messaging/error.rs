//! Messaging failures → HTTP status, in shape B (spec Part B 7): the area's one table.

use crate::error::{ApiError, code};
use axum::http::StatusCode;
use kairos_domain::FieldErrors;
use kairos_store::MessagingError;

impl From<MessagingError> for ApiError {
    #[track_caller]
    fn from(e: MessagingError) -> Self {
        let error = match e {
            MessagingError::TemplateNotFound => ApiError::not_found("Template"),
            MessagingError::TemplateExists => ApiError::conflict(
                code::CONFLICT,
                "A template with this templateKey, languageCode, templateType and siteId already exists; change that one instead",
            ),
            MessagingError::RuleNotFound => ApiError::not_found("Automation rule"),
            MessagingError::SiteNotFound => ApiError::not_found("Site"),
            MessagingError::RuleSiteNotFound(id) => ApiError::new(
                StatusCode::NOT_FOUND,
                code::NOT_FOUND,
                format!("Site {id} not found"),
            ),
            MessagingError::ProductNotFound(id) => ApiError::new(
                StatusCode::NOT_FOUND,
                code::NOT_FOUND,
                format!("Product {id} not found"),
            ),
            MessagingError::CustomerNotFound => ApiError::not_found("Customer"),
            MessagingError::BookingNotFound => ApiError::not_found("Booking"),
            MessagingError::MessageNotFound => ApiError::not_found("Message"),
            MessagingError::NoTemplate(channel) => field(
                "templateId",
                format!("has no {channel} template (in the tenant's templates or the defaults)"),
            ),
            MessagingError::Withheld(why) => {
                ApiError::conflict(code::CONFLICT, format!("Not sent: {}", withheld_text(why)))
            }
            MessagingError::RenderFailed => field(
                "variables",
                "the template cannot be rendered with these variables",
            ),
            MessagingError::DeadLetterNotFound => ApiError::not_found("Dead letter"),
            MessagingError::DeadLetterClosed(status, action) => ApiError::new(
                StatusCode::CONFLICT,
                code::INVALID_TRANSITION,
                format!("The dead letter is {status}; only an open one can be {action}"),
            ),
            MessagingError::BulkNotFound => ApiError::not_found("Bulk send"),
            MessagingError::BulkClosed(status) => ApiError::new(
                StatusCode::CONFLICT,
                code::INVALID_TRANSITION,
                format!(
                    "The bulk send is {status}; only a scheduled or sending one can be canceled"
                ),
            ),
            MessagingError::Idempotency(e) => e.into(),
            MessagingError::Store(e) => e.into(),
        };
        error.shape_b()
    }
}

fn field(name: &str, message: impl Into<String>) -> ApiError {
    let mut errors = FieldErrors::new();
    errors.add(name, message);
    ApiError::validation(errors)
}

/// A 400 in shape B naming every bad field.
pub(super) fn invalid(errors: FieldErrors) -> ApiError {
    ApiError::validation(errors).shape_b()
}

fn withheld_text(why: &str) -> &'static str {
    match why {
        "no_sms_opt_in" => "the customer has not agreed to SMS (smsOptIn)",
        "no_marketing_opt_in" => "the customer has not agreed to marketing (marketingOptIn)",
        "opted_out" => "the customer switched this kind of message off",
        "no_recipient" => "there is no email address or phone number to send to",
        _ => "the customer's choices do not allow it",
    }
}
