//! Field-level validation errors, collected so that a response names every bad field.

use serde::Serialize;

/// One rejected input field.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FieldError {
    /// Name of the field as the client sent it (camelCase or snake_case per endpoint).
    pub field: String,
    /// Human-readable reason.
    pub message: String,
}

/// An accumulator of field errors: validation keeps going after the first problem.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FieldErrors(Vec<FieldError>);

impl FieldErrors {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn add(&mut self, field: impl Into<String>, message: impl Into<String>) {
        self.0.push(FieldError {
            field: field.into(),
            message: message.into(),
        });
    }

    /// Records the error of `result` under `field` and returns its value, if any.
    pub fn check<T, E: std::fmt::Display>(
        &mut self,
        field: &str,
        result: Result<T, E>,
    ) -> Option<T> {
        match result {
            Ok(v) => Some(v),
            Err(e) => {
                self.add(field, e.to_string());
                None
            }
        }
    }

    /// Whether a list of `len` items for `field` keeps within `max`; records the error
    /// when it does not (its items are then not worth checking one by one).
    pub fn at_most(&mut self, field: &str, len: usize, max: usize) -> bool {
        if len > max {
            self.add(field, format!("must have at most {max} items (has {len})"));
            false
        } else {
            true
        }
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn into_vec(self) -> Vec<FieldError> {
        self.0
    }

    pub fn as_slice(&self) -> &[FieldError] {
        &self.0
    }

    /// `Ok(())` when nothing was recorded, otherwise the collected errors.
    pub fn finish(self) -> Result<(), FieldErrors> {
        if self.0.is_empty() { Ok(()) } else { Err(self) }
    }
}

impl std::fmt::Display for FieldErrors {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let parts: Vec<String> = self
            .0
            .iter()
            .map(|e| format!("{}: {}", e.field, e.message))
            .collect();
        f.write_str(&parts.join("; "))
    }
}

impl std::error::Error for FieldErrors {}

impl From<FieldError> for FieldErrors {
    fn from(e: FieldError) -> Self {
        Self(vec![e])
    }
}

/// Whether `url` is an http(s) address of at most 2000 characters without whitespace
/// (an image, a page the customer returns to).
pub fn is_web_address(url: &str) -> bool {
    (url.starts_with("https://") || url.starts_with("http://"))
        && url.len() > "http://".len()
        && url.len() <= 2000
        && !url.chars().any(char::is_whitespace)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn collects_every_error_in_order() {
        let mut errors = FieldErrors::new();
        errors.add("email", "is not a valid email address");
        let parsed: Option<u32> = errors.check("partySize", "x".parse::<u32>());
        assert!(parsed.is_none());
        let list = errors.clone().into_vec();
        assert_eq!(list.len(), 2);
        assert_eq!(list[0].field, "email");
        assert_eq!(list[1].field, "partySize");
        assert!(errors.finish().is_err());
        assert!(FieldErrors::new().finish().is_ok());
    }
}
