//! `POST /admin/bookings/{bookingId}/cancel` and its preview (spec Part B 4.8): staff
//! cancel for a reason, with the refund the reason and the named policy give.

use super::admin_detail::load;
use super::admin_status::UpdatedBy;
use crate::error::{ApiError, ApiResult, ErrorBody};
use crate::extract::{Json, Staff, can};
use crate::idempotency;
use crate::payments::refunds::RefundOutcome;
use crate::state::AppState;
use axum::extract::{Path, State};
use axum::http::HeaderMap;
use axum::response::Response;
use chrono::{DateTime, Utc};
use kairos_app::bookings::cancel::{Cancellation, cancel, preview};
use kairos_domain::FieldErrors;
use kairos_domain::auth::perm;
use kairos_domain::cancellations::{CancellationReason, RefundBasis};
use kairos_domain::catalog::CancellationPolicy;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;

/// The reason codes of a staff cancellation.
#[derive(ToSchema)]
#[schema(as = CancellationReasonCode)]
#[expect(dead_code, reason = "a schema for the document only")]
enum ReasonSchema {
    #[schema(rename = "customer_request")]
    CustomerRequest,
    #[schema(rename = "admin_initiated")]
    AdminInitiated,
    #[schema(rename = "capacity_issue")]
    CapacityIssue,
    #[schema(rename = "equipment_failure")]
    EquipmentFailure,
    #[schema(rename = "weather")]
    Weather,
    #[schema(rename = "customer_no_show")]
    CustomerNoShow,
    #[schema(rename = "duplicate")]
    Duplicate,
    #[schema(rename = "reduced_party_size")]
    ReducedPartySize,
}

/// `POST /admin/bookings/{bookingId}/cancel` (and its preview).
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AdminCancelRequest {
    /// Why the booking is cancelled.
    #[schema(value_type = Option<ReasonSchema>, required = true)]
    pub reason: Option<String>,
    /// Free text kept with the cancellation; required with `overridePolicy`.
    pub cancellation_notes: Option<String>,
    /// `standard`, `flexible` or `strict`: refund by that policy's schedule. Left out:
    /// by the reason (see the operation).
    pub refund_policy: Option<String>,
    /// Refund in full whatever the reason and policy (permission
    /// `admin:cancellations:override`, with `cancellationNotes`).
    pub override_policy: Option<bool>,
    /// Send the customer the cancellation message (default true).
    pub notify_customer: Option<bool>,
    /// Cancel every slot of the booking (default true).
    pub cancel_all: Option<bool>,
    /// The slots to cancel when `cancelAll` is false (the spec's spelling); a booking
    /// covers one slot, so this names it.
    #[serde(rename = "slotsToCanel")]
    #[schema(max_items = 20)]
    pub slots_to_canel: Option<Vec<String>>,
    /// The same as `slotsToCanel`.
    #[schema(max_items = 20)]
    pub slots_to_cancel: Option<Vec<String>>,
    /// Required with `reduced_party_size` (and only then): the party after the partial
    /// cancellation, fewer than now.
    #[schema(minimum = 1, maximum = 500)]
    pub new_party_size: Option<i64>,
    /// With `reduced_party_size`: the smaller party's places by participant type, saying
    /// who left (each type at most the places it had; the rest at the full price, at most
    /// the full-price places it had). Without it the full-price places go first.
    #[schema(max_items = 10)]
    pub new_participant_types: Option<Vec<super::draft::ParticipantTypeRequest>>,
}

/// A staff cancellation's answer (spec Part B 4.8; minor units).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AdminCancelResponse {
    pub booking_id: String,
    pub status: String,
    /// What goes back to the customer (card, bank and vouchers).
    pub refund_amount: i64,
    /// The refund's id (as `refund.refund_id`); none when nothing was paid.
    pub refund_request_id: Option<String>,
    /// What the cancellation keeps of what was paid.
    pub cancellation_fee: i64,
    pub cancelled_at: DateTime<Utc>,
    pub cancelled_by: UpdatedBy,
    /// The party after it (smaller after a `reduced_party_size`; the booking stays).
    pub party_size: i32,
    /// What staff should know: a refund still processing at the provider, one the
    /// provider refused (in the dead-letter queue), a voucher balance restored.
    pub warnings: Vec<String>,
    /// The refund in full (Part B 2.8); none when nothing was paid.
    pub refund: Option<RefundOutcome>,
}

