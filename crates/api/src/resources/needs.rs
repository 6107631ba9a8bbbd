//! What every session of a product needs (spec Part B 4.12): the resources it names,
//! beside the skills of `…/skills/products/{productId}/requirements`.

use crate::error::{ApiError, ApiResult, ErrorBody};
use crate::extract::{Json, Staff, can, path_id};
use crate::state::AppState;
use axum::extract::{Path, State};
use kairos_domain::FieldErrors;
use kairos_store::ProductResource;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

/// The most resources one product's sessions need.
const MAX_RESOURCES: usize = 20;

/// A resource every session of the product needs.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProductResourceDto {
    pub resource_id: Uuid,
    pub name: String,
    /// ROOM, EQUIPMENT, VEHICLE, STAFF or OTHER.
    pub resource_type: String,
    /// EXCLUSIVE (one session at a time), SHARED (sessions up to its capacity) or POOLED
    /// (one unit per person booked, up to its capacity).
    pub shared_mode: String,
    /// An inactive resource offers no session.
    pub is_active: bool,
}

/// `{items}`.
#[derive(Debug, Serialize, ToSchema)]
pub struct ProductResourceList {
    pub items: Vec<ProductResourceDto>,
}

/// `PUT /admin/products/{id}/resources`: the whole set (an empty list clears it).
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProductResourcesRequest {
    #[schema(required = true, max_items = 20, value_type = Vec<Uuid>)]
    pub resource_ids: Option<Vec<String>>,
}

fn list(items: Vec<ProductResource>) -> ProductResourceList {
    ProductResourceList {
        items: items
            .into_iter()
            .map(|r| ProductResourceDto {
                resource_id: r.resource_id,
                name: r.name,
                resource_type: r.resource_type.as_str().to_owned(),
                shared_mode: r.shared_mode.as_str().to_owned(),
                is_active: r.is_active,
            })
            .collect(),
    }
}

/// Set the resources every session of a product needs (rooms, tracks, a pool of kayaks),
/// each at the product's site. A session is offered only while they are free for it,
/// setup and cleanup included; its first booking takes them for the session. Sessions
/// that have a booking keep what they were given. Needs `admin:write`.
#[utoipa::path(put, path = "/api/v1/admin/products/{id}/resources", tag = "resources", security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "Product id")),
    request_body = ProductResourcesRequest,
    responses((status = 200, body = ProductResourceList),
        (status = 400, description = "VALIDATION_ERROR: a bad id, one listed twice, or a resource of another site", body = ErrorBody),
        (status = 404, description = "NOT_FOUND: the product or a resource", body = ErrorBody)))]
pub async fn set_product_resources(
    State(state): State<AppState>,
    auth: Staff<can::Write>,
    Path(product): Path<String>,
    Json(req): Json<ProductResourcesRequest>,
) -> ApiResult<axum::Json<ProductResourceList>> {
    let product = path_id(&product, "Product")?;
    let mut errors = FieldErrors::new();
    let given = req.resource_ids.unwrap_or_else(|| {
        errors.add("resourceIds", "is required (an empty list clears them)");
        Vec::new()
    });
    if given.len() > MAX_RESOURCES {
        errors.add(
            "resourceIds",
            format!("must list at most {MAX_RESOURCES} resources"),
        );
    }
    let mut ids: Vec<Uuid> = Vec::new();
    for (i, raw) in given.iter().enumerate() {
        let field = format!("resourceIds[{i}]");
        if let Some(id) = super::required_id(&mut errors, &field, Some(raw)) {
            if ids.contains(&id) {
                errors.add(field, "is listed twice");
            }
            ids.push(id);
        }
    }
    errors.finish().map_err(ApiError::validation)?;
    let set = state
        .store
        .set_product_resources(auth.tenant.id(), product, ids, &auth.actor(), state.now())
        .await?;
    Ok(axum::Json(list(set)))
}

/// The resources every session of a product needs. Needs `admin:read`.
#[utoipa::path(get, path = "/api/v1/admin/products/{id}/resources", tag = "resources", security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "Product id")),
    responses((status = 200, body = ProductResourceList), (status = 404, description = "NOT_FOUND", body = ErrorBody)))]
pub async fn get_product_resources(
    State(state): State<AppState>,
    auth: Staff<can::Read>,
    Path(product): Path<String>,
) -> ApiResult<axum::Json<ProductResourceList>> {
    let product = path_id(&product, "Product")?;
    let set = state
        .store
        .product_resources(auth.tenant.id(), product)
        .await?;
    Ok(axum::Json(list(set)))
}
