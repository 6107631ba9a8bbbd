//! The public waiver endpoints (spec Part B 4.5; only the tenant header): the booking's
//! status, its participants' status, and signing.

use super::dto::{ActiveWaiver, ParticipantWaiverStatus};
use crate::bookings::{booking_not_found, clean, short_text};
use crate::error::{ApiError, ApiResult, ErrorBody};
use crate::extract::{ClientAddress, Json, Query, Tenant};
use crate::state::AppState;
use axum::extract::{Path, State};
use axum::http::HeaderMap;
use chrono::{DateTime, Utc};
use kairos_domain::FieldErrors;
use kairos_domain::customers::Email;
use kairos_domain::ids::parse_id;
use kairos_domain::waivers::parse_signature;
use kairos_store::{BookingWaivers, SignatureInput};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

async fn load(state: &AppState, tenant: &Tenant, raw: &str) -> ApiResult<BookingWaivers> {
    let id = parse_id(raw).ok_or_else(booking_not_found)?;
    state
        .store
        .booking_waivers(tenant.id(), id)
        .await?
        .ok_or_else(booking_not_found)
}

/// Who signs, as sent (both signing endpoints).
struct Signer {
    name: String,
    email: String,
    image: Option<kairos_domain::waivers::SignatureImage>,
    relationship: Option<String>,
}

fn signer(
    errors: &mut FieldErrors,
    name: Option<&str>,
    email: Option<&str>,
    data: Option<&str>,
    relationship: Option<&str>,
) -> Signer {
    let name = clean(name);
    match &name {
        None => errors.add("signedByName", "is required"),
        Some(n) if !short_text(n, 200) => {
            errors.add("signedByName", "must be one line of at most 200 characters");
        }
        Some(_) => {}
    }
    let email = match clean(email) {
        None => {
            errors.add("signedByEmail", "is required");
            None
        }
        Some(e) => errors
            .check("signedByEmail", Email::parse(&e))
            .map(Email::into_string),
    };
    let image = clean(data).and_then(|d| errors.check("signatureData", parse_signature(&d)));
    let relationship = clean(relationship);
    if relationship.as_deref().is_some_and(|r| !short_text(r, 100)) {
        errors.add(
            "guardianRelationship",
            "must be one line of at most 100 characters",
        );
    }
    Signer {
        name: name.unwrap_or_default(),
        email: email.unwrap_or_default(),
        image,
        relationship,
    }
}

/// A template id sent with a signature: text that is not an id names no template.
fn template_param(raw: Option<&str>) -> ApiResult<Option<Uuid>> {
    clean(raw)
        .map(|raw| {
            parse_id(&raw).ok_or_else(|| super::waiver_not_found("Waiver template not found"))
        })
        .transpose()
}

fn user_agent(headers: &HeaderMap) -> Option<String> {
    headers
        .get(axum::http::header::USER_AGENT)
        .and_then(|v| v.to_str().ok())
        .map(|v| v.chars().take(500).collect())
}

/// `POST /waivers/sign`.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct LegacySignBody {
    #[schema(value_type = Uuid)]
    pub booking_id: Option<String>,
    /// The template signed (default: the active one covering the booking).
    #[schema(value_type = Option<Uuid>)]
    pub template_id: Option<String>,
    pub signed_by_email: Option<String>,
    pub signed_by_name: Option<String>,
    /// Base64 of a PNG or SVG image (a `data:image/png;base64,` prefix allowed), at most
    /// 200 KB.
    pub signature_data: Option<String>,
    /// Accepted for compatibility; the evidence records the address the request came from.
    pub ip_address: Option<String>,
}

/// `{signatureId, signedAt}`.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct LegacySigned {
    pub signature_id: String,
    pub signed_at: DateTime<Utc>,
}

/// The spec's envelope.
#[derive(Debug, Serialize, ToSchema)]
pub struct LegacySignEnvelope {
    pub success: bool,
    pub data: LegacySigned,
}

