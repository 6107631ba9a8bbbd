//! `POST /booking-groups/{id}/confirm` (the group's token, its customer, or staff) and
//! `POST /admin/booking-groups/{id}/confirm` (staff, with a custom total).

use super::dto::BookingGroupDto;
use super::group_not_found;
use super::public::{group_actor, may_access};
use crate::bookings::{BookingAccess, Caller, clean, free_text, short_text};
use crate::error::{ApiError, ApiResult, ErrorBody};
use crate::extract::{AdminAuth, Json, Staff, can, decode_json};
use crate::idempotency::{self, RequestKey};
use crate::state::AppState;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use kairos_app::payments::bank::ReturnUrls;
use kairos_domain::FieldErrors;
use kairos_domain::auth::perm;
use kairos_domain::ids::parse_id;
use kairos_domain::money::from_major;
use kairos_domain::payments::PaymentMethod;
use kairos_domain::tenancy::Currency;
use kairos_store::{Actor, BookingGroup, GroupConfirm};
use serde::Deserialize;
use serde_json::Value;
use utoipa::ToSchema;
use uuid::Uuid;

/// `POST /booking-groups/{id}/confirm` (spec Part B 4.3).
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct GroupConfirmRequest {
    /// CARDPAY or BANKPAY (the bookings stay held until the provider reports the money),
    /// INVOICE or COMP (confirmed at once; staff with `admin:bookings:create:comp`).
    #[schema(example = "CARDPAY", required = true)]
    pub payment_method: Option<String>,
    /// cardpay: the provider's payment method, confirming the payment at once.
    pub payment_method_id: Option<String>,
    /// bankpay: where the customer's browser returns after paying.
    #[schema(max_length = 2000, example = "https://venue.example.com/booked")]
    pub success_url: Option<String>,
    /// bankpay: where it returns when the customer gives up.
    #[schema(max_length = 2000)]
    pub cancel_url: Option<String>,
}

/// `POST /admin/booking-groups/{id}/confirm` (spec Part B 4.3).
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AdminGroupConfirmRequest {
    /// INVOICE, COMP (`admin:bookings:create:comp`), CARDPAY or BANKPAY.
    #[schema(example = "INVOICE", required = true)]
    pub payment_method: Option<String>,
    /// What the whole group costs before its promotion codes and vouchers, instead of the
    /// sum of its bookings' prices (major units, ≥ 0), spread over the bookings in
    /// proportion to their own prices; the group's codes and vouchers apply on top. Needs
    /// `admin:bookings:create:custom_pricing` and `customPricingReason`.
    #[schema(example = 450.0)]
    pub custom_total: Option<f64>,
    /// Why the total was set (required with `customTotal`; at most 500 characters).
    pub custom_pricing_reason: Option<String>,
    pub payment_method_id: Option<String>,
    #[schema(max_length = 2000)]
    pub success_url: Option<String>,
    #[schema(max_length = 2000)]
    pub cancel_url: Option<String>,
}

/// The method named (any case) among the four a group is confirmed with.
fn group_method(errors: &mut FieldErrors, raw: Option<&str>) -> Option<PaymentMethod> {
    let Some(raw) = clean(raw) else {
        errors.add(
            "paymentMethod",
            "is required: CARDPAY, BANKPAY, INVOICE or COMP",
        );
        return None;
    };
    let method = PaymentMethod::parse(&raw.to_ascii_lowercase()).filter(|m| {
        matches!(
            m,
            PaymentMethod::Cardpay
                | PaymentMethod::Bankpay
                | PaymentMethod::Invoice
                | PaymentMethod::Comp
        )
    });
    if method.is_none() {
        errors.add("paymentMethod", "must be CARDPAY, BANKPAY, INVOICE or COMP");
    }
    method
}

/// The payment-step fields both confirmations share: the card's method reference and the
/// bank payment's return addresses.
fn payment_fields(
    errors: &mut FieldErrors,
    method_id: Option<&str>,
    success: Option<&str>,
    cancel: Option<&str>,
) -> (Option<String>, ReturnUrls) {
    let method_ref = clean(method_id);
    if method_ref.as_deref().is_some_and(|m| !short_text(m, 200)) {
        errors.add(
            "paymentMethodId",
            "must be at most 200 characters without control characters",
        );
    }
    let mut url = |field: &str, raw: Option<&str>| {
        let raw = clean(raw)?;
        let ok = kairos_domain::validation::is_web_address(&raw);
        if !ok {
            errors.add(field, "must be an http(s) URL of at most 2000 characters");
        }
        ok.then_some(raw)
    };
    let returns = ReturnUrls {
        success: url("successUrl", success),
        cancel: url("cancelUrl", cancel),
    };
    (method_ref, returns)
}

