//! The field rules the messaging endpoints share: template keys, language tags, the
//! lengths of templates, a whole template checked by rendering it with sample values.

use kairos_domain::FieldErrors;
use kairos_domain::messaging::{Channel, catalog, render};

/// Longest subject template, in characters.
pub(super) const SUBJECT_MAX: usize = 500;
/// Longest email body template, in characters.
pub(super) const BODY_MAX: usize = 100_000;
/// Longest SMS body template, in characters (ten concatenated SMS parts).
pub(super) const SMS_MAX: usize = 1_600;

/// `templateType` (or `channel`) when given.
pub(super) fn channel_choice(errors: &mut FieldErrors, raw: Option<&str>) -> Option<Channel> {
    crate::extract::optional_choice(
        errors,
        "templateType",
        raw,
        Channel::parse,
        Channel::choices,
    )
}

/// A non-empty text parameter of at most `max` characters (longer is recorded).
pub(super) fn bounded(
    errors: &mut FieldErrors,
    field: &str,
    value: Option<String>,
    max: usize,
) -> Option<String> {
    let value = value.filter(|s| !s.is_empty())?;
    if value.chars().count() > max {
        errors.add(field, format!("must be at most {max} characters"));
        return None;
    }
    Some(value)
}

pub(super) fn valid_key(key: &str) -> bool {
    let mut chars = key.chars();
    (1..=64).contains(&key.len())
        && chars.next().is_some_and(|c| c.is_ascii_lowercase())
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
}

pub(super) fn valid_language(code: &str) -> bool {
    let (lang, region) = code
        .split_once('-')
        .map_or((code, None), |(l, r)| (l, Some(r)));
    (2..=3).contains(&lang.len())
        && lang.chars().all(|c| c.is_ascii_lowercase())
        && region.is_none_or(|r| {
            (2..=8).contains(&r.len()) && r.chars().all(|c| c.is_ascii_alphanumeric())
        })
}

/// The message for a bad template key.
pub(super) const KEY_RULE: &str =
    "must be 1 to 64 lower-case letters, digits or '_', starting with a letter";

/// The checked fields of a template, as they will be stored.
pub(super) struct Checked {
    pub template_key: String,
    pub language_code: String,
    pub template_type: Channel,
    pub subject: String,
    pub body: String,
}

/// Checks a whole template (after a patch is laid over the stored one): each field, then
/// that both parts parse and render with sample values.
pub(super) fn check_template(errors: &mut FieldErrors, t: &Checked) {
    if !valid_key(&t.template_key) {
        errors.add("templateKey", KEY_RULE);
    }
    if !valid_language(&t.language_code) {
        errors.add(
            "languageCode",
            "must be a language tag such as en, fi or pt-BR",
        );
    }
    if t.subject.chars().count() > SUBJECT_MAX {
        errors.add(
            "subjectTemplate",
            format!("must be at most {SUBJECT_MAX} characters"),
        );
    } else if t.template_type == Channel::Email && t.subject.trim().is_empty() {
        errors.add("subjectTemplate", "must not be empty for an email");
    }
    let body_max = match t.template_type {
        Channel::Email => BODY_MAX,
        Channel::Sms => SMS_MAX,
    };
    if t.body.trim().is_empty() {
        errors.add("bodyTemplate", "must not be empty");
    } else if t.body.chars().count() > body_max {
        errors.add(
            "bodyTemplate",
            format!(
                "must be at most {body_max} characters for {}",
                t.template_type
            ),
        );
    }
    if !errors.is_empty() {
        return;
    }
    let known = catalog::variables_of(Some(&t.template_key));
    if let Err(p) = render::render(
        &t.subject,
        &t.body,
        t.template_type,
        &catalog::sample_data(),
        &known,
    ) {
        errors.add(p.field, p.message);
    }
}

pub(super) fn text_field(
    errors: &mut FieldErrors,
    field: &str,
    value: Option<String>,
    required: bool,
) -> Option<String> {
    if value.is_none() && required {
        errors.add(field, "is required");
    }
    value
}
