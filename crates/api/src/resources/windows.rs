//! `GET /api/v1/availability/resource-addons/{configId}/windows` (spec Part B 4.2): the
//! windows a resource add-on may take around an activity, each priced for the party and
//! marked available when its resource is free for it, buffers included.

use crate::availability::Cached;
use crate::error::{ApiError, ApiResult, ErrorBody};
use crate::extract::{Query, Tenant, path_id, timestamp_param, uuid_param};
use crate::openapi::schemas::WindowPositionSchema;
use crate::state::AppState;
use axum::extract::{Path, State};
use chrono::{DateTime, Utc};
use kairos_domain::FieldErrors;
use kairos_domain::money::to_major;
use kairos_domain::resources::{blocked, fits, peak_use, units, windows};
use kairos_domain::tenancy::Currency;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

/// The activity the windows are around, and the party.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct WindowQuery {
    /// When the activity starts (ISO 8601).
    #[param(value_type = DateTime<Utc>, required = true)]
    pub activity_starts_at: Option<String>,
    /// When the activity ends (ISO 8601), after it starts and at most 24 hours later.
    #[param(value_type = DateTime<Utc>, required = true)]
    pub activity_ends_at: Option<String>,
    /// 1 to 500; default 1.
    #[param(minimum = 1, maximum = 500)]
    pub party_size: Option<i64>,
    /// A booking changing its own add-ons: its allocations do not count against it.
    #[param(value_type = Option<Uuid>)]
    pub exclude_booking_id: Option<String>,
}

/// A window of the add-on.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct WindowDto {
    #[schema(value_type = WindowPositionSchema)]
    pub position: String,
    pub starts_at: DateTime<Utc>,
    pub ends_at: DateTime<Utc>,
    pub duration_mins: i32,
    /// For the party, in the site currency's major units.
    pub price: f64,
    pub currency: String,
    /// The resource is free for it (its buffers included), the add-on serves a party of
    /// this size, and the window meets the resource's booking policies for a customer
    /// (lead time, horizon, longest window, not staff only).
    pub is_available: bool,
}

/// `{configId, windows}`.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Windows {
    #[schema(value_type = Uuid)]
    pub config_id: String,
    /// Rendered once per answer (answers are kept briefly like availability's).
    #[schema(value_type = Vec<WindowDto>)]
    pub windows: std::sync::Arc<serde_json::value::RawValue>,
}

/// The longest activity windows are asked around: a product's longest duration.
const MAX_ACTIVITY_MINS: i64 = 1440;

/// A required timestamp parameter (the project's one rule: RFC 3339 with its offset,
/// years 1900 to 2999).
fn instant(errors: &mut FieldErrors, field: &str, raw: Option<&str>) -> Option<DateTime<Utc>> {
    match raw {
        None => {
            errors.add(field, "is required");
            None
        }
        Some(raw) => timestamp_param(errors, field, raw),
    }
}

/// The windows of a resource add-on around an activity: BEFORE, DURING and AFTER as the
/// configuration allows, one per duration it offers, each priced for the party and marked
/// available when the resource is free for the window and its buffers. Tenant header only.
#[utoipa::path(get, path = "/api/v1/availability/resource-addons/{configId}/windows", tag = "availability", security(()),
    params(("configId" = Uuid, Path, description = "Resource add-on configuration id"), WindowQuery),
    responses((status = 200, body = Windows),
        (status = 400, description = "VALIDATION_ERROR naming each bad parameter; an activity that does not start before it ends: \"invalid time window: start must be before end\"; one longer than 24 hours", body = ErrorBody),
        (status = 404, description = "NOT_FOUND: the configuration", body = ErrorBody)))]
