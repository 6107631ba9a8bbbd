//! Add-ons of a product: `/api/v1/admin/products/{id}/addons`.

use super::products::{int_in, product_of};
use super::{required_text, text};
use crate::error::{ApiError, ApiResult, ErrorBody};
use crate::extract::choose;
use crate::extract::{AdminAuth, Json, Staff, can, nullable, path_id};
use crate::openapi::schemas::{AddonModeSchema, AddonPriceTypeSchema, AddonTypeSchema};
use crate::state::AppState;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use kairos_domain::FieldErrors;
use kairos_domain::catalog::{AddonPriceType, AddonType};
use kairos_domain::money::{from_major, to_major};
use kairos_domain::pricing::AddonMode;
use kairos_domain::pricing::percent_to_bp;
use kairos_domain::tenancy::Currency;
use kairos_store::{Addon, NewAddon, Product};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// A product add-on (spec Part B 2.2). `price` is present for fixed yes/no add-ons (and
/// holds the percent for percentage add-ons); `unitPrice` for free_qty and per_participant.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AddonDto {
    pub id: String,
    pub name: String,
    pub description: String,
    #[schema(value_type = AddonTypeSchema)]
    pub addon_type: String,
    #[schema(value_type = AddonModeSchema)]
    pub mode: String,
    #[schema(value_type = AddonPriceTypeSchema)]
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

pub fn addon_dto(a: Addon, currency: Currency) -> AddonDto {
    let amount = if a.price_type == AddonPriceType::Percentage {
        a.amount as f64 / 100.0
    } else {
        to_major(a.amount, currency)
    };
    let unit = matches!(a.mode, AddonMode::FreeQty | AddonMode::PerParticipant);
    AddonDto {
        id: a.id.to_string(),
        name: a.name,
        description: a.description,
        addon_type: a.addon_type.as_str().to_owned(),
        price: (!unit).then_some(amount),
        unit_price: unit.then_some(amount),
        mode: a.mode.as_str().to_owned(),
        price_type: a.price_type.as_str().to_owned(),
        currency: currency.code().to_owned(),
        available: a.is_active,
        max_quantity: a.max_quantity,
        display_order: a.display_order,
    }
}

#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AddonInput {
    #[schema(min_length = 1, max_length = 200)]
    pub name: Option<String>,
    #[schema(max_length = 5000)]
    pub description: Option<String>,
    #[schema(value_type = Option<AddonTypeSchema>)]
    pub addon_type: Option<String>,
    #[schema(value_type = Option<AddonModeSchema>)]
    pub mode: Option<String>,
    #[schema(value_type = Option<AddonPriceTypeSchema>)]
    pub price_type: Option<String>,
    /// Major units; for priceType percentage, the percent.
    #[schema(minimum = 0, maximum = 10000000000000.0, multiple_of = 0.01)]
    pub price: Option<f64>,
    /// Major units per unit (free_qty, per_participant).
    #[schema(minimum = 0, maximum = 10000000000000.0, multiple_of = 0.01)]
    pub unit_price: Option<f64>,
    #[serde(default, deserialize_with = "nullable")]
    #[schema(value_type = Option<i32>, minimum = 1, maximum = 1000)]
    pub max_quantity: Option<Option<i64>>,
    #[schema(minimum = -10000, maximum = 10000)]
    pub display_order: Option<i64>,
    pub is_active: Option<bool>,
}

crate::openapi::schemas::create_form!(
    /// The create form of [`AddonInput`].
    AddonCreate = AddonInput,
    "AddonCreate",
    ["name", "addonType", "mode", "priceType"]
);

#[derive(Debug, Serialize, ToSchema)]
pub struct AddonList {
    pub items: Vec<AddonDto>,
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
    let addon_type = choose(
        &mut errors,
        "addonType",
        input.addon_type.as_deref(),
        base.addon_type,
        creating,
        AddonType::parse,
        AddonType::choices(),
    );
    let mode = choose(
        &mut errors,
        "mode",
        input.mode.as_deref(),
        base.mode,
        creating,
        AddonMode::parse,
        AddonMode::choices(),
    );
    let price_type = choose(
        &mut errors,
        "priceType",
        input.price_type.as_deref(),
        base.price_type,
        creating,
        AddonPriceType::parse,
        AddonPriceType::choices(),
    );
    let unit_mode = matches!(mode, AddonMode::FreeQty | AddonMode::PerParticipant);
    let ((field, given), (other, ignored)) = if unit_mode {
        (("unitPrice", input.unit_price), ("price", input.price))
    } else {
        (("price", input.price), ("unitPrice", input.unit_price))
    };
    let mut amount_of = |field: &str, v: f64| {
        if price_type == AddonPriceType::Percentage {
            percent_to_bp(v).map(i64::from).unwrap_or_else(|| {
                errors.add(
                    field,
                    "must be a percentage from 0 to 100 with at most two decimals",
                );
                0
            })
        } else {
            errors.check(field, from_major(v, currency)).unwrap_or(0)
        }
    };
    // The field the mode does not use is ignored, but must still be a valid amount.
    if let Some(v) = ignored {
        amount_of(other, v);
    }
    let amount = match given {
        None if creating => {
            errors.add(field, format!("is required for mode {mode}"));
            0
        }
        None => base.amount,
        Some(v) => amount_of(field, v),
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
        addon_type: a.addon_type,
        mode: a.mode,
        price_type: a.price_type,
        amount: a.amount,
        max_quantity: a.max_quantity,
        display_order: a.display_order,
        is_active: a.is_active,
    }
}

