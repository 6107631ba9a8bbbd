//! The public gift card catalogue (spec Part A 4.10): active products, with only the
//! tenant header.

use super::error::product_not_found;
use super::products::{GiftCardProductDto, currency_of, product_dto};
use crate::error::{ApiError, ApiResult, ErrorBody};
use crate::extract::{Query, Tenant, uuid_param};
use crate::state::AppState;
use axum::extract::{Path, State};
use kairos_domain::FieldErrors;
use kairos_store::GiftCardProductFilter;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

/// Query of the public catalogue.
#[derive(Debug, Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query, rename_all = "camelCase")]
pub struct CatalogueQuery {
    /// Products of this site and those for every site.
    #[param(value_type = Option<uuid::Uuid>)]
    pub site_id: Option<String>,
}

/// `{items}` in display order.
#[derive(Debug, Serialize, ToSchema)]
pub struct GiftCardCatalogue {
    pub items: Vec<GiftCardProductDto>,
}

/// The gift cards on sale. Public (tenant header only).
#[utoipa::path(get, path = "/api/v1/gift-cards/products", tag = "gift-cards", security(()),
    params(CatalogueQuery),
    responses((status = 200, body = GiftCardCatalogue),
        (status = 400, description = "VALIDATION_ERROR", body = ErrorBody)))]
pub async fn list_catalogue(
    State(state): State<AppState>,
    tenant: Tenant,
    Query(q): Query<CatalogueQuery>,
) -> ApiResult<axum::Json<GiftCardCatalogue>> {
    let mut errors = FieldErrors::new();
    let site_id = uuid_param(&mut errors, "siteId", q.site_id.as_deref());
    errors.finish().map_err(ApiError::validation)?;
    let currency = currency_of(&tenant)?;
    let (items, _) = state
        .store
        .list_gift_card_products(
            tenant.id(),
            &GiftCardProductFilter {
                is_active: Some(true),
                site_id,
                page: 1,
                limit: 100,
            },
        )
        .await?;
    Ok(axum::Json(GiftCardCatalogue {
        items: items
            .into_iter()
            .map(|p| product_dto(p, currency))
            .collect(),
    }))
}

/// One gift card on sale. Public (tenant header only).
#[utoipa::path(get, path = "/api/v1/gift-cards/products/{id}", tag = "gift-cards", security(()),
    params(("id" = uuid::Uuid, Path)),
    responses((status = 200, body = GiftCardProductDto),
        (status = 404, description = "GIFT_CARD_PRODUCT_NOT_FOUND: missing or inactive", body = ErrorBody)))]
pub async fn get_catalogue_product(
    State(state): State<AppState>,
    tenant: Tenant,
    Path(id): Path<String>,
) -> ApiResult<axum::Json<GiftCardProductDto>> {
    let id = kairos_domain::ids::parse_id(&id).ok_or_else(product_not_found)?;
    let product = state
        .store
        .get_gift_card_product(tenant.id(), id)
        .await?
        .filter(|p| p.fields.is_active)
        .ok_or_else(product_not_found)?;
    Ok(axum::Json(product_dto(product, currency_of(&tenant)?)))
}
