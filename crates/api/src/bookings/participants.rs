//! A booking's participants: given with the hold or staff creation, then added, changed
//! and removed one at a time by the booking's token holder, its customer or staff
//! (`/api/v1/bookings/{bookingId}/participants`). A booking lists at most `partySize`
//! participants; medical conditions and dietary restrictions are shown to staff only.

use super::access::{BookingAccess, accessible_booking};
use crate::error::{ApiError, ApiResult, ErrorBody};
use crate::extract::{Json, can};
use crate::state::AppState;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use kairos_domain::FieldErrors;
use kairos_domain::customers::{Email, validate_phone};
use kairos_domain::ids::parse_id;
use kairos_store::{Participant as Stored, ParticipantInput, ParticipantPatch};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// A participant as sent (spec Part A 4.2: first and last name required, the rest
/// optional). In a change (`PATCH`) every field is optional and an empty text clears it.
#[derive(Debug, Default, Deserialize, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Participant {
    #[schema(max_length = 100)]
    pub first_name: Option<String>,
    #[schema(max_length = 100)]
    pub last_name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub email: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub phone: Option<String>,
    /// YYYY-MM-DD, from 1900 to today.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(format = Date)]
    pub date_of_birth: Option<String>,
    /// Age on the booking's day, when the birth date is not given (decides who is a minor).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(minimum = 0, maximum = 120)]
    pub age_at_booking: Option<i64>,
    /// For example adult or child (lower-case letters, digits, `_` and `-`).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(max_length = 40, example = "adult")]
    pub participant_type: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dietary_restrictions: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub medical_conditions: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub emergency_contact: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub special_requests: Option<String>,
}

/// A participant as shown.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ParticipantDto {
    pub id: String,
    pub first_name: String,
    pub last_name: String,
    pub email: Option<String>,
    pub phone: Option<String>,
    #[schema(format = Date)]
    pub date_of_birth: Option<String>,
    pub age_at_booking: Option<u32>,
    pub participant_type: Option<String>,
    /// Staff only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dietary_restrictions: Option<String>,
    /// Staff only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub medical_conditions: Option<String>,
    pub emergency_contact: Option<String>,
    pub special_requests: Option<String>,
}

impl ParticipantDto {
    /// `p` for a reader; medical and dietary details only for `staff`.
    pub fn of(p: &Stored, staff: bool) -> Self {
        ParticipantDto {
            id: p.id.to_string(),
            first_name: p.first_name.clone(),
            last_name: p.last_name.clone(),
            email: p.email.clone(),
            phone: p.phone.clone(),
            date_of_birth: p.date_of_birth.map(|d| d.to_string()),
            age_at_booking: p.age_at_booking,
            participant_type: p.participant_type.clone(),
            dietary_restrictions: p.dietary_restrictions.clone().filter(|_| staff),
            medical_conditions: p.medical_conditions.clone().filter(|_| staff),
            emergency_contact: p.emergency_contact.clone(),
            special_requests: p.special_requests.clone(),
        }
    }

    pub fn list(all: &[Stored], staff: bool) -> Vec<Self> {
        all.iter().map(|p| Self::of(p, staff)).collect()
    }
}

/// A booking's participants.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ParticipantList {
    pub booking_id: String,
    pub party_size: i32,
    /// Places of the party with no participant listed yet.
    pub unnamed_places: i32,
    pub participants: Vec<ParticipantDto>,
}

/// Whether `s` reads as a name: a letter or digit, and no direction overrides (which
/// would show it otherwise than it is stored).
fn is_name(s: &str) -> bool {
    s.chars().any(char::is_alphanumeric)
        && !s
            .chars()
            .any(|c| matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}'))
}

fn text(errors: &mut FieldErrors, field: String, raw: Option<&str>, max: usize) -> Option<String> {
    let value = super::clean(raw);
    if value.as_deref().is_some_and(|v| !super::free_text(v, max)) {
        errors.add(
            field,
            format!("must be at most {max} characters without control characters"),
        );
    }
    value
}

