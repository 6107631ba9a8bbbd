//! The dead-letter queue (camelCase, spec Part B 4.11), under `/api/v1/admin/dead-letters`:
//! list with filters, read, and staff's actions (retry now, resolve by hand, skip with a
//! reason). Reads need `admin:read`, actions `admin:write`. Errors are shape B like the
//! other notification endpoints, whose rate limits they share.

mod actions;
mod list;

use crate::rate_limit::Tier;
use crate::state::AppState;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

pub use list::DeadLetterDto;

pub fn router() -> OpenApiRouter<AppState> {
    Tier::notifications(
        OpenApiRouter::new()
            .routes(routes!(list::list_dead_letters))
            .routes(routes!(list::get_dead_letter))
            .routes(routes!(actions::retry_dead_letter))
            .routes(routes!(actions::resolve_dead_letter))
            .routes(routes!(actions::skip_dead_letter)),
    )
}
