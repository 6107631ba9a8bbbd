//! Daily operations at the desk (spec Part B 2.8, 4.8, 4.9): no-shows and their tracking
//! record (`record.rs`), fees on bookings and their off-session charges (`fees.rs`), the
//! tenant's no-show fee policy (`policy.rs`), and customers blocked after a no-show
//! (`blocks.rs`). The shapes are in `dto.rs`.

mod blocks;
mod dto;
mod fees;
mod policy;
mod process;
mod record;

pub use dto::{FeeDto, NoShowRecordDto};

use crate::error::ApiError;
use crate::rate_limit::Tier;
use crate::state::AppState;
use axum::http::StatusCode;
use kairos_app::code;
use kairos_store::FeeError;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

pub fn router() -> OpenApiRouter<AppState> {
    Tier::Standard.apply(
        OpenApiRouter::new()
            .routes(routes!(record::mark_no_show))
            .routes(routes!(record::no_show_record))
            .routes(routes!(record::pending_no_shows))
            .routes(routes!(record::resolve_no_show))
            .routes(routes!(process::process_no_show_fee))
            .routes(routes!(process::assess_no_show_fee))
            .routes(routes!(fees::apply_fee))
            .routes(routes!(fees::booking_fees))
            .routes(routes!(fees::charge_fee))
            .routes(routes!(fees::waive_fee))
            .routes(routes!(
                policy::get_no_show_policy,
                policy::put_no_show_policy
            ))
            .routes(routes!(blocks::list_blocks))
            .routes(routes!(blocks::lift_block)),
    )
}

impl From<FeeError> for ApiError {
    #[track_caller]
    fn from(e: FeeError) -> Self {
        match e {
            FeeError::NotFound => ApiError::not_found("Fee"),
            FeeError::BookingNotFound => crate::bookings::booking_not_found(),
            FeeError::NotOpen(status, what) => ApiError::conflict(
                code::FEE_NOT_OPEN,
                format!("The fee is {status}: it cannot be {what}"),
            )
            .with_details(serde_json::json!({"feeStatus": status.as_str()})),
            FeeError::NoRecord => ApiError::new(
                StatusCode::NOT_FOUND,
                code::NO_SHOW_NOT_FOUND,
                "The booking was not marked a no-show",
            ),
            FeeError::Resolved(r) => ApiError::conflict(
                code::NO_SHOW_RESOLVED,
                format!("The no-show is already resolved ({r})"),
            )
            .with_details(serde_json::json!({"resolution": r.as_str()})),
            FeeError::Nothing => ApiError::invalid_field(
                "override_fee_amount",
                "the fee comes to nothing (the no-show fee policy is disabled or gives 0): give the amount in minor units, or waive",
            ),
            FeeError::ChargeInProgress => {
                let mut e = ApiError::conflict(
                    code::FEE_CHARGE_IN_PROGRESS,
                    "A charge of this fee is under way at the provider; try again in a minute",
                );
                e.retry_after = Some(60);
                e
            }
            FeeError::Idempotency(e) => e.into(),
            FeeError::Store(e) => e.into(),
        }
    }
}
