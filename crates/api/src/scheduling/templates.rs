//! Schedule templates: `/api/v1/admin/schedules/templates`.

use super::{RegenerationDto, Warning};
use crate::error::{ApiError, ApiResult, ErrorBody};
use crate::extract::{AdminAuth, Json, Query, Staff, can, choose, path_id};
use crate::openapi::schemas::{RecurrenceKindSchema, ScopeTypeSchema};
use crate::state::AppState;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use chrono::{DateTime, NaiveDate, Utc};
use kairos_domain::FieldErrors;
use kairos_domain::scheduling::{self, LocalTime, RecurrenceKind, ScopeType, Template};
use kairos_store::{Changed, NewTemplate, RegenReport, TemplateRecord};
use serde::{Deserialize, Serialize};
use serde_json::json;
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

/// Most exception dates one template may list.
pub const MAX_EXDATES: usize = 1000;

/// A schedule template.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TemplateDto {
    pub id: String,
    #[schema(value_type = ScopeTypeSchema)]
    pub scope_type: String,
    pub scope_id: String,
    pub day_of_week: Option<i32>,
    #[schema(example = "09:00")]
    pub start_time: String,
    #[schema(example = "17:00")]
    pub end_time: String,
    #[schema(value_type = RecurrenceKindSchema)]
    pub recurrence_kind: String,
    /// Bitmask of days: bit 0 = Sunday … bit 6 = Saturday (Monday–Friday = 62).
    pub by_day: Option<i32>,
    pub by_month: Option<i32>,
    pub by_month_day: Option<i32>,
    pub exdates: Vec<NaiveDate>,
    pub valid_from: Option<NaiveDate>,
    pub valid_to: Option<NaiveDate>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

impl From<TemplateRecord> for TemplateDto {
    fn from(t: TemplateRecord) -> Self {
        let f = t.fields;
        Self {
            id: t.id.to_string(),
            scope_type: f.scope_type.as_str().to_owned(),
            scope_id: f.scope_id.to_string(),
            day_of_week: f.day_of_week,
            start_time: f.start_time,
            end_time: f.end_time,
            recurrence_kind: f.recurrence_kind.as_str().to_owned(),
            by_day: f.by_day,
            by_month: f.by_month,
            by_month_day: f.by_month_day,
            exdates: f.exdates,
            valid_from: f.valid_from,
            valid_to: f.valid_to,
            created_at: t.created_at,
            updated_at: t.updated_at,
        }
    }
}

/// A template change: the template, the regeneration it caused and warnings.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TemplateChange {
    #[serde(flatten)]
    pub template: TemplateDto,
    pub regeneration: RegenerationDto,
    pub warnings: Vec<Warning>,
}

/// Template input (times `HH:MM`, 24 hour, site local time).
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TemplateInput {
    /// site, product or resource (its own opening hours).
    #[schema(value_type = Option<ScopeTypeSchema>)]
    pub scope_type: Option<String>,
    #[schema(format = Uuid)]
    pub scope_id: Option<String>,
    /// 0 (Sunday) to 6 (Saturday), for weekly templates without byDay.
    #[schema(minimum = 0, maximum = 6)]
    pub day_of_week: Option<i64>,
    #[schema(pattern = "^([01][0-9]|2[0-3]):[0-5][0-9]$")]
    pub start_time: Option<String>,
    #[schema(pattern = "^([01][0-9]|2[0-3]):[0-5][0-9]$")]
    pub end_time: Option<String>,
    /// none, daily, weekly (default), monthly or annual.
    #[schema(value_type = Option<RecurrenceKindSchema>)]
    pub recurrence_kind: Option<String>,
    #[schema(minimum = 1, maximum = 127)]
    pub by_day: Option<i64>,
    #[schema(minimum = 1, maximum = 12)]
    pub by_month: Option<i64>,
    #[schema(minimum = 1, maximum = 31)]
    pub by_month_day: Option<i64>,
    /// Dates (YYYY-MM-DD) without hours (at most 1000).
    #[schema(max_items = 1000)]
    pub exdates: Option<Vec<String>>,
    #[schema(format = Date)]
    pub valid_from: Option<String>,
    #[schema(format = Date)]
    pub valid_to: Option<String>,
}

crate::openapi::schemas::create_form!(
    /// The create form of [`TemplateInput`].
    TemplateCreate = TemplateInput,
    "TemplateCreate",
    ["scopeType", "scopeId", "startTime", "endTime"]
);

