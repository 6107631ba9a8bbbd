//! What staff skills are for (Part A 4.11): the skills a product's sessions need, grants
//! running out, and who is qualified and free for a time range.

use super::required_id;
use super::skills::{HeldSkillList, held_dto, level};
use crate::error::{ApiError, ApiResult, ErrorBody};
use crate::extract::{Json, Query, Staff, can, path_id, timestamp_param};
use crate::state::AppState;
use axum::extract::{Path, State};
use chrono::{DateTime, Duration, Utc};
use kairos_domain::FieldErrors;
use kairos_store::SkillRequirement;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

/// The most skills one product needs.
const MAX_REQUIREMENTS: usize = 20;

/// A skill a product's sessions need.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RequirementDto {
    pub skill_id: Uuid,
    pub skill_name: String,
    pub min_level: i32,
}

fn requirement_dto(r: SkillRequirement) -> RequirementDto {
    RequirementDto {
        skill_id: r.skill_id,
        skill_name: r.skill_name,
        min_level: r.min_level,
    }
}

/// `{items}`.
#[derive(Debug, Serialize, ToSchema)]
pub struct RequirementList {
    pub items: Vec<RequirementDto>,
}

/// One requirement as written.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RequirementInput {
    #[schema(required = true, format = Uuid)]
    pub skill_id: Option<String>,
    /// 1 to 5; default 1.
    #[schema(minimum = 1, maximum = 5)]
    pub min_level: Option<i64>,
}

/// `POST /admin/skills/products/{productId}/requirements`: the whole set (an empty list
/// removes every requirement).
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RequirementsRequest {
    #[schema(required = true, max_items = 20)]
    pub requirements: Option<Vec<RequirementInput>>,
}

/// Query of the expiring list.
#[derive(Debug, Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query, rename_all = "camelCase")]
pub struct ExpiringQuery {
    /// Grants that expire within this many days from now (1 to 365; default 30).
    #[param(minimum = 1, maximum = 365)]
    pub within_days: Option<i64>,
}

/// Query of staff availability.
#[derive(Debug, Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query, rename_all = "camelCase")]
pub struct AvailabilityQuery {
    #[param(value_type = Uuid, required = true)]
    pub skill_id: Option<String>,
    /// The range (RFC 3339), at most 31 days long.
    #[param(value_type = DateTime<Utc>, required = true)]
    pub starts_at: Option<String>,
    #[param(value_type = DateTime<Utc>, required = true)]
    pub ends_at: Option<String>,
    /// 1 to 5; default 1.
    #[param(minimum = 1, maximum = 5)]
    pub min_level: Option<i64>,
}

/// A qualified staff member.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct QualifiedDto {
    pub resource_id: Uuid,
    pub name: String,
    pub level: i32,
    pub expires_at: Option<DateTime<Utc>>,
    /// Nothing of theirs meets the range: no live allocation, no session with a booking.
    pub is_free: bool,
}

/// Who is qualified for the skill over the range.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct StaffAvailability {
    pub skill_id: Uuid,
    pub starts_at: DateTime<Utc>,
    pub ends_at: DateTime<Utc>,
    pub min_level: i32,
    pub items: Vec<QualifiedDto>,
    /// How many of them are free.
    pub free_count: usize,
}

/// Set the skills a product's sessions need (the whole set; an empty list clears it).
/// Needs `admin:write`.
#[utoipa::path(post, path = "/api/v1/admin/skills/products/{productId}/requirements", tag = "resources", security(("bearer" = [])),
    params(("productId" = Uuid, Path, description = "Product id")),
    request_body = RequirementsRequest,
    responses((status = 200, body = RequirementList), (status = 400, description = "VALIDATION_ERROR", body = ErrorBody),
        (status = 404, description = "NOT_FOUND: the product or a skill", body = ErrorBody)))]
pub async fn set_requirements(
    State(state): State<AppState>,
    auth: Staff<can::Write>,
    Path(product): Path<String>,
    Json(req): Json<RequirementsRequest>,
) -> ApiResult<axum::Json<RequirementList>> {
    let product = path_id(&product, "Product")?;
    let mut errors = FieldErrors::new();
    let given = match req.requirements {
        None => {
            errors.add("requirements", "is required (an empty list clears them)");
            Vec::new()
        }
        Some(list) => list,
    };
    if given.len() > MAX_REQUIREMENTS {
        errors.add(
            "requirements",
            format!("must list at most {MAX_REQUIREMENTS} skills"),
        );
    }
    let mut out: Vec<(Uuid, i32)> = Vec::new();
    for (i, r) in given.iter().enumerate() {
        let skill = required_id(
            &mut errors,
            &format!("requirements[{i}].skillId"),
            r.skill_id.as_deref(),
        );
        let min = level(
            &mut errors,
            &format!("requirements[{i}].minLevel"),
            r.min_level,
        );
        if let Some(skill) = skill {
            if out.iter().any(|(s, _)| *s == skill) {
                errors.add(format!("requirements[{i}].skillId"), "is listed twice");
            }
            out.push((skill, min));
        }
    }
    errors.finish().map_err(ApiError::validation)?;
    let set = state
        .store
        .set_skill_requirements(auth.tenant.id(), product, out, &auth.actor(), state.now())
        .await?;
    Ok(axum::Json(RequirementList {
        items: set.into_iter().map(requirement_dto).collect(),
    }))
}

