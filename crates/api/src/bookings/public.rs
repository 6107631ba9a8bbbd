//! The public booking flow (`/api/v1/bookings…`): hold, read, confirm, cancel,
//! reschedule, and the staff actions mark-arrived, mark-paid and mark-no-show.

use super::{
    BookingAccess, BookingResponse, Claimed, accessible_booking, booking_error, claim, hold_ttl,
    idempotency_key, price_booking, request_hash, settle_failure, site_currency,
};
use crate::error::{ApiError, ApiResult, ErrorBody, code};
use crate::extract::{AdminAuth, Json, Tenant, decode_json};
use crate::state::AppState;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use kairos_domain::FieldErrors;
use kairos_domain::auth::perm;
use kairos_domain::bookings::BookingStatus;
use kairos_domain::customers::{Email, validate_phone};
use kairos_domain::ids::{new_secret, parse_id};
use kairos_domain::money::from_major;
use kairos_store::{
    Addon, Booking, BookingAction, BookingCustomer, BookingSource, ChosenAddon, IdempotentFinish,
    NewBooking, PriceBreakdown, Product, SeatPolicy, Site, StoreError, Variant,
};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;
use uuid::Uuid;

/// An add-on chosen for a booking.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AddonRequest {
    pub addon_id: Option<String>,
    pub quantity: Option<i64>,
}

/// Who the booking is for.
#[derive(Debug, Deserialize, ToSchema)]
pub struct CustomerInput {
    pub name: Option<String>,
    pub email: Option<String>,
    pub phone: Option<String>,
}

/// A participant (spec Part A 4.2: first and last name required, the rest optional).
#[derive(Debug, Deserialize, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Participant {
    pub first_name: Option<String>,
    pub last_name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub email: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub phone: Option<String>,
    /// YYYY-MM-DD.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub date_of_birth: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dietary_restrictions: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub medical_conditions: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub emergency_contact: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub special_requests: Option<String>,
}

/// `POST /bookings/hold`.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct HoldRequest {
    pub site_id: Option<String>,
    pub product_id: Option<String>,
    pub slot_id: Option<String>,
    #[schema(example = 2)]
    pub party_size: Option<i64>,
    pub variant_id: Option<String>,
    pub addons: Option<Vec<AddonRequest>>,
    pub customer: Option<CustomerInput>,
    pub participants: Option<Vec<Participant>>,
}

/// A booking being made, checked against the catalog and priced.
pub(super) struct Draft {
    pub site: Site,
    pub product: Product,
    pub variant: Option<Variant>,
    pub chosen: Vec<ChosenAddon>,
    pub party_size: i32,
    pub customer: BookingCustomer,
    pub participants: Value,
    pub price: PriceBreakdown,
}

/// What a new booking names, as sent.
pub(super) struct DraftInput<'a> {
    pub site_id: Option<&'a str>,
    pub product_id: Option<&'a str>,
    pub variant_id: Option<&'a str>,
    pub party_size: Option<i64>,
    pub addons: &'a [AddonRequest],
    pub customer: Option<&'a CustomerInput>,
    /// Name and email are required (admin creation); otherwise optional.
    pub customer_required: bool,
    pub participants: &'a [Participant],
    /// Field name of the customer object in error messages.
    pub customer_field: &'a str,
}

impl Draft {
    /// The booking of this draft in `slot_id`: a hold without expiry, seats checked,
    /// confirmation email on; callers set what differs.
    pub(super) fn into_booking(
        self,
        slot_id: Uuid,
        token_hash: String,
        source: BookingSource,
    ) -> NewBooking {
        NewBooking {
            site_id: self.site.id,
            product_id: self.product.id,
            slot_id,
            variant_id: self.variant.map(|v| v.id),
            customer: self.customer,
            party_size: self.party_size,
            addons: self.chosen,
            participants: self.participants,
            price: self.price,
            token_hash,
            source,
            status: BookingStatus::Hold,
            hold_expires_at: None,
            payment_method: None,
            admin_notes: None,
            send_confirmation: true,
            seats: SeatPolicy::Checked,
        }
    }
}

/// An optional reason: trimmed, at most 1000 characters of free text.
pub(super) fn reason_of(raw: Option<&str>) -> ApiResult<Option<String>> {
    let reason = clean(raw);
    if reason.as_ref().is_some_and(|r| !super::free_text(r, 1000)) {
        return Err(ApiError::invalid_field(
            "reason",
            "must be at most 1000 characters without control characters",
        ));
    }
    Ok(reason)
}

fn clean(s: Option<&str>) -> Option<String> {
    s.map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
}

