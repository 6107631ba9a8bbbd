//! A person of the party naming themselves on the signing page (`POST
//! /api/v1/waivers/booking/{bookingId}/participants`): public like the signing itself, so
//! whoever follows the booking's signing link can add the people not named yet and sign
//! for them. It takes names, contact and age only; medical and dietary details are given
//! to the booker's or staff's participant endpoints.

use crate::bookings::{Participant, booking_not_found, check_participant};
use crate::error::{ApiError, ApiResult, ErrorBody};
use crate::extract::{Json, Tenant};
use crate::state::AppState;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use kairos_domain::FieldErrors;
use kairos_domain::auth::ActorKind;
use kairos_domain::ids::parse_id;
use kairos_store::Actor;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// A person of the party, as they name themselves on the signing page.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct WaiverJoinBody {
    /// Required, at most 100 characters.
    pub first_name: Option<String>,
    /// Required, at most 100 characters.
    pub last_name: Option<String>,
    pub email: Option<String>,
    /// YYYY-MM-DD (decides who is a minor).
    #[schema(format = Date)]
    pub date_of_birth: Option<String>,
    /// Age on the booking's day, instead of the birth date.
    #[schema(minimum = 0, maximum = 120)]
    pub age_at_booking: Option<i64>,
    /// For example adult or child.
    pub participant_type: Option<String>,
}

/// The participant added.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ParticipantJoined {
    pub participant_id: String,
    pub participant_name: String,
    pub is_minor: bool,
}

/// Name a person of the party not named yet, to sign their waiver (at most `partySize`
/// participants). Public: only the tenant header.
#[utoipa::path(post, path = "/api/v1/waivers/booking/{bookingId}/participants", tag = "waivers", security(()),
    params(("bookingId" = uuid::Uuid, Path)),
    request_body = WaiverJoinBody,
    responses(
        (status = 201, body = ParticipantJoined),
        (status = 400, description = "VALIDATION_ERROR", body = ErrorBody),
        (status = 404, description = "BOOKING_NOT_FOUND", body = ErrorBody),
        (status = 409, description = "CONFLICT: every place is named; INVALID_TRANSITION: the booking is cancelled, expired or completed", body = ErrorBody),
    ))]
pub async fn join(
    State(state): State<AppState>,
    tenant: Tenant,
    Path(id): Path<String>,
    Json(body): Json<WaiverJoinBody>,
) -> ApiResult<(StatusCode, axum::Json<ParticipantJoined>)> {
    let booking = parse_id(&id).ok_or_else(booking_not_found)?;
    let mut errors = FieldErrors::new();
    let input = check_participant(
        &mut errors,
        "participant",
        &Participant {
            first_name: body.first_name,
            last_name: body.last_name,
            email: body.email,
            date_of_birth: body.date_of_birth,
            age_at_booking: body.age_at_booking,
            participant_type: body.participant_type,
            ..Participant::default()
        },
        state.now().date_naive(),
    );
    errors.finish().map_err(ApiError::validation)?;
    let actor = Actor {
        kind: ActorKind::Customer,
        id: None,
        name: Some(format!(
            "{} {} (signing page)",
            input.first_name, input.last_name
        )),
    };
    let p = state
        .store
        .add_participant(tenant.id(), booking, input, &actor, state.now())
        .await?;
    let minor = state
        .store
        .booking_waivers(tenant.id(), booking)
        .await?
        .is_some_and(|b| b.is_minor(&p));
    Ok((
        StatusCode::CREATED,
        axum::Json(ParticipantJoined {
            participant_id: p.id.to_string(),
            participant_name: p.full_name(),
            is_minor: minor,
        }),
    ))
}
