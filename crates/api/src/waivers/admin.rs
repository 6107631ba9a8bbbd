//! Staff's waiver endpoints: the signature list, a booking's waivers, paper waivers
//! collected at the desk and signing links.

use super::dto::{SignatureDto, document_url};
use crate::bookings::{booking_not_found, clean, free_text, short_text};
use crate::error::{ApiError, ApiResult, ErrorBody};
use crate::extract::{Json, Query, Staff, can, page_param, range_bound, uuid_param};
use crate::state::AppState;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use chrono::{DateTime, Utc};
use kairos_domain::FieldErrors;
use kairos_domain::ids::parse_id;
use kairos_domain::waivers::{
    BOOKING_SUBJECT, MAX_SIGNATURE_PAGE_SIZE, RequirementStatus, SIGNATURE_PAGE_SIZE,
    SignatureMethod, WaiverCheckIn,
};
use kairos_store::{BookingWaivers, PaperWaiver, SignatureFilter, WaiverSignature};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

/// Query of `GET /waivers/signatures`.
#[derive(Debug, Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query, rename_all = "camelCase")]
pub struct SignaturesQuery {
    #[param(value_type = Option<Uuid>)]
    pub booking_id: Option<String>,
    #[param(value_type = Option<Uuid>)]
    pub template_id: Option<String>,
    /// A date or timestamp: signed at or after it.
    pub signed_after: Option<String>,
    /// A date (through its end) or timestamp: signed before it.
    pub signed_before: Option<String>,
    /// From 1 (default 1).
    #[param(value_type = Option<u32>, minimum = 1, maximum = 1000000)]
    pub page: Option<String>,
    /// 1 to 100, default 20.
    #[param(value_type = Option<u32>, minimum = 1, maximum = 100)]
    pub page_size: Option<String>,
}

/// One page of signatures, newest first.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct WaiverSignatureList {
    pub signatures: Vec<SignatureDto>,
    pub page: u32,
    pub page_size: u32,
    pub total: u64,
}

/// Signed waivers with their evidence, newest first. Needs `admin:bookings:read`.
#[utoipa::path(get, path = "/api/v1/waivers/signatures", tag = "waivers", security(("bearer" = [])),
    params(SignaturesQuery),
    responses(
        (status = 200, body = WaiverSignatureList),
        (status = 400, description = "VALIDATION_ERROR", body = ErrorBody),
        (status = 403, description = "INSUFFICIENT_PERMISSIONS", body = ErrorBody),
    ))]
pub async fn list_signatures(
    State(state): State<AppState>,
    auth: Staff<can::ReadBookings>,
    Query(q): Query<SignaturesQuery>,
) -> ApiResult<axum::Json<WaiverSignatureList>> {
    let mut errors = FieldErrors::new();
    let filter = SignatureFilter {
        booking_id: uuid_param(&mut errors, "bookingId", q.booking_id.as_deref()),
        template_id: uuid_param(&mut errors, "templateId", q.template_id.as_deref()),
        signed_after: range_bound(&mut errors, "signedAfter", q.signed_after.as_deref(), false),
        signed_before: range_bound(
            &mut errors,
            "signedBefore",
            q.signed_before.as_deref(),
            true,
        ),
    };
    let page = page_param(&mut errors, "page", q.page.as_deref(), 1, 1_000_000);
    let page_size = page_param(
        &mut errors,
        "pageSize",
        q.page_size.as_deref(),
        SIGNATURE_PAGE_SIZE,
        MAX_SIGNATURE_PAGE_SIZE,
    );
    errors.finish().map_err(ApiError::validation)?;
    let (rows, total) = state
        .store
        .waiver_signatures(auth.tenant.id(), filter, page, page_size)
        .await?;
    Ok(axum::Json(WaiverSignatureList {
        signatures: rows.iter().map(SignatureDto::of).collect(),
        page,
        page_size,
        total,
    }))
}

/// Who a requirement is for.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RequirementParticipant {
    /// Null: a person of the party not named yet.
    pub participant_id: Option<String>,
    pub name: Option<String>,
    pub is_minor: bool,
}

