//! Promotions (snake_case, spec Part A 2.5, 4.7, 4.8): administration under
//! `/api/v1/admin/promotions` (`admin:write`) and the public listings.
//!
//! One file per resource; [`router`] lists the routes.

mod admin;
mod error;
mod export;
mod fields;
mod public;

use crate::rate_limit::Tier;
use crate::state::AppState;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

/// Promotion administration (standard tier) and the public listings (relaxed tier).
pub fn router() -> OpenApiRouter<AppState> {
    Tier::Standard
        .apply(
            OpenApiRouter::new()
                .routes(routes!(admin::list_promotions, admin::create_promotion))
                .routes(routes!(export::export_promotions))
                .routes(routes!(
                    admin::get_promotion,
                    admin::update_promotion,
                    admin::delete_promotion
                )),
        )
        .merge(
            Tier::Relaxed.apply(
                OpenApiRouter::new()
                    .routes(routes!(public::active_promotions))
                    .routes(routes!(public::list_public_promotions)),
            ),
        )
}
