//! Resource conflicts at confirmation (spec Part B 4.2): the `resourceConflict` a
//! confirmation answers when a held add-on is no longer free, and `POST
//! /api/v1/bookings/{id}/resource-addons/resolve-conflict`, which settles it and confirms.

use crate::bookings::{BookingAccess, BookingResponse, accessible_booking, major};
use crate::error::{ApiError, ApiResult, ErrorBody, code};
use crate::extract::{Json, can, decode_json, timestamp_param};
use crate::idempotency::{self, Rendered, RequestKey};
use crate::openapi::schemas::{ConflictActionSchema, ConflictPaymentModeSchema};
use crate::state::AppState;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use kairos_app::payments::bank::ReturnUrls;
use kairos_domain::FieldErrors;
use kairos_domain::ids::parse_id;
use kairos_domain::payments::PaymentMethod;
use kairos_store::{Booking, ConflictResolution, ResourceConflict, Settlement};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use utoipa::ToSchema;
use uuid::Uuid;

/// 409 `CONFLICT` with `details.reason` `resource_conflict` and
/// `details.resourceConflict` {conflicts[], options[], pricingHash}: nothing was confirmed.
pub fn conflict_error(
    conflicts: &[ResourceConflict],
    pricing_hash: &str,
    currency: &str,
) -> ApiError {
    let conflicts: Vec<Value> = conflicts
        .iter()
        .map(|c| {
            json!({
                "allocationId": c.allocation_id,
                "addonId": c.addon_id,
                "addonName": c.addon_name,
                "resourceId": c.resource_id,
                "resourceName": c.resource_name,
                "requestedStartsAt": c.requested_starts_at,
                "requestedEndsAt": c.requested_ends_at,
                "conflictReason": c.reason.as_str(),
                "alternativeWindows": c.alternatives.iter().map(|w| json!({
                    "position": w.position.as_str(),
                    "startsAt": w.starts_at,
                    "endsAt": w.ends_at,
                    "durationMins": w.duration_mins,
                    "price": major(w.price, currency),
                    "currency": currency,
                })).collect::<Vec<_>>(),
            })
        })
        .collect();
    ApiError::conflict(
        code::CONFLICT,
        "A resource add-on of this booking is no longer available: choose another window or confirm without it (POST /bookings/{id}/resource-addons/resolve-conflict)",
    )
    .with_details(json!({
        "reason": "resource_conflict",
        "resourceConflict": {
            "conflicts": conflicts,
            "options": [
                {"action": "SELECT_ALTERNATIVE", "description": "Move the add-on to one of its alternativeWindows and confirm"},
                {"action": "PROCEED_WITHOUT", "description": "Confirm without the add-ons in conflict; they are taken off the price"},
            ],
            "pricingHash": pricing_hash,
        },
    }))
}

/// `POST /bookings/{id}/resource-addons/resolve-conflict`.
#[derive(Debug, Deserialize, ToSchema)]
pub struct ResolveConflictRequest {
    #[serde(rename = "action")]
    #[schema(required = true, value_type = Option<ConflictActionSchema>)]
    pub action: Option<String>,
    /// SELECT_ALTERNATIVE: the allocation to move.
    #[serde(rename = "allocationId")]
    #[schema(format = Uuid)]
    pub allocation_id: Option<String>,
    /// SELECT_ALTERNATIVE: the window it moves to (one of its `alternativeWindows`).
    #[serde(rename = "newStartsAt")]
    #[schema(value_type = Option<DateTime<Utc>>)]
    pub new_starts_at: Option<String>,
    #[serde(rename = "newEndsAt")]
    #[schema(value_type = Option<DateTime<Utc>>)]
    pub new_ends_at: Option<String>,
    /// PROCEED_WITHOUT: the allocations to give back.
    #[serde(rename = "releaseAllocationIds")]
    #[schema(max_items = 10, value_type = Option<Vec<Uuid>>)]
    pub release_allocation_ids: Option<Vec<String>>,
    /// The `pricingHash` of the conflict answer.
    #[schema(required = true, max_length = 100)]
    pub expected_pricing_hash: Option<String>,
    /// How the booking is paid: `cardpay` (the answer carries the card payment) or `poa`.
    #[schema(required = true, value_type = Option<ConflictPaymentModeSchema>)]
    pub payment_mode: Option<String>,
}

/// The card payment to complete.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ConflictPaymentIntent {
    pub client_secret: Option<String>,
}

