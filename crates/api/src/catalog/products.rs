//! Products: `/api/v1/admin/products`.

use super::participant_types::{
    ParticipantTypePriceDto, ParticipantTypePriceInput, parse_participant_types,
    participant_types_dto,
};
use super::{currency, required_text, text};
use crate::error::{ApiError, ApiResult, ErrorBody};
use crate::extract::choose;
use crate::extract::{AdminAuth, Json, Staff, can, path_id};
use crate::openapi::schemas::{PriceTypeSchema, SlotPolicySchema};
use crate::state::AppState;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use chrono::{DateTime, Utc};
use kairos_domain::FieldErrors;
use kairos_domain::catalog::SlotPolicyKind;
use kairos_domain::money::{from_major, to_major};
use kairos_domain::pricing::{PriceType, percent_to_bp};
use kairos_domain::scheduling::{LocalTime, ScopeType};
use kairos_domain::tenancy::Currency;
use kairos_domain::waivers::WaiverCheckIn;
use kairos_store::{NewProduct, Product};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

/// Most fixed start times a product may have (one every five minutes of a day).
pub const MAX_FIXED_SLOT_TIMES: usize = 288;
/// Most label codes a product may carry.
pub const MAX_LABEL_CODES: usize = 50;

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
    #[schema(value_type = PriceTypeSchema)]
    pub price_type: String,
    /// Percent, e.g. 25.5.
    pub tax_rate: f64,
    pub prices_include_tax: bool,
    #[schema(value_type = SlotPolicySchema)]
    pub slot_policy: String,
    pub slot_interval_min: i32,
    pub fixed_slot_times: Vec<String>,
    pub setup_time: i32,
    pub cleanup_time: i32,
    pub label_codes: Vec<String>,
    pub requires_waiver: bool,
    /// While a booking's waivers are missing, check-in warns (`warn`) or is refused
    /// (`refuse`: nobody starts before every waiver is in).
    #[schema(example = "warn")]
    pub waiver_check_in: String,
    /// Participant types with their own price per person (per-person products).
    pub participant_types: Vec<ParticipantTypePriceDto>,
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
        price_type: p.price_type.as_str().to_owned(),
        tax_rate: f64::from(p.tax_rate_bp) / 100.0,
        prices_include_tax: p.prices_include_tax,
        slot_policy: p.slot_policy.as_str().to_owned(),
        slot_interval_min: p.slot_interval_min,
        fixed_slot_times: p.fixed_slot_times,
        setup_time: p.setup_time,
        cleanup_time: p.cleanup_time,
        label_codes: p.label_codes,
        requires_waiver: p.requires_waiver,
        waiver_check_in: p.waiver_check_in.as_str().to_owned(),
        participant_types: participant_types_dto(&p.participant_types, currency),
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
    #[schema(format = Uuid)]
    pub site_id: Option<String>,
    #[schema(min_length = 1, max_length = 200)]
    pub name: Option<String>,
    #[schema(max_length = 5000)]
    pub description: Option<String>,
    #[schema(minimum = 1, maximum = 1440)]
    pub duration_mins: Option<i64>,
    #[schema(minimum = 1, maximum = 100000)]
    pub capacity: Option<i64>,
    /// Major units in the site's currency.
    #[schema(minimum = 0, maximum = 10000000000000.0, multiple_of = 0.01)]
    pub base_price: Option<f64>,
    /// Default per_person.
    #[schema(value_type = Option<PriceTypeSchema>)]
    pub price_type: Option<String>,
    /// Percent, 0 to 100 with at most two decimals.
    #[schema(minimum = 0, maximum = 100, multiple_of = 0.01)]
    pub tax_rate: Option<f64>,
    /// Default true.
    pub prices_include_tax: Option<bool>,
    /// Default interval.
    #[schema(value_type = Option<SlotPolicySchema>)]
    pub slot_policy: Option<String>,
    /// Default 30.
    #[schema(minimum = 5, maximum = 1440)]
    pub slot_interval_min: Option<i64>,
    /// HH:MM times, for the fixed policy (at most 288: one every five minutes).
    #[schema(max_items = 288)]
    pub fixed_slot_times: Option<Vec<String>>,
    #[schema(minimum = 0, maximum = 720)]
    pub setup_time: Option<i64>,
    #[schema(minimum = 0, maximum = 720)]
    pub cleanup_time: Option<i64>,
    /// For example adults_only, toddler_friendly, beginner_friendly, advanced (at most 50).
    #[schema(value_type = Option<Vec<crate::openapi::schemas::LabelCodeSchema>>, max_items = 50)]
    pub label_codes: Option<Vec<String>>,
    pub requires_waiver: Option<bool>,
    /// warn (default) or refuse: what check-in does while waivers are missing.
    pub waiver_check_in: Option<String>,
    /// Participant types with their own price (a child's ticket), replacing the list; per-person
    /// products only (at most 10).
    #[schema(max_items = 10)]
    pub participant_types: Option<Vec<ParticipantTypePriceInput>>,
    pub is_active: Option<bool>,
}

