//! `/api/v1/admin/promotions`: create, list, read, update, delete (spec Part A 4.8).
//!
//! Amounts are in major units of the tenant's currency; `discount_value` means, by type:
//! percentage, percent off (0 < value ≤ 100, two decimals); fixed_amount, the amount off;
//! buy_x_get_y, how many people of every `buy_quantity + discount_value` go free;
//! bundle, the price of every `bundle_size` people together.

use super::fields::{PromotionCreate, PromotionInput, discount_fields, promotion_fields};
use crate::error::{ApiError, ApiResult, ErrorBody};
use crate::extract::{Json, Query, Staff, can, choose, page_param, path_id};
use crate::openapi::schemas::{PromotionStatusSchema, PromotionTypeSchema};
use crate::state::AppState;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use chrono::{DateTime, Utc};
use kairos_domain::FieldErrors;
use kairos_domain::money::to_major;
use kairos_domain::promotions::{PromotionStatus, PromotionType};
use kairos_domain::tenancy::Currency;
use kairos_store::{Promotion, PromotionFilter};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

/// A promotion (spec Part A 2.5).
#[derive(Debug, Serialize, ToSchema)]
pub struct PromotionDto {
    pub id: String,
    pub tenant_id: String,
    pub code: String,
    pub name: String,
    pub description: String,
    #[serde(rename = "type")]
    #[schema(value_type = PromotionTypeSchema)]
    pub promotion_type: String,
    /// By type: percent, amount, free people, or bundle price (see the operation).
    pub discount_value: f64,
    /// buy_x_get_y: the people who pay in each group.
    pub buy_quantity: Option<u32>,
    /// bundle: the people in one bundle.
    pub bundle_size: Option<u32>,
    /// The subtotal a booking must reach; null = none.
    pub min_spend_amount: Option<f64>,
    /// percentage: the most it takes off; null = no cap.
    pub max_discount_amount: Option<f64>,
    /// The tenant's currency, which every amount is in.
    pub currency: String,
    pub starts_at: DateTime<Utc>,
    /// null = never.
    pub expires_at: Option<DateTime<Utc>>,
    pub is_stackable: bool,
    /// null = unlimited.
    pub usage_limit: Option<i32>,
    /// Uses taken by holds and confirmed bookings.
    pub usage_count: i32,
    /// null = unlimited.
    pub per_customer_limit: Option<i32>,
    /// Empty: every site.
    pub applicable_sites: Vec<String>,
    /// Empty: every product.
    pub applicable_products: Vec<String>,
    pub is_active: bool,
    /// Listed publicly; a code that is not public still applies when typed.
    pub is_public: bool,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

pub fn promotion_dto(p: Promotion, tenant: &str, currency: Currency) -> PromotionDto {
    let d = discount_fields(&p.settings.discount, currency);
    let s = p.settings;
    PromotionDto {
        id: p.id.to_string(),
        tenant_id: tenant.to_owned(),
        promotion_type: s.discount.promotion_type().as_str().to_owned(),
        code: s.code,
        name: s.name,
        description: s.description,
        discount_value: d.value,
        buy_quantity: d.buy_quantity,
        bundle_size: d.bundle_size,
        min_spend_amount: s.min_spend.map(|m| to_major(m, currency)),
        max_discount_amount: d.max_discount,
        currency: currency.code().to_owned(),
        starts_at: s.starts_at,
        expires_at: s.expires_at,
        is_stackable: s.is_stackable,
        usage_limit: s.usage_limit,
        usage_count: p.usage_count,
        per_customer_limit: s.per_customer_limit,
        applicable_sites: s.applicable_sites.iter().map(Uuid::to_string).collect(),
        applicable_products: s.applicable_products.iter().map(Uuid::to_string).collect(),
        is_active: s.is_active,
        is_public: s.is_public,
        created_at: p.created_at,
        updated_at: p.updated_at,
    }
}

pub(super) fn tenant_currency(auth: &Staff<can::Write>) -> ApiResult<Currency> {
    Currency::parse(&auth.tenant.0.currency).map_err(ApiError::internal)
}

/// `{success, promotion}`.
#[derive(Debug, Serialize, ToSchema)]
pub struct PromotionResponse {
    pub success: bool,
    pub promotion: PromotionDto,
}

/// Create a promotion. Needs `admin:write`.
#[utoipa::path(post, path = "/api/v1/admin/promotions", tag = "promotions", security(("bearer" = [])),
    request_body = PromotionCreate,
    responses((status = 200, body = PromotionResponse),
        (status = 400, description = "VALIDATION_ERROR naming each bad field (including a site or product that is not the tenant's)", body = ErrorBody),
        (status = 403, description = "INSUFFICIENT_PERMISSIONS", body = ErrorBody),
        (status = 409, description = "CONFLICT: the code is taken (codes ignore case); details.code", body = ErrorBody)))]
