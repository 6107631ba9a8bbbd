//! Public availability (spec Part B 4.1): open slots with a price preview, a product's
//! add-ons and a site's front-end configuration. Tenant header only; relaxed rate tier.

mod addons;
mod cache;
mod site_config;
pub(crate) mod slots;

use crate::state::AppState;
use chrono::{DateTime, NaiveDate, Utc};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use std::sync::Arc;
use utoipa::{IntoParams, ToSchema};

/// The longest range one query may cover, in days (inclusive of both ends).
pub const MAX_RANGE_DAYS: i64 = 31;
/// The largest party a query may ask about.
pub const MAX_PARTY_SIZE: i64 = 500;

/// Query of `GET /availability` (snake_case).
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct AvailabilityQuery {
    #[param(required = true, value_type = uuid::Uuid)]
    pub product_id: Option<String>,
    #[param(required = true, value_type = uuid::Uuid)]
    pub site_id: Option<String>,
    /// YYYY-MM-DD (site local date).
    #[param(required = true, value_type = chrono::NaiveDate)]
    pub date_from: Option<String>,
    /// YYYY-MM-DD, default date_from; at most 31 days after date_from.
    #[param(value_type = Option<chrono::NaiveDate>)]
    pub date_to: Option<String>,
    /// Default 1.
    #[param(value_type = Option<u32>, minimum = 1, maximum = 500)]
    pub party_size: Option<String>,
    /// Default true.
    #[param(value_type = Option<bool>)]
    pub include_labels: Option<String>,
    /// Places at the product's participant types' own prices, as `type:count` pairs
    /// separated by commas (`child:2,senior:1`); at most party_size places in all, the
    /// rest at the activity's price.
    #[param(value_type = Option<String>, pattern = "^([a-z0-9_]{1,40}:[1-9][0-9]{0,2}(,[a-z0-9_]{1,40}:[1-9][0-9]{0,2}){0,9})?$")]
    pub participant_types: Option<String>,
}

/// Estimated price of the requested party in a slot (the words as everywhere: see the
/// document's description).
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PricingPreview {
    /// What the party's places cost as priced, before any discount: tax included when
    /// the product's prices include it.
    pub subtotal: f64,
    /// The tax in the subtotal (prices including tax) or on top of it (prices without).
    pub tax_total: f64,
    /// What the customer pays.
    pub grand_total: f64,
    pub currency: String,
}

/// An open slot (spec Part B 2.1).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AvailabilitySlot {
    pub slot_id: String,
    pub starts_at: DateTime<Utc>,
    pub ends_at: DateTime<Utc>,
    pub available_capacity: i32,
    pub total_capacity: i32,
    /// The slot's projection version: raised by every change to its capacity picture
    /// (the number a booking move answers in `projection_update`).
    pub projection_version: i64,
    /// Omitted with include_labels=false.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub label_codes: Option<Vec<String>>,
    pub pricing_preview: PricingPreview,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AvailabilityResponse {
    #[serde(rename = "request_id")]
    pub request_id: String,
    pub product_id: String,
    pub site_id: String,
    pub date_from: NaiveDate,
    pub date_to: NaiveDate,
    pub party_size: i64,
    /// Open slots, soonest first (spec Part B 2.1).
    #[schema(value_type = Vec<AvailabilitySlot>)]
    pub slots: Arc<RawValue>,
}

use crate::rate_limit::Tier;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

pub(crate) use cache::Cached;
pub use cache::{AvailabilityCache, invalidate_on_write};
pub use slots::pricing_preview;

/// The public availability reads (relaxed rate limit tier).
pub fn router() -> OpenApiRouter<AppState> {
    Tier::Relaxed.apply(
        OpenApiRouter::new()
            .routes(routes!(slots::get_availability))
            .routes(routes!(addons::product_addons))
            .routes(routes!(site_config::site_config))
            .routes(routes!(site_config::public_sites)),
    )
}