/// The booking confirmed after the conflict was settled.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ResolveConflictResponse {
    /// The booking's status: `confirmed` (cardpay) or `tentative` (poa).
    pub status: String,
    /// cardpay: the payment to complete with the provider's library; null for poa.
    pub payment_intent: Option<ConflictPaymentIntent>,
    /// cardpay: the whole payment action, as a confirmation answers it.
    pub payment: Option<crate::payments::dto::PaymentAction>,
    #[schema(value_type = BookingResponse)]
    pub booking: Value,
}

fn render(b: &Booking) -> Rendered {
    (
        200,
        serde_json::to_string(&BookingResponse::of(b, None)).unwrap_or_default(),
    )
}

fn resolution(
    errors: &mut FieldErrors,
    req: &ResolveConflictRequest,
) -> Option<ConflictResolution> {
    match req.action.as_deref() {
        Some("SELECT_ALTERNATIVE") => {
            let allocation = match req.allocation_id.as_deref().map(parse_id) {
                None => {
                    errors.add("allocationId", "is required for SELECT_ALTERNATIVE");
                    None
                }
                Some(None) => {
                    errors.add("allocationId", "is not an id");
                    None
                }
                Some(id) => id,
            };
            let mut at = |field: &str, raw: Option<&str>| match raw {
                None => {
                    errors.add(field, "is required for SELECT_ALTERNATIVE");
                    None
                }
                Some(raw) => timestamp_param(errors, field, raw),
            };
            let starts = at("newStartsAt", req.new_starts_at.as_deref());
            let ends = at("newEndsAt", req.new_ends_at.as_deref());
            if let (Some(s), Some(e)) = (starts, ends)
                && s >= e
            {
                errors.add("newEndsAt", "invalid time window: start must be before end");
                return None;
            }
            Some(ConflictResolution::SelectAlternative {
                allocation_id: allocation?,
                starts_at: starts?,
                ends_at: ends?,
            })
        }
        Some("PROCEED_WITHOUT") => {
            let raw = req.release_allocation_ids.clone().unwrap_or_default();
            if raw.is_empty() {
                errors.add("releaseAllocationIds", "is required for PROCEED_WITHOUT");
            }
            if raw.len() > 10 {
                errors.add("releaseAllocationIds", "must have at most 10 ids");
            }
            let mut release = Vec::new();
            for (i, id) in raw.iter().enumerate() {
                match parse_id(id) {
                    Some(id) if !release.contains(&id) => release.push(id),
                    Some(_) => errors.add(format!("releaseAllocationIds[{i}]"), "is listed twice"),
                    None => errors.add(format!("releaseAllocationIds[{i}]"), "is not an id"),
                }
            }
            Some(ConflictResolution::ProceedWithout { release })
        }
        None => {
            errors.add("action", "is required");
            None
        }
        Some(_) => {
            errors.add("action", "must be SELECT_ALTERNATIVE or PROCEED_WITHOUT");
            None
        }
    }
}

/// Settle a resource conflict and confirm.
///
/// After a confirmation answered 409 with `details.resourceConflict`: SELECT_ALTERNATIVE
/// moves `allocationId` to the window `newStartsAt`–`newEndsAt` (one of its
/// `alternativeWindows`); PROCEED_WITHOUT gives back `releaseAllocationIds`. The hold is
/// re-priced and confirmed in the same step: `poa` makes it `tentative`; `cardpay` makes it
/// `confirmed` and answers the card payment (`paymentIntent.clientSecret`). Refused with
/// 409 PRICING_CHANGED when the price is no longer `expected_pricing_hash`, and with a new
/// `resourceConflict` when the rest still conflicts. Honours `Idempotency-Key`.
#[utoipa::path(post, path = "/api/v1/bookings/{id}/resource-addons/resolve-conflict", tag = "resources",
    security(("bookingToken" = []), ("bearer" = [])),
    params(
        ("Idempotency-Key" = Option<String>, Header, min_length = 1, max_length = 255, description = "Makes retries safe: one effect per key and caller for 24 h; use an unguessable value such as a UUID"),
        ("id" = Uuid, Path, description = "Booking id"),
    ),
    request_body = ResolveConflictRequest,
    responses(
        (status = 200, body = ResolveConflictResponse),
        (status = 400, description = "VALIDATION_ERROR naming each bad field", body = ErrorBody),
        (status = 403, description = "INSUFFICIENT_PERMISSIONS: a staff token without admin:bookings:write", body = ErrorBody),
        (status = 404, description = "BOOKING_NOT_FOUND; NOT_FOUND: no such add-on of the booking", body = ErrorBody),
        (status = 409, description = "PRICING_CHANGED; CONFLICT with details.resourceConflict, or the window is not available; HOLD_EXPIRED; INVALID_TRANSITION when the booking is not a hold", body = ErrorBody),
        (status = 422, description = "VALIDATION_ERROR: a duration the add-on does not allow; IDEMPOTENCY_KEY_REUSED", body = ErrorBody),
    ))]
