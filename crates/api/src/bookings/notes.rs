//! Booking notes (spec Part A 2.3 and 4.3): staff notes on a booking at
//! `/api/v1/admin/bookings/{bookingId}/notes`.
//!
//! Reading needs `admin:bookings:read`; adding, changing and deleting need
//! `admin:bookings:write`. A booking id that names no booking of the tenant (or is not an
//! id at all) is 404 `BOOKING_NOT_FOUND`; a note id that names no note of that booking is
//! 404 `NOT_FOUND`. The permission is checked before the body's fields, and on update
//! the booking and note are found before the body is validated. Every change is
//! audited on the booking by the store.

use super::booking_not_found;
use crate::error::{ApiError, ApiResult, ErrorBody};
use crate::extract::{AdminAuth, Json, Staff, can, choose, decode_json};
use crate::openapi::schemas::{NoteCategorySchema, NotePrioritySchema};
use crate::state::AppState;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use chrono::{DateTime, Utc};
use kairos_domain::FieldErrors;
use kairos_domain::bookings::{NoteCategory, NotePriority};
use kairos_domain::ids::parse_id;
use kairos_store::{Booking, BookingNote, NewNote};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;
use uuid::Uuid;

/// The longest note content, in characters.
pub const MAX_CONTENT_CHARS: usize = 5000;

/// A note on a booking.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct NoteDto {
    pub note_id: String,
    pub booking_id: String,
    pub content: String,
    #[schema(value_type = NoteCategorySchema, example = "special_request")]
    pub category: String,
    #[schema(value_type = NotePrioritySchema, example = "normal")]
    pub priority: String,
    /// Internal notes are for staff only.
    pub is_internal: bool,
    /// Id of the staff member who wrote the note.
    pub created_by: String,
    pub created_by_name: String,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

impl From<&BookingNote> for NoteDto {
    fn from(n: &BookingNote) -> Self {
        NoteDto {
            note_id: n.id.to_string(),
            booking_id: n.booking_id.to_string(),
            content: n.content.clone(),
            category: n.category.as_str().to_owned(),
            priority: n.priority.as_str().to_owned(),
            is_internal: n.is_internal,
            created_by: n.created_by.clone(),
            created_by_name: n.created_by_name.clone(),
            created_at: n.created_at,
            updated_at: n.updated_at,
        }
    }
}

/// The notes of a booking, oldest first.
#[derive(Debug, Serialize, ToSchema)]
pub struct NoteList {
    pub notes: Vec<NoteDto>,
}

/// `POST …/notes` (content required) and `PATCH …/notes/{noteId}` (every field
/// optional; only the fields sent change, `null` counts as not sent).
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct NoteInput {
    /// 1 to 5000 characters (surrounding whitespace is trimmed).
    #[schema(min_length = 1, max_length = 5000)]
    pub content: Option<String>,
    /// Default general.
    #[schema(value_type = Option<NoteCategorySchema>, example = "general")]
    pub category: Option<String>,
    /// Default normal.
    #[schema(value_type = Option<NotePrioritySchema>, example = "normal")]
    pub priority: Option<String>,
    /// Default true.
    pub is_internal: Option<bool>,
}

crate::openapi::schemas::create_form!(
    /// The create form of [`NoteInput`].
    NoteCreate = NoteInput,
    "NoteCreate",
    ["content"]
);

/// Applies the fields of `input` that were sent onto `base`, recording every bad one.
fn merge(errors: &mut FieldErrors, base: NewNote, input: NoteInput) -> NewNote {
    let mut note = base;
    if let Some(content) = input.content {
        let content = content.trim();
        if content.is_empty() {
            errors.add("content", "must not be empty");
        } else if content.chars().count() > MAX_CONTENT_CHARS {
            errors.add(
                "content",
                format!("must be at most {MAX_CONTENT_CHARS} characters"),
            );
        }
        content.clone_into(&mut note.content);
    }
    note.category = choose(
        errors,
        "category",
        input.category.as_deref(),
        note.category,
        false,
        NoteCategory::parse,
        NoteCategory::choices(),
    );
    note.priority = choose(
        errors,
        "priority",
        input.priority.as_deref(),
        note.priority,
        false,
        NotePriority::parse,
        NotePriority::choices(),
    );
    if let Some(is_internal) = input.is_internal {
        note.is_internal = is_internal;
    }
    note
}

