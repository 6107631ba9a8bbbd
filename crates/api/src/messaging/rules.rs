//! `/api/v1/admin/messaging/automation-rules…` (spec Part B 2.7, 4.7): when messages go
//! out without anyone sending them. Every tenant starts with the rules of spec 4.8
//! (`defaultKey` set), which it may switch off, change or delete.

use super::error::invalid;
use crate::error::{ApiError, ApiResult, ShapeBBody};
use crate::extract::{Json, Query, Staff, bool_param, can, nullable, optional_choice, path_id};
use crate::openapi::schemas::{OffsetUnitSchema, TriggerEventSchema};
use crate::state::AppState;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use chrono::{DateTime, Utc};
use kairos_domain::FieldErrors;
use kairos_domain::messaging::automation::{MAX_OFFSET_HOURS, OffsetUnit, TriggerEvent};
use kairos_domain::messaging::catalog;
use kairos_store::{AutomationRule, AutomationRuleFilter, AutomationRulePatch, NewAutomationRule};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

/// Most products or sites a rule may name.
const SCOPE_MAX: usize = 100;

/// An automation rule (spec Part B 2.7).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AutomationRuleDto {
    pub id: Uuid,
    pub tenant_id: String,
    pub name: String,
    pub description: String,
    #[schema(value_type = TriggerEventSchema)]
    pub trigger_event: String,
    /// Negative: before the anchor (the booking's start for booking_date).
    pub trigger_offset: i32,
    #[schema(value_type = OffsetUnitSchema)]
    pub trigger_offset_unit: String,
    /// The template key whose templates are sent (every channel that has one).
    pub template_key: String,
    /// A particular template instead of resolving by key; null: by key.
    pub template_id: Option<Uuid>,
    /// Empty: every product.
    pub product_ids: Vec<Uuid>,
    /// Empty: every site.
    pub site_ids: Vec<Uuid>,
    pub is_active: bool,
    /// Which default rule of the product this is (spec 4.8); null for the tenant's own.
    pub default_key: Option<String>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

fn dto(r: AutomationRule, tenant: &str) -> AutomationRuleDto {
    AutomationRuleDto {
        id: r.id,
        tenant_id: tenant.to_owned(),
        name: r.name,
        description: r.description,
        trigger_event: r.trigger_event.as_str().to_owned(),
        trigger_offset: r.trigger_offset,
        trigger_offset_unit: r.trigger_offset_unit.as_str().to_owned(),
        template_key: r.template_key,
        template_id: r.template_id,
        product_ids: r.product_ids,
        site_ids: r.site_ids,
        is_active: r.is_active,
        default_key: r.default_key,
        created_at: r.created_at,
        updated_at: r.updated_at,
    }
}

/// Query of `GET /admin/messaging/automation-rules`.
#[derive(Debug, Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query, rename_all = "camelCase")]
pub struct RulesQuery {
    #[param(value_type = Option<TriggerEventSchema>, inline)]
    pub trigger_event: Option<String>,
    #[param(value_type = Option<bool>)]
    pub is_active: Option<String>,
    #[param(max_length = 64)]
    pub template_key: Option<String>,
}

/// `{rules, total}`.
#[derive(Debug, Serialize, ToSchema)]
pub struct AutomationRuleList {
    pub rules: Vec<AutomationRuleDto>,
    pub total: usize,
}

/// List the tenant's rules. Needs `admin:read`.
#[utoipa::path(get, path = "/api/v1/admin/messaging/automation-rules", tag = "messaging", security(("bearer" = [])),
    params(RulesQuery),
    responses((status = 200, body = AutomationRuleList),
        (status = 400, description = "Shape B with errors[]", body = ShapeBBody)))]
pub async fn list_rules(
    State(state): State<AppState>,
    auth: Staff<can::Read>,
    Query(q): Query<RulesQuery>,
) -> ApiResult<axum::Json<AutomationRuleList>> {
    let mut errors = FieldErrors::new();
    let trigger_event = optional_choice(
        &mut errors,
        "triggerEvent",
        q.trigger_event.as_deref(),
        TriggerEvent::parse,
        TriggerEvent::choices,
    );
    let is_active = q
        .is_active
        .as_deref()
        .filter(|s| !s.is_empty())
        .map(|raw| bool_param(&mut errors, "isActive", Some(raw), true));
    let template_key = super::fields::bounded(&mut errors, "templateKey", q.template_key, 64);
    errors.finish().map_err(invalid)?;
    let rules = state
        .store
        .list_automation_rules(
            auth.tenant.id(),
            &AutomationRuleFilter {
                trigger_event,
                is_active,
                template_key,
            },
        )
        .await?;
    let tenant = auth.tenant.id().as_str();
    Ok(axum::Json(AutomationRuleList {
        total: rules.len(),
        rules: rules.into_iter().map(|r| dto(r, tenant)).collect(),
    }))
}

fn rule_id(raw: &str) -> ApiResult<Uuid> {
    path_id(raw, "Automation rule").map_err(ApiError::shape_b)
}

