//! `/api/v1/waivers/templates` and `GET /api/v1/waivers/active`.

use super::dto::{ActiveWaiver, WaiverTemplateDto};
use super::waiver_not_found;
use crate::bookings::{clean, free_text, short_text};
use crate::error::{ApiError, ApiResult, ErrorBody};
use crate::extract::{Json, Query, Staff, Tenant, bool_param, can, uuid_param};
use crate::state::AppState;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use kairos_domain::FieldErrors;
use kairos_domain::waivers::MAX_CONTENT_CHARS;
use kairos_store::NewWaiverTemplate;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

/// `s` written the usual way: the language in lower case, a region in upper case
/// (`EN-gb` → `en-GB`).
pub(super) fn normal_locale(s: &str) -> String {
    s.split(['-', '_'])
        .enumerate()
        .map(|(i, part)| match (i, part.len()) {
            (0, _) => part.to_ascii_lowercase(),
            (_, 2) => part.to_ascii_uppercase(),
            _ => part.to_owned(),
        })
        .collect::<Vec<_>>()
        .join("-")
}

/// Whether a text says something (a letter or digit, not only spaces or invisible marks).
fn says_something(s: &str) -> bool {
    s.chars().any(char::is_alphanumeric)
}

/// Whether `s` is a locale such as `en`, `fi` or `en-GB`.
pub(super) fn is_locale(s: &str) -> bool {
    let mut parts = s.split(['-', '_']);
    let language = parts.next().unwrap_or("");
    (2..=3).contains(&language.len())
        && language.chars().all(|c| c.is_ascii_alphabetic())
        && parts.all(|p| (2..=8).contains(&p.len()) && p.chars().all(|c| c.is_ascii_alphanumeric()))
        && s.len() <= 35
}

/// `POST /waivers/templates`.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct NewWaiverTemplateBody {
    /// Required, one line, at most 200 characters; the versions and languages of one
    /// waiver share its name.
    #[schema(example = "Climbing waiver")]
    pub name: Option<String>,
    /// Required: the text signers agree to (plain text, at most 100,000 characters).
    pub content: Option<String>,
    /// Required, for example en or fi.
    #[schema(example = "en")]
    pub locale: Option<String>,
    /// At most 40 characters; default: one more than the highest whole-number version of
    /// this name and locale. The earlier versions are deactivated.
    #[schema(example = "2")]
    pub version: Option<String>,
    /// The products it covers (none: every product).
    #[schema(value_type = Option<Vec<Uuid>>, max_items = 500)]
    pub product_ids: Option<Vec<String>>,
    /// The sites it covers (none: every site).
    #[schema(value_type = Option<Vec<Uuid>>, max_items = 500)]
    pub site_ids: Option<Vec<String>>,
}

/// Publish a waiver text: a new template, or a new version of a waiver (same name and
/// locale), which deactivates the versions before it (their signatures stay valid).
/// Sending the same version with the same text again answers it (200). Needs
/// `admin:write`.
#[utoipa::path(post, path = "/api/v1/waivers/templates", tag = "waivers", security(("bearer" = [])),
    request_body = NewWaiverTemplateBody,
    responses(
        (status = 201, body = WaiverTemplateDto),
        (status = 200, description = "The same version and text again", body = WaiverTemplateDto),
        (status = 400, description = "VALIDATION_ERROR", body = ErrorBody),
        (status = 403, description = "INSUFFICIENT_PERMISSIONS", body = ErrorBody),
        (status = 409, description = "CONFLICT: the version exists with other text", body = ErrorBody),
    ))]