/// Checks one participant: names required (at most 100 characters), a valid email and
/// phone when given, a birth date from 1900 to today, free texts up to 1000 characters.
fn check_participant(
    errors: &mut FieldErrors,
    field: &str,
    p: &Participant,
    today: chrono::NaiveDate,
) {
    for (name, value) in [("firstName", &p.first_name), ("lastName", &p.last_name)] {
        match clean(value.as_deref()) {
            None => errors.add(format!("{field}.{name}"), "is required"),
            Some(v) if !super::short_text(&v, 100) => errors.add(
                format!("{field}.{name}"),
                "must be at most 100 characters without control characters",
            ),
            Some(_) => {}
        }
    }
    if let Some(Err(message)) = clean(p.email.as_deref()).as_deref().map(Email::parse) {
        errors.add(format!("{field}.email"), message);
    }
    if let Some(Err(message)) = clean(p.phone.as_deref()).as_deref().map(validate_phone) {
        errors.add(format!("{field}.phone"), message);
    }
    if let Some(dob) = p.date_of_birth.as_deref() {
        let earliest = chrono::NaiveDate::from_ymd_opt(1900, 1, 1).unwrap_or(today);
        match chrono::NaiveDate::parse_from_str(dob, "%Y-%m-%d") {
            Ok(d) if (earliest..=today).contains(&d) => {}
            _ => errors.add(
                format!("{field}.dateOfBirth"),
                "must be a date YYYY-MM-DD from 1900 to today",
            ),
        }
    }
    for (name, value) in [
        ("dietaryRestrictions", &p.dietary_restrictions),
        ("medicalConditions", &p.medical_conditions),
        ("emergencyContact", &p.emergency_contact),
        ("specialRequests", &p.special_requests),
    ] {
        if value.as_deref().is_some_and(|v| !super::free_text(v, 1000)) {
            errors.add(
                format!("{field}.{name}"),
                "must be at most 1000 characters without control characters",
            );
        }
    }
}

