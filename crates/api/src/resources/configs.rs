//! A product's resource add-on configurations (spec Part B 2.3): administered at
//! `/api/v1/admin/products/{id}/resource-addons`, listed to customers at
//! `GET /api/v1/availability/resource-addons?product_id=`. Prices are in the site's
//! currency's major units, as the catalog's.

use crate::availability::slots::active_product_and_site;
use crate::catalog::products::{int_in, product_of};
use crate::error::{ApiError, ApiResult, ErrorBody};
use crate::extract::{Json, Query, Staff, Tenant, can, choose, path_id, uuid_param};
use crate::openapi::schemas::{DurationModeSchema, PricingModeSchema};
use crate::state::AppState;
use axum::extract::{Path, State};
use kairos_domain::FieldErrors;
use kairos_domain::money::{from_major, to_major};
use kairos_domain::resources::{DurationMode, PricingMode};
use kairos_domain::tenancy::Currency;
use kairos_store::{AddonConfig, NewAddonConfig};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

/// A resource add-on configuration (spec Part B 2.3).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ConfigDto {
    pub id: Uuid,
    pub product_id: Uuid,
    pub addon_id: Uuid,
    #[schema(example = "Party room")]
    pub addon_name: String,
    pub addon_description: String,
    pub resource_id: Uuid,
    pub resource_name: String,
    #[schema(value_type = DurationModeSchema)]
    pub duration_mode: String,
    /// Minutes, for SELECTABLE.
    pub duration_options: Vec<i32>,
    pub fixed_duration_mins: Option<i32>,
    pub min_duration_mins: Option<i32>,
    pub max_duration_mins: Option<i32>,
    pub duration_step_mins: i32,
    pub default_duration_mins: Option<i32>,
    #[schema(value_type = PricingModeSchema)]
    pub pricing_mode: String,
    pub flat_price: Option<f64>,
    /// Per hour (input name `perHourPrice`).
    pub hourly_rate: Option<f64>,
    pub per_person_price: Option<f64>,
    pub base_price: Option<f64>,
    pub currency: String,
    pub allow_before: bool,
    pub allow_during: bool,
    pub allow_after: bool,
    /// Minutes the resource is kept free before the window (input `bufferMinsBefore`).
    pub buffer_before_mins: i32,
    /// Minutes the resource is kept free after the window (input `bufferMinsAfter`).
    pub buffer_after_mins: i32,
    /// The most people the add-on serves; null: no limit of its own.
    pub max_capacity: Option<i32>,
    pub is_active: bool,
}

pub(super) fn config_dto(c: AddonConfig, currency: Currency) -> ConfigDto {
    let major = |v: Option<i64>| v.map(|m| to_major(m, currency));
    let n = c.config;
    ConfigDto {
        id: c.id,
        product_id: c.product_id,
        addon_id: n.addon_id,
        addon_name: c.addon_name,
        addon_description: c.addon_description,
        resource_id: n.resource_id,
        resource_name: c.resource_name,
        duration_mode: n.duration_mode.as_str().to_owned(),
        duration_options: n.duration_options,
        fixed_duration_mins: n.fixed_duration_mins,
        min_duration_mins: n.min_duration_mins,
        max_duration_mins: n.max_duration_mins,
        duration_step_mins: n.duration_step_mins,
        default_duration_mins: n.default_duration_mins,
        pricing_mode: n.pricing_mode.as_str().to_owned(),
        flat_price: major(n.flat_price),
        hourly_rate: major(n.per_hour_price),
        per_person_price: major(n.per_person_price),
        base_price: major(n.base_price),
        currency: currency.code().to_owned(),
        allow_before: n.allow_before,
        allow_during: n.allow_during,
        allow_after: n.allow_after,
        buffer_before_mins: n.buffer_before_mins,
        buffer_after_mins: n.buffer_after_mins,
        max_capacity: n.max_capacity,
        is_active: n.is_active,
    }
}