/// Checks a participant's fields; `full` requires the names (a new participant).
struct Checked {
    first_name: Option<String>,
    last_name: Option<String>,
    email: Option<String>,
    phone: Option<String>,
    date_of_birth: Option<chrono::NaiveDate>,
    age_at_booking: Option<u32>,
    participant_type: Option<String>,
    dietary_restrictions: Option<String>,
    medical_conditions: Option<String>,
    emergency_contact: Option<String>,
    special_requests: Option<String>,
}

fn check(
    errors: &mut FieldErrors,
    field: &str,
    p: &Participant,
    today: chrono::NaiveDate,
    full: bool,
) -> Checked {
    let mut name = |key: &str, value: &Option<String>| match super::clean(value.as_deref()) {
        None if full || value.is_some() => {
            errors.add(format!("{field}.{key}"), "is required");
            None
        }
        None => None,
        Some(v) if !super::short_text(&v, 100) || !is_name(&v) => {
            errors.add(
                format!("{field}.{key}"),
                "must be at most 100 characters with letters, without control or direction marks",
            );
            None
        }
        Some(v) => Some(v),
    };
    let first_name = name("firstName", &p.first_name);
    let last_name = name("lastName", &p.last_name);
    let email = super::clean(p.email.as_deref()).and_then(|e| {
        errors
            .check(&format!("{field}.email"), Email::parse(&e))
            .map(Email::into_string)
    });
    let phone = super::clean(p.phone.as_deref()).and_then(|ph| {
        errors
            .check(&format!("{field}.phone"), validate_phone(&ph))
            .map(|()| ph)
    });
    let date_of_birth = super::clean(p.date_of_birth.as_deref()).and_then(|dob| {
        let earliest = chrono::NaiveDate::from_ymd_opt(1900, 1, 1).unwrap_or(today);
        match chrono::NaiveDate::parse_from_str(&dob, "%Y-%m-%d") {
            Ok(d) if (earliest..=today).contains(&d) => Some(d),
            _ => {
                errors.add(
                    format!("{field}.dateOfBirth"),
                    "must be a date YYYY-MM-DD from 1900 to today",
                );
                None
            }
        }
    });
    let age_at_booking = p.age_at_booking.and_then(|a| match u32::try_from(a) {
        Ok(a) if a <= 120 => Some(a),
        _ => {
            errors.add(format!("{field}.ageAtBooking"), "must be from 0 to 120");
            None
        }
    });
    let participant_type = super::clean(p.participant_type.as_deref()).and_then(|t| {
        let ok = t.len() <= 40
            && t.chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_' || c == '-');
        if ok {
            Some(t)
        } else {
            errors.add(
                format!("{field}.participantType"),
                "must be at most 40 lower-case letters, digits, _ or - (for example adult or child)",
            );
            None
        }
    });
    Checked {
        first_name,
        last_name,
        email,
        phone,
        date_of_birth,
        age_at_booking,
        participant_type,
        dietary_restrictions: text(
            errors,
            format!("{field}.dietaryRestrictions"),
            p.dietary_restrictions.as_deref(),
            1000,
        ),
        medical_conditions: text(
            errors,
            format!("{field}.medicalConditions"),
            p.medical_conditions.as_deref(),
            1000,
        ),
        emergency_contact: text(
            errors,
            format!("{field}.emergencyContact"),
            p.emergency_contact.as_deref(),
            1000,
        ),
        special_requests: text(
            errors,
            format!("{field}.specialRequests"),
            p.special_requests.as_deref(),
            1000,
        ),
    }
}

