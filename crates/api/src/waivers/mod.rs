//! Waivers (spec Part B 2.6, 4.5, 4.8): templates and their versions (`templates.rs`),
//! signing by the public (`public.rs`), the staff views, paper waivers, signing links and
//! the printable document (`admin.rs`, `document.rs`); the shapes (`dto.rs`). A booking's
//! participants are under `/api/v1/bookings/{bookingId}/participants`.
//!
//! Statuses of the waiver error codes (the spec leaves them open): WAIVER_NOT_FOUND,
//! BOOKING_NOT_FOUND and PARTICIPANT_NOT_FOUND 404; ALREADY_SIGNED and TEMPLATE_INACTIVE
//! 409 (the request is sound, the state refuses it).

mod admin;
mod document;
mod dto;
mod join;
mod public;
mod retention;
mod templates;

pub use dto::{SignatureDto, WaiverTemplateDto};

use crate::error::ApiError;
use crate::rate_limit::Tier;
use crate::state::AppState;
use axum::http::StatusCode;
use kairos_app::code;
use kairos_store::WaiverError;
use serde_json::json;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

pub fn router() -> OpenApiRouter<AppState> {
    Tier::Standard.apply(
        OpenApiRouter::new()
            .routes(routes!(templates::active_waiver))
            .routes(routes!(
                templates::list_templates,
                templates::create_template
            ))
            .routes(routes!(templates::deactivate_template))
            .routes(routes!(public::legacy_sign))
            .routes(routes!(public::booking_status))
            .routes(routes!(public::participants_status))
            .routes(routes!(join::join))
            .routes(routes!(public::sign_participant))
            .routes(routes!(admin::list_signatures))
            .routes(routes!(admin::booking_waivers))
            .routes(routes!(admin::manual_waiver))
            .routes(routes!(admin::remind))
            .routes(routes!(document::document))
            .routes(routes!(retention::get_retention, retention::set_retention)),
    )
}

/// What staff are told when they check in a booking whose waivers are missing (the
/// product warns; one that refuses answered WAIVERS_INCOMPLETE before).
pub async fn arrival_warnings(
    state: &AppState,
    tenant: &kairos_domain::TenantId,
    booking: uuid::Uuid,
) -> crate::error::ApiResult<Vec<String>> {
    let Some(b) = state.store.booking_waivers(tenant, booking).await? else {
        return Ok(Vec::new());
    };
    let missing = b.missing();
    Ok(if missing == 0 {
        Vec::new()
    } else {
        vec![format!(
            "{missing} of {} waivers are missing: collect them (sign online or record the paper waivers) before the activity starts",
            b.party_size
        )]
    })
}

/// 404 `PARTICIPANT_NOT_FOUND`.
pub fn participant_not_found() -> ApiError {
    ApiError::new(
        StatusCode::NOT_FOUND,
        code::PARTICIPANT_NOT_FOUND,
        "Participant not found in this booking",
    )
}

/// 404 `WAIVER_NOT_FOUND`.
pub fn waiver_not_found(message: &str) -> ApiError {
    ApiError::new(StatusCode::NOT_FOUND, code::WAIVER_NOT_FOUND, message)
}

impl From<WaiverError> for ApiError {
    #[track_caller]
    fn from(e: WaiverError) -> Self {
        match e {
            WaiverError::BookingNotFound => crate::bookings::booking_not_found(),
            WaiverError::ParticipantNotFound => participant_not_found(),
            WaiverError::WaiverNotFound => waiver_not_found(
                "No active waiver covers this booking: the venue has to publish one (or collect a paper waiver at the desk)",
            ),
            WaiverError::TemplateInactive => ApiError::conflict(
                code::TEMPLATE_INACTIVE,
                "This version of the waiver is no longer in use: sign the current one (GET /api/v1/waivers/active)",
            ),
            WaiverError::AlreadySigned(s) => ApiError::conflict(
                code::ALREADY_SIGNED,
                format!(
                    "Already signed by {} at {}",
                    s.signed_by_name,
                    s.signed_at
                        .to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
                ),
            )
            .with_details(json!({"signatureId": s.id, "signedAt": s.signed_at,
                "participantId": s.participant_id})),
            WaiverError::VersionExists => ApiError::conflict(
                code::CONFLICT,
                "This version of the waiver exists with other text or products: give the new text a new version (or leave version out to take the next one)",
            ),
            WaiverError::NotCovered => ApiError::invalid_field(
                "templateId",
                "is not a waiver for this booking's activity or site",
            ),
            WaiverError::BookingClosed => ApiError::conflict(
                code::INVALID_TRANSITION,
                "The booking is cancelled, expired or completed: its participants and waivers can no longer change",
            ),
            WaiverError::JustSent { to } => ApiError::conflict(
                code::CONFLICT,
                format!(
                    "A signing link went to {to} less than a minute ago: give it a moment to arrive"
                ),
            ),
            WaiverError::PartyFull => ApiError::conflict(
                code::CONFLICT,
                "Every place of the party has a participant: change one, or raise the party size first",
            ),
            WaiverError::Store(e) => e.into(),
        }
    }
}