/// Checks a new booking's input against the catalog: 400 naming every bad field, 404
/// for ids that name nothing of this tenant.
pub(super) async fn draft(
    state: &AppState,
    tenant: &Tenant,
    input: DraftInput<'_>,
) -> ApiResult<Draft> {
    let mut errors = FieldErrors::new();
    if input.site_id.is_none() {
        errors.add("siteId", "is required");
    }
    if input.product_id.is_none() {
        errors.add("productId", "is required");
    }
    let party = match input.party_size {
        None => {
            errors.add("partySize", "is required");
            0
        }
        Some(n) if !(1..=10_000).contains(&n) => {
            errors.add("partySize", "must be between 1 and 10000");
            0
        }
        Some(n) => i32::try_from(n).unwrap_or(0),
    };
    let mut chosen = Vec::new();
    for (i, a) in input.addons.iter().enumerate() {
        let id = match a.addon_id.as_deref() {
            None => {
                errors.add(format!("addons[{i}].addonId"), "is required");
                continue;
            }
            Some(raw) => match parse_id(raw) {
                Some(id) => id,
                None => {
                    errors.add(
                        format!("addons[{i}].addonId"),
                        "is not an active add-on of this product",
                    );
                    continue;
                }
            },
        };
        let quantity = match a.quantity {
            None => 1,
            Some(q) if (0..=10_000).contains(&q) => u32::try_from(q).unwrap_or(0),
            Some(_) => {
                errors.add(
                    format!("addons[{i}].quantity"),
                    "must be between 1 and 10000",
                );
                continue;
            }
        };
        chosen.push(ChosenAddon {
            addon_id: id,
            quantity,
        });
    }
    let cf = input.customer_field;
    let customer = input.customer;
    let name = clean(customer.and_then(|c| c.name.as_deref()));
    let email = clean(customer.and_then(|c| c.email.as_deref()));
    let phone = clean(customer.and_then(|c| c.phone.as_deref()));
    if input.customer_required && customer.is_none() {
        errors.add(cf, "is required");
    }
    if input.customer_required && customer.is_some() && name.is_none() {
        errors.add(format!("{cf}.name"), "is required");
    }
    if input.customer_required && customer.is_some() && email.is_none() {
        errors.add(format!("{cf}.email"), "is required");
    }
    if name.as_ref().is_some_and(|n| !super::short_text(n, 200)) {
        errors.add(
            format!("{cf}.name"),
            "must be at most 200 characters without control characters",
        );
    }
    let email = match email.as_deref().map(Email::parse) {
        None => None,
        Some(Ok(e)) => Some(e.into_string()),
        Some(Err(message)) => {
            errors.add(format!("{cf}.email"), message);
            None
        }
    };
    if let Some(Err(message)) = phone.as_deref().map(validate_phone) {
        errors.add(format!("{cf}.phone"), message);
    }
    if party > 0 && input.participants.len() > usize::try_from(party).unwrap_or(0) {
        errors.add("participants", "must not list more people than partySize");
    }
    let today = state.now().date_naive();
    for (i, p) in input.participants.iter().enumerate() {
        check_participant(&mut errors, &format!("participants[{i}]"), p, today);
    }
    if !errors.is_empty() {
        return Err(ApiError::validation(errors));
    }
    let product_id = input.product_id.and_then(parse_id);
    let product = match product_id {
        Some(id) => state.store.get_product(tenant.id(), id).await?,
        None => None,
    }
    .filter(|p| p.is_active)
    .ok_or_else(|| ApiError::not_found("Product"))?;
    let site_id = input.site_id.and_then(parse_id);
    if site_id != Some(product.site_id) {
        return Err(ApiError::not_found("Product at this site"));
    }
    let site = state
        .store
        .get_site(tenant.id(), product.site_id)
        .await?
        .filter(|s| s.is_active)
        .ok_or_else(|| ApiError::not_found("Site"))?;
    let variant = match input.variant_id {
        None => None,
        Some(raw) => {
            let id = parse_id(raw).ok_or_else(|| ApiError::not_found("Variant"))?;
            let variants = state.store.list_variants(tenant.id(), product.id).await?;
            Some(
                variants
                    .into_iter()
                    .find(|v| v.id == id && v.is_active)
                    .ok_or_else(|| ApiError::not_found("Variant"))?,
            )
        }
    };
    let catalog: Vec<Addon> = if chosen.is_empty() {
        Vec::new()
    } else {
        state.store.list_addons(tenant.id(), product.id).await?
    };
    let mut errors = FieldErrors::new();
    if party > product.capacity {
        errors.add(
            "partySize",
            format!("must be at most {} for this product", product.capacity),
        );
    }
    super::check_addons(&mut errors, &catalog, &chosen);
    if !errors.is_empty() {
        return Err(ApiError::validation(errors));
    }
    // Store what is priced: one per participant for per-participant add-ons.
    for c in &mut chosen {
        if catalog
            .iter()
            .any(|a| a.id == c.addon_id && a.mode == "per_participant")
        {
            c.quantity = u32::try_from(party).unwrap_or(0);
        }
    }
    let participants = serde_json::to_value(input.participants).map_err(ApiError::internal)?;
    let price = price_booking(
        &product,
        variant.as_ref(),
        &catalog,
        &chosen,
        u32::try_from(party).unwrap_or(0),
        site_currency(&site)?,
    );
    Ok(Draft {
        site,
        product,
        variant,
        chosen,
        party_size: party,
        customer: BookingCustomer {
            id: None,
            name: name.unwrap_or_default(),
            email: email.unwrap_or_default(),
            phone: phone.unwrap_or_default(),
        },
        participants,
        price,
    })
}

fn created(b: &Booking, token: &str) -> (u16, String) {
    let body = BookingResponse::of(b, Some(token.to_owned()));
    (201, serde_json::to_string(&body).unwrap_or_default())
}

fn ok_body(b: &Booking) -> (u16, String) {
    (
        200,
        serde_json::to_string(&BookingResponse::of(b, None)).unwrap_or_default(),
    )
}

/// Runs `work` under the request's Idempotency-Key (if any): a replay answers the stored
/// response, a failure is settled so that it replays (4xx) or may be retried (5xx).
async fn idempotent<F, Fut>(
    state: &AppState,
    tenant: &Tenant,
    headers: &HeaderMap,
    hash: String,
    work: F,
) -> ApiResult<Response>
where
    F: FnOnce(Option<String>) -> Fut,
    Fut: std::future::Future<Output = ApiResult<Response>>,
{
    let key = idempotency_key(headers)?;
    let key = match claim(state, tenant, key, &hash).await? {
        Claimed::Answer(response) => return Ok(response),
        Claimed::Run(key) => key,
    };
    let result = work(key.clone()).await;
    if let Err(e) = &result {
        settle_failure(state, tenant, key.as_deref(), e).await;
    }
    result
}

