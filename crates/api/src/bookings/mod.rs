//! Bookings (spec Part A sections 2.1-2.3, 3.1, 4.1-4.5 and 4.11): the public booking
//! flow, administration, notes and customer history.
//!
//! Who may act on a booking through the public endpoints: whoever holds its booking token
//! (`x-booking-token`, given once when the hold is made), the customer it belongs to
//! (customer bearer token) and staff (admin bearer token). Anyone else gets 404
//! `BOOKING_NOT_FOUND`, so ids cannot be probed.

pub mod admin;
pub mod history;
pub mod notes;
pub mod public;

use crate::auth::tokens::TokenKind;
use crate::error::{ApiError, ApiResult, code};
use crate::extract::{AdminAuth, CustomerAuth, Tenant, bearer_token};
use crate::state::AppState;
use axum::extract::FromRequestParts;
use axum::http::StatusCode;
use axum::http::request::Parts;
use axum::response::{IntoResponse, Response};
use chrono::{DateTime, Utc};
use kairos_domain::FieldErrors;
use kairos_domain::money::to_major;
use kairos_domain::pricing::{
    AddonChoice, AddonMode, AddonPrice, PriceInput, PriceType, VariantPrice, quote,
};
use kairos_domain::tenancy::Currency;
use kairos_store::{
    Actor, Addon, Booking, ChosenAddon, IdempotencyClaim, PriceBreakdown, Product, Site, Variant,
};
use serde::Serialize;
use serde_json::Value;
use utoipa::ToSchema;

/// Header carrying the booking token of the public endpoints.
pub const BOOKING_TOKEN_HEADER: &str = "x-booking-token";
/// Header carrying an idempotency key.
pub const IDEMPOTENCY_HEADER: &str = "idempotency-key";

/// 404 `BOOKING_NOT_FOUND`.
pub fn booking_not_found() -> ApiError {
    ApiError::new(
        StatusCode::NOT_FOUND,
        code::BOOKING_NOT_FOUND,
        "Booking not found",
    )
}

/// The currency of a site (validated when the site was saved).
pub fn site_currency(site: &Site) -> ApiResult<Currency> {
    Currency::parse(&site.currency).map_err(ApiError::internal)
}

/// Money of a booking in major units.
pub fn major(amount: i64, currency: &str) -> f64 {
    match Currency::parse(currency) {
        Ok(c) => to_major(amount, c),
        Err(_) => amount as f64 / 100.0,
    }
}

/// How long before its start a customer may still cancel or move a confirmed booking,
/// by the site's cancellation policy: standard 24 h, strict 72 h, flexible up to the start.
pub fn customer_window(site: &Site) -> chrono::Duration {
    match site.cancellation_policy.as_str() {
        "strict" => chrono::Duration::hours(72),
        "flexible" => chrono::Duration::zero(),
        _ => chrono::Duration::hours(24),
    }
}

/// The hold time-to-live: the site's, else the tenant's (15 minutes by default).
pub fn hold_ttl(tenant: &Tenant, site: &Site) -> chrono::Duration {
    chrono::Duration::minutes(i64::from(
        site.hold_ttl_minutes.unwrap_or(tenant.0.hold_ttl_minutes),
    ))
}