pub async fn create_template(
    State(state): State<AppState>,
    auth: Staff<can::Write>,
    Json(body): Json<NewWaiverTemplateBody>,
) -> ApiResult<(StatusCode, axum::Json<WaiverTemplateDto>)> {
    let tenant = auth.tenant.id();
    let mut errors = FieldErrors::new();
    let name = clean(body.name.as_deref());
    match &name {
        None => errors.add("name", "is required"),
        Some(n) if !short_text(n, 200) => {
            errors.add("name", "must be one line of at most 200 characters")
        }
        Some(_) => {}
    }
    let content = body
        .content
        .as_deref()
        .map(str::trim)
        .filter(|c| !c.is_empty());
    match content {
        None => errors.add("content", "is required: the text signers agree to"),
        Some(c) if !free_text(c, MAX_CONTENT_CHARS) || !says_something(c) => errors.add(
            "content",
            format!(
                "must be at most {MAX_CONTENT_CHARS} characters without control characters, with letters or digits"
            ),
        ),
        Some(_) => {}
    }
    let locale = clean(body.locale.as_deref()).map(|l| normal_locale(&l));
    match &locale {
        None => errors.add("locale", "is required, for example en or fi"),
        Some(l) if !is_locale(l) => {
            errors.add("locale", "must be a language tag such as en, fi or en-GB")
        }
        Some(_) => {}
    }
    let version = clean(body.version.as_deref());
    if version.as_deref().is_some_and(|v| !short_text(v, 40)) {
        errors.add("version", "must be one line of at most 40 characters");
    }
    let mut ids = |field: &str, raw: Option<&[String]>| -> Vec<Uuid> {
        let raw = raw.unwrap_or_default();
        if raw.len() > 500 {
            errors.add(field, "must list at most 500 ids");
            return Vec::new();
        }
        let mut out: Vec<Uuid> = raw
            .iter()
            .enumerate()
            .filter_map(|(i, r)| uuid_param(&mut errors, &format!("{field}[{i}]"), Some(r)))
            .collect();
        out.sort();
        out.dedup();
        out
    };
    let product_ids = ids("productIds", body.product_ids.as_deref());
    let site_ids = ids("siteIds", body.site_ids.as_deref());
    for (i, p) in product_ids.iter().enumerate() {
        if state.store.get_product(tenant, *p).await?.is_none() {
            errors.add(format!("productIds[{i}]"), "is not a product of this venue");
        }
    }
    for (i, s) in site_ids.iter().enumerate() {
        if state.store.get_site(tenant, *s).await?.is_none() {
            errors.add(format!("siteIds[{i}]"), "is not a site of this venue");
        }
    }
    errors.finish().map_err(ApiError::validation)?;
    let (template, created) = state
        .store
        .create_waiver_template(
            tenant,
            NewWaiverTemplate {
                name: name.unwrap_or_default(),
                content: content.unwrap_or_default().to_owned(),
                locale: locale.unwrap_or_default(),
                version,
                product_ids,
                site_ids,
            },
            &auth.actor(),
            state.now(),
        )
        .await?;
    let status = if created {
        StatusCode::CREATED
    } else {
        StatusCode::OK
    };
    Ok((status, axum::Json(WaiverTemplateDto::of(&template))))
}

/// Query of `GET /waivers/templates`.
#[derive(Debug, Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query, rename_all = "camelCase")]
pub struct TemplatesQuery {
    /// true: only the versions in use.
    #[param(value_type = Option<bool>)]
    pub active_only: Option<String>,
    #[param(max_length = 35)]
    pub locale: Option<String>,
}

/// The templates.
#[derive(Debug, Serialize, ToSchema)]
pub struct WaiverTemplateList {
    pub templates: Vec<WaiverTemplateDto>,
}

/// The venue's waiver templates, every version (or only active ones). Needs
/// `admin:read`.
#[utoipa::path(get, path = "/api/v1/waivers/templates", tag = "waivers", security(("bearer" = [])),
    params(TemplatesQuery),
    responses(
        (status = 200, body = WaiverTemplateList),
        (status = 400, description = "VALIDATION_ERROR", body = ErrorBody),
        (status = 403, description = "INSUFFICIENT_PERMISSIONS", body = ErrorBody),
    ))]
pub async fn list_templates(
    State(state): State<AppState>,
    auth: Staff<can::Read>,
    Query(q): Query<TemplatesQuery>,
) -> ApiResult<axum::Json<WaiverTemplateList>> {
    let mut errors = FieldErrors::new();
    let active_only = bool_param(&mut errors, "activeOnly", q.active_only.as_deref(), false);
    let locale = clean(q.locale.as_deref());
    if locale.as_deref().is_some_and(|l| !is_locale(l)) {
        errors.add("locale", "must be a language tag such as en, fi or en-GB");
    }
    errors.finish().map_err(ApiError::validation)?;
    let all = state
        .store
        .waiver_templates(auth.tenant.id(), active_only, locale.as_deref())
        .await?;
    Ok(axum::Json(WaiverTemplateList {
        templates: all.iter().map(WaiverTemplateDto::of).collect(),
    }))
}

/// Stop using a template version. Signatures given on it stay valid; a booking it
/// covered is then covered by the waiver's newer version, if any. Needs `admin:write`.
#[utoipa::path(patch, path = "/api/v1/waivers/templates/{templateId}/deactivate", tag = "waivers", security(("bearer" = [])),
    params(("templateId" = Uuid, Path)),
    responses(
        (status = 200, body = WaiverTemplateDto),
        (status = 403, description = "INSUFFICIENT_PERMISSIONS", body = ErrorBody),
        (status = 404, description = "WAIVER_NOT_FOUND", body = ErrorBody),
    ))]
