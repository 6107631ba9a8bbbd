//! Schedule administration (spec Part B 4.4 and 4.12): templates, overrides, blackouts,
//! and slot regeneration with a dry-run preview. Every change answers with the
//! regeneration it caused and with warnings (conflicts, bookings under a blackout).

use crate::error::{ApiError, ApiResult, ErrorBody};
use crate::extract::{AdminAuth, Json, Query, path_id};
use crate::state::AppState;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use chrono::{DateTime, NaiveDate, Utc};
use kairos_domain::FieldErrors;
use kairos_domain::auth::perm;
use kairos_domain::scheduling::{
    self, DateRange, LocalTime, Override, RecurrenceKind, ScopeType, Template,
};
use kairos_store::{
    Changed, DateRuleKind, DateRuleRecord, DateSpan, NewDateRule, NewTemplate, RegenReport,
    StoreError, TemplateRecord,
};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

/// A warning attached to a schedule change.
#[derive(Debug, Serialize, ToSchema)]
pub struct Warning {
    /// template_conflict, override_conflict or bookings_affected.
    #[serde(rename = "type")]
    pub kind: String,
    pub message: String,
    #[schema(value_type = Object)]
    pub details: Value,
}

/// What a regeneration did.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RegenerationDto {
    pub products: usize,
    /// Slots created (or, in a preview, to create).
    pub created: usize,
    /// Unbooked slots deleted because no schedule produces them any more.
    pub deleted: usize,
    /// Booked slots kept but flagged orphaned (bookings untouched).
    pub orphaned: usize,
    /// Orphaned slots whose flag cleared because the schedule matches them again.
    pub restored: usize,
    /// Existing slots that still match.
    pub kept: usize,
    pub samples: RegenerationSamples,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct RegenerationSamples {
    pub created: Vec<DateTime<Utc>>,
    pub deleted: Vec<DateTime<Utc>>,
    pub orphaned: Vec<DateTime<Utc>>,
}

impl From<RegenReport> for RegenerationDto {
    fn from(r: RegenReport) -> Self {
        Self {
            products: r.products,
            created: r.created,
            deleted: r.deleted,
            orphaned: r.orphaned,
            restored: r.restored,
            kept: r.kept,
            samples: RegenerationSamples {
                created: r.sample_created,
                deleted: r.sample_deleted,
                orphaned: r.sample_orphaned,
            },
        }
    }
}

/// A schedule template.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TemplateDto {
    pub id: String,
    pub scope_type: String,
    pub scope_id: String,
    pub day_of_week: Option<i32>,
    #[schema(example = "09:00")]
    pub start_time: String,
    #[schema(example = "17:00")]
    pub end_time: String,
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
            scope_type: f.scope_type,
            scope_id: f.scope_id.to_string(),
            day_of_week: f.day_of_week,
            start_time: f.start_time,
            end_time: f.end_time,
            recurrence_kind: f.recurrence_kind,
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
    /// site or product.
    pub scope_type: Option<String>,
    pub scope_id: Option<String>,
    /// 0 (Sunday) to 6 (Saturday), for weekly templates without byDay.
    pub day_of_week: Option<i64>,
    pub start_time: Option<String>,
    pub end_time: Option<String>,
    /// none, daily, weekly (default), monthly or annual.
    pub recurrence_kind: Option<String>,
    pub by_day: Option<i64>,
    pub by_month: Option<i64>,
    pub by_month_day: Option<i64>,
    /// Dates (YYYY-MM-DD) without hours.
    pub exdates: Option<Vec<String>>,
    pub valid_from: Option<String>,
    pub valid_to: Option<String>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct TemplateList {
    pub items: Vec<TemplateDto>,
}

/// Filter of schedule lists.
#[derive(Debug, Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query)]
pub struct ScopeFilter {
    /// site or product.
    pub scope_type: Option<String>,
    pub scope_id: Option<String>,
}