/// Prices a booking from the catalog as it is now. `chosen` add-ons must exist, be
/// active and belong to the product (checked by the caller for new bookings; on confirm an
/// add-on that disappeared simply changes the price).
pub fn price_booking(
    product: &Product,
    variant: Option<&Variant>,
    catalog: &[Addon],
    chosen: &[ChosenAddon],
    party_size: u32,
    currency: Currency,
) -> PriceBreakdown {
    let variant_price = match variant {
        None => VariantPrice::Base,
        Some(v) => match v.price_mode.as_str() {
            "adjustment" => VariantPrice::Adjustment(v.price_amount),
            "override" => VariantPrice::Override(v.price_amount),
            _ => VariantPrice::Base,
        },
    };
    let addons = chosen
        .iter()
        .filter_map(|c| {
            let a = catalog.iter().find(|a| a.id == c.addon_id && a.is_active)?;
            let mode = match a.mode.as_str() {
                "yesno" => AddonMode::YesNo,
                "per_participant" => AddonMode::PerParticipant,
                _ => AddonMode::FreeQty,
            };
            let price = match a.price_type.as_str() {
                "per_person" => AddonPrice::PerPerson(a.amount),
                "percentage" => AddonPrice::Percentage(i32::try_from(a.amount).unwrap_or(0)),
                _ => AddonPrice::Fixed(a.amount),
            };
            Some(AddonChoice {
                id: a.id.to_string(),
                name: a.name.clone(),
                mode,
                price,
                quantity: c.quantity,
            })
        })
        .collect();
    let input = PriceInput {
        currency: currency.code().to_owned(),
        party_size,
        base_price: product.base_price,
        price_type: PriceType::parse(&product.price_type).unwrap_or(PriceType::PerPerson),
        variant_id: variant.map(|v| v.id.to_string()),
        variant: variant_price,
        addons,
        tax_rate_bp: product.tax_rate_bp,
        prices_include_tax: product.prices_include_tax,
    };
    PriceBreakdown::from(&quote(&input))
}

/// Checks chosen add-ons against the product's catalog: each must exist for the product,
/// be active and appear once; quantities follow the add-on's mode.
pub fn check_addons(errors: &mut FieldErrors, catalog: &[Addon], chosen: &[ChosenAddon]) {
    for (i, c) in chosen.iter().enumerate() {
        let field = format!("addons[{i}]");
        if chosen[..i].iter().any(|o| o.addon_id == c.addon_id) {
            errors.add(format!("{field}.addonId"), "is listed twice");
            continue;
        }
        let Some(addon) = catalog.iter().find(|a| a.id == c.addon_id && a.is_active) else {
            errors.add(
                format!("{field}.addonId"),
                "is not an active add-on of this product",
            );
            continue;
        };
        match addon.mode.as_str() {
            "yesno" if c.quantity != 1 => {
                errors.add(format!("{field}.quantity"), "must be 1 for a yes/no add-on");
            }
            _ if c.quantity == 0 => errors.add(format!("{field}.quantity"), "must be at least 1"),
            _ => {
                if let Some(max) = addon.max_quantity
                    && i64::from(c.quantity) > i64::from(max)
                {
                    errors.add(
                        format!("{field}.quantity"),
                        format!("must be at most {max}"),
                    );
                }
            }
        }
    }
}

/// A price breakdown in major units.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PriceDto {
    pub base_price: f64,
    pub addons: Vec<AddonLineDto>,
    pub subtotal: f64,
    pub tax: f64,
    pub total: f64,
    #[schema(example = "EUR")]
    pub currency: String,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AddonLineDto {
    pub addon_id: String,
    pub name: String,
    pub quantity: u32,
    pub total: f64,
}

impl From<&PriceBreakdown> for PriceDto {
    fn from(p: &PriceBreakdown) -> Self {
        let m = |v| major(v, &p.currency);
        PriceDto {
            base_price: m(p.base_price),
            addons: p
                .addons
                .iter()
                .map(|l| AddonLineDto {
                    addon_id: l.addon_id.clone(),
                    name: l.name.clone(),
                    quantity: l.quantity,
                    total: m(l.total),
                })
                .collect(),
            subtotal: m(p.subtotal),
            tax: m(p.tax),
            total: m(p.total),
            currency: p.currency.clone(),
        }
    }
}

#[derive(Debug, Serialize, ToSchema)]
pub struct CustomerDto {
    pub name: String,
    pub email: String,
    pub phone: String,
}

