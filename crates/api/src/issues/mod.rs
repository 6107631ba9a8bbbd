//! Customer issues (spec Part B 4.8): `POST /api/v1/admin/issues`, `PATCH
//! /api/v1/admin/issues/{issueId}`, the list with its filters and the detail
//! (`handlers.rs`); the shapes (`dto.rs`).

mod dto;
mod handlers;

pub use dto::{IssueDto, IssueSummary};

use crate::error::ApiError;
use crate::rate_limit::Tier;
use crate::state::AppState;
use kairos_app::code;
use kairos_store::IssueError;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

pub fn router() -> OpenApiRouter<AppState> {
    Tier::Standard.apply(
        OpenApiRouter::new()
            .routes(routes!(handlers::create_issue, handlers::list_issues))
            .routes(routes!(handlers::get_issue, handlers::update_issue)),
    )
}

impl From<IssueError> for ApiError {
    #[track_caller]
    fn from(e: IssueError) -> Self {
        match e {
            IssueError::NotFound => ApiError::not_found("Issue"),
            IssueError::BookingNotFound => crate::bookings::booking_not_found(),
            IssueError::Closed => ApiError::conflict(
                code::INVALID_TRANSITION,
                "A closed issue stays closed; log a new issue",
            ),
            IssueError::Compensated => ApiError::conflict(
                code::CONFLICT,
                "The issue is compensated already; a further compensation is a new issue",
            ),
            IssueError::NothingToRefund => ApiError::invalid_field(
                "compensationMethod",
                "the booking has no card or bank payment with that much left to refund: compensate with a voucher",
            ),
            IssueError::VoucherCurrency => ApiError::invalid_field(
                "compensationMethod",
                "a voucher is in the venue's own currency, not this booking's: compensate by refund",
            ),
            IssueError::Voucher(e) => e.into(),
            IssueError::Store(e) => e.into(),
        }
    }
}
