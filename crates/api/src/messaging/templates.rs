//! `/api/v1/admin/messaging/templates…` (spec Part B 4.7): a tenant's message templates
//! beside the global defaults that ship with the product, and resolution by key. The
//! field rules are in `fields.rs`, previews in `preview.rs`.

use super::error::invalid;
use super::fields::{Checked, bounded, channel_choice, check_template, text_field};
use crate::error::{ApiError, ApiResult, ShapeBBody};
use crate::extract::{Json, Query, Staff, bool_param, can, nullable, path_id, uuid_param};
use crate::openapi::schemas::TemplateTypeSchema;
use crate::state::AppState;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use chrono::{DateTime, Utc};
use kairos_domain::FieldErrors;
use kairos_domain::messaging::Channel;
use kairos_domain::messaging::catalog::{
    self, DefaultTemplate, FALLBACK_LANGUAGE, KINDS, Resolved, Scoped,
};
use kairos_store::{
    MessageTemplate, MessageTemplateFilter, MessageTemplatePatch, NewMessageTemplate,
};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

/// When the global defaults were first shipped: their `createdAt` and `updatedAt`.
const GLOBAL_SINCE: &str = "2026-11-24T00:00:00Z";

/// A message template (spec Part B 2.7): a tenant's own, or a global default
/// (`isGlobal`, `tenantId` null), which cannot be changed but can be overridden by a
/// tenant template with the same key.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MessageTemplateDto {
    pub id: Uuid,
    /// null for a global default.
    pub tenant_id: Option<String>,
    /// null: tenant-wide.
    pub site_id: Option<Uuid>,
    pub template_key: String,
    #[schema(example = "en")]
    pub language_code: String,
    pub subject_template: String,
    /// HTML for email, plain text for SMS.
    pub body_template: String,
    #[schema(value_type = TemplateTypeSchema)]
    pub template_type: String,
    pub is_global: bool,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

fn own_dto(t: MessageTemplate, tenant: &str) -> MessageTemplateDto {
    MessageTemplateDto {
        id: t.id,
        tenant_id: Some(tenant.to_owned()),
        site_id: t.site_id,
        template_key: t.template_key,
        language_code: t.language_code,
        subject_template: t.subject_template,
        body_template: t.body_template,
        template_type: t.template_type.as_str().to_owned(),
        is_global: false,
        created_at: t.created_at,
        updated_at: t.updated_at,
    }
}

fn global_dto(d: DefaultTemplate) -> MessageTemplateDto {
    let since = GLOBAL_SINCE.parse().unwrap_or_default();
    MessageTemplateDto {
        id: d.id(),
        tenant_id: None,
        site_id: None,
        template_key: d.key.to_owned(),
        language_code: FALLBACK_LANGUAGE.to_owned(),
        subject_template: d.subject.to_owned(),
        body_template: d.body.to_owned(),
        template_type: d.channel.as_str().to_owned(),
        is_global: true,
        created_at: since,
        updated_at: since,
    }
}

/// Resolution looks at stored templates through this view.
struct Stored<'a>(&'a MessageTemplate);

impl Scoped for Stored<'_> {
    fn site_id(&self) -> Option<Uuid> {
        self.0.site_id
    }
    fn language(&self) -> &str {
        &self.0.language_code
    }
    fn channel(&self) -> Channel {
        self.0.template_type
    }
}

/// `{templates, total}`.
#[derive(Debug, Serialize, ToSchema)]
pub struct MessageTemplateList {
    pub templates: Vec<MessageTemplateDto>,
    pub total: usize,
}

/// Query of `GET /admin/messaging/templates`.
#[derive(Debug, Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query, rename_all = "camelCase")]
pub struct ListQuery {
    #[param(max_length = 64)]
    pub template_key: Option<String>,
    #[param(max_length = 12)]
    pub language_code: Option<String>,
    #[param(value_type = Option<TemplateTypeSchema>, inline)]
    pub template_type: Option<String>,
    /// This site's templates plus the tenant-wide ones (and the global defaults).
    #[param(value_type = Option<Uuid>)]
    pub site_id: Option<String>,
    /// Include the global defaults (default true).
    #[param(value_type = Option<bool>)]
    pub include_global: Option<String>,
}