/// A booking as the public endpoints show it (camelCase, money in major units).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct BookingResponse {
    pub id: String,
    #[schema(example = "K7QXM2PA")]
    pub reference: String,
    /// hold, tentative, confirmed, part_paid, paid, arrived, completed, canceled, no_show, expired.
    #[schema(example = "hold")]
    pub status: String,
    pub site_id: String,
    pub product_id: String,
    pub slot_id: String,
    pub variant_id: Option<String>,
    pub start_time: DateTime<Utc>,
    pub end_time: DateTime<Utc>,
    pub party_size: i32,
    /// Set while the booking is a hold.
    pub hold_expires_at: Option<DateTime<Utc>>,
    pub customer: CustomerDto,
    pub addons: Vec<ChosenAddonDto>,
    #[schema(value_type = Vec<Object>)]
    pub participants: Value,
    pub price: PriceDto,
    /// Send back on confirm; a different current price makes confirm answer PRICING_CHANGED.
    pub pricing_hash: String,
    pub paid_amount: f64,
    pub balance_due: f64,
    pub payment_method: Option<String>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    pub confirmed_at: Option<DateTime<Utc>>,
    pub canceled_at: Option<DateTime<Utc>>,
    /// Only in the response that made the hold: authorises later public calls on this
    /// booking through the `x-booking-token` header. Keep it secret.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub booking_token: Option<String>,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ChosenAddonDto {
    pub addon_id: String,
    pub quantity: u32,
}

impl BookingResponse {
    pub fn of(b: &Booking, booking_token: Option<String>) -> Self {
        let currency = &b.price.currency;
        BookingResponse {
            id: b.id.to_string(),
            reference: b.reference.clone(),
            status: b.status.as_str().to_owned(),
            site_id: b.site_id.to_string(),
            product_id: b.product_id.to_string(),
            slot_id: b.slot_id.to_string(),
            variant_id: b.variant_id.map(|v| v.to_string()),
            start_time: b.starts_at,
            end_time: b.ends_at,
            party_size: b.party_size,
            hold_expires_at: b.hold_expires_at,
            customer: CustomerDto {
                name: b.customer.name.clone(),
                email: b.customer.email.clone(),
                phone: b.customer.phone.clone(),
            },
            addons: b
                .addons
                .iter()
                .map(|a| ChosenAddonDto {
                    addon_id: a.addon_id.to_string(),
                    quantity: a.quantity,
                })
                .collect(),
            participants: b.participants.clone(),
            price: PriceDto::from(&b.price),
            pricing_hash: b.price.pricing_hash.clone(),
            paid_amount: major(b.paid_amount, currency),
            balance_due: major((b.price.total - b.paid_amount).max(0), currency),
            payment_method: b.payment_method.clone(),
            created_at: b.created_at,
            updated_at: b.updated_at,
            confirmed_at: b.confirmed_at,
            canceled_at: b.canceled_at,
            booking_token,
        }
    }
}

/// Who calls a public booking endpoint.
#[derive(Debug, Clone)]
pub enum Caller {
    Admin(AdminAuth),
    Customer(CustomerAuth),
    /// No bearer token; maybe a booking token.
    Anonymous,
}

/// The caller of a public booking endpoint and the booking token it sent, if any.
#[derive(Debug, Clone)]
pub struct BookingAccess {
    pub tenant: Tenant,
    pub caller: Caller,
    pub booking_token: Option<String>,
}

impl FromRequestParts<AppState> for BookingAccess {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, ApiError> {
        let tenant = Tenant::from_request_parts(parts, state).await?;
        let caller = match bearer_token(&parts.headers) {
            None => Caller::Anonymous,
            Some(token) => match state.tokens.verify(token, state.now())?.kind {
                TokenKind::Admin => {
                    Caller::Admin(AdminAuth::from_request_parts(parts, state).await?)
                }
                TokenKind::Customer => {
                    Caller::Customer(CustomerAuth::from_request_parts(parts, state).await?)
                }
            },
        };
        let booking_token = parts
            .headers
            .get(BOOKING_TOKEN_HEADER)
            .and_then(|v| v.to_str().ok())
            .map(|v| v.trim().to_owned())
            .filter(|v| !v.is_empty());
        Ok(BookingAccess {
            tenant,
            caller,
            booking_token,
        })
    }
}

