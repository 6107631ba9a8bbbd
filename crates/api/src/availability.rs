//! Public availability (spec Part B 4.1): open slots with a price preview, a product's
//! add-ons and a site's front-end configuration. Tenant header only; relaxed rate tier.

use crate::catalog::{AddonDto, CANCELLATION_POLICIES, addon_dto};
use crate::error::{ApiError, ApiResult, ErrorBody};
use crate::extract::{Query, Tenant, bool_param, path_id};
use crate::state::AppState;
use axum::extract::{Path, State};
use axum::http::HeaderMap;
use chrono::{DateTime, Duration, NaiveDate, Utc};
use kairos_domain::FieldErrors;
use kairos_domain::money::to_major;
use kairos_domain::pricing::{PriceType, base_price, tax_of};
use kairos_domain::scheduling::start_of_day;
use kairos_domain::tenancy::{Currency, parse_time_zone};
use kairos_store::{Product, Site};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use utoipa::{IntoParams, ToSchema};

/// The longest range one query may cover, in days (inclusive of both ends).
pub const MAX_RANGE_DAYS: i64 = 31;
/// The largest party a query may ask about.
pub const MAX_PARTY_SIZE: i64 = 500;

/// Query of `GET /availability` (snake_case).
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct AvailabilityQuery {
    /// Required.
    pub product_id: Option<String>,
    /// Required.
    pub site_id: Option<String>,
    /// Required, YYYY-MM-DD (site local date).
    pub date_from: Option<String>,
    /// YYYY-MM-DD, default date_from; at most 31 days after date_from.
    pub date_to: Option<String>,
    /// Default 1.
    pub party_size: Option<String>,
    /// Default true.
    pub include_labels: Option<String>,
}

/// Estimated price of the requested party in a slot.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PricingPreview {
    pub subtotal: f64,
    pub tax_total: f64,
    pub grand_total: f64,
    pub currency: String,
}

/// An open slot (spec Part B 2.1).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AvailabilitySlot {
    pub slot_id: String,
    pub starts_at: DateTime<Utc>,
    pub ends_at: DateTime<Utc>,
    pub available_capacity: i32,
    pub total_capacity: i32,
    /// Omitted with include_labels=false.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub label_codes: Option<Vec<String>>,
    pub pricing_preview: PricingPreview,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AvailabilityResponse {
    #[serde(rename = "request_id")]
    pub request_id: String,
    pub product_id: String,
    pub site_id: String,
    pub date_from: NaiveDate,
    pub date_to: NaiveDate,
    pub party_size: i64,
    /// Open slots, soonest first (spec Part B 2.1).
    #[schema(value_type = Vec<AvailabilitySlot>)]
    pub slots: Arc<RawValue>,
}

/// A short-lived per-instance cache of availability answers (see
/// [`crate::ApiConfig::availability_cache_ttl`]). Holds and every other write check
/// capacity in the database, so a stale answer can only show a slot that a hold then
/// refuses, never oversell one.
pub struct AvailabilityCache {
    ttl: chrono::Duration,
    entries: Mutex<HashMap<String, (DateTime<Utc>, Cached)>>,
}

#[derive(Clone)]
struct Cached {
    product_id: String,
    site_id: String,
    slots: Arc<RawValue>,
}