/// What a staff cancellation would refund (nothing is changed).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CancelPreview {
    pub booking_id: String,
    /// Paid by card, bank and vouchers and not refunded yet.
    pub paid_amount: i64,
    pub cancellation_fee: i64,
    pub refund_amount: i64,
    /// Of `refundAmount`, what goes back to the card and bank payments (first) and to
    /// vouchers.
    pub refund_to_payments: i64,
    pub refund_to_vouchers: i64,
    /// How the fee is worked out, in words, as the refunds record it (for example
    /// "cancelled by staff: the standard policy, fee 2000").
    pub rule: String,
    /// Minutes from now to the booking's start (negative once it has started).
    pub minutes_before_start: i64,
    pub notify_customer: bool,
    /// The party after it (smaller for `reduced_party_size`).
    pub party_size: i32,
}

/// A request checked: the cancellation it asks for.
struct Asked {
    how: Cancellation,
    notify: bool,
}

fn check(
    auth: &Staff<can::WriteBookings>,
    slot: uuid::Uuid,
    req: AdminCancelRequest,
) -> ApiResult<Asked> {
    let mut errors = FieldErrors::new();
    let reason = match req.reason.as_deref().map(str::trim) {
        None | Some("") => {
            errors.add(
                "reason",
                format!("is required: {}", CancellationReason::choices()),
            );
            None
        }
        Some(r) => match CancellationReason::parse(r) {
            Some(reason) => Some(reason),
            None => {
                errors.add(
                    "reason",
                    format!("must be {}", CancellationReason::choices()),
                );
                None
            }
        },
    };
    let notes = super::draft::clean(req.cancellation_notes.as_deref());
    if notes.as_ref().is_some_and(|n| !super::free_text(n, 2000)) {
        errors.add(
            "cancellationNotes",
            "must be at most 2000 characters without control characters",
        );
    }
    let policy = match req.refund_policy.as_deref().map(str::trim) {
        None | Some("") => None,
        Some(p) => {
            let parsed = CancellationPolicy::parse(p);
            if parsed.is_none() {
                errors.add(
                    "refundPolicy",
                    format!("must be {}", CancellationPolicy::choices()),
                );
            }
            parsed
        }
    };
    let override_policy = req.override_policy.unwrap_or(false);
    if override_policy && notes.is_none() {
        errors.add(
            "cancellationNotes",
            "is required with overridePolicy: say why the policy is set aside",
        );
    }
    let named = match (req.slots_to_canel, req.slots_to_cancel) {
        (Some(a), Some(b)) if a != b => {
            errors.add(
                "slotsToCancel",
                "differs from slotsToCanel: give one of the two spellings",
            );
            None
        }
        (a, b) => a.or(b),
    };
    if let Some(slots) = &named {
        if slots.is_empty()
            || slots.len() > 20
            || slots.iter().any(|s| s.trim() != slot.to_string())
        {
            errors.add(
                "slotsToCancel",
                format!("must name the booking's slot {slot}: a booking covers one slot"),
            );
        }
    } else if req.cancel_all == Some(false) {
        errors.add(
            "slotsToCancel",
            "is required when cancelAll is false: name the slots to cancel",
        );
    }
    let partial = reason == Some(CancellationReason::ReducedPartySize);
    let new_party_size = match (req.new_party_size, partial) {
        (Some(n), true) if (1..=500).contains(&n) => i32::try_from(n).ok(),
        (Some(_), true) => {
            errors.add(
                "newPartySize",
                "must be 1 to 500 (fewer than the party now)",
            );
            None
        }
        (None, true) => {
            errors.add(
                "newPartySize",
                "is required with reduced_party_size: the party after it",
            );
            None
        }
        (Some(_), false) => {
            errors.add("newPartySize", "is for reason reduced_party_size only");
            None
        }
        (None, false) => None,
    };
    let new_types = match (&req.new_participant_types, partial) {
        (Some(types), true) => Some(super::draft::participant_types(
            &mut errors,
            "newParticipantTypes",
            types,
        )),
        (Some(_), false) => {
            errors.add(
                "newParticipantTypes",
                "is for reason reduced_party_size only",
            );
            None
        }
        (None, _) => None,
    };
    errors.finish().map_err(ApiError::validation)?;
    if override_policy {
        auth.require(perm::CANCELLATIONS_OVERRIDE)?;
    }
    let reason = reason.ok_or_else(|| ApiError::invalid_field("reason", "is required"))?;
    let refund: RefundBasis = reason.refund_basis(policy, override_policy);
    let notify = req.notify_customer.unwrap_or(true);
    let text = match &notes {
        Some(n) => format!("{}: {n}", reason.as_str()),
        None => reason.as_str().to_owned(),
    };
    let how = match new_party_size {
        Some(party_size) => Cancellation::ReduceParty {
            party_size,
            types: new_types,
            reason: Some(text),
            refund,
            notify,
        },
        None => Cancellation::Staff {
            reason: Some(text),
            refund,
            notify,
        },
    };
    Ok(Asked { how, notify })
}

