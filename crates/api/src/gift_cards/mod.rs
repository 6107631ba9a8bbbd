//! Gift cards (camelCase, spec Part A 2.7, 4.10): products administered under
//! `/api/v1/admin/gift-card-products` and listed publicly under `/api/v1/gift-cards`.
//! Values are decimals in the tenant's currency (major units).
//!
//! One file per resource; [`router`] lists the routes.

mod error;
mod products;
mod public;

use crate::rate_limit::Tier;
use crate::state::AppState;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

pub fn router() -> OpenApiRouter<AppState> {
    Tier::Standard
        .apply(
            OpenApiRouter::new()
                .routes(routes!(products::list_products, products::create_product))
                .routes(routes!(products::update_product, products::delete_product)),
        )
        .merge(
            Tier::Relaxed.apply(
                OpenApiRouter::new()
                    .routes(routes!(public::list_catalogue))
                    .routes(routes!(public::get_catalogue_product)),
            ),
        )
}