/// The booking of the path; 404 `BOOKING_NOT_FOUND` when it names no booking of the
/// tenant.
async fn booking_of(state: &AppState, auth: &AdminAuth, raw_id: &str) -> ApiResult<Booking> {
    let id = parse_id(raw_id).ok_or_else(booking_not_found)?;
    state
        .store
        .get_booking(auth.tenant.id(), id)
        .await?
        .ok_or_else(booking_not_found)
}

/// The note `raw_id` of `booking`; 404 `NOT_FOUND` when the booking has no such note.
async fn note_of(
    state: &AppState,
    auth: &AdminAuth,
    booking: Uuid,
    raw_id: &str,
) -> ApiResult<BookingNote> {
    let id = parse_id(raw_id).ok_or_else(|| ApiError::not_found("Note"))?;
    state
        .store
        .list_notes(auth.tenant.id(), vec![booking])
        .await?
        .into_iter()
        .find(|n| n.id == id)
        .ok_or_else(|| ApiError::not_found("Note"))
}

/// Add a note to a booking.
///
/// `content` is required (1 to 5000 characters); `category` defaults to `general`,
/// `priority` to `normal` and `isInternal` to true. The note records the staff member
/// who wrote it.
#[utoipa::path(post, path = "/api/v1/admin/bookings/{bookingId}/notes", tag = "admin-bookings",
    security(("bearer" = [])),
    params(
        ("bookingId" = uuid::Uuid, Path, description = "Booking id"),
    ),
    request_body = NoteCreate,
    responses(
        (status = 200, description = "The note", body = NoteDto),
        (status = 400, description = "VALIDATION_ERROR naming content, category, priority or isInternal", body = ErrorBody),
        (status = 401, description = "UNAUTHORIZED: missing or invalid token", body = ErrorBody),
        (status = 403, description = "INSUFFICIENT_PERMISSIONS: needs admin:bookings:write", body = ErrorBody),
        (status = 404, description = "BOOKING_NOT_FOUND", body = ErrorBody),
    ))]
pub async fn add_note(
    State(state): State<AppState>,
    auth: Staff<can::WriteBookings>,
    Path(booking_id): Path<String>,
    Json(body): Json<Value>,
) -> ApiResult<(StatusCode, axum::Json<NoteDto>)> {
    let booking = parse_id(&booking_id).ok_or_else(booking_not_found)?;
    let input: NoteInput = decode_json(body)?;
    let mut errors = FieldErrors::new();
    if input.content.is_none() {
        errors.add("content", "is required");
    }
    let base = NewNote {
        content: String::new(),
        category: NoteCategory::General,
        priority: NotePriority::Normal,
        is_internal: true,
    };
    let new = merge(&mut errors, base, input);
    if !errors.is_empty() {
        return Err(ApiError::validation(errors));
    }
    let note = state
        .store
        .create_note(auth.tenant.id(), booking, new, &auth.actor(), state.now())
        .await?;
    Ok((StatusCode::OK, axum::Json(NoteDto::from(&note))))
}

/// The notes of a booking, oldest first.
#[utoipa::path(get, path = "/api/v1/admin/bookings/{bookingId}/notes", tag = "admin-bookings",
    security(("bearer" = [])),
    params(
        ("bookingId" = uuid::Uuid, Path, description = "Booking id"),
    ),
    responses(
        (status = 200, description = "The booking's notes (an empty list when it has none)", body = NoteList),
        (status = 401, description = "UNAUTHORIZED: missing or invalid token", body = ErrorBody),
        (status = 403, description = "INSUFFICIENT_PERMISSIONS: needs admin:bookings:read", body = ErrorBody),
        (status = 404, description = "BOOKING_NOT_FOUND", body = ErrorBody),
    ))]