impl BookingAccess {
    /// Whether the caller may see and act on `booking`: its token holder, its customer,
    /// or staff (whose permission [`accessible_booking`] checks first).
    pub fn may_access(&self, booking: &Booking) -> bool {
        let token_ok = self
            .booking_token
            .as_deref()
            .is_some_and(|t| kairos_domain::ids::secret_hash(t) == booking.token_hash);
        token_ok
            || match &self.caller {
                Caller::Admin(_) => true,
                Caller::Customer(c) => booking.customer.id == Some(c.customer.id),
                Caller::Anonymous => false,
            }
    }

    /// Who is calling, for idempotency: the account behind a bearer token, else
    /// `anonymous` (booking-token holders and anonymous holds share this scope, so their
    /// keys should be unguessable, e.g. UUIDs).
    pub fn caller_key(&self) -> String {
        match &self.caller {
            Caller::Admin(a) => format!("admin:{}", a.user.id),
            Caller::Customer(c) => format!("customer:{}", c.customer.id),
            Caller::Anonymous => "anonymous".to_owned(),
        }
    }

    /// Staff act without the customer's policy window.
    pub fn is_staff(&self) -> bool {
        matches!(self.caller, Caller::Admin(_))
    }

    pub fn actor(&self, booking: &Booking) -> Actor {
        match &self.caller {
            Caller::Admin(a) => a.actor(),
            Caller::Customer(c) => Actor::customer(c.customer.id, Some(&c.customer.display_name())),
            Caller::Anonymous => Actor {
                kind: kairos_store::ActorKind::Customer,
                id: booking.customer.id.map(|id| id.to_string()),
                name: Some(format!("booking token of {}", booking.reference)),
            },
        }
    }
}

/// Loads a booking the caller may access: 403 for staff without `permission`, 404
/// `BOOKING_NOT_FOUND` for anyone else who may not see it.
pub async fn accessible_booking(
    state: &AppState,
    access: &BookingAccess,
    raw_id: &str,
    permission: &str,
) -> ApiResult<Booking> {
    if let Caller::Admin(staff) = &access.caller {
        staff.require(permission)?;
    }
    let id = kairos_domain::ids::parse_id(raw_id).ok_or_else(booking_not_found)?;
    state
        .store
        .get_booking(access.tenant.id(), id)
        .await?
        .filter(|b| access.may_access(b))
        .ok_or_else(booking_not_found)
}

/// A one-line text: at most `max` characters, no control characters (names, ids).
pub fn short_text(s: &str, max: usize) -> bool {
    s.chars().count() <= max && !s.chars().any(char::is_control)
}

/// A free text: at most `max` characters; line breaks and tabs, but no other control
/// characters (reasons, notes).
pub fn free_text(s: &str, max: usize) -> bool {
    s.chars().count() <= max
        && !s
            .chars()
            .any(|c| c.is_control() && !matches!(c, '\n' | '\r' | '\t'))
}

/// A JSON body that may be left out entirely (actions whose fields are all optional).
pub fn optional_body<T: serde::de::DeserializeOwned + Default>(bytes: &[u8]) -> ApiResult<T> {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Ok(T::default());
    }
    let value: Value = serde_json::from_slice(bytes)
        .map_err(|e| ApiError::invalid_field("body", format!("is not valid JSON: {e}")))?;
    crate::extract::decode_json(value)
}

/// Maps store errors of booking operations: a missing booking is `BOOKING_NOT_FOUND`.
pub fn booking_error(e: kairos_store::StoreError) -> ApiError {
    match e {
        kairos_store::StoreError::NotFound => booking_not_found(),
        other => other.into(),
    }
}

