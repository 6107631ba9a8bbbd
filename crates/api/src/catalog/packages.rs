//! Packages: `/api/v1/admin/packages` (not in the spec; docs/ARCHITECTURE.md "Packages").
//! A package is a set of products booked together as one booking group (groupType
//! PACKAGE, `packageId`) at a package price per person or a percentage off.

use super::{currency, required_text, text};
use crate::error::{ApiError, ApiResult, ErrorBody};
use crate::extract::{AdminAuth, Json, Staff, can, path_id};
use crate::state::AppState;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use chrono::{DateTime, Utc};
use kairos_domain::FieldErrors;
use kairos_domain::ids::parse_id;
use kairos_domain::money::{from_major, to_major};
use kairos_domain::packages::{MAX_PRODUCTS, MIN_PRODUCTS, PackagePrice};
use kairos_domain::pricing::percent_to_bp;
use kairos_domain::tenancy::Currency;
use kairos_store::{NewPackage, Package};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

/// A package.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PackageDto {
    pub id: Uuid,
    #[schema(example = "Climb & Escape")]
    pub name: String,
    pub description: String,
    /// The products a group of this package books, one activity each.
    pub product_ids: Vec<Uuid>,
    /// PACKAGE_PRICE (`pricePerPerson` for all its activities together) or PERCENT_OFF
    /// (`percentOff` the activities' own prices).
    #[schema(example = "PACKAGE_PRICE")]
    pub price_type: String,
    /// Major units of `currency`, per person.
    #[schema(example = 45.0)]
    pub price_per_person: Option<f64>,
    /// Percent (e.g. 15 for 15 % off).
    pub percent_off: Option<f64>,
    /// The tenant's currency.
    #[schema(example = "EUR")]
    pub currency: String,
    /// Offered for new groups; an inactive package's groups keep it.
    pub is_active: bool,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct PackageList {
    pub items: Vec<PackageDto>,
}

/// A package to create (name, productIds, priceType and its amount required) or the
/// fields to change.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PackageInput {
    /// At most 200 characters.
    pub name: Option<String>,
    /// At most 2000 characters.
    pub description: Option<String>,
    /// 2 to 20 different products of the tenant.
    #[schema(value_type = Option<Vec<uuid::Uuid>>, min_items = 2, max_items = 20)]
    pub product_ids: Option<Vec<String>>,
    /// PACKAGE_PRICE or PERCENT_OFF.
    #[schema(example = "PACKAGE_PRICE")]
    pub price_type: Option<String>,
    /// PACKAGE_PRICE: per person, major units (≥ 0).
    pub price_per_person: Option<f64>,
    /// PERCENT_OFF: more than 0, at most 100, two decimals at most.
    pub percent_off: Option<f64>,
    pub is_active: Option<bool>,
}

fn dto(p: Package, c: Currency) -> PackageDto {
    let (per_person, percent) = match p.price {
        PackagePrice::PackagePrice(amount) => (Some(to_major(amount, c)), None),
        PackagePrice::PercentOff(bp) => (None, Some(f64::from(bp) / 100.0)),
    };
    PackageDto {
        id: p.id,
        name: p.name,
        description: p.description,
        product_ids: p.product_ids,
        price_type: p.price.kind().to_owned(),
        price_per_person: per_person,
        percent_off: percent,
        currency: c.code().to_owned(),
        is_active: p.is_active,
        created_at: p.created_at,
        updated_at: p.updated_at,
    }
}

