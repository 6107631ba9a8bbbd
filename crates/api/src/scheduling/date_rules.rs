//! Overrides and blackouts: `/api/v1/admin/schedules/overrides` and `/blackouts`.

use super::templates::{
    ScopeFilter, orphan_warning, parse_date, parse_scope, parse_time, scope_filter,
};
use super::{RegenerationDto, Warning};
use crate::error::{ApiError, ApiResult, ErrorBody};
use crate::extract::{AdminAuth, Json, Query, Staff, can, choose, path_id};
use crate::openapi::schemas::{BlackoutKindSchema, DateRecurrenceSchema, ScopeTypeSchema};
use crate::state::AppState;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use chrono::{DateTime, NaiveDate, Utc};
use kairos_domain::FieldErrors;
use kairos_domain::scheduling::{
    self, BlackoutKind, DateRange, DateRecurrence, LocalTime, Override,
};
use kairos_store::{DateRuleKind, DateRuleRecord, NewDateRule};
use serde::{Deserialize, Serialize};
use serde_json::json;
use utoipa::ToSchema;

/// An override (new hours on some dates) or a blackout (blocked time on some dates).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DateRuleDto {
    pub id: String,
    #[schema(value_type = ScopeTypeSchema)]
    pub scope_type: String,
    pub scope_id: String,
    /// Blackouts: maintenance, holiday, closure or event.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<BlackoutKindSchema>)]
    pub kind: Option<String>,
    pub date_from: NaiveDate,
    pub date_to: NaiveDate,
    /// Absent on an all-day blackout.
    pub start_time: Option<String>,
    pub end_time: Option<String>,
    /// none or annual.
    #[schema(value_type = DateRecurrenceSchema)]
    pub recurrence: String,
    pub reason: Option<String>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