crate::openapi::schemas::create_form!(
    /// The create form of [`ProductInput`].
    ProductCreate = ProductInput,
    "ProductCreate",
    ["siteId", "name", "durationMins", "capacity", "basePrice"]
);

#[derive(Debug, Serialize, ToSchema)]
pub struct ProductList {
    pub items: Vec<ProductDto>,
    pub total: usize,
}

pub(crate) fn int_in(
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
    let price_type = choose(
        &mut errors,
        "priceType",
        input.price_type.as_deref(),
        base.price_type,
        false,
        PriceType::parse,
        PriceType::choices(),
    );
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
    let slot_policy = choose(
        &mut errors,
        "slotPolicy",
        input.slot_policy.as_deref(),
        base.slot_policy,
        false,
        SlotPolicyKind::parse,
        SlotPolicyKind::choices(),
    );
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
            let times = if errors.at_most("fixedSlotTimes", times.len(), MAX_FIXED_SLOT_TIMES) {
                times
            } else {
                Vec::new()
            };
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
    if slot_policy == SlotPolicyKind::Fixed && fixed_slot_times.is_empty() {
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
            let codes = if errors.at_most("labelCodes", codes.len(), MAX_LABEL_CODES) {
                codes
            } else {
                Vec::new()
            };
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
    let waiver_check_in = crate::extract::choose(
        &mut errors,
        "waiverCheckIn",
        input.waiver_check_in.as_deref(),
        base.waiver_check_in,
        false,
        WaiverCheckIn::parse,
        WaiverCheckIn::choices(),
    );
    let participant_types = match input.participant_types {
        None => base.participant_types.clone(),
        Some(types) => parse_participant_types(&mut errors, types, currency),
    };
    if price_type != PriceType::PerPerson && !participant_types.is_empty() {
        errors.add(
            "participantTypes",
            "only a product priced per_person has participant types with their own price",
        );
    }
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
            waiver_check_in,
            participant_types,
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
        price_type: p.price_type,
        tax_rate_bp: p.tax_rate_bp,
        prices_include_tax: p.prices_include_tax,
        slot_policy: p.slot_policy,
        slot_interval_min: p.slot_interval_min,
        fixed_slot_times: p.fixed_slot_times.clone(),
        setup_time: p.setup_time,
        cleanup_time: p.cleanup_time,
        label_codes: p.label_codes.clone(),
        requires_waiver: p.requires_waiver,
        waiver_check_in: p.waiver_check_in,
        participant_types: p.participant_types.clone(),
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

pub(crate) async fn product_of(
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
    request_body = ProductCreate,
    responses((status = 200, body = ProductDto), (status = 400, description = "VALIDATION_ERROR", body = ErrorBody),
        (status = 404, description = "NOT_FOUND: site", body = ErrorBody), (status = 403, body = ErrorBody)))]
pub async fn create_product(
    State(state): State<AppState>,
    auth: Staff<can::Write>,
    Json(input): Json<ProductInput>,
) -> ApiResult<(StatusCode, axum::Json<ProductDto>)> {
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
        price_type: PriceType::PerPerson,
        tax_rate_bp: 0,
        prices_include_tax: true,
        slot_policy: SlotPolicyKind::Interval,
        slot_interval_min: 30,
        fixed_slot_times: Vec::new(),
        setup_time: 0,
        cleanup_time: 0,
        label_codes: Vec::new(),
        requires_waiver: false,
        waiver_check_in: WaiverCheckIn::Warn,
        participant_types: Vec::new(),
    };
    let (new, _, _) = product_fields(input, base, true, currency).map_err(ApiError::validation)?;
    let product = state
        .store
        .create_product(auth.tenant.id(), new, &auth.actor(), state.now())
        .await?;
    // The site may already have hours: give the new product its slots now.
    regenerate_product(&state, &auth, product.id).await?;
    Ok((StatusCode::OK, axum::Json(product_dto(product, currency))))
}

