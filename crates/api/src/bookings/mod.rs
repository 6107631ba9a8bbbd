//! Bookings (spec Part A sections 2.1-2.3, 3.1, 4.1-4.5 and 4.11): the public booking
//! flow, administration, notes and customer history.
//!
//! Who may act on a booking through the public endpoints: whoever holds its booking token
//! (`x-booking-token`, given once when the hold is made), the customer it belongs to
//! (customer bearer token) and staff (admin bearer token). Anyone else gets 404
//! `BOOKING_NOT_FOUND`, so ids cannot be probed.

mod access;
mod admin_cancel;
mod admin_create;
mod admin_customer;
mod admin_detail;
mod admin_search;
mod admin_status;
mod cancel;
mod confirm;
mod day_sheet;
mod draft;
mod error;
mod get;
mod history;
mod hold;
mod moves;
mod notes;
mod participants;
mod pricing;
mod reschedule;
mod response;
mod staff_actions;

pub use access::{
    Anyone, BOOKING_TOKEN_HEADER, BookingAccess, Caller, StaffRule, accessible_booking,
    booking_not_found,
};
pub use participants::{Participant, check_participant};
pub use pricing::{check_addons, major, price_booking, site_currency};
pub use response::{
    AddonLineDto, BookingResponse, ChosenAddonDto, CustomerDto, DiscountLineDto, PriceDto,
    StackingDto, VoucherPartDto,
};

use crate::error::{ApiError, ApiResult};
use crate::state::AppState;
use serde_json::Value;

/// A one-line text: at most `max` characters, no control characters (names, ids).
pub fn short_text(s: &str, max: usize) -> bool {
    s.chars().count() <= max && !s.chars().any(char::is_control)
}

/// Trimmed text, None when empty.
pub fn clean(s: Option<&str>) -> Option<String> {
    draft::clean(s)
}

/// A free text: at most `max` characters; line breaks and tabs, but no other control
/// characters (reasons, notes).
pub fn free_text(s: &str, max: usize) -> bool {
    s.chars().count() <= max
        && !s
            .chars()
            .any(|c| c.is_control() && !matches!(c, '\n' | '\r' | '\t'))
}

/// A JSON body that may be left out entirely (actions whose fields are all optional).
pub fn optional_body<T: serde::de::DeserializeOwned + Default>(bytes: &[u8]) -> ApiResult<T> {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Ok(T::default());
    }
    let value: Value = serde_json::from_slice(bytes)
        .map_err(|e| ApiError::invalid_field("body", format!("is not valid JSON: {e}")))?;
    crate::extract::decode_json(value)
}

use crate::rate_limit::Tier;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

/// The public booking flow, booking administration, notes and customer history.
pub fn router() -> OpenApiRouter<AppState> {
    let reads = Tier::Relaxed.apply(
        OpenApiRouter::new()
            .routes(routes!(get::get_booking))
            .routes(routes!(day_sheet::day_sheet)),
    );
    Tier::Standard
        .apply(
            OpenApiRouter::new()
                .routes(routes!(hold::hold))
                .routes(routes!(confirm::confirm))
                .routes(routes!(cancel::cancel))
                .routes(routes!(reschedule::reschedule))
                .routes(routes!(staff_actions::mark_arrived))
                .routes(routes!(staff_actions::mark_paid))
                .routes(routes!(staff_actions::mark_no_show))
                .routes(routes!(admin_search::search, admin_create::create))
                .routes(routes!(admin_detail::detail))
                .routes(routes!(admin_status::set_status))
                .routes(routes!(admin_cancel::admin_cancel))
                .routes(routes!(admin_cancel::preview_cancel))
                .routes(routes!(moves::precheck_move))
                .routes(routes!(moves::commit_move))
                .routes(routes!(admin_customer::update_customer))
                .routes(routes!(notes::list_notes, notes::add_note))
                .routes(routes!(notes::update_note, notes::delete_note))
                .routes(routes!(history::customer_bookings))
                .routes(routes!(history::my_bookings))
                .routes(routes!(
                    participants::list_participants,
                    participants::add_participant
                ))
                .routes(routes!(
                    participants::update_participant,
                    participants::remove_participant
                )),
        )
        .merge(reads)
}
