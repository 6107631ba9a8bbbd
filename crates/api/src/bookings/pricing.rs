//! Money and policies of a booking as the API shows them.

use crate::error::{ApiError, ApiResult};
use kairos_domain::money::to_major;
use kairos_domain::tenancy::Currency;
use kairos_store::Site;

pub use kairos_store::pricing::{check_addons, price_booking};

/// The currency of a site (validated when the site was saved).
pub fn site_currency(site: &Site) -> ApiResult<Currency> {
    Currency::parse(&site.currency).map_err(ApiError::internal)
}

/// Money of a booking in major units.
pub fn major(amount: i64, currency: &str) -> f64 {
    match Currency::parse(currency) {
        Ok(c) => to_major(amount, c),
        Err(_) => amount as f64 / 100.0,
    }
}
