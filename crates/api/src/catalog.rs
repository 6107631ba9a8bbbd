//! Catalog administration (camelCase, `admin:read` / `admin:write`): sites, products,
//! variants and add-ons at `/api/v1/admin/…`. Deleting deactivates; history stays.

use crate::error::{ApiError, ApiResult, ErrorBody};
use crate::extract::{AdminAuth, Json, nullable, path_id};
use crate::state::AppState;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use chrono::{DateTime, Utc};
use kairos_domain::FieldErrors;
use kairos_domain::auth::perm;
use kairos_domain::customers::{Email, validate_phone};
use kairos_domain::money::{from_major, to_major};
use kairos_domain::pricing::{PriceType, percent_to_bp};
use kairos_domain::scheduling::LocalTime;
use kairos_domain::tenancy::{Currency, parse_time_zone, validate_locale};
use kairos_store::{
    Addon, NewAddon, NewProduct, NewSite, NewVariant, Product, Site, StoreError, Variant,
};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

/// Cancellation policies of spec Part B 4.8.
pub const CANCELLATION_POLICIES: [&str; 3] = ["standard", "flexible", "strict"];

fn currency(code: &str) -> ApiResult<Currency> {
    Currency::parse(code).map_err(ApiError::internal)
}

fn not_found(e: StoreError, what: &str) -> ApiError {
    match e {
        StoreError::NotFound => ApiError::not_found(what),
        other => other.into(),
    }
}

fn text(errors: &mut FieldErrors, field: &str, value: &str, max: usize) -> String {
    let v = value.trim();
    if v.chars().count() > max {
        errors.add(field, format!("must be at most {max} characters"));
    }
    if v.chars().any(char::is_control) && field != "description" {
        errors.add(field, "must not contain control characters");
    }
    v.to_owned()
}

fn required_text(errors: &mut FieldErrors, field: &str, value: Option<&str>, max: usize) -> String {
    match value.map(str::trim) {
        None | Some("") => {
            errors.add(field, "is required");
            String::new()
        }
        Some(v) => text(errors, field, v, max),
    }
}

// ───────────────────────────── sites ─────────────────────────────

/// A site (venue location).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SiteDto {
    pub id: String,
    pub name: String,
    #[schema(example = "Europe/Helsinki")]
    pub timezone: String,
    #[schema(example = "EUR")]
    pub currency: String,
    #[schema(example = "en")]
    pub locale: String,
    pub address: Option<String>,
    pub contact_email: Option<String>,
    pub contact_phone: Option<String>,
    /// Hold time-to-live in minutes (default 15 when unset).
    pub hold_ttl_minutes: Option<i32>,
    /// standard, flexible or strict.
    pub cancellation_policy: String,
    pub is_active: bool,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

impl From<Site> for SiteDto {
    fn from(s: Site) -> Self {
        Self {
            id: s.id.to_string(),
            name: s.name,
            timezone: s.timezone,
            currency: s.currency,
            locale: s.locale,
            address: s.address,
            contact_email: s.contact_email,
            contact_phone: s.contact_phone,
            hold_ttl_minutes: s.hold_ttl_minutes,
            cancellation_policy: s.cancellation_policy,
            is_active: s.is_active,
            created_at: s.created_at,
            updated_at: s.updated_at,
        }
    }
}

/// Site fields; on create `name` and `timezone` are required, on update every field is
/// optional and `null` clears an optional text field.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SiteInput {
    pub name: Option<String>,
    pub timezone: Option<String>,
    /// Default: the tenant's currency.
    pub currency: Option<String>,
    /// Default `en`.
    pub locale: Option<String>,
    #[serde(default, deserialize_with = "nullable")]
    #[schema(value_type = Option<String>)]
    pub address: Option<Option<String>>,
    #[serde(default, deserialize_with = "nullable")]
    #[schema(value_type = Option<String>)]
    pub contact_email: Option<Option<String>>,
    #[serde(default, deserialize_with = "nullable")]
    #[schema(value_type = Option<String>)]
    pub contact_phone: Option<Option<String>>,
    #[serde(default, deserialize_with = "nullable")]
    #[schema(value_type = Option<i32>)]
    pub hold_ttl_minutes: Option<Option<i32>>,
    pub cancellation_policy: Option<String>,
    pub is_active: Option<bool>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct SiteList {
    pub items: Vec<SiteDto>,
    pub total: usize,
}

/// Merges `input` over `base` and validates the result.
fn site_fields(
    input: SiteInput,
    base: NewSite,
    creating: bool,
) -> Result<(NewSite, Option<bool>), FieldErrors> {
    let mut errors = FieldErrors::new();
    let name = match (&input.name, creating) {
        (None, false) => base.name,
        (n, _) => required_text(&mut errors, "name", n.as_deref(), 200),
    };
    let timezone = match (&input.timezone, creating) {
        (None, false) => base.timezone,
        (None, true) => {
            errors.add("timezone", "is required");
            String::new()
        }
        (Some(tz), _) => {
            errors.check("timezone", parse_time_zone(tz));
            tz.trim().to_owned()
        }
    };
    let currency = match &input.currency {
        None => base.currency,
        Some(c) => errors
            .check("currency", Currency::parse(c))
            .map(|c| c.code().to_owned())
            .unwrap_or_default(),
    };
    let locale = match &input.locale {
        None => base.locale,
        Some(l) => {
            errors.check("locale", validate_locale(l.trim()));
            l.trim().to_owned()
        }
    };
    let address = match input.address {
        None => base.address,
        Some(a) => a
            .map(|a| text(&mut errors, "address", &a, 500))
            .filter(|a| !a.is_empty()),
    };
    let contact_email = match input.contact_email {
        None => base.contact_email,
        Some(None) => None,
        Some(Some(e)) if e.trim().is_empty() => None,
        Some(Some(e)) => errors
            .check("contactEmail", Email::parse(&e))
            .map(|e| e.into_string()),
    };
    let contact_phone = match input.contact_phone {
        None => base.contact_phone,
        Some(None) => None,
        Some(Some(p)) if p.trim().is_empty() => None,
        Some(Some(p)) => {
            errors.check("contactPhone", validate_phone(&p));
            Some(p.trim().to_owned())
        }
    };
    let hold_ttl_minutes = match input.hold_ttl_minutes {
        None => base.hold_ttl_minutes,
        Some(v) => {
            if v.is_some_and(|m| !(1..=1440).contains(&m)) {
                errors.add("holdTtlMinutes", "must be 1 to 1440 minutes");
            }
            v
        }
    };
    let cancellation_policy = match input.cancellation_policy {
        None => base.cancellation_policy,
        Some(p) => {
            if !CANCELLATION_POLICIES.contains(&p.as_str()) {
                errors.add("cancellationPolicy", "must be standard, flexible or strict");
            }
            p
        }
    };
    errors.finish()?;
    Ok((
        NewSite {
            name,
            timezone,
            currency,
            locale,
            address,
            contact_email,
            contact_phone,
            hold_ttl_minutes,
            cancellation_policy,
        },
        input.is_active,
    ))
}