#[derive(Debug, Serialize, ToSchema)]
pub struct TemplateList {
    pub items: Vec<TemplateDto>,
}

/// Filter of schedule lists.
#[derive(Debug, Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query)]
pub struct ScopeFilter {
    /// site, product or resource.
    #[param(value_type = Option<ScopeTypeSchema>)]
    pub scope_type: Option<String>,
    /// Required with scopeType.
    #[param(value_type = Option<uuid::Uuid>)]
    pub scope_id: Option<String>,
}

pub(super) use crate::extract::date_param as parse_date;

pub(super) fn parse_scope(
    errors: &mut FieldErrors,
    scope_type: Option<&str>,
    scope_id: Option<&str>,
) -> Option<(ScopeType, Uuid)> {
    let kind = match scope_type {
        None => {
            errors.add("scopeType", "is required");
            None
        }
        Some(s) => ScopeType::parse(s).or_else(|| {
            errors.add("scopeType", format!("must be {}", ScopeType::choices()));
            None
        }),
    };
    let id = match scope_id {
        None => {
            errors.add("scopeId", "is required");
            None
        }
        Some(s) => {
            let id = kairos_domain::ids::parse_id(s);
            if id.is_none() {
                errors.add("scopeId", "is not an id");
            }
            id
        }
    };
    Some((kind?, id?))
}

pub(super) fn parse_time(
    errors: &mut FieldErrors,
    field: &str,
    value: Option<&str>,
) -> Option<LocalTime> {
    match value {
        None => {
            errors.add(field, "is required");
            None
        }
        Some(v) => errors.check(field, LocalTime::parse(v)),
    }
}

fn small(errors: &mut FieldErrors, field: &str, value: Option<i64>) -> Option<u8> {
    let v = value?;
    match u8::try_from(v) {
        Ok(x) => Some(x),
        Err(_) => {
            errors.add(field, "is out of range");
            None
        }
    }
}

/// Validates a template input into the stored form and its domain rule.
fn template_fields(input: TemplateInput) -> Result<(NewTemplate, Template), FieldErrors> {
    let mut errors = FieldErrors::new();
    let scope = parse_scope(
        &mut errors,
        input.scope_type.as_deref(),
        input.scope_id.as_deref(),
    );
    let start = parse_time(&mut errors, "startTime", input.start_time.as_deref());
    let end = parse_time(&mut errors, "endTime", input.end_time.as_deref());
    let kind = choose(
        &mut errors,
        "recurrenceKind",
        input.recurrence_kind.as_deref(),
        RecurrenceKind::Weekly,
        false,
        RecurrenceKind::parse,
        RecurrenceKind::choices(),
    );
    let exdates = input.exdates.unwrap_or_default();
    let exdates = if errors.at_most("exdates", exdates.len(), MAX_EXDATES) {
        exdates
    } else {
        Vec::new()
    };
    let exdates: Vec<NaiveDate> = exdates
        .iter()
        .enumerate()
        .filter_map(|(i, d)| parse_date(&mut errors, &format!("exdates[{i}]"), d))
        .collect();
    let valid_from = input
        .valid_from
        .as_deref()
        .and_then(|d| parse_date(&mut errors, "validFrom", d));
    let valid_to = input
        .valid_to
        .as_deref()
        .and_then(|d| parse_date(&mut errors, "validTo", d));
    let day_of_week = small(&mut errors, "dayOfWeek", input.day_of_week);
    let by_day = small(&mut errors, "byDay", input.by_day);
    let by_month = small(&mut errors, "byMonth", input.by_month);
    let by_month_day = small(&mut errors, "byMonthDay", input.by_month_day);
    let (Some((scope_type, scope_id)), Some(start), Some(end), true) =
        (scope, start, end, errors.is_empty())
    else {
        errors.finish()?;
        return Err(FieldErrors::new());
    };
    let rule = Template {
        day_of_week,
        start,
        end,
        kind,
        by_day,
        by_month,
        by_month_day,
        exdates: exdates.clone(),
        valid_from,
        valid_to,
    };
    if let Err(problems) = rule.validate() {
        for (field, message) in problems {
            errors.add(field, message);
        }
    }
    errors.finish()?;
    let new = NewTemplate {
        scope_type,
        scope_id,
        day_of_week: day_of_week.map(i32::from),
        start_time: start.to_string(),
        end_time: end.to_string(),
        recurrence_kind: kind,
        by_day: by_day.map(i32::from),
        by_month: by_month.map(i32::from),
        by_month_day: by_month_day.map(i32::from),
        exdates,
        valid_from,
        valid_to,
    };
    Ok((new, rule))
}