impl AvailabilityCache {
    pub fn new(ttl: std::time::Duration) -> Self {
        Self {
            ttl: chrono::Duration::from_std(ttl).unwrap_or_default(),
            entries: Mutex::new(HashMap::new()),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, (DateTime<Utc>, Cached)>> {
        self.entries.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn get(&self, key: &str, now: DateTime<Utc>) -> Option<Cached> {
        if self.ttl.is_zero() {
            return None;
        }
        let entries = self.lock();
        let (at, cached) = entries.get(key)?;
        (now - *at < self.ttl).then(|| cached.clone())
    }

    fn put(&self, key: String, value: Cached, now: DateTime<Utc>) {
        if self.ttl.is_zero() {
            return;
        }
        let mut entries = self.lock();
        if entries.len() >= 20_000 {
            let ttl = self.ttl;
            entries.retain(|_, (at, _)| now - *at < ttl);
        }
        entries.insert(key, (now, value));
    }

    /// Forgets every answer of `tenant` (after a write through this instance).
    pub fn invalidate(&self, tenant: &str) {
        let prefix = format!("{tenant}\u{1f}");
        self.lock().retain(|k, _| !k.starts_with(&prefix));
    }
}

/// Middleware: a successful write names its tenant; drop that tenant's cached answers.
pub async fn invalidate_on_write(
    req: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    let write = !matches!(
        *req.method(),
        axum::http::Method::GET | axum::http::Method::HEAD | axum::http::Method::OPTIONS
    );
    let tenant = write
        .then(|| {
            req.headers()
                .get(crate::extract::TENANT_HEADER)
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned)
        })
        .flatten();
    let state = req.extensions().get::<AppState>().cloned();
    let response = next.run(req).await;
    if let (Some(tenant), Some(state)) = (tenant, state) {
        if response.status().is_success() {
            state.availability_cache.invalidate(&tenant);
        }
    }
    response
}

/// The preview for `party_size` of `product` (the hold's pricing hash is authoritative).
pub fn pricing_preview(product: &Product, party_size: u32, currency: Currency) -> PricingPreview {
    let price_type = PriceType::parse(&product.price_type).unwrap_or(PriceType::PerPerson);
    let amount = base_price(product.base_price, price_type, party_size);
    let totals = tax_of(amount, product.tax_rate_bp, product.prices_include_tax);
    let subtotal = if product.prices_include_tax {
        totals.total - totals.tax
    } else {
        totals.subtotal
    };
    PricingPreview {
        subtotal: to_major(subtotal, currency),
        tax_total: to_major(totals.tax, currency),
        grand_total: to_major(totals.total, currency),
        currency: currency.code().to_owned(),
    }
}

fn request_id(headers: &HeaderMap) -> String {
    headers
        .get("x-request-id")
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned)
        .unwrap_or_else(|| uuid::Uuid::new_v4().to_string())
}

/// Loads an active product of an active site of this tenant; anything else is 404.
async fn active_product_and_site(
    state: &AppState,
    tenant: &Tenant,
    product: &str,
    site: Option<&str>,
) -> ApiResult<(Product, Site)> {
    let product_id = path_id(product, "Product")?;
    let product = state
        .store
        .get_product(tenant.id(), product_id)
        .await?
        .filter(|p| p.is_active)
        .ok_or_else(|| ApiError::not_found("Product"))?;
    if let Some(site) = site {
        let site_id = path_id(site, "Site")?;
        if site_id != product.site_id {
            return Err(ApiError::not_found("Product at this site"));
        }
    }
    let site = state
        .store
        .get_site(tenant.id(), product.site_id)
        .await?
        .filter(|s| s.is_active)
        .ok_or_else(|| ApiError::not_found("Site"))?;
    Ok((product, site))
}

/// Open slots of a product with capacity and a price preview.
#[utoipa::path(get, path = "/api/v1/availability", tag = "availability",
    params(("x-tenant-id" = String, Header, description = "Tenant id"), AvailabilityQuery),
    responses(
        (status = 200, description = "Open slots; an empty list when nothing is free", body = AvailabilityResponse),
        (status = 400, description = "VALIDATION_ERROR naming the missing or bad parameter", body = ErrorBody),
        (status = 404, description = "NOT_FOUND: unknown or inactive product or site, or a product of another site", body = ErrorBody),
    ))]