fn site_base(s: &Site) -> NewSite {
    NewSite {
        name: s.name.clone(),
        timezone: s.timezone.clone(),
        currency: s.currency.clone(),
        locale: s.locale.clone(),
        address: s.address.clone(),
        contact_email: s.contact_email.clone(),
        contact_phone: s.contact_phone.clone(),
        hold_ttl_minutes: s.hold_ttl_minutes,
        cancellation_policy: s.cancellation_policy.clone(),
    }
}

/// Create a site.
#[utoipa::path(post, path = "/api/v1/admin/sites", tag = "catalog", security(("bearer" = [])),
    params(("x-tenant-id" = String, Header, description = "Tenant id")),
    request_body = SiteInput,
    responses((status = 201, body = SiteDto), (status = 400, description = "VALIDATION_ERROR", body = ErrorBody),
        (status = 401, body = ErrorBody), (status = 403, description = "INSUFFICIENT_PERMISSIONS", body = ErrorBody)))]
pub async fn create_site(
    State(state): State<AppState>,
    auth: AdminAuth,
    Json(input): Json<SiteInput>,
) -> ApiResult<(StatusCode, axum::Json<SiteDto>)> {
    auth.require(perm::WRITE)?;
    let base = NewSite {
        name: String::new(),
        timezone: String::new(),
        currency: auth.tenant.0.currency.clone(),
        locale: "en".into(),
        address: None,
        contact_email: None,
        contact_phone: None,
        hold_ttl_minutes: None,
        cancellation_policy: "standard".into(),
    };
    let (new, _) = site_fields(input, base, true).map_err(ApiError::validation)?;
    let site = state
        .store
        .create_site(auth.tenant.id(), new, &auth.actor(), state.now())
        .await?;
    Ok((StatusCode::CREATED, axum::Json(site.into())))
}

/// List sites.
#[utoipa::path(get, path = "/api/v1/admin/sites", tag = "catalog", security(("bearer" = [])),
    params(("x-tenant-id" = String, Header, description = "Tenant id")),
    responses((status = 200, body = SiteList), (status = 401, body = ErrorBody), (status = 403, body = ErrorBody)))]
pub async fn list_sites(
    State(state): State<AppState>,
    auth: AdminAuth,
) -> ApiResult<axum::Json<SiteList>> {
    auth.require(perm::READ)?;
    let items: Vec<SiteDto> = state
        .store
        .list_sites(auth.tenant.id())
        .await?
        .into_iter()
        .map(SiteDto::from)
        .collect();
    Ok(axum::Json(SiteList {
        total: items.len(),
        items,
    }))
}

/// Read a site.
#[utoipa::path(get, path = "/api/v1/admin/sites/{id}", tag = "catalog", security(("bearer" = [])),
    params(("x-tenant-id" = String, Header, description = "Tenant id"), ("id" = String, Path, description = "Site id")),
    responses((status = 200, body = SiteDto), (status = 404, description = "NOT_FOUND", body = ErrorBody)))]
pub async fn get_site(
    State(state): State<AppState>,
    auth: AdminAuth,
    Path(id): Path<String>,
) -> ApiResult<axum::Json<SiteDto>> {
    auth.require(perm::READ)?;
    let id = path_id(&id, "Site")?;
    let site = state
        .store
        .get_site(auth.tenant.id(), id)
        .await?
        .ok_or_else(|| ApiError::not_found("Site"))?;
    Ok(axum::Json(site.into()))
}

/// Update a site (partial).
#[utoipa::path(patch, path = "/api/v1/admin/sites/{id}", tag = "catalog", security(("bearer" = [])),
    params(("x-tenant-id" = String, Header, description = "Tenant id"), ("id" = String, Path, description = "Site id")),
    request_body = SiteInput,
    responses((status = 200, body = SiteDto), (status = 400, description = "VALIDATION_ERROR", body = ErrorBody),
        (status = 404, description = "NOT_FOUND", body = ErrorBody)))]
pub async fn update_site(
    State(state): State<AppState>,
    auth: AdminAuth,
    Path(id): Path<String>,
    Json(input): Json<SiteInput>,
) -> ApiResult<axum::Json<SiteDto>> {
    auth.require(perm::WRITE)?;
    let id = path_id(&id, "Site")?;
    let current = state
        .store
        .get_site(auth.tenant.id(), id)
        .await?
        .ok_or_else(|| ApiError::not_found("Site"))?;
    let (new, active) =
        site_fields(input, site_base(&current), false).map_err(ApiError::validation)?;
    let site = state
        .store
        .update_site(
            auth.tenant.id(),
            id,
            new,
            active.unwrap_or(current.is_active),
            &auth.actor(),
            state.now(),
        )
        .await
        .map_err(|e| not_found(e, "Site"))?;
    // The time zone or the products' hours may have moved: slots follow at once.
    state
        .store
        .regenerate(
            auth.tenant.id(),
            "site",
            site.id,
            kairos_store::DateSpan::default(),
            state.now(),
            false,
        )
        .await?;
    Ok(axum::Json(site.into()))
}

/// Deactivate a site: it leaves the public catalog; its history stays.
#[utoipa::path(delete, path = "/api/v1/admin/sites/{id}", tag = "catalog", security(("bearer" = [])),
    params(("x-tenant-id" = String, Header, description = "Tenant id"), ("id" = String, Path, description = "Site id")),
    responses((status = 200, body = SiteDto), (status = 404, description = "NOT_FOUND", body = ErrorBody)))]