/// Conflicts between `rule` and the other templates of its scope.
async fn template_conflicts(
    state: &AppState,
    auth: &AdminAuth,
    new: &NewTemplate,
    rule: &Template,
    except: Option<Uuid>,
) -> ApiResult<Vec<Warning>> {
    let today = state.now().date_naive();
    let others = state
        .store
        .list_templates(auth.tenant.id(), Some((new.scope_type, new.scope_id)))
        .await?;
    let mut warnings = Vec::new();
    for other in others.into_iter().filter(|o| Some(o.id) != except) {
        let Ok((_, other_rule)) = template_fields(template_input(&other)) else {
            continue;
        };
        if let Some(date) = scheduling::templates_conflict(rule, &other_rule, today) {
            warnings.push(Warning {
                kind: "template_conflict".into(),
                message: format!(
                    "Overlaps template {} (for example on {date}); their hours are merged",
                    other.id
                ),
                details: json!({"templateId": other.id.to_string(), "date": date}),
            });
        }
    }
    Ok(warnings)
}

fn template_input(t: &TemplateRecord) -> TemplateInput {
    let f = &t.fields;
    TemplateInput {
        scope_type: Some(f.scope_type.as_str().to_owned()),
        scope_id: Some(f.scope_id.to_string()),
        day_of_week: f.day_of_week.map(i64::from),
        start_time: Some(f.start_time.clone()),
        end_time: Some(f.end_time.clone()),
        recurrence_kind: Some(f.recurrence_kind.as_str().to_owned()),
        by_day: f.by_day.map(i64::from),
        by_month: f.by_month.map(i64::from),
        by_month_day: f.by_month_day.map(i64::from),
        exdates: Some(f.exdates.iter().map(ToString::to_string).collect()),
        valid_from: f.valid_from.map(|d| d.to_string()),
        valid_to: f.valid_to.map(|d| d.to_string()),
    }
}

pub(super) fn orphan_warning(report: &RegenReport) -> Option<Warning> {
    (report.orphaned > 0).then(|| Warning {
        kind: "bookings_affected".into(),
        message: format!(
            "{} booked slot(s) no longer match the schedule; they are kept and flagged orphaned, bookings are untouched",
            report.orphaned
        ),
        details: json!({"orphanedSlots": report.sample_orphaned}),
    })
}

fn template_change(changed: Changed<TemplateRecord>, mut warnings: Vec<Warning>) -> TemplateChange {
    warnings.extend(orphan_warning(&changed.regeneration));
    TemplateChange {
        template: changed.record.into(),
        regeneration: changed.regeneration.into(),
        warnings,
    }
}

pub(super) fn scope_filter(filter: ScopeFilter) -> ApiResult<Option<(ScopeType, Uuid)>> {
    match (filter.scope_type, filter.scope_id) {
        (None, None) => Ok(None),
        (t, i) => {
            let mut errors = FieldErrors::new();
            let scope = parse_scope(&mut errors, t.as_deref(), i.as_deref());
            errors.finish().map_err(ApiError::validation)?;
            Ok(scope)
        }
    }
}

/// Create a schedule template; regenerates today to the 60-day horizon.
#[utoipa::path(post, path = "/api/v1/admin/schedules/templates", tag = "schedules", security(("bearer" = [])),
    request_body = TemplateCreate,
    responses((status = 200, body = TemplateChange), (status = 400, description = "VALIDATION_ERROR", body = ErrorBody),
        (status = 404, description = "NOT_FOUND: scope", body = ErrorBody), (status = 403, body = ErrorBody)))]
pub async fn create_template(
    State(state): State<AppState>,
    auth: Staff<can::Write>,
    Json(input): Json<TemplateInput>,
) -> ApiResult<(StatusCode, axum::Json<TemplateChange>)> {
    let (new, rule) = template_fields(input).map_err(ApiError::validation)?;
    let warnings = template_conflicts(&state, &auth, &new, &rule, None).await?;
    let changed = state
        .store
        .create_template(auth.tenant.id(), new, &auth.actor(), state.now())
        .await?;
    Ok((
        StatusCode::OK,
        axum::Json(template_change(changed, warnings)),
    ))
}