pub async fn create_promotion(
    State(state): State<AppState>,
    auth: Staff<can::Write>,
    Json(input): Json<PromotionInput>,
) -> ApiResult<(StatusCode, axum::Json<PromotionResponse>)> {
    let currency = tenant_currency(&auth)?;
    let new = promotion_fields(input, None, currency).map_err(ApiError::validation)?;
    let promotion = state
        .store
        .create_promotion(auth.tenant.id(), new, &auth.actor(), state.now())
        .await?;
    Ok((
        StatusCode::OK,
        axum::Json(PromotionResponse {
            success: true,
            promotion: promotion_dto(promotion, auth.tenant.id().as_str(), currency),
        }),
    ))
}

/// Query of `GET /admin/promotions`.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ListQuery {
    /// Default all.
    #[param(value_type = Option<PromotionStatusSchema>, inline)]
    pub status: Option<String>,
    #[serde(rename = "type")]
    #[param(rename = "type", value_type = Option<PromotionTypeSchema>)]
    pub promotion_type: Option<String>,
    /// Part of the code or the name, any case.
    #[param(max_length = 200)]
    pub search: Option<String>,
    /// From 1 (default 1).
    #[param(value_type = Option<u32>, minimum = 1, maximum = 1000000)]
    pub page: Option<String>,
    /// 1 to 100, default 50.
    #[param(value_type = Option<u32>, minimum = 1, maximum = 100)]
    pub per_page: Option<String>,
}

/// A page of promotions.
#[derive(Debug, Serialize, ToSchema)]
pub struct PromotionList {
    pub promotions: Vec<PromotionDto>,
    pub total: u64,
    pub page: u32,
    pub per_page: u32,
    pub total_pages: u64,
}

/// List promotions (never deleted ones), newest first. Needs `admin:write`.
#[utoipa::path(get, path = "/api/v1/admin/promotions", tag = "promotions", security(("bearer" = [])),
    params(ListQuery),
    responses((status = 200, body = PromotionList), (status = 400, description = "VALIDATION_ERROR", body = ErrorBody),
        (status = 403, description = "INSUFFICIENT_PERMISSIONS", body = ErrorBody)))]
pub async fn list_promotions(
    State(state): State<AppState>,
    auth: Staff<can::Write>,
    Query(q): Query<ListQuery>,
) -> ApiResult<axum::Json<PromotionList>> {
    let currency = tenant_currency(&auth)?;
    let mut errors = FieldErrors::new();
    let status = choose(
        &mut errors,
        "status",
        q.status.as_deref().filter(|s| !s.is_empty()),
        PromotionStatus::All,
        false,
        PromotionStatus::parse,
        PromotionStatus::choices(),
    );
    let promotion_type = match q.promotion_type.as_deref().filter(|s| !s.is_empty()) {
        None => None,
        Some(raw) => {
            let parsed = PromotionType::parse(raw);
            if parsed.is_none() {
                errors.add("type", format!("must be {}", PromotionType::choices()));
            }
            parsed
        }
    };
    let search = q
        .search
        .map(|s| s.trim().to_owned())
        .filter(|s| !s.is_empty());
    if search.as_ref().is_some_and(|s| s.chars().count() > 200) {
        errors.add("search", "must be at most 200 characters");
    }
    let page = page_param(&mut errors, "page", q.page.as_deref(), 1, 1_000_000);
    let per_page = page_param(&mut errors, "per_page", q.per_page.as_deref(), 50, 100);
    errors.finish().map_err(ApiError::validation)?;
    let (items, total) = state
        .store
        .list_promotions(
            auth.tenant.id(),
            PromotionFilter {
                status,
                promotion_type,
                search,
                is_active: None,
                is_public: None,
                scope: None,
                starts_after: None,
                expires_before: None,
                page,
                per_page,
            },
            state.now(),
        )
        .await?;
    let tenant = auth.tenant.id().as_str();
    Ok(axum::Json(PromotionList {
        promotions: items
            .into_iter()
            .map(|p| promotion_dto(p, tenant, currency))
            .collect(),
        total,
        page,
        per_page,
        total_pages: total.div_ceil(u64::from(per_page)),
    }))
}

