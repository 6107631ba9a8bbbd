//! Tenant and site rules: time zones, currencies, locales.

use jiff::tz::TimeZone;

/// Why a time zone name was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("'{0}' is not an IANA time zone name (for example Europe/Helsinki)")]
pub struct UnknownTimeZone(pub String);

/// Accepts an IANA zone name known to the bundled time zone database.
///
/// Fixed offsets and abbreviations are refused: a site needs real daylight-saving rules.
pub fn parse_time_zone(name: &str) -> Result<TimeZone, UnknownTimeZone> {
    let trimmed = name.trim();
    if trimmed.is_empty() || !(trimmed.contains('/') || trimmed == "UTC") {
        return Err(UnknownTimeZone(name.to_owned()));
    }
    TimeZone::get(trimmed).map_err(|_| UnknownTimeZone(name.to_owned()))
}

/// Why a currency code was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("'{0}' is not an ISO 4217 currency code (for example EUR)")]
pub struct UnknownCurrency(pub String);

/// An ISO 4217 currency with its number of minor-unit digits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Currency {
    code: iso_currency::Currency,
}

impl Currency {
    pub fn parse(code: &str) -> Result<Self, UnknownCurrency> {
        let upper = code.trim().to_ascii_uppercase();
        let code = iso_currency::Currency::from_code(&upper)
            .filter(|c| c.exponent().is_some())
            .ok_or_else(|| UnknownCurrency(code.to_owned()))?;
        Ok(Self { code })
    }

    pub fn code(&self) -> &'static str {
        self.code.code()
    }

    /// The symbol customers know it by (`€`, `$`, `¥`).
    pub fn symbol(&self) -> String {
        self.code.symbol().symbol
    }

    /// Digits after the decimal point (2 for EUR, 0 for JPY).
    pub fn minor_digits(&self) -> u32 {
        u32::from(self.code.exponent().unwrap_or(2))
    }
}

/// Accepts a BCP 47-style locale such as `en`, `fi-FI` or `en-US`.
pub fn validate_locale(locale: &str) -> Result<(), String> {
    let mut parts = locale.split(['-', '_']);
    let lang = parts.next().unwrap_or_default();
    let lang_ok = (2..=3).contains(&lang.len()) && lang.chars().all(|c| c.is_ascii_lowercase());
    let rest_ok =
        parts.all(|p| (2..=8).contains(&p.len()) && p.chars().all(|c| c.is_ascii_alphanumeric()));
    if lang_ok && rest_ok {
        Ok(())
    } else {
        Err(format!(
            "'{locale}' is not a locale tag (for example en or fi-FI)"
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_iana_zones_and_refuses_others() {
        assert!(parse_time_zone("Europe/Helsinki").is_ok());
        assert!(parse_time_zone("America/New_York").is_ok());
        assert!(parse_time_zone("UTC").is_ok());
        assert!(parse_time_zone("Mars/Olympus").is_err());
        assert!(parse_time_zone("EST5EDT-nope").is_err());
        assert!(parse_time_zone("").is_err());
    }

    #[test]
    fn currencies_know_their_minor_digits() {
        let eur = Currency::parse("eur").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(eur.code(), "EUR");
        assert_eq!(eur.minor_digits(), 2);
        let jpy = Currency::parse("JPY").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(jpy.minor_digits(), 0);
        assert!(Currency::parse("XXQ").is_err());
        assert!(Currency::parse("").is_err());
    }

    #[test]
    fn locales() {
        assert!(validate_locale("en").is_ok());
        assert!(validate_locale("fi-FI").is_ok());
        assert!(validate_locale("EN").is_err());
        assert!(validate_locale("e").is_err());
    }
}