/// Hold capacity on a slot.
///
/// Reserves the seats atomically and returns the booking in status `hold` until
/// `holdExpiresAt` (the site's or tenant's time-to-live, 15 minutes by default), with its
/// price, `pricingHash` and a `bookingToken` for later calls. A hold made with a customer
/// token belongs to that customer. With an `Idempotency-Key`, a repeat of the same request
/// within 24 hours answers the first response (header `idempotent-replayed: true`), the
/// same key with another body is 422 and a repeat while the first runs is 409.
#[utoipa::path(post, path = "/api/v1/bookings/hold", tag = "bookings",
    params(
        ("x-tenant-id" = String, Header, description = "Tenant id"),
        ("Idempotency-Key" = Option<String>, Header, description = "Makes retries safe: one effect per key and caller for 24 h; use an unguessable value such as a UUID"),
    ),
    request_body = HoldRequest,
    responses(
        (status = 201, body = BookingResponse),
        (status = 400, description = "VALIDATION_ERROR naming every bad field", body = ErrorBody),
        (status = 404, description = "NOT_FOUND: unknown or inactive site, product, slot, variant", body = ErrorBody),
        (status = 409, description = "SLOT_UNAVAILABLE: full, started or closed slot; IDEMPOTENCY_KEY_IN_FLIGHT", body = ErrorBody),
        (status = 422, description = "IDEMPOTENCY_KEY_REUSED with another body", body = ErrorBody),
    ))]
pub async fn hold(
    State(state): State<AppState>,
    access: BookingAccess,
    headers: HeaderMap,
    Json(body): Json<Value>,
) -> ApiResult<Response> {
    let hash = request_hash(&access.caller_key(), "POST", "/api/v1/bookings/hold", &body);
    let tenant = access.tenant.clone();
    idempotent(
        &state.clone(),
        &tenant.clone(),
        &headers,
        hash,
        |key| async move {
            let req: HoldRequest = decode_json(body)?;
            let slot_id = match req.slot_id.as_deref() {
                None => return Err(ApiError::invalid_field("slotId", "is required")),
                Some(raw) => parse_id(raw).ok_or_else(|| ApiError::not_found("Slot"))?,
            };
            let mut draft = draft(
                &state,
                &tenant,
                DraftInput {
                    site_id: req.site_id.as_deref(),
                    product_id: req.product_id.as_deref(),
                    variant_id: req.variant_id.as_deref(),
                    party_size: req.party_size,
                    addons: req.addons.as_deref().unwrap_or_default(),
                    customer: req.customer.as_ref(),
                    customer_required: false,
                    participants: req.participants.as_deref().unwrap_or_default(),
                    customer_field: "customer",
                },
            )
            .await?;
            let actor = match &access.caller {
                super::Caller::Customer(c) => {
                    let me = &c.customer;
                    draft.customer.id = Some(me.id);
                    if draft.customer.email.is_empty() {
                        draft.customer.email = me.email.clone();
                    }
                    if draft.customer.name.is_empty() {
                        draft.customer.name = me.display_name();
                    }
                    if draft.customer.phone.is_empty() {
                        draft.customer.phone = me.phone.clone().unwrap_or_default();
                    }
                    kairos_store::Actor::customer(me.id, Some(&me.display_name()))
                }
                super::Caller::Admin(a) => a.actor(),
                super::Caller::Anonymous => kairos_store::Actor {
                    kind: kairos_store::ActorKind::Customer,
                    id: None,
                    name: Some("public booking".to_owned()),
                },
            };
            let now = state.now();
            let (token, token_hash) = new_secret();
            let render = |b: &Booking| created(b, &token);
            let booking = state
                .store
                .create_booking(
                    tenant.id(),
                    NewBooking {
                        hold_expires_at: Some(now + hold_ttl(&tenant, &draft.site)),
                        ..draft.into_booking(slot_id, token_hash, BookingSource::Public)
                    },
                    &actor,
                    now,
                    key.as_deref().map(|key| IdempotentFinish {
                        key,
                        render: &render,
                    }),
                )
                .await
                .map_err(|e| match e {
                    StoreError::NotFound => ApiError::not_found("Slot"),
                    other => other.into(),
                })?;
            Ok((
                StatusCode::CREATED,
                axum::Json(BookingResponse::of(&booking, Some(token.clone()))),
            )
                .into_response())
        },
    )
    .await
}

/// A booking, for its booking token, its customer or staff.
#[utoipa::path(get, path = "/api/v1/bookings/{id}", tag = "bookings",
    params(
        ("x-tenant-id" = String, Header, description = "Tenant id"),
        ("x-booking-token" = Option<String>, Header, description = "The token returned by the hold"),
        ("id" = String, Path, description = "Booking id"),
    ),
    responses(
        (status = 200, body = BookingResponse),
        (status = 403, description = "INSUFFICIENT_PERMISSIONS: a staff token without admin:bookings:read", body = ErrorBody),
        (status = 404, description = "BOOKING_NOT_FOUND: no such booking, or the caller may not see it", body = ErrorBody),
    ))]
