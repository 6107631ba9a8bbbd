//! Staff skills (Part A 4.11): `/api/v1/admin/skills`. Skills are given to STAFF
//! resources at a level (1 to 5) until an optional expiry (a certification); products
//! name the skills their sessions need. Reading needs `admin:read`, changing
//! `admin:write`.

use crate::catalog::{required_text, text};
use crate::error::{ApiError, ApiResult, ErrorBody};
use crate::extract::{Json, Staff, can, path_id, timestamp_param};
use crate::state::AppState;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use chrono::{DateTime, Utc};
use kairos_domain::FieldErrors;
use kairos_store::{HeldSkill, Skill, SkillError, SkillGrant};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

impl From<SkillError> for ApiError {
    #[track_caller]
    fn from(e: SkillError) -> Self {
        match e {
            SkillError::SkillNotFound => ApiError::not_found("Skill"),
            SkillError::NameTaken => ApiError::conflict(
                kairos_app::error::code::CONFLICT,
                "A skill of this name exists already",
            ),
            SkillError::ResourceNotFound { resource_id } => ApiError::not_found("Resource")
                .with_details(serde_json::json!({"resourceId": resource_id})),
            SkillError::NotStaff { resource_id } => {
                ApiError::invalid_field("resourceId", "must be a STAFF resource")
                    .with_details(serde_json::json!({"resourceId": resource_id}))
            }
            SkillError::ProductNotFound => ApiError::not_found("Product"),
            SkillError::NotHeld => ApiError::not_found("Skill of this staff member"),
            SkillError::Store(e) => e.into(),
        }
    }
}

/// The most grants one bulk assignment makes.
const MAX_ITEMS: usize = 100;

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SkillDto {
    pub id: Uuid,
    #[schema(example = "Track marshal")]
    pub name: String,
    pub description: String,
    /// How many staff hold it (expired grants included).
    pub holders: i64,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

fn skill_dto(s: Skill) -> SkillDto {
    SkillDto {
        id: s.id,
        name: s.name,
        description: s.description,
        holders: s.holders,
        created_at: s.created_at,
        updated_at: s.updated_at,
    }
}

/// A skill held by a staff member.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct HeldSkillDto {
    pub resource_id: Uuid,
    pub resource_name: String,
    pub skill_id: Uuid,
    pub skill_name: String,
    /// 1 to 5.
    pub level: i32,
    /// Null: it does not expire.
    pub expires_at: Option<DateTime<Utc>>,
    /// Not expired now.
    pub is_valid: bool,
    pub updated_at: DateTime<Utc>,
}

pub(super) fn held_dto(h: HeldSkill, now: DateTime<Utc>) -> HeldSkillDto {
    HeldSkillDto {
        resource_id: h.resource_id,
        resource_name: h.resource_name,
        skill_id: h.skill_id,
        skill_name: h.skill_name,
        level: h.level,
        is_valid: h.expires_at.is_none_or(|e| e > now),
        expires_at: h.expires_at,
        updated_at: h.updated_at,
    }
}

/// A skill as written (`PATCH`: either field).
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SkillInput {
    #[schema(min_length = 1, max_length = 200)]
    pub name: Option<String>,
    #[schema(max_length = 2000)]
    pub description: Option<String>,
}

crate::openapi::schemas::create_form!(
    /// The create form of [`SkillInput`].
    SkillCreate = SkillInput,
    "SkillCreate",
    ["name"]
);

/// One grant of a skill.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct GrantInput {
    /// A STAFF resource.
    #[schema(required = true, format = Uuid)]
    pub resource_id: Option<String>,
    /// 1 to 5; default 1.
    #[schema(minimum = 1, maximum = 5)]
    pub level: Option<i64>,
    /// When the certification runs out; null or left out: never.
    #[schema(value_type = Option<DateTime<Utc>>)]
    pub expires_at: Option<String>,
}

