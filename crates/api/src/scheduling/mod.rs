//! Schedule administration (spec Part B 4.4 and 4.12): templates, overrides, blackouts,
//! and slot regeneration with a dry-run preview. Every change answers with the
//! regeneration it caused and with warnings (conflicts, bookings under a blackout).
//!
//! One file per resource; [`router`] lists the routes.

mod date_rules;
mod error;
mod regeneration;
mod templates;

use crate::state::AppState;
use chrono::{DateTime, Utc};
use kairos_store::RegenReport;
use serde::Serialize;
use serde_json::Value;
use utoipa::ToSchema;

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

use crate::rate_limit::Tier;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

/// Templates, overrides, blackouts and regeneration under `/api/v1/admin/schedules`.
pub fn router() -> OpenApiRouter<AppState> {
    Tier::Standard.apply(
        OpenApiRouter::new()
            .routes(routes!(
                templates::list_templates,
                templates::create_template
            ))
            .routes(routes!(
                templates::get_template,
                templates::update_template,
                templates::delete_template
            ))
            .routes(routes!(
                date_rules::list_overrides,
                date_rules::create_override
            ))
            .routes(routes!(
                date_rules::get_override,
                date_rules::update_override,
                date_rules::delete_override
            ))
            .routes(routes!(
                date_rules::list_blackouts,
                date_rules::create_blackout
            ))
            .routes(routes!(
                date_rules::get_blackout,
                date_rules::update_blackout,
                date_rules::delete_blackout
            ))
            .routes(routes!(regeneration::preview_regeneration))
            .routes(routes!(regeneration::regenerate)),
    )
}