/// What one confirmation asks, checked.
struct Asked {
    confirm: GroupConfirm,
    method_ref: Option<String>,
    returns: ReturnUrls,
}

/// Confirms `group` as `asked` says (after the venue's payment account is checked) and
/// answers the group, with what the customer does to pay when a payment waits.
async fn confirm_and_answer(
    state: &AppState,
    tenant: &crate::extract::Tenant,
    (group, key): (&BookingGroup, Option<&RequestKey>),
    asked: Result<Asked, ApiError>,
    actor: &Actor,
    staff: bool,
) -> ApiResult<Response> {
    let now = state.now();
    let render = |g: &BookingGroup| {
        let dto = BookingGroupDto::of(g, now, staff);
        (200, serde_json::to_string(&dto).unwrap_or_default())
    };
    let mut payment_step = None;
    let result = async {
        let asked = asked?;
        let site = group.bookings.first().map(|b| b.site_id);
        match asked.confirm.method {
            PaymentMethod::Cardpay => {
                kairos_app::payments::accounts::cardpay_account(&state.app, tenant.id(), site)
                    .await?;
            }
            PaymentMethod::Bankpay => {
                kairos_app::payments::bank::bankpay_ready(&state.app, tenant.id(), site).await?;
            }
            _ => {}
        }
        payment_step = Some((asked.method_ref.clone(), asked.returns));
        Ok(state
            .store
            .confirm_booking_group(
                tenant.id(),
                group.id,
                asked.confirm,
                actor,
                now,
                key.map(|k| k.for_store(&render)),
            )
            .await?)
    }
    .await;
    let response = idempotency::answer(state, tenant, key, result, |g| {
        (
            StatusCode::OK,
            axum::Json(BookingGroupDto::of(&g, now, staff)),
        )
            .into_response()
    })
    .await?;
    let (method_ref, returns) = payment_step.unwrap_or((
        None,
        ReturnUrls {
            success: None,
            cancel: None,
        },
    ));
    let id = group.id;
    crate::payments::dto::amend_answer(response, |mut json| async move {
        let Some(action) = kairos_app::payments::intents::group_payment_action(
            &state.app,
            tenant.id(),
            id,
            method_ref.as_deref(),
            &returns,
        )
        .await?
        else {
            return Ok(None);
        };
        let action = crate::payments::dto::PaymentAction::from(action);
        if let Some(secret) = &action.client_secret {
            json["cardpayClientSecret"] = serde_json::json!(secret);
        }
        json["payment"] = serde_json::to_value(action)
            .map_err(|e| ApiError::internal(format!("payment action: {e}")))?;
        Ok(Some(json))
    })
    .await
}

/// How long a group's bookings stay held for its card or bank payment: the payment
/// deadline.
fn payment_window(state: &AppState) -> chrono::Duration {
    chrono::Duration::from_std(state.app.payments.deadline)
        .unwrap_or_else(|_| chrono::Duration::minutes(30))
}

/// Confirm a held group.
///
/// CARDPAY and BANKPAY: one payment for the whole group (`payment`, and
/// `cardpayClientSecret` for a card); the bookings stay held (the hold extended to the
/// payment deadline) until the provider reports the money, which confirms and pays them
/// all at once. INVOICE and COMP (staff with `admin:bookings:create:comp`): every booking
/// confirmed at once with its payment to collect. Every booking is priced from the catalog
/// as it is now. The same confirmation again answers the waiting payment again; another
/// method withdraws it. Honours `Idempotency-Key`.
#[utoipa::path(post, path = "/api/v1/booking-groups/{id}/confirm", tag = "booking-groups", security(("bookingToken" = []), ("bearer" = [])),
    params(
        ("Idempotency-Key" = Option<String>, Header, min_length = 1, max_length = 255, description = "Makes retries safe: one effect per key and caller for 24 h; use an unguessable value such as a UUID"),
        ("id" = uuid::Uuid, Path),
        ("x-booking-token" = Option<String>, Header, description = "The group's token from the hold"),
    ),
    request_body = GroupConfirmRequest,
    responses(
        (status = 200, body = BookingGroupDto),
        (status = 400, description = "VALIDATION_ERROR", body = ErrorBody),
        (status = 403, description = "INSUFFICIENT_PERMISSIONS: INVOICE and COMP need staff with admin:bookings:create:comp", body = ErrorBody),
        (status = 404, description = "NOT_FOUND: no such group, or not the caller's", body = ErrorBody),
        (status = 409, description = "HOLD_EXPIRED; INVALID_TRANSITION when the group is not held; PRICING_CHANGED never (re-priced); SLOT_UNAVAILABLE when an activity started (details.activityIndex)", body = ErrorBody),
        (status = 422, description = "IDEMPOTENCY_KEY_REUSED", body = ErrorBody),
        (status = 502, description = "PAYMENT_PROVIDER_ERROR", body = ErrorBody),
        (status = 503, description = "PAYMENTS_NOT_CONFIGURED", body = ErrorBody),
    ))]