pub async fn deactivate_site(
    State(state): State<AppState>,
    auth: AdminAuth,
    Path(id): Path<String>,
) -> ApiResult<axum::Json<SiteDto>> {
    auth.require(perm::WRITE)?;
    let id = path_id(&id, "Site")?;
    let current = state
        .store
        .get_site(auth.tenant.id(), id)
        .await?
        .ok_or_else(|| ApiError::not_found("Site"))?;
    let site = state
        .store
        .update_site(
            auth.tenant.id(),
            id,
            site_base(&current),
            false,
            &auth.actor(),
            state.now(),
        )
        .await
        .map_err(|e| not_found(e, "Site"))?;
    Ok(axum::Json(site.into()))
}

// ───────────────────────────── products ─────────────────────────────

/// A product (an activity sold in slots).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProductDto {
    pub id: String,
    pub site_id: String,
    pub name: String,
    pub description: String,
    pub duration_mins: i32,
    pub capacity: i32,
    /// Major currency units.
    pub base_price: f64,
    pub currency: String,
    /// per_person or per_booking.
    pub price_type: String,
    /// Percent, e.g. 25.5.
    pub tax_rate: f64,
    pub prices_include_tax: bool,
    /// interval or fixed.
    pub slot_policy: String,
    pub slot_interval_min: i32,
    pub fixed_slot_times: Vec<String>,
    pub setup_time: i32,
    pub cleanup_time: i32,
    pub label_codes: Vec<String>,
    pub requires_waiver: bool,
    pub is_active: bool,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

pub(crate) fn product_dto(p: Product, currency: Currency) -> ProductDto {
    ProductDto {
        id: p.id.to_string(),
        site_id: p.site_id.to_string(),
        name: p.name,
        description: p.description,
        duration_mins: p.duration_mins,
        capacity: p.capacity,
        base_price: to_major(p.base_price, currency),
        currency: currency.code().to_owned(),
        price_type: p.price_type,
        tax_rate: f64::from(p.tax_rate_bp) / 100.0,
        prices_include_tax: p.prices_include_tax,
        slot_policy: p.slot_policy,
        slot_interval_min: p.slot_interval_min,
        fixed_slot_times: p.fixed_slot_times,
        setup_time: p.setup_time,
        cleanup_time: p.cleanup_time,
        label_codes: p.label_codes,
        requires_waiver: p.requires_waiver,
        is_active: p.is_active,
        created_at: p.created_at,
        updated_at: p.updated_at,
    }
}

/// Product fields; on create `siteId`, `name`, `durationMins`, `capacity` and `basePrice`
/// are required.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProductInput {
    pub site_id: Option<String>,
    pub name: Option<String>,
    pub description: Option<String>,
    pub duration_mins: Option<i64>,
    pub capacity: Option<i64>,
    /// Major units in the site's currency.
    pub base_price: Option<f64>,
    /// per_person (default) or per_booking.
    pub price_type: Option<String>,
    /// Percent, 0 to 100 with at most two decimals.
    pub tax_rate: Option<f64>,
    /// Default true.
    pub prices_include_tax: Option<bool>,
    /// interval (default) or fixed.
    pub slot_policy: Option<String>,
    /// Default 30.
    pub slot_interval_min: Option<i64>,
    /// HH:MM times, for the fixed policy.
    pub fixed_slot_times: Option<Vec<String>>,
    pub setup_time: Option<i64>,
    pub cleanup_time: Option<i64>,
    /// For example adults_only, toddler_friendly, beginner_friendly, advanced.
    pub label_codes: Option<Vec<String>>,
    pub requires_waiver: Option<bool>,
    pub is_active: Option<bool>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct ProductList {
    pub items: Vec<ProductDto>,
    pub total: usize,
}

fn int_in(
    errors: &mut FieldErrors,
    field: &str,
    value: Option<i64>,
    base: i32,
    range: std::ops::RangeInclusive<i64>,
) -> i32 {
    match value {
        None => base,
        Some(v) if range.contains(&v) => i32::try_from(v).unwrap_or(base),
        Some(_) => {
            errors.add(
                field,
                format!("must be {} to {}", range.start(), range.end()),
            );
            base
        }
    }
}

/// Merges `input` over `base`; `currency` prices `basePrice`.
fn product_fields(
    input: ProductInput,
    base: NewProduct,
    creating: bool,
    currency: Currency,
) -> Result<(NewProduct, Option<Uuid>, Option<bool>), FieldErrors> {
    let mut errors = FieldErrors::new();
    let site_id = match &input.site_id {
        None if creating => {
            errors.add("siteId", "is required");
            None
        }
        None => None,
        Some(s) => match kairos_domain::ids::parse_id(s) {
            Some(id) => Some(id),
            None => {
                errors.add("siteId", "is not a site id");
                None
            }
        },
    };
    let name = match (&input.name, creating) {
        (None, false) => base.name.clone(),
        (n, _) => required_text(&mut errors, "name", n.as_deref(), 200),
    };
    let description = input
        .description
        .as_deref()
        .map(|d| text(&mut errors, "description", d, 5000))
        .unwrap_or(base.description.clone());
    if creating {
        for (field, missing) in [
            ("durationMins", input.duration_mins.is_none()),
            ("capacity", input.capacity.is_none()),
            ("basePrice", input.base_price.is_none()),
        ] {
            if missing {
                errors.add(field, "is required");
            }
        }
    }
    let duration_mins = int_in(
        &mut errors,
        "durationMins",
        input.duration_mins,
        base.duration_mins,
        1..=1440,
    );
    let capacity = int_in(
        &mut errors,
        "capacity",
        input.capacity,
        base.capacity,
        1..=100_000,
    );
    let base_price = match input.base_price {
        None => base.base_price,
        Some(p) => errors
            .check("basePrice", from_major(p, currency))
            .unwrap_or(0),
    };
    let price_type = match &input.price_type {
        None => base.price_type.clone(),
        Some(t) if PriceType::parse(t).is_some() => t.clone(),
        Some(_) => {
            errors.add("priceType", "must be per_person or per_booking");
            base.price_type.clone()
        }
    };
    let tax_rate_bp = match input.tax_rate {
        None => base.tax_rate_bp,
        Some(r) => percent_to_bp(r).unwrap_or_else(|| {
            errors.add(
                "taxRate",
                "must be a percentage from 0 to 100 with at most two decimals",
            );
            0
        }),
    };
    let slot_policy = match &input.slot_policy {
        None => base.slot_policy.clone(),
        Some(p) if p == "interval" || p == "fixed" => p.clone(),
        Some(_) => {
            errors.add("slotPolicy", "must be interval or fixed");
            base.slot_policy.clone()
        }
    };
    let slot_interval_min = int_in(
        &mut errors,
        "slotIntervalMin",
        input.slot_interval_min,
        base.slot_interval_min,
        5..=1440,
    );
    let fixed_slot_times = match input.fixed_slot_times {
        None => base.fixed_slot_times.clone(),
        Some(times) => {
            let mut parsed = Vec::new();
            for (i, t) in times.iter().enumerate() {
                match LocalTime::parse(t) {
                    Ok(lt) => parsed.push(lt),
                    Err(e) => errors.add(format!("fixedSlotTimes[{i}]"), e),
                }
            }
            parsed.sort();
            parsed.dedup();
            parsed.iter().map(ToString::to_string).collect()
        }
    };
    if slot_policy == "fixed" && fixed_slot_times.is_empty() {
        errors.add("fixedSlotTimes", "is required when slotPolicy is fixed");
    }
    let setup_time = int_in(
        &mut errors,
        "setupTime",
        input.setup_time,
        base.setup_time,
        0..=720,
    );
    let cleanup_time = int_in(
        &mut errors,
        "cleanupTime",
        input.cleanup_time,
        base.cleanup_time,
        0..=720,
    );
    let label_codes = match input.label_codes {
        None => base.label_codes.clone(),
        Some(codes) => {
            for (i, c) in codes.iter().enumerate() {
                let ok = !c.is_empty()
                    && c.len() <= 40
                    && c.chars()
                        .all(|ch| ch.is_ascii_lowercase() || ch == '_' || ch.is_ascii_digit());
                if !ok {
                    errors.add(
                        format!("labelCodes[{i}]"),
                        "must be a lower_snake_case code (for example beginner_friendly)",
                    );
                }
            }
            let mut codes = codes;
            codes.dedup();
            codes
        }
    };
    errors.finish()?;
    Ok((
        NewProduct {
            site_id: site_id.unwrap_or(base.site_id),
            name,
            description,
            duration_mins,
            capacity,
            base_price,
            price_type,
            tax_rate_bp,
            prices_include_tax: input.prices_include_tax.unwrap_or(base.prices_include_tax),
            slot_policy,
            slot_interval_min,
            fixed_slot_times,
            setup_time,
            cleanup_time,
            label_codes,
            requires_waiver: input.requires_waiver.unwrap_or(base.requires_waiver),
        },
        site_id,
        input.is_active,
    ))
}