/// Add an add-on to a product.
#[utoipa::path(post, path = "/api/v1/admin/products/{id}/addons", tag = "catalog", security(("bearer" = [])),
    params(("id" = uuid::Uuid, Path, description = "Product id")),
    request_body = AddonCreate,
    responses((status = 200, body = AddonDto), (status = 400, description = "VALIDATION_ERROR", body = ErrorBody), (status = 404, description = "NOT_FOUND", body = ErrorBody)))]
pub async fn create_addon(
    State(state): State<AppState>,
    auth: Staff<can::Write>,
    Path(id): Path<String>,
    Json(input): Json<AddonInput>,
) -> ApiResult<(StatusCode, axum::Json<AddonDto>)> {
    let (product, currency) = product_of(&state, &auth, &id).await?;
    let base = NewAddon {
        name: String::new(),
        description: String::new(),
        // Placeholders: creating requires all three.
        addon_type: AddonType::Item,
        mode: AddonMode::YesNo,
        price_type: AddonPriceType::Fixed,
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
        .await?;
    Ok((StatusCode::OK, axum::Json(addon_dto(a, currency))))
}

/// List a product's add-ons (inactive ones included).
#[utoipa::path(get, path = "/api/v1/admin/products/{id}/addons", tag = "catalog", security(("bearer" = [])),
    params(("id" = uuid::Uuid, Path, description = "Product id")),
    responses((status = 200, body = AddonList), (status = 404, description = "NOT_FOUND", body = ErrorBody)))]
pub async fn list_addons(
    State(state): State<AppState>,
    auth: Staff<can::Read>,
    Path(id): Path<String>,
) -> ApiResult<axum::Json<AddonList>> {
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
    params(("id" = uuid::Uuid, Path, description = "Product id"), ("addonId" = uuid::Uuid, Path, description = "Add-on id")),
    responses((status = 200, body = AddonDto), (status = 404, description = "NOT_FOUND", body = ErrorBody)))]
pub async fn get_addon(
    State(state): State<AppState>,
    auth: Staff<can::Read>,
    Path((id, addon)): Path<(String, String)>,
) -> ApiResult<axum::Json<AddonDto>> {
    let (product, currency) = product_of(&state, &auth, &id).await?;
    Ok(axum::Json(addon_dto(
        addon_of(&state, &auth, &product, &addon).await?,
        currency,
    )))
}

/// Update an add-on (partial).
#[utoipa::path(patch, path = "/api/v1/admin/products/{id}/addons/{addonId}", tag = "catalog", security(("bearer" = [])),
    params(("id" = uuid::Uuid, Path, description = "Product id"), ("addonId" = uuid::Uuid, Path, description = "Add-on id")),
    request_body = AddonInput,
    responses((status = 200, body = AddonDto), (status = 400, description = "VALIDATION_ERROR", body = ErrorBody), (status = 404, description = "NOT_FOUND", body = ErrorBody)))]
pub async fn update_addon(
    State(state): State<AppState>,
    auth: Staff<can::Write>,
    Path((id, addon)): Path<(String, String)>,
    Json(input): Json<AddonInput>,
) -> ApiResult<axum::Json<AddonDto>> {
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
        .await?;
    Ok(axum::Json(addon_dto(a, currency)))
}

/// Deactivate an add-on.
#[utoipa::path(delete, path = "/api/v1/admin/products/{id}/addons/{addonId}", tag = "catalog", security(("bearer" = [])),
    params(("id" = uuid::Uuid, Path, description = "Product id"), ("addonId" = uuid::Uuid, Path, description = "Add-on id")),
    responses((status = 200, body = AddonDto), (status = 404, description = "NOT_FOUND", body = ErrorBody)))]
pub async fn deactivate_addon(
    State(state): State<AppState>,
    auth: Staff<can::Write>,
    Path((id, addon)): Path<(String, String)>,
) -> ApiResult<axum::Json<AddonDto>> {
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
        .await?;
    Ok(axum::Json(addon_dto(a, currency)))
}
