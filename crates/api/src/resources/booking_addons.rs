//! A booking's resource add-ons (spec Part B 4.2): `POST`, `GET` and `PATCH
//! /api/v1/bookings/{id}/resource-addons`.
//!
//! Who may: whoever may act on the booking (its booking token, the customer who owns it,
//! or staff with `admin:bookings:write`; reading needs `admin:bookings:read`).

use crate::bookings::{BookingAccess, accessible_booking, major};
use crate::error::{ApiError, ApiResult, ErrorBody};
use crate::extract::{Json, can, decode_json, timestamp_param};
use crate::idempotency::{self, Rendered, RequestKey};
use crate::openapi::schemas::{
    AllocationStatusSchema, PaymentAdjustmentTypeSchema, WindowPositionSchema,
};
use crate::state::AppState;
use axum::extract::{Path, State};
use axum::http::HeaderMap;
use axum::response::{IntoResponse, Response};
use chrono::{DateTime, Utc};
use kairos_domain::FieldErrors;
use kairos_domain::ids::parse_id;
use kairos_store::{
    AddonChange, AddonSelection, AddonsChanged, Allocation, BookingAddon, PaymentAdjustment,
};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;
use uuid::Uuid;

/// The most windows one request takes or gives back.
const MAX_SELECTIONS: usize = 10;

/// A window of a resource add-on (from `GET /availability/resource-addons/{configId}/windows`).
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SelectionInput {
    #[schema(required = true, format = Uuid)]
    pub config_id: Option<String>,
    #[schema(required = true, value_type = Option<DateTime<Utc>>)]
    pub starts_at: Option<String>,
    #[schema(required = true, value_type = Option<DateTime<Utc>>)]
    pub ends_at: Option<String>,
    /// endsAt − startsAt, in minutes; a length the add-on allows (else 422).
    #[schema(required = true, minimum = 1, maximum = 1440)]
    pub duration_mins: Option<i64>,
}

/// `POST /bookings/{id}/resource-addons`.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AddAddonsRequest {
    #[schema(required = true, min_items = 1, max_items = 10)]
    pub selections: Option<Vec<SelectionInput>>,
}

/// `PATCH /bookings/{id}/resource-addons`: windows to add and allocations to give back.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ChangeAddonsRequest {
    #[schema(max_items = 10)]
    pub add: Option<Vec<SelectionInput>>,
    /// Allocation ids of the booking's add-ons.
    #[schema(max_items = 10, value_type = Option<Vec<Uuid>>)]
    pub remove: Option<Vec<String>>,
}

/// A resource taken for the booking (spec Part B 2.4).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AllocationDto {
    pub id: Uuid,
    pub config_id: Uuid,
    pub resource_id: Uuid,
    #[schema(value_type = WindowPositionSchema)]
    pub position: String,
    pub starts_at: DateTime<Utc>,
    pub ends_at: DateTime<Utc>,
    pub duration_mins: i32,
    /// Major units of the booking's currency.
    pub price: f64,
    #[schema(value_type = AllocationStatusSchema)]
    pub status: String,
}

impl AllocationDto {
    fn of(a: &Allocation, currency: &str) -> Self {
        AllocationDto {
            id: a.id,
            config_id: a.request.config_id,
            resource_id: a.request.resource_id,
            position: a.request.position.as_str().to_owned(),
            starts_at: a.request.starts_at,
            ends_at: a.request.ends_at,
            duration_mins: a.request.duration_mins,
            price: major(a.request.price, currency),
            status: a.status.as_str().to_owned(),
        }
    }
}

/// A resource add-on of the booking (spec Part B 2.4's booking add-on record).
/// `bookingAddonId` and `allocationId` are the same id: each add-on is one allocation.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct BookingAddonDto {
    pub booking_addon_id: Uuid,
    pub allocation_id: Uuid,
    pub addon_id: Uuid,
    pub addon_name: String,
    pub resource_id: Uuid,
    pub resource_name: String,
    #[schema(value_type = WindowPositionSchema)]
    pub position: String,
    pub starts_at: DateTime<Utc>,
    pub ends_at: DateTime<Utc>,
    pub duration_mins: i32,
    /// Major units of the booking's currency.
    pub total_price: f64,
    pub currency: String,
    #[schema(value_type = AllocationStatusSchema)]
    pub status: String,
}