/// `POST /admin/skills/assign`.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AssignSkillRequest {
    #[schema(required = true, format = Uuid)]
    pub skill_id: Option<String>,
    #[schema(required = true, format = Uuid)]
    pub resource_id: Option<String>,
    #[schema(minimum = 1, maximum = 5)]
    pub level: Option<i64>,
    #[schema(value_type = Option<DateTime<Utc>>)]
    pub expires_at: Option<String>,
}

/// `POST /admin/skills/assign/bulk`.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct BulkAssignSkillRequest {
    #[schema(required = true, format = Uuid)]
    pub skill_id: Option<String>,
    #[schema(required = true, min_items = 1, max_items = 100)]
    pub assignments: Option<Vec<GrantInput>>,
}

/// `{items}`.
#[derive(Debug, Serialize, ToSchema)]
pub struct SkillList {
    pub items: Vec<SkillDto>,
}

/// `{items}`.
#[derive(Debug, Serialize, ToSchema)]
pub struct HeldSkillList {
    pub items: Vec<HeldSkillDto>,
}

pub(super) fn level(errors: &mut FieldErrors, field: &str, given: Option<i64>) -> i32 {
    match given {
        None => 1,
        Some(l @ 1..=5) => i32::try_from(l).unwrap_or(1),
        Some(_) => {
            errors.add(field, "must be 1 to 5");
            1
        }
    }
}

fn grant(
    errors: &mut FieldErrors,
    prefix: &str,
    resource: Option<&str>,
    lvl: Option<i64>,
    expires: Option<&str>,
) -> Option<SkillGrant> {
    let resource_id = super::required_id(errors, &format!("{prefix}resourceId"), resource);
    let level = level(errors, &format!("{prefix}level"), lvl);
    let expires_at =
        expires.and_then(|e| timestamp_param(errors, &format!("{prefix}expiresAt"), e));
    Some(SkillGrant {
        resource_id: resource_id?,
        level,
        expires_at,
    })
}

/// The tenant's skills, by name. Needs `admin:read`.
#[utoipa::path(get, path = "/api/v1/admin/skills", tag = "resources", security(("bearer" = [])),
    responses((status = 200, body = SkillList)))]
pub async fn list_skills(
    State(state): State<AppState>,
    auth: Staff<can::Read>,
) -> ApiResult<axum::Json<SkillList>> {
    let items = state.store.list_skills(auth.tenant.id()).await?;
    Ok(axum::Json(SkillList {
        items: items.into_iter().map(skill_dto).collect(),
    }))
}

/// Add a skill. Needs `admin:write`.
#[utoipa::path(post, path = "/api/v1/admin/skills", tag = "resources", security(("bearer" = [])),
    request_body = SkillCreate,
    responses((status = 200, body = SkillDto), (status = 400, description = "VALIDATION_ERROR", body = ErrorBody),
        (status = 409, description = "CONFLICT: a skill of this name exists", body = ErrorBody)))]
pub async fn create_skill(
    State(state): State<AppState>,
    auth: Staff<can::Write>,
    Json(input): Json<SkillInput>,
) -> ApiResult<axum::Json<SkillDto>> {
    let mut errors = FieldErrors::new();
    let name = required_text(&mut errors, "name", input.name.as_deref(), 200);
    let description = input
        .description
        .as_deref()
        .map_or_else(String::new, |d| text(&mut errors, "description", d, 2000));
    errors.finish().map_err(ApiError::validation)?;
    let s = state
        .store
        .create_skill(
            auth.tenant.id(),
            name,
            description,
            &auth.actor(),
            state.now(),
        )
        .await?;
    Ok(axum::Json(skill_dto(s)))
}

/// Read a skill. Needs `admin:read`.
#[utoipa::path(get, path = "/api/v1/admin/skills/{id}", tag = "resources", security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "Skill id")),
    responses((status = 200, body = SkillDto), (status = 404, description = "NOT_FOUND", body = ErrorBody)))]