fn product_base(p: &Product) -> NewProduct {
    NewProduct {
        site_id: p.site_id,
        name: p.name.clone(),
        description: p.description.clone(),
        duration_mins: p.duration_mins,
        capacity: p.capacity,
        base_price: p.base_price,
        price_type: p.price_type.clone(),
        tax_rate_bp: p.tax_rate_bp,
        prices_include_tax: p.prices_include_tax,
        slot_policy: p.slot_policy.clone(),
        slot_interval_min: p.slot_interval_min,
        fixed_slot_times: p.fixed_slot_times.clone(),
        setup_time: p.setup_time,
        cleanup_time: p.cleanup_time,
        label_codes: p.label_codes.clone(),
        requires_waiver: p.requires_waiver,
    }
}

/// The currency of a site of this tenant (products are priced in it).
async fn site_currency(state: &AppState, auth: &AdminAuth, site: Uuid) -> ApiResult<Currency> {
    let site = state
        .store
        .get_site(auth.tenant.id(), site)
        .await?
        .ok_or_else(|| ApiError::not_found("Site"))?;
    currency(&site.currency)
}

async fn product_of(
    state: &AppState,
    auth: &AdminAuth,
    raw: &str,
) -> ApiResult<(Product, Currency)> {
    let id = path_id(raw, "Product")?;
    let product = state
        .store
        .get_product(auth.tenant.id(), id)
        .await?
        .ok_or_else(|| ApiError::not_found("Product"))?;
    let currency = site_currency(state, auth, product.site_id).await?;
    Ok((product, currency))
}

/// Create a product.
#[utoipa::path(post, path = "/api/v1/admin/products", tag = "catalog", security(("bearer" = [])),
    params(("x-tenant-id" = String, Header, description = "Tenant id")),
    request_body = ProductInput,
    responses((status = 201, body = ProductDto), (status = 400, description = "VALIDATION_ERROR", body = ErrorBody),
        (status = 404, description = "NOT_FOUND: site", body = ErrorBody), (status = 403, body = ErrorBody)))]
pub async fn create_product(
    State(state): State<AppState>,
    auth: AdminAuth,
    Json(input): Json<ProductInput>,
) -> ApiResult<(StatusCode, axum::Json<ProductDto>)> {
    auth.require(perm::WRITE)?;
    let site = input
        .site_id
        .as_deref()
        .and_then(kairos_domain::ids::parse_id);
    let currency = match site {
        Some(s) => site_currency(&state, &auth, s).await?,
        None => currency(&auth.tenant.0.currency)?,
    };
    let base = NewProduct {
        site_id: Uuid::nil(),
        name: String::new(),
        description: String::new(),
        duration_mins: 60,
        capacity: 1,
        base_price: 0,
        price_type: "per_person".into(),
        tax_rate_bp: 0,
        prices_include_tax: true,
        slot_policy: "interval".into(),
        slot_interval_min: 30,
        fixed_slot_times: Vec::new(),
        setup_time: 0,
        cleanup_time: 0,
        label_codes: Vec::new(),
        requires_waiver: false,
    };
    let (new, _, _) = product_fields(input, base, true, currency).map_err(ApiError::validation)?;
    let product = state
        .store
        .create_product(auth.tenant.id(), new, &auth.actor(), state.now())
        .await
        .map_err(|e| not_found(e, "Site"))?;
    // The site may already have hours: give the new product its slots now.
    regenerate_product(&state, &auth, product.id).await?;
    Ok((
        StatusCode::CREATED,
        axum::Json(product_dto(product, currency)),
    ))
}

/// List products.
#[utoipa::path(get, path = "/api/v1/admin/products", tag = "catalog", security(("bearer" = [])),
    params(("x-tenant-id" = String, Header, description = "Tenant id")),
    responses((status = 200, body = ProductList), (status = 403, body = ErrorBody)))]
pub async fn list_products(
    State(state): State<AppState>,
    auth: AdminAuth,
) -> ApiResult<axum::Json<ProductList>> {
    auth.require(perm::READ)?;
    let sites = state.store.list_sites(auth.tenant.id()).await?;
    let mut items = Vec::new();
    for p in state.store.list_products(auth.tenant.id()).await? {
        let code = sites
            .iter()
            .find(|s| s.id == p.site_id)
            .map(|s| s.currency.clone())
            .unwrap_or_default();
        items.push(product_dto(p, currency(&code)?));
    }
    Ok(axum::Json(ProductList {
        total: items.len(),
        items,
    }))
}