impl BookingAddonDto {
    pub fn of(a: &BookingAddon, currency: &str) -> Self {
        let r = &a.allocation.request;
        BookingAddonDto {
            booking_addon_id: a.allocation.id,
            allocation_id: a.allocation.id,
            addon_id: a.addon_id,
            addon_name: a.addon_name.clone(),
            resource_id: r.resource_id,
            resource_name: a.resource_name.clone(),
            position: r.position.as_str().to_owned(),
            starts_at: r.starts_at,
            ends_at: r.ends_at,
            duration_mins: r.duration_mins,
            total_price: major(r.price, currency),
            currency: currency.to_owned(),
            status: a.allocation.status.as_str().to_owned(),
        }
    }
}

/// The booking's price after the change (major units), and the hash to confirm it with.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PricingUpdate {
    /// What the booking's resource add-ons cost together.
    pub resource_addon_total: f64,
    pub new_subtotal: f64,
    pub new_tax_total: f64,
    pub new_grand_total: f64,
    pub currency: String,
    /// The booking's new `pricingHash` (confirm a hold with it).
    pub pricing_hash: String,
}

fn pricing_update(c: &AddonsChanged) -> PricingUpdate {
    let p = &c.booking.price;
    let m = |v| major(v, &p.currency);
    PricingUpdate {
        resource_addon_total: m(c.addons.iter().map(|a| a.allocation.request.price).sum()),
        new_subtotal: m(p.subtotal),
        new_tax_total: m(p.tax),
        new_grand_total: m(p.total),
        currency: p.currency.clone(),
        pricing_hash: p.pricing_hash.clone(),
    }
}

/// `POST /bookings/{id}/resource-addons`.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AddAddonsResponse {
    pub success: bool,
    /// The allocations made, HELD with the hold.
    pub allocations: Vec<AllocationDto>,
    pub pricing_update: PricingUpdate,
}

/// `GET /bookings/{id}/resource-addons`.
#[derive(Debug, Serialize, ToSchema)]
pub struct BookingAddonsResponse {
    pub addons: Vec<BookingAddonDto>,
}

/// What the booking's payment must do after the change (major units).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PaymentAdjustmentDto {
    /// NONE (a hold, or the same total); ADDITIONAL_CHARGE (the total went up: collected
    /// at the desk for pay on arrival, charged through the booking's payment method when
    /// it was paid online); REFUND (the total went down and what was paid beyond it is
    /// owed back); AMOUNT_DUE_REDUCED (down, and nothing was paid yet).
    #[serde(rename = "type")]
    #[schema(value_type = PaymentAdjustmentTypeSchema)]
    pub adjustment_type: String,
    pub amount: f64,
    /// Whether the customer must pay something now (online).
    pub payment_required: bool,
    /// An ADDITIONAL_CHARGE on a booking paid by card or bank: what the customer does to
    /// pay it (as the `payment` of confirm). Absent when it is collected at the desk.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub payment: Option<crate::payments::dto::PaymentAction>,
}

/// `PATCH /bookings/{id}/resource-addons`.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ChangeAddonsResponse {
    pub success: bool,
    pub addons: Vec<BookingAddonDto>,
    pub pricing_update: PricingUpdate,
    pub payment_adjustment: PaymentAdjustmentDto,
}

fn added_response(c: &AddonsChanged) -> AddAddonsResponse {
    let currency = &c.booking.price.currency;
    AddAddonsResponse {
        success: true,
        allocations: c
            .added
            .iter()
            .map(|a| AllocationDto::of(a, currency))
            .collect(),
        pricing_update: pricing_update(c),
    }
}