pub async fn get_booking(
    State(state): State<AppState>,
    access: BookingAccess,
    Path(id): Path<String>,
) -> ApiResult<axum::Json<BookingResponse>> {
    let b = accessible_booking(&state, &access, &id, perm::BOOKINGS_READ).await?;
    Ok(axum::Json(BookingResponse::of(&b, None)))
}

/// `POST /bookings/{id}/confirm`.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ConfirmRequest {
    /// Optional; must name the booking of the path when sent.
    pub booking_id: Option<String>,
    /// The `pricingHash` of the hold (or of the latest PRICING_CHANGED answer).
    pub pricing_hash: Option<String>,
    /// `poa` (pay on arrival → tentative), `cardpay` or `bankpay` (online → confirmed, with
    /// `paymentMethodId`); staff may also use `comp` and `invoice` (confirmed, nothing to
    /// collect online).
    pub payment_method: Option<String>,
    /// The payment provider's method reference; implies `cardpay` when no method is named.
    pub payment_method_id: Option<String>,
}

/// Confirm a hold.
///
/// Re-prices the booking from the catalog; when the result differs from `pricingHash` the
/// answer is 409 `PRICING_CHANGED` with the new price and hash in `details`. Pay on arrival
/// (`paymentMethod: "poa"`) makes the booking `tentative`; an online method makes it
/// `confirmed` with a pending payment for the amount due. Honours `Idempotency-Key`.
#[utoipa::path(post, path = "/api/v1/bookings/{id}/confirm", tag = "bookings",
    params(
        ("x-tenant-id" = String, Header, description = "Tenant id"),
        ("x-booking-token" = Option<String>, Header, description = "The token returned by the hold"),
        ("Idempotency-Key" = Option<String>, Header, description = "Makes retries safe: one effect per key and caller for 24 h; use an unguessable value such as a UUID"),
        ("id" = String, Path, description = "Booking id"),
    ),
    request_body = ConfirmRequest,
    responses(
        (status = 200, body = BookingResponse),
        (status = 400, description = "VALIDATION_ERROR", body = ErrorBody),
        (status = 403, description = "INSUFFICIENT_PERMISSIONS: comp and invoice are for staff; a staff token without admin:bookings:write", body = ErrorBody),
        (status = 404, description = "BOOKING_NOT_FOUND", body = ErrorBody),
        (status = 409, description = "PRICING_CHANGED; HOLD_EXPIRED; INVALID_TRANSITION when not a hold", body = ErrorBody),
        (status = 422, description = "IDEMPOTENCY_KEY_REUSED", body = ErrorBody),
    ))]
pub async fn confirm(
    State(state): State<AppState>,
    access: BookingAccess,
    headers: HeaderMap,
    Path(id): Path<String>,
    Json(body): Json<Value>,
) -> ApiResult<Response> {
    // Access first: a stored answer is replayed only to callers who may see the booking.
    let booking = accessible_booking(&state, &access, &id, perm::BOOKINGS_WRITE).await?;
    let hash = request_hash(
        &access.caller_key(),
        "POST",
        &format!("/api/v1/bookings/{id}/confirm"),
        &body,
    );
    let tenant = access.tenant.clone();
    idempotent(
        &state.clone(),
        &tenant.clone(),
        &headers,
        hash,
        |key| async move {
            let req: ConfirmRequest = decode_json(body)?;
            let mut errors = FieldErrors::new();
            if req
                .booking_id
                .as_deref()
                .is_some_and(|b| parse_id(b) != Some(booking.id))
            {
                errors.add("bookingId", "does not match the booking in the path");
            }
            let expected = clean(req.pricing_hash.as_deref());
            if expected.is_none() {
                errors.add("pricingHash", "is required");
            }
            let method_ref = clean(req.payment_method_id.as_deref());
            if method_ref
                .as_ref()
                .is_some_and(|m| !super::short_text(m, 200))
            {
                errors.add(
                    "paymentMethodId",
                    "must be at most 200 characters without control characters",
                );
            }
            let method = match (clean(req.payment_method.as_deref()), &method_ref) {
                (Some(m), _) => m,
                (None, Some(_)) => "cardpay".to_owned(),
                (None, None) => {
                    errors.add("paymentMethod", "is required (or paymentMethodId)");
                    String::new()
                }
            };
            let pay_on_arrival = method == "poa";
            match method.as_str() {
                "" | "poa" => {}
                "cardpay" | "bankpay" => {
                    if method_ref.is_none() {
                        errors.add("paymentMethodId", "is required for online payment");
                    }
                }
                "comp" | "invoice" => {
                    if !access.is_staff() {
                        return Err(ApiError::forbidden(
                            "Only staff may confirm with comp or invoice",
                        ));
                    }
                }
                _ => errors.add(
                    "paymentMethod",
                    "must be poa, cardpay, bankpay, comp or invoice",
                ),
            }
            if !errors.is_empty() {
                return Err(ApiError::validation(errors));
            }
            let price = current_price(&state, &tenant, &booking).await?;
            if Some(&price.pricing_hash) != expected.as_ref() {
                return Err(ApiError::conflict(
                    code::PRICING_CHANGED,
                    "The price changed since it was quoted; confirm again with the new pricingHash",
                )
                .with_details(serde_json::json!({
                    "pricingHash": price.pricing_hash,
                    "price": super::PriceDto::from(&price),
                })));
            }
            let actor = access.actor(&booking);
            let render = |b: &Booking| ok_body(b);
            let b = state
                .store
                .apply_booking_action(
                    tenant.id(),
                    booking.id,
                    BookingAction::Confirm {
                        pay_on_arrival,
                        payment_method: method,
                        method_reference: method_ref,
                        price,
                    },
                    &actor,
                    state.now(),
                    key.as_deref().map(|key| IdempotentFinish {
                        key,
                        render: &render,
                    }),
                )
                .await
                .map_err(booking_error)?;
            Ok(axum::Json(BookingResponse::of(&b, None)).into_response())
        },
    )
    .await
}

