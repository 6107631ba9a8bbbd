//! Payments (spec Part B 4.6): provider credentials under
//! `/api/v1/admin/payments/credentials`. Errors are shape A.
//!
//! One file per resource; [`router`] lists the routes.

mod credentials;
mod error;
pub mod settings;

use crate::rate_limit::Tier;
use crate::state::AppState;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

pub use settings::PaymentSettings;

pub fn router() -> OpenApiRouter<AppState> {
    Tier::Standard.apply(
        OpenApiRouter::new()
            .routes(routes!(credentials::list_credentials))
            .routes(routes!(
                credentials::put_credentials,
                credentials::delete_credentials
            )),
    )
}