/// One waiver a booking needs: one per person of the party; a whole-booking (legacy)
/// signature is listed after them.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RequiredWaiver {
    /// For `POST /admin/waivers/{waiverRequestId}/remind`: the participant's id, or the
    /// booking's for an unnamed person (the link then goes to the customer).
    pub waiver_request_id: String,
    /// The waiver's name.
    #[serde(rename = "type")]
    pub waiver_type: String,
    #[schema(value_type = String, example = "pending")]
    pub status: String,
    pub signed_by: Option<String>,
    pub signed_at: Option<DateTime<Utc>>,
    pub signature_id: Option<String>,
    /// The printable signed waiver (staff).
    pub document_url: Option<String>,
    pub participant: RequirementParticipant,
    /// When a signing link last went out for it (staff or an automatic reminder).
    pub reminder_sent: Option<DateTime<Utc>>,
}

/// A booking's waivers as staff see them.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AdminBookingWaivers {
    pub booking_id: String,
    pub requires_waiver: bool,
    pub required_waivers: Vec<RequiredWaiver>,
    pub all_waivers_complete: bool,
    /// Whether check-in may go ahead: the waivers are complete, or the product only warns.
    pub can_proceed: bool,
    /// What check-in does while waivers are missing: warn or refuse (the product's setting).
    pub check_in: String,
    pub missing_count: u32,
}

fn status_of(s: &WaiverSignature) -> RequirementStatus {
    match s.method {
        SignatureMethod::Online => RequirementStatus::Signed,
        SignatureMethod::Paper => RequirementStatus::CollectedOffline,
    }
}

fn requirements(b: &BookingWaivers) -> Vec<RequiredWaiver> {
    let waiver_type = b
        .template_for(None)
        .map_or_else(|| "Waiver".to_owned(), |t| t.name.clone());
    let reminded = |subject: &str| {
        b.reminders
            .iter()
            .filter(|(s, _)| s == subject || s == BOOKING_SUBJECT)
            .map(|(_, t)| *t)
            .max()
    };
    let signed = |s: &WaiverSignature, participant: RequirementParticipant, request: String| {
        RequiredWaiver {
            waiver_request_id: request,
            waiver_type: s.template_name.clone(),
            status: status_of(s).as_str().to_owned(),
            signed_by: Some(s.signed_by_name.clone()),
            signed_at: Some(s.signed_at),
            signature_id: Some(s.id.to_string()),
            document_url: Some(document_url(s.id)),
            participant,
            reminder_sent: None,
        }
    };
    let mut out: Vec<RequiredWaiver> = b
        .participants
        .iter()
        .map(|p| {
            let who = RequirementParticipant {
                participant_id: Some(p.id.to_string()),
                name: Some(p.full_name()),
                is_minor: b.is_minor(p),
            };
            match b.signature_of(p.id) {
                Some(s) => signed(s, who, p.id.to_string()),
                None => RequiredWaiver {
                    waiver_request_id: p.id.to_string(),
                    waiver_type: waiver_type.clone(),
                    status: RequirementStatus::Pending.as_str().to_owned(),
                    signed_by: None,
                    signed_at: None,
                    signature_id: None,
                    document_url: None,
                    participant: who,
                    reminder_sent: reminded(&p.id.to_string()),
                },
            }
        })
        .collect();
    let unnamed = usize::try_from(b.party_size)
        .unwrap_or(0)
        .saturating_sub(b.participants.len());
    out.extend((0..unnamed).map(|_| RequiredWaiver {
        waiver_request_id: b.booking_id.to_string(),
        waiver_type: waiver_type.clone(),
        status: RequirementStatus::Pending.as_str().to_owned(),
        signed_by: None,
        signed_at: None,
        signature_id: None,
        document_url: None,
        participant: RequirementParticipant {
            participant_id: None,
            name: None,
            is_minor: false,
        },
        reminder_sent: reminded(BOOKING_SUBJECT),
    }));
    // The booker's whole-booking (legacy) acceptance is listed too; it stands for no one
    // in particular, so each place above still needs its own.
    if let Some(s) = b.booking_signature() {
        out.push(signed(
            s,
            RequirementParticipant {
                participant_id: None,
                name: Some(s.participant_name.clone()),
                is_minor: false,
            },
            b.booking_id.to_string(),
        ));
    }
    if !b.requires_waiver {
        // Nothing is required: only what was signed anyway is listed.
        out.retain(|r| r.signature_id.is_some());
    }
    out
}