pub async fn config_windows(
    State(state): State<AppState>,
    tenant: Tenant,
    Path(config): Path<String>,
    Query(q): Query<WindowQuery>,
) -> ApiResult<axum::Json<Windows>> {
    let config = path_id(&config, "Resource add-on configuration")?;
    let mut errors = FieldErrors::new();
    let start = instant(
        &mut errors,
        "activity_starts_at",
        q.activity_starts_at.as_deref(),
    );
    let end = instant(
        &mut errors,
        "activity_ends_at",
        q.activity_ends_at.as_deref(),
    );
    let party = q.party_size.unwrap_or(1);
    if !(1..=500).contains(&party) {
        errors.add("party_size", "must be 1 to 500");
    }
    let exclude = uuid_param(
        &mut errors,
        "exclude_booking_id",
        q.exclude_booking_id.as_deref(),
    );
    if let (Some(s), Some(e)) = (start, end) {
        if s >= e {
            errors.add(
                "activity_ends_at",
                "invalid time window: start must be before end",
            );
        } else if e - s > chrono::Duration::minutes(MAX_ACTIVITY_MINS) {
            errors.add(
                "activity_ends_at",
                "an activity lasts at most 24 hours (a product's longest duration)",
            );
        }
    }
    errors.finish().map_err(ApiError::validation)?;
    let (Some(start), Some(end)) = (start, end) else {
        return Err(ApiError::internal("checked above"));
    };
    let party = i32::try_from(party).map_err(ApiError::internal)?;
    // The answer is availability: kept briefly and dropped on any write of the tenant,
    // like the slots' (a hold's add-on rechecks the resource in its write).
    let key = format!(
        "{}\u{1f}windows\u{1f}{config}\u{1f}{start}\u{1f}{end}\u{1f}{party}\u{1f}{}",
        tenant.id(),
        exclude.map(|e| e.to_string()).unwrap_or_default()
    );
    let cached = state
        .availability_cache
        .get_or_compute(key, state.now(), || {
            compute(&state, &tenant, config, (start, end), party, exclude)
        })
        .await?;
    Ok(axum::Json(Windows {
        config_id: cached.ids[0].clone(),
        windows: cached.list,
    }))
}

/// Works the windows out and renders them once, for the cache.
async fn compute(
    state: &AppState,
    tenant: &Tenant,
    config: Uuid,
    (start, end): (DateTime<Utc>, DateTime<Utc>),
    party: i32,
    exclude: Option<Uuid>,
) -> ApiResult<Cached> {
    // One read of the configuration with its resource, policies and currency.
    let offered = state
        .store
        .offered_addon(tenant.id(), config)
        .await?
        .ok_or_else(|| ApiError::not_found("Resource add-on configuration"))?;
    let currency = Currency::parse(&offered.currency).map_err(ApiError::internal)?;
    let (c, policies) = (&offered.config, offered.policies);
    let Some(rule) = c.config.rule() else {
        return Err(ApiError::internal(
            "a stored configuration without its durations",
        ));
    };
    let found = windows(start, end, &rule, c.config.positions());
    // The resource's booking policies (its own, its group's, the defaults): buffers at
    // least theirs, and the lead time, horizon, longest window and staff-only rule.
    let (b, a) = policies.buffers(c.config.buffer_before_mins, c.config.buffer_after_mins);
    // One read of the resource's use across every window.
    let span = found.iter().fold((start, end), |(lo, hi), w| {
        let (f, u) = blocked(w.starts_at, w.ends_at, b, a);
        (lo.min(f), hi.max(u))
    });
    let taken = state
        .store
        .resource_use(tenant.id(), c.config.resource_id, span, exclude)
        .await?;
    let serves = c.config.max_capacity.is_none_or(|m| party <= m);
    let pricing = c.config.pricing();
    let mut out = Vec::new();
    for w in found {
        let (from, to) = blocked(w.starts_at, w.ends_at, b, a);
        let peak = peak_use(&taken, from, to);
        let price = pricing
            .price(w.duration_mins, party)
            .ok_or_else(|| ApiError::internal("a stored configuration without its price"))?;
        out.push(WindowDto {
            position: w.position.as_str().to_owned(),
            starts_at: w.starts_at,
            ends_at: w.ends_at,
            duration_mins: w.duration_mins,
            price: to_major(price, currency),
            currency: currency.code().to_owned(),
            is_available: serves
                && policies
                    .check(state.now(), w.starts_at, w.duration_mins, false)
                    .is_ok()
                && fits(
                    offered.shared_mode,
                    offered.capacity,
                    peak,
                    units(offered.shared_mode, party),
                ),
        });
    }
    let rendered = serde_json::value::to_raw_value(&out).map_err(ApiError::internal)?;
    Ok(Cached {
        ids: [c.id.to_string(), String::new()],
        list: std::sync::Arc::from(rendered),
    })
}
