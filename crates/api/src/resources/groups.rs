//! Resource groups (Part A 4.11): `/api/v1/admin/resource-groups`. A group gathers
//! resources of one site under one set of booking policies; a resource is in at most one
//! group. Reading needs `admin:read`, changing `admin:write`.

use super::admin::{ResourceDto, dto};
use super::policies::{PoliciesDto, PolicyInput, PolicySetDto, sources};
use super::required_id;
use crate::catalog::{required_text, text};
use crate::error::{ApiError, ApiResult, ErrorBody};
use crate::extract::{Json, Query, Staff, can, path_id, uuid_param};
use crate::state::AppState;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use chrono::{DateTime, Utc};
use kairos_domain::FieldErrors;
use kairos_domain::ids::parse_id;
use kairos_domain::resource_policies::effective;
use kairos_store::{NewResourceGroup, ResourceGroup};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

/// The most resources one bulk assignment moves.
const MAX_BULK: usize = 100;

/// A resource group.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct GroupDto {
    pub id: Uuid,
    pub site_id: Uuid,
    #[schema(example = "Party rooms")]
    pub name: String,
    pub description: String,
    /// The group's booking policies (null: the resource's own or the default decides).
    pub policies: PolicySetDto,
    pub resource_count: i64,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

fn group_dto(g: ResourceGroup) -> GroupDto {
    GroupDto {
        id: g.id,
        site_id: g.site_id,
        name: g.name,
        description: g.description,
        policies: g.policies.into(),
        resource_count: g.resource_count,
        created_at: g.created_at,
        updated_at: g.updated_at,
    }
}

/// A group as written; on update `siteId` is refused (a group stays at its site).
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct GroupInput {
    #[schema(value_type = Option<Uuid>)]
    pub site_id: Option<String>,
    #[schema(min_length = 1, max_length = 200)]
    pub name: Option<String>,
    #[schema(max_length = 2000)]
    pub description: Option<String>,
}

crate::openapi::schemas::create_form!(
    /// The create form of [`GroupInput`].
    GroupCreate = GroupInput,
    "ResourceGroupCreate",
    ["siteId", "name"]
);

/// Filters of the group list.
#[derive(Debug, Default, Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query, rename_all = "camelCase")]
pub struct GroupQuery {
    #[param(value_type = Option<Uuid>)]
    pub site_id: Option<String>,
}

/// `{items}`.
#[derive(Debug, Serialize, ToSchema)]
pub struct GroupList {
    pub items: Vec<GroupDto>,
}

/// `{items}`: resources.
#[derive(Debug, Serialize, ToSchema)]
pub struct GroupResources {
    pub items: Vec<ResourceDto>,
}

/// `POST /admin/resource-groups/assign`.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AssignRequest {
    #[schema(required = true, format = Uuid)]
    pub group_id: Option<String>,
    #[schema(required = true, format = Uuid)]
    pub resource_id: Option<String>,
}

/// `POST /admin/resource-groups/assign/bulk`.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct BulkAssignRequest {
    #[schema(required = true, format = Uuid)]
    pub group_id: Option<String>,
    /// 1 to 100 resources of the group's site.
    #[schema(required = true, min_items = 1, max_items = 100, value_type = Option<Vec<Uuid>>)]
    pub resource_ids: Option<Vec<String>>,
}

/// A resource's booking policies as they apply.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct EffectivePolicies {
    pub resource_id: Uuid,
    pub group_id: Option<Uuid>,
    pub group_name: Option<String>,
    /// Each policy: the resource's own when set, else its group's, else the default.
    pub policies: PoliciesDto,
    /// Where each policy comes from: `resource`, `group` or `default`.
    #[schema(value_type = Object, example = json!({"minLeadMins": "group", "bufferAfterMins": "default"}))]
    pub sources: BTreeMap<String, String>,
    pub resource_policies: PolicySetDto,
    pub group_policies: Option<PolicySetDto>,
}

/// The tenant's resource groups (of one site), by name. Needs `admin:read`.
#[utoipa::path(get, path = "/api/v1/admin/resource-groups", tag = "resources", security(("bearer" = [])),
    params(GroupQuery),
    responses((status = 200, body = GroupList), (status = 400, description = "VALIDATION_ERROR", body = ErrorBody)))]
