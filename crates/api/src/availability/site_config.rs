//! `GET /availability/sites/{siteId}/config`: what a booking widget needs about a site.

use super::MAX_PARTY_SIZE;
use crate::error::{ApiError, ApiResult, ErrorBody};
use crate::extract::{Tenant, path_id};
use crate::openapi::schemas::{CancellationPolicySchema, PaymentMethodSchema, PriceTypeSchema};
use crate::state::AppState;
use axum::extract::{Path, State};
use kairos_domain::money::to_major;
use kairos_domain::tenancy::Currency;
use serde::Serialize;
use utoipa::ToSchema;

/// A product as the booking front end shows it.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PublicProduct {
    pub id: String,
    pub name: String,
    pub description: String,
    pub duration_mins: i32,
    pub capacity: i32,
    pub base_price: f64,
    #[schema(value_type = PriceTypeSchema)]
    pub price_type: String,
    pub prices_include_tax: bool,
    pub label_codes: Vec<String>,
    pub requires_waiver: bool,
    /// Participant types with their own price per person (a child's ticket).
    pub participant_types: Vec<crate::catalog::participant_types::ParticipantTypePriceDto>,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct BookingPolicies {
    /// How long a hold reserves capacity.
    pub hold_ttl_minutes: i32,
    /// Spec Part B 4.8.
    #[schema(value_type = CancellationPolicySchema)]
    pub cancellation_policy: String,
    pub max_party_size: i64,
    /// How many days ahead slots are bookable.
    pub booking_horizon_days: i64,
}

/// The front-end configuration of a site.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SiteConfig {
    pub site_id: String,
    pub name: String,
    pub timezone: String,
    pub currency: String,
    pub locale: String,
    pub address: Option<String>,
    pub contact_email: Option<String>,
    pub contact_phone: Option<String>,
    pub products: Vec<PublicProduct>,
    pub booking_policies: BookingPolicies,
    /// How a customer may pay a booking here (`paymentMethod` of the confirmation): poa,
    /// and cardpay or bankpay when the venue has that provider.
    #[schema(value_type = Vec<PaymentMethodSchema>, example = json!(["poa", "cardpay"]))]
    pub payment_methods: Vec<String>,
}

/// A site as the booking front end lists it.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PublicSite {
    pub site_id: String,
    pub name: String,
    pub timezone: String,
    pub currency: String,
    pub address: Option<String>,
}

/// The sites a customer can book at.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PublicSites {
    pub sites: Vec<PublicSite>,
}

/// The tenant's active sites, by name: where a booking widget starts.
#[utoipa::path(get, path = "/api/v1/availability/sites", tag = "availability", security(()),
    responses((status = 200, body = PublicSites), (status = 404, description = "NOT_FOUND: no such tenant", body = ErrorBody)))]
pub async fn public_sites(
    State(state): State<AppState>,
    tenant: Tenant,
) -> ApiResult<axum::Json<PublicSites>> {
    let sites = state
        .store
        .list_sites(tenant.id())
        .await?
        .into_iter()
        .filter(|s| s.is_active)
        .map(|s| PublicSite {
            site_id: s.id.to_string(),
            name: s.name,
            timezone: s.timezone,
            currency: s.currency,
            address: s.address,
        })
        .collect();
    Ok(axum::Json(PublicSites { sites }))
}

/// A site's public configuration: zone, currency, locale, products on sale, policies.
#[utoipa::path(get, path = "/api/v1/availability/sites/{siteId}/config", tag = "availability", security(()),
    params(("siteId" = uuid::Uuid, Path, description = "Site id")),
    responses((status = 200, body = SiteConfig), (status = 404, description = "NOT_FOUND", body = ErrorBody)))]
pub async fn site_config(
    State(state): State<AppState>,
    tenant: Tenant,
    Path(site): Path<String>,
) -> ApiResult<axum::Json<SiteConfig>> {
    let site_id = path_id(&site, "Site")?;
    let site = state
        .store
        .get_site(tenant.id(), site_id)
        .await?
        .filter(|s| s.is_active)
        .ok_or_else(|| ApiError::not_found("Site"))?;
    let currency = Currency::parse(&site.currency).map_err(ApiError::internal)?;
    let products = state
        .store
        .list_products(tenant.id())
        .await?
        .into_iter()
        .filter(|p| p.site_id == site.id && p.is_active)
        .map(|p| PublicProduct {
            id: p.id.to_string(),
            name: p.name,
            description: p.description,
            duration_mins: p.duration_mins,
            capacity: p.capacity,
            base_price: to_major(p.base_price, currency),
            price_type: p.price_type.as_str().to_owned(),
            prices_include_tax: p.prices_include_tax,
            participant_types: crate::catalog::participant_types::participant_types_dto(
                &p.participant_types,
                currency,
            ),
            label_codes: p.label_codes,
            requires_waiver: p.requires_waiver,
        })
        .collect();
    let policy = site.cancellation_policy.as_str().to_owned();
    let (card, bank) =
        kairos_app::payments::accounts::online_providers(&state.app, tenant.id(), Some(site.id))
            .await?;
    let mut payment_methods = vec!["poa".to_owned()];
    if card {
        payment_methods.push("cardpay".to_owned());
    }
    if bank {
        payment_methods.push("bankpay".to_owned());
    }
    Ok(axum::Json(SiteConfig {
        site_id: site.id.to_string(),
        name: site.name,
        timezone: site.timezone,
        currency: site.currency,
        locale: site.locale,
        address: site.address,
        contact_email: site.contact_email,
        contact_phone: site.contact_phone,
        products,
        booking_policies: BookingPolicies {
            hold_ttl_minutes: site.hold_ttl_minutes.unwrap_or(tenant.0.hold_ttl_minutes),
            cancellation_policy: policy,
            max_party_size: MAX_PARTY_SIZE,
            booking_horizon_days: kairos_domain::scheduling::HORIZON_DAYS,
        },
        payment_methods,
    }))
}