/// A configuration as written (the spec's input names); on update every field is
/// optional and the others stay.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ConfigInput {
    /// One of the product's add-ons, of type `resource`.
    #[schema(value_type = Option<Uuid>)]
    pub addon_id: Option<String>,
    /// A resource of the product's site.
    #[schema(value_type = Option<Uuid>)]
    pub resource_id: Option<String>,
    #[schema(value_type = Option<DurationModeSchema>)]
    pub duration_mode: Option<String>,
    /// SELECTABLE: the minutes offered (1 to 24 values, each 1 to 1440).
    #[schema(min_items = 1, max_items = 24)]
    pub selectable_durations: Option<Vec<i64>>,
    #[schema(minimum = 1, maximum = 1440)]
    pub fixed_duration_mins: Option<i64>,
    #[schema(minimum = 1, maximum = 1440)]
    pub min_duration_mins: Option<i64>,
    #[schema(minimum = 1, maximum = 1440)]
    pub max_duration_mins: Option<i64>,
    /// CUSTOM's increment; default 30.
    #[schema(minimum = 1, maximum = 1440)]
    pub duration_step_mins: Option<i64>,
    /// Must be one the rule allows.
    #[schema(minimum = 1, maximum = 1440)]
    pub default_duration_mins: Option<i64>,
    #[schema(value_type = Option<PricingModeSchema>)]
    pub pricing_mode: Option<String>,
    #[schema(minimum = 0)]
    pub flat_price: Option<f64>,
    #[schema(minimum = 0)]
    pub per_hour_price: Option<f64>,
    #[schema(minimum = 0)]
    pub per_person_price: Option<f64>,
    #[schema(minimum = 0)]
    pub base_price: Option<f64>,
    /// Each defaults to true; at least one must be.
    pub allow_before: Option<bool>,
    pub allow_during: Option<bool>,
    pub allow_after: Option<bool>,
    #[schema(minimum = 0, maximum = 1440)]
    pub buffer_mins_before: Option<i64>,
    #[schema(minimum = 0, maximum = 1440)]
    pub buffer_mins_after: Option<i64>,
    #[schema(minimum = 1, maximum = 10000)]
    pub max_capacity: Option<i64>,
    pub is_active: Option<bool>,
}

crate::openapi::schemas::create_form!(
    /// The create form of [`ConfigInput`].
    ConfigCreate = ConfigInput,
    "ResourceAddonConfigCreate",
    ["addonId", "resourceId", "durationMode", "pricingMode"]
);

/// A whole number of minutes in `range`, or the field's error.
fn minutes(
    errors: &mut FieldErrors,
    field: &str,
    value: Option<i64>,
    base: Option<i32>,
    range: std::ops::RangeInclusive<i64>,
) -> Option<i32> {
    match value {
        None => base,
        Some(v) if range.contains(&v) => i32::try_from(v).ok(),
        Some(_) => {
            errors.add(
                field,
                format!("must be {} to {}", range.start(), range.end()),
            );
            base
        }
    }
}

fn price(
    errors: &mut FieldErrors,
    field: &str,
    value: Option<f64>,
    base: Option<i64>,
    currency: Currency,
) -> Option<i64> {
    value.map_or(base, |v| errors.check(field, from_major(v, currency)))
}