pub async fn get_skill(
    State(state): State<AppState>,
    auth: Staff<can::Read>,
    Path(id): Path<String>,
) -> ApiResult<axum::Json<SkillDto>> {
    let id = path_id(&id, "Skill")?;
    Ok(axum::Json(skill_dto(
        state.store.skill(auth.tenant.id(), id).await?,
    )))
}

/// Rename a skill or change its description. Needs `admin:write`.
#[utoipa::path(patch, path = "/api/v1/admin/skills/{id}", tag = "resources", security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "Skill id")),
    request_body = SkillInput,
    responses((status = 200, body = SkillDto), (status = 400, description = "VALIDATION_ERROR", body = ErrorBody),
        (status = 404, description = "NOT_FOUND", body = ErrorBody),
        (status = 409, description = "CONFLICT: a skill of this name exists", body = ErrorBody)))]
pub async fn update_skill(
    State(state): State<AppState>,
    auth: Staff<can::Write>,
    Path(id): Path<String>,
    Json(input): Json<SkillInput>,
) -> ApiResult<axum::Json<SkillDto>> {
    let id = path_id(&id, "Skill")?;
    let mut errors = FieldErrors::new();
    let name = input
        .name
        .as_deref()
        .map(|n| required_text(&mut errors, "name", Some(n), 200));
    let description = input
        .description
        .as_deref()
        .map(|d| text(&mut errors, "description", d, 2000));
    errors.finish().map_err(ApiError::validation)?;
    let s = state
        .store
        .update_skill(
            auth.tenant.id(),
            id,
            name,
            description,
            &auth.actor(),
            state.now(),
        )
        .await?;
    Ok(axum::Json(skill_dto(s)))
}

/// Delete a skill with its grants and the product requirements that name it. Needs
/// `admin:write`.
#[utoipa::path(delete, path = "/api/v1/admin/skills/{id}", tag = "resources", security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "Skill id")),
    responses((status = 204, description = "Deleted"), (status = 404, description = "NOT_FOUND", body = ErrorBody)))]
pub async fn delete_skill(
    State(state): State<AppState>,
    auth: Staff<can::Write>,
    Path(id): Path<String>,
) -> ApiResult<StatusCode> {
    let id = path_id(&id, "Skill")?;
    state
        .store
        .delete_skill(auth.tenant.id(), id, &auth.actor(), state.now())
        .await?;
    Ok(StatusCode::NO_CONTENT)
}

/// Give a skill to a staff member (again: a new level and expiry). Needs `admin:write`.
#[utoipa::path(post, path = "/api/v1/admin/skills/assign", tag = "resources", security(("bearer" = [])),
    request_body = AssignSkillRequest,
    responses((status = 200, body = HeldSkillDto),
        (status = 400, description = "VALIDATION_ERROR; a resource that is not STAFF", body = ErrorBody),
        (status = 404, description = "NOT_FOUND: the skill or the resource", body = ErrorBody)))]
pub async fn assign_skill(
    State(state): State<AppState>,
    auth: Staff<can::Write>,
    Json(req): Json<AssignSkillRequest>,
) -> ApiResult<axum::Json<HeldSkillDto>> {
    let mut errors = FieldErrors::new();
    let skill = super::required_id(&mut errors, "skillId", req.skill_id.as_deref());
    let g = grant(
        &mut errors,
        "",
        req.resource_id.as_deref(),
        req.level,
        req.expires_at.as_deref(),
    );
    let (Some(skill), Some(g), true) = (skill, g, errors.is_empty()) else {
        return Err(ApiError::validation(errors));
    };
    let now = state.now();
    let mut held = state
        .store
        .grant_skill(auth.tenant.id(), skill, vec![g], &auth.actor(), now)
        .await?;
    let h = held
        .pop()
        .ok_or_else(|| ApiError::internal("granted nothing"))?;
    Ok(axum::Json(held_dto(h, now)))
}