/// Read a rule. Needs `admin:read`.
#[utoipa::path(get, path = "/api/v1/admin/messaging/automation-rules/{id}", tag = "messaging", security(("bearer" = [])),
    params(("id" = Uuid, Path)),
    responses((status = 200, body = AutomationRuleDto),
        (status = 404, description = "Automation rule not found (shape B)", body = ShapeBBody)))]
pub async fn get_rule(
    State(state): State<AppState>,
    auth: Staff<can::Read>,
    Path(id): Path<String>,
) -> ApiResult<axum::Json<AutomationRuleDto>> {
    let id = rule_id(&id)?;
    let r = state
        .store
        .get_automation_rule(auth.tenant.id(), id)
        .await?
        .ok_or_else(|| ApiError::not_found("Automation rule").shape_b())?;
    Ok(axum::Json(dto(r, auth.tenant.id().as_str())))
}

/// A rule to create, or (every field optional) the fields to change.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AutomationRuleInput {
    #[schema(min_length = 1, max_length = 200)]
    pub name: Option<String>,
    #[schema(max_length = 1000)]
    pub description: Option<String>,
    #[schema(value_type = Option<TriggerEventSchema>)]
    pub trigger_event: Option<String>,
    /// Default 0. Negative: before. At most a year either way.
    #[schema(minimum = -8784, maximum = 8784)]
    pub trigger_offset: Option<i64>,
    /// Default `hours`.
    #[schema(value_type = Option<OffsetUnitSchema>)]
    pub trigger_offset_unit: Option<String>,
    #[schema(pattern = "^[a-z][a-z0-9_]{0,63}$")]
    pub template_key: Option<String>,
    /// null: resolve by templateKey.
    #[serde(default, deserialize_with = "nullable")]
    #[schema(value_type = Option<Uuid>)]
    pub template_id: Option<Option<String>>,
    #[schema(max_items = 100, value_type = Option<Vec<Uuid>>)]
    pub product_ids: Option<Vec<String>>,
    #[schema(max_items = 100, value_type = Option<Vec<Uuid>>)]
    pub site_ids: Option<Vec<String>>,
    /// Default true.
    pub is_active: Option<bool>,
}

crate::openapi::schemas::create_form!(
    /// An automation rule to create.
    AutomationRuleCreate = AutomationRuleInput,
    "AutomationRuleCreate",
    ["name", "triggerEvent", "templateKey"]
);

fn ids(errors: &mut FieldErrors, field: &str, raw: Option<Vec<String>>) -> Option<Vec<Uuid>> {
    let raw = raw?;
    if raw.len() > SCOPE_MAX {
        errors.add(field, format!("must name at most {SCOPE_MAX}"));
        return None;
    }
    let mut out = Vec::with_capacity(raw.len());
    for (i, r) in raw.iter().enumerate() {
        match kairos_domain::ids::parse_id(r) {
            Some(id) if !out.contains(&id) => out.push(id),
            Some(_) => {}
            None => errors.add(format!("{field}[{i}]"), "must be a UUID"),
        }
    }
    Some(out)
}

/// The checked fields of an input, as a patch; `create` requires the rule's own fields.
fn check(input: AutomationRuleInput, create: bool) -> Result<AutomationRulePatch, FieldErrors> {
    let mut errors = FieldErrors::new();
    let name = input.name.map(|n| n.trim().to_owned());
    match &name {
        None if create => errors.add("name", "is required"),
        Some(n) if n.is_empty() || n.chars().count() > 200 => {
            errors.add("name", "must be 1 to 200 characters");
        }
        _ => {}
    }
    if input
        .description
        .as_ref()
        .is_some_and(|d| d.chars().count() > 1000)
    {
        errors.add("description", "must be at most 1000 characters");
    }
    let trigger_event = match input.trigger_event.as_deref() {
        None => {
            if create {
                errors.add("triggerEvent", "is required");
            }
            None
        }
        Some(raw) => {
            let t = TriggerEvent::parse(raw);
            if t.is_none() {
                errors.add(
                    "triggerEvent",
                    format!("must be {}", TriggerEvent::choices()),
                );
            }
            t
        }
    };
    let unit = match input.trigger_offset_unit.as_deref() {
        None => None,
        Some(raw) => {
            let u = OffsetUnit::parse(raw);
            if u.is_none() {
                errors.add(
                    "triggerOffsetUnit",
                    format!("must be {}", OffsetUnit::choices()),
                );
            }
            u
        }
    };
    let offset = match input.trigger_offset {
        None => None,
        Some(o) => {
            let limit = match unit.unwrap_or(OffsetUnit::Hours) {
                OffsetUnit::Hours => MAX_OFFSET_HOURS,
                OffsetUnit::Days => MAX_OFFSET_HOURS / 24,
            };
            if o.abs() > limit {
                errors.add(
                    "triggerOffset",
                    format!("must be from -{limit} to {limit} (a year)"),
                );
                None
            } else {
                i32::try_from(o).ok()
            }
        }
    };
    let template_key = input.template_key.map(|k| k.trim().to_owned());
    match &template_key {
        None if create => errors.add("templateKey", "is required"),
        Some(k) if !super::fields::valid_key(k) => {
            errors.add("templateKey", super::fields::KEY_RULE)
        }
        _ => {}
    }
    let template_id = match input.template_id {
        None => None,
        Some(None) => Some(None),
        Some(Some(raw)) => match kairos_domain::ids::parse_id(&raw) {
            Some(id) => Some(Some(id)),
            None => {
                errors.add("templateId", "must be a UUID");
                None
            }
        },
    };
    let product_ids = ids(&mut errors, "productIds", input.product_ids);
    let site_ids = ids(&mut errors, "siteIds", input.site_ids);
    errors.finish()?;
    Ok(AutomationRulePatch {
        name,
        description: input.description,
        trigger_event,
        trigger_offset: offset,
        trigger_offset_unit: unit,
        template_key,
        template_id,
        product_ids,
        site_ids,
        is_active: input.is_active,
    })
}