fn fields(
    input: ConfigInput,
    base: NewAddonConfig,
    creating: bool,
    currency: Currency,
) -> Result<NewAddonConfig, FieldErrors> {
    let mut errors = FieldErrors::new();
    let mut id = |field: &str, given: Option<&str>, base: Uuid| {
        if creating && given.is_none() {
            errors.add(field, "is required");
        }
        uuid_param(&mut errors, field, given).unwrap_or(base)
    };
    let addon_id = id("addonId", input.addon_id.as_deref(), base.addon_id);
    let resource_id = id("resourceId", input.resource_id.as_deref(), base.resource_id);
    let duration_mode = choose(
        &mut errors,
        "durationMode",
        input.duration_mode.as_deref(),
        base.duration_mode,
        creating,
        DurationMode::parse,
        DurationMode::choices(),
    );
    let durations_given = input.selectable_durations.is_some();
    // Prices given but wrong are named already; only those not given are missing.
    let prices_given = [
        ("flatPrice", input.flat_price.is_some()),
        ("perHourPrice", input.per_hour_price.is_some()),
        ("perPersonPrice", input.per_person_price.is_some()),
        ("basePrice", input.base_price.is_some()),
    ];
    let duration_options = match input.selectable_durations {
        None => base.duration_options.clone(),
        Some(list) => {
            let ok =
                !list.is_empty() && list.len() <= 24 && list.iter().all(|d| (1..=1440).contains(d));
            if !ok {
                errors.add(
                    "selectableDurations",
                    "must be 1 to 24 values, each 1 to 1440 minutes",
                );
            }
            list.iter().filter_map(|d| i32::try_from(*d).ok()).collect()
        }
    };
    let day = 1..=1440;
    let fixed = minutes(
        &mut errors,
        "fixedDurationMins",
        input.fixed_duration_mins,
        base.fixed_duration_mins,
        day.clone(),
    );
    let min = minutes(
        &mut errors,
        "minDurationMins",
        input.min_duration_mins,
        base.min_duration_mins,
        day.clone(),
    );
    let max = minutes(
        &mut errors,
        "maxDurationMins",
        input.max_duration_mins,
        base.max_duration_mins,
        day.clone(),
    );
    let step = int_in(
        &mut errors,
        "durationStepMins",
        input.duration_step_mins,
        base.duration_step_mins,
        day.clone(),
    );
    let default = minutes(
        &mut errors,
        "defaultDurationMins",
        input.default_duration_mins,
        base.default_duration_mins,
        day,
    );
    let pricing_mode = choose(
        &mut errors,
        "pricingMode",
        input.pricing_mode.as_deref(),
        base.pricing_mode,
        creating,
        PricingMode::parse,
        PricingMode::choices(),
    );
    let buffers = 0..=1440;
    let new = NewAddonConfig {
        addon_id,
        resource_id,
        duration_mode,
        duration_options,
        fixed_duration_mins: fixed,
        min_duration_mins: min,
        max_duration_mins: max,
        duration_step_mins: step,
        default_duration_mins: default,
        pricing_mode,
        flat_price: price(
            &mut errors,
            "flatPrice",
            input.flat_price,
            base.flat_price,
            currency,
        ),
        per_hour_price: price(
            &mut errors,
            "perHourPrice",
            input.per_hour_price,
            base.per_hour_price,
            currency,
        ),
        per_person_price: price(
            &mut errors,
            "perPersonPrice",
            input.per_person_price,
            base.per_person_price,
            currency,
        ),
        base_price: price(
            &mut errors,
            "basePrice",
            input.base_price,
            base.base_price,
            currency,
        ),
        allow_before: input.allow_before.unwrap_or(base.allow_before),
        allow_during: input.allow_during.unwrap_or(base.allow_during),
        allow_after: input.allow_after.unwrap_or(base.allow_after),
        buffer_before_mins: int_in(
            &mut errors,
            "bufferMinsBefore",
            input.buffer_mins_before,
            base.buffer_before_mins,
            buffers.clone(),
        ),
        buffer_after_mins: int_in(
            &mut errors,
            "bufferMinsAfter",
            input.buffer_mins_after,
            base.buffer_after_mins,
            buffers,
        ),
        max_capacity: minutes(
            &mut errors,
            "maxCapacity",
            input.max_capacity,
            base.max_capacity,
            1..=10_000,
        ),
        is_active: input.is_active.unwrap_or(base.is_active),
    };
    // The chosen modes need their fields (when a mode was chosen); a default must be a
    // duration the rule allows.
    let known =
        |given: &Option<String>, parse: fn(&str) -> bool| given.as_deref().map_or(!creating, parse);
    let duration_known = known(&input.duration_mode, |m| DurationMode::parse(m).is_some());
    let pricing_known = known(&input.pricing_mode, |m| PricingMode::parse(m).is_some());
    match (new.duration_mode, new.rule()) {
        _ if !duration_known => {}
        (DurationMode::Fixed, None) => errors.add("fixedDurationMins", "is required for FIXED"),
        (DurationMode::Selectable, None) if !durations_given => {
            errors.add("selectableDurations", "is required for SELECTABLE");
        }
        (DurationMode::Custom, None) => {
            errors.add(
                "minDurationMins",
                "and maxDurationMins are required for CUSTOM",
            );
        }
        (DurationMode::Custom, Some(_)) if min > max => {
            errors.add("maxDurationMins", "must not be less than minDurationMins");
        }
        (_, Some(rule)) => {
            if let Some(d) = new.default_duration_mins
                && let Err(why) = rule.check(d)
            {
                errors.add("defaultDurationMins", why);
            }
        }
        // An empty list given is already named.
        (DurationMode::Selectable, None) => {}
    }
    for field in new
        .pricing()
        .missing()
        .into_iter()
        .filter(|f| pricing_known && !prices_given.contains(&(*f, true)))
    {
        errors.add(
            field,
            format!("is required for {}", new.pricing_mode.as_str()),
        );
    }
    if !(new.allow_before || new.allow_during || new.allow_after) {
        errors.add(
            "allowAfter",
            "at least one of allowBefore, allowDuring and allowAfter must be true",
        );
    }
    errors.finish()?;
    Ok(new)
}

