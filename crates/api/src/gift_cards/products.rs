//! Gift card products, administered (spec Part A 4.10): list (`admin:read`), create,
//! change and deactivate (`admin:write`). Deleting deactivates: vouchers sold stay valid.

use super::error::product_not_found;
use crate::error::{ApiError, ApiResult, ErrorBody};
use crate::extract::{
    Json, Query, Staff, bool_param, can, nullable, page_param, path_id, uuid_param,
};
use crate::state::AppState;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use chrono::{DateTime, Utc};
use kairos_domain::FieldErrors;
use kairos_domain::gift_cards::{ProductFields, ProductPatch, ValueType};
use kairos_domain::money::{from_major, to_major};
use kairos_domain::tenancy::Currency;
use kairos_store::{GiftCardProduct, GiftCardProductFilter};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

/// A gift card product (spec Part A 2.7); values in major units of `currency`.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct GiftCardProductDto {
    pub id: Uuid,
    pub name: String,
    pub description: String,
    /// fixed or custom_range.
    #[schema(example = "fixed")]
    pub value_type: String,
    pub fixed_value: Option<f64>,
    pub min_value: Option<f64>,
    pub max_value: Option<f64>,
    pub suggested_values: Option<Vec<f64>>,
    /// The voucher's lifetime from purchase.
    pub validity_days: i32,
    pub image_url: Option<String>,
    pub is_active: bool,
    /// None: sold at every site.
    pub site_id: Option<Uuid>,
    pub display_order: i32,
    #[schema(example = "EUR")]
    pub currency: String,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

pub(super) fn product_dto(p: GiftCardProduct, currency: Currency) -> GiftCardProductDto {
    let major = |v: i64| to_major(v, currency);
    let f = p.fields;
    GiftCardProductDto {
        id: p.id,
        name: f.name,
        description: f.description,
        value_type: f.value_type.as_str().to_owned(),
        fixed_value: f.fixed_value.map(major),
        min_value: f.min_value.map(major),
        max_value: f.max_value.map(major),
        suggested_values: (!f.suggested_values.is_empty())
            .then(|| f.suggested_values.iter().map(|v| major(*v)).collect()),
        validity_days: f.validity_days,
        image_url: f.image_url,
        is_active: f.is_active,
        site_id: f.site_id,
        display_order: f.display_order,
        currency: currency.code().to_owned(),
        created_at: p.created_at,
        updated_at: p.updated_at,
    }
}

pub(super) fn currency_of(tenant: &crate::extract::Tenant) -> ApiResult<Currency> {
    Currency::parse(&tenant.0.currency).map_err(ApiError::internal)
}

/// Product fields; on create `name` and `valueType` are required (and the value fields
/// of the type), on update every field is optional and `null` clears a nullable one.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct GiftCardProductInput {
    #[schema(min_length = 1, max_length = 200, example = "Escape room for two")]
    pub name: Option<String>,
    #[schema(max_length = 2000)]
    pub description: Option<String>,
    /// fixed or custom_range.
    #[schema(value_type = Option<crate::openapi::schemas::GiftCardValueTypeSchema>, example = "fixed")]
    pub value_type: Option<String>,
    /// fixed: the value (major units).
    #[serde(default, deserialize_with = "nullable")]
    #[schema(value_type = Option<f64>, example = 50.0, exclusive_minimum = 0, maximum = 100000, multiple_of = 0.01)]
    pub fixed_value: Option<Option<f64>>,
    /// custom_range: the smallest value.
    #[serde(default, deserialize_with = "nullable")]
    #[schema(value_type = Option<f64>, exclusive_minimum = 0, maximum = 100000, multiple_of = 0.01)]
    pub min_value: Option<Option<f64>>,
    /// custom_range: the largest value.
    #[serde(default, deserialize_with = "nullable")]
    #[schema(value_type = Option<f64>, exclusive_minimum = 0, maximum = 100000, multiple_of = 0.01)]
    pub max_value: Option<Option<f64>>,
    /// custom_range: at most 10 values within the range.
    #[serde(default, deserialize_with = "nullable")]
    #[schema(value_type = Option<Vec<f64>>, max_items = 10)]
    pub suggested_values: Option<Option<Vec<f64>>>,
    /// Default 365; 1 to 3650.
    #[schema(minimum = 1, maximum = 3650)]
    pub validity_days: Option<i32>,
    #[serde(default, deserialize_with = "nullable")]
    #[schema(value_type = Option<String>, max_length = 2000)]
    pub image_url: Option<Option<String>>,
    /// Default true.
    pub is_active: Option<bool>,
    /// null or absent: every site.
    #[serde(default, deserialize_with = "nullable")]
    #[schema(value_type = Option<Uuid>)]
    pub site_id: Option<Option<String>>,
    /// Default 0; lower first.
    #[schema(minimum = 0)]
    pub display_order: Option<i32>,
}