/// The booking's price from the catalog as it is now; 409 `PRICING_CHANGED` without a
/// new hash when its variant or an add-on was withdrawn.
async fn current_price(
    state: &AppState,
    tenant: &Tenant,
    b: &Booking,
) -> ApiResult<PriceBreakdown> {
    let product = state
        .store
        .get_product(tenant.id(), b.product_id)
        .await?
        .ok_or_else(|| ApiError::not_found("Product"))?;
    let site = state
        .store
        .get_site(tenant.id(), b.site_id)
        .await?
        .ok_or_else(|| ApiError::not_found("Site"))?;
    let variant = match b.variant_id {
        None => None,
        Some(id) => state
            .store
            .list_variants(tenant.id(), b.product_id)
            .await?
            .into_iter()
            .find(|v| v.id == id && v.is_active),
    };
    let catalog = if b.addons.is_empty() {
        Vec::new()
    } else {
        state.store.list_addons(tenant.id(), b.product_id).await?
    };
    let withdrawn_addon = b
        .addons
        .iter()
        .any(|c| !catalog.iter().any(|a| a.id == c.addon_id && a.is_active));
    if !product.is_active || (b.variant_id.is_some() && variant.is_none()) || withdrawn_addon {
        // Priced without it, the booking would no longer be what was held.
        return Err(ApiError::conflict(
            code::PRICING_CHANGED,
            "The product, its variant or an add-on of this hold is no longer offered; make a new hold",
        )
        .with_details(serde_json::json!({"reason": "item_withdrawn"})));
    }
    Ok(price_booking(
        &product,
        variant.as_ref(),
        &catalog,
        &b.addons,
        u32::try_from(b.party_size).unwrap_or(0),
        site_currency(&site)?,
    ))
}

/// The customer's window for a change: none for staff.
async fn window_for(
    state: &AppState,
    access: &BookingAccess,
    b: &Booking,
) -> ApiResult<Option<chrono::Duration>> {
    if access.is_staff() {
        return Ok(None);
    }
    let site = state
        .store
        .get_site(access.tenant.id(), b.site_id)
        .await?
        .ok_or_else(|| ApiError::not_found("Site"))?;
    Ok(Some(super::customer_window(&site)))
}

/// `POST /bookings/{id}/cancel`.
#[derive(Debug, Default, Deserialize, ToSchema)]
pub struct CancelRequest {
    pub reason: Option<String>,
}

/// Cancel a booking and release its seats.
///
/// Customers and booking-token holders may cancel a hold at any time and a later booking
/// while its start is outside the site's policy window (standard: 24 h before, strict:
/// 72 h, flexible: until the start); otherwise 409 `OUTSIDE_WINDOW`. Staff may always.
#[utoipa::path(post, path = "/api/v1/bookings/{id}/cancel", tag = "bookings",
    params(
        ("x-tenant-id" = String, Header, description = "Tenant id"),
        ("x-booking-token" = Option<String>, Header, description = "The token returned by the hold"),
        ("id" = String, Path, description = "Booking id"),
    ),
    request_body(content = Option<CancelRequest>, description = "Optional reason"),
    responses(
        (status = 200, body = BookingResponse),
        (status = 403, description = "INSUFFICIENT_PERMISSIONS: a staff token without admin:bookings:write", body = ErrorBody),
        (status = 404, description = "BOOKING_NOT_FOUND", body = ErrorBody),
        (status = 409, description = "OUTSIDE_WINDOW; INVALID_TRANSITION (already canceled, completed, …)", body = ErrorBody),
    ))]
