//! Resources (spec Part B 2.3, 4.2): the rooms, equipment, vehicles and staff of a site
//! (`/api/v1/admin/resources`), the resource add-on configurations of a product
//! (`/api/v1/admin/products/{id}/resource-addons`), and the public list of a product's
//! resource add-ons (`/api/v1/availability/resource-addons`).

mod admin;
mod blackouts;
mod booking_addons;
mod configs;
mod conflicts;
mod groups;
mod needs;
mod policies;
mod skill_needs;
mod skills;
mod windows;

pub use conflicts::conflict_error;

use crate::error::ApiError;
use crate::rate_limit::Tier;
use crate::state::AppState;
use kairos_store::ResourceError;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

impl From<ResourceError> for ApiError {
    #[track_caller]
    fn from(e: ResourceError) -> Self {
        match e {
            ResourceError::SiteNotFound => ApiError::not_found("Site"),
            ResourceError::ResourceNotFound => ApiError::not_found("Resource"),
            ResourceError::ProductNotFound => ApiError::not_found("Product"),
            ResourceError::AddonNotFound => ApiError::not_found("Add-on"),
            ResourceError::ConfigNotFound => ApiError::not_found("Resource add-on configuration"),
            ResourceError::GroupNotFound => ApiError::not_found("Resource group"),
            ResourceError::BlackoutNotFound => ApiError::not_found("Blackout of the resource"),
            ResourceError::GroupNameTaken => ApiError::conflict(
                kairos_app::error::code::CONFLICT,
                "The site has a resource group of this name already",
            ),
            ResourceError::NotResourceAddon => ApiError::invalid_field(
                "addonId",
                "must be an add-on of type resource (addonType: resource)",
            ),
            ResourceError::OtherSite => ApiError::invalid_field(
                "resourceId",
                "must be a resource of the same site (the product's or the group's)",
            ),
            ResourceError::BookingNotFound => ApiError::new(
                axum::http::StatusCode::NOT_FOUND,
                kairos_app::error::code::BOOKING_NOT_FOUND,
                "No such booking",
            ),
            ResourceError::NotHold => ApiError::conflict(
                kairos_app::error::code::INVALID_TRANSITION,
                "Resource add-ons are added to a booking while it is held",
            ),
            ResourceError::Unavailable { resource_id } => ApiError::conflict(
                kairos_app::error::code::CONFLICT,
                "The resource is not available for the requested window",
            )
            .with_details(serde_json::json!({"resourceId": resource_id})),
            ResourceError::Store(e) => e.into(),
        }
    }
}

/// A required id field of a body or query: missing or empty is "is required", a bad one
/// "is not an id".
fn required_id(
    errors: &mut kairos_domain::FieldErrors,
    field: &str,
    raw: Option<&str>,
) -> Option<uuid::Uuid> {
    match raw.map(str::trim) {
        None | Some("") => {
            errors.add(field, "is required");
            None
        }
        Some(raw) => crate::extract::uuid_param(errors, field, Some(raw)),
    }
}

/// The administration routes, under `/api/v1/admin`.
pub fn admin_router() -> OpenApiRouter<AppState> {
    Tier::Standard.apply(
        OpenApiRouter::new()
            .routes(routes!(admin::list_resources, admin::create_resource))
            .routes(routes!(admin::get_resource, admin::update_resource))
            .routes(routes!(
                blackouts::list_blackouts,
                blackouts::create_blackout
            ))
            .routes(routes!(blackouts::delete_blackout))
            .routes(routes!(configs::list_configs, configs::create_config))
            .routes(routes!(configs::update_config))
            .routes(routes!(groups::list_groups, groups::create_group))
            .routes(routes!(
                groups::get_group,
                groups::update_group,
                groups::delete_group
            ))
            .routes(routes!(groups::group_resources))
            .routes(routes!(groups::assign))
            .routes(routes!(groups::assign_bulk))
            .routes(routes!(groups::unassign))
            .routes(routes!(groups::patch_policies))
            .routes(routes!(groups::effective_policies))
            .routes(routes!(skills::list_skills, skills::create_skill))
            .routes(routes!(
                skills::get_skill,
                skills::update_skill,
                skills::delete_skill
            ))
            .routes(routes!(skills::assign_skill))
            .routes(routes!(skills::assign_skill_bulk))
            .routes(routes!(skills::remove_skill))
            .routes(routes!(skills::resource_skills))
            .routes(routes!(
                skill_needs::set_requirements,
                skill_needs::get_requirements
            ))
            .routes(routes!(skill_needs::expiring))
            .routes(routes!(skill_needs::availability))
            .routes(routes!(
                needs::set_product_resources,
                needs::get_product_resources
            )),
    )
}

/// The public routes (tenant header only).
pub fn public_router() -> OpenApiRouter<AppState> {
    Tier::Standard.apply(
        OpenApiRouter::new()
            .routes(routes!(configs::public_configs))
            .routes(routes!(windows::config_windows)),
    )
}

/// A booking's resource add-ons (booking token, customer or staff).
pub fn booking_router() -> OpenApiRouter<AppState> {
    Tier::Standard.apply(
        OpenApiRouter::new()
            .routes(routes!(
                booking_addons::add_addons,
                booking_addons::list_addons,
                booking_addons::change_addons
            ))
            .routes(routes!(conflicts::resolve_conflict)),
    )
}