/// `input` over `base` (a new package's blanks, or the package as it is), checked.
fn merge(input: PackageInput, base: NewPackage, c: Currency) -> Result<NewPackage, FieldErrors> {
    let creating = base.name.is_empty();
    let mut errors = FieldErrors::new();
    let mut new = base;
    if creating || input.name.is_some() {
        new.name = required_text(&mut errors, "name", input.name.as_deref(), 200);
    }
    if let Some(d) = input.description.as_deref() {
        new.description = text(&mut errors, "description", d, 2000);
    }
    match input.product_ids {
        Some(raw) => {
            let ids: Vec<Uuid> = raw.iter().filter_map(|r| parse_id(r)).collect();
            let mut unique = ids.clone();
            unique.sort();
            unique.dedup();
            if ids.len() != raw.len() {
                errors.add("productIds", "must be product ids");
            } else if unique.len() != ids.len() {
                errors.add("productIds", "must name each product once");
            } else if !(MIN_PRODUCTS..=MAX_PRODUCTS).contains(&ids.len()) {
                errors.add(
                    "productIds",
                    format!("must name {MIN_PRODUCTS} to {MAX_PRODUCTS} products"),
                );
            }
            new.product_ids = ids;
        }
        None if creating => errors.add("productIds", "is required"),
        None => {}
    }
    let kind = input
        .price_type
        .as_deref()
        .map(str::trim)
        .unwrap_or(new.price.kind());
    let price = match kind {
        "PACKAGE_PRICE" => match input.price_per_person {
            Some(p) => errors
                .check("pricePerPerson", from_major(p, c))
                .map(PackagePrice::PackagePrice),
            None if input.price_type.is_none() && !creating => Some(new.price),
            None => {
                errors.add("pricePerPerson", "is required for PACKAGE_PRICE");
                None
            }
        },
        "PERCENT_OFF" => match input.percent_off {
            Some(p) => match percent_to_bp(p).filter(|bp| *bp > 0) {
                Some(bp) => Some(PackagePrice::PercentOff(bp)),
                None => {
                    errors.add(
                        "percentOff",
                        "must be more than 0 and at most 100, with two decimals at most",
                    );
                    None
                }
            },
            None if input.price_type.is_none() && !creating => Some(new.price),
            None => {
                errors.add("percentOff", "is required for PERCENT_OFF");
                None
            }
        },
        _ => {
            errors.add("priceType", "must be PACKAGE_PRICE or PERCENT_OFF");
            None
        }
    };
    // An amount of the other price type would be silently dropped: say so.
    if kind == "PACKAGE_PRICE" && input.percent_off.is_some() {
        errors.add(
            "percentOff",
            "is for a PERCENT_OFF package: send priceType PERCENT_OFF with it",
        );
    }
    if kind == "PERCENT_OFF" && input.price_per_person.is_some() {
        errors.add(
            "pricePerPerson",
            "is for a PACKAGE_PRICE package: send priceType PACKAGE_PRICE with it",
        );
    }
    if let Some(price) = price {
        new.price = price;
    }
    if let Some(active) = input.is_active {
        new.is_active = active;
    }
    errors.finish().map(|()| new)
}

fn tenant_currency(auth: &AdminAuth) -> ApiResult<Currency> {
    currency(&auth.tenant.0.currency)
}

/// Create a package. Needs `admin:write`.
#[utoipa::path(post, path = "/api/v1/admin/packages", tag = "catalog", security(("bearer" = [])),
    request_body = PackageInput,
    responses(
        (status = 201, body = PackageDto),
        (status = 400, description = "VALIDATION_ERROR", body = ErrorBody),
        (status = 404, description = "NOT_FOUND: a product", body = ErrorBody),
    ))]
pub async fn create_package(
    State(state): State<AppState>,
    auth: Staff<can::Write>,
    Json(input): Json<PackageInput>,
) -> ApiResult<(StatusCode, axum::Json<PackageDto>)> {
    let c = tenant_currency(&auth)?;
    let blank = NewPackage {
        name: String::new(),
        description: String::new(),
        product_ids: Vec::new(),
        price: PackagePrice::PackagePrice(0),
        is_active: true,
    };
    let new = merge(input, blank, c).map_err(ApiError::validation)?;
    let p = state
        .store
        .create_package(auth.tenant.id(), new, &auth.actor(), state.now())
        .await?;
    Ok((StatusCode::CREATED, axum::Json(dto(p, c))))
}

