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

/// How a locale writes amounts: the decimal mark, the thousands separator, and whether
/// the currency symbol follows the amount (with a no-break space).
fn locale_style(locale: &str) -> (char, char, bool) {
    let language = locale
        .split(['-', '_'])
        .next()
        .unwrap_or("")
        .to_ascii_lowercase();
    match language.as_str() {
        // 1 234,50 €
        "fi" | "sv" | "fr" | "nb" | "nn" | "no" | "pl" | "cs" | "sk" | "et" | "lv" | "lt"
        | "ru" | "uk" | "hu" => (',', '\u{a0}', true),
        // 1.234,50 €
        "de" | "nl" | "es" | "it" | "pt" | "da" | "el" | "tr" | "ro" | "hr" | "sl" | "is" => {
            (',', '.', true)
        }
        // €1,234.50
        _ => ('.', ',', false),
    }
}

/// `minor` units of `currency` as `locale` writes them: `€1,234.50` (en),
/// `1 234,50 €` (fi, fr, sv, …), `1.234,50 €` (de, es, it, …).
pub fn format_in_locale(minor: i64, currency: Currency, locale: &str) -> String {
    let (decimal, thousands, symbol_after) = locale_style(locale);
    let digits = currency.minor_digits();
    let scale = 10_i64.pow(digits);
    let abs = minor.unsigned_abs();
    let whole = (abs / scale.unsigned_abs()).to_string();
    let mut grouped = String::new();
    for (i, c) in whole.chars().enumerate() {
        if i > 0 && (whole.len() - i).is_multiple_of(3) {
            grouped.push(thousands);
        }
        grouped.push(c);
    }
    let mut number = grouped;
    if digits > 0 {
        let fraction = abs % scale.unsigned_abs();
        number.push(decimal);
        number.push_str(&format!("{fraction:0width$}", width = digits as usize));
    }
    let sign = if minor < 0 { "-" } else { "" };
    if symbol_after {
        format!("{sign}{number}\u{a0}{}", currency.symbol())
    } else {
        format!("{sign}{}{number}", currency.symbol())
    }
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

    #[test]
    fn amounts_are_written_as_the_locale_writes_them() {
        assert_eq!(format_in_locale(123_450, eur(), "en"), "€1,234.50");
        assert_eq!(
            format_in_locale(123_450, eur(), "fi-FI"),
            "1\u{a0}234,50\u{a0}€"
        );
        assert_eq!(format_in_locale(123_450, eur(), "de"), "1.234,50\u{a0}€");
        assert_eq!(format_in_locale(5, eur(), "en-US"), "€0.05");
        assert_eq!(
            format_in_locale(-100_000_000, eur(), "en"),
            "-€1,000,000.00"
        );
    }
}