/// List templates: the tenant's and (unless `includeGlobal=false`) the global defaults,
/// by key, language and type. Needs `admin:read`.
#[utoipa::path(get, path = "/api/v1/admin/messaging/templates", tag = "messaging", security(("bearer" = [])),
    params(ListQuery),
    responses((status = 200, body = MessageTemplateList),
        (status = 400, description = "Shape B with errors[] naming each bad parameter", body = ShapeBBody),
        (status = 403, description = "INSUFFICIENT_PERMISSIONS or TENANT_MISMATCH (shape B)", body = ShapeBBody)))]
pub async fn list_templates(
    State(state): State<AppState>,
    auth: Staff<can::Read>,
    Query(q): Query<ListQuery>,
) -> ApiResult<axum::Json<MessageTemplateList>> {
    let mut errors = FieldErrors::new();
    let template_type = channel_choice(&mut errors, q.template_type.as_deref());
    let site_id = uuid_param(&mut errors, "siteId", q.site_id.as_deref());
    let include_global = bool_param(
        &mut errors,
        "includeGlobal",
        q.include_global.as_deref(),
        true,
    );
    let template_key = bounded(&mut errors, "templateKey", q.template_key, 64);
    let language_code = bounded(&mut errors, "languageCode", q.language_code, 12);
    errors.finish().map_err(invalid)?;
    let filter = MessageTemplateFilter {
        template_key: template_key.clone(),
        language_code: language_code.clone(),
        template_type,
        site_id,
    };
    let tenant = auth.tenant.id().as_str().to_owned();
    let mut templates: Vec<MessageTemplateDto> = state
        .store
        .list_message_templates(auth.tenant.id(), &filter)
        .await?
        .into_iter()
        .map(|t| own_dto(t, &tenant))
        .collect();
    if include_global {
        let globals = catalog::defaults().into_iter().filter(|d| {
            template_key.as_deref().is_none_or(|k| k == d.key)
                && language_code
                    .as_deref()
                    .is_none_or(|l| l == FALLBACK_LANGUAGE)
                && template_type.is_none_or(|c| c == d.channel)
        });
        templates.extend(globals.map(global_dto));
    }
    templates.sort_by(|a, b| {
        (
            &a.template_key,
            &a.language_code,
            &a.template_type,
            a.is_global,
        )
            .cmp(&(
                &b.template_key,
                &b.language_code,
                &b.template_type,
                b.is_global,
            ))
    });
    Ok(axum::Json(MessageTemplateList {
        total: templates.len(),
        templates,
    }))
}

/// A kind of message the product sends.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MessageKindDto {
    #[schema(example = "booking_confirmation")]
    pub key: String,
    pub name: String,
    pub description: String,
    /// Variables a template of this key may use in double braces.
    pub available_variables: Vec<String>,
}

/// The kinds of message the product sends, with the variables each may use. Needs
/// `admin:read`.
#[utoipa::path(get, path = "/api/v1/admin/messaging/templates/types", tag = "messaging", security(("bearer" = [])),
    responses((status = 200, body = Vec<MessageKindDto>),
        (status = 403, description = "INSUFFICIENT_PERMISSIONS or TENANT_MISMATCH (shape B)", body = ShapeBBody)))]
pub async fn template_types(_auth: Staff<can::Read>) -> axum::Json<Vec<MessageKindDto>> {
    axum::Json(
        KINDS
            .iter()
            .map(|k| MessageKindDto {
                key: k.key.to_owned(),
                name: k.name.to_owned(),
                description: k.description.to_owned(),
                available_variables: k.variables().into_iter().map(str::to_owned).collect(),
            })
            .collect(),
    )
}