pub async fn get_availability(
    State(state): State<AppState>,
    tenant: Tenant,
    headers: HeaderMap,
    Query(q): Query<AvailabilityQuery>,
) -> ApiResult<axum::Json<AvailabilityResponse>> {
    let mut errors = FieldErrors::new();
    for (field, value) in [
        ("product_id", &q.product_id),
        ("site_id", &q.site_id),
        ("date_from", &q.date_from),
    ] {
        if value.as_deref().is_none_or(|v| v.trim().is_empty()) {
            errors.add(field, "is required");
        }
    }
    let date = |errors: &mut FieldErrors, field: &str, v: &str| match NaiveDate::parse_from_str(
        v.trim(),
        "%Y-%m-%d",
    ) {
        Ok(d) => Some(d),
        Err(_) => {
            errors.add(field, format!("'{v}' is not a date YYYY-MM-DD"));
            None
        }
    };
    let from = q
        .date_from
        .as_deref()
        .filter(|v| !v.trim().is_empty())
        .and_then(|v| date(&mut errors, "date_from", v));
    let to = match q.date_to.as_deref() {
        None | Some("") => from,
        Some(v) => date(&mut errors, "date_to", v),
    };
    if let (Some(f), Some(t)) = (from, to) {
        if t < f {
            errors.add("date_to", "must not be before date_from");
        } else if (t - f).num_days() >= MAX_RANGE_DAYS {
            errors.add(
                "date_to",
                format!("the range may cover at most {MAX_RANGE_DAYS} days"),
            );
        }
    }
    let party_size = match q.party_size.as_deref() {
        None | Some("") => 1,
        Some(v) => match v.trim().parse::<i64>() {
            Ok(n) if (1..=MAX_PARTY_SIZE).contains(&n) => n,
            _ => {
                errors.add(
                    "party_size",
                    format!("must be a whole number from 1 to {MAX_PARTY_SIZE}"),
                );
                1
            }
        },
    };
    let include_labels = bool_param(
        &mut errors,
        "include_labels",
        q.include_labels.as_deref(),
        true,
    );
    errors.finish().map_err(ApiError::validation)?;
    let (Some(from), Some(to), Some(product_raw)) = (from, to, q.product_id.as_deref()) else {
        return Err(ApiError::validation(FieldErrors::new()));
    };
    let now = state.now();
    let key = format!(
        "{}\u{1f}{product_raw}\u{1f}{}\u{1f}{from}\u{1f}{to}\u{1f}{party_size}\u{1f}{include_labels}",
        tenant.id(),
        q.site_id.as_deref().unwrap_or_default()
    );
    let cached = match state.availability_cache.get(&key, now) {
        Some(hit) => hit,
        None => {
            let fresh = compute(
                &state,
                &tenant,
                product_raw,
                q.site_id.as_deref(),
                from,
                to,
                party_size,
                include_labels,
            )
            .await?;
            state.availability_cache.put(key, fresh.clone(), now);
            fresh
        }
    };
    Ok(axum::Json(AvailabilityResponse {
        request_id: request_id(&headers),
        product_id: cached.product_id,
        site_id: cached.site_id,
        date_from: from,
        date_to: to,
        party_size,
        slots: cached.slots,
    }))
}

/// Reads the open slots and renders them once, for the cache.
#[expect(
    clippy::too_many_arguments,
    reason = "the query's parameters, passed through"
)]
async fn compute(
    state: &AppState,
    tenant: &Tenant,
    product_raw: &str,
    site_raw: Option<&str>,
    from: NaiveDate,
    to: NaiveDate,
    party_size: i64,
    include_labels: bool,
) -> ApiResult<Cached> {
    let (product, site) = active_product_and_site(state, tenant, product_raw, site_raw).await?;
    let tz = parse_time_zone(&site.timezone).map_err(ApiError::internal)?;
    let currency = Currency::parse(&site.currency).map_err(ApiError::internal)?;
    let (Some(lo), Some(hi)) = (
        start_of_day(&tz, from),
        start_of_day(&tz, to + Duration::days(1)),
    ) else {
        return Err(ApiError::invalid_field("date_from", "is out of range"));
    };
    let seats = i32::try_from(party_size).unwrap_or(i32::MAX);
    let slots = state
        .store
        .open_slots(tenant.id(), product.id, lo, hi, seats, state.now())
        .await?;
    let preview = pricing_preview(&product, u32::try_from(party_size).unwrap_or(1), currency);
    let labels = include_labels.then(|| product.label_codes.clone());
    let slots: Vec<AvailabilitySlot> = slots
        .into_iter()
        .map(|s| AvailabilitySlot {
            slot_id: s.id.to_string(),
            starts_at: s.starts_at,
            ends_at: s.ends_at,
            available_capacity: (s.capacity - s.booked).max(0),
            total_capacity: s.capacity,
            label_codes: labels.clone(),
            pricing_preview: preview.clone(),
        })
        .collect();
    let rendered = serde_json::value::to_raw_value(&slots).map_err(ApiError::internal)?;
    Ok(Cached {
        product_id: product.id.to_string(),
        site_id: site.id.to_string(),
        slots: Arc::from(rendered),
    })
}

#[derive(Debug, Serialize, ToSchema)]
pub struct ProductAddons {
    pub product_id: String,
    pub addons: Vec<AddonDto>,
}

