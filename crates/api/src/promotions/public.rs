//! Public promotion listings (snake_case, spec Part A 4.7 and 4.11): what a customer may
//! see before booking. No token is needed; the tenant header is.

use crate::error::{ApiError, ApiResult, ErrorBody};
use crate::extract::{Query, Tenant};
use crate::openapi::schemas::PromotionTypeSchema;
use crate::state::AppState;
use axum::extract::State;
use chrono::{DateTime, Utc};
use kairos_domain::FieldErrors;
use kairos_domain::promotions::{Context, eligibility};
use kairos_domain::tenancy::Currency;
use kairos_store::Promotion;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

/// A promotion as customers see it.
#[derive(Debug, Serialize, ToSchema)]
pub struct PublicPromotionDto {
    pub id: String,
    pub code: String,
    pub name: String,
    pub description: String,
    #[serde(rename = "type")]
    #[schema(value_type = PromotionTypeSchema)]
    pub promotion_type: String,
    /// By type: percent, amount, free people, or bundle price.
    pub discount_value: f64,
    pub buy_quantity: Option<u32>,
    pub bundle_size: Option<u32>,
    pub min_spend_amount: Option<f64>,
    pub max_discount_amount: Option<f64>,
    pub currency: String,
    pub starts_at: DateTime<Utc>,
    pub expires_at: Option<DateTime<Utc>>,
    pub is_stackable: bool,
    /// Uses left; null: unlimited.
    pub usage_remaining: Option<i32>,
    /// null: unlimited.
    pub usage_limit: Option<i32>,
}

fn public_dto(p: Promotion, currency: Currency) -> PublicPromotionDto {
    let usage_remaining = p.usage_remaining();
    let full = super::admin::promotion_dto(p, "", currency);
    PublicPromotionDto {
        id: full.id,
        code: full.code,
        name: full.name,
        description: full.description,
        promotion_type: full.promotion_type,
        discount_value: full.discount_value,
        buy_quantity: full.buy_quantity,
        bundle_size: full.bundle_size,
        min_spend_amount: full.min_spend_amount,
        max_discount_amount: full.max_discount_amount,
        currency: full.currency,
        starts_at: full.starts_at,
        expires_at: full.expires_at,
        is_stackable: full.is_stackable,
        usage_remaining,
        usage_limit: full.usage_limit,
    }
}

/// `{promotions, total}`.
#[derive(Debug, Serialize, ToSchema)]
pub struct PublicPromotionList {
    pub promotions: Vec<PublicPromotionDto>,
    pub total: usize,
}

/// Query of `GET /promotions/active`.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ActiveQuery {
    /// Only promotions valid at this site.
    #[param(value_type = Option<uuid::Uuid>)]
    pub site_id: Option<String>,
    /// Only promotions valid for this product.
    #[param(value_type = Option<uuid::Uuid>)]
    pub product_id: Option<String>,
    /// One code (any case): listed when it applies, public or not.
    #[param(max_length = 50)]
    pub code: Option<String>,
}

fn tenant_currency(tenant: &Tenant) -> ApiResult<Currency> {
    Currency::parse(&tenant.0.currency).map_err(ApiError::internal)
}

/// Promotions that apply now: switched on, inside their window, with uses left, and
/// valid for the site and product when given. Public ones, or the one named by `code`.
#[utoipa::path(get, path = "/api/v1/promotions/active", tag = "promotions", security(()),
    params(ActiveQuery),
    responses((status = 200, body = PublicPromotionList),
        (status = 400, description = "VALIDATION_ERROR: a site_id or product_id that is not an id", body = ErrorBody)))]
pub async fn active_promotions(
    State(state): State<AppState>,
    tenant: Tenant,
    Query(q): Query<ActiveQuery>,
) -> ApiResult<axum::Json<PublicPromotionList>> {
    let currency = tenant_currency(&tenant)?;
    let mut errors = FieldErrors::new();
    let mut id_of = |field: &str, raw: Option<String>| {
        let raw = raw.filter(|r| !r.trim().is_empty())?;
        let id = kairos_domain::ids::parse_id(&raw);
        if id.is_none() {
            errors.add(field, "is not an id");
        }
        id
    };
    let site = id_of("site_id", q.site_id);
    let product = id_of("product_id", q.product_id);
    if q.code.as_ref().is_some_and(|c| c.chars().count() > 50) {
        errors.add("code", "must be at most 50 characters");
    }
    errors.finish().map_err(ApiError::validation)?;
    let now = state.now();
    let candidates = match q.code.as_deref().map(str::trim).filter(|c| !c.is_empty()) {
        Some(code) => state
            .store
            .promotion_by_code(tenant.id(), code)
            .await?
            .into_iter()
            .collect(),
        None => state.store.public_promotions(tenant.id(), now).await?,
    };
    let context = Context {
        now,
        site,
        product,
        subtotal: None,
        customer_uses: None,
    };
    let promotions: Vec<PublicPromotionDto> = candidates
        .into_iter()
        .filter(|p| eligibility(&p.rules(), &context).is_ok())
        .map(|p| public_dto(p, currency))
        .collect();
    Ok(axum::Json(PublicPromotionList {
        total: promotions.len(),
        promotions,
    }))
}

/// The public promotions: switched on and not expired, running now or upcoming (a
/// used-up one is listed with `usage_remaining` 0), ordered by code.
#[utoipa::path(get, path = "/api/v1/promotions", tag = "promotions", security(()),
    responses((status = 200, body = PublicPromotionList)))]
pub async fn list_public_promotions(
    State(state): State<AppState>,
    tenant: Tenant,
) -> ApiResult<axum::Json<PublicPromotionList>> {
    let currency = tenant_currency(&tenant)?;
    let promotions: Vec<PublicPromotionDto> = state
        .store
        .public_promotions(tenant.id(), state.now())
        .await?
        .into_iter()
        .map(|p| public_dto(p, currency))
        .collect();
    Ok(axum::Json(PublicPromotionList {
        total: promotions.len(),
        promotions,
    }))
}