pub async fn confirm_group(
    State(state): State<AppState>,
    access: BookingAccess<can::ManageBookings>,
    headers: HeaderMap,
    Path(id): Path<String>,
    Json(body): Json<Value>,
) -> ApiResult<Response> {
    let gid = parse_id(&id).ok_or_else(group_not_found)?;
    let group = state
        .store
        .booking_group(access.tenant.id(), gid)
        .await?
        .filter(|g| may_access(&access, g))
        .ok_or_else(group_not_found)?;
    let key = RequestKey::of(
        &headers,
        &access.caller_key(),
        "POST",
        &format!("/api/v1/booking-groups/{gid}/confirm"),
        &body,
    )?;
    let asked = (|| {
        let req: GroupConfirmRequest = decode_json(body)?;
        let mut errors = FieldErrors::new();
        let method = group_method(&mut errors, req.payment_method.as_deref());
        let (method_ref, returns) = payment_fields(
            &mut errors,
            req.payment_method_id.as_deref(),
            req.success_url.as_deref(),
            req.cancel_url.as_deref(),
        );
        let (Some(method), true) = (method, errors.is_empty()) else {
            return Err(ApiError::validation(errors));
        };
        if let Some(permission) = method.staff_permission() {
            match &access.caller {
                Caller::Admin(admin) => admin.require(permission)?,
                _ => {
                    return Err(ApiError::forbidden(
                        "Only staff may confirm a group with COMP or INVOICE",
                    ));
                }
            }
        }
        Ok(Asked {
            confirm: GroupConfirm {
                method,
                custom: None,
                payment_window: payment_window(&state),
            },
            method_ref,
            returns,
        })
    })();
    let actor = group_actor(&access, &group);
    confirm_and_answer(
        &state,
        &access.tenant,
        (&group, key.as_ref()),
        asked,
        &actor,
        access.is_staff(),
    )
    .await
}

/// The staff confirmation's fields, checked against the caller's permissions.
fn admin_asked(
    state: &AppState,
    auth: &AdminAuth,
    group: &BookingGroup,
    body: Value,
) -> ApiResult<Asked> {
    let req: AdminGroupConfirmRequest = decode_json(body)?;
    let mut errors = FieldErrors::new();
    let method = group_method(&mut errors, req.payment_method.as_deref());
    let (method_ref, returns) = payment_fields(
        &mut errors,
        req.payment_method_id.as_deref(),
        req.success_url.as_deref(),
        req.cancel_url.as_deref(),
    );
    let reason = clean(req.custom_pricing_reason.as_deref());
    if reason.as_deref().is_some_and(|r| !free_text(r, 500)) {
        errors.add(
            "customPricingReason",
            "must be at most 500 characters without control characters",
        );
    }
    let currency = group
        .bookings
        .first()
        .map_or(group.currency.as_str(), |b| b.price.currency.as_str());
    let custom_total = match req.custom_total {
        None => None,
        Some(total) => {
            if reason.is_none() {
                errors.add("customPricingReason", "is required with customTotal");
            }
            match Currency::parse(currency) {
                Ok(c) => errors.check("customTotal", from_major(total, c)),
                Err(e) => return Err(ApiError::internal(e)),
            }
        }
    };
    let (Some(method), true) = (method, errors.is_empty()) else {
        return Err(ApiError::validation(errors));
    };
    if let Some(permission) = method.staff_permission() {
        auth.require(permission)?;
    }
    if custom_total.is_some() {
        auth.require(perm::BOOKINGS_CREATE_CUSTOM_PRICING)?;
    }
    Ok(Asked {
        confirm: GroupConfirm {
            method,
            custom: custom_total.zip(reason),
            payment_window: payment_window(state),
        },
        method_ref,
        returns,
    })
}