pub async fn cancel(
    State(state): State<AppState>,
    access: BookingAccess,
    Path(id): Path<String>,
    body: axum::body::Bytes,
) -> ApiResult<axum::Json<BookingResponse>> {
    let req: CancelRequest = super::optional_body(&body)?;
    let reason = reason_of(req.reason.as_deref())?;
    let b = accessible_booking(&state, &access, &id, perm::BOOKINGS_WRITE).await?;
    let min_lead = window_for(&state, &access, &b).await?;
    let b = state
        .store
        .apply_booking_action(
            access.tenant.id(),
            b.id,
            BookingAction::Cancel { reason, min_lead },
            &access.actor(&b),
            state.now(),
            None,
        )
        .await
        .map_err(booking_error)?;
    Ok(axum::Json(BookingResponse::of(&b, None)))
}

/// `POST /bookings/{id}/reschedule`.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RescheduleRequest {
    /// A slot of the same product.
    pub slot_id: Option<String>,
}

/// Move a booking to another slot of its product; the seats move atomically.
///
/// The same policy window as cancellation applies to customers (409 `OUTSIDE_WINDOW`).
/// A full, started or closed target slot is 409 `SLOT_UNAVAILABLE`; a slot of another
/// product is 404.
#[utoipa::path(post, path = "/api/v1/bookings/{id}/reschedule", tag = "bookings",
    params(
        ("x-tenant-id" = String, Header, description = "Tenant id"),
        ("x-booking-token" = Option<String>, Header, description = "The token returned by the hold"),
        ("id" = String, Path, description = "Booking id"),
    ),
    request_body = RescheduleRequest,
    responses(
        (status = 200, body = BookingResponse),
        (status = 400, description = "VALIDATION_ERROR", body = ErrorBody),
        (status = 403, description = "INSUFFICIENT_PERMISSIONS: a staff token without admin:bookings:write", body = ErrorBody),
        (status = 404, description = "BOOKING_NOT_FOUND; NOT_FOUND for the slot", body = ErrorBody),
        (status = 409, description = "SLOT_UNAVAILABLE; OUTSIDE_WINDOW; INVALID_TRANSITION", body = ErrorBody),
    ))]
pub async fn reschedule(
    State(state): State<AppState>,
    access: BookingAccess,
    Path(id): Path<String>,
    Json(req): Json<RescheduleRequest>,
) -> ApiResult<axum::Json<BookingResponse>> {
    let b = accessible_booking(&state, &access, &id, perm::BOOKINGS_WRITE).await?;
    let slot_id: Uuid = match req.slot_id.as_deref() {
        None => return Err(ApiError::invalid_field("slotId", "is required")),
        Some(raw) => parse_id(raw).ok_or_else(|| ApiError::not_found("Slot"))?,
    };
    let min_lead = window_for(&state, &access, &b).await?;
    let b = state
        .store
        .apply_booking_action(
            access.tenant.id(),
            b.id,
            BookingAction::Reschedule { slot_id, min_lead },
            &access.actor(&b),
            state.now(),
            None,
        )
        .await
        .map_err(|e| match e {
            StoreError::NotFound => ApiError::not_found("Slot"),
            other => other.into(),
        })?;
    Ok(axum::Json(BookingResponse::of(&b, None)))
}

/// Loads a booking for a staff action (admin:bookings:write).
async fn staff_booking(state: &AppState, auth: &AdminAuth, id: &str) -> ApiResult<Booking> {
    auth.require(perm::BOOKINGS_WRITE)?;
    let id = parse_id(id).ok_or_else(super::booking_not_found)?;
    state
        .store
        .get_booking(auth.tenant.id(), id)
        .await?
        .ok_or_else(super::booking_not_found)
}

async fn staff_action(
    state: &AppState,
    auth: &AdminAuth,
    id: &str,
    action: BookingAction,
) -> ApiResult<axum::Json<BookingResponse>> {
    let b = staff_booking(state, auth, id).await?;
    let b = state
        .store
        .apply_booking_action(
            auth.tenant.id(),
            b.id,
            action,
            &auth.actor(),
            state.now(),
            None,
        )
        .await
        .map_err(booking_error)?;
    Ok(axum::Json(BookingResponse::of(&b, None)))
}

