//! Payments over HTTP (spec Part B 4.6): provider credentials under
//! `/api/v1/admin/payments/credentials` (`credentials.rs`); authorize and capture
//! (`actions.rs`), refunds (`refunds.rs`), the tenant's cancellation fee
//! (`refund_policy.rs`); the provider webhooks (`webhooks.rs`, `bank_callback.rs`); the
//! sandbox provider's own HTTP face (`sandbox_http.rs`); the answers' payment objects
//! (`dto.rs`). What these do beyond one transaction (providers, settling events,
//! refunds) is the application's (`kairos_app::payments`). Errors are shape A.
//!
//! One file per resource; [`router`] lists the routes.

pub mod actions;
mod bank_callback;
mod credentials;
pub mod dto;
mod error;
mod refund_policy;
pub mod refunds;
pub mod sandbox_http;
pub mod webhooks;

use crate::rate_limit::Tier;
use crate::state::AppState;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

pub use kairos_app::payments::PaymentSettings;
pub use kairos_app::payments::credentials::seal_context;
pub use kairos_app::payments::settings;

pub fn router() -> OpenApiRouter<AppState> {
    Tier::Standard
        .apply(
            OpenApiRouter::new()
                .routes(routes!(credentials::list_credentials))
                .routes(routes!(
                    credentials::put_credentials,
                    credentials::delete_credentials
                ))
                .routes(routes!(actions::authorize))
                .routes(routes!(actions::capture))
                .routes(routes!(refunds::refund))
                .routes(routes!(
                    refund_policy::get_refund_policy,
                    refund_policy::put_refund_policy
                )),
        )
        .merge(
            Tier::Relaxed.apply(
                OpenApiRouter::new()
                    .routes(routes!(webhooks::cardpay_webhook))
                    .routes(routes!(webhooks::cardpay_webhook_health))
                    .routes(routes!(
                        bank_callback::bankpay_callback,
                        bank_callback::bankpay_callback_get
                    ))
                    .routes(routes!(bank_callback::bankpay_health)),
            ),
        )
}