fn parse_date(errors: &mut FieldErrors, field: &str, value: &str) -> Option<NaiveDate> {
    use chrono::Datelike;
    match NaiveDate::parse_from_str(value.trim(), "%Y-%m-%d") {
        Ok(d) if (1900..=2999).contains(&d.year()) => Some(d),
        Ok(_) => {
            errors.add(field, "must be a date between 1900-01-01 and 2999-12-31");
            None
        }
        Err(_) => {
            errors.add(field, format!("'{value}' is not a date YYYY-MM-DD"));
            None
        }
    }
}

fn parse_scope(
    errors: &mut FieldErrors,
    scope_type: Option<&str>,
    scope_id: Option<&str>,
) -> Option<(ScopeType, Uuid)> {
    let kind = match scope_type {
        None => {
            errors.add("scopeType", "is required");
            None
        }
        Some(s) => {
            let k = ScopeType::parse(s);
            if k.is_none() {
                errors.add("scopeType", "must be site or product");
            }
            k
        }
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

fn parse_time(errors: &mut FieldErrors, field: &str, value: Option<&str>) -> Option<LocalTime> {
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
    let kind = match input.recurrence_kind.as_deref() {
        None => Some(RecurrenceKind::Weekly),
        Some(k) => {
            let kind = RecurrenceKind::parse(k);
            if kind.is_none() {
                errors.add(
                    "recurrenceKind",
                    "must be none, daily, weekly, monthly or annual",
                );
            }
            kind
        }
    };
    let exdates: Vec<NaiveDate> = input
        .exdates
        .unwrap_or_default()
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
    let (Some((scope_type, scope_id)), Some(start), Some(end), Some(kind), true) =
        (scope, start, end, kind, errors.is_empty())
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
        scope_type: scope_type.as_str().to_owned(),
        scope_id,
        day_of_week: day_of_week.map(i32::from),
        start_time: start.to_string(),
        end_time: end.to_string(),
        recurrence_kind: kind.as_str().to_owned(),
        by_day: by_day.map(i32::from),
        by_month: by_month.map(i32::from),
        by_month_day: by_month_day.map(i32::from),
        exdates,
        valid_from,
        valid_to,
    };
    Ok((new, rule))
}

fn scope_missing(e: StoreError) -> ApiError {
    match e {
        StoreError::NotFound => ApiError::not_found("Scope (site or product)"),
        other => other.into(),
    }
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
        .list_templates(
            auth.tenant.id(),
            Some((new.scope_type.clone(), new.scope_id)),
        )
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
        scope_type: Some(f.scope_type.clone()),
        scope_id: Some(f.scope_id.to_string()),
        day_of_week: f.day_of_week.map(i64::from),
        start_time: Some(f.start_time.clone()),
        end_time: Some(f.end_time.clone()),
        recurrence_kind: Some(f.recurrence_kind.clone()),
        by_day: f.by_day.map(i64::from),
        by_month: f.by_month.map(i64::from),
        by_month_day: f.by_month_day.map(i64::from),
        exdates: Some(f.exdates.iter().map(ToString::to_string).collect()),
        valid_from: f.valid_from.map(|d| d.to_string()),
        valid_to: f.valid_to.map(|d| d.to_string()),
    }
}

fn orphan_warning(report: &RegenReport) -> Option<Warning> {
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

fn scope_filter(filter: ScopeFilter) -> ApiResult<Option<(String, Uuid)>> {
    match (filter.scope_type, filter.scope_id) {
        (None, None) => Ok(None),
        (t, i) => {
            let mut errors = FieldErrors::new();
            let scope = parse_scope(&mut errors, t.as_deref(), i.as_deref());
            errors.finish().map_err(ApiError::validation)?;
            Ok(scope.map(|(k, id)| (k.as_str().to_owned(), id)))
        }
    }
}

/// Create a schedule template; regenerates today to the 60-day horizon.
#[utoipa::path(post, path = "/api/v1/admin/schedules/templates", tag = "schedules", security(("bearer" = [])),
    params(("x-tenant-id" = String, Header, description = "Tenant id")),
    request_body = TemplateInput,
    responses((status = 201, body = TemplateChange), (status = 400, description = "VALIDATION_ERROR", body = ErrorBody),
        (status = 404, description = "NOT_FOUND: scope", body = ErrorBody), (status = 403, body = ErrorBody)))]