fn template_id(raw: &str) -> ApiResult<Uuid> {
    path_id(raw, "Template").map_err(ApiError::shape_b)
}

/// Read a template by id: the tenant's own, or a global default. Needs `admin:read`.
#[utoipa::path(get, path = "/api/v1/admin/messaging/templates/{id}", tag = "messaging", security(("bearer" = [])),
    params(("id" = Uuid, Path)),
    responses((status = 200, body = MessageTemplateDto),
        (status = 403, description = "INSUFFICIENT_PERMISSIONS or TENANT_MISMATCH (shape B)", body = ShapeBBody),
        (status = 404, description = "Template not found (shape B)", body = ShapeBBody)))]
pub async fn get_template(
    State(state): State<AppState>,
    auth: Staff<can::Read>,
    Path(id): Path<String>,
) -> ApiResult<axum::Json<MessageTemplateDto>> {
    let id = template_id(&id)?;
    if let Some(d) = catalog::global_by_id(id) {
        return Ok(axum::Json(global_dto(d)));
    }
    let t = state
        .store
        .get_message_template(auth.tenant.id(), id)
        .await?
        .ok_or_else(|| ApiError::not_found("Template").shape_b())?;
    Ok(axum::Json(own_dto(t, auth.tenant.id().as_str())))
}

/// Query of `GET /admin/messaging/templates/key/{templateKey}`.
#[derive(Debug, Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query, rename_all = "camelCase")]
pub struct KeyQuery {
    /// Default `en`.
    #[param(max_length = 12)]
    pub language_code: Option<String>,
    #[param(value_type = Option<Uuid>)]
    pub site_id: Option<String>,
    /// Default `email`.
    #[param(value_type = Option<TemplateTypeSchema>, inline)]
    pub template_type: Option<String>,
}

/// The template a message of `templateKey` would use: the site's in the language, else the
/// tenant-wide one, else the global default; then the same in English. Needs `admin:read`.
#[utoipa::path(get, path = "/api/v1/admin/messaging/templates/key/{templateKey}", tag = "messaging", security(("bearer" = [])),
    params(("templateKey" = String, Path), KeyQuery),
    responses((status = 200, body = MessageTemplateDto),
        (status = 400, description = "Shape B with errors[]", body = ShapeBBody),
        (status = 403, description = "INSUFFICIENT_PERMISSIONS or TENANT_MISMATCH (shape B)", body = ShapeBBody),
        (status = 404, description = "Template not found: no template of this key in the language or in English (shape B)", body = ShapeBBody)))]
pub async fn template_by_key(
    State(state): State<AppState>,
    auth: Staff<can::Read>,
    Path(key): Path<String>,
    Query(q): Query<KeyQuery>,
) -> ApiResult<axum::Json<MessageTemplateDto>> {
    let mut errors = FieldErrors::new();
    let channel = channel_choice(&mut errors, q.template_type.as_deref()).unwrap_or(Channel::Email);
    let site = uuid_param(&mut errors, "siteId", q.site_id.as_deref());
    let language = q
        .language_code
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| FALLBACK_LANGUAGE.to_owned());
    errors.finish().map_err(invalid)?;
    let own = state
        .store
        .list_message_templates(
            auth.tenant.id(),
            &MessageTemplateFilter {
                template_key: Some(key.clone()),
                template_type: Some(channel),
                site_id: site,
                ..MessageTemplateFilter::default()
            },
        )
        .await?;
    let views: Vec<Stored<'_>> = own.iter().map(Stored).collect();
    let dto = match catalog::resolve(&views, &key, &language, channel, site) {
        Some(Resolved::Own(t)) => own_dto(t.0.clone(), auth.tenant.id().as_str()),
        Some(Resolved::Global(d)) => global_dto(d),
        None => return Err(ApiError::not_found("Template").shape_b()),
    };
    Ok(axum::Json(dto))
}