/// Sign one waiver for the whole booking (legacy: the booker's acceptance for the
/// booking). It stands for no one in particular: where the activity needs everyone's
/// waiver, each participant still signs their own. The evidence kept: time, the request's
/// address and user agent, the signer's name and email, the template's version and a
/// hash of its text. Public: only the tenant header.
#[utoipa::path(post, path = "/api/v1/waivers/sign", tag = "waivers", security(()),
    request_body = LegacySignBody,
    responses(
        (status = 200, body = LegacySignEnvelope),
        (status = 400, description = "VALIDATION_ERROR", body = ErrorBody),
        (status = 404, description = "BOOKING_NOT_FOUND; WAIVER_NOT_FOUND", body = ErrorBody),
        (status = 409, description = "ALREADY_SIGNED; TEMPLATE_INACTIVE; INVALID_TRANSITION (a cancelled or expired booking)", body = ErrorBody),
    ))]
pub async fn legacy_sign(
    State(state): State<AppState>,
    tenant: Tenant,
    client: ClientAddress,
    headers: HeaderMap,
    Json(body): Json<LegacySignBody>,
) -> ApiResult<axum::Json<LegacySignEnvelope>> {
    let booking = match body.booking_id.as_deref() {
        None | Some("") => return Err(ApiError::invalid_field("bookingId", "is required")),
        Some(raw) => parse_id(raw).ok_or_else(booking_not_found)?,
    };
    let mut errors = FieldErrors::new();
    let template_id = template_param(body.template_id.as_deref())?;
    let s = signer(
        &mut errors,
        body.signed_by_name.as_deref(),
        body.signed_by_email.as_deref(),
        body.signature_data.as_deref(),
        None,
    );
    if let Some(ip) = clean(body.ip_address.as_deref())
        && ip.parse::<std::net::IpAddr>().is_err()
    {
        errors.add("ipAddress", "must be an IPv4 or IPv6 address");
    }
    errors.finish().map_err(ApiError::validation)?;
    let signature = state
        .store
        .sign_waiver(
            tenant.id(),
            SignatureInput {
                booking_id: booking,
                participant_id: None,
                template_id,
                locale: None,
                signed_by_name: s.name,
                signed_by_email: s.email,
                image: s.image,
                is_guardian_signature: None,
                guardian_relationship: None,
                ip_address: client.0,
                user_agent: user_agent(&headers),
            },
            state.now(),
        )
        .await?;
    Ok(axum::Json(LegacySignEnvelope {
        success: true,
        data: LegacySigned {
            signature_id: signature.id.to_string(),
            signed_at: signature.signed_at,
        },
    }))
}

/// A booking's waiver status.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct BookingWaiverStatus {
    pub requires_waiver: bool,
    /// The booking's waiver is signed: for the whole booking by the legacy endpoint, or by
    /// every person of the party.
    pub waiver_signed: bool,
    /// The whole-booking signature, if any.
    pub signature_id: Option<String>,
    pub signed_at: Option<DateTime<Utc>>,
    pub signed_by_name: Option<String>,
}

/// The spec's envelope.
#[derive(Debug, Serialize, ToSchema)]
pub struct BookingStatusEnvelope {
    pub success: bool,
    pub data: BookingWaiverStatus,
}

/// Whether a booking's waivers are in. Public: only the tenant header.
#[utoipa::path(get, path = "/api/v1/waivers/booking/{bookingId}/status", tag = "waivers", security(()),
    params(("bookingId" = Uuid, Path)),
    responses(
        (status = 200, body = BookingStatusEnvelope),
        (status = 404, description = "BOOKING_NOT_FOUND", body = ErrorBody),
    ))]