pub async fn create_template(
    State(state): State<AppState>,
    auth: AdminAuth,
    Json(input): Json<TemplateInput>,
) -> ApiResult<(StatusCode, axum::Json<TemplateChange>)> {
    auth.require(perm::WRITE)?;
    let (new, rule) = template_fields(input).map_err(ApiError::validation)?;
    let warnings = template_conflicts(&state, &auth, &new, &rule, None).await?;
    let changed = state
        .store
        .create_template(auth.tenant.id(), new, &auth.actor(), state.now())
        .await
        .map_err(scope_missing)?;
    Ok((
        StatusCode::CREATED,
        axum::Json(template_change(changed, warnings)),
    ))
}

/// List schedule templates, optionally of one scope.
#[utoipa::path(get, path = "/api/v1/admin/schedules/templates", tag = "schedules", security(("bearer" = [])),
    params(("x-tenant-id" = String, Header, description = "Tenant id"), ScopeFilter),
    responses((status = 200, body = TemplateList), (status = 400, description = "VALIDATION_ERROR", body = ErrorBody)))]
pub async fn list_templates(
    State(state): State<AppState>,
    auth: AdminAuth,
    Query(filter): Query<ScopeFilter>,
) -> ApiResult<axum::Json<TemplateList>> {
    auth.require(perm::READ)?;
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
    params(("x-tenant-id" = String, Header, description = "Tenant id"), ("id" = String, Path, description = "Template id")),
    responses((status = 200, body = TemplateDto), (status = 404, description = "NOT_FOUND", body = ErrorBody)))]
pub async fn get_template(
    State(state): State<AppState>,
    auth: AdminAuth,
    Path(id): Path<String>,
) -> ApiResult<axum::Json<TemplateDto>> {
    auth.require(perm::READ)?;
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
    params(("x-tenant-id" = String, Header, description = "Tenant id"), ("id" = String, Path, description = "Template id")),
    request_body = TemplateInput,
    responses((status = 200, body = TemplateChange), (status = 400, description = "VALIDATION_ERROR", body = ErrorBody),
        (status = 404, description = "NOT_FOUND", body = ErrorBody)))]
pub async fn update_template(
    State(state): State<AppState>,
    auth: AdminAuth,
    Path(id): Path<String>,
    Json(input): Json<TemplateInput>,
) -> ApiResult<axum::Json<TemplateChange>> {
    auth.require(perm::WRITE)?;
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
        .await
        .map_err(scope_missing)?;
    Ok(axum::Json(template_change(changed, warnings)))
}

/// Delete a template; regenerates to the horizon.
#[utoipa::path(delete, path = "/api/v1/admin/schedules/templates/{id}", tag = "schedules", security(("bearer" = [])),
    params(("x-tenant-id" = String, Header, description = "Tenant id"), ("id" = String, Path, description = "Template id")),
    responses((status = 200, body = TemplateChange), (status = 404, description = "NOT_FOUND", body = ErrorBody)))]
pub async fn delete_template(
    State(state): State<AppState>,
    auth: AdminAuth,
    Path(id): Path<String>,
) -> ApiResult<axum::Json<TemplateChange>> {
    auth.require(perm::WRITE)?;
    let id = path_id(&id, "Template")?;
    let changed = state
        .store
        .delete_template(auth.tenant.id(), id, &auth.actor(), state.now())
        .await
        .map_err(|e| match e {
            StoreError::NotFound => ApiError::not_found("Template"),
            other => other.into(),
        })?;
    Ok(axum::Json(template_change(changed, Vec::new())))
}

// ───────────────────────── overrides and blackouts ─────────────────────────