/// The skills a product's sessions need. Needs `admin:read`.
#[utoipa::path(get, path = "/api/v1/admin/skills/products/{productId}/requirements", tag = "resources", security(("bearer" = [])),
    params(("productId" = Uuid, Path, description = "Product id")),
    responses((status = 200, body = RequirementList), (status = 404, description = "NOT_FOUND", body = ErrorBody)))]
pub async fn get_requirements(
    State(state): State<AppState>,
    auth: Staff<can::Read>,
    Path(product): Path<String>,
) -> ApiResult<axum::Json<RequirementList>> {
    let product = path_id(&product, "Product")?;
    let set = state
        .store
        .skill_requirements(auth.tenant.id(), product)
        .await?;
    Ok(axum::Json(RequirementList {
        items: set.into_iter().map(requirement_dto).collect(),
    }))
}

/// Grants that run out within the next `withinDays` days, soonest first (renew the
/// certification). Needs `admin:read`.
#[utoipa::path(get, path = "/api/v1/admin/skills/expiring", tag = "resources", security(("bearer" = [])),
    params(ExpiringQuery),
    responses((status = 200, body = HeldSkillList), (status = 400, description = "VALIDATION_ERROR", body = ErrorBody)))]
pub async fn expiring(
    State(state): State<AppState>,
    auth: Staff<can::Read>,
    Query(q): Query<ExpiringQuery>,
) -> ApiResult<axum::Json<HeldSkillList>> {
    let days = q.within_days.unwrap_or(30);
    if !(1..=365).contains(&days) {
        return Err(ApiError::invalid_field("withinDays", "must be 1 to 365"));
    }
    let now = state.now();
    let held = state
        .store
        .expiring_skills(auth.tenant.id(), now, now + Duration::days(days))
        .await?;
    Ok(axum::Json(HeldSkillList {
        items: held.into_iter().map(|h| held_dto(h, now)).collect(),
    }))
}

/// Staff qualified for a skill over a time range: active STAFF resources holding it at
/// `minLevel` or above, not expiring before the range ends, each marked free when none
/// of their allocations or sessions meets it. Needs `admin:read`.
#[utoipa::path(get, path = "/api/v1/admin/skills/availability", tag = "resources", security(("bearer" = [])),
    params(AvailabilityQuery),
    responses((status = 200, body = StaffAvailability), (status = 400, description = "VALIDATION_ERROR", body = ErrorBody),
        (status = 404, description = "NOT_FOUND: the skill", body = ErrorBody)))]
pub async fn availability(
    State(state): State<AppState>,
    auth: Staff<can::Read>,
    Query(q): Query<AvailabilityQuery>,
) -> ApiResult<axum::Json<StaffAvailability>> {
    let mut errors = FieldErrors::new();
    let skill = required_id(&mut errors, "skillId", q.skill_id.as_deref());
    let mut at = |field: &str, raw: Option<&str>| match raw {
        None => {
            errors.add(field, "is required");
            None
        }
        Some(raw) => timestamp_param(&mut errors, field, raw),
    };
    let starts = at("startsAt", q.starts_at.as_deref());
    let ends = at("endsAt", q.ends_at.as_deref());
    let min_level = level(&mut errors, "minLevel", q.min_level);
    if let (Some(s), Some(e)) = (starts, ends) {
        if s >= e {
            errors.add("endsAt", "invalid time window: start must be before end");
        } else if e - s > Duration::days(31) {
            errors.add("endsAt", "must be at most 31 days after startsAt");
        }
    }
    let (Some(skill), Some(starts), Some(ends), true) = (skill, starts, ends, errors.is_empty())
    else {
        return Err(ApiError::validation(errors));
    };
    let staff = state
        .store
        .qualified_staff(auth.tenant.id(), skill, min_level, (starts, ends))
        .await?;
    let free_count = staff.iter().filter(|s| s.is_free).count();
    Ok(axum::Json(StaffAvailability {
        skill_id: skill,
        starts_at: starts,
        ends_at: ends,
        min_level,
        items: staff
            .into_iter()
            .map(|s| QualifiedDto {
                resource_id: s.resource_id,
                name: s.name,
                level: s.level,
                expires_at: s.expires_at,
                is_free: s.is_free,
            })
            .collect(),
        free_count,
    }))
}
