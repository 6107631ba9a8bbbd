//! `POST /admin/bookings`: staff creation of a booking (spec Part A 4.2).

use super::PriceDto;
use super::draft::{AddonRequest, CustomerInput, DraftInput, Participant, draft};
use crate::error::{ApiError, ApiResult, ErrorBody};
use crate::extract::{Json, Staff, can};
use crate::idempotency::done;
use crate::openapi::schemas::BookingStatusSchema;
use crate::state::AppState;
use axum::extract::State;
use axum::http::StatusCode;
use chrono::{DateTime, Utc};
use kairos_domain::FieldErrors;
use kairos_domain::auth::perm;
use kairos_domain::bookings::{BookingSource, BookingStatus, CreatedReason};
use kairos_domain::ids::new_secret;
use kairos_store::{NewBooking, SeatPolicy, SlotChoice};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// `POST /admin/bookings` (spec Part A 2.2).
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AdminCreateRequest {
    #[schema(format = Uuid, required = true)]
    pub site_id: Option<String>,
    #[schema(format = Uuid, required = true)]
    pub product_id: Option<String>,
    #[schema(format = Uuid)]
    pub variant_id: Option<String>,
    /// The start of an existing slot of the product.
    #[schema(required = true)]
    pub start_time: Option<DateTime<Utc>>,
    #[schema(minimum = 1, maximum = 10000)]
    pub party_size: Option<i64>,
    /// Name and email required; phone optional.
    #[schema(required = true)]
    pub customer_info: Option<CustomerInput>,
    #[schema(max_items = 50)]
    pub addons: Option<Vec<AddonRequest>>,
    #[schema(max_items = 1000)]
    pub participants: Option<Vec<Participant>>,
    /// Places at a participant type's own price (at most partySize in all).
    #[schema(max_items = 10)]
    pub participant_types: Option<Vec<super::draft::ParticipantTypeRequest>>,
    /// Internal, not visible to the customer.
    #[schema(max_length = 5000)]
    pub admin_notes: Option<String>,
    /// Book a slot that has started or no longer matches the schedule.
    pub skip_availability_check: Option<bool>,
    /// Take the seats beyond capacity; needs admin:capacity:override.
    pub bypass_capacity: Option<bool>,
    /// Default false: the booking is a hold to confirm. True: confirmed, no payment collected.
    pub auto_confirm: Option<bool>,
    /// Default true: queue the confirmation email when the booking is confirmed.
    pub send_confirmation_email: Option<bool>,
    /// Why staff create it: phone_booking, walk_in, comp, correction or other.
    #[schema(value_type = Option<CreatedReasonSchema>)]
    pub created_reason: Option<String>,
    /// Staff accept the venue's terms on the customer's behalf (recorded with who and when).
    pub terms_accepted_on_behalf: Option<bool>,
}

/// Why staff create a booking (spec Part A 4.2).
#[derive(ToSchema)]
#[schema(as = CreatedReason)]
#[expect(dead_code, reason = "a schema for the document only")]
enum CreatedReasonSchema {
    #[schema(rename = "phone_booking")]
    PhoneBooking,
    #[schema(rename = "walk_in")]
    WalkIn,
    #[schema(rename = "comp")]
    Comp,
    #[schema(rename = "correction")]
    Correction,
    #[schema(rename = "other")]
    Other,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Breakdown {
    pub base_price: f64,
    pub participant_types: Vec<super::response::TypedPriceLineDto>,
    pub addons: Vec<super::AddonLineDto>,
    pub tax: f64,
    pub total: f64,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SlotTimes {
    pub start_time: DateTime<Utc>,
    pub end_time: DateTime<Utc>,
}

/// Response of admin creation (spec Part A 4.2), with the hold's expiry, pricing hash
/// and booking token for confirming it.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AdminCreateResponse {
    pub booking_id: String,
    pub booking_reference: String,
    #[schema(value_type = BookingStatusSchema)]
    pub status: String,
    pub grand_total: f64,
    pub breakdown: Breakdown,
    pub slot: SlotTimes,
    /// What was overridden: capacity_exceeded, slot_started, slot_orphaned.
    pub warnings: Vec<String>,
    pub hold_expires_at: Option<DateTime<Utc>>,
    pub pricing_hash: String,
    pub booking_token: String,
}

/// Create a booking for a customer (phone, walk-in, correction).
///
/// Books the product's slot starting at `startTime`. Without `autoConfirm` the booking is
/// a hold to confirm through `POST /bookings/{id}/confirm`; with it, it is `confirmed` and
/// nothing is collected. `skipAvailabilityCheck` allows a slot that has started or left the
/// schedule; `bypassCapacity` (admin:capacity:override) takes the seats even when full.
#[utoipa::path(post, path = "/api/v1/admin/bookings", tag = "admin-bookings",
    security(("bearer" = [])),
    request_body = AdminCreateRequest,
    responses(
        (status = 200, body = AdminCreateResponse),
        (status = 400, description = "VALIDATION_ERROR naming every bad field", body = ErrorBody),
        (status = 401, body = ErrorBody),
        (status = 403, description = "INSUFFICIENT_PERMISSIONS: admin:bookings:create; bypassCapacity needs admin:capacity:override", body = ErrorBody),
        (status = 404, description = "NOT_FOUND: site, product, variant", body = ErrorBody),
        (status = 409, description = "SLOT_UNAVAILABLE: no slot at startTime, full, started or closed", body = ErrorBody),
    ))]