/// Read a product.
#[utoipa::path(get, path = "/api/v1/admin/products/{id}", tag = "catalog", security(("bearer" = [])),
    params(("x-tenant-id" = String, Header, description = "Tenant id"), ("id" = String, Path, description = "Product id")),
    responses((status = 200, body = ProductDto), (status = 404, description = "NOT_FOUND", body = ErrorBody)))]
pub async fn get_product(
    State(state): State<AppState>,
    auth: AdminAuth,
    Path(id): Path<String>,
) -> ApiResult<axum::Json<ProductDto>> {
    auth.require(perm::READ)?;
    let (product, currency) = product_of(&state, &auth, &id).await?;
    Ok(axum::Json(product_dto(product, currency)))
}

/// Update a product (partial). Slots are regenerated when the shape changes.
#[utoipa::path(patch, path = "/api/v1/admin/products/{id}", tag = "catalog", security(("bearer" = [])),
    params(("x-tenant-id" = String, Header, description = "Tenant id"), ("id" = String, Path, description = "Product id")),
    request_body = ProductInput,
    responses((status = 200, body = ProductDto), (status = 400, description = "VALIDATION_ERROR", body = ErrorBody),
        (status = 404, description = "NOT_FOUND", body = ErrorBody)))]
pub async fn update_product(
    State(state): State<AppState>,
    auth: AdminAuth,
    Path(id): Path<String>,
    Json(input): Json<ProductInput>,
) -> ApiResult<axum::Json<ProductDto>> {
    auth.require(perm::WRITE)?;
    let (current, mut currency) = product_of(&state, &auth, &id).await?;
    if let Some(site) = input
        .site_id
        .as_deref()
        .and_then(kairos_domain::ids::parse_id)
    {
        currency = site_currency(&state, &auth, site).await?;
    }
    let (new, _, active) = product_fields(input, product_base(&current), false, currency)
        .map_err(ApiError::validation)?;
    let product = state
        .store
        .update_product(
            auth.tenant.id(),
            current.id,
            new,
            active.unwrap_or(current.is_active),
            &auth.actor(),
            state.now(),
        )
        .await
        .map_err(|e| not_found(e, "Product"))?;
    regenerate_product(&state, &auth, product.id).await?;
    Ok(axum::Json(product_dto(product, currency)))
}

/// Deactivate a product: it leaves availability; unbooked future slots are removed.
#[utoipa::path(delete, path = "/api/v1/admin/products/{id}", tag = "catalog", security(("bearer" = [])),
    params(("x-tenant-id" = String, Header, description = "Tenant id"), ("id" = String, Path, description = "Product id")),
    responses((status = 200, body = ProductDto), (status = 404, description = "NOT_FOUND", body = ErrorBody)))]
pub async fn deactivate_product(
    State(state): State<AppState>,
    auth: AdminAuth,
    Path(id): Path<String>,
) -> ApiResult<axum::Json<ProductDto>> {
    auth.require(perm::WRITE)?;
    let (current, currency) = product_of(&state, &auth, &id).await?;
    let product = state
        .store
        .update_product(
            auth.tenant.id(),
            current.id,
            product_base(&current),
            false,
            &auth.actor(),
            state.now(),
        )
        .await
        .map_err(|e| not_found(e, "Product"))?;
    regenerate_product(&state, &auth, product.id).await?;
    Ok(axum::Json(product_dto(product, currency)))
}

async fn regenerate_product(state: &AppState, auth: &AdminAuth, product: Uuid) -> ApiResult<()> {
    state
        .store
        .regenerate(
            auth.tenant.id(),
            "product",
            product,
            kairos_store::DateSpan::default(),
            state.now(),
            false,
        )
        .await?;
    Ok(())
}

// ───────────────────────────── variants ─────────────────────────────

/// A product variant.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct VariantDto {
    pub id: String,
    pub product_id: String,
    pub name: String,
    pub description: String,
    /// none, adjustment (added to the base price, may be negative) or override.
    pub price_mode: String,
    /// Major units.
    pub price_amount: f64,
    pub currency: String,
    /// Seats each booked person of this variant takes (default 1).
    pub capacity_share: Option<i32>,
    pub display_order: i32,
    pub is_active: bool,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

fn variant_dto(v: Variant, currency: Currency) -> VariantDto {
    let scale = 10_i64.pow(currency.minor_digits()) as f64;
    VariantDto {
        id: v.id.to_string(),
        product_id: v.product_id.to_string(),
        name: v.name,
        description: v.description,
        price_mode: v.price_mode,
        price_amount: v.price_amount as f64 / scale,
        currency: currency.code().to_owned(),
        capacity_share: v.capacity_share,
        display_order: v.display_order,
        is_active: v.is_active,
        created_at: v.created_at,
        updated_at: v.updated_at,
    }
}

#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct VariantInput {
    pub name: Option<String>,
    pub description: Option<String>,
    pub price_mode: Option<String>,
    pub price_amount: Option<f64>,
    #[serde(default, deserialize_with = "nullable")]
    #[schema(value_type = Option<i32>)]
    pub capacity_share: Option<Option<i64>>,
    pub display_order: Option<i64>,
    pub is_active: Option<bool>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct VariantList {
    pub items: Vec<VariantDto>,
}