pub async fn list_groups(
    State(state): State<AppState>,
    auth: Staff<can::Read>,
    Query(q): Query<GroupQuery>,
) -> ApiResult<axum::Json<GroupList>> {
    let mut errors = FieldErrors::new();
    let site = uuid_param(&mut errors, "siteId", q.site_id.as_deref());
    errors.finish().map_err(ApiError::validation)?;
    let items = state
        .store
        .list_resource_groups(auth.tenant.id(), site)
        .await?
        .into_iter()
        .map(group_dto)
        .collect();
    Ok(axum::Json(GroupList { items }))
}

/// Add a resource group to a site (its policies: `PATCH …/{id}/policies`). Needs
/// `admin:write`.
#[utoipa::path(post, path = "/api/v1/admin/resource-groups", tag = "resources", security(("bearer" = [])),
    request_body = GroupCreate,
    responses((status = 200, body = GroupDto), (status = 400, description = "VALIDATION_ERROR", body = ErrorBody),
        (status = 404, description = "NOT_FOUND: the site", body = ErrorBody),
        (status = 409, description = "CONFLICT: the site has a group of this name", body = ErrorBody)))]
pub async fn create_group(
    State(state): State<AppState>,
    auth: Staff<can::Write>,
    Json(input): Json<GroupInput>,
) -> ApiResult<axum::Json<GroupDto>> {
    let mut errors = FieldErrors::new();
    let site_id = required_id(&mut errors, "siteId", input.site_id.as_deref());
    let name = required_text(&mut errors, "name", input.name.as_deref(), 200);
    let description = input
        .description
        .as_deref()
        .map_or_else(String::new, |d| text(&mut errors, "description", d, 2000));
    errors.finish().map_err(ApiError::validation)?;
    let g = state
        .store
        .create_resource_group(
            auth.tenant.id(),
            NewResourceGroup {
                site_id: site_id.unwrap_or_default(),
                name,
                description,
            },
            &auth.actor(),
            state.now(),
        )
        .await?;
    Ok(axum::Json(group_dto(g)))
}

/// Read a resource group. Needs `admin:read`.
#[utoipa::path(get, path = "/api/v1/admin/resource-groups/{id}", tag = "resources", security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "Resource group id")),
    responses((status = 200, body = GroupDto), (status = 404, description = "NOT_FOUND", body = ErrorBody)))]
pub async fn get_group(
    State(state): State<AppState>,
    auth: Staff<can::Read>,
    Path(id): Path<String>,
) -> ApiResult<axum::Json<GroupDto>> {
    let id = path_id(&id, "Resource group")?;
    let g = state.store.resource_group(auth.tenant.id(), id).await?;
    Ok(axum::Json(group_dto(g)))
}

/// Rename a resource group or change its description. Needs `admin:write`.
#[utoipa::path(patch, path = "/api/v1/admin/resource-groups/{id}", tag = "resources", security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "Resource group id")),
    request_body = GroupInput,
    responses((status = 200, body = GroupDto), (status = 400, description = "VALIDATION_ERROR", body = ErrorBody),
        (status = 404, description = "NOT_FOUND", body = ErrorBody),
        (status = 409, description = "CONFLICT: the site has a group of this name", body = ErrorBody)))]
pub async fn update_group(
    State(state): State<AppState>,
    auth: Staff<can::Write>,
    Path(id): Path<String>,
    Json(input): Json<GroupInput>,
) -> ApiResult<axum::Json<GroupDto>> {
    let id = path_id(&id, "Resource group")?;
    let mut errors = FieldErrors::new();
    if input.site_id.is_some() {
        errors.add(
            "siteId",
            "cannot change: make a new group at the other site",
        );
    }
    let name = input
        .name
        .as_deref()
        .map(|n| required_text(&mut errors, "name", Some(n), 200));
    let description = input
        .description
        .as_deref()
        .map(|d| text(&mut errors, "description", d, 2000));
    errors.finish().map_err(ApiError::validation)?;
    let g = state
        .store
        .update_resource_group(
            auth.tenant.id(),
            id,
            name,
            description,
            &auth.actor(),
            state.now(),
        )
        .await?;
    Ok(axum::Json(group_dto(g)))
}