pub async fn resolve_conflict(
    State(state): State<AppState>,
    access: BookingAccess<can::WriteBookings>,
    headers: HeaderMap,
    Path(id): Path<String>,
    Json(body): Json<Value>,
) -> ApiResult<Response> {
    let booking = accessible_booking(&state, &access, &id).await?;
    let key = RequestKey::of(
        &headers,
        &access.caller_key(),
        "POST",
        &format!("/api/v1/bookings/{id}/resource-addons/resolve-conflict"),
        &body,
    )?;
    let render = |b: &Booking| render(b);
    let result = async {
        let req: ResolveConflictRequest = decode_json(body)?;
        let mut errors = FieldErrors::new();
        let resolution = resolution(&mut errors, &req);
        let hash = req
            .expected_pricing_hash
            .as_deref()
            .map(str::trim)
            .filter(|h| !h.is_empty());
        if hash.is_none() {
            errors.add("expected_pricing_hash", "is required");
        }
        let method = match req.payment_mode.as_deref() {
            Some("cardpay") => Some(PaymentMethod::Cardpay),
            Some("poa") => Some(PaymentMethod::Poa),
            None => {
                errors.add("payment_mode", "is required");
                None
            }
            Some(_) => {
                errors.add("payment_mode", "must be cardpay or poa");
                None
            }
        };
        let (Some(resolution), Some(hash), Some(method), true) =
            (resolution, hash, method, errors.is_empty())
        else {
            return Err(ApiError::validation(errors));
        };
        if method == PaymentMethod::Cardpay {
            kairos_app::payments::accounts::cardpay_account(
                &state.app,
                access.tenant.id(),
                Some(booking.site_id),
            )
            .await?;
        }
        Ok(state
            .store
            .resolve_resource_conflict(
                access.tenant.id(),
                booking.id,
                Settlement {
                    resolution,
                    expected_hash: hash.to_owned(),
                    payment_method: method,
                },
                &access.actor(&booking),
                state.now(),
                key.as_ref().map(|k| k.for_store(&render)),
            )
            .await?)
    }
    .await;
    let response = idempotency::answer(&state, &access.tenant, key.as_ref(), result, |b| {
        axum::Json(BookingResponse::of(&b, None)).into_response()
    })
    .await?;
    if response.status() != StatusCode::OK {
        return Ok(response);
    }
    // The booking as confirmed (or replayed), with its card payment started the first
    // time (a replay finds the same intent: its idempotency key is the payment's id).
    let (parts, body) = response.into_parts();
    let bytes = axum::body::to_bytes(body, usize::MAX)
        .await
        .map_err(|e| ApiError::internal(format!("resolve answer: {e}")))?;
    let booking: Value = serde_json::from_slice(&bytes)
        .map_err(|e| ApiError::internal(format!("resolve answer: {e}")))?;
    let action = kairos_app::payments::mixed::start_payment(
        &state.app,
        access.tenant.id(),
        booking_id(&booking)?,
        (None, false),
        &ReturnUrls::default(),
    )
    .await?
    .map(|(action, _)| crate::payments::dto::PaymentAction::from(action));
    let answer = ResolveConflictResponse {
        status: booking["status"].as_str().unwrap_or_default().to_owned(),
        payment_intent: action.as_ref().map(|a| ConflictPaymentIntent {
            client_secret: a.client_secret.clone(),
        }),
        payment: action,
        booking,
    };
    let mut out = axum::Json(answer).into_response();
    if let Some(v) = parts.headers.get("idempotent-replayed") {
        out.headers_mut().insert("idempotent-replayed", v.clone());
    }
    Ok(out)
}

fn booking_id(b: &Value) -> ApiResult<Uuid> {
    b["id"]
        .as_str()
        .and_then(parse_id)
        .ok_or_else(|| ApiError::internal("booking answer without its id"))
}