/// List the packages (inactive ones included). Needs `admin:read`.
#[utoipa::path(get, path = "/api/v1/admin/packages", tag = "catalog", security(("bearer" = [])),
    responses((status = 200, body = PackageList)))]
pub async fn list_packages(
    State(state): State<AppState>,
    auth: Staff<can::Read>,
) -> ApiResult<axum::Json<PackageList>> {
    let c = tenant_currency(&auth)?;
    let items = state
        .store
        .list_packages(auth.tenant.id(), false)
        .await?
        .into_iter()
        .map(|p| dto(p, c))
        .collect();
    Ok(axum::Json(PackageList { items }))
}

async fn package_of(state: &AppState, auth: &AdminAuth, raw: &str) -> ApiResult<Package> {
    let id = path_id(raw, "Package")?;
    state
        .store
        .package(auth.tenant.id(), id)
        .await?
        .ok_or_else(|| ApiError::not_found("Package"))
}

/// A package. Needs `admin:read`.
#[utoipa::path(get, path = "/api/v1/admin/packages/{id}", tag = "catalog", security(("bearer" = [])),
    params(("id" = uuid::Uuid, Path)),
    responses((status = 200, body = PackageDto), (status = 404, description = "NOT_FOUND", body = ErrorBody)))]
pub async fn get_package(
    State(state): State<AppState>,
    auth: Staff<can::Read>,
    Path(id): Path<String>,
) -> ApiResult<axum::Json<PackageDto>> {
    let c = tenant_currency(&auth)?;
    Ok(axum::Json(dto(package_of(&state, &auth, &id).await?, c)))
}

/// Change a package (the fields sent); `isActive: false` stops offering it (groups
/// booked with it keep it). Groups already held keep the price they were held at. A
/// change made meanwhile by someone else is 409 CONFLICT: read the package again. Needs
/// `admin:write`.
#[utoipa::path(patch, path = "/api/v1/admin/packages/{id}", tag = "catalog", security(("bearer" = [])),
    params(("id" = uuid::Uuid, Path)),
    request_body = PackageInput,
    responses(
        (status = 200, body = PackageDto),
        (status = 400, description = "VALIDATION_ERROR", body = ErrorBody),
        (status = 404, description = "NOT_FOUND", body = ErrorBody),
        (status = 409, description = "CONFLICT: changed by someone else meanwhile", body = ErrorBody),
    ))]
pub async fn update_package(
    State(state): State<AppState>,
    auth: Staff<can::Write>,
    Path(id): Path<String>,
    Json(input): Json<PackageInput>,
) -> ApiResult<axum::Json<PackageDto>> {
    let c = tenant_currency(&auth)?;
    let before = package_of(&state, &auth, &id).await?;
    let base = NewPackage {
        name: before.name.clone(),
        description: before.description.clone(),
        product_ids: before.product_ids.clone(),
        price: before.price,
        is_active: before.is_active,
    };
    let new = merge(input, base, c).map_err(ApiError::validation)?;
    // The store writes it only if the package is still as read here.
    let p = state
        .store
        .update_package(auth.tenant.id(), &before, new, &auth.actor(), state.now())
        .await?;
    Ok(axum::Json(dto(p, c)))
}

/// The packages on offer (tenant header only), for a booking page: book one as a group
/// (`POST /api/v1/booking-groups/hold` with groupType PACKAGE and its `packageId`, one
/// activity per product).
#[utoipa::path(get, path = "/api/v1/packages", tag = "catalog", security(()),
    responses((status = 200, body = PackageList)))]
pub async fn public_packages(
    State(state): State<AppState>,
    tenant: crate::extract::Tenant,
) -> ApiResult<axum::Json<PackageList>> {
    let c = currency(&tenant.0.currency)?;
    let items = state
        .store
        .list_packages(tenant.id(), true)
        .await?
        .into_iter()
        .map(|p| dto(p, c))
        .collect();
    Ok(axum::Json(PackageList { items }))
}