/// Cancel a booking as staff, with the refund its reason and policy give.
///
/// The refund (card and bank payments first, then vouchers; Part B 4.6) keeps a fee by
/// the reason and `refundPolicy`: `customer_request` by the named policy, or without one
/// the tenant's fee rule with the site's policy (as when the customer cancels); the
/// venue's reasons (`admin_initiated`, `capacity_issue`, `equipment_failure`, `weather`,
/// `duplicate`) in full, or by the named policy; `customer_no_show` refunds nothing.
/// The schedules: standard (over 48 h before the start: full; 24 to 48 h: half; under
/// 24 h: none), flexible (over 24 h: full; then half), strict (over 72 h: full minus the
/// 5 % processing fee; then none). `overridePolicy` refunds in full (permission
/// `admin:cancellations:override` and `cancellationNotes`). `reduced_party_size` is a
/// partial cancellation: the booking stays with `newPartySize` people, priced again, the
/// seats no longer needed released, and what was paid beyond the new total refunded by
/// the same rules (its fee on that part); refused (409) while an online payment of the
/// booking is under way. Seats are released at once. A refund part the provider cannot make at once is `Processing` and finished by
/// the owed-refunds job; one it refuses is in the dead-letter queue (both are named in
/// `warnings`). `POST …/cancel/preview` answers what this would refund.
#[utoipa::path(post, path = "/api/v1/admin/bookings/{bookingId}/cancel", tag = "admin-bookings",
    security(("bearer" = [])),
    params(
        ("bookingId" = uuid::Uuid, Path, description = "Booking id"),
        ("Idempotency-Key" = Option<String>, Header, min_length = 1, max_length = 255, description = "Makes retries safe: one cancellation and refund per key and caller for 24 h (the same request again answers the first answer); use an unguessable value such as a UUID"),
    ),
    request_body = AdminCancelRequest,
    responses(
        (status = 200, body = AdminCancelResponse),
        (status = 400, description = "VALIDATION_ERROR", body = ErrorBody),
        (status = 401, body = ErrorBody),
        (status = 403, description = "INSUFFICIENT_PERMISSIONS: needs admin:bookings:write, and admin:cancellations:override for overridePolicy", body = ErrorBody),
        (status = 404, description = "BOOKING_NOT_FOUND", body = ErrorBody),
        (status = 409, description = "INVALID_TRANSITION (already canceled, completed, …); CONFLICT (reduced_party_size while an online payment is under way); IDEMPOTENCY_KEY_IN_FLIGHT", body = ErrorBody),
        (status = 422, description = "IDEMPOTENCY_KEY_REUSED", body = ErrorBody),
    ))]
pub async fn admin_cancel(
    State(state): State<AppState>,
    auth: Staff<can::WriteBookings>,
    Path(id): Path<String>,
    headers: HeaderMap,
    Json(raw): Json<Value>,
) -> ApiResult<Response> {
    idempotency::outside(
        &state,
        &auth.tenant,
        &headers,
        &format!("admin:{}", auth.user.id),
        &format!("/api/v1/admin/bookings/{id}/cancel"),
        raw,
        |req: AdminCancelRequest| cancel_as_staff(&state, &auth, &id, req),
    )
    .await
}