/// A template id a rule names must be the tenant's or a global default.
async fn check_template(
    state: &AppState,
    auth: &Staff<can::Write>,
    id: Option<Uuid>,
) -> ApiResult<()> {
    let Some(id) = id else { return Ok(()) };
    if catalog::global_by_id(id).is_some()
        || state
            .store
            .get_message_template(auth.tenant.id(), id)
            .await?
            .is_some()
    {
        return Ok(());
    }
    Err(ApiError::not_found("Template").shape_b())
}

/// Create a rule. Needs `admin:write`.
#[utoipa::path(post, path = "/api/v1/admin/messaging/automation-rules", tag = "messaging", security(("bearer" = [])),
    request_body = AutomationRuleCreate,
    responses((status = 201, body = AutomationRuleDto),
        (status = 400, description = "Shape B with errors[]: a missing or bad field", body = ShapeBBody),
        (status = 404, description = "A site, product or template it names does not exist (shape B)", body = ShapeBBody)))]
pub async fn create_rule(
    State(state): State<AppState>,
    auth: Staff<can::Write>,
    Json(input): Json<AutomationRuleInput>,
) -> ApiResult<(StatusCode, axum::Json<AutomationRuleDto>)> {
    let p = check(input, true).map_err(invalid)?;
    let (Some(name), Some(trigger_event), Some(template_key)) =
        (p.name, p.trigger_event, p.template_key)
    else {
        return Err(invalid(FieldErrors::new()));
    };
    let template_id = p.template_id.flatten();
    check_template(&state, &auth, template_id).await?;
    let rule = state
        .store
        .create_automation_rule(
            auth.tenant.id(),
            NewAutomationRule {
                name,
                description: p.description.unwrap_or_default(),
                trigger_event,
                trigger_offset: p.trigger_offset.unwrap_or(0),
                trigger_offset_unit: p.trigger_offset_unit.unwrap_or(OffsetUnit::Hours),
                template_key,
                template_id,
                product_ids: p.product_ids.unwrap_or_default(),
                site_ids: p.site_ids.unwrap_or_default(),
                is_active: p.is_active.unwrap_or(true),
            },
            &auth.actor(),
            state.now(),
        )
        .await?;
    Ok((
        StatusCode::CREATED,
        axum::Json(dto(rule, auth.tenant.id().as_str())),
    ))
}

/// Change the given fields of a rule (`isActive: false` switches it off). Needs
/// `admin:write`.
#[utoipa::path(put, path = "/api/v1/admin/messaging/automation-rules/{id}", tag = "messaging", security(("bearer" = [])),
    params(("id" = Uuid, Path)),
    request_body = AutomationRuleInput,
    responses((status = 200, body = AutomationRuleDto),
        (status = 400, description = "Shape B with errors[]", body = ShapeBBody),
        (status = 404, description = "Automation rule not found, or a site, product or template it names (shape B)", body = ShapeBBody)))]
pub async fn update_rule(
    State(state): State<AppState>,
    auth: Staff<can::Write>,
    Path(id): Path<String>,
    Json(input): Json<AutomationRuleInput>,
) -> ApiResult<axum::Json<AutomationRuleDto>> {
    let id = rule_id(&id)?;
    let patch = check(input, false).map_err(invalid)?;
    check_template(&state, &auth, patch.template_id.flatten()).await?;
    let rule = state
        .store
        .update_automation_rule(auth.tenant.id(), id, patch, &auth.actor(), state.now())
        .await?;
    Ok(axum::Json(dto(rule, auth.tenant.id().as_str())))
}

/// Delete a rule. Needs `admin:write`.
#[utoipa::path(delete, path = "/api/v1/admin/messaging/automation-rules/{id}", tag = "messaging", security(("bearer" = [])),
    params(("id" = Uuid, Path)),
    responses((status = 204, description = "Deleted"),
        (status = 404, description = "Automation rule not found (shape B)", body = ShapeBBody)))]
pub async fn delete_rule(
    State(state): State<AppState>,
    auth: Staff<can::Write>,
    Path(id): Path<String>,
) -> ApiResult<StatusCode> {
    let id = rule_id(&id)?;
    state
        .store
        .delete_automation_rule(auth.tenant.id(), id, &auth.actor(), state.now())
        .await?;
    Ok(StatusCode::NO_CONTENT)
}
