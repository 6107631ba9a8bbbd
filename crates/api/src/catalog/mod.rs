//! Catalog administration (camelCase, `admin:read` / `admin:write`): sites, products,
//!
//! One file per resource; [`router`] lists the routes.

mod addons;
mod error;
mod packages;
pub(crate) mod participant_types;
pub(crate) mod products;
mod sites;
mod variants;

use crate::error::{ApiError, ApiResult};
use crate::state::AppState;
use kairos_domain::FieldErrors;
use kairos_domain::tenancy::Currency;

fn currency(code: &str) -> ApiResult<Currency> {
    Currency::parse(code).map_err(ApiError::internal)
}

pub(crate) fn text(errors: &mut FieldErrors, field: &str, value: &str, max: usize) -> String {
    let v = value.trim();
    if v.chars().count() > max {
        errors.add(field, format!("must be at most {max} characters"));
    }
    if v.chars().any(char::is_control) && field != "description" {
        errors.add(field, "must not contain control characters");
    }
    v.to_owned()
}

pub(crate) fn required_text(
    errors: &mut FieldErrors,
    field: &str,
    value: Option<&str>,
    max: usize,
) -> String {
    match value.map(str::trim) {
        None | Some("") => {
            errors.add(field, "is required");
            String::new()
        }
        Some(v) => text(errors, field, v, max),
    }
}

// ───────────────────────────── sites ─────────────────────────────

use crate::rate_limit::Tier;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

pub use addons::{AddonDto, addon_dto};

/// Sites, products, variants and add-ons under `/api/v1/admin`.
pub fn router() -> OpenApiRouter<AppState> {
    Tier::Standard.apply(
        OpenApiRouter::new()
            .routes(routes!(sites::list_sites, sites::create_site))
            .routes(routes!(
                sites::get_site,
                sites::update_site,
                sites::deactivate_site
            ))
            .routes(routes!(products::list_products, products::create_product))
            .routes(routes!(
                products::get_product,
                products::update_product,
                products::deactivate_product
            ))
            .routes(routes!(variants::list_variants, variants::create_variant))
            .routes(routes!(
                variants::get_variant,
                variants::update_variant,
                variants::deactivate_variant
            ))
            .routes(routes!(addons::list_addons, addons::create_addon))
            .routes(routes!(
                addons::get_addon,
                addons::update_addon,
                addons::deactivate_addon
            ))
            .routes(routes!(packages::list_packages, packages::create_package))
            .routes(routes!(packages::get_package, packages::update_package))
            .routes(routes!(packages::public_packages)),
    )
}