pub async fn booking_status(
    State(state): State<AppState>,
    tenant: Tenant,
    Path(id): Path<String>,
) -> ApiResult<axum::Json<BookingStatusEnvelope>> {
    let b = load(&state, &tenant, &id).await?;
    let whole = b.booking_signature();
    Ok(axum::Json(BookingStatusEnvelope {
        success: true,
        data: BookingWaiverStatus {
            requires_waiver: b.requires_waiver,
            waiver_signed: whole.is_some() || b.unsigned_places() == 0,
            signature_id: whole.map(|s| s.id.to_string()),
            signed_at: whole.map(|s| s.signed_at),
            signed_by_name: whole.map(|s| s.signed_by_name.clone()),
        },
    }))
}

/// Query of the participants' status: the signer's language for `waiver`.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct StatusQuery {
    #[param(max_length = 35)]
    pub locale: Option<String>,
}

/// Each participant's waiver.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ParticipantsStatus {
    pub booking_id: String,
    pub booking_reference: String,
    pub start_time: DateTime<Utc>,
    /// The site's time zone (IANA name), to show `startTime` in.
    pub timezone: String,
    pub requires_waiver: bool,
    /// Every person of the party has signed.
    pub all_participants_signed: bool,
    /// The party size: every person needs a waiver, named or not.
    pub participant_count: i32,
    pub signed_count: i32,
    pub pending_count: i32,
    /// People of the party not named yet: add them as participants to sign for them.
    pub unnamed_places: i32,
    pub participants: Vec<ParticipantWaiverStatus>,
    /// The waiver to sign, in the asked language when there is one.
    pub waiver: Option<ActiveWaiver>,
}

/// The spec's envelope.
#[derive(Debug, Serialize, ToSchema)]
pub struct ParticipantsStatusEnvelope {
    pub success: bool,
    pub data: ParticipantsStatus,
}

/// Each participant's waiver, and the waiver to sign. Public: only the tenant header.
#[utoipa::path(get, path = "/api/v1/waivers/booking/{bookingId}/participants/status", tag = "waivers", security(()),
    params(("bookingId" = Uuid, Path), StatusQuery),
    responses(
        (status = 200, body = ParticipantsStatusEnvelope),
        (status = 404, description = "BOOKING_NOT_FOUND", body = ErrorBody),
    ))]
pub async fn participants_status(
    State(state): State<AppState>,
    tenant: Tenant,
    Path(id): Path<String>,
    Query(q): Query<StatusQuery>,
) -> ApiResult<axum::Json<ParticipantsStatusEnvelope>> {
    let b = load(&state, &tenant, &id).await?;
    let locale = clean(q.locale.as_deref()).filter(|l| super::templates::is_locale(l));
    let listed = i32::try_from(b.participants.len()).unwrap_or(i32::MAX);
    let pending = i32::try_from(b.unsigned_places()).unwrap_or(i32::MAX);
    let signed = (b.party_size - pending).max(0);
    Ok(axum::Json(ParticipantsStatusEnvelope {
        success: true,
        data: ParticipantsStatus {
            booking_id: b.booking_id.to_string(),
            booking_reference: b.reference.clone(),
            start_time: b.starts_at,
            timezone: b.timezone.clone(),
            requires_waiver: b.requires_waiver,
            all_participants_signed: pending == 0,
            participant_count: b.party_size,
            signed_count: signed,
            pending_count: pending,
            unnamed_places: (b.party_size - listed).max(0),
            participants: b
                .participants
                .iter()
                .map(|p| ParticipantWaiverStatus::of(&b, p))
                .collect(),
            waiver: b.template_for(locale.as_deref()).map(ActiveWaiver::of),
        },
    }))
}

/// `POST /waivers/booking/{bookingId}/participants/{participantId}/sign`.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct WaiverSignBody {
    /// Required.
    pub signed_by_email: Option<String>,
    /// Required.
    pub signed_by_name: Option<String>,
    /// Base64 of a PNG or SVG image (a `data:image/png;base64,` prefix allowed), at most
    /// 200 KB.
    pub signature_data: Option<String>,
    /// Set to true for a minor whatever is sent.
    pub is_guardian_signature: Option<bool>,
    /// Recommended for a minor (for example parent).
    pub guardian_relationship: Option<String>,
    /// The template read (default: the active one covering the booking in `locale`).
    #[schema(value_type = Option<Uuid>)]
    pub template_id: Option<String>,
    /// The signer's language, when `templateId` is not given.
    pub locale: Option<String>,
}