/// Give a skill to several staff members at once, all or none. Needs `admin:write`.
#[utoipa::path(post, path = "/api/v1/admin/skills/assign/bulk", tag = "resources", security(("bearer" = [])),
    request_body = BulkAssignSkillRequest,
    responses((status = 200, body = HeldSkillList),
        (status = 400, description = "VALIDATION_ERROR; a resource that is not STAFF", body = ErrorBody),
        (status = 404, description = "NOT_FOUND: the skill or a resource", body = ErrorBody)))]
pub async fn assign_skill_bulk(
    State(state): State<AppState>,
    auth: Staff<can::Write>,
    Json(req): Json<BulkAssignSkillRequest>,
) -> ApiResult<axum::Json<HeldSkillList>> {
    let mut errors = FieldErrors::new();
    let skill = super::required_id(&mut errors, "skillId", req.skill_id.as_deref());
    let given = req.assignments.unwrap_or_default();
    if given.is_empty() || given.len() > MAX_ITEMS {
        errors.add("assignments", format!("must list 1 to {MAX_ITEMS} grants"));
    }
    let mut grants = Vec::new();
    for (i, a) in given.iter().enumerate() {
        let prefix = format!("assignments[{i}].");
        if let Some(g) = grant(
            &mut errors,
            &prefix,
            a.resource_id.as_deref(),
            a.level,
            a.expires_at.as_deref(),
        ) {
            if grants
                .iter()
                .any(|o: &SkillGrant| o.resource_id == g.resource_id)
            {
                errors.add(format!("{prefix}resourceId"), "is listed twice");
            }
            grants.push(g);
        }
    }
    let (Some(skill), true) = (skill, errors.is_empty()) else {
        return Err(ApiError::validation(errors));
    };
    let now = state.now();
    let held = state
        .store
        .grant_skill(auth.tenant.id(), skill, grants, &auth.actor(), now)
        .await?;
    Ok(axum::Json(HeldSkillList {
        items: held.into_iter().map(|h| held_dto(h, now)).collect(),
    }))
}

/// Take a skill from a staff member. Needs `admin:write`.
#[utoipa::path(delete, path = "/api/v1/admin/skills/resources/{resourceId}/skills/{skillId}", tag = "resources", security(("bearer" = [])),
    params(("resourceId" = Uuid, Path, description = "Resource id"), ("skillId" = Uuid, Path, description = "Skill id")),
    responses((status = 204, description = "Removed"), (status = 404, description = "NOT_FOUND: the staff member does not hold it", body = ErrorBody)))]
pub async fn remove_skill(
    State(state): State<AppState>,
    auth: Staff<can::Write>,
    Path((resource, skill)): Path<(String, String)>,
) -> ApiResult<StatusCode> {
    let resource = path_id(&resource, "Resource")?;
    let skill = path_id(&skill, "Skill")?;
    state
        .store
        .revoke_skill(
            auth.tenant.id(),
            resource,
            skill,
            &auth.actor(),
            state.now(),
        )
        .await?;
    Ok(StatusCode::NO_CONTENT)
}

/// The skills a staff member holds, expired ones included (`isValid` false). Needs
/// `admin:read`.
#[utoipa::path(get, path = "/api/v1/admin/skills/resources/{resourceId}", tag = "resources", security(("bearer" = [])),
    params(("resourceId" = Uuid, Path, description = "Resource id")),
    responses((status = 200, body = HeldSkillList), (status = 404, description = "NOT_FOUND", body = ErrorBody)))]
pub async fn resource_skills(
    State(state): State<AppState>,
    auth: Staff<can::Read>,
    Path(resource): Path<String>,
) -> ApiResult<axum::Json<HeldSkillList>> {
    let resource = path_id(&resource, "Resource")?;
    let now = state.now();
    let held = state.store.held_skills(auth.tenant.id(), resource).await?;
    Ok(axum::Json(HeldSkillList {
        items: held.into_iter().map(|h| held_dto(h, now)).collect(),
    }))
}
