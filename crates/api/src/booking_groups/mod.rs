//! Booking groups (spec Part B 2.5, 3.3, 4.3): the public hold and read (`public.rs`),
//! the staff endpoints (`admin.rs`), the shapes (`dto.rs`).

mod admin;
mod cancel;
mod codes;
mod confirm;
mod dto;
mod public;

pub use dto::{BookingGroupDto, GroupPricingDto};

use crate::error::{ApiError, code};
use crate::rate_limit::Tier;
use crate::state::AppState;
use kairos_store::{BookingError, GroupError};
use serde_json::{Value, json};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;
use uuid::Uuid;

pub fn router() -> OpenApiRouter<AppState> {
    Tier::Standard.apply(
        OpenApiRouter::new()
            .routes(routes!(public::hold_group))
            .routes(routes!(public::get_group))
            .routes(routes!(confirm::confirm_group))
            .routes(routes!(confirm::admin_confirm_group))
            .routes(routes!(confirm::group_mark_paid))
            .routes(routes!(admin::list_groups, admin::create_group))
            .routes(routes!(
                admin::admin_get_group,
                admin::patch_group,
                admin::delete_group
            ))
            .routes(routes!(admin::add_booking))
            .routes(routes!(admin::remove_booking))
            .routes(routes!(admin::admin_hold_group))
            .routes(routes!(admin::calculate_pricing))
            .routes(routes!(cancel::cancel_group_handler))
            .routes(routes!(codes::apply_group_promo))
            .routes(routes!(codes::remove_group_promo))
            .routes(routes!(codes::apply_group_voucher)),
    )
}

/// 404 `NOT_FOUND` for a group that does not exist or is not the caller's.
pub(crate) fn group_not_found() -> ApiError {
    ApiError::not_found("Booking group")
}

/// The refusal of one activity of a group: the booking's own error, naming the activity
/// (`details.activityIndex`, `details.slotId`); a bad field is named as
/// `<list>[index].<field>`.
fn activity_error(list: &str, index: usize, slot_id: Uuid, error: BookingError) -> ApiError {
    if let BookingError::Invalid(fields) = error {
        let mut named = kairos_domain::FieldErrors::new();
        for f in fields.into_vec() {
            named.add(format!("{list}[{index}].{}", f.field), f.message);
        }
        return ApiError::validation(named);
    }
    let mut e = ApiError::from(error);
    if e.status.is_server_error() {
        return e;
    }
    e.message = format!("Activity {} of the group: {}", index + 1, e.message);
    let mut details = e.details.take().map_or_else(|| json!({}), |d| *d);
    if let Value::Object(map) = &mut details {
        map.insert("activityIndex".to_owned(), json!(index));
        map.insert("slotId".to_owned(), json!(slot_id));
    }
    e.with_details(details)
}

impl From<GroupError> for ApiError {
    #[track_caller]
    fn from(e: GroupError) -> Self {
        match e {
            GroupError::NotFound => group_not_found(),
            GroupError::NotDraft(status) => ApiError::conflict(
                code::INVALID_TRANSITION,
                format!("The group is {status}: only a DRAFT group's activities change, and only a DRAFT group is held or deleted"),
            )
            .with_details(json!({"currentStatus": status.as_str()})),
            GroupError::PackageNotFound => ApiError::not_found("Package"),
            GroupError::NotThePackage(why) => ApiError::invalid_field("packageId", why),
            GroupError::NotHeld(status) => ApiError::conflict(
                code::INVALID_TRANSITION,
                format!("The group is {status}: only a held group (HOLD) is confirmed or takes codes and vouchers"),
            )
            .with_details(json!({"currentStatus": status.as_str()})),
            GroupError::NothingToPay => ApiError::conflict(
                code::CONFLICT,
                "Nothing is left to pay on this group: confirm it",
            ),
            GroupError::CodeNotApplied(promo) => ApiError::new(
                axum::http::StatusCode::NOT_FOUND,
                code::NOT_FOUND,
                format!("This group has no promotion {promo}"),
            ),
            GroupError::PaymentUnderWay => ApiError::conflict(
                code::INVALID_TRANSITION,
                "A payment for the group is under way, so its codes and vouchers stay as they are: let it finish, or confirm the group again with another payment method first",
            )
            .with_details(json!({"currentStatus": "HOLD"})),
            GroupError::NothingHeld => ApiError::conflict(
                code::INVALID_TRANSITION,
                "A DRAFT group holds nothing to cancel: delete it instead",
            )
            .with_details(json!({"currentStatus": "DRAFT"})),
            GroupError::BookingNotFound => crate::bookings::booking_not_found(),
            GroupError::Empty => ApiError::invalid_field(
                "bookings",
                "the group has no activities: add one before holding it",
            ),
            GroupError::TooManyActivities(max) => ApiError::invalid_field(
                "bookings",
                format!("a group holds at most {max} activities"),
            ),
            GroupError::Activity {
                index,
                slot_id,
                error,
            } => activity_error("activities", index, slot_id, *error),
            GroupError::Booking(e) => e.into(),
            GroupError::Idempotency(e) => e.into(),
            GroupError::Store(e) => e.into(),
        }
    }
}