crate::openapi::schemas::create_form!(
    /// The create form of [`GiftCardProductInput`].
    GiftCardProductCreateForm = GiftCardProductInput,
    "GiftCardProductCreate",
    ["name", "valueType"]
);

/// The patch `input` asks for, its amounts in minor units.
fn patch_of(input: GiftCardProductInput, currency: Currency) -> Result<ProductPatch, FieldErrors> {
    let mut errors = FieldErrors::new();
    let minor = |field: &str, v: f64, errors: &mut FieldErrors| {
        errors.check(field, from_major(v, currency))
    };
    let value = |field: &str, v: Option<Option<f64>>, errors: &mut FieldErrors| match v {
        None => None,
        Some(None) => Some(None),
        Some(Some(v)) => Some(minor(field, v, errors)),
    };
    let fixed_value = value("fixedValue", input.fixed_value, &mut errors);
    let min_value = value("minValue", input.min_value, &mut errors);
    let max_value = value("maxValue", input.max_value, &mut errors);
    let suggested_values = input.suggested_values.map(|s| {
        s.unwrap_or_default()
            .into_iter()
            .filter_map(|v| minor("suggestedValues", v, &mut errors))
            .collect()
    });
    let value_type = input.value_type.as_deref().and_then(|v| {
        ValueType::parse(v).or_else(|| {
            errors.add("valueType", format!("must be {}", ValueType::choices()));
            None
        })
    });
    let site_id = match input.site_id {
        None => None,
        Some(None) => Some(None),
        Some(Some(raw)) => Some(uuid_param(&mut errors, "siteId", Some(&raw))),
    };
    let image_url = input
        .image_url
        .map(|u| u.map(|u| u.trim().to_owned()).filter(|u| !u.is_empty()));
    errors.finish()?;
    Ok(ProductPatch {
        site_id,
        name: input.name,
        description: input.description,
        value_type,
        fixed_value,
        min_value,
        max_value,
        suggested_values,
        validity_days: input.validity_days,
        image_url,
        is_active: input.is_active,
        display_order: input.display_order,
    })
}

/// Create a gift card product. Needs `admin:write`.
#[utoipa::path(post, path = "/api/v1/admin/gift-card-products", tag = "gift-cards", security(("bearer" = [])),
    request_body = GiftCardProductCreateForm,
    responses((status = 200, body = GiftCardProductDto),
        (status = 400, description = "VALIDATION_ERROR naming each bad field", body = ErrorBody),
        (status = 404, description = "NOT_FOUND: no such site", body = ErrorBody)))]
pub async fn create_product(
    State(state): State<AppState>,
    auth: Staff<can::Write>,
    Json(input): Json<GiftCardProductInput>,
) -> ApiResult<(StatusCode, axum::Json<GiftCardProductDto>)> {
    let currency = currency_of(&auth.tenant)?;
    let mut missing = FieldErrors::new();
    if input.name.is_none() {
        missing.add("name", "is required");
    }
    if input.value_type.is_none() {
        missing.add("valueType", "is required");
    }
    let patch = patch_of(input, currency);
    let patch = match (patch, missing.is_empty()) {
        (Ok(p), true) => p,
        (Ok(_), false) => return Err(ApiError::validation(missing)),
        (Err(e), _) => {
            let mut all = missing;
            for f in e.into_vec() {
                all.add(f.field, f.message);
            }
            return Err(ApiError::validation(all));
        }
    };
    let base = ProductFields {
        site_id: None,
        name: String::new(),
        description: String::new(),
        value_type: ValueType::Fixed,
        fixed_value: None,
        min_value: None,
        max_value: None,
        suggested_values: Vec::new(),
        validity_days: 365,
        image_url: None,
        is_active: true,
        display_order: 0,
    };
    let product = state
        .store
        .create_gift_card_product(
            auth.tenant.id(),
            base.patched(patch),
            &auth.actor(),
            state.now(),
        )
        .await?;
    Ok((StatusCode::OK, axum::Json(product_dto(product, currency))))
}

