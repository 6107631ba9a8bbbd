//! Administrator authentication (spec Part A section 5) and staff account management.

mod error;
pub mod login;
pub mod passwords;
pub mod tokens;
pub mod users;

use crate::rate_limit::Tier;
use crate::state::AppState;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

/// Staff sign-in (strict rate limit tier) and staff accounts.
pub fn router() -> OpenApiRouter<AppState> {
    let sign_in = Tier::Strict.apply(OpenApiRouter::new().routes(routes!(login::login)));
    Tier::Standard
        .apply(
            OpenApiRouter::new()
                .routes(routes!(users::list_users, users::create_user))
                .routes(routes!(
                    users::get_user,
                    users::update_user,
                    users::deactivate_user
                )),
        )
        .merge(sign_in)
}
