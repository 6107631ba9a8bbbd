//! Gift cards (camelCase, spec Part A 2.7, 2.8, 3.2, 4.10, 6): products administered
//! under `/api/v1/admin/gift-card-products` and listed publicly under
//! `/api/v1/gift-cards`; purchases bought and paid publicly (`purchases.rs`) and
//! administered under `/api/v1/admin/gift-card-purchases` (`admin_purchases.rs`).
//! Values are decimals in the tenant's currency (major units); card payment amounts are
//! minor units.
//!
//! One file per resource; [`router`] lists the routes.

mod admin_purchases;
mod error;
mod products;
mod public;
mod purchases;

use crate::rate_limit::Tier;
use crate::state::AppState;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

pub fn router() -> OpenApiRouter<AppState> {
    Tier::Standard
        .apply(
            OpenApiRouter::new()
                .routes(routes!(products::list_products, products::create_product))
                .routes(routes!(products::update_product, products::delete_product))
                .routes(routes!(admin_purchases::list_purchases))
                .routes(routes!(admin_purchases::resend_delivery))
                .routes(routes!(purchases::purchase_gift_card))
                .routes(routes!(purchases::pay_purchase_by_card)),
        )
        .merge(
            Tier::Relaxed.apply(
                OpenApiRouter::new()
                    .routes(routes!(public::list_catalogue))
                    .routes(routes!(public::get_catalogue_product))
                    .routes(routes!(purchases::purchase_status))
                    .routes(routes!(purchases::gift_card_balance)),
            ),
        )
}