fn base_of(c: &AddonConfig) -> NewAddonConfig {
    c.config.clone()
}

/// `{items}`.
#[derive(Debug, Serialize, ToSchema)]
pub struct ConfigList {
    pub items: Vec<ConfigDto>,
}

/// A product's resource add-on configurations (inactive ones included). Needs
/// `admin:read`.
#[utoipa::path(get, path = "/api/v1/admin/products/{id}/resource-addons", tag = "resources", security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "Product id")),
    responses((status = 200, body = ConfigList), (status = 404, description = "NOT_FOUND", body = ErrorBody)))]
pub async fn list_configs(
    State(state): State<AppState>,
    auth: Staff<can::Read>,
    Path(id): Path<String>,
) -> ApiResult<axum::Json<ConfigList>> {
    let (product, currency) = product_of(&state, &auth, &id).await?;
    let items = state
        .store
        .list_addon_configs(auth.tenant.id(), product.id, false)
        .await?
        .into_iter()
        .map(|c| config_dto(c, currency))
        .collect();
    Ok(axum::Json(ConfigList { items }))
}

/// Offer a resource as one of the product's add-ons: which add-on (of type `resource`),
/// which resource of the product's site, its durations, price, positions around the
/// activity and buffers. Needs `admin:write`.
#[utoipa::path(post, path = "/api/v1/admin/products/{id}/resource-addons", tag = "resources", security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "Product id")),
    request_body = ConfigCreate,
    responses((status = 200, body = ConfigDto), (status = 400, description = "VALIDATION_ERROR", body = ErrorBody),
        (status = 404, description = "NOT_FOUND: the product, add-on or resource", body = ErrorBody)))]