/// Read a promotion. Needs `admin:write`.
#[utoipa::path(get, path = "/api/v1/admin/promotions/{id}", tag = "promotions", security(("bearer" = [])),
    params(("id" = uuid::Uuid, Path, description = "Promotion id")),
    responses((status = 200, body = PromotionDto), (status = 404, description = "NOT_FOUND (also once deleted)", body = ErrorBody)))]
pub async fn get_promotion(
    State(state): State<AppState>,
    auth: Staff<can::Write>,
    Path(id): Path<String>,
) -> ApiResult<axum::Json<PromotionDto>> {
    let currency = tenant_currency(&auth)?;
    let id = path_id(&id, "Promotion")?;
    let promotion = state.store.promotion(auth.tenant.id(), id).await?;
    Ok(axum::Json(promotion_dto(
        promotion,
        auth.tenant.id().as_str(),
        currency,
    )))
}

/// Update a promotion (partial): its uses stay. Needs `admin:write`.
#[utoipa::path(patch, path = "/api/v1/admin/promotions/{id}", tag = "promotions", security(("bearer" = [])),
    params(("id" = uuid::Uuid, Path, description = "Promotion id")),
    request_body = PromotionInput,
    responses((status = 200, body = PromotionResponse),
        (status = 400, description = "VALIDATION_ERROR naming each bad field; usage_limit below the uses already taken", body = ErrorBody),
        (status = 404, description = "NOT_FOUND", body = ErrorBody),
        (status = 409, description = "CONFLICT: the new code is taken", body = ErrorBody)))]
pub async fn update_promotion(
    State(state): State<AppState>,
    auth: Staff<can::Write>,
    Path(id): Path<String>,
    Json(input): Json<PromotionInput>,
) -> ApiResult<axum::Json<PromotionResponse>> {
    let currency = tenant_currency(&auth)?;
    let id = path_id(&id, "Promotion")?;
    let current = state.store.promotion(auth.tenant.id(), id).await?;
    let new =
        promotion_fields(input, Some(&current.settings), currency).map_err(ApiError::validation)?;
    let promotion = state
        .store
        .update_promotion(auth.tenant.id(), id, new, &auth.actor(), state.now())
        .await?;
    Ok(axum::Json(PromotionResponse {
        success: true,
        promotion: promotion_dto(promotion, auth.tenant.id().as_str(), currency),
    }))
}

/// `{success, message, deleted_id}`.
#[derive(Debug, Serialize, ToSchema)]
pub struct DeletedResponse {
    pub success: bool,
    pub message: String,
    pub deleted_id: String,
}

/// Delete a promotion: it never applies again and leaves the lists; bookings that used
/// it keep it in their history. Needs `admin:write`.
#[utoipa::path(delete, path = "/api/v1/admin/promotions/{id}", tag = "promotions", security(("bearer" = [])),
    params(("id" = uuid::Uuid, Path, description = "Promotion id")),
    responses((status = 200, body = DeletedResponse), (status = 404, description = "NOT_FOUND", body = ErrorBody)))]
pub async fn delete_promotion(
    State(state): State<AppState>,
    auth: Staff<can::Write>,
    Path(id): Path<String>,
) -> ApiResult<axum::Json<DeletedResponse>> {
    let id = path_id(&id, "Promotion")?;
    state
        .store
        .delete_promotion(auth.tenant.id(), id, &auth.actor(), state.now())
        .await?;
    Ok(axum::Json(DeletedResponse {
        success: true,
        message: "Promotion deleted".to_owned(),
        deleted_id: id.to_string(),
    }))
}
