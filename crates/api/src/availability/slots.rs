//! `GET /availability`: open slots of a product with a pricing preview.

use super::cache::Cached;
use super::{
    AvailabilityQuery, AvailabilityResponse, AvailabilitySlot, MAX_PARTY_SIZE, MAX_RANGE_DAYS,
    PricingPreview,
};
use crate::error::{ApiError, ApiResult, ErrorBody};
use crate::extract::{Query, Tenant, bool_param, path_id};
use crate::state::AppState;
use axum::extract::State;
use axum::http::HeaderMap;
use chrono::{Duration, NaiveDate};
use kairos_domain::FieldErrors;
use kairos_domain::money::to_major;
use kairos_domain::pricing::{TypedPlaces, party_line, tax_of};
use kairos_domain::scheduling::start_of_day;
use kairos_domain::tenancy::{Currency, parse_time_zone};
use kairos_store::{Product, Site};
use std::sync::Arc;

/// The preview for `party_size` of `product`, `typed` places at their participant type's
/// price (the hold's pricing hash is authoritative).
pub fn pricing_preview(
    product: &Product,
    party_size: u32,
    typed: &[TypedPlaces],
    currency: Currency,
) -> PricingPreview {
    let (amount, _, _) = party_line(product.base_price, product.price_type, party_size, typed);
    let totals = tax_of(amount, product.tax_rate_bp, product.prices_include_tax);
    PricingPreview {
        subtotal: to_major(totals.subtotal, currency),
        tax_total: to_major(totals.tax, currency),
        grand_total: to_major(totals.total, currency),
        currency: currency.code().to_owned(),
    }
}

fn request_id(headers: &HeaderMap) -> String {
    headers
        .get("x-request-id")
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned)
        .unwrap_or_else(|| uuid::Uuid::new_v4().to_string())
}

/// Loads an active product of an active site of this tenant; anything else is 404.
pub(crate) async fn active_product_and_site(
    state: &AppState,
    tenant: &Tenant,
    product: &str,
    site: Option<&str>,
) -> ApiResult<(Product, Site)> {
    let product_id = path_id(product, "Product")?;
    let product = state
        .store
        .get_product(tenant.id(), product_id)
        .await?
        .filter(|p| p.is_active)
        .ok_or_else(|| ApiError::not_found("Product"))?;
    if let Some(site) = site {
        let site_id = path_id(site, "Site")?;
        if site_id != product.site_id {
            return Err(ApiError::not_found("Product at this site"));
        }
    }
    let site = state
        .store
        .get_site(tenant.id(), product.site_id)
        .await?
        .filter(|s| s.is_active)
        .ok_or_else(|| ApiError::not_found("Site"))?;
    Ok((product, site))
}

/// Open slots of a product with capacity and a price preview.
#[utoipa::path(get, path = "/api/v1/availability", tag = "availability", security(()),
    params(AvailabilityQuery),
    responses(
        (status = 200, description = "Open slots; an empty list when nothing is free", body = AvailabilityResponse),
        (status = 400, description = "VALIDATION_ERROR naming the missing or bad parameter", body = ErrorBody),
        (status = 404, description = "NOT_FOUND: unknown or inactive product or site, or a product of another site", body = ErrorBody),
    ))]
pub async fn get_availability(
    State(state): State<AppState>,
    tenant: Tenant,
    headers: HeaderMap,
    Query(q): Query<AvailabilityQuery>,
) -> ApiResult<axum::Json<AvailabilityResponse>> {
    let mut errors = FieldErrors::new();
    for (field, value) in [
        ("product_id", &q.product_id),
        ("site_id", &q.site_id),
        ("date_from", &q.date_from),
    ] {
        if value.as_deref().is_none_or(|v| v.trim().is_empty()) {
            errors.add(field, "is required");
        }
    }
    let date = crate::extract::date_param;
    let from = q
        .date_from
        .as_deref()
        .filter(|v| !v.trim().is_empty())
        .and_then(|v| date(&mut errors, "date_from", v));
    let to = match q.date_to.as_deref() {
        None | Some("") => from,
        Some(v) => date(&mut errors, "date_to", v),
    };
    if let (Some(f), Some(t)) = (from, to) {
        if t < f {
            errors.add("date_to", "must not be before date_from");
        } else if (t - f).num_days() >= MAX_RANGE_DAYS {
            errors.add(
                "date_to",
                format!("the range may cover at most {MAX_RANGE_DAYS} days"),
            );
        }
    }
    let party_size = match q.party_size.as_deref() {
        None | Some("") => Some(1),
        Some(v) => match v.trim().parse::<i64>() {
            Ok(n) if (1..=MAX_PARTY_SIZE).contains(&n) => Some(n),
            _ => {
                errors.add(
                    "party_size",
                    format!("must be a whole number from 1 to {MAX_PARTY_SIZE}"),
                );
                None
            }
        },
    };
    let include_labels = bool_param(
        &mut errors,
        "include_labels",
        q.include_labels.as_deref(),
        true,
    );
    let typed = typed_param(&mut errors, q.participant_types.as_deref(), party_size);
    let party_size = party_size.unwrap_or(1);
    errors.finish().map_err(ApiError::validation)?;
    let (Some(from), Some(to), Some(product_raw)) = (from, to, q.product_id.as_deref()) else {
        return Err(ApiError::validation(FieldErrors::new()));
    };
    let now = state.now();
    let key = format!(
        "{}\u{1f}{product_raw}\u{1f}{}\u{1f}{from}\u{1f}{to}\u{1f}{party_size}\u{1f}{include_labels}\u{1f}{}",
        tenant.id(),
        q.site_id.as_deref().unwrap_or_default(),
        typed
            .iter()
            .map(|(k, n)| format!("{k}:{n}"))
            .collect::<Vec<_>>()
            .join(",")
    );
    let cached = state
        .availability_cache
        .get_or_compute(key, now, || {
            compute(
                &state,
                &tenant,
                product_raw,
                q.site_id.as_deref(),
                from,
                to,
                (party_size, &typed),
                include_labels,
            )
        })
        .await?;
    Ok(axum::Json(AvailabilityResponse {
        request_id: request_id(&headers),
        product_id: cached.ids[0].clone(),
        site_id: cached.ids[1].clone(),
        date_from: from,
        date_to: to,
        party_size,
        slots: cached.list,
    }))
}

