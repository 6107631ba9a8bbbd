//! Promotions (snake_case, spec Part A 2.5, 4.7, 4.8): administration under
//! `/api/v1/admin/promotions` (`admin:write`), the public listings, checking a code, and
//! applying codes to holds.
//!
//! One file per resource; [`router`] lists the routes.

mod admin;
mod apply;
mod error;
mod export;
mod fields;
mod import;
mod public;
mod stats;
mod validate;

pub use apply::{PricedBookingDto, expected_hash, typed_code};

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
                ))
                .routes(routes!(stats::promotion_stats))
                .routes(routes!(import::preview_promotions))
                .routes(routes!(import::import_promotions))
                .routes(routes!(apply::apply_promotion))
                .routes(routes!(apply::apply_promo_alias))
                .routes(routes!(apply::remove_promotion))
                .routes(routes!(validate::validate_promotion)),
        )
        .merge(
            Tier::Relaxed.apply(
                OpenApiRouter::new()
                    .routes(routes!(public::active_promotions))
                    .routes(routes!(public::list_public_promotions)),
            ),
        )
}