/// Mark a booking arrived (staff; from paid or confirmed, or correcting a no-show).
#[utoipa::path(post, path = "/api/v1/bookings/{id}/mark-arrived", tag = "bookings",
    security(("bearer" = [])),
    params(("x-tenant-id" = String, Header, description = "Tenant id"), ("id" = String, Path, description = "Booking id")),
    responses(
        (status = 200, body = BookingResponse),
        (status = 401, body = ErrorBody),
        (status = 403, description = "INSUFFICIENT_PERMISSIONS: needs admin:bookings:write", body = ErrorBody),
        (status = 404, description = "BOOKING_NOT_FOUND", body = ErrorBody),
        (status = 409, description = "INVALID_TRANSITION", body = ErrorBody),
    ))]
pub async fn mark_arrived(
    State(state): State<AppState>,
    auth: AdminAuth,
    Path(id): Path<String>,
) -> ApiResult<axum::Json<BookingResponse>> {
    staff_action(&state, &auth, &id, BookingAction::MarkArrived).await
}

/// `POST /bookings/{id}/mark-paid`.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MarkPaidRequest {
    /// Major units; default the balance due. Less than the balance on a confirmed
    /// booking makes it part_paid.
    pub amount: Option<f64>,
    /// How it was paid, e.g. cash or card_terminal (default `manual`).
    pub payment_method: Option<String>,
}

/// Record a payment taken by staff (tentative → paid; confirmed → paid or part_paid;
/// part_paid → paid, or part_paid again for a further instalment). Each payment is
/// audited.
#[utoipa::path(post, path = "/api/v1/bookings/{id}/mark-paid", tag = "bookings",
    security(("bearer" = [])),
    params(("x-tenant-id" = String, Header, description = "Tenant id"), ("id" = String, Path, description = "Booking id")),
    request_body(content = Option<MarkPaidRequest>),
    responses(
        (status = 200, body = BookingResponse),
        (status = 400, description = "VALIDATION_ERROR", body = ErrorBody),
        (status = 401, body = ErrorBody),
        (status = 403, description = "INSUFFICIENT_PERMISSIONS", body = ErrorBody),
        (status = 404, description = "BOOKING_NOT_FOUND", body = ErrorBody),
        (status = 409, description = "INVALID_TRANSITION; AMOUNT_EXCEEDS_BALANCE", body = ErrorBody),
    ))]
pub async fn mark_paid(
    State(state): State<AppState>,
    auth: AdminAuth,
    Path(id): Path<String>,
    body: axum::body::Bytes,
) -> ApiResult<axum::Json<BookingResponse>> {
    let req: MarkPaidRequest = super::optional_body(&body)?;
    let b = staff_booking(&state, &auth, &id).await?;
    let amount = match req.amount {
        None => None,
        Some(a) => {
            let currency = kairos_domain::tenancy::Currency::parse(&b.price.currency)
                .map_err(ApiError::internal)?;
            match from_major(a, currency) {
                Ok(v) if v > 0 => Some(v),
                _ => {
                    return Err(ApiError::invalid_field(
                        "amount",
                        "must be a positive amount in the currency's minor units (e.g. at most 2 decimals for EUR)",
                    ));
                }
            }
        }
    };
    let method = clean(req.payment_method.as_deref()).unwrap_or_else(|| "manual".to_owned());
    if method.len() > 50 {
        return Err(ApiError::invalid_field(
            "paymentMethod",
            "must be at most 50 characters",
        ));
    }
    staff_action(
        &state,
        &auth,
        &id,
        BookingAction::MarkPaid { amount, method },
    )
    .await
}

/// `PATCH /bookings/{id}/mark-no-show`.
#[derive(Debug, Default, Deserialize, ToSchema)]
pub struct NoShowRequest {
    pub reason: Option<String>,
}

/// Mark a booking no-show (staff). The seats stay taken: the slot has started.
#[utoipa::path(patch, path = "/api/v1/bookings/{id}/mark-no-show", tag = "bookings",
    security(("bearer" = [])),
    params(("x-tenant-id" = String, Header, description = "Tenant id"), ("id" = String, Path, description = "Booking id")),
    request_body(content = Option<NoShowRequest>),
    responses(
        (status = 200, body = BookingResponse),
        (status = 401, body = ErrorBody),
        (status = 403, description = "INSUFFICIENT_PERMISSIONS", body = ErrorBody),
        (status = 404, description = "BOOKING_NOT_FOUND", body = ErrorBody),
        (status = 409, description = "INVALID_TRANSITION", body = ErrorBody),
    ))]
pub async fn mark_no_show(
    State(state): State<AppState>,
    auth: AdminAuth,
    Path(id): Path<String>,
    body: axum::body::Bytes,
) -> ApiResult<axum::Json<BookingResponse>> {
    let req: NoShowRequest = super::optional_body(&body)?;
    let reason = reason_of(req.reason.as_deref())?;
    staff_action(&state, &auth, &id, BookingAction::MarkNoShow { reason }).await
}
