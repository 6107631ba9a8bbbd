//! Variants of a product: `/api/v1/admin/products/{id}/variants`.

use super::products::{int_in, product_of};
use super::{required_text, text};
use crate::error::{ApiError, ApiResult, ErrorBody};
use crate::extract::choose;
use crate::extract::{AdminAuth, Json, Staff, can, nullable, path_id};
use crate::openapi::schemas::VariantPriceModeSchema;
use crate::state::AppState;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use chrono::{DateTime, Utc};
use kairos_domain::FieldErrors;
use kairos_domain::catalog::VariantPriceMode;
use kairos_domain::money::from_major;
use kairos_domain::tenancy::Currency;
use kairos_store::{NewVariant, Product, Variant};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// A product variant.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct VariantDto {
    pub id: String,
    pub product_id: String,
    pub name: String,
    pub description: String,
    #[schema(value_type = VariantPriceModeSchema)]
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
        price_mode: v.price_mode.as_str().to_owned(),
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
    #[schema(min_length = 1, max_length = 200)]
    pub name: Option<String>,
    #[schema(max_length = 5000)]
    pub description: Option<String>,
    #[schema(value_type = Option<VariantPriceModeSchema>)]
    pub price_mode: Option<String>,
    pub price_amount: Option<f64>,
    #[serde(default, deserialize_with = "nullable")]
    #[schema(value_type = Option<i32>, minimum = 1, maximum = 100)]
    pub capacity_share: Option<Option<i64>>,
    #[schema(minimum = -10000, maximum = 10000)]
    pub display_order: Option<i64>,
    pub is_active: Option<bool>,
}

crate::openapi::schemas::create_form!(
    /// The create form of [`VariantInput`].
    VariantCreate = VariantInput,
    "VariantCreate",
    ["name"]
);

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
    let price_mode = choose(
        &mut errors,
        "priceMode",
        input.price_mode.as_deref(),
        base.price_mode,
        false,
        VariantPriceMode::parse,
        VariantPriceMode::choices(),
    );
    let price_amount = match input.price_amount {
        None => base.price_amount,
        Some(a) => {
            let magnitude = errors
                .check("priceAmount", from_major(a.abs(), currency))
                .unwrap_or(0);
            if a < 0.0 && price_mode != VariantPriceMode::Adjustment {
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
    params(("id" = uuid::Uuid, Path, description = "Product id")),
    request_body = VariantCreate,
    responses((status = 200, body = VariantDto), (status = 400, description = "VALIDATION_ERROR", body = ErrorBody),
        (status = 404, description = "NOT_FOUND", body = ErrorBody)))]
pub async fn create_variant(
    State(state): State<AppState>,
    auth: Staff<can::Write>,
    Path(id): Path<String>,
    Json(input): Json<VariantInput>,
) -> ApiResult<(StatusCode, axum::Json<VariantDto>)> {
    let (product, currency) = product_of(&state, &auth, &id).await?;
    let base = NewVariant {
        name: String::new(),
        description: String::new(),
        price_mode: VariantPriceMode::None,
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
        .await?;
    Ok((StatusCode::OK, axum::Json(variant_dto(v, currency))))
}

/// List a product's variants.
#[utoipa::path(get, path = "/api/v1/admin/products/{id}/variants", tag = "catalog", security(("bearer" = [])),
    params(("id" = uuid::Uuid, Path, description = "Product id")),
    responses((status = 200, body = VariantList), (status = 404, description = "NOT_FOUND", body = ErrorBody)))]
pub async fn list_variants(
    State(state): State<AppState>,
    auth: Staff<can::Read>,
    Path(id): Path<String>,
) -> ApiResult<axum::Json<VariantList>> {
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
    params(("id" = uuid::Uuid, Path, description = "Product id"), ("variantId" = uuid::Uuid, Path, description = "Variant id")),
    responses((status = 200, body = VariantDto), (status = 404, description = "NOT_FOUND", body = ErrorBody)))]
pub async fn get_variant(
    State(state): State<AppState>,
    auth: Staff<can::Read>,
    Path((id, variant)): Path<(String, String)>,
) -> ApiResult<axum::Json<VariantDto>> {
    let (product, currency) = product_of(&state, &auth, &id).await?;
    Ok(axum::Json(variant_dto(
        variant_of(&state, &auth, &product, &variant).await?,
        currency,
    )))
}

/// Update a variant (partial).
#[utoipa::path(patch, path = "/api/v1/admin/products/{id}/variants/{variantId}", tag = "catalog", security(("bearer" = [])),
    params(("id" = uuid::Uuid, Path, description = "Product id"), ("variantId" = uuid::Uuid, Path, description = "Variant id")),
    request_body = VariantInput,
    responses((status = 200, body = VariantDto), (status = 400, description = "VALIDATION_ERROR", body = ErrorBody), (status = 404, description = "NOT_FOUND", body = ErrorBody)))]
pub async fn update_variant(
    State(state): State<AppState>,
    auth: Staff<can::Write>,
    Path((id, variant)): Path<(String, String)>,
    Json(input): Json<VariantInput>,
) -> ApiResult<axum::Json<VariantDto>> {
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
        .await?;
    Ok(axum::Json(variant_dto(v, currency)))
}

fn variant_base(v: &Variant) -> NewVariant {
    NewVariant {
        name: v.name.clone(),
        description: v.description.clone(),
        price_mode: v.price_mode,
        price_amount: v.price_amount,
        capacity_share: v.capacity_share,
        display_order: v.display_order,
        is_active: v.is_active,
    }
}

/// Deactivate a variant.
#[utoipa::path(delete, path = "/api/v1/admin/products/{id}/variants/{variantId}", tag = "catalog", security(("bearer" = [])),
    params(("id" = uuid::Uuid, Path, description = "Product id"), ("variantId" = uuid::Uuid, Path, description = "Variant id")),
    responses((status = 200, body = VariantDto), (status = 404, description = "NOT_FOUND", body = ErrorBody)))]
pub async fn deactivate_variant(
    State(state): State<AppState>,
    auth: Staff<can::Write>,
    Path((id, variant)): Path<(String, String)>,
) -> ApiResult<axum::Json<VariantDto>> {
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
        .await?;
    Ok(axum::Json(variant_dto(v, currency)))
}

// ───────────────────────────── add-ons ─────────────────────────────