pub async fn create(
    State(state): State<AppState>,
    auth: Staff<can::CreateBookings>,
    Json(req): Json<AdminCreateRequest>,
) -> ApiResult<(StatusCode, axum::Json<AdminCreateResponse>)> {
    let bypass = req.bypass_capacity.unwrap_or(false);
    if bypass {
        auth.require(perm::CAPACITY_OVERRIDE)?;
    }
    let skip = req.skip_availability_check.unwrap_or(false);
    let auto_confirm = req.auto_confirm.unwrap_or(false);
    let Some(start) = req.start_time else {
        let mut errors = FieldErrors::new();
        errors.add("startTime", "is required");
        return Err(ApiError::validation(errors));
    };
    let admin_notes = req
        .admin_notes
        .as_deref()
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_owned);
    if admin_notes
        .as_ref()
        .is_some_and(|n| n.chars().count() > 5000)
    {
        return Err(ApiError::invalid_field(
            "adminNotes",
            "must be at most 5000 characters",
        ));
    }
    let created_reason = match req.created_reason.as_deref().map(str::trim) {
        None | Some("") => None,
        Some(raw) => Some(CreatedReason::parse(raw).ok_or_else(|| {
            ApiError::invalid_field(
                "createdReason",
                format!("must be one of {}", CreatedReason::choices()),
            )
        })?),
    };
    let draft = draft(
        DraftInput {
            site_id: req.site_id.as_deref(),
            product_id: req.product_id.as_deref(),
            variant_id: req.variant_id.as_deref(),
            party_size: req.party_size,
            addons: req.addons.as_deref().unwrap_or_default(),
            customer: req.customer_info.as_ref(),
            customer_required: true,
            participants: req.participants.as_deref().unwrap_or_default(),
            participant_types: req.participant_types.as_deref().unwrap_or_default(),
            customer_field: "customerInfo",
        },
        state.now().date_naive(),
    )?;
    let (token, token_hash) = new_secret();
    let created = done(
        state
            .store
            .create_booking(
                auth.tenant.id(),
                NewBooking {
                    status: if auto_confirm {
                        BookingStatus::Confirmed
                    } else {
                        BookingStatus::Hold
                    },
                    admin_notes,
                    send_confirmation: req.send_confirmation_email.unwrap_or(true),
                    seats: if bypass {
                        SeatPolicy::BypassCapacity
                    } else if skip {
                        SeatPolicy::SkipAvailability
                    } else {
                        SeatPolicy::Checked
                    },
                    allow_closed_slot: skip,
                    hold_caps: None,
                    created_reason,
                    terms_accepted_on_behalf: req.terms_accepted_on_behalf.unwrap_or(false),
                    ..draft.into_booking(
                        SlotChoice::StartingAt(start),
                        token_hash,
                        BookingSource::Admin,
                    )
                },
                &auth.actor(),
                state.now(),
                None,
            )
            .await?,
    )?;
    let booking = created.booking;
    let warnings = created.warnings.iter().map(|w| (*w).to_owned()).collect();
    let price = PriceDto::from(&booking.price);
    Ok((
        StatusCode::OK,
        axum::Json(AdminCreateResponse {
            booking_id: booking.id.to_string(),
            booking_reference: booking.reference.clone(),
            status: booking.status.as_str().to_owned(),
            grand_total: price.total,
            breakdown: Breakdown {
                base_price: price.base_price,
                participant_types: price.participant_types,
                addons: price.addons,
                tax: price.tax,
                total: price.total,
            },
            slot: SlotTimes {
                start_time: booking.starts_at,
                end_time: booking.ends_at,
            },
            warnings,
            hold_expires_at: booking.hold_expires_at,
            pricing_hash: booking.price.pricing_hash.clone(),
            booking_token: token,
        }),
    ))
}