pub async fn list_notes(
    State(state): State<AppState>,
    auth: Staff<can::ReadBookings>,
    Path(booking_id): Path<String>,
) -> ApiResult<axum::Json<NoteList>> {
    let booking = booking_of(&state, &auth, &booking_id).await?;
    let notes = state
        .store
        .list_notes(auth.tenant.id(), vec![booking.id])
        .await?;
    Ok(axum::Json(NoteList {
        notes: notes.iter().map(NoteDto::from).collect(),
    }))
}

/// Change a note: only the fields sent change.
///
/// A body that changes nothing answers the note as it is (its `updatedAt` stays).
#[utoipa::path(patch, path = "/api/v1/admin/bookings/{bookingId}/notes/{noteId}", tag = "admin-bookings",
    security(("bearer" = [])),
    params(
        ("bookingId" = uuid::Uuid, Path, description = "Booking id"),
        ("noteId" = uuid::Uuid, Path, description = "Note id"),
    ),
    request_body = NoteInput,
    responses(
        (status = 200, description = "The changed note", body = NoteDto),
        (status = 400, description = "VALIDATION_ERROR naming content, category, priority or isInternal", body = ErrorBody),
        (status = 401, description = "UNAUTHORIZED: missing or invalid token", body = ErrorBody),
        (status = 403, description = "INSUFFICIENT_PERMISSIONS: needs admin:bookings:write", body = ErrorBody),
        (status = 404, description = "BOOKING_NOT_FOUND; NOT_FOUND when the booking has no such note", body = ErrorBody),
    ))]
pub async fn update_note(
    State(state): State<AppState>,
    auth: Staff<can::WriteBookings>,
    Path((booking_id, note_id)): Path<(String, String)>,
    Json(body): Json<Value>,
) -> ApiResult<axum::Json<NoteDto>> {
    let booking = booking_of(&state, &auth, &booking_id).await?;
    let current = note_of(&state, &auth, booking.id, &note_id).await?;
    let input: NoteInput = decode_json(body)?;
    let base = NewNote {
        content: current.content.clone(),
        category: current.category,
        priority: current.priority,
        is_internal: current.is_internal,
    };
    let mut errors = FieldErrors::new();
    let new = merge(&mut errors, base, input);
    if !errors.is_empty() {
        return Err(ApiError::validation(errors));
    }
    if new.content == current.content
        && new.category == current.category
        && new.priority == current.priority
        && new.is_internal == current.is_internal
    {
        return Ok(axum::Json(NoteDto::from(&current)));
    }
    let note = state
        .store
        .update_note(
            auth.tenant.id(),
            booking.id,
            current.id,
            new,
            &auth.actor(),
            state.now(),
        )
        .await?;
    Ok(axum::Json(NoteDto::from(&note)))
}

/// Delete a note.
#[utoipa::path(delete, path = "/api/v1/admin/bookings/{bookingId}/notes/{noteId}", tag = "admin-bookings",
    security(("bearer" = [])),
    params(
        ("bookingId" = uuid::Uuid, Path, description = "Booking id"),
        ("noteId" = uuid::Uuid, Path, description = "Note id"),
    ),
    responses(
        (status = 200, description = "Deleted", body = crate::deleted::Deleted),
        (status = 401, description = "UNAUTHORIZED: missing or invalid token", body = ErrorBody),
        (status = 403, description = "INSUFFICIENT_PERMISSIONS: needs admin:bookings:write", body = ErrorBody),
        (status = 404, description = "BOOKING_NOT_FOUND; NOT_FOUND when the booking has no such note", body = ErrorBody),
    ))]
pub async fn delete_note(
    State(state): State<AppState>,
    auth: Staff<can::WriteBookings>,
    Path((booking_id, note_id)): Path<(String, String)>,
) -> ApiResult<axum::Json<crate::deleted::Deleted>> {
    let booking = booking_of(&state, &auth, &booking_id).await?;
    let id = parse_id(&note_id).ok_or_else(|| ApiError::not_found("Note"))?;
    state
        .store
        .delete_note(auth.tenant.id(), booking.id, id, &auth.actor(), state.now())
        .await?;
    Ok(crate::deleted::Deleted::of("Note deleted", id))
}
