//! Staff's actions on an open dead letter: retry now, resolve by hand, skip with a reason.

use super::list::{DeadLetterDto, dto, letter_id};
use crate::error::{ApiError, ApiResult, ShapeBBody};
use crate::extract::{Json, Staff, can};
use crate::state::AppState;
use axum::extract::{Path, State};
use kairos_domain::FieldErrors;
use kairos_domain::dead_letters::Action;
use serde::Deserialize;
use utoipa::ToSchema;

/// Longest note or reason, in characters.
const NOTE_MAX: usize = 2000;

/// Why, or how.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DeadLetterNote {
    /// Resolve: how it was handled (optional). Skip: why (required).
    #[schema(max_length = 2000)]
    pub note: Option<String>,
    /// The same as `note` (skip's reason).
    #[schema(max_length = 2000)]
    pub reason: Option<String>,
}

async fn act(
    state: &AppState,
    auth: &Staff<can::Write>,
    raw: &str,
    action: Action,
    note: Option<String>,
) -> ApiResult<axum::Json<DeadLetterDto>> {
    let id = letter_id(raw)?;
    let d = state
        .store
        .act_on_dead_letter(
            auth.tenant.id(),
            id,
            action,
            note,
            &auth.actor(),
            state.now(),
        )
        .await?;
    Ok(axum::Json(dto(d)))
}

fn note_of(input: DeadLetterNote, required: bool) -> ApiResult<Option<String>> {
    let note = input
        .reason
        .or(input.note)
        .map(|n| n.trim().to_owned())
        .filter(|n| !n.is_empty());
    let mut errors = FieldErrors::new();
    match &note {
        None if required => errors.add("reason", "is required: say why it is skipped"),
        Some(n) if n.chars().count() > NOTE_MAX => {
            errors.add("reason", format!("must be at most {NOTE_MAX} characters"));
        }
        _ => {}
    }
    errors
        .finish()
        .map_err(|e| ApiError::validation(e).shape_b())?;
    Ok(note)
}

/// Retry now: the work goes back to the outbox for an attempt at once, with a fresh round
/// of attempts; the dead letter is `retrying` until it succeeds (then `resolved`) or fails
/// again (then `open`). Needs `admin:write`.
#[utoipa::path(post, path = "/api/v1/admin/dead-letters/{id}/retry", tag = "dead-letters", security(("bearer" = [])),
    params(("id" = uuid::Uuid, Path)),
    responses((status = 200, body = DeadLetterDto),
        (status = 404, description = "Dead letter not found (shape B)", body = ShapeBBody),
        (status = 409, description = "INVALID_TRANSITION: it is not open (shape B)", body = ShapeBBody)))]
pub async fn retry_dead_letter(
    State(state): State<AppState>,
    auth: Staff<can::Write>,
    Path(id): Path<String>,
) -> ApiResult<axum::Json<DeadLetterDto>> {
    act(&state, &auth, &id, Action::Retry, None).await
}

/// Resolve by hand (the customer was called, say), with an optional note. Needs
/// `admin:write`.
#[utoipa::path(post, path = "/api/v1/admin/dead-letters/{id}/resolve", tag = "dead-letters", security(("bearer" = [])),
    params(("id" = uuid::Uuid, Path)),
    request_body = DeadLetterNote,
    responses((status = 200, body = DeadLetterDto),
        (status = 400, description = "Shape B with errors[]", body = ShapeBBody),
        (status = 404, description = "Dead letter not found (shape B)", body = ShapeBBody),
        (status = 409, description = "INVALID_TRANSITION: it is not open (shape B)", body = ShapeBBody)))]
pub async fn resolve_dead_letter(
    State(state): State<AppState>,
    auth: Staff<can::Write>,
    Path(id): Path<String>,
    Json(input): Json<DeadLetterNote>,
) -> ApiResult<axum::Json<DeadLetterDto>> {
    let note = note_of(input, false)?;
    act(&state, &auth, &id, Action::Resolve, note).await
}

/// Skip with a reason (required): it will not be done; a message is canceled. Needs
/// `admin:write`.
#[utoipa::path(post, path = "/api/v1/admin/dead-letters/{id}/skip", tag = "dead-letters", security(("bearer" = [])),
    params(("id" = uuid::Uuid, Path)),
    request_body = DeadLetterNote,
    responses((status = 200, body = DeadLetterDto),
        (status = 400, description = "Shape B with errors[]: no reason", body = ShapeBBody),
        (status = 404, description = "Dead letter not found (shape B)", body = ShapeBBody),
        (status = 409, description = "INVALID_TRANSITION: it is not open (shape B)", body = ShapeBBody)))]
pub async fn skip_dead_letter(
    State(state): State<AppState>,
    auth: Staff<can::Write>,
    Path(id): Path<String>,
    Json(input): Json<DeadLetterNote>,
) -> ApiResult<axum::Json<DeadLetterDto>> {
    let note = note_of(input, true)?;
    act(&state, &auth, &id, Action::Skip, note).await
}