fn variant_fields(
    input: VariantInput,
    base: NewVariant,
    creating: bool,
    currency: Currency,
) -> Result<NewVariant, FieldErrors> {
    let mut errors = FieldErrors::new();
    let name = match (&input.name, creating) {
        (None, false) => base.name.clone(),
        (n, _) => required_text(&mut errors, "name", n.as_deref(), 200),
    };
    let price_mode = match input.price_mode {
        None => base.price_mode.clone(),
        Some(m) if ["none", "adjustment", "override"].contains(&m.as_str()) => m,
        Some(_) => {
            errors.add("priceMode", "must be none, adjustment or override");
            base.price_mode.clone()
        }
    };
    let price_amount = match input.price_amount {
        None => base.price_amount,
        Some(a) => {
            let magnitude = errors
                .check("priceAmount", from_major(a.abs(), currency))
                .unwrap_or(0);
            if a < 0.0 && price_mode != "adjustment" {
                errors.add("priceAmount", "may be negative only for an adjustment");
            }
            if a < 0.0 { -magnitude } else { magnitude }
        }
    };
    let capacity_share = match input.capacity_share {
        None => base.capacity_share,
        Some(None) => None,
        Some(Some(s)) if (1..=100).contains(&s) => i32::try_from(s).ok(),
        Some(Some(_)) => {
            errors.add("capacityShare", "must be 1 to 100");
            None
        }
    };
    let display_order = int_in(
        &mut errors,
        "displayOrder",
        input.display_order,
        base.display_order,
        -10_000..=10_000,
    );
    let description = input
        .description
        .as_deref()
        .map(|d| text(&mut errors, "description", d, 5000))
        .unwrap_or(base.description);
    errors.finish()?;
    Ok(NewVariant {
        name,
        description,
        price_mode,
        price_amount,
        capacity_share,
        display_order,
        is_active: input.is_active.unwrap_or(base.is_active),
    })
}

/// Add a variant to a product.
#[utoipa::path(post, path = "/api/v1/admin/products/{id}/variants", tag = "catalog", security(("bearer" = [])),
    params(("x-tenant-id" = String, Header, description = "Tenant id"), ("id" = String, Path, description = "Product id")),
    request_body = VariantInput,
    responses((status = 201, body = VariantDto), (status = 400, description = "VALIDATION_ERROR", body = ErrorBody),
        (status = 404, description = "NOT_FOUND", body = ErrorBody)))]
pub async fn create_variant(
    State(state): State<AppState>,
    auth: AdminAuth,
    Path(id): Path<String>,
    Json(input): Json<VariantInput>,
) -> ApiResult<(StatusCode, axum::Json<VariantDto>)> {
    auth.require(perm::WRITE)?;
    let (product, currency) = product_of(&state, &auth, &id).await?;
    let base = NewVariant {
        name: String::new(),
        description: String::new(),
        price_mode: "none".into(),
        price_amount: 0,
        capacity_share: None,
        display_order: 0,
        is_active: true,
    };
    let new = variant_fields(input, base, true, currency).map_err(ApiError::validation)?;
    let v = state
        .store
        .create_variant(
            auth.tenant.id(),
            product.id,
            new,
            &auth.actor(),
            state.now(),
        )
        .await
        .map_err(|e| not_found(e, "Product"))?;
    Ok((StatusCode::CREATED, axum::Json(variant_dto(v, currency))))
}

/// List a product's variants.
#[utoipa::path(get, path = "/api/v1/admin/products/{id}/variants", tag = "catalog", security(("bearer" = [])),
    params(("x-tenant-id" = String, Header, description = "Tenant id"), ("id" = String, Path, description = "Product id")),
    responses((status = 200, body = VariantList), (status = 404, description = "NOT_FOUND", body = ErrorBody)))]
pub async fn list_variants(
    State(state): State<AppState>,
    auth: AdminAuth,
    Path(id): Path<String>,
) -> ApiResult<axum::Json<VariantList>> {
    auth.require(perm::READ)?;
    let (product, currency) = product_of(&state, &auth, &id).await?;
    let items = state
        .store
        .list_variants(auth.tenant.id(), product.id)
        .await?
        .into_iter()
        .map(|v| variant_dto(v, currency))
        .collect();
    Ok(axum::Json(VariantList { items }))
}

async fn variant_of(
    state: &AppState,
    auth: &AdminAuth,
    product: &Product,
    raw: &str,
) -> ApiResult<Variant> {
    let id = path_id(raw, "Variant")?;
    state
        .store
        .list_variants(auth.tenant.id(), product.id)
        .await?
        .into_iter()
        .find(|v| v.id == id)
        .ok_or_else(|| ApiError::not_found("Variant"))
}

/// Read a variant.
#[utoipa::path(get, path = "/api/v1/admin/products/{id}/variants/{variantId}", tag = "catalog", security(("bearer" = [])),
    params(("x-tenant-id" = String, Header, description = "Tenant id"), ("id" = String, Path, description = "Product id"), ("variantId" = String, Path, description = "Variant id")),
    responses((status = 200, body = VariantDto), (status = 404, description = "NOT_FOUND", body = ErrorBody)))]
pub async fn get_variant(
    State(state): State<AppState>,
    auth: AdminAuth,
    Path((id, variant)): Path<(String, String)>,
) -> ApiResult<axum::Json<VariantDto>> {
    auth.require(perm::READ)?;
    let (product, currency) = product_of(&state, &auth, &id).await?;
    Ok(axum::Json(variant_dto(
        variant_of(&state, &auth, &product, &variant).await?,
        currency,
    )))
}

/// Update a variant (partial).
#[utoipa::path(patch, path = "/api/v1/admin/products/{id}/variants/{variantId}", tag = "catalog", security(("bearer" = [])),
    params(("x-tenant-id" = String, Header, description = "Tenant id"), ("id" = String, Path, description = "Product id"), ("variantId" = String, Path, description = "Variant id")),
    request_body = VariantInput,
    responses((status = 200, body = VariantDto), (status = 400, description = "VALIDATION_ERROR", body = ErrorBody), (status = 404, description = "NOT_FOUND", body = ErrorBody)))]
pub async fn update_variant(
    State(state): State<AppState>,
    auth: AdminAuth,
    Path((id, variant)): Path<(String, String)>,
    Json(input): Json<VariantInput>,
) -> ApiResult<axum::Json<VariantDto>> {
    auth.require(perm::WRITE)?;
    let (product, currency) = product_of(&state, &auth, &id).await?;
    let current = variant_of(&state, &auth, &product, &variant).await?;
    let new = variant_fields(input, variant_base(&current), false, currency)
        .map_err(ApiError::validation)?;
    let v = state
        .store
        .update_variant(
            auth.tenant.id(),
            product.id,
            current.id,
            new,
            &auth.actor(),
            state.now(),
        )
        .await
        .map_err(|e| not_found(e, "Variant"))?;
    Ok(axum::Json(variant_dto(v, currency)))
}

fn variant_base(v: &Variant) -> NewVariant {
    NewVariant {
        name: v.name.clone(),
        description: v.description.clone(),
        price_mode: v.price_mode.clone(),
        price_amount: v.price_amount,
        capacity_share: v.capacity_share,
        display_order: v.display_order,
        is_active: v.is_active,
    }
}