/// List schedule templates, optionally of one scope.
#[utoipa::path(get, path = "/api/v1/admin/schedules/templates", tag = "schedules", security(("bearer" = [])),
    params(ScopeFilter),
    responses((status = 200, body = TemplateList), (status = 400, description = "VALIDATION_ERROR", body = ErrorBody)))]
pub async fn list_templates(
    State(state): State<AppState>,
    auth: Staff<can::Read>,
    Query(filter): Query<ScopeFilter>,
) -> ApiResult<axum::Json<TemplateList>> {
    let scope = scope_filter(filter)?;
    let items = state
        .store
        .list_templates(auth.tenant.id(), scope)
        .await?
        .into_iter()
        .map(TemplateDto::from)
        .collect();
    Ok(axum::Json(TemplateList { items }))
}

/// Read a template.
#[utoipa::path(get, path = "/api/v1/admin/schedules/templates/{id}", tag = "schedules", security(("bearer" = [])),
    params(("id" = uuid::Uuid, Path, description = "Template id")),
    responses((status = 200, body = TemplateDto), (status = 404, description = "NOT_FOUND", body = ErrorBody)))]
pub async fn get_template(
    State(state): State<AppState>,
    auth: Staff<can::Read>,
    Path(id): Path<String>,
) -> ApiResult<axum::Json<TemplateDto>> {
    let id = path_id(&id, "Template")?;
    let t = state
        .store
        .get_template(auth.tenant.id(), id)
        .await?
        .ok_or_else(|| ApiError::not_found("Template"))?;
    Ok(axum::Json(t.into()))
}

/// Update a template (fields given replace the stored ones); regenerates to the horizon.
#[utoipa::path(patch, path = "/api/v1/admin/schedules/templates/{id}", tag = "schedules", security(("bearer" = [])),
    params(("id" = uuid::Uuid, Path, description = "Template id")),
    request_body = TemplateInput,
    responses((status = 200, body = TemplateChange), (status = 400, description = "VALIDATION_ERROR", body = ErrorBody),
        (status = 404, description = "NOT_FOUND", body = ErrorBody)))]
pub async fn update_template(
    State(state): State<AppState>,
    auth: Staff<can::Write>,
    Path(id): Path<String>,
    Json(input): Json<TemplateInput>,
) -> ApiResult<axum::Json<TemplateChange>> {
    let id = path_id(&id, "Template")?;
    let current = state
        .store
        .get_template(auth.tenant.id(), id)
        .await?
        .ok_or_else(|| ApiError::not_found("Template"))?;
    let base = template_input(&current);
    let merged = TemplateInput {
        scope_type: input.scope_type.or(base.scope_type),
        scope_id: input.scope_id.or(base.scope_id),
        day_of_week: input.day_of_week.or(base.day_of_week),
        start_time: input.start_time.or(base.start_time),
        end_time: input.end_time.or(base.end_time),
        recurrence_kind: input.recurrence_kind.or(base.recurrence_kind),
        by_day: input.by_day.or(base.by_day),
        by_month: input.by_month.or(base.by_month),
        by_month_day: input.by_month_day.or(base.by_month_day),
        exdates: input.exdates.or(base.exdates),
        valid_from: input.valid_from.or(base.valid_from),
        valid_to: input.valid_to.or(base.valid_to),
    };
    let (new, rule) = template_fields(merged).map_err(ApiError::validation)?;
    let warnings = template_conflicts(&state, &auth, &new, &rule, Some(id)).await?;
    let changed = state
        .store
        .update_template(auth.tenant.id(), id, new, &auth.actor(), state.now())
        .await?;
    Ok(axum::Json(template_change(changed, warnings)))
}

/// Delete a template; regenerates to the horizon.
#[utoipa::path(delete, path = "/api/v1/admin/schedules/templates/{id}", tag = "schedules", security(("bearer" = [])),
    params(("id" = uuid::Uuid, Path, description = "Template id")),
    responses((status = 200, body = TemplateChange), (status = 404, description = "NOT_FOUND", body = ErrorBody)))]
pub async fn delete_template(
    State(state): State<AppState>,
    auth: Staff<can::Write>,
    Path(id): Path<String>,
) -> ApiResult<axum::Json<TemplateChange>> {
    let id = path_id(&id, "Template")?;
    let changed = state
        .store
        .delete_template(auth.tenant.id(), id, &auth.actor(), state.now())
        .await?;
    Ok(axum::Json(template_change(changed, Vec::new())))
}

// ───────────────────────── overrides and blackouts ─────────────────────────