/// Reads the open slots and renders them once, for the cache.
#[expect(
    clippy::too_many_arguments,
    reason = "the query's parameters, passed through"
)]
async fn compute(
    state: &AppState,
    tenant: &Tenant,
    product_raw: &str,
    site_raw: Option<&str>,
    from: NaiveDate,
    to: NaiveDate,
    (party_size, typed): (i64, &[(String, u32)]),
    include_labels: bool,
) -> ApiResult<Cached> {
    let (product, site) = active_product_and_site(state, tenant, product_raw, site_raw).await?;
    let typed = product_types(&product, typed)?;
    let tz = parse_time_zone(&site.timezone).map_err(ApiError::internal)?;
    let currency = Currency::parse(&site.currency).map_err(ApiError::internal)?;
    let (Some(lo), Some(hi)) = (
        start_of_day(&tz, from),
        start_of_day(&tz, to + Duration::days(1)),
    ) else {
        return Err(ApiError::invalid_field("date_from", "is out of range"));
    };
    let seats = i32::try_from(party_size).unwrap_or(i32::MAX);
    let slots = state
        .store
        .open_slots(tenant.id(), product.id, lo, hi, seats, state.now())
        .await?;
    // A session is offered only while what its product needs (rooms, staff) is free.
    let buffers = (product.setup_time, product.cleanup_time);
    let served = state
        .store
        .sessions_served(tenant.id(), product.id, buffers, &slots, seats)
        .await?;
    let slots = slots
        .into_iter()
        .zip(served)
        .filter_map(|(s, ok)| ok.then_some(s));
    let preview = pricing_preview(
        &product,
        u32::try_from(party_size).unwrap_or(1),
        &typed,
        currency,
    );
    let labels = include_labels.then(|| product.label_codes.clone());
    let slots: Vec<AvailabilitySlot> = slots
        .map(|s| AvailabilitySlot {
            slot_id: s.id.to_string(),
            starts_at: s.starts_at,
            ends_at: s.ends_at,
            available_capacity: (s.capacity - s.booked).max(0),
            total_capacity: s.capacity,
            projection_version: s.projection_version,
            label_codes: labels.clone(),
            pricing_preview: preview.clone(),
        })
        .collect();
    let rendered = serde_json::value::to_raw_value(&slots).map_err(ApiError::internal)?;
    Ok(Cached {
        ids: [product.id.to_string(), site.id.to_string()],
        list: Arc::from(rendered),
    })
}

/// `participant_types` (`child:2,senior:1`) as (type, count) pairs, sorted by type: each
/// type once, counts 1 or more, at most `party_size` places in all.
fn typed_param(
    errors: &mut FieldErrors,
    raw: Option<&str>,
    party_size: Option<i64>,
) -> Vec<(String, u32)> {
    const FIELD: &str = "participant_types";
    let raw = raw.unwrap_or_default();
    if raw.is_empty() {
        return Vec::new();
    }
    let mut out: Vec<(String, u32)> = Vec::new();
    for pair in raw.split(',') {
        // Exactly the documented form: a type key, a colon, a count of 1 to 999.
        let parsed = pair.split_once(':').and_then(|(k, n)| {
            let digits = (1..=3).contains(&n.len())
                && !n.starts_with('0')
                && n.bytes().all(|b| b.is_ascii_digit());
            let n = n.parse::<u32>().ok().filter(|n| digits && *n >= 1)?;
            kairos_domain::pricing::is_type_key(k).then(|| (k.to_owned(), n))
        });
        match parsed {
            Some((k, _)) if out.iter().any(|(o, _)| *o == k) => {
                errors.add(FIELD, format!("names {k} twice"));
                return Vec::new();
            }
            Some(p) => out.push(p),
            None => {
                errors.add(
                    FIELD,
                    "must be type:count pairs separated by commas (for example child:2,senior:1)",
                );
                return Vec::new();
            }
        }
    }
    if out.len() > 10 {
        errors.add(FIELD, "may name at most 10 types");
        return Vec::new();
    }
    let places: i64 = out.iter().map(|(_, n)| i64::from(*n)).sum();
    // Against the party only when the party itself is right.
    if let Some(party_size) = party_size
        && places > party_size
    {
        errors.add(
            FIELD,
            format!("names {places} places, more than the party of {party_size}"),
        );
    }
    out.sort();
    out
}

/// The typed places of a preview, against the product's participant types.
fn product_types(product: &Product, typed: &[(String, u32)]) -> ApiResult<Vec<TypedPlaces>> {
    typed
        .iter()
        .map(|(key, quantity)| {
            let t = product
                .participant_types
                .iter()
                .find(|t| t.key == *key)
                .ok_or_else(|| {
                    ApiError::invalid_field(
                        "participant_types",
                        format!("{key} is not a participant type of this product"),
                    )
                })?;
            Ok(TypedPlaces {
                key: t.key.clone(),
                name: t.name.clone(),
                unit_price: t.price,
                quantity: *quantity,
            })
        })
        .collect()
}
