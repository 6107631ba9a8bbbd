//! Sites: `/api/v1/admin/sites`.

use super::{required_text, text};
use crate::error::{ApiError, ApiResult, ErrorBody};
use crate::extract::choose;
use crate::extract::{Json, Staff, can, nullable, path_id};
use crate::openapi::schemas::CancellationPolicySchema;
use crate::state::AppState;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use chrono::{DateTime, Utc};
use kairos_domain::FieldErrors;
use kairos_domain::catalog::CancellationPolicy;
use kairos_domain::customers::{Email, validate_phone};
use kairos_domain::scheduling::ScopeType;
use kairos_domain::tenancy::{Currency, parse_time_zone, validate_locale};
use kairos_store::{NewSite, Site};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// A site (venue location).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SiteDto {
    pub id: String,
    pub name: String,
    #[schema(example = "Europe/Helsinki")]
    pub timezone: String,
    #[schema(example = "EUR")]
    pub currency: String,
    #[schema(example = "en")]
    pub locale: String,
    pub address: Option<String>,
    pub contact_email: Option<String>,
    pub contact_phone: Option<String>,
    /// Hold time-to-live in minutes (default 15 when unset).
    pub hold_ttl_minutes: Option<i32>,
    #[schema(value_type = CancellationPolicySchema)]
    pub cancellation_policy: String,
    /// Minutes after a booking's start with no arrival recorded before it is marked a
    /// no-show automatically; null: off (the default).
    pub no_show_detection_minutes: Option<i32>,
    pub is_active: bool,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

impl From<Site> for SiteDto {
    fn from(s: Site) -> Self {
        Self {
            id: s.id.to_string(),
            name: s.name,
            timezone: s.timezone,
            currency: s.currency,
            locale: s.locale,
            address: s.address,
            contact_email: s.contact_email,
            contact_phone: s.contact_phone,
            hold_ttl_minutes: s.hold_ttl_minutes,
            cancellation_policy: s.cancellation_policy.as_str().to_owned(),
            no_show_detection_minutes: s.no_show_detection_minutes,
            is_active: s.is_active,
            created_at: s.created_at,
            updated_at: s.updated_at,
        }
    }
}

/// Site fields; on create `name` and `timezone` are required, on update every field is
/// optional and `null` clears an optional text field.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SiteInput {
    #[schema(min_length = 1, max_length = 200)]
    pub name: Option<String>,
    #[schema(min_length = 1, example = "Europe/Helsinki")]
    pub timezone: Option<String>,
    /// Default: the tenant's currency.
    #[schema(pattern = "^[A-Z]{3}$", example = "EUR")]
    pub currency: Option<String>,
    /// Default `en`.
    #[schema(pattern = "^[a-z]{2,3}([-_][A-Za-z0-9]{2,8})*$", example = "en")]
    pub locale: Option<String>,
    #[serde(default, deserialize_with = "nullable")]
    #[schema(value_type = Option<String>, max_length = 500)]
    pub address: Option<Option<String>>,
    #[serde(default, deserialize_with = "nullable")]
    #[schema(value_type = Option<crate::openapi::schemas::EmailOrEmptySchema>)]
    pub contact_email: Option<Option<String>>,
    #[serde(default, deserialize_with = "nullable")]
    #[schema(value_type = Option<String>, pattern = "^(|\\+?[ ().-]*([0-9][ ().-]*){6,20})$")]
    pub contact_phone: Option<Option<String>>,
    #[serde(default, deserialize_with = "nullable")]
    #[schema(value_type = Option<i32>, minimum = 1, maximum = 1440)]
    pub hold_ttl_minutes: Option<Option<i32>>,
    #[schema(value_type = Option<CancellationPolicySchema>)]
    pub cancellation_policy: Option<String>,
    /// Minutes after a booking's start with no arrival recorded before the booking is
    /// marked a no-show (1 to 1440); null switches detection off (the default).
    #[serde(default, deserialize_with = "nullable")]
    #[schema(value_type = Option<i32>, minimum = 1, maximum = 1440)]
    pub no_show_detection_minutes: Option<Option<i32>>,
    pub is_active: Option<bool>,
}

crate::openapi::schemas::create_form!(
    /// The create form of [`SiteInput`].
    SiteCreate = SiteInput,
    "SiteCreate",
    ["name", "timezone"]
);

#[derive(Debug, Serialize, ToSchema)]
pub struct SiteList {
    pub items: Vec<SiteDto>,
    pub total: usize,
}