impl From<DateRuleRecord> for DateRuleDto {
    fn from(r: DateRuleRecord) -> Self {
        let f = r.fields;
        Self {
            id: r.id.to_string(),
            scope_type: f.scope_type.as_str().to_owned(),
            scope_id: f.scope_id.to_string(),
            kind: f.kind.map(|k| k.as_str().to_owned()),
            date_from: f.date_from,
            date_to: f.date_to,
            start_time: f.start_time,
            end_time: f.end_time,
            recurrence: f.recurrence.as_str().to_owned(),
            reason: f.reason,
            created_at: r.created_at,
            updated_at: r.updated_at,
        }
    }
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DateRuleChange {
    #[serde(flatten)]
    pub rule: DateRuleDto,
    pub regeneration: RegenerationDto,
    pub warnings: Vec<Warning>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct DateRuleList {
    pub items: Vec<DateRuleDto>,
}

/// Override or blackout input. Overrides need both times; blackouts without times block
/// whole days and need `kind`.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DateRuleInput {
    #[schema(value_type = Option<ScopeTypeSchema>)]
    pub scope_type: Option<String>,
    #[schema(format = Uuid)]
    pub scope_id: Option<String>,
    /// Blackouts only: maintenance, holiday, closure or event.
    #[schema(value_type = Option<BlackoutKindSchema>)]
    pub kind: Option<String>,
    #[schema(format = Date)]
    pub date_from: Option<String>,
    #[schema(format = Date)]
    pub date_to: Option<String>,
    #[schema(pattern = "^([01][0-9]|2[0-3]):[0-5][0-9]$")]
    pub start_time: Option<String>,
    #[schema(pattern = "^([01][0-9]|2[0-3]):[0-5][0-9]$")]
    pub end_time: Option<String>,
    /// none (default) or annual.
    #[schema(value_type = Option<DateRecurrenceSchema>)]
    pub recurrence: Option<String>,
    pub reason: Option<String>,
}

crate::openapi::schemas::create_form!(
    /// The create form of [`DateRuleInput`] for an override.
    OverrideCreate = DateRuleInput,
    "OverrideCreate",
    ["scopeType", "scopeId", "dateFrom", "startTime", "endTime"]
);
crate::openapi::schemas::create_form!(
    /// The create form of [`DateRuleInput`] for a blackout.
    BlackoutCreate = DateRuleInput,
    "BlackoutCreate",
    ["scopeType", "scopeId", "dateFrom", "kind"]
);

fn date_rule_fields(input: DateRuleInput, kind: DateRuleKind) -> Result<NewDateRule, FieldErrors> {
    let mut errors = FieldErrors::new();
    let scope = parse_scope(
        &mut errors,
        input.scope_type.as_deref(),
        input.scope_id.as_deref(),
    );
    let date_from = match &input.date_from {
        None => {
            errors.add("dateFrom", "is required");
            None
        }
        Some(d) => parse_date(&mut errors, "dateFrom", d),
    };
    let date_to = match &input.date_to {
        None => date_from,
        Some(d) => parse_date(&mut errors, "dateTo", d),
    };
    if let (Some(f), Some(t)) = (date_from, date_to)
        && f > t
    {
        errors.add("dateFrom", "must not be after dateTo");
    }
    let times = match (kind, input.start_time.as_deref(), input.end_time.as_deref()) {
        (DateRuleKind::Blackout, None, None) => None,
        (_, s, e) => {
            let start = parse_time(&mut errors, "startTime", s);
            let end = parse_time(&mut errors, "endTime", e);
            if let (Some(s), Some(e)) = (start, end)
                && s >= e
            {
                errors.add("startTime", "must be before endTime");
            }
            start.zip(end)
        }
    };
    let rule_kind = match kind {
        DateRuleKind::Override => None,
        // Closure stands in for a missing or unknown kind: the error is recorded.
        DateRuleKind::Blackout => Some(choose(
            &mut errors,
            "kind",
            input.kind.as_deref(),
            BlackoutKind::Closure,
            true,
            BlackoutKind::parse,
            BlackoutKind::choices(),
        )),
    };
    let recurrence = choose(
        &mut errors,
        "recurrence",
        input.recurrence.as_deref(),
        DateRecurrence::None,
        false,
        DateRecurrence::parse,
        DateRecurrence::choices(),
    );
    if input
        .reason
        .as_ref()
        .is_some_and(|r| r.chars().count() > 500)
    {
        errors.add("reason", "must be at most 500 characters");
    }
    errors.finish()?;
    let (Some((scope_type, scope_id)), Some(date_from), Some(date_to)) =
        (scope, date_from, date_to)
    else {
        return Err(FieldErrors::new());
    };
    Ok(NewDateRule {
        scope_type,
        scope_id,
        kind: rule_kind,
        date_from,
        date_to,
        start_time: times.map(|(s, _)| s.to_string()),
        end_time: times.map(|(_, e)| e.to_string()),
        recurrence,
        reason: input
            .reason
            .map(|r| r.trim().to_owned())
            .filter(|r| !r.is_empty()),
    })
}

async fn override_conflicts(
    state: &AppState,
    auth: &AdminAuth,
    new: &NewDateRule,
) -> ApiResult<Vec<Warning>> {
    let to_rule = |r: &NewDateRule| -> Option<Override> {
        Some(Override {
            dates: DateRange {
                from: r.date_from,
                to: r.date_to,
                annual: r.recurrence.is_annual(),
            },
            start: LocalTime::parse(r.start_time.as_deref()?).ok()?,
            end: LocalTime::parse(r.end_time.as_deref()?).ok()?,
        })
    };
    let Some(rule) = to_rule(new) else {
        return Ok(Vec::new());
    };
    let today = state.now().date_naive();
    let others = state
        .store
        .list_date_rules(
            auth.tenant.id(),
            DateRuleKind::Override,
            Some((new.scope_type, new.scope_id)),
        )
        .await?;
    Ok(others
        .iter()
        .filter_map(|o| {
            let other = to_rule(&o.fields)?;
            let date = scheduling::overrides_conflict(&rule, &other, today)?;
            Some(Warning {
                kind: "override_conflict".into(),
                message: format!(
                    "Overlaps override {} on {date}; their hours are merged",
                    o.id
                ),
                details: json!({"overrideId": o.id.to_string(), "date": date}),
            })
        })
        .collect())
}

async fn create_rule(
    state: AppState,
    auth: Staff<can::Write>,
    input: DateRuleInput,
    kind: DateRuleKind,
) -> ApiResult<(StatusCode, axum::Json<DateRuleChange>)> {
    let new = date_rule_fields(input, kind).map_err(ApiError::validation)?;
    let mut warnings = match kind {
        DateRuleKind::Override => override_conflicts(&state, &auth, &new).await?,
        DateRuleKind::Blackout => Vec::new(),
    };
    let changed = state
        .store
        .create_date_rule(auth.tenant.id(), kind, new, &auth.actor(), state.now())
        .await?;
    warnings.extend(orphan_warning(&changed.regeneration));
    Ok((
        StatusCode::OK,
        axum::Json(DateRuleChange {
            rule: changed.record.into(),
            regeneration: changed.regeneration.into(),
            warnings,
        }),
    ))
}

async fn update_rule(
    state: AppState,
    auth: Staff<can::Write>,
    id: String,
    input: DateRuleInput,
    kind: DateRuleKind,
    what: &str,
) -> ApiResult<axum::Json<DateRuleChange>> {
    let id = path_id(&id, what)?;
    let current = state
        .store
        .get_date_rule(auth.tenant.id(), kind, id)
        .await?
        .ok_or_else(|| ApiError::not_found(what))?;
    let f = current.fields;
    let merged = DateRuleInput {
        scope_type: input.scope_type.or(Some(f.scope_type.as_str().to_owned())),
        scope_id: input.scope_id.or(Some(f.scope_id.to_string())),
        kind: input.kind.or(f.kind.map(|k| k.as_str().to_owned())),
        date_from: input.date_from.or(Some(f.date_from.to_string())),
        date_to: input.date_to.or(Some(f.date_to.to_string())),
        start_time: input.start_time.or(f.start_time),
        end_time: input.end_time.or(f.end_time),
        recurrence: input.recurrence.or(Some(f.recurrence.as_str().to_owned())),
        reason: input.reason.or(f.reason),
    };
    let new = date_rule_fields(merged, kind).map_err(ApiError::validation)?;
    let mut warnings = match kind {
        DateRuleKind::Override => override_conflicts(&state, &auth, &new)
            .await?
            .into_iter()
            .filter(|w| w.details["overrideId"] != id.to_string())
            .collect(),
        DateRuleKind::Blackout => Vec::new(),
    };
    let changed = state
        .store
        .update_date_rule(auth.tenant.id(), kind, id, new, &auth.actor(), state.now())
        .await?;
    warnings.extend(orphan_warning(&changed.regeneration));
    Ok(axum::Json(DateRuleChange {
        rule: changed.record.into(),
        regeneration: changed.regeneration.into(),
        warnings,
    }))
}

/// Update an override (fields given replace the stored ones); regenerates old and new dates.
#[utoipa::path(patch, path = "/api/v1/admin/schedules/overrides/{id}", tag = "schedules", security(("bearer" = [])),
    params(("id" = uuid::Uuid, Path, description = "Override id")),
    request_body = DateRuleInput,
    responses((status = 200, body = DateRuleChange), (status = 400, description = "VALIDATION_ERROR", body = ErrorBody), (status = 404, description = "NOT_FOUND", body = ErrorBody)))]