pub async fn create_config(
    State(state): State<AppState>,
    auth: Staff<can::Write>,
    Path(id): Path<String>,
    Json(input): Json<ConfigInput>,
) -> ApiResult<axum::Json<ConfigDto>> {
    let (product, currency) = product_of(&state, &auth, &id).await?;
    let base = NewAddonConfig {
        addon_id: Uuid::nil(),
        resource_id: Uuid::nil(),
        // Placeholders: creating requires both.
        duration_mode: DurationMode::Fixed,
        duration_options: Vec::new(),
        fixed_duration_mins: None,
        min_duration_mins: None,
        max_duration_mins: None,
        duration_step_mins: 30,
        default_duration_mins: None,
        pricing_mode: PricingMode::Flat,
        flat_price: None,
        per_hour_price: None,
        per_person_price: None,
        base_price: None,
        allow_before: true,
        allow_during: true,
        allow_after: true,
        buffer_before_mins: 0,
        buffer_after_mins: 0,
        max_capacity: None,
        is_active: true,
    };
    let new = fields(input, base, true, currency).map_err(ApiError::validation)?;
    let c = state
        .store
        .create_addon_config(
            auth.tenant.id(),
            product.id,
            new,
            &auth.actor(),
            state.now(),
        )
        .await?;
    Ok(axum::Json(config_dto(c, currency)))
}

/// Change a configuration (partial). Needs `admin:write`.
#[utoipa::path(patch, path = "/api/v1/admin/products/{id}/resource-addons/{configId}", tag = "resources", security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "Product id"), ("configId" = Uuid, Path, description = "Configuration id")),
    request_body = ConfigInput,
    responses((status = 200, body = ConfigDto), (status = 400, description = "VALIDATION_ERROR", body = ErrorBody),
        (status = 404, description = "NOT_FOUND", body = ErrorBody)))]
pub async fn update_config(
    State(state): State<AppState>,
    auth: Staff<can::Write>,
    Path((id, config)): Path<(String, String)>,
    Json(input): Json<ConfigInput>,
) -> ApiResult<axum::Json<ConfigDto>> {
    let (product, currency) = product_of(&state, &auth, &id).await?;
    let config = path_id(&config, "Resource add-on configuration")?;
    let current = state
        .store
        .list_addon_configs(auth.tenant.id(), product.id, false)
        .await?
        .into_iter()
        .find(|c| c.id == config)
        .ok_or_else(|| ApiError::not_found("Resource add-on configuration"))?;
    let new = fields(input, base_of(&current), false, currency).map_err(ApiError::validation)?;
    let c = state
        .store
        .update_addon_config(
            auth.tenant.id(),
            product.id,
            config,
            new,
            &auth.actor(),
            state.now(),
        )
        .await?;
    Ok(axum::Json(config_dto(c, currency)))
}

/// Query of the public list.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct PublicQuery {
    /// The product.
    #[param(value_type = Uuid, required = true)]
    pub product_id: Option<String>,
}

/// `{configs}`.
#[derive(Debug, Serialize, ToSchema)]
pub struct PublicConfigs {
    pub configs: Vec<ConfigDto>,
}

/// The resource add-ons a product offers (spec Part B 4.2): its active configurations
/// whose add-on and resource are active. Tenant header only.
#[utoipa::path(get, path = "/api/v1/availability/resource-addons", tag = "availability", security(()),
    params(PublicQuery),
    responses((status = 200, body = PublicConfigs), (status = 400, description = "VALIDATION_ERROR: product_id", body = ErrorBody),
        (status = 404, description = "NOT_FOUND: the product", body = ErrorBody)))]
pub async fn public_configs(
    State(state): State<AppState>,
    tenant: Tenant,
    Query(q): Query<PublicQuery>,
) -> ApiResult<axum::Json<PublicConfigs>> {
    let Some(product) = q.product_id else {
        return Err(ApiError::invalid_field("product_id", "is required"));
    };
    let (product, site) = active_product_and_site(&state, &tenant, &product, None).await?;
    let currency = Currency::parse(&site.currency).map_err(ApiError::internal)?;
    let configs = state
        .store
        .list_addon_configs(tenant.id(), product.id, true)
        .await?
        .into_iter()
        .map(|c| config_dto(c, currency))
        .collect();
    Ok(axum::Json(PublicConfigs { configs }))
}
