//! Messaging (camelCase, spec Part B 4.7, 4.8, 4.11): templates, automation rules, the
//! messaging tools and the dead-letter queue, under `/api/v1/admin/…`. Errors are shape B
//! (spec Part B 7); reads are limited to 100 and writes to 30 per minute (Part B 8).
//!
//! One file per resource; [`router`] lists the routes.

mod analytics;
mod bulk;
mod error;
mod fields;
mod messages;
mod preferences;
mod preview;
mod rules;
mod send;
mod templates;
mod tracking;

use crate::rate_limit::Tier;
use crate::state::AppState;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

/// The notification endpoints, in their own rate limit tiers, and the public tracking
/// endpoints (relaxed tier).
pub fn router() -> OpenApiRouter<AppState> {
    Tier::Relaxed
        .apply(
            OpenApiRouter::new()
                .routes(routes!(tracking::open_pixel))
                .routes(routes!(tracking::click)),
        )
        .merge(notification_routes())
}

fn notification_routes() -> OpenApiRouter<AppState> {
    Tier::notifications(
        OpenApiRouter::new()
            .routes(routes!(
                templates::list_templates,
                templates::create_template
            ))
            .routes(routes!(templates::template_types))
            .routes(routes!(preview::preview_template))
            .routes(routes!(templates::template_by_key))
            .routes(routes!(rules::list_rules, rules::create_rule))
            .routes(routes!(
                rules::get_rule,
                rules::update_rule,
                rules::delete_rule
            ))
            .routes(routes!(
                preferences::get_preferences,
                preferences::update_preferences
            ))
            .routes(routes!(send::send_message))
            .routes(routes!(bulk::create_bulk, bulk::list_bulks))
            .routes(routes!(bulk::get_bulk))
            .routes(routes!(bulk::cancel_bulk))
            .routes(routes!(analytics::analytics))
            .routes(routes!(messages::list_messages))
            .routes(routes!(messages::message_status))
            .routes(routes!(
                templates::get_template,
                templates::update_template,
                templates::delete_template
            )),
    )
}