/// Checks a new participant: names required (at most 100 characters), a valid email and
/// phone when given, a birth date from 1900 to today, an age from 0 to 120, free texts up
/// to 1000 characters.
pub fn check_participant(
    errors: &mut FieldErrors,
    field: &str,
    p: &Participant,
    today: chrono::NaiveDate,
) -> ParticipantInput {
    let c = check(errors, field, p, today, true);
    ParticipantInput {
        first_name: c.first_name.unwrap_or_default(),
        last_name: c.last_name.unwrap_or_default(),
        email: c.email,
        phone: c.phone,
        date_of_birth: c.date_of_birth,
        age_at_booking: c.age_at_booking,
        participant_type: c.participant_type,
        dietary_restrictions: c.dietary_restrictions,
        medical_conditions: c.medical_conditions,
        emergency_contact: c.emergency_contact,
        special_requests: c.special_requests,
    }
}

fn patch_of(p: &Participant, c: Checked) -> ParticipantPatch {
    // A field sent (even empty) is changed; an empty text clears it.
    fn given<T>(sent: bool, value: Option<T>) -> Option<Option<T>> {
        sent.then_some(value)
    }
    ParticipantPatch {
        first_name: c.first_name,
        last_name: c.last_name,
        email: given(p.email.is_some(), c.email),
        phone: given(p.phone.is_some(), c.phone),
        date_of_birth: given(p.date_of_birth.is_some(), c.date_of_birth),
        age_at_booking: given(p.age_at_booking.is_some(), c.age_at_booking),
        participant_type: given(p.participant_type.is_some(), c.participant_type),
        dietary_restrictions: given(p.dietary_restrictions.is_some(), c.dietary_restrictions),
        medical_conditions: given(p.medical_conditions.is_some(), c.medical_conditions),
        emergency_contact: given(p.emergency_contact.is_some(), c.emergency_contact),
        special_requests: given(p.special_requests.is_some(), c.special_requests),
    }
}

fn participant_id(raw: &str) -> ApiResult<uuid::Uuid> {
    parse_id(raw).ok_or_else(crate::waivers::participant_not_found)
}

/// List a booking's participants. The booking's token (`x-booking-token`), its customer,
/// or staff with `admin:bookings:read`; medical and dietary details are shown to staff only.
#[utoipa::path(get, path = "/api/v1/bookings/{bookingId}/participants", tag = "participants",
    params(("bookingId" = uuid::Uuid, Path)),
    security((), ("bearer" = [])),
    responses(
        (status = 200, body = ParticipantList),
        (status = 403, description = "INSUFFICIENT_PERMISSIONS", body = ErrorBody),
        (status = 404, description = "BOOKING_NOT_FOUND", body = ErrorBody),
    ))]
pub async fn list_participants(
    State(state): State<AppState>,
    access: BookingAccess<can::ReadBookings>,
    Path(id): Path<String>,
) -> ApiResult<axum::Json<ParticipantList>> {
    let b = accessible_booking(&state, &access, &id).await?;
    let listed = i32::try_from(b.participants.len()).unwrap_or(i32::MAX);
    Ok(axum::Json(ParticipantList {
        booking_id: b.id.to_string(),
        party_size: b.party_size,
        unnamed_places: (b.party_size - listed).max(0),
        participants: ParticipantDto::list(&b.participants, access.is_staff()),
    }))
}

/// Add a participant to a place of the party not named yet (at most `partySize`
/// participants: raise the party first, or change a participant). The booking's token,
/// its customer, or staff with `admin:bookings:write`.
#[utoipa::path(post, path = "/api/v1/bookings/{bookingId}/participants", tag = "participants",
    params(("bookingId" = uuid::Uuid, Path)),
    security((), ("bearer" = [])),
    request_body = Participant,
    responses(
        (status = 201, body = ParticipantDto),
        (status = 400, description = "VALIDATION_ERROR", body = ErrorBody),
        (status = 404, description = "BOOKING_NOT_FOUND", body = ErrorBody),
        (status = 409, description = "CONFLICT: every place is named; INVALID_TRANSITION: the booking is cancelled, expired or completed", body = ErrorBody),
    ))]