/// The add-ons on sale for a product.
#[utoipa::path(get, path = "/api/v1/availability/products/{productId}/addons", tag = "availability",
    params(("x-tenant-id" = String, Header, description = "Tenant id"), ("productId" = String, Path, description = "Product id")),
    responses((status = 200, body = ProductAddons), (status = 404, description = "NOT_FOUND", body = ErrorBody)))]
pub async fn product_addons(
    State(state): State<AppState>,
    tenant: Tenant,
    Path(product): Path<String>,
) -> ApiResult<axum::Json<ProductAddons>> {
    let (product, site) = active_product_and_site(&state, &tenant, &product, None).await?;
    let currency = Currency::parse(&site.currency).map_err(ApiError::internal)?;
    let addons = state
        .store
        .list_addons(tenant.id(), product.id)
        .await?
        .into_iter()
        .filter(|a| a.is_active)
        .map(|a| addon_dto(a, currency))
        .collect();
    Ok(axum::Json(ProductAddons {
        product_id: product.id.to_string(),
        addons,
    }))
}

/// A product as the booking front end shows it.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PublicProduct {
    pub id: String,
    pub name: String,
    pub description: String,
    pub duration_mins: i32,
    pub capacity: i32,
    pub base_price: f64,
    pub price_type: String,
    pub prices_include_tax: bool,
    pub label_codes: Vec<String>,
    pub requires_waiver: bool,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct BookingPolicies {
    /// How long a hold reserves capacity.
    pub hold_ttl_minutes: i32,
    /// standard, flexible or strict (spec Part B 4.8).
    pub cancellation_policy: String,
    pub max_party_size: i64,
    /// How many days ahead slots are bookable.
    pub booking_horizon_days: i64,
}

/// The front-end configuration of a site.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SiteConfig {
    pub site_id: String,
    pub name: String,
    pub timezone: String,
    pub currency: String,
    pub locale: String,
    pub address: Option<String>,
    pub contact_email: Option<String>,
    pub contact_phone: Option<String>,
    pub products: Vec<PublicProduct>,
    pub booking_policies: BookingPolicies,
}

/// A site's public configuration: zone, currency, locale, products on sale, policies.
#[utoipa::path(get, path = "/api/v1/availability/sites/{siteId}/config", tag = "availability",
    params(("x-tenant-id" = String, Header, description = "Tenant id"), ("siteId" = String, Path, description = "Site id")),
    responses((status = 200, body = SiteConfig), (status = 404, description = "NOT_FOUND", body = ErrorBody)))]
pub async fn site_config(
    State(state): State<AppState>,
    tenant: Tenant,
    Path(site): Path<String>,
) -> ApiResult<axum::Json<SiteConfig>> {
    let site_id = path_id(&site, "Site")?;
    let site = state
        .store
        .get_site(tenant.id(), site_id)
        .await?
        .filter(|s| s.is_active)
        .ok_or_else(|| ApiError::not_found("Site"))?;
    let currency = Currency::parse(&site.currency).map_err(ApiError::internal)?;
    let products = state
        .store
        .list_products(tenant.id())
        .await?
        .into_iter()
        .filter(|p| p.site_id == site.id && p.is_active)
        .map(|p| PublicProduct {
            id: p.id.to_string(),
            name: p.name,
            description: p.description,
            duration_mins: p.duration_mins,
            capacity: p.capacity,
            base_price: to_major(p.base_price, currency),
            price_type: p.price_type,
            prices_include_tax: p.prices_include_tax,
            label_codes: p.label_codes,
            requires_waiver: p.requires_waiver,
        })
        .collect();
    let policy = if CANCELLATION_POLICIES.contains(&site.cancellation_policy.as_str()) {
        site.cancellation_policy.clone()
    } else {
        "standard".to_owned()
    };
    Ok(axum::Json(SiteConfig {
        site_id: site.id.to_string(),
        name: site.name,
        timezone: site.timezone,
        currency: site.currency,
        locale: site.locale,
        address: site.address,
        contact_email: site.contact_email,
        contact_phone: site.contact_phone,
        products,
        booking_policies: BookingPolicies {
            hold_ttl_minutes: site.hold_ttl_minutes.unwrap_or(tenant.0.hold_ttl_minutes),
            cancellation_policy: policy,
            max_party_size: MAX_PARTY_SIZE,
            booking_horizon_days: kairos_domain::scheduling::HORIZON_DAYS,
        },
    }))
}