/// An override (new hours on some dates) or a blackout (blocked time on some dates).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DateRuleDto {
    pub id: String,
    pub scope_type: String,
    pub scope_id: String,
    /// Blackouts: maintenance, holiday, closure or event.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    pub date_from: NaiveDate,
    pub date_to: NaiveDate,
    /// Absent on an all-day blackout.
    pub start_time: Option<String>,
    pub end_time: Option<String>,
    /// none or annual.
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
            scope_type: f.scope_type,
            scope_id: f.scope_id.to_string(),
            kind: f.kind,
            date_from: f.date_from,
            date_to: f.date_to,
            start_time: f.start_time,
            end_time: f.end_time,
            recurrence: f.recurrence,
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
    pub scope_type: Option<String>,
    pub scope_id: Option<String>,
    /// Blackouts only: maintenance, holiday, closure or event.
    pub kind: Option<String>,
    pub date_from: Option<String>,
    pub date_to: Option<String>,
    pub start_time: Option<String>,
    pub end_time: Option<String>,
    /// none (default) or annual.
    pub recurrence: Option<String>,
    pub reason: Option<String>,
}

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
    if let (Some(f), Some(t)) = (date_from, date_to) {
        if f > t {
            errors.add("dateFrom", "must not be after dateTo");
        }
    }
    let times = match (kind, input.start_time.as_deref(), input.end_time.as_deref()) {
        (DateRuleKind::Blackout, None, None) => None,
        (_, s, e) => {
            let start = parse_time(&mut errors, "startTime", s);
            let end = parse_time(&mut errors, "endTime", e);
            if let (Some(s), Some(e)) = (start, end) {
                if s >= e {
                    errors.add("startTime", "must be before endTime");
                }
            }
            start.zip(end)
        }
    };
    let rule_kind = match kind {
        DateRuleKind::Override => None,
        DateRuleKind::Blackout => match input.kind.as_deref() {
            None => {
                errors.add("kind", "is required");
                None
            }
            Some(k) if ["maintenance", "holiday", "closure", "event"].contains(&k) => {
                Some(k.to_owned())
            }
            Some(_) => {
                errors.add("kind", "must be maintenance, holiday, closure or event");
                None
            }
        },
    };
    let recurrence = match input.recurrence.as_deref() {
        None | Some("none") => "none",
        Some("annual") => "annual",
        Some(_) => {
            errors.add("recurrence", "must be none or annual");
            "none"
        }
    };
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
        scope_type: scope_type.as_str().to_owned(),
        scope_id,
        kind: rule_kind,
        date_from,
        date_to,
        start_time: times.map(|(s, _)| s.to_string()),
        end_time: times.map(|(_, e)| e.to_string()),
        recurrence: recurrence.to_owned(),
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
                annual: r.recurrence == "annual",
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
            Some((new.scope_type.clone(), new.scope_id)),
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
    auth: AdminAuth,
    input: DateRuleInput,
    kind: DateRuleKind,
) -> ApiResult<(StatusCode, axum::Json<DateRuleChange>)> {
    auth.require(perm::WRITE)?;
    let new = date_rule_fields(input, kind).map_err(ApiError::validation)?;
    let mut warnings = match kind {
        DateRuleKind::Override => override_conflicts(&state, &auth, &new).await?,
        DateRuleKind::Blackout => Vec::new(),
    };
    let changed = state
        .store
        .create_date_rule(auth.tenant.id(), kind, new, &auth.actor(), state.now())
        .await
        .map_err(scope_missing)?;
    warnings.extend(orphan_warning(&changed.regeneration));
    Ok((
        StatusCode::CREATED,
        axum::Json(DateRuleChange {
            rule: changed.record.into(),
            regeneration: changed.regeneration.into(),
            warnings,
        }),
    ))
}

async fn update_rule(
    state: AppState,
    auth: AdminAuth,
    id: String,
    input: DateRuleInput,
    kind: DateRuleKind,
    what: &str,
) -> ApiResult<axum::Json<DateRuleChange>> {
    auth.require(perm::WRITE)?;
    let id = path_id(&id, what)?;
    let current = state
        .store
        .get_date_rule(auth.tenant.id(), kind, id)
        .await?
        .ok_or_else(|| ApiError::not_found(what))?;
    let f = current.fields;
    let merged = DateRuleInput {
        scope_type: input.scope_type.or(Some(f.scope_type)),
        scope_id: input.scope_id.or(Some(f.scope_id.to_string())),
        kind: input.kind.or(f.kind),
        date_from: input.date_from.or(Some(f.date_from.to_string())),
        date_to: input.date_to.or(Some(f.date_to.to_string())),
        start_time: input.start_time.or(f.start_time),
        end_time: input.end_time.or(f.end_time),
        recurrence: input.recurrence.or(Some(f.recurrence)),
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
        .await
        .map_err(scope_missing)?;
    warnings.extend(orphan_warning(&changed.regeneration));
    Ok(axum::Json(DateRuleChange {
        rule: changed.record.into(),
        regeneration: changed.regeneration.into(),
        warnings,
    }))
}

/// Update an override (fields given replace the stored ones); regenerates old and new dates.
#[utoipa::path(patch, path = "/api/v1/admin/schedules/overrides/{id}", tag = "schedules", security(("bearer" = [])),
    params(("x-tenant-id" = String, Header, description = "Tenant id"), ("id" = String, Path, description = "Override id")),
    request_body = DateRuleInput,
    responses((status = 200, body = DateRuleChange), (status = 400, description = "VALIDATION_ERROR", body = ErrorBody), (status = 404, description = "NOT_FOUND", body = ErrorBody)))]