/// The `Idempotency-Key` of a request, if it sent one.
pub fn idempotency_key(parts: &axum::http::HeaderMap) -> ApiResult<Option<String>> {
    let Some(value) = parts.get(IDEMPOTENCY_HEADER) else {
        return Ok(None);
    };
    let key = value
        .to_str()
        .map(str::trim)
        .ok()
        .filter(|k| k.bytes().all(|b| b.is_ascii_graphic()))
        .ok_or_else(|| ApiError::invalid_field("Idempotency-Key", "must be visible ASCII"))?;
    if key.is_empty() || key.len() > 255 {
        return Err(ApiError::invalid_field(
            "Idempotency-Key",
            "must be 1 to 255 characters",
        ));
    }
    Ok(Some(key.to_owned()))
}

/// A canonical digest of a request: who sends it (see [`BookingAccess::caller_key`]),
/// method, path and body with object keys sorted. A key reused by another caller is then
/// a mismatch (422), never a replay of someone else's response.
pub fn request_hash(caller: &str, method: &str, path: &str, body: &Value) -> String {
    fn canonical(v: &Value, out: &mut String) {
        match v {
            Value::Object(map) => {
                let mut keys: Vec<&String> = map.keys().collect();
                keys.sort();
                out.push('{');
                for k in keys {
                    out.push_str(&Value::String(k.clone()).to_string());
                    out.push(':');
                    if let Some(v) = map.get(k) {
                        canonical(v, out);
                    }
                    out.push(',');
                }
                out.push('}');
            }
            Value::Array(items) => {
                out.push('[');
                for i in items {
                    canonical(i, out);
                    out.push(',');
                }
                out.push(']');
            }
            other => out.push_str(&other.to_string()),
        }
    }
    let mut text = format!("{caller}\n{method} {path}\n");
    canonical(body, &mut text);
    kairos_domain::ids::secret_hash(&text)
}

/// Outcome of claiming an idempotency key.
pub enum Claimed {
    /// Run the request; record its response under this key (if any).
    Run(Option<String>),
    /// Answer with this stored or refusing response.
    Answer(Response),
}

/// Claims `key` (if sent) for a request with hash `hash`.
pub async fn claim(
    state: &AppState,
    tenant: &Tenant,
    key: Option<String>,
    hash: &str,
) -> ApiResult<Claimed> {
    let Some(key) = key else {
        return Ok(Claimed::Run(None));
    };
    match state
        .store
        .claim_idempotency_key(tenant.id(), &key, hash, state.now())
        .await?
    {
        IdempotencyClaim::Fresh => Ok(Claimed::Run(Some(key))),
        IdempotencyClaim::Replay { status, body } => {
            let status = StatusCode::from_u16(status).unwrap_or(StatusCode::OK);
            let mut response = (
                status,
                [(axum::http::header::CONTENT_TYPE, "application/json")],
                body,
            )
                .into_response();
            response.headers_mut().insert(
                "idempotent-replayed",
                axum::http::HeaderValue::from_static("true"),
            );
            Ok(Claimed::Answer(response))
        }
        IdempotencyClaim::Mismatch => Err(ApiError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            code::IDEMPOTENCY_KEY_REUSED,
            "This Idempotency-Key was used for a different request",
        )),
        IdempotencyClaim::InFlight => Err(ApiError::conflict(
            code::IDEMPOTENCY_KEY_IN_FLIGHT,
            "A request with this Idempotency-Key is still being processed; retry shortly",
        )),
    }
}

/// Settles a claimed key after the request failed: a 4xx is the request's answer and is
/// kept; after a 5xx the claim is dropped so a retry runs again.
pub async fn settle_failure(state: &AppState, tenant: &Tenant, key: Option<&str>, err: &ApiError) {
    let Some(key) = key else { return };
    let result = if err.status.is_client_error() {
        state
            .store
            .complete_idempotency_key(tenant.id(), key, err.status.as_u16(), &err.body_text())
            .await
    } else {
        state.store.release_idempotency_key(tenant.id(), key).await
    };
    if let Err(e) = result {
        tracing::warn!(error = %e, "could not settle an idempotency key");
    }
}