/// Deactivate a variant.
#[utoipa::path(delete, path = "/api/v1/admin/products/{id}/variants/{variantId}", tag = "catalog", security(("bearer" = [])),
    params(("x-tenant-id" = String, Header, description = "Tenant id"), ("id" = String, Path, description = "Product id"), ("variantId" = String, Path, description = "Variant id")),
    responses((status = 200, body = VariantDto), (status = 404, description = "NOT_FOUND", body = ErrorBody)))]
pub async fn deactivate_variant(
    State(state): State<AppState>,
    auth: AdminAuth,
    Path((id, variant)): Path<(String, String)>,
) -> ApiResult<axum::Json<VariantDto>> {
    auth.require(perm::WRITE)?;
    let (product, currency) = product_of(&state, &auth, &id).await?;
    let current = variant_of(&state, &auth, &product, &variant).await?;
    let new = NewVariant {
        is_active: false,
        ..variant_base(&current)
    };
    let v = state
        .store
        .update_variant(
            auth.tenant.id(),
            product.id,
            current.id,
            new,
            &auth.actor(),
            state.now(),
        )
        .await
        .map_err(|e| not_found(e, "Variant"))?;
    Ok(axum::Json(variant_dto(v, currency)))
}

// ───────────────────────────── add-ons ─────────────────────────────

/// A product add-on (spec Part B 2.2). `price` is present for fixed yes/no add-ons (and
/// holds the percent for percentage add-ons); `unitPrice` for free_qty and per_participant.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AddonDto {
    pub id: String,
    pub name: String,
    pub description: String,
    /// item, service, upgrade or resource.
    pub addon_type: String,
    /// yesno, free_qty or per_participant.
    pub mode: String,
    /// fixed, per_person or percentage.
    pub price_type: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub price: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unit_price: Option<f64>,
    pub currency: String,
    pub available: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_quantity: Option<i32>,
    pub display_order: i32,
}

pub(crate) fn addon_dto(a: Addon, currency: Currency) -> AddonDto {
    let amount = if a.price_type == "percentage" {
        a.amount as f64 / 100.0
    } else {
        to_major(a.amount, currency)
    };
    let unit = a.mode == "free_qty" || a.mode == "per_participant";
    AddonDto {
        id: a.id.to_string(),
        name: a.name,
        description: a.description,
        addon_type: a.addon_type,
        price: (!unit).then_some(amount),
        unit_price: unit.then_some(amount),
        mode: a.mode,
        price_type: a.price_type,
        currency: currency.code().to_owned(),
        available: a.is_active,
        max_quantity: a.max_quantity,
        display_order: a.display_order,
    }
}

#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AddonInput {
    pub name: Option<String>,
    pub description: Option<String>,
    pub addon_type: Option<String>,
    pub mode: Option<String>,
    pub price_type: Option<String>,
    /// Major units; for priceType percentage, the percent.
    pub price: Option<f64>,
    /// Major units per unit (free_qty, per_participant).
    pub unit_price: Option<f64>,
    #[serde(default, deserialize_with = "nullable")]
    #[schema(value_type = Option<i32>)]
    pub max_quantity: Option<Option<i64>>,
    pub display_order: Option<i64>,
    pub is_active: Option<bool>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct AddonList {
    pub items: Vec<AddonDto>,
}

fn choice(
    errors: &mut FieldErrors,
    field: &str,
    value: Option<String>,
    base: &str,
    allowed: &[&str],
    creating: bool,
) -> String {
    match value {
        None if creating => {
            errors.add(field, "is required");
            String::new()
        }
        None => base.to_owned(),
        Some(v) if allowed.contains(&v.as_str()) => v,
        Some(_) => {
            errors.add(field, format!("must be one of {}", allowed.join(", ")));
            String::new()
        }
    }
}

fn addon_fields(
    input: AddonInput,
    base: NewAddon,
    creating: bool,
    currency: Currency,
) -> Result<NewAddon, FieldErrors> {
    let mut errors = FieldErrors::new();
    let name = match (&input.name, creating) {
        (None, false) => base.name.clone(),
        (n, _) => required_text(&mut errors, "name", n.as_deref(), 200),
    };
    let addon_type = choice(
        &mut errors,
        "addonType",
        input.addon_type,
        &base.addon_type,
        &["item", "service", "upgrade", "resource"],
        creating,
    );
    let mode = choice(
        &mut errors,
        "mode",
        input.mode,
        &base.mode,
        &["yesno", "free_qty", "per_participant"],
        creating,
    );
    let price_type = choice(
        &mut errors,
        "priceType",
        input.price_type,
        &base.price_type,
        &["fixed", "per_person", "percentage"],
        creating,
    );
    let unit_mode = mode == "free_qty" || mode == "per_participant";
    let (field, given) = if unit_mode {
        ("unitPrice", input.unit_price)
    } else {
        ("price", input.price)
    };
    let amount = match given {
        None if creating => {
            errors.add(field, format!("is required for mode {mode}"));
            0
        }
        None => base.amount,
        Some(v) if price_type == "percentage" => {
            percent_to_bp(v).map(i64::from).unwrap_or_else(|| {
                errors.add(
                    field,
                    "must be a percentage from 0 to 100 with at most two decimals",
                );
                0
            })
        }
        Some(v) => errors.check(field, from_major(v, currency)).unwrap_or(0),
    };
    let max_quantity = match input.max_quantity {
        None => base.max_quantity,
        Some(None) => None,
        Some(Some(q)) if (1..=1000).contains(&q) => i32::try_from(q).ok(),
        Some(Some(_)) => {
            errors.add("maxQuantity", "must be 1 to 1000");
            None
        }
    };
    let display_order = int_in(
        &mut errors,
        "displayOrder",
        input.display_order,
        base.display_order,
        -10_000..=10_000,
    );
    let description = input
        .description
        .as_deref()
        .map(|d| text(&mut errors, "description", d, 5000))
        .unwrap_or(base.description);
    errors.finish()?;
    Ok(NewAddon {
        name,
        description,
        addon_type,
        mode,
        price_type,
        amount,
        max_quantity,
        display_order,
        is_active: input.is_active.unwrap_or(base.is_active),
    })
}

fn addon_base(a: &Addon) -> NewAddon {
    NewAddon {
        name: a.name.clone(),
        description: a.description.clone(),
        addon_type: a.addon_type.clone(),
        mode: a.mode.clone(),
        price_type: a.price_type.clone(),
        amount: a.amount,
        max_quantity: a.max_quantity,
        display_order: a.display_order,
        is_active: a.is_active,
    }
}