/// A template to create, or (every field optional) the fields to change.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MessageTemplateInput {
    /// Lower-case letters, digits and `_`, starting with a letter; one of the types or a
    /// key of the tenant's own (for its automation rules).
    #[schema(pattern = "^[a-z][a-z0-9_]{0,63}$", example = "booking_confirmation")]
    pub template_key: Option<String>,
    /// Default `en`. A language tag: `fi`, `en`, `pt-BR`.
    #[schema(pattern = "^[a-z]{2,3}(-[A-Za-z0-9]{2,8})?$", example = "fi")]
    pub language_code: Option<String>,
    /// Handlebars; may be empty for SMS.
    #[schema(max_length = 500)]
    pub subject_template: Option<String>,
    /// Handlebars; HTML for email (values are escaped), plain text for SMS (at most 1,600
    /// characters).
    #[schema(min_length = 1, max_length = 100000)]
    pub body_template: Option<String>,
    /// Default `email`.
    #[schema(value_type = Option<TemplateTypeSchema>)]
    pub template_type: Option<String>,
    /// null or absent: tenant-wide.
    #[serde(default, deserialize_with = "nullable")]
    #[schema(value_type = Option<Uuid>)]
    pub site_id: Option<Option<String>>,
}

crate::openapi::schemas::create_form!(
    /// A template to create.
    MessageTemplateCreate = MessageTemplateInput,
    "MessageTemplateCreate",
    ["templateKey", "subjectTemplate", "bodyTemplate"]
);

/// Create a template for the tenant or one of its sites. Needs `admin:write`.
#[utoipa::path(post, path = "/api/v1/admin/messaging/templates", tag = "messaging", security(("bearer" = [])),
    request_body = MessageTemplateCreate,
    responses((status = 201, body = MessageTemplateDto),
        (status = 400, description = "Shape B with errors[] {field, message}: a missing or bad field, a template that does not parse or render", body = ShapeBBody),
        (status = 404, description = "The site siteId names does not exist (shape B)", body = ShapeBBody),
        (status = 403, description = "INSUFFICIENT_PERMISSIONS or TENANT_MISMATCH (shape B)", body = ShapeBBody),
        (status = 409, description = "A template with this key, language, type and site already exists (shape B)", body = ShapeBBody)))]
pub async fn create_template(
    State(state): State<AppState>,
    auth: Staff<can::Write>,
    Json(input): Json<MessageTemplateInput>,
) -> ApiResult<(StatusCode, axum::Json<MessageTemplateDto>)> {
    let mut errors = FieldErrors::new();
    let template_key = text_field(&mut errors, "templateKey", input.template_key, true);
    let subject = text_field(&mut errors, "subjectTemplate", input.subject_template, true);
    let body = text_field(&mut errors, "bodyTemplate", input.body_template, true);
    let template_type = channel_choice(&mut errors, input.template_type.as_deref());
    let site_id = uuid_param(&mut errors, "siteId", input.site_id.flatten().as_deref());
    let (Some(template_key), Some(subject), Some(body)) = (template_key, subject, body) else {
        return Err(invalid(errors));
    };
    let checked = Checked {
        template_key,
        language_code: input
            .language_code
            .unwrap_or_else(|| FALLBACK_LANGUAGE.to_owned()),
        template_type: template_type.unwrap_or(Channel::Email),
        subject,
        body,
    };
    check_template(&mut errors, &checked);
    errors.finish().map_err(invalid)?;
    let t = state
        .store
        .create_message_template(
            auth.tenant.id(),
            NewMessageTemplate {
                site_id,
                template_key: checked.template_key,
                language_code: checked.language_code,
                template_type: checked.template_type,
                subject_template: checked.subject,
                body_template: checked.body,
            },
            &auth.actor(),
            state.now(),
        )
        .await?;
    Ok((
        StatusCode::CREATED,
        axum::Json(own_dto(t, auth.tenant.id().as_str())),
    ))
}

