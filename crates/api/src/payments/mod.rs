//! Payments (spec Part B 4.6): provider credentials under
//! `/api/v1/admin/payments/credentials` (`credentials.rs`); the card provider's client
//! (`cardpay.rs`), the built-in sandbox provider (`sandbox.rs`), reaching a payment's
//! account (`provider.rs`); authorize and capture (`actions.rs`), refunds (`refunds.rs`),
//! the tenant's cancellation fee (`refund_policy.rs`), a cancelled booking's refund
//! (`cancellation.rs`);
//! the bank provider (`bankpay.rs`, `bank_redirect.rs`, `bank_callback.rs`); the provider
//! webhooks (`webhooks.rs`). Errors are shape A.
//!
//! One file per resource; [`router`] lists the routes.

pub mod actions;
mod bank_callback;
pub mod bank_redirect;
pub mod bankpay;
pub mod cancellation;
pub mod cardpay;
mod credentials;
pub mod deadline;
mod error;
pub mod mixed;
pub mod provider;
mod refund_policy;
pub mod refunds;
pub mod sandbox;
pub mod sandbox_http;
pub mod settings;
pub mod webhooks;

use crate::rate_limit::Tier;
use crate::state::AppState;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

pub use credentials::seal_context;
pub use settings::PaymentSettings;

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