/// Add an add-on to a product.
#[utoipa::path(post, path = "/api/v1/admin/products/{id}/addons", tag = "catalog", security(("bearer" = [])),
    params(("x-tenant-id" = String, Header, description = "Tenant id"), ("id" = String, Path, description = "Product id")),
    request_body = AddonInput,
    responses((status = 201, body = AddonDto), (status = 400, description = "VALIDATION_ERROR", body = ErrorBody), (status = 404, description = "NOT_FOUND", body = ErrorBody)))]
pub async fn create_addon(
    State(state): State<AppState>,
    auth: AdminAuth,
    Path(id): Path<String>,
    Json(input): Json<AddonInput>,
) -> ApiResult<(StatusCode, axum::Json<AddonDto>)> {
    auth.require(perm::WRITE)?;
    let (product, currency) = product_of(&state, &auth, &id).await?;
    let base = NewAddon {
        name: String::new(),
        description: String::new(),
        addon_type: String::new(),
        mode: String::new(),
        price_type: String::new(),
        amount: 0,
        max_quantity: None,
        display_order: 0,
        is_active: true,
    };
    let new = addon_fields(input, base, true, currency).map_err(ApiError::validation)?;
    let a = state
        .store
        .create_addon(
            auth.tenant.id(),
            product.id,
            new,
            &auth.actor(),
            state.now(),
        )
        .await
        .map_err(|e| not_found(e, "Product"))?;
    Ok((StatusCode::CREATED, axum::Json(addon_dto(a, currency))))
}

/// List a product's add-ons (inactive ones included).
#[utoipa::path(get, path = "/api/v1/admin/products/{id}/addons", tag = "catalog", security(("bearer" = [])),
    params(("x-tenant-id" = String, Header, description = "Tenant id"), ("id" = String, Path, description = "Product id")),
    responses((status = 200, body = AddonList), (status = 404, description = "NOT_FOUND", body = ErrorBody)))]
pub async fn list_addons(
    State(state): State<AppState>,
    auth: AdminAuth,
    Path(id): Path<String>,
) -> ApiResult<axum::Json<AddonList>> {
    auth.require(perm::READ)?;
    let (product, currency) = product_of(&state, &auth, &id).await?;
    let items = state
        .store
        .list_addons(auth.tenant.id(), product.id)
        .await?
        .into_iter()
        .map(|a| addon_dto(a, currency))
        .collect();
    Ok(axum::Json(AddonList { items }))
}

async fn addon_of(
    state: &AppState,
    auth: &AdminAuth,
    product: &Product,
    raw: &str,
) -> ApiResult<Addon> {
    let id = path_id(raw, "Add-on")?;
    state
        .store
        .list_addons(auth.tenant.id(), product.id)
        .await?
        .into_iter()
        .find(|a| a.id == id)
        .ok_or_else(|| ApiError::not_found("Add-on"))
}

/// Read an add-on.
#[utoipa::path(get, path = "/api/v1/admin/products/{id}/addons/{addonId}", tag = "catalog", security(("bearer" = [])),
    params(("x-tenant-id" = String, Header, description = "Tenant id"), ("id" = String, Path, description = "Product id"), ("addonId" = String, Path, description = "Add-on id")),
    responses((status = 200, body = AddonDto), (status = 404, description = "NOT_FOUND", body = ErrorBody)))]
pub async fn get_addon(
    State(state): State<AppState>,
    auth: AdminAuth,
    Path((id, addon)): Path<(String, String)>,
) -> ApiResult<axum::Json<AddonDto>> {
    auth.require(perm::READ)?;
    let (product, currency) = product_of(&state, &auth, &id).await?;
    Ok(axum::Json(addon_dto(
        addon_of(&state, &auth, &product, &addon).await?,
        currency,
    )))
}

/// Update an add-on (partial).
#[utoipa::path(patch, path = "/api/v1/admin/products/{id}/addons/{addonId}", tag = "catalog", security(("bearer" = [])),
    params(("x-tenant-id" = String, Header, description = "Tenant id"), ("id" = String, Path, description = "Product id"), ("addonId" = String, Path, description = "Add-on id")),
    request_body = AddonInput,
    responses((status = 200, body = AddonDto), (status = 400, description = "VALIDATION_ERROR", body = ErrorBody), (status = 404, description = "NOT_FOUND", body = ErrorBody)))]
pub async fn update_addon(
    State(state): State<AppState>,
    auth: AdminAuth,
    Path((id, addon)): Path<(String, String)>,
    Json(input): Json<AddonInput>,
) -> ApiResult<axum::Json<AddonDto>> {
    auth.require(perm::WRITE)?;
    let (product, currency) = product_of(&state, &auth, &id).await?;
    let current = addon_of(&state, &auth, &product, &addon).await?;
    let new =
        addon_fields(input, addon_base(&current), false, currency).map_err(ApiError::validation)?;
    let a = state
        .store
        .update_addon(
            auth.tenant.id(),
            product.id,
            current.id,
            new,
            &auth.actor(),
            state.now(),
        )
        .await
        .map_err(|e| not_found(e, "Add-on"))?;
    Ok(axum::Json(addon_dto(a, currency)))
}

/// Deactivate an add-on.
#[utoipa::path(delete, path = "/api/v1/admin/products/{id}/addons/{addonId}", tag = "catalog", security(("bearer" = [])),
    params(("x-tenant-id" = String, Header, description = "Tenant id"), ("id" = String, Path, description = "Product id"), ("addonId" = String, Path, description = "Add-on id")),
    responses((status = 200, body = AddonDto), (status = 404, description = "NOT_FOUND", body = ErrorBody)))]
pub async fn deactivate_addon(
    State(state): State<AppState>,
    auth: AdminAuth,
    Path((id, addon)): Path<(String, String)>,
) -> ApiResult<axum::Json<AddonDto>> {
    auth.require(perm::WRITE)?;
    let (product, currency) = product_of(&state, &auth, &id).await?;
    let current = addon_of(&state, &auth, &product, &addon).await?;
    let new = NewAddon {
        is_active: false,
        ..addon_base(&current)
    };
    let a = state
        .store
        .update_addon(
            auth.tenant.id(),
            product.id,
            current.id,
            new,
            &auth.actor(),
            state.now(),
        )
        .await
        .map_err(|e| not_found(e, "Add-on"))?;
    Ok(axum::Json(addon_dto(a, currency)))
}