pub async fn deactivate_template(
    State(state): State<AppState>,
    auth: Staff<can::Write>,
    Path(id): Path<String>,
) -> ApiResult<axum::Json<WaiverTemplateDto>> {
    let id = kairos_domain::ids::parse_id(&id)
        .ok_or_else(|| waiver_not_found("Waiver template not found"))?;
    let t = state
        .store
        .deactivate_waiver_template(auth.tenant.id(), id, &auth.actor(), state.now())
        .await
        .map_err(|e| match e {
            kairos_store::WaiverError::WaiverNotFound => {
                waiver_not_found("Waiver template not found")
            }
            other => other.into(),
        })?;
    Ok(axum::Json(WaiverTemplateDto::of(&t)))
}

/// Query of `GET /waivers/active`.
#[derive(Debug, Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query, rename_all = "camelCase")]
pub struct ActiveQuery {
    /// The signer's language (default: any; a waiver in it comes first).
    #[param(max_length = 35)]
    pub locale: Option<String>,
    #[param(value_type = Option<Uuid>)]
    pub product_id: Option<String>,
    #[param(value_type = Option<Uuid>)]
    pub site_id: Option<String>,
}

/// The spec's envelope of the active waiver.
#[derive(Debug, Serialize, ToSchema)]
pub struct ActiveEnvelope {
    pub success: bool,
    pub data: ActiveWaiver,
}

/// The waiver in use for a product and site, in the signer's language when there is one
/// (else the newest). Without `productId` (`siteId`) only a waiver for every product
/// (site) answers. Public: only the tenant header.
#[utoipa::path(get, path = "/api/v1/waivers/active", tag = "waivers", security(()),
    params(ActiveQuery),
    responses(
        (status = 200, body = ActiveEnvelope),
        (status = 400, description = "VALIDATION_ERROR", body = ErrorBody),
        (status = 404, description = "WAIVER_NOT_FOUND: no active waiver covers them", body = ErrorBody),
    ))]
pub async fn active_waiver(
    State(state): State<AppState>,
    tenant: Tenant,
    Query(q): Query<ActiveQuery>,
) -> ApiResult<axum::Json<ActiveEnvelope>> {
    let mut errors = FieldErrors::new();
    let product = uuid_param(&mut errors, "productId", q.product_id.as_deref());
    let site = uuid_param(&mut errors, "siteId", q.site_id.as_deref());
    let locale = clean(q.locale.as_deref());
    if locale.as_deref().is_some_and(|l| !is_locale(l)) {
        errors.add("locale", "must be a language tag such as en, fi or en-GB");
    }
    errors.finish().map_err(ApiError::validation)?;
    // Ids that name nothing of this venue cover nothing.
    if let Some(p) = product
        && state.store.get_product(tenant.id(), p).await?.is_none()
    {
        return Err(waiver_not_found(
            "No such activity here, so no waiver for it",
        ));
    }
    if let Some(s) = site
        && state.store.get_site(tenant.id(), s).await?.is_none()
    {
        return Err(waiver_not_found("No such site here, so no waiver for it"));
    }
    let all = state
        .store
        .waiver_templates(tenant.id(), true, None)
        .await?;
    // Without a product (site), only a waiver for every product (site) answers.
    let mut covering: Vec<&kairos_store::WaiverTemplate> = all
        .iter()
        .filter(|t| match product {
            None => t.product_ids.is_empty(),
            Some(p) => t.product_ids.is_empty() || t.product_ids.contains(&p),
        })
        .filter(|t| match site {
            None => t.site_ids.is_empty(),
            Some(s) => t.site_ids.is_empty() || t.site_ids.contains(&s),
        })
        .collect();
    covering.sort_by_key(|t| std::cmp::Reverse(t.created_at));
    let language = |l: &str| {
        l.split(['-', '_'])
            .next()
            .unwrap_or("")
            .to_ascii_lowercase()
    };
    let chosen = locale
        .as_deref()
        .and_then(|l| covering.iter().find(|t| t.locale.eq_ignore_ascii_case(l)))
        .or_else(|| {
            locale
                .as_deref()
                .and_then(|l| covering.iter().find(|t| language(&t.locale) == language(l)))
        })
        .or_else(|| covering.first())
        .ok_or_else(|| waiver_not_found("No active waiver covers this product and site"))?;
    Ok(axum::Json(ActiveEnvelope {
        success: true,
        data: ActiveWaiver::of(chosen),
    }))
}