pub async fn update_override(
    State(state): State<AppState>,
    auth: Staff<can::Write>,
    Path(id): Path<String>,
    Json(input): Json<DateRuleInput>,
) -> ApiResult<axum::Json<DateRuleChange>> {
    update_rule(state, auth, id, input, DateRuleKind::Override, "Override").await
}

/// Update a blackout (fields given replace the stored ones); regenerates old and new dates.
#[utoipa::path(patch, path = "/api/v1/admin/schedules/blackouts/{id}", tag = "schedules", security(("bearer" = [])),
    params(("id" = uuid::Uuid, Path, description = "Blackout id")),
    request_body = DateRuleInput,
    responses((status = 200, body = DateRuleChange), (status = 400, description = "VALIDATION_ERROR", body = ErrorBody), (status = 404, description = "NOT_FOUND", body = ErrorBody)))]
pub async fn update_blackout(
    State(state): State<AppState>,
    auth: Staff<can::Write>,
    Path(id): Path<String>,
    Json(input): Json<DateRuleInput>,
) -> ApiResult<axum::Json<DateRuleChange>> {
    update_rule(state, auth, id, input, DateRuleKind::Blackout, "Blackout").await
}

async fn list_rules(
    state: AppState,
    auth: Staff<can::Read>,
    filter: ScopeFilter,
    kind: DateRuleKind,
) -> ApiResult<axum::Json<DateRuleList>> {
    let scope = scope_filter(filter)?;
    let items = state
        .store
        .list_date_rules(auth.tenant.id(), kind, scope)
        .await?
        .into_iter()
        .map(DateRuleDto::from)
        .collect();
    Ok(axum::Json(DateRuleList { items }))
}

