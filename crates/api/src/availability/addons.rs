//! `GET /availability/products/{productId}/addons`: a product's active add-ons.

use super::slots::active_product_and_site;
use crate::catalog::{AddonDto, addon_dto};
use crate::error::{ApiError, ApiResult, ErrorBody};
use crate::extract::Tenant;
use crate::state::AppState;
use axum::extract::{Path, State};
use kairos_domain::tenancy::Currency;
use serde::Serialize;
use utoipa::ToSchema;

#[derive(Debug, Serialize, ToSchema)]
pub struct ProductAddons {
    pub product_id: String,
    pub addons: Vec<AddonDto>,
}

/// The add-ons on sale for a product.
#[utoipa::path(get, path = "/api/v1/availability/products/{productId}/addons", tag = "availability", security(()),
    params(("productId" = uuid::Uuid, Path, description = "Product id")),
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