pub async fn update_override(
    State(state): State<AppState>,
    auth: AdminAuth,
    Path(id): Path<String>,
    Json(input): Json<DateRuleInput>,
) -> ApiResult<axum::Json<DateRuleChange>> {
    update_rule(state, auth, id, input, DateRuleKind::Override, "Override").await
}

/// Update a blackout (fields given replace the stored ones); regenerates old and new dates.
#[utoipa::path(patch, path = "/api/v1/admin/schedules/blackouts/{id}", tag = "schedules", security(("bearer" = [])),
    params(("x-tenant-id" = String, Header, description = "Tenant id"), ("id" = String, Path, description = "Blackout id")),
    request_body = DateRuleInput,
    responses((status = 200, body = DateRuleChange), (status = 400, description = "VALIDATION_ERROR", body = ErrorBody), (status = 404, description = "NOT_FOUND", body = ErrorBody)))]
pub async fn update_blackout(
    State(state): State<AppState>,
    auth: AdminAuth,
    Path(id): Path<String>,
    Json(input): Json<DateRuleInput>,
) -> ApiResult<axum::Json<DateRuleChange>> {
    update_rule(state, auth, id, input, DateRuleKind::Blackout, "Blackout").await
}

async fn list_rules(
    state: AppState,
    auth: AdminAuth,
    filter: ScopeFilter,
    kind: DateRuleKind,
) -> ApiResult<axum::Json<DateRuleList>> {
    auth.require(perm::READ)?;
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
    auth: AdminAuth,
    id: String,
    kind: DateRuleKind,
    what: &str,
) -> ApiResult<axum::Json<DateRuleDto>> {
    auth.require(perm::READ)?;
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
    auth: AdminAuth,
    id: String,
    kind: DateRuleKind,
    what: &str,
) -> ApiResult<axum::Json<DateRuleChange>> {
    auth.require(perm::WRITE)?;
    let id = path_id(&id, what)?;
    let changed = state
        .store
        .delete_date_rule(auth.tenant.id(), kind, id, &auth.actor(), state.now())
        .await
        .map_err(|e| match e {
            StoreError::NotFound => ApiError::not_found(what),
            other => other.into(),
        })?;
    let warnings = orphan_warning(&changed.regeneration).into_iter().collect();
    Ok(axum::Json(DateRuleChange {
        rule: changed.record.into(),
        regeneration: changed.regeneration.into(),
        warnings,
    }))
}

/// Create a schedule override; regenerates its dates.
#[utoipa::path(post, path = "/api/v1/admin/schedules/overrides", tag = "schedules", security(("bearer" = [])),
    params(("x-tenant-id" = String, Header, description = "Tenant id")),
    request_body = DateRuleInput,
    responses((status = 201, body = DateRuleChange), (status = 400, description = "VALIDATION_ERROR", body = ErrorBody), (status = 404, description = "NOT_FOUND: scope", body = ErrorBody)))]
pub async fn create_override(
    State(state): State<AppState>,
    auth: AdminAuth,
    Json(input): Json<DateRuleInput>,
) -> ApiResult<(StatusCode, axum::Json<DateRuleChange>)> {
    create_rule(state, auth, input, DateRuleKind::Override).await
}