async fn cancel_as_staff(
    state: &AppState,
    auth: &Staff<can::WriteBookings>,
    id: &str,
    req: AdminCancelRequest,
) -> ApiResult<AdminCancelResponse> {
    let view = load(state, auth, id).await?;
    let asked = check(auth, view.booking.slot_id, req)?;
    let done = cancel(
        &state.app,
        auth.tenant.id(),
        view.booking.id,
        asked.how,
        &auth.actor(),
    )
    .await?;
    let b = done.booking;
    let mut warnings = Vec::new();
    let (refund_amount, fee) = match &b.cancellation {
        Some(c) => (c.paid - c.fee, c.fee),
        None => (0, 0),
    };
    if let Some(refund) = &done.refund {
        for part in &refund.refund_breakdown {
            match (part.payment_method.as_str(), part.status.as_str()) {
                ("voucher", _) => warnings.push(format!(
                    "{} restored to a voucher (its balance is now {})",
                    part.refund_amount,
                    part.voucher_new_balance.unwrap_or_default()
                )),
                (method, "Processing") => warnings.push(format!(
                    "the {method} refund of {} is still processing at the provider; it completes by itself",
                    part.refund_amount
                )),
                (method, "Failed") => warnings.push(format!(
                    "the {method} provider refused the refund: it is in the dead-letter queue for staff to return the money another way"
                )),
                _ => {}
            }
        }
    }
    if !asked.notify {
        warnings.push("the customer was not told (notifyCustomer false)".to_owned());
    }
    Ok(AdminCancelResponse {
        booking_id: b.id.to_string(),
        status: b.status.as_str().to_owned(),
        refund_amount,
        refund_request_id: done.refund.as_ref().map(|r| r.refund_id.to_string()),
        cancellation_fee: fee,
        cancelled_at: b.canceled_at.unwrap_or(b.updated_at),
        cancelled_by: UpdatedBy {
            id: auth.user.id.to_string(),
            name: auth.user.display_name.clone(),
        },
        party_size: b.party_size,
        warnings,
        refund: done.refund.map(Into::into),
    })
}

/// What cancelling a booking as staff would refund, without cancelling it.
///
/// Takes the body `POST /api/v1/admin/bookings/{bookingId}/cancel` takes and answers the
/// fee and refund that cancellation would make now, worked out by the same code; nothing
/// is changed and nothing is sent. Refusals are the cancellation's (a canceled booking:
/// 409 INVALID_TRANSITION).
#[utoipa::path(post, path = "/api/v1/admin/bookings/{bookingId}/cancel/preview", tag = "admin-bookings",
    security(("bearer" = [])),
    params(("bookingId" = uuid::Uuid, Path, description = "Booking id")),
    request_body = AdminCancelRequest,
    responses(
        (status = 200, body = CancelPreview),
        (status = 400, description = "VALIDATION_ERROR", body = ErrorBody),
        (status = 401, body = ErrorBody),
        (status = 403, description = "INSUFFICIENT_PERMISSIONS: needs admin:bookings:write, and admin:cancellations:override for overridePolicy", body = ErrorBody),
        (status = 404, description = "BOOKING_NOT_FOUND", body = ErrorBody),
        (status = 409, description = "INVALID_TRANSITION", body = ErrorBody),
    ))]
pub async fn preview_cancel(
    State(state): State<AppState>,
    auth: Staff<can::WriteBookings>,
    Path(id): Path<String>,
    Json(req): Json<AdminCancelRequest>,
) -> ApiResult<axum::Json<CancelPreview>> {
    let view = load(&state, &auth, &id).await?;
    let asked = check(&auth, view.booking.slot_id, req)?;
    let b = preview(
        &state.app,
        auth.tenant.id(),
        view.booking.id,
        asked.how,
        &auth.actor(),
    )
    .await?;
    let (paid, fee, to_vouchers) = match &b.cancellation {
        Some(c) => (
            c.paid,
            c.fee,
            c.vouchers.iter().map(|v| v.amount).sum::<i64>(),
        ),
        None => (0, 0, 0),
    };
    let described = match &b.cancellation {
        Some(c) => c.reason.clone(),
        None => "nothing was paid by card, bank or vouchers".to_owned(),
    };
    Ok(axum::Json(CancelPreview {
        booking_id: b.id.to_string(),
        paid_amount: paid,
        cancellation_fee: fee,
        refund_amount: paid - fee,
        refund_to_payments: paid - fee - to_vouchers,
        refund_to_vouchers: to_vouchers,
        rule: described,
        minutes_before_start: (b.starts_at - state.now()).num_minutes(),
        notify_customer: asked.notify,
        party_size: b.party_size,
    }))
}