fn admin_view(b: &BookingWaivers) -> AdminBookingWaivers {
    let missing = b.missing();
    AdminBookingWaivers {
        booking_id: b.booking_id.to_string(),
        requires_waiver: b.requires_waiver,
        required_waivers: requirements(b),
        all_waivers_complete: missing == 0,
        can_proceed: missing == 0 || b.check_in == WaiverCheckIn::Warn,
        check_in: b.check_in.as_str().to_owned(),
        missing_count: missing,
    }
}

async fn staff_booking(
    state: &AppState,
    tenant: &kairos_domain::TenantId,
    raw: &str,
) -> ApiResult<BookingWaivers> {
    let id = parse_id(raw).ok_or_else(booking_not_found)?;
    state
        .store
        .booking_waivers(tenant, id)
        .await?
        .ok_or_else(booking_not_found)
}

/// A booking's waivers: one per person of the party, signed, collected on paper or
/// pending, with the printable document and the last signing link sent. Needs
/// `admin:bookings:read`.
#[utoipa::path(get, path = "/api/v1/admin/waivers/booking/{bookingId}", tag = "waivers", security(("bearer" = [])),
    params(("bookingId" = Uuid, Path)),
    responses(
        (status = 200, body = AdminBookingWaivers),
        (status = 403, description = "INSUFFICIENT_PERMISSIONS", body = ErrorBody),
        (status = 404, description = "BOOKING_NOT_FOUND", body = ErrorBody),
    ))]
pub async fn booking_waivers(
    State(state): State<AppState>,
    auth: Staff<can::ReadBookings>,
    Path(id): Path<String>,
) -> ApiResult<axum::Json<AdminBookingWaivers>> {
    let b = staff_booking(&state, auth.tenant.id(), &id).await?;
    Ok(axum::Json(admin_view(&b)))
}

/// `POST /admin/waivers/manual`.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ManualWaiverBody {
    #[schema(value_type = Uuid)]
    pub booking_id: Option<String>,
    /// What the paper was (default: the waiver's name).
    pub waiver_type: Option<String>,
    /// The participant it is for; else found by `participantName`, else added to the
    /// booking in a place not named yet.
    #[schema(value_type = Option<Uuid>)]
    pub participant_id: Option<String>,
    /// Required unless `participantId` is given.
    pub participant_name: Option<String>,
    /// The paper was signed in front of staff (must be true: a paper waiver is recorded
    /// once staff hold it).
    pub signed_in_person: Option<bool>,
    /// Who signed the paper (the participant, or a guardian). Required.
    pub signed_by: Option<String>,
    pub notes: Option<String>,
    /// Where the paper is filed.
    pub paper_waiver_reference: Option<String>,
}

/// Record a paper waiver collected at the desk. The participant's waiver is then
/// `collected_offline`. Needs `admin:bookings:write`.
#[utoipa::path(post, path = "/api/v1/admin/waivers/manual", tag = "waivers", security(("bearer" = [])),
    request_body = ManualWaiverBody,
    responses(
        (status = 201, body = SignatureDto),
        (status = 400, description = "VALIDATION_ERROR", body = ErrorBody),
        (status = 403, description = "INSUFFICIENT_PERMISSIONS", body = ErrorBody),
        (status = 404, description = "BOOKING_NOT_FOUND; PARTICIPANT_NOT_FOUND (no participant with that id)", body = ErrorBody),
        (status = 409, description = "ALREADY_SIGNED; CONFLICT (no participant of that name, and no place left to add one); INVALID_TRANSITION (a cancelled or expired booking)", body = ErrorBody),
    ))]
