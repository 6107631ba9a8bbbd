//! The resources of a site: `/api/v1/admin/resources`.

use super::policies::{PolicyInput, PolicySetDto};
use crate::catalog::products::int_in;
use crate::catalog::{required_text, text};
use crate::error::{ApiError, ApiResult, ErrorBody};
use crate::extract::{Json, Query, Staff, can, choose, path_id, uuid_param};
use crate::openapi::schemas::{ResourceTypeSchema, SharedModeSchema};
use crate::state::AppState;
use axum::extract::{Path, State};
use chrono::{DateTime, Utc};
use kairos_domain::FieldErrors;
use kairos_domain::resource_policies::PolicySet;
use kairos_domain::resources::{ResourceType, SharedMode};
use kairos_store::{NewResource, Resource};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

/// A room, piece of equipment, vehicle or staff member of a site.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ResourceDto {
    pub id: Uuid,
    pub site_id: Uuid,
    #[schema(example = "Party room")]
    pub name: String,
    pub description: String,
    #[schema(value_type = ResourceTypeSchema)]
    pub resource_type: String,
    #[schema(value_type = SharedModeSchema)]
    pub shared_mode: String,
    /// EXCLUSIVE: 1; SHARED: bookings at one time; POOLED: people at one time.
    pub capacity: i32,
    pub is_active: bool,
    /// The resource group it is in, if any.
    pub group_id: Option<Uuid>,
    /// Its own booking policies (null: its group's or the default applies; see
    /// `GET /admin/resource-groups/resources/{resourceId}/effective-policies`).
    pub policies: PolicySetDto,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

pub(super) fn dto(r: Resource) -> ResourceDto {
    ResourceDto {
        id: r.id,
        site_id: r.site_id,
        name: r.name,
        description: r.description,
        resource_type: r.resource_type.as_str().to_owned(),
        shared_mode: r.shared_mode.as_str().to_owned(),
        capacity: r.capacity,
        is_active: r.is_active,
        group_id: r.group_id,
        policies: r.policies.into(),
        created_at: r.created_at,
        updated_at: r.updated_at,
    }
}

/// A resource as written; on update every field is optional and the site stays.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ResourceInput {
    /// The site it belongs to (on creation only).
    #[schema(value_type = Option<Uuid>)]
    pub site_id: Option<String>,
    #[schema(min_length = 1, max_length = 200)]
    pub name: Option<String>,
    #[schema(max_length = 5000)]
    pub description: Option<String>,
    #[schema(value_type = Option<ResourceTypeSchema>)]
    pub resource_type: Option<String>,
    /// Default EXCLUSIVE.
    #[schema(value_type = Option<SharedModeSchema>)]
    pub shared_mode: Option<String>,
    /// 1 to 10000; default 1. An EXCLUSIVE resource's is 1.
    #[schema(minimum = 1, maximum = 10000)]
    pub capacity: Option<i64>,
    pub is_active: Option<bool>,
    /// Its own booking policies: fields left out stay, `null` clears one.
    #[schema(value_type = Option<PolicyInput>)]
    pub policies: Option<serde_json::Value>,
}

crate::openapi::schemas::create_form!(
    /// The create form of [`ResourceInput`].
    ResourceCreate = ResourceInput,
    "ResourceCreate",
    ["siteId", "name", "resourceType"]
);

fn fields(
    input: ResourceInput,
    base: NewResource,
    creating: bool,
) -> Result<NewResource, FieldErrors> {
    let mut errors = FieldErrors::new();
    let site_id = if creating {
        if input.site_id.is_none() {
            errors.add("siteId", "is required");
        }
        uuid_param(&mut errors, "siteId", input.site_id.as_deref()).unwrap_or(base.site_id)
    } else {
        if input.site_id.is_some() {
            errors.add(
                "siteId",
                "cannot change: make a new resource at the other site",
            );
        }
        base.site_id
    };
    let name = match (&input.name, creating) {
        (None, false) => base.name.clone(),
        (n, _) => required_text(&mut errors, "name", n.as_deref(), 200),
    };
    let description = input
        .description
        .as_deref()
        .map_or(base.description.clone(), |d| {
            text(&mut errors, "description", d, 5000)
        });
    let resource_type = choose(
        &mut errors,
        "resourceType",
        input.resource_type.as_deref(),
        base.resource_type,
        creating,
        ResourceType::parse,
        ResourceType::choices(),
    );
    let shared_mode = choose(
        &mut errors,
        "sharedMode",
        input.shared_mode.as_deref(),
        base.shared_mode,
        false,
        SharedMode::parse,
        SharedMode::choices(),
    );
    let capacity = int_in(
        &mut errors,
        "capacity",
        input.capacity,
        base.capacity,
        1..=10_000,
    );
    // An object only (serde would also read a struct from an array).
    let policies = match input.policies {
        None => base.policies,
        Some(v) if v.is_object() => match serde_json::from_value::<PolicyInput>(v) {
            Ok(p) => p.patch(&mut errors, "policies.").apply(base.policies),
            Err(e) => {
                errors.add("policies", format!("is not valid: {e}"));
                base.policies
            }
        },
        Some(_) => {
            errors.add("policies", "must be an object");
            base.policies
        }
    };
    if shared_mode == SharedMode::Exclusive && capacity != 1 && input.capacity.is_some() {
        errors.add("capacity", "must be 1 for an EXCLUSIVE resource");
    }
    errors.finish()?;
    Ok(NewResource {
        site_id,
        name,
        description,
        resource_type,
        shared_mode,
        capacity: if shared_mode == SharedMode::Exclusive {
            1
        } else {
            capacity
        },
        is_active: input.is_active.unwrap_or(base.is_active),
        policies,
    })
}