/// Merges `input` over `base` and validates the result.
fn site_fields(
    input: SiteInput,
    base: NewSite,
    creating: bool,
) -> Result<(NewSite, Option<bool>), FieldErrors> {
    let mut errors = FieldErrors::new();
    let name = match (&input.name, creating) {
        (None, false) => base.name,
        (n, _) => required_text(&mut errors, "name", n.as_deref(), 200),
    };
    let timezone = match (&input.timezone, creating) {
        (None, false) => base.timezone,
        (None, true) => {
            errors.add("timezone", "is required");
            String::new()
        }
        (Some(tz), _) => {
            errors.check("timezone", parse_time_zone(tz));
            tz.trim().to_owned()
        }
    };
    let currency = match &input.currency {
        None => base.currency,
        Some(c) => errors
            .check("currency", Currency::parse(c))
            .map(|c| c.code().to_owned())
            .unwrap_or_default(),
    };
    let locale = match &input.locale {
        None => base.locale,
        Some(l) => {
            errors.check("locale", validate_locale(l.trim()));
            l.trim().to_owned()
        }
    };
    let address = match input.address {
        None => base.address,
        Some(a) => a
            .map(|a| text(&mut errors, "address", &a, 500))
            .filter(|a| !a.is_empty()),
    };
    let contact_email = match input.contact_email {
        None => base.contact_email,
        Some(None) => None,
        Some(Some(e)) if e.trim().is_empty() => None,
        Some(Some(e)) => errors
            .check("contactEmail", Email::parse(&e))
            .map(|e| e.into_string()),
    };
    let contact_phone = match input.contact_phone {
        None => base.contact_phone,
        Some(None) => None,
        Some(Some(p)) if p.trim().is_empty() => None,
        Some(Some(p)) => {
            errors.check("contactPhone", validate_phone(&p));
            Some(p.trim().to_owned())
        }
    };
    let hold_ttl_minutes = match input.hold_ttl_minutes {
        None => base.hold_ttl_minutes,
        Some(v) => {
            if v.is_some_and(|m| !(1..=1440).contains(&m)) {
                errors.add("holdTtlMinutes", "must be 1 to 1440 minutes");
            }
            v
        }
    };
    let no_show_detection_minutes = match input.no_show_detection_minutes {
        None => base.no_show_detection_minutes,
        Some(v) => {
            if v.is_some_and(|m| !(1..=1440).contains(&m)) {
                errors.add(
                    "noShowDetectionMinutes",
                    "must be 1 to 1440 minutes, or null (off)",
                );
            }
            v
        }
    };
    let cancellation_policy = choose(
        &mut errors,
        "cancellationPolicy",
        input.cancellation_policy.as_deref(),
        base.cancellation_policy,
        false,
        CancellationPolicy::parse,
        CancellationPolicy::choices(),
    );
    errors.finish()?;
    Ok((
        NewSite {
            name,
            timezone,
            currency,
            locale,
            address,
            contact_email,
            contact_phone,
            hold_ttl_minutes,
            cancellation_policy,
            no_show_detection_minutes,
        },
        input.is_active,
    ))
}

fn site_base(s: &Site) -> NewSite {
    NewSite {
        name: s.name.clone(),
        timezone: s.timezone.clone(),
        currency: s.currency.clone(),
        locale: s.locale.clone(),
        address: s.address.clone(),
        contact_email: s.contact_email.clone(),
        contact_phone: s.contact_phone.clone(),
        hold_ttl_minutes: s.hold_ttl_minutes,
        cancellation_policy: s.cancellation_policy,
        no_show_detection_minutes: s.no_show_detection_minutes,
    }
}

/// Create a site.
#[utoipa::path(post, path = "/api/v1/admin/sites", tag = "catalog", security(("bearer" = [])),
    request_body = SiteCreate,
    responses((status = 200, body = SiteDto), (status = 400, description = "VALIDATION_ERROR", body = ErrorBody),
        (status = 401, body = ErrorBody), (status = 403, description = "INSUFFICIENT_PERMISSIONS", body = ErrorBody)))]
