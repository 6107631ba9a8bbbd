//! Customer account rules (spec Part A 2.4 and 4.6).

use crate::validation::FieldErrors;

/// A normalised email address: trimmed and lower-cased, so uniqueness per tenant ignores case.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Email(String);

impl Email {
    pub const MAX_LEN: usize = 254;

    pub fn parse(raw: &str) -> Result<Self, String> {
        let s = raw.trim().to_lowercase();
        if s.len() > Self::MAX_LEN {
            return Err(format!("must be at most {} characters", Self::MAX_LEN));
        }
        let Some((local, domain)) = s.split_once('@') else {
            return Err("is not a valid email address".into());
        };
        let valid = !local.is_empty()
            && local.len() <= 64
            && domain.contains('.')
            && !domain.starts_with('.')
            && !domain.ends_with('.')
            && !domain.contains("..")
            && !s.chars().any(|c| c.is_whitespace() || c.is_control())
            && !domain.contains('@');
        if valid {
            Ok(Self(s))
        } else {
            Err("is not a valid email address".into())
        }
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    pub fn into_string(self) -> String {
        self.0
    }
}

/// A phone number in loose international format: digits with optional `+`, spaces,
/// dashes, dots and parentheses, 6 to 20 digits.
pub fn validate_phone(phone: &str) -> Result<(), String> {
    let digits = phone.chars().filter(|c| c.is_ascii_digit()).count();
    let allowed = phone.chars().enumerate().all(|(i, c)| {
        c.is_ascii_digit() || matches!(c, ' ' | '-' | '.' | '(' | ')') || (c == '+' && i == 0)
    });
    if allowed && (6..=20).contains(&digits) {
        Ok(())
    } else {
        Err(
            "is not a phone number (international format recommended, for example +358401234567)"
                .into(),
        )
    }
}

/// Names: at most 100 characters, no control characters.
pub fn validate_name(name: &str) -> Result<(), String> {
    if name.chars().count() > 100 {
        return Err("must be at most 100 characters".into());
    }
    if name.chars().any(char::is_control) {
        return Err("must not contain control characters".into());
    }
    Ok(())
}

/// A registration request after parsing.
#[derive(Debug, Clone)]
pub struct Registration {
    pub email: Email,
    pub first_name: Option<String>,
    pub last_name: Option<String>,
    pub phone: Option<String>,
    pub marketing_opt_in: bool,
    pub sms_opt_in: bool,
}

/// The raw registration fields as a client sent them.
#[derive(Debug, Clone, Default)]
pub struct RegistrationInput<'a> {
    pub email: Option<&'a str>,
    pub password: Option<&'a str>,
    pub first_name: Option<&'a str>,
    pub last_name: Option<&'a str>,
    pub phone: Option<&'a str>,
    pub marketing_opt_in: Option<bool>,
    pub sms_opt_in: Option<bool>,
    pub terms_accepted: Option<bool>,
    pub privacy_policy_accepted: Option<bool>,
}

/// Applies every registration rule and names every failing field.
pub fn parse_registration(input: &RegistrationInput<'_>) -> Result<Registration, FieldErrors> {
    let mut errors = FieldErrors::new();
    let email = match input.email {
        None => {
            errors.add("email", "is required");
            None
        }
        Some(e) => errors.check("email", Email::parse(e)),
    };
    match input.password {
        None => errors.add("password", "is required"),
        Some(p) => {
            errors.check("password", crate::auth::validate_password(p));
        }
    }
    for (field, value) in [
        ("firstName", input.first_name),
        ("lastName", input.last_name),
    ] {
        if let Some(v) = value {
            errors.check(field, validate_name(v));
        }
    }
    if let Some(p) = input.phone.filter(|p| !p.trim().is_empty()) {
        errors.check("phone", validate_phone(p));
    }
    for (field, value) in [
        ("termsAccepted", input.terms_accepted),
        ("privacyPolicyAccepted", input.privacy_policy_accepted),
    ] {
        match value {
            None => errors.add(field, "is required"),
            Some(false) => errors.add(field, "must be accepted"),
            Some(true) => {}
        }
    }
    errors.finish()?;
    let email = email.ok_or_else(FieldErrors::new)?;
    Ok(Registration {
        email,
        first_name: clean(input.first_name),
        last_name: clean(input.last_name),
        phone: clean(input.phone),
        marketing_opt_in: input.marketing_opt_in.unwrap_or(false),
        sms_opt_in: input.sms_opt_in.unwrap_or(false),
    })
}

/// Trims optional text; blank becomes absent.
pub fn clean(value: Option<&str>) -> Option<String> {
    value
        .map(str::trim)
        .filter(|v| !v.is_empty())
        .map(str::to_owned)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn valid() -> RegistrationInput<'static> {
        RegistrationInput {
            email: Some("  Ada@Example.COM "),
            password: Some("correct horse"),
            first_name: Some("Ada"),
            last_name: Some("Lovelace"),
            phone: Some("+358 40 123 4567"),
            terms_accepted: Some(true),
            privacy_policy_accepted: Some(true),
            ..Default::default()
        }
    }

    #[test]
    fn emails_are_normalised_and_checked() {
        assert_eq!(
            Email::parse(" A@B.Co ").map(Email::into_string),
            Ok("a@b.co".to_owned())
        );
        for bad in [
            "", "plain", "@x.io", "a@", "a@b", "a@.b", "a b@c.io", "a@b..c", "a@b@c.io",
        ] {
            assert!(Email::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn valid_registration_has_defaults_and_normalised_email() {
        let reg = parse_registration(&valid()).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(reg.email.as_str(), "ada@example.com");
        assert!(!reg.marketing_opt_in);
        assert!(!reg.sms_opt_in);
    }

    #[test]
    fn every_bad_field_is_named() {
        let input = RegistrationInput {
            email: Some("nope"),
            password: Some("short"),
            phone: Some("call me"),
            terms_accepted: Some(false),
            privacy_policy_accepted: None,
            ..Default::default()
        };
        let errors = parse_registration(&input)
            .err()
            .unwrap_or_default()
            .into_vec();
        let fields: Vec<&str> = errors.iter().map(|e| e.field.as_str()).collect();
        assert_eq!(
            fields,
            [
                "email",
                "password",
                "phone",
                "termsAccepted",
                "privacyPolicyAccepted"
            ]
        );
    }

    #[test]
    fn phones() {
        assert!(validate_phone("+1 (555) 010-9999").is_ok());
        assert!(validate_phone("12345").is_err());
        assert!(validate_phone("12+345678").is_err());
    }
}