/// Filters of the resource list.
#[derive(Debug, Default, Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query, rename_all = "camelCase")]
pub struct ResourceQuery {
    #[param(value_type = Option<Uuid>)]
    pub site_id: Option<String>,
    #[param(value_type = Option<ResourceTypeSchema>)]
    pub resource_type: Option<String>,
}

/// `{items}`.
#[derive(Debug, Serialize, ToSchema)]
pub struct ResourceList {
    pub items: Vec<ResourceDto>,
}

/// The tenant's resources, by name (inactive ones included). Needs `admin:read`.
#[utoipa::path(get, path = "/api/v1/admin/resources", tag = "resources", security(("bearer" = [])),
    params(ResourceQuery),
    responses((status = 200, body = ResourceList), (status = 400, description = "VALIDATION_ERROR", body = ErrorBody)))]
pub async fn list_resources(
    State(state): State<AppState>,
    auth: Staff<can::Read>,
    Query(q): Query<ResourceQuery>,
) -> ApiResult<axum::Json<ResourceList>> {
    let mut errors = FieldErrors::new();
    let site = uuid_param(&mut errors, "siteId", q.site_id.as_deref());
    let kind = q.resource_type.as_deref().and_then(|t| {
        let parsed = ResourceType::parse(t);
        if parsed.is_none() {
            errors.add(
                "resourceType",
                format!("must be {}", ResourceType::choices()),
            );
        }
        parsed
    });
    errors.finish().map_err(ApiError::validation)?;
    let items = state
        .store
        .list_resources(auth.tenant.id(), site, kind)
        .await?
        .into_iter()
        .map(dto)
        .collect();
    Ok(axum::Json(ResourceList { items }))
}

/// Add a resource to a site. Needs `admin:write`.
#[utoipa::path(post, path = "/api/v1/admin/resources", tag = "resources", security(("bearer" = [])),
    request_body = ResourceCreate,
    responses((status = 200, body = ResourceDto), (status = 400, description = "VALIDATION_ERROR", body = ErrorBody),
        (status = 404, description = "NOT_FOUND: the site", body = ErrorBody)))]
pub async fn create_resource(
    State(state): State<AppState>,
    auth: Staff<can::Write>,
    Json(input): Json<ResourceInput>,
) -> ApiResult<axum::Json<ResourceDto>> {
    let base = NewResource {
        site_id: Uuid::nil(),
        name: String::new(),
        description: String::new(),
        // Placeholder: creating requires it.
        resource_type: ResourceType::Other,
        shared_mode: SharedMode::Exclusive,
        capacity: 1,
        is_active: true,
        policies: PolicySet::default(),
    };
    let new = fields(input, base, true).map_err(ApiError::validation)?;
    let r = state
        .store
        .create_resource(auth.tenant.id(), new, &auth.actor(), state.now())
        .await?;
    Ok(axum::Json(dto(r)))
}

/// Read a resource. Needs `admin:read`.
#[utoipa::path(get, path = "/api/v1/admin/resources/{id}", tag = "resources", security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "Resource id")),
    responses((status = 200, body = ResourceDto), (status = 404, description = "NOT_FOUND", body = ErrorBody)))]
pub async fn get_resource(
    State(state): State<AppState>,
    auth: Staff<can::Read>,
    Path(id): Path<String>,
) -> ApiResult<axum::Json<ResourceDto>> {
    let id = path_id(&id, "Resource")?;
    Ok(axum::Json(dto(state
        .store
        .resource(auth.tenant.id(), id)
        .await?)))
}

/// Change a resource (partial; `isActive: false` takes it out of use, its allocations
/// stay). Needs `admin:write`.
#[utoipa::path(patch, path = "/api/v1/admin/resources/{id}", tag = "resources", security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "Resource id")),
    request_body = ResourceInput,
    responses((status = 200, body = ResourceDto), (status = 400, description = "VALIDATION_ERROR", body = ErrorBody),
        (status = 404, description = "NOT_FOUND", body = ErrorBody)))]
pub async fn update_resource(
    State(state): State<AppState>,
    auth: Staff<can::Write>,
    Path(id): Path<String>,
    Json(input): Json<ResourceInput>,
) -> ApiResult<axum::Json<ResourceDto>> {
    let id = path_id(&id, "Resource")?;
    let current = state.store.resource(auth.tenant.id(), id).await?;
    let base = NewResource {
        site_id: current.site_id,
        name: current.name,
        description: current.description,
        resource_type: current.resource_type,
        shared_mode: current.shared_mode,
        capacity: current.capacity,
        is_active: current.is_active,
        policies: current.policies,
    };
    let new = fields(input, base, false).map_err(ApiError::validation)?;
    let r = state
        .store
        .update_resource(auth.tenant.id(), id, new, &auth.actor(), state.now())
        .await?;
    Ok(axum::Json(dto(r)))
}