pub async fn create_site(
    State(state): State<AppState>,
    auth: Staff<can::Write>,
    Json(input): Json<SiteInput>,
) -> ApiResult<(StatusCode, axum::Json<SiteDto>)> {
    let base = NewSite {
        name: String::new(),
        timezone: String::new(),
        currency: auth.tenant.0.currency.clone(),
        locale: "en".into(),
        address: None,
        contact_email: None,
        contact_phone: None,
        hold_ttl_minutes: None,
        cancellation_policy: CancellationPolicy::Standard,
        no_show_detection_minutes: None,
    };
    let (new, _) = site_fields(input, base, true).map_err(ApiError::validation)?;
    let site = state
        .store
        .create_site(auth.tenant.id(), new, &auth.actor(), state.now())
        .await?;
    Ok((StatusCode::OK, axum::Json(site.into())))
}

/// List sites.
#[utoipa::path(get, path = "/api/v1/admin/sites", tag = "catalog", security(("bearer" = [])),
    responses((status = 200, body = SiteList), (status = 401, body = ErrorBody), (status = 403, body = ErrorBody)))]
pub async fn list_sites(
    State(state): State<AppState>,
    auth: Staff<can::Read>,
) -> ApiResult<axum::Json<SiteList>> {
    let items: Vec<SiteDto> = state
        .store
        .list_sites(auth.tenant.id())
        .await?
        .into_iter()
        .map(SiteDto::from)
        .collect();
    Ok(axum::Json(SiteList {
        total: items.len(),
        items,
    }))
}

/// Read a site.
#[utoipa::path(get, path = "/api/v1/admin/sites/{id}", tag = "catalog", security(("bearer" = [])),
    params(("id" = uuid::Uuid, Path, description = "Site id")),
    responses((status = 200, body = SiteDto), (status = 404, description = "NOT_FOUND", body = ErrorBody)))]
pub async fn get_site(
    State(state): State<AppState>,
    auth: Staff<can::Read>,
    Path(id): Path<String>,
) -> ApiResult<axum::Json<SiteDto>> {
    let id = path_id(&id, "Site")?;
    let site = state
        .store
        .get_site(auth.tenant.id(), id)
        .await?
        .ok_or_else(|| ApiError::not_found("Site"))?;
    Ok(axum::Json(site.into()))
}

/// Update a site (partial).
#[utoipa::path(patch, path = "/api/v1/admin/sites/{id}", tag = "catalog", security(("bearer" = [])),
    params(("id" = uuid::Uuid, Path, description = "Site id")),
    request_body = SiteInput,
    responses((status = 200, body = SiteDto), (status = 400, description = "VALIDATION_ERROR", body = ErrorBody),
        (status = 404, description = "NOT_FOUND", body = ErrorBody)))]
pub async fn update_site(
    State(state): State<AppState>,
    auth: Staff<can::Write>,
    Path(id): Path<String>,
    Json(input): Json<SiteInput>,
) -> ApiResult<axum::Json<SiteDto>> {
    let id = path_id(&id, "Site")?;
    let current = state
        .store
        .get_site(auth.tenant.id(), id)
        .await?
        .ok_or_else(|| ApiError::not_found("Site"))?;
    let (new, active) =
        site_fields(input, site_base(&current), false).map_err(ApiError::validation)?;
    let site = state
        .store
        .update_site(
            auth.tenant.id(),
            id,
            new,
            active.unwrap_or(current.is_active),
            &auth.actor(),
            state.now(),
        )
        .await?;
    // The time zone or the products' hours may have moved: slots follow at once.
    state
        .store
        .regenerate(
            auth.tenant.id(),
            ScopeType::Site,
            site.id,
            kairos_store::DateSpan::default(),
            state.now(),
            false,
        )
        .await?;
    Ok(axum::Json(site.into()))
}

/// Deactivate a site: it leaves the public catalog; its history stays.
#[utoipa::path(delete, path = "/api/v1/admin/sites/{id}", tag = "catalog", security(("bearer" = [])),
    params(("id" = uuid::Uuid, Path, description = "Site id")),
    responses((status = 200, body = SiteDto), (status = 404, description = "NOT_FOUND", body = ErrorBody)))]
pub async fn deactivate_site(
    State(state): State<AppState>,
    auth: Staff<can::Write>,
    Path(id): Path<String>,
) -> ApiResult<axum::Json<SiteDto>> {
    let id = path_id(&id, "Site")?;
    let current = state
        .store
        .get_site(auth.tenant.id(), id)
        .await?
        .ok_or_else(|| ApiError::not_found("Site"))?;
    let site = state
        .store
        .update_site(
            auth.tenant.id(),
            id,
            site_base(&current),
            false,
            &auth.actor(),
            state.now(),
        )
        .await?;
    Ok(axum::Json(site.into()))
}

// ───────────────────────────── products ─────────────────────────────