fn changed_response(c: &AddonsChanged) -> ChangeAddonsResponse {
    let currency = &c.booking.price.currency;
    let (kind, amount, required) = match c.adjustment {
        PaymentAdjustment::None => ("NONE", 0, false),
        PaymentAdjustment::AdditionalCharge(a) => ("ADDITIONAL_CHARGE", a, false),
        PaymentAdjustment::ChargeOpened(a) => ("ADDITIONAL_CHARGE", a, true),
        PaymentAdjustment::Refund(a) => ("REFUND", a, false),
        PaymentAdjustment::DueReduced(a) => ("AMOUNT_DUE_REDUCED", a, false),
    };
    ChangeAddonsResponse {
        success: true,
        addons: c
            .addons
            .iter()
            .map(|a| BookingAddonDto::of(a, currency))
            .collect(),
        pricing_update: pricing_update(c),
        payment_adjustment: PaymentAdjustmentDto {
            adjustment_type: kind.to_owned(),
            amount: major(amount, currency),
            payment_required: required,
            payment: None,
        },
    }
}

/// Checks the windows of `field` (each field named on its own).
pub(super) fn selections(
    errors: &mut FieldErrors,
    field: &str,
    given: &[SelectionInput],
) -> Vec<AddonSelection> {
    if given.len() > MAX_SELECTIONS {
        errors.add(field, format!("must have at most {MAX_SELECTIONS} windows"));
        return Vec::new();
    }
    let mut out = Vec::new();
    for (i, s) in given.iter().enumerate() {
        let f = |name: &str| format!("{field}[{i}].{name}");
        let config = match s.config_id.as_deref().map(parse_id) {
            None => {
                errors.add(f("configId"), "is required");
                None
            }
            Some(None) => {
                errors.add(f("configId"), "is not an id");
                None
            }
            Some(id) => id,
        };
        let mut at = |name: &str, raw: Option<&str>| match raw {
            None => {
                errors.add(f(name), "is required");
                None
            }
            Some(raw) => timestamp_param(errors, &f(name), raw),
        };
        let starts = at("startsAt", s.starts_at.as_deref());
        let ends = at("endsAt", s.ends_at.as_deref());
        let mins = match s.duration_mins {
            None => {
                errors.add(f("durationMins"), "is required");
                None
            }
            Some(m) if !(1..=1440).contains(&m) => {
                errors.add(f("durationMins"), "must be 1 to 1440");
                None
            }
            Some(m) => i32::try_from(m).ok(),
        };
        if let (Some(s), Some(e)) = (starts, ends)
            && s >= e
        {
            errors.add(f("endsAt"), "invalid time window: start must be before end");
            continue;
        }
        if let (Some(config_id), Some(starts_at), Some(ends_at), Some(duration_mins)) =
            (config, starts, ends, mins)
        {
            out.push(AddonSelection {
                config_id,
                starts_at,
                ends_at,
                duration_mins,
            });
        }
    }
    out
}

const IDEMPOTENCY: &str = "Makes retries safe: one effect per key and caller for 24 h; use an unguessable value such as a UUID";

/// Add resource add-ons to a hold.
///
/// Takes every window of `selections` for the hold, all or none: each must be a window
/// of an active resource add-on of the booking's product (as `GET
/// /availability/resource-addons/{configId}/windows` lists them: ending when the activity
/// starts, starting with it, or starting when it ends), of a length the add-on allows, with
/// its resource free for it and its buffers. The allocations are HELD until the hold is
/// confirmed (then CONFIRMED) or expires or is cancelled (then released). The hold is
/// re-priced: each add-on is a price line, and `pricingUpdate.pricingHash` is the hash to
/// confirm with. Honours `Idempotency-Key`.
#[utoipa::path(post, path = "/api/v1/bookings/{id}/resource-addons", tag = "resources",
    security(("bookingToken" = []), ("bearer" = [])),
    params(
        ("Idempotency-Key" = Option<String>, Header, min_length = 1, max_length = 255, description = IDEMPOTENCY),
        ("id" = Uuid, Path, description = "Booking id"),
    ),
    request_body = AddAddonsRequest,
    responses(
        (status = 200, body = AddAddonsResponse),
        (status = 400, description = "VALIDATION_ERROR naming each bad field; a window that does not start before it ends: \"invalid time window: start must be before end\"", body = ErrorBody),
        (status = 403, description = "INSUFFICIENT_PERMISSIONS: a staff token without admin:bookings:write", body = ErrorBody),
        (status = 404, description = "BOOKING_NOT_FOUND; NOT_FOUND: no such active resource add-on configuration of the booking's product", body = ErrorBody),
        (status = 409, description = "CONFLICT: the resource is not available for the requested window (details.resourceId); HOLD_EXPIRED; INVALID_TRANSITION when the booking is not a hold; IDEMPOTENCY_KEY_IN_FLIGHT", body = ErrorBody),
        (status = 422, description = "VALIDATION_ERROR: a duration the add-on does not allow; IDEMPOTENCY_KEY_REUSED", body = ErrorBody),
    ))]