/// Delete a resource group: its resources stay, in no group, with their own policies.
/// Needs `admin:write`.
#[utoipa::path(delete, path = "/api/v1/admin/resource-groups/{id}", tag = "resources", security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "Resource group id")),
    responses((status = 204, description = "Deleted"), (status = 404, description = "NOT_FOUND", body = ErrorBody)))]
pub async fn delete_group(
    State(state): State<AppState>,
    auth: Staff<can::Write>,
    Path(id): Path<String>,
) -> ApiResult<StatusCode> {
    let id = path_id(&id, "Resource group")?;
    state
        .store
        .delete_resource_group(auth.tenant.id(), id, &auth.actor(), state.now())
        .await?;
    Ok(StatusCode::NO_CONTENT)
}

/// The resources of a group, by name. Needs `admin:read`.
#[utoipa::path(get, path = "/api/v1/admin/resource-groups/{id}/resources", tag = "resources", security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "Resource group id")),
    responses((status = 200, body = GroupResources), (status = 404, description = "NOT_FOUND", body = ErrorBody)))]
pub async fn group_resources(
    State(state): State<AppState>,
    auth: Staff<can::Read>,
    Path(id): Path<String>,
) -> ApiResult<axum::Json<GroupResources>> {
    let id = path_id(&id, "Resource group")?;
    let items = state
        .store
        .group_resources(auth.tenant.id(), id)
        .await?
        .into_iter()
        .map(dto)
        .collect();
    Ok(axum::Json(GroupResources { items }))
}

/// Put a resource in a group (out of the group it was in). Needs `admin:write`.
#[utoipa::path(post, path = "/api/v1/admin/resource-groups/assign", tag = "resources", security(("bearer" = [])),
    request_body = AssignRequest,
    responses((status = 200, body = ResourceDto),
        (status = 400, description = "VALIDATION_ERROR; a resource of another site than the group's", body = ErrorBody),
        (status = 404, description = "NOT_FOUND: the group or the resource", body = ErrorBody)))]
pub async fn assign(
    State(state): State<AppState>,
    auth: Staff<can::Write>,
    Json(req): Json<AssignRequest>,
) -> ApiResult<axum::Json<ResourceDto>> {
    let mut errors = FieldErrors::new();
    let group = required_id(&mut errors, "groupId", req.group_id.as_deref());
    let resource = required_id(&mut errors, "resourceId", req.resource_id.as_deref());
    let (Some(group), Some(resource), true) = (group, resource, errors.is_empty()) else {
        return Err(ApiError::validation(errors));
    };
    let mut done = state
        .store
        .assign_resources(
            auth.tenant.id(),
            group,
            vec![resource],
            &auth.actor(),
            state.now(),
        )
        .await?;
    let r = done
        .pop()
        .ok_or_else(|| ApiError::internal("assigned nothing"))?;
    Ok(axum::Json(dto(r)))
}

/// Put several resources in a group at once, all or none. Needs `admin:write`.
#[utoipa::path(post, path = "/api/v1/admin/resource-groups/assign/bulk", tag = "resources", security(("bearer" = [])),
    request_body = BulkAssignRequest,
    responses((status = 200, body = GroupResources),
        (status = 400, description = "VALIDATION_ERROR; a resource of another site than the group's", body = ErrorBody),
        (status = 404, description = "NOT_FOUND: the group or a resource", body = ErrorBody)))]
