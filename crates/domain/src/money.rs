//! Money: integer minor units in storage, decimal major units in most API fields.

use crate::tenancy::Currency;

/// Converts minor units to a major-unit decimal for JSON (1234 EUR cents → 12.34).
pub fn to_major(minor: i64, currency: Currency) -> f64 {
    let scale = 10_i64.pow(currency.minor_digits());
    // Exact for every amount below 2^53 minor units, far above any booking total.
    minor as f64 / scale as f64
}

/// Why a major-unit amount was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AmountError {
    #[error("must not be negative")]
    Negative,
    #[error("has more decimal places than the currency allows")]
    TooPrecise,
    #[error("is too large")]
    TooLarge,
    #[error("must be a finite number")]
    NotFinite,
}

/// Converts a major-unit decimal from JSON to minor units, refusing sub-minor precision.
pub fn from_major(major: f64, currency: Currency) -> Result<i64, AmountError> {
    if !major.is_finite() {
        return Err(AmountError::NotFinite);
    }
    if major < 0.0 {
        return Err(AmountError::Negative);
    }
    let scale = 10_f64.powi(currency.minor_digits() as i32);
    let scaled = major * scale;
    let rounded = scaled.round();
    if (scaled - rounded).abs() > 1e-6 {
        return Err(AmountError::TooPrecise);
    }
    if rounded > 1e15 {
        return Err(AmountError::TooLarge);
    }
    Ok(rounded as i64)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn eur() -> Currency {
        Currency::parse("EUR").unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn round_trips_major_and_minor_units() {
        assert_eq!(from_major(12.34, eur()), Ok(1234));
        assert_eq!(from_major(0.1 + 0.2, eur()), Ok(30));
        assert_eq!(to_major(1234, eur()), 12.34);
        assert_eq!(from_major(1.005, eur()), Err(AmountError::TooPrecise));
        assert_eq!(from_major(-1.0, eur()), Err(AmountError::Negative));
        assert_eq!(from_major(f64::NAN, eur()), Err(AmountError::NotFinite));
    }
}