/// Change a gift card product (partial). Needs `admin:write`.
#[utoipa::path(patch, path = "/api/v1/admin/gift-card-products/{id}", tag = "gift-cards", security(("bearer" = [])),
    params(("id" = Uuid, Path)),
    request_body = GiftCardProductInput,
    responses((status = 200, body = GiftCardProductDto),
        (status = 400, description = "VALIDATION_ERROR naming each bad field (of the product as it would be)", body = ErrorBody),
        (status = 404, description = "GIFT_CARD_PRODUCT_NOT_FOUND; NOT_FOUND: no such site", body = ErrorBody)))]
pub async fn update_product(
    State(state): State<AppState>,
    auth: Staff<can::Write>,
    Path(id): Path<String>,
    Json(input): Json<GiftCardProductInput>,
) -> ApiResult<axum::Json<GiftCardProductDto>> {
    let id = path_id(&id, "Gift card product").map_err(|_| product_not_found())?;
    let currency = currency_of(&auth.tenant)?;
    let patch = patch_of(input, currency).map_err(ApiError::validation)?;
    let product = state
        .store
        .update_gift_card_product(auth.tenant.id(), id, patch, &auth.actor(), state.now())
        .await?;
    Ok(axum::Json(product_dto(product, currency)))
}

/// Deactivate a gift card product ("delete"): it is no longer sold; vouchers sold stay
/// valid. Needs `admin:write`.
#[utoipa::path(delete, path = "/api/v1/admin/gift-card-products/{id}", tag = "gift-cards", security(("bearer" = [])),
    params(("id" = Uuid, Path)),
    responses((status = 200, description = "Deactivated", body = crate::deleted::Deleted),
        (status = 404, description = "GIFT_CARD_PRODUCT_NOT_FOUND", body = ErrorBody)))]
pub async fn delete_product(
    State(state): State<AppState>,
    auth: Staff<can::Write>,
    Path(id): Path<String>,
) -> ApiResult<axum::Json<crate::deleted::Deleted>> {
    let id = path_id(&id, "Gift card product").map_err(|_| product_not_found())?;
    state
        .store
        .update_gift_card_product(
            auth.tenant.id(),
            id,
            ProductPatch {
                is_active: Some(false),
                ..ProductPatch::default()
            },
            &auth.actor(),
            state.now(),
        )
        .await?;
    Ok(crate::deleted::Deleted::of(
        "Gift card product deactivated",
        id,
    ))
}

/// Query of the admin product list.
#[derive(Debug, Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query, rename_all = "camelCase")]
pub struct ProductListQuery {
    /// From 1 (default 1).
    #[param(value_type = Option<u32>, minimum = 1, maximum = 1000000)]
    pub page: Option<String>,
    /// 1 to 100, default 20.
    #[param(value_type = Option<u32>, minimum = 1, maximum = 100)]
    pub limit: Option<String>,
    #[param(value_type = Option<bool>)]
    pub is_active: Option<String>,
    /// Products of this site and those for every site.
    #[param(value_type = Option<Uuid>)]
    pub site_id: Option<String>,
}

/// A page of products.
#[derive(Debug, Serialize, ToSchema)]
pub struct GiftCardProductPage {
    pub items: Vec<GiftCardProductDto>,
    pub total: i64,
    pub page: u32,
    pub limit: u32,
}

/// The tenant's gift card products, active or not, in display order. Needs `admin:read`.
#[utoipa::path(get, path = "/api/v1/admin/gift-card-products", tag = "gift-cards", security(("bearer" = [])),
    params(ProductListQuery),
    responses((status = 200, body = GiftCardProductPage),
        (status = 400, description = "VALIDATION_ERROR", body = ErrorBody)))]
pub async fn list_products(
    State(state): State<AppState>,
    auth: Staff<can::Read>,
    Query(q): Query<ProductListQuery>,
) -> ApiResult<axum::Json<GiftCardProductPage>> {
    let mut errors = FieldErrors::new();
    let page = page_param(&mut errors, "page", q.page.as_deref(), 1, 1_000_000);
    let limit = page_param(&mut errors, "limit", q.limit.as_deref(), 20, 100);
    let is_active = q
        .is_active
        .as_deref()
        .map(|raw| bool_param(&mut errors, "isActive", Some(raw), true));
    let site_id = uuid_param(&mut errors, "siteId", q.site_id.as_deref());
    errors.finish().map_err(ApiError::validation)?;
    let currency = currency_of(&auth.tenant)?;
    let (items, total) = state
        .store
        .list_gift_card_products(
            auth.tenant.id(),
            &GiftCardProductFilter {
                is_active,
                site_id,
                page,
                limit,
            },
        )
        .await?;
    Ok(axum::Json(GiftCardProductPage {
        items: items
            .into_iter()
            .map(|p| product_dto(p, currency))
            .collect(),
        total,
        page,
        limit,
    }))
}