async fn get_rule(
    state: AppState,
    auth: Staff<can::Read>,
    id: String,
    kind: DateRuleKind,
    what: &str,
) -> ApiResult<axum::Json<DateRuleDto>> {
    let id = path_id(&id, what)?;
    let rule = state
        .store
        .get_date_rule(auth.tenant.id(), kind, id)
        .await?
        .ok_or_else(|| ApiError::not_found(what))?;
    Ok(axum::Json(rule.into()))
}

async fn delete_rule(
    state: AppState,
    auth: Staff<can::Write>,
    id: String,
    kind: DateRuleKind,
    what: &str,
) -> ApiResult<axum::Json<DateRuleChange>> {
    let id = path_id(&id, what)?;
    let changed = state
        .store
        .delete_date_rule(auth.tenant.id(), kind, id, &auth.actor(), state.now())
        .await?;
    let warnings = orphan_warning(&changed.regeneration).into_iter().collect();
    Ok(axum::Json(DateRuleChange {
        rule: changed.record.into(),
        regeneration: changed.regeneration.into(),
        warnings,
    }))
}

/// Create a schedule override; regenerates its dates.
#[utoipa::path(post, path = "/api/v1/admin/schedules/overrides", tag = "schedules", security(("bearer" = [])),
    request_body = OverrideCreate,
    responses((status = 200, body = DateRuleChange), (status = 400, description = "VALIDATION_ERROR", body = ErrorBody), (status = 404, description = "NOT_FOUND: scope", body = ErrorBody)))]
pub async fn create_override(
    State(state): State<AppState>,
    auth: Staff<can::Write>,
    Json(input): Json<DateRuleInput>,
) -> ApiResult<(StatusCode, axum::Json<DateRuleChange>)> {
    create_rule(state, auth, input, DateRuleKind::Override).await
}

/// List schedule overrides.
#[utoipa::path(get, path = "/api/v1/admin/schedules/overrides", tag = "schedules", security(("bearer" = [])),
    params(ScopeFilter),
    responses((status = 200, body = DateRuleList), (status = 400, description = "VALIDATION_ERROR", body = ErrorBody)))]
pub async fn list_overrides(
    State(state): State<AppState>,
    auth: Staff<can::Read>,
    Query(filter): Query<ScopeFilter>,
) -> ApiResult<axum::Json<DateRuleList>> {
    list_rules(state, auth, filter, DateRuleKind::Override).await
}