pub async fn add_participant(
    State(state): State<AppState>,
    access: BookingAccess<can::WriteBookings>,
    Path(id): Path<String>,
    Json(body): Json<Participant>,
) -> ApiResult<(StatusCode, axum::Json<ParticipantDto>)> {
    let b = accessible_booking(&state, &access, &id).await?;
    let mut errors = FieldErrors::new();
    let input = check_participant(&mut errors, "participant", &body, state.now().date_naive());
    errors.finish().map_err(ApiError::validation)?;
    let p = state
        .store
        .add_participant(
            access.tenant.id(),
            b.id,
            input,
            &access.actor(&b),
            state.now(),
        )
        .await?;
    Ok((
        StatusCode::CREATED,
        axum::Json(ParticipantDto::of(&p, access.is_staff())),
    ))
}

/// Change a participant: only the fields sent; an empty text clears an optional field.
/// Once their waiver is signed, their name, birth date and age stay as signed
/// (ALREADY_SIGNED): remove them and add them again to sign anew.
#[utoipa::path(patch, path = "/api/v1/bookings/{bookingId}/participants/{participantId}", tag = "participants",
    params(("bookingId" = uuid::Uuid, Path), ("participantId" = uuid::Uuid, Path)),
    security((), ("bearer" = [])),
    request_body = Participant,
    responses(
        (status = 200, body = ParticipantDto),
        (status = 400, description = "VALIDATION_ERROR", body = ErrorBody),
        (status = 404, description = "BOOKING_NOT_FOUND; PARTICIPANT_NOT_FOUND", body = ErrorBody),
        (status = 409, description = "INVALID_TRANSITION: the booking is cancelled, expired or completed; ALREADY_SIGNED: a signed participant's name, birth date or age", body = ErrorBody),
    ))]
pub async fn update_participant(
    State(state): State<AppState>,
    access: BookingAccess<can::WriteBookings>,
    Path((id, participant)): Path<(String, String)>,
    Json(body): Json<Participant>,
) -> ApiResult<axum::Json<ParticipantDto>> {
    let b = accessible_booking(&state, &access, &id).await?;
    let participant = participant_id(&participant)?;
    let mut errors = FieldErrors::new();
    let checked = check(
        &mut errors,
        "participant",
        &body,
        state.now().date_naive(),
        false,
    );
    errors.finish().map_err(ApiError::validation)?;
    let p = state
        .store
        .update_participant(
            access.tenant.id(),
            b.id,
            participant,
            patch_of(&body, checked),
            &access.actor(&b),
            state.now(),
        )
        .await?;
    Ok(axum::Json(ParticipantDto::of(&p, access.is_staff())))
}

/// Remove a participant: their place becomes unnamed. A waiver they signed is kept as
/// evidence but no longer counts for the booking.
#[utoipa::path(delete, path = "/api/v1/bookings/{bookingId}/participants/{participantId}", tag = "participants",
    params(("bookingId" = uuid::Uuid, Path), ("participantId" = uuid::Uuid, Path)),
    security((), ("bearer" = [])),
    responses(
        (status = 204, description = "Removed"),
        (status = 404, description = "BOOKING_NOT_FOUND; PARTICIPANT_NOT_FOUND", body = ErrorBody),
        (status = 409, description = "INVALID_TRANSITION: the booking is cancelled, expired or completed", body = ErrorBody),
    ))]
pub async fn remove_participant(
    State(state): State<AppState>,
    access: BookingAccess<can::WriteBookings>,
    Path((id, participant)): Path<(String, String)>,
) -> ApiResult<StatusCode> {
    let b = accessible_booking(&state, &access, &id).await?;
    let participant = participant_id(&participant)?;
    state
        .store
        .remove_participant(
            access.tenant.id(),
            b.id,
            participant,
            &access.actor(&b),
            state.now(),
        )
        .await?;
    Ok(StatusCode::NO_CONTENT)
}