/// List schedule overrides.
#[utoipa::path(get, path = "/api/v1/admin/schedules/overrides", tag = "schedules", security(("bearer" = [])),
    params(("x-tenant-id" = String, Header, description = "Tenant id"), ScopeFilter),
    responses((status = 200, body = DateRuleList)))]
pub async fn list_overrides(
    State(state): State<AppState>,
    auth: AdminAuth,
    Query(filter): Query<ScopeFilter>,
) -> ApiResult<axum::Json<DateRuleList>> {
    list_rules(state, auth, filter, DateRuleKind::Override).await
}

/// Read an override.
#[utoipa::path(get, path = "/api/v1/admin/schedules/overrides/{id}", tag = "schedules", security(("bearer" = [])),
    params(("x-tenant-id" = String, Header, description = "Tenant id"), ("id" = String, Path, description = "Override id")),
    responses((status = 200, body = DateRuleDto), (status = 404, description = "NOT_FOUND", body = ErrorBody)))]
pub async fn get_override(
    State(state): State<AppState>,
    auth: AdminAuth,
    Path(id): Path<String>,
) -> ApiResult<axum::Json<DateRuleDto>> {
    get_rule(state, auth, id, DateRuleKind::Override, "Override").await
}

/// Delete an override; regenerates its dates.
#[utoipa::path(delete, path = "/api/v1/admin/schedules/overrides/{id}", tag = "schedules", security(("bearer" = [])),
    params(("x-tenant-id" = String, Header, description = "Tenant id"), ("id" = String, Path, description = "Override id")),
    responses((status = 200, body = DateRuleChange), (status = 404, description = "NOT_FOUND", body = ErrorBody)))]
pub async fn delete_override(
    State(state): State<AppState>,
    auth: AdminAuth,
    Path(id): Path<String>,
) -> ApiResult<axum::Json<DateRuleChange>> {
    delete_rule(state, auth, id, DateRuleKind::Override, "Override").await
}

/// Create a blackout; regenerates its dates. Booked slots under it are reported.
#[utoipa::path(post, path = "/api/v1/admin/schedules/blackouts", tag = "schedules", security(("bearer" = [])),
    params(("x-tenant-id" = String, Header, description = "Tenant id")),
    request_body = DateRuleInput,
    responses((status = 201, description = "Created; warnings list bookings under the blackout", body = DateRuleChange),
        (status = 400, description = "VALIDATION_ERROR", body = ErrorBody), (status = 404, description = "NOT_FOUND: scope", body = ErrorBody)))]
pub async fn create_blackout(
    State(state): State<AppState>,
    auth: AdminAuth,
    Json(input): Json<DateRuleInput>,
) -> ApiResult<(StatusCode, axum::Json<DateRuleChange>)> {
    create_rule(state, auth, input, DateRuleKind::Blackout).await
}

/// List blackouts.
#[utoipa::path(get, path = "/api/v1/admin/schedules/blackouts", tag = "schedules", security(("bearer" = [])),
    params(("x-tenant-id" = String, Header, description = "Tenant id"), ScopeFilter),
    responses((status = 200, body = DateRuleList)))]
pub async fn list_blackouts(
    State(state): State<AppState>,
    auth: AdminAuth,
    Query(filter): Query<ScopeFilter>,
) -> ApiResult<axum::Json<DateRuleList>> {
    list_rules(state, auth, filter, DateRuleKind::Blackout).await
}

/// Read a blackout.
#[utoipa::path(get, path = "/api/v1/admin/schedules/blackouts/{id}", tag = "schedules", security(("bearer" = [])),
    params(("x-tenant-id" = String, Header, description = "Tenant id"), ("id" = String, Path, description = "Blackout id")),
    responses((status = 200, body = DateRuleDto), (status = 404, description = "NOT_FOUND", body = ErrorBody)))]
pub async fn get_blackout(
    State(state): State<AppState>,
    auth: AdminAuth,
    Path(id): Path<String>,
) -> ApiResult<axum::Json<DateRuleDto>> {
    get_rule(state, auth, id, DateRuleKind::Blackout, "Blackout").await
}