/// Confirm a held group (staff).
///
/// As the public confirmation, and `customTotal` (with `customPricingReason` and
/// `admin:bookings:create:custom_pricing`) sets what the whole group costs before its codes
/// and vouchers, spread over its bookings in proportion to their own prices by the largest
/// remainder (the shares sum exactly to it; codes and vouchers apply on top). Needs `manage_bookings`; INVOICE and COMP also
/// `admin:bookings:create:comp`. Honours `Idempotency-Key`.
#[utoipa::path(post, path = "/api/v1/admin/booking-groups/{id}/confirm", tag = "booking-groups", security(("bearer" = [])),
    params(
        ("Idempotency-Key" = Option<String>, Header, min_length = 1, max_length = 255, description = "Makes retries safe: one effect per key and caller for 24 h; use an unguessable value such as a UUID"),
        ("id" = uuid::Uuid, Path),
    ),
    request_body = AdminGroupConfirmRequest,
    responses(
        (status = 200, body = BookingGroupDto),
        (status = 400, description = "VALIDATION_ERROR (customPricingReason is required with customTotal)", body = ErrorBody),
        (status = 401, body = ErrorBody),
        (status = 403, description = "INSUFFICIENT_PERMISSIONS: manage_bookings; admin:bookings:create:comp for INVOICE and COMP; admin:bookings:create:custom_pricing for customTotal", body = ErrorBody),
        (status = 404, description = "NOT_FOUND", body = ErrorBody),
        (status = 409, description = "HOLD_EXPIRED; INVALID_TRANSITION when the group is not held; SLOT_UNAVAILABLE when an activity started", body = ErrorBody),
        (status = 422, description = "IDEMPOTENCY_KEY_REUSED", body = ErrorBody),
        (status = 502, description = "PAYMENT_PROVIDER_ERROR", body = ErrorBody),
        (status = 503, description = "PAYMENTS_NOT_CONFIGURED", body = ErrorBody),
    ))]
pub async fn admin_confirm_group(
    State(state): State<AppState>,
    auth: Staff<can::ManageBookings>,
    headers: HeaderMap,
    Path(id): Path<String>,
    Json(body): Json<Value>,
) -> ApiResult<Response> {
    let gid: Uuid = parse_id(&id).ok_or_else(group_not_found)?;
    let group = state
        .store
        .booking_group(auth.tenant.id(), gid)
        .await?
        .ok_or_else(group_not_found)?;
    let key = RequestKey::of(
        &headers,
        &format!("admin:{}", auth.user.id),
        "POST",
        &format!("/api/v1/admin/booking-groups/{gid}/confirm"),
        &body,
    )?;
    let asked = admin_asked(&state, &auth, &group, body);
    confirm_and_answer(
        &state,
        &auth.tenant,
        (&group, key.as_ref()),
        asked,
        &auth.actor(),
        true,
    )
    .await
}

/// `POST /admin/booking-groups/{id}/mark-paid`.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct GroupMarkPaidRequest {
    /// Major units; default everything the group's bookings still owe.
    pub amount: Option<f64>,
    /// How it was paid, e.g. bank_transfer or cash (default `manual`; at most 50
    /// characters).
    pub payment_method: Option<String>,
}

/// Record money taken for a whole group (an invoice paid, in full or in part).
///
/// Spread over the group's confirmed, tentative and part-paid bookings in proportion to
/// what each still owes (the largest remainder: the parts sum exactly), each part
/// recorded as the booking's own mark-paid records it (part_paid, or paid once nothing
/// is owed). Needs `manage_bookings` and `admin:bookings:write`.
#[utoipa::path(post, path = "/api/v1/admin/booking-groups/{id}/mark-paid", tag = "booking-groups", security(("bearer" = [])),
    params(("id" = uuid::Uuid, Path)),
    request_body(content = Option<GroupMarkPaidRequest>),
    responses(
        (status = 200, body = BookingGroupDto),
        (status = 400, description = "VALIDATION_ERROR", body = ErrorBody),
        (status = 401, body = ErrorBody),
        (status = 403, description = "INSUFFICIENT_PERMISSIONS", body = ErrorBody),
        (status = 404, description = "NOT_FOUND", body = ErrorBody),
        (status = 409, description = "AMOUNT_EXCEEDS_BALANCE: more than the group owes (details.balance), or nothing owed", body = ErrorBody),
    ))]
pub async fn group_mark_paid(
    State(state): State<AppState>,
    auth: Staff<can::ManageBookings>,
    Path(id): Path<String>,
    body: axum::body::Bytes,
) -> ApiResult<axum::Json<BookingGroupDto>> {
    auth.require(perm::BOOKINGS_WRITE)?;
    let req: GroupMarkPaidRequest = crate::bookings::optional_body(&body)?;
    let gid: Uuid = parse_id(&id).ok_or_else(group_not_found)?;
    let group = state
        .store
        .booking_group(auth.tenant.id(), gid)
        .await?
        .ok_or_else(group_not_found)?;
    let currency = group
        .bookings
        .first()
        .map_or(group.currency.as_str(), |b| b.price.currency.as_str());
    let amount = match req.amount {
        None => None,
        Some(a) => {
            let c = Currency::parse(currency).map_err(ApiError::internal)?;
            match from_major(a, c) {
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
    if !short_text(&method, 50) {
        return Err(ApiError::invalid_field(
            "paymentMethod",
            "must be at most 50 characters without control characters",
        ));
    }
    let group = state
        .store
        .record_group_payment(
            auth.tenant.id(),
            gid,
            amount,
            method,
            &auth.actor(),
            state.now(),
        )
        .await?;
    Ok(axum::Json(BookingGroupDto::of(&group, state.now(), true)))
}