pub async fn manual_waiver(
    State(state): State<AppState>,
    auth: Staff<can::WriteBookings>,
    Json(body): Json<ManualWaiverBody>,
) -> ApiResult<(StatusCode, axum::Json<SignatureDto>)> {
    let booking = match body.booking_id.as_deref() {
        None | Some("") => return Err(ApiError::invalid_field("bookingId", "is required")),
        Some(raw) => parse_id(raw).ok_or_else(booking_not_found)?,
    };
    let mut errors = FieldErrors::new();
    let participant_id = match clean(body.participant_id.as_deref()) {
        None => None,
        Some(raw) => Some(parse_id(&raw).ok_or_else(super::participant_not_found)?),
    };
    let mut line = |field: &str, raw: Option<&str>, max: usize| {
        let v = clean(raw);
        if v.as_deref().is_some_and(|v| !short_text(v, max)) {
            errors.add(
                field,
                format!("must be one line of at most {max} characters"),
            );
        }
        v
    };
    let participant_name = line("participantName", body.participant_name.as_deref(), 201);
    let signed_by = line("signedBy", body.signed_by.as_deref(), 200);
    let waiver_type = line("waiverType", body.waiver_type.as_deref(), 200);
    let reference = line(
        "paperWaiverReference",
        body.paper_waiver_reference.as_deref(),
        100,
    );
    if participant_id.is_none() && participant_name.is_none() {
        errors.add("participantName", "is required (or give participantId)");
    }
    if signed_by.is_none() {
        errors.add("signedBy", "is required: who signed the paper");
    }
    if body.signed_in_person == Some(false) {
        errors.add(
            "signedInPerson",
            "must be true: record a paper waiver once staff hold it (send a signing link otherwise)",
        );
    }
    let notes = clean(body.notes.as_deref());
    if notes.as_deref().is_some_and(|n| !free_text(n, 2000)) {
        errors.add(
            "notes",
            "must be at most 2000 characters without control characters",
        );
    }
    errors.finish().map_err(ApiError::validation)?;
    let s = state
        .store
        .record_paper_waiver(
            auth.tenant.id(),
            PaperWaiver {
                booking_id: booking,
                participant_id,
                participant_name: participant_name.unwrap_or_default(),
                waiver_type,
                signed_by: signed_by.unwrap_or_default(),
                notes,
                paper_reference: reference,
            },
            &auth.actor(),
            state.now(),
        )
        .await?;
    Ok((StatusCode::CREATED, axum::Json(SignatureDto::of(&s))))
}

/// A signing link sent.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ReminderSent {
    pub booking_id: String,
    pub participant_id: Option<String>,
    /// The address written to.
    pub sent_to: String,
    /// The message queued; null when the recipient's choices or a missing address held it
    /// back.
    pub message_id: Option<String>,
    pub sent_at: DateTime<Utc>,
}

/// Send a signing link by email: for a participant (to their email, else the
/// customer's), or, with the booking's id, for the whole party (to the customer). Needs
/// `admin:bookings:write`.
#[utoipa::path(post, path = "/api/v1/admin/waivers/{waiverRequestId}/remind", tag = "waivers", security(("bearer" = [])),
    params(("waiverRequestId" = Uuid, Path, description = "A participant's id, or a booking's id")),
    responses(
        (status = 200, body = ReminderSent),
        (status = 403, description = "INSUFFICIENT_PERMISSIONS", body = ErrorBody),
        (status = 404, description = "WAIVER_NOT_FOUND: no such participant or booking", body = ErrorBody),
        (status = 409, description = "ALREADY_SIGNED; CONFLICT (a link went to the same person less than a minute ago); INVALID_TRANSITION (a cancelled or expired booking)", body = ErrorBody),
    ))]
pub async fn remind(
    State(state): State<AppState>,
    auth: Staff<can::WriteBookings>,
    Path(id): Path<String>,
) -> ApiResult<axum::Json<ReminderSent>> {
    let not_found = || {
        super::waiver_not_found(
            "No waiver request with this id: give a participant's id or a booking's id",
        )
    };
    let id = parse_id(&id).ok_or_else(not_found)?;
    let tenant = auth.tenant.id();
    let (booking, participant) = match state.store.participant_booking(tenant, id).await? {
        Some(b) => (b, Some(id)),
        None => (id, None),
    };
    let now = state.now();
    let (sent_to, message) = state
        .store
        .send_waiver_link(tenant, booking, participant, &auth.actor(), now)
        .await
        .map_err(|e| match e {
            kairos_store::WaiverError::BookingNotFound => not_found(),
            other => other.into(),
        })?;
    Ok(axum::Json(ReminderSent {
        booking_id: booking.to_string(),
        participant_id: participant.map(|p| p.to_string()),
        sent_to,
        message_id: message.map(|m| m.to_string()),
        sent_at: now,
    }))
}