/// Read an override.
#[utoipa::path(get, path = "/api/v1/admin/schedules/overrides/{id}", tag = "schedules", security(("bearer" = [])),
    params(("id" = uuid::Uuid, Path, description = "Override id")),
    responses((status = 200, body = DateRuleDto), (status = 404, description = "NOT_FOUND", body = ErrorBody)))]
pub async fn get_override(
    State(state): State<AppState>,
    auth: Staff<can::Read>,
    Path(id): Path<String>,
) -> ApiResult<axum::Json<DateRuleDto>> {
    get_rule(state, auth, id, DateRuleKind::Override, "Override").await
}

/// Delete an override; regenerates its dates.
#[utoipa::path(delete, path = "/api/v1/admin/schedules/overrides/{id}", tag = "schedules", security(("bearer" = [])),
    params(("id" = uuid::Uuid, Path, description = "Override id")),
    responses((status = 200, body = DateRuleChange), (status = 404, description = "NOT_FOUND", body = ErrorBody)))]
pub async fn delete_override(
    State(state): State<AppState>,
    auth: Staff<can::Write>,
    Path(id): Path<String>,
) -> ApiResult<axum::Json<DateRuleChange>> {
    delete_rule(state, auth, id, DateRuleKind::Override, "Override").await
}

/// Create a blackout; regenerates its dates. Booked slots under it are reported.
#[utoipa::path(post, path = "/api/v1/admin/schedules/blackouts", tag = "schedules", security(("bearer" = [])),
    request_body = BlackoutCreate,
    responses((status = 200, description = "Created; warnings list bookings under the blackout", body = DateRuleChange),
        (status = 400, description = "VALIDATION_ERROR", body = ErrorBody), (status = 404, description = "NOT_FOUND: scope", body = ErrorBody)))]
pub async fn create_blackout(
    State(state): State<AppState>,
    auth: Staff<can::Write>,
    Json(input): Json<DateRuleInput>,
) -> ApiResult<(StatusCode, axum::Json<DateRuleChange>)> {
    create_rule(state, auth, input, DateRuleKind::Blackout).await
}

/// List blackouts.
#[utoipa::path(get, path = "/api/v1/admin/schedules/blackouts", tag = "schedules", security(("bearer" = [])),
    params(ScopeFilter),
    responses((status = 200, body = DateRuleList), (status = 400, description = "VALIDATION_ERROR", body = ErrorBody)))]
pub async fn list_blackouts(
    State(state): State<AppState>,
    auth: Staff<can::Read>,
    Query(filter): Query<ScopeFilter>,
) -> ApiResult<axum::Json<DateRuleList>> {
    list_rules(state, auth, filter, DateRuleKind::Blackout).await
}

/// Read a blackout.
#[utoipa::path(get, path = "/api/v1/admin/schedules/blackouts/{id}", tag = "schedules", security(("bearer" = [])),
    params(("id" = uuid::Uuid, Path, description = "Blackout id")),
    responses((status = 200, body = DateRuleDto), (status = 404, description = "NOT_FOUND", body = ErrorBody)))]
pub async fn get_blackout(
    State(state): State<AppState>,
    auth: Staff<can::Read>,
    Path(id): Path<String>,
) -> ApiResult<axum::Json<DateRuleDto>> {
    get_rule(state, auth, id, DateRuleKind::Blackout, "Blackout").await
}

/// Delete a blackout; regenerates its dates.
#[utoipa::path(delete, path = "/api/v1/admin/schedules/blackouts/{id}", tag = "schedules", security(("bearer" = [])),
    params(("id" = uuid::Uuid, Path, description = "Blackout id")),
    responses((status = 200, body = DateRuleChange), (status = 404, description = "NOT_FOUND", body = ErrorBody)))]
pub async fn delete_blackout(
    State(state): State<AppState>,
    auth: Staff<can::Write>,
    Path(id): Path<String>,
) -> ApiResult<axum::Json<DateRuleChange>> {
    delete_rule(state, auth, id, DateRuleKind::Blackout, "Blackout").await
}

// ───────────────────────────── regeneration ─────────────────────────────