/// `{signatureId, templateId, isMinor}`.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ParticipantSigned {
    pub signature_id: String,
    pub template_id: Option<String>,
    pub is_minor: bool,
    pub is_guardian_signature: bool,
    pub signed_at: DateTime<Utc>,
}

/// The spec's envelope.
#[derive(Debug, Serialize, ToSchema)]
pub struct ParticipantSignEnvelope {
    pub success: bool,
    pub data: ParticipantSigned,
}

/// Sign the waiver for one participant. A minor (by `ageAtBooking`, else by date of birth
/// against the booking's date in the site's time zone: under 18) is signed for by a
/// guardian: `isGuardianSignature` is set true. One signature per participant: a second
/// (even at the same moment) is ALREADY_SIGNED. Public: only the tenant header.
#[utoipa::path(post, path = "/api/v1/waivers/booking/{bookingId}/participants/{participantId}/sign", tag = "waivers", security(()),
    params(("bookingId" = Uuid, Path), ("participantId" = Uuid, Path)),
    request_body = WaiverSignBody,
    responses(
        (status = 200, body = ParticipantSignEnvelope),
        (status = 400, description = "VALIDATION_ERROR", body = ErrorBody),
        (status = 404, description = "BOOKING_NOT_FOUND; PARTICIPANT_NOT_FOUND; WAIVER_NOT_FOUND", body = ErrorBody),
        (status = 409, description = "ALREADY_SIGNED; TEMPLATE_INACTIVE; INVALID_TRANSITION (a cancelled or expired booking)", body = ErrorBody),
    ))]
pub async fn sign_participant(
    State(state): State<AppState>,
    tenant: Tenant,
    client: ClientAddress,
    headers: HeaderMap,
    Path((id, participant)): Path<(String, String)>,
    Json(body): Json<WaiverSignBody>,
) -> ApiResult<axum::Json<ParticipantSignEnvelope>> {
    let booking = parse_id(&id).ok_or_else(booking_not_found)?;
    let participant: Uuid = parse_id(&participant).ok_or_else(super::participant_not_found)?;
    let mut errors = FieldErrors::new();
    let template_id = template_param(body.template_id.as_deref())?;
    let locale = clean(body.locale.as_deref());
    if locale
        .as_deref()
        .is_some_and(|l| !super::templates::is_locale(l))
    {
        errors.add("locale", "must be a language tag such as en, fi or en-GB");
    }
    let s = signer(
        &mut errors,
        body.signed_by_name.as_deref(),
        body.signed_by_email.as_deref(),
        body.signature_data.as_deref(),
        body.guardian_relationship.as_deref(),
    );
    errors.finish().map_err(ApiError::validation)?;
    let signature = state
        .store
        .sign_waiver(
            tenant.id(),
            SignatureInput {
                booking_id: booking,
                participant_id: Some(participant),
                template_id,
                locale,
                signed_by_name: s.name,
                signed_by_email: s.email,
                image: s.image,
                is_guardian_signature: body.is_guardian_signature,
                guardian_relationship: s.relationship,
                ip_address: client.0,
                user_agent: user_agent(&headers),
            },
            state.now(),
        )
        .await?;
    Ok(axum::Json(ParticipantSignEnvelope {
        success: true,
        data: ParticipantSigned {
            signature_id: signature.id.to_string(),
            template_id: signature.template_id.map(|t| t.to_string()),
            is_minor: signature.is_minor,
            is_guardian_signature: signature.is_guardian_signature,
            signed_at: signature.signed_at,
        },
    }))
}