pub async fn add_addons(
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
        &format!("/api/v1/bookings/{id}/resource-addons"),
        &body,
    )?;
    let render = |c: &AddonsChanged| -> Rendered {
        (
            200,
            serde_json::to_string(&added_response(c)).unwrap_or_default(),
        )
    };
    let result = async {
        let req: AddAddonsRequest = decode_json(body)?;
        let mut errors = FieldErrors::new();
        let given = req.selections.unwrap_or_default();
        if given.is_empty() {
            errors.add("selections", "must name at least one window");
        }
        let chosen = selections(&mut errors, "selections", &given);
        errors.finish().map_err(ApiError::validation)?;
        Ok(state
            .store
            .add_resource_addons(
                access.tenant.id(),
                booking.id,
                chosen,
                &access.actor(&booking),
                state.now(),
                key.as_ref().map(|k| k.for_store(&render)),
            )
            .await?)
    }
    .await;
    idempotency::answer(&state, &access.tenant, key.as_ref(), result, |c| {
        axum::Json(added_response(&c)).into_response()
    })
    .await
}

/// A booking's resource add-ons.
///
/// Every live add-on (HELD or CONFIRMED), in time order.
#[utoipa::path(get, path = "/api/v1/bookings/{id}/resource-addons", tag = "resources",
    security(("bookingToken" = []), ("bearer" = [])),
    params(("id" = Uuid, Path, description = "Booking id")),
    responses(
        (status = 200, body = BookingAddonsResponse),
        (status = 403, description = "INSUFFICIENT_PERMISSIONS: a staff token without admin:bookings:read", body = ErrorBody),
        (status = 404, description = "BOOKING_NOT_FOUND", body = ErrorBody),
    ))]
pub async fn list_addons(
    State(state): State<AppState>,
    access: BookingAccess<can::ReadBookings>,
    Path(id): Path<String>,
) -> ApiResult<axum::Json<BookingAddonsResponse>> {
    let booking = accessible_booking(&state, &access, &id).await?;
    let addons = state
        .store
        .booking_resource_addons(access.tenant.id(), booking.id)
        .await?;
    Ok(axum::Json(BookingAddonsResponse {
        addons: addons
            .iter()
            .map(|a| BookingAddonDto::of(a, &booking.price.currency))
            .collect(),
    }))
}

/// Change a booking's resource add-ons.
///
/// Gives back the allocations of `remove` and takes the windows of `add`, in one step
/// (all or nothing), on a hold or on a booking paid on arrival (`tentative`: its new add-ons
/// are confirmed at once and the new total is collected at the desk). A booking paid
/// online (`confirmed`, `part_paid`, `paid`) may give add-ons back: the difference is
/// refunded by the cancellation rules (`REFUND`); new ones are charged through its
/// payment method (`ADDITIONAL_CHARGE` with `payment`; a `paid` booking is `part_paid`
/// until it is paid). The booking is re-priced;
/// `paymentAdjustment` says what its payment must do. Honours `Idempotency-Key`.
#[utoipa::path(patch, path = "/api/v1/bookings/{id}/resource-addons", tag = "resources",
    security(("bookingToken" = []), ("bearer" = [])),
    params(
        ("Idempotency-Key" = Option<String>, Header, min_length = 1, max_length = 255, description = IDEMPOTENCY),
        ("id" = Uuid, Path, description = "Booking id"),
    ),
    request_body = ChangeAddonsRequest,
    responses(
        (status = 200, body = ChangeAddonsResponse),
        (status = 400, description = "VALIDATION_ERROR naming each bad field", body = ErrorBody),
        (status = 403, description = "INSUFFICIENT_PERMISSIONS: a staff token without admin:bookings:write", body = ErrorBody),
        (status = 404, description = "BOOKING_NOT_FOUND; NOT_FOUND: no such resource add-on configuration, or no such add-on of the booking to remove", body = ErrorBody),
        (status = 409, description = "CONFLICT: the resource is not available for the requested window, or an online payment is under way; HOLD_EXPIRED; INVALID_TRANSITION when the booking's add-ons cannot be changed in its status; IDEMPOTENCY_KEY_IN_FLIGHT", body = ErrorBody),
        (status = 422, description = "VALIDATION_ERROR: a duration the add-on does not allow; IDEMPOTENCY_KEY_REUSED", body = ErrorBody),
        (status = 502, description = "PROVIDER_ERROR: the change is made but the provider could not start the additional charge; the same request again (same Idempotency-Key) or POST /payments/authorize starts it", body = ErrorBody),
    ))]