pub async fn assign_bulk(
    State(state): State<AppState>,
    auth: Staff<can::Write>,
    Json(req): Json<BulkAssignRequest>,
) -> ApiResult<axum::Json<GroupResources>> {
    let mut errors = FieldErrors::new();
    let group = required_id(&mut errors, "groupId", req.group_id.as_deref());
    let raw = req.resource_ids.unwrap_or_default();
    if raw.is_empty() || raw.len() > MAX_BULK {
        errors.add(
            "resourceIds",
            format!("must list 1 to {MAX_BULK} resources"),
        );
    }
    let mut ids = Vec::new();
    for (i, r) in raw.iter().enumerate() {
        match parse_id(r) {
            Some(id) if !ids.contains(&id) => ids.push(id),
            Some(_) => errors.add(format!("resourceIds[{i}]"), "is listed twice"),
            None => errors.add(format!("resourceIds[{i}]"), "is not an id"),
        }
    }
    let (Some(group), true) = (group, errors.is_empty()) else {
        return Err(ApiError::validation(errors));
    };
    let items = state
        .store
        .assign_resources(auth.tenant.id(), group, ids, &auth.actor(), state.now())
        .await?
        .into_iter()
        .map(dto)
        .collect();
    Ok(axum::Json(GroupResources { items }))
}

/// Take a resource out of its group (its own policies stay). Needs `admin:write`.
#[utoipa::path(delete, path = "/api/v1/admin/resource-groups/unassign/{resourceId}", tag = "resources", security(("bearer" = [])),
    params(("resourceId" = Uuid, Path, description = "Resource id")),
    responses((status = 200, body = ResourceDto), (status = 404, description = "NOT_FOUND", body = ErrorBody)))]
pub async fn unassign(
    State(state): State<AppState>,
    auth: Staff<can::Write>,
    Path(resource): Path<String>,
) -> ApiResult<axum::Json<ResourceDto>> {
    let id = path_id(&resource, "Resource")?;
    let r = state
        .store
        .unassign_resource(auth.tenant.id(), id, &auth.actor(), state.now())
        .await?;
    Ok(axum::Json(dto(r)))
}

/// Change a group's booking policies: a field left out stays, `null` clears it, a value
/// sets it. Each applies to the group's resources that do not set it themselves. Needs
/// `admin:write`.
#[utoipa::path(patch, path = "/api/v1/admin/resource-groups/{id}/policies", tag = "resources", security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "Resource group id")),
    request_body = PolicyInput,
    responses((status = 200, body = GroupDto), (status = 400, description = "VALIDATION_ERROR", body = ErrorBody),
        (status = 404, description = "NOT_FOUND", body = ErrorBody)))]
pub async fn patch_policies(
    State(state): State<AppState>,
    auth: Staff<can::Write>,
    Path(id): Path<String>,
    Json(input): Json<PolicyInput>,
) -> ApiResult<axum::Json<GroupDto>> {
    let id = path_id(&id, "Resource group")?;
    let mut errors = FieldErrors::new();
    let patch = input.patch(&mut errors, "");
    errors.finish().map_err(ApiError::validation)?;
    let g = state
        .store
        .patch_group_policies(auth.tenant.id(), id, patch, &auth.actor(), state.now())
        .await?;
    Ok(axum::Json(group_dto(g)))
}

/// A resource's booking policies as they apply: each its own when set, else its group's,
/// else the default, with where each comes from. Needs `admin:read`.
#[utoipa::path(get, path = "/api/v1/admin/resource-groups/resources/{resourceId}/effective-policies", tag = "resources", security(("bearer" = [])),
    params(("resourceId" = Uuid, Path, description = "Resource id")),
    responses((status = 200, body = EffectivePolicies), (status = 404, description = "NOT_FOUND", body = ErrorBody)))]
pub async fn effective_policies(
    State(state): State<AppState>,
    auth: Staff<can::Read>,
    Path(resource): Path<String>,
) -> ApiResult<axum::Json<EffectivePolicies>> {
    let id = path_id(&resource, "Resource")?;
    let (r, group) = state
        .store
        .resource_with_group(auth.tenant.id(), id)
        .await?;
    let (policies, from) = effective(&r.policies, group.as_ref().map(|g| &g.policies));
    Ok(axum::Json(EffectivePolicies {
        resource_id: r.id,
        group_id: group.as_ref().map(|g| g.id),
        group_name: group.as_ref().map(|g| g.name.clone()),
        policies: policies.into(),
        sources: sources(from),
        resource_policies: r.policies.into(),
        group_policies: group.map(|g| g.policies.into()),
    }))
}