fn global_is_fixed() -> ApiError {
    ApiError::forbidden(
        "Global default templates cannot be changed or deleted; create a tenant template with the same templateKey to use instead",
    )
    .shape_b()
}

/// Change the given fields of a tenant's template (not a global default). Needs
/// `admin:write`.
#[utoipa::path(put, path = "/api/v1/admin/messaging/templates/{id}", tag = "messaging", security(("bearer" = [])),
    params(("id" = Uuid, Path)),
    request_body = MessageTemplateInput,
    responses((status = 200, body = MessageTemplateDto),
        (status = 400, description = "Shape B with errors[] {field, message}", body = ShapeBBody),
        (status = 403, description = "INSUFFICIENT_PERMISSIONS or TENANT_MISMATCH, or a global default (shape B)", body = ShapeBBody),
        (status = 404, description = "Template not found, or the site siteId names (shape B)", body = ShapeBBody),
        (status = 409, description = "A template with this key, language, type and site already exists (shape B)", body = ShapeBBody)))]
pub async fn update_template(
    State(state): State<AppState>,
    auth: Staff<can::Write>,
    Path(id): Path<String>,
    Json(input): Json<MessageTemplateInput>,
) -> ApiResult<axum::Json<MessageTemplateDto>> {
    let id = template_id(&id)?;
    if catalog::global_by_id(id).is_some() {
        return Err(global_is_fixed());
    }
    let current = state
        .store
        .get_message_template(auth.tenant.id(), id)
        .await?
        .ok_or_else(|| ApiError::not_found("Template").shape_b())?;
    let mut errors = FieldErrors::new();
    let template_type = channel_choice(&mut errors, input.template_type.as_deref());
    let site_id = match input.site_id {
        None => None,
        Some(None) => Some(None),
        Some(Some(raw)) => Some(uuid_param(&mut errors, "siteId", Some(&raw))),
    };
    // The whole template as it would be is checked; the store writes only the patch.
    let checked = Checked {
        template_key: input
            .template_key
            .clone()
            .unwrap_or_else(|| current.template_key.clone()),
        language_code: input
            .language_code
            .clone()
            .unwrap_or_else(|| current.language_code.clone()),
        template_type: template_type.unwrap_or(current.template_type),
        subject: input
            .subject_template
            .clone()
            .unwrap_or_else(|| current.subject_template.clone()),
        body: input
            .body_template
            .clone()
            .unwrap_or_else(|| current.body_template.clone()),
    };
    check_template(&mut errors, &checked);
    errors.finish().map_err(invalid)?;
    let t = state
        .store
        .update_message_template(
            auth.tenant.id(),
            id,
            MessageTemplatePatch {
                site_id,
                template_key: input.template_key,
                language_code: input.language_code,
                template_type,
                subject_template: input.subject_template,
                body_template: input.body_template,
            },
            &auth.actor(),
            state.now(),
        )
        .await?;
    Ok(axum::Json(own_dto(t, auth.tenant.id().as_str())))
}

/// Delete a tenant's template; messages then use the next template of the resolution
/// chain. Needs `admin:write`.
#[utoipa::path(delete, path = "/api/v1/admin/messaging/templates/{id}", tag = "messaging", security(("bearer" = [])),
    params(("id" = Uuid, Path)),
    responses((status = 204, description = "Deleted"),
        (status = 403, description = "INSUFFICIENT_PERMISSIONS or TENANT_MISMATCH, or a global default (shape B)", body = ShapeBBody),
        (status = 404, description = "Template not found (shape B)", body = ShapeBBody)))]
pub async fn delete_template(
    State(state): State<AppState>,
    auth: Staff<can::Write>,
    Path(id): Path<String>,
) -> ApiResult<StatusCode> {
    let id = template_id(&id)?;
    if catalog::global_by_id(id).is_some() {
        return Err(global_is_fixed());
    }
    state
        .store
        .delete_message_template(auth.tenant.id(), id, &auth.actor(), state.now())
        .await?;
    Ok(StatusCode::NO_CONTENT)
}