/// List products.
#[utoipa::path(get, path = "/api/v1/admin/products", tag = "catalog", security(("bearer" = [])),
    responses((status = 200, body = ProductList), (status = 403, body = ErrorBody)))]
pub async fn list_products(
    State(state): State<AppState>,
    auth: Staff<can::Read>,
) -> ApiResult<axum::Json<ProductList>> {
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
    params(("id" = uuid::Uuid, Path, description = "Product id")),
    responses((status = 200, body = ProductDto), (status = 404, description = "NOT_FOUND", body = ErrorBody)))]
pub async fn get_product(
    State(state): State<AppState>,
    auth: Staff<can::Read>,
    Path(id): Path<String>,
) -> ApiResult<axum::Json<ProductDto>> {
    let (product, currency) = product_of(&state, &auth, &id).await?;
    Ok(axum::Json(product_dto(product, currency)))
}

/// Update a product (partial). Slots are regenerated when the shape changes.
#[utoipa::path(patch, path = "/api/v1/admin/products/{id}", tag = "catalog", security(("bearer" = [])),
    params(("id" = uuid::Uuid, Path, description = "Product id")),
    request_body = ProductInput,
    responses((status = 200, body = ProductDto), (status = 400, description = "VALIDATION_ERROR", body = ErrorBody),
        (status = 404, description = "NOT_FOUND", body = ErrorBody)))]
pub async fn update_product(
    State(state): State<AppState>,
    auth: Staff<can::Write>,
    Path(id): Path<String>,
    Json(input): Json<ProductInput>,
) -> ApiResult<axum::Json<ProductDto>> {
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
        .await?;
    regenerate_product(&state, &auth, product.id).await?;
    Ok(axum::Json(product_dto(product, currency)))
}

/// Deactivate a product: it leaves availability; unbooked future slots are removed.
#[utoipa::path(delete, path = "/api/v1/admin/products/{id}", tag = "catalog", security(("bearer" = [])),
    params(("id" = uuid::Uuid, Path, description = "Product id")),
    responses((status = 200, body = ProductDto), (status = 404, description = "NOT_FOUND", body = ErrorBody)))]
pub async fn deactivate_product(
    State(state): State<AppState>,
    auth: Staff<can::Write>,
    Path(id): Path<String>,
) -> ApiResult<axum::Json<ProductDto>> {
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
        .await?;
    regenerate_product(&state, &auth, product.id).await?;
    Ok(axum::Json(product_dto(product, currency)))
}

async fn regenerate_product(state: &AppState, auth: &AdminAuth, product: Uuid) -> ApiResult<()> {
    state
        .store
        .regenerate(
            auth.tenant.id(),
            ScopeType::Product,
            product,
            kairos_store::DateSpan::default(),
            state.now(),
            false,
        )
        .await?;
    Ok(())
}

// ───────────────────────────── variants ─────────────────────────────