/// Delete a blackout; regenerates its dates.
#[utoipa::path(delete, path = "/api/v1/admin/schedules/blackouts/{id}", tag = "schedules", security(("bearer" = [])),
    params(("x-tenant-id" = String, Header, description = "Tenant id"), ("id" = String, Path, description = "Blackout id")),
    responses((status = 200, body = DateRuleChange), (status = 404, description = "NOT_FOUND", body = ErrorBody)))]
pub async fn delete_blackout(
    State(state): State<AppState>,
    auth: AdminAuth,
    Path(id): Path<String>,
) -> ApiResult<axum::Json<DateRuleChange>> {
    delete_rule(state, auth, id, DateRuleKind::Blackout, "Blackout").await
}

// ───────────────────────────── regeneration ─────────────────────────────

#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RegenerateRequest {
    pub scope_type: Option<String>,
    pub scope_id: Option<String>,
    /// Default today (site time); never before today.
    pub date_from: Option<String>,
    /// Default today + 60 days; never beyond.
    pub date_to: Option<String>,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RegenerateResponse {
    pub dry_run: bool,
    pub scope_type: String,
    pub scope_id: String,
    #[serde(flatten)]
    pub result: RegenerationDto,
}

async fn regenerate_scope(
    state: AppState,
    auth: AdminAuth,
    body: RegenerateRequest,
    dry_run: bool,
) -> ApiResult<axum::Json<RegenerateResponse>> {
    auth.require(perm::WRITE)?;
    let mut errors = FieldErrors::new();
    let scope = parse_scope(
        &mut errors,
        body.scope_type.as_deref(),
        body.scope_id.as_deref(),
    );
    let from = body
        .date_from
        .as_deref()
        .and_then(|d| parse_date(&mut errors, "dateFrom", d));
    let to = body
        .date_to
        .as_deref()
        .and_then(|d| parse_date(&mut errors, "dateTo", d));
    if let (Some(f), Some(t)) = (from, to) {
        if f > t {
            errors.add("dateFrom", "must not be after dateTo");
        }
    }
    errors.finish().map_err(ApiError::validation)?;
    let Some((scope_type, scope_id)) = scope else {
        return Err(ApiError::validation(FieldErrors::new()));
    };
    let report = state
        .store
        .regenerate(
            auth.tenant.id(),
            scope_type.as_str(),
            scope_id,
            DateSpan { from, to },
            state.now(),
            dry_run,
        )
        .await
        .map_err(scope_missing)?;
    Ok(axum::Json(RegenerateResponse {
        dry_run,
        scope_type: scope_type.as_str().to_owned(),
        scope_id: scope_id.to_string(),
        result: report.into(),
    }))
}

/// Preview a regeneration: what would be created, deleted, orphaned and kept. Writes nothing.
#[utoipa::path(post, path = "/api/v1/admin/schedules/regenerate/preview", tag = "schedules", security(("bearer" = [])),
    params(("x-tenant-id" = String, Header, description = "Tenant id")),
    request_body = RegenerateRequest,
    responses((status = 200, body = RegenerateResponse), (status = 400, description = "VALIDATION_ERROR", body = ErrorBody), (status = 404, description = "NOT_FOUND: scope", body = ErrorBody)))]
pub async fn preview_regeneration(
    State(state): State<AppState>,
    auth: AdminAuth,
    Json(body): Json<RegenerateRequest>,
) -> ApiResult<axum::Json<RegenerateResponse>> {
    regenerate_scope(state, auth, body, true).await
}

/// Regenerate a scope's slots now.
#[utoipa::path(post, path = "/api/v1/admin/schedules/regenerate", tag = "schedules", security(("bearer" = [])),
    params(("x-tenant-id" = String, Header, description = "Tenant id")),
    request_body = RegenerateRequest,
    responses((status = 200, body = RegenerateResponse), (status = 400, description = "VALIDATION_ERROR", body = ErrorBody), (status = 404, description = "NOT_FOUND: scope", body = ErrorBody)))]
pub async fn regenerate(
    State(state): State<AppState>,
    auth: AdminAuth,
    Json(body): Json<RegenerateRequest>,
) -> ApiResult<axum::Json<RegenerateResponse>> {
    regenerate_scope(state, auth, body, false).await
}
