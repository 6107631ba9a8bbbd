//! Administrator authentication (spec Part A section 5) and staff account management.

mod error;
pub mod login;
pub mod passwords;
pub mod tokens;
pub mod users;

use crate::rate_limit;
use crate::state::AppState;
use axum::middleware;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

/// Staff sign-in (strict rate limit tier) and staff accounts.
pub fn router() -> OpenApiRouter<AppState> {
    let sign_in = OpenApiRouter::new()
        .routes(routes!(login::login))
        .layer(middleware::from_fn(rate_limit::strict));
    OpenApiRouter::new()
        .routes(routes!(users::list_users, users::create_user))
        .routes(routes!(
            users::get_user,
            users::update_user,
            users::deactivate_user
        ))
        .layer(middleware::from_fn(rate_limit::standard))
        .merge(sign_in)
}