pub async fn change_addons(
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
        "PATCH",
        &format!("/api/v1/bookings/{id}/resource-addons"),
        &body,
    )?;
    let render = |c: &AddonsChanged| -> Rendered {
        (
            200,
            serde_json::to_string(&changed_response(c)).unwrap_or_default(),
        )
    };
    let result = async {
        let req: ChangeAddonsRequest = decode_json(body)?;
        let mut errors = FieldErrors::new();
        let add = selections(&mut errors, "add", &req.add.unwrap_or_default());
        let remove_raw = req.remove.unwrap_or_default();
        if remove_raw.len() > MAX_SELECTIONS {
            errors.add("remove", format!("must have at most {MAX_SELECTIONS} ids"));
        }
        let mut remove = Vec::new();
        for (i, raw) in remove_raw.iter().enumerate() {
            match parse_id(raw) {
                Some(id) if !remove.contains(&id) => remove.push(id),
                Some(_) => errors.add(format!("remove[{i}]"), "is listed twice"),
                None => errors.add(format!("remove[{i}]"), "is not an id"),
            }
        }
        errors.finish().map_err(ApiError::validation)?;
        Ok(state
            .store
            .change_resource_addons(
                access.tenant.id(),
                booking.id,
                AddonChange { add, remove },
                &access.actor(&booking),
                state.now(),
                key.as_ref().map(|k| k.for_store(&render)),
            )
            .await?)
    }
    .await;
    // An add-on given back on a booking paid online: its refund is asked of the provider
    // now; what the provider refuses stays owed, and the owed-refunds job asks again.
    if let Ok(kairos_store::Written::Done(c)) = &result
        && c.booking.cancellation.is_some()
        && let Err(e) = kairos_app::bookings::cancel::refund_cancelled(
            &state.app,
            access.tenant.id(),
            &c.booking,
            &access.actor(&booking),
        )
        .await
    {
        tracing::warn!(booking_id = %c.booking.id, error = %e, "add-on refund left to the owed-refunds job");
    }
    let response = idempotency::answer(&state, &access.tenant, key.as_ref(), result, |c| {
        axum::Json(changed_response(&c)).into_response()
    })
    .await?;
    with_charge(&state, access.tenant.id(), booking.id, response).await
}

/// Adds what the customer does to pay an ADDITIONAL_CHARGE opened online
/// (`paymentAdjustment.payment`) to a successful answer, starting the provider's side the
/// first time (a replayed answer finds the same payment: its idempotency key is the
/// payment's id). A charge collected at the desk has no online payment: the answer is
/// left as it is.
async fn with_charge(
    state: &AppState,
    tenant: &kairos_domain::TenantId,
    booking: Uuid,
    response: Response,
) -> ApiResult<Response> {
    crate::payments::dto::amend_answer(response, |mut json| async move {
        let adjustment = &json["paymentAdjustment"];
        if adjustment["type"] != "ADDITIONAL_CHARGE" || adjustment["paymentRequired"] != true {
            return Ok(None);
        }
        let Some(action) = kairos_app::payments::intents::payment_action(
            &state.app,
            tenant,
            booking,
            None,
            false,
            &kairos_app::payments::bank::ReturnUrls::default(),
        )
        .await?
        else {
            return Ok(None);
        };
        json["paymentAdjustment"]["payment"] =
            serde_json::to_value(crate::payments::dto::PaymentAction::from(action))
                .map_err(|e| ApiError::internal(format!("payment action: {e}")))?;
        Ok(Some(json))
    })
    .await
}
