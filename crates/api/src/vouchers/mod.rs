//! Vouchers (snake_case like the promotions, spec Part A 2.6): administration under
//! `/api/v1/admin/vouchers` (`admin:write`; not in the spec, venues need it) and the
//! public balance, and vouchers paying for holds.
//!
//! One file per resource; [`router`] lists the routes.

mod admin;
mod apply;
mod error;
mod export;
mod import;
mod public;

use crate::rate_limit::Tier;
use crate::state::AppState;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

/// Voucher administration and the public balance (standard tier: codes are money, so
/// guessing them is not cheap).
pub fn router() -> OpenApiRouter<AppState> {
    Tier::Standard.apply(
        OpenApiRouter::new()
            .routes(routes!(admin::list_vouchers, admin::create_voucher))
            .routes(routes!(export::export_vouchers))
            .routes(routes!(import::preview_vouchers))
            .routes(routes!(import::import_vouchers))
            .routes(routes!(admin::get_voucher, admin::deactivate_voucher))
            .routes(routes!(public::voucher_balance))
            .routes(routes!(apply::apply_voucher))
            .routes(routes!(apply::redeem_voucher)),
    )
}
