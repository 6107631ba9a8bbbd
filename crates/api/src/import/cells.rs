//! Reading the typed cells of one import row.

use super::ImportError;
use chrono::DateTime;
use std::collections::HashMap;

/// A cell that could not be read: the error is in the row's errors already.
#[derive(Debug, Clone, Copy)]
pub struct Recorded;

/// Reads the typed cells of one row, collecting its errors.
pub struct Cells<'a> {
    pub cells: &'a HashMap<String, String>,
    pub errors: Vec<ImportError>,
}

impl<'a> Cells<'a> {
    pub fn new(cells: &'a HashMap<String, String>) -> Self {
        Cells {
            cells,
            errors: Vec::new(),
        }
    }

    /// The trimmed cell; None when empty or absent.
    pub fn text(&self, field: &str) -> Option<&'a str> {
        self.cells
            .get(field)
            .map(|v| v.trim())
            .filter(|v| !v.is_empty())
    }

    pub fn error(&mut self, field: &str, kind: &'static str, message: impl Into<String>) {
        let value = self.cells.get(field).map(String::as_str);
        self.errors
            .push(ImportError::new(field, kind, message, value));
    }

    /// A required text of at most `max` characters.
    pub fn required(&mut self, field: &str, max: usize) -> Option<String> {
        match self.text(field) {
            None => {
                self.error(
                    field,
                    "missing_required_field",
                    format!("{field} is required"),
                );
                None
            }
            Some(v) => self.bounded(field, v, max),
        }
    }

    /// An optional text of at most `max` characters.
    pub fn optional(&mut self, field: &str, max: usize) -> Option<String> {
        self.text(field).and_then(|v| self.bounded(field, v, max))
    }

    fn bounded(&mut self, field: &str, v: &str, max: usize) -> Option<String> {
        if v.chars().count() > max {
            self.error(
                field,
                "field_too_long",
                format!("{field} must be at most {max} characters"),
            );
            return None;
        }
        Some(v.to_owned())
    }

    /// A number; Err(Recorded) when the cell is not one.
    pub fn number(&mut self, field: &str) -> Result<Option<f64>, Recorded> {
        match self.text(field) {
            None => Ok(None),
            Some(v) => match v.parse::<f64>() {
                Ok(n) if n.is_finite() => Ok(Some(n)),
                _ => {
                    self.error(
                        field,
                        "invalid_field_type",
                        format!("{field} must be a number"),
                    );
                    Err(Recorded)
                }
            },
        }
    }

    /// A whole number.
    pub fn whole(&mut self, field: &str) -> Result<Option<i64>, Recorded> {
        match self.text(field) {
            None => Ok(None),
            Some(v) => match v.parse::<i64>() {
                Ok(n) => Ok(Some(n)),
                Err(_) => {
                    self.error(
                        field,
                        "invalid_field_type",
                        format!("{field} must be a whole number"),
                    );
                    Err(Recorded)
                }
            },
        }
    }

    /// true/false (also 1/0, yes/no, any case).
    pub fn boolean(&mut self, field: &str) -> Result<Option<bool>, Recorded> {
        match self.text(field).map(str::to_ascii_lowercase).as_deref() {
            None => Ok(None),
            Some("true" | "1" | "yes") => Ok(Some(true)),
            Some("false" | "0" | "no") => Ok(Some(false)),
            Some(_) => {
                self.error(
                    field,
                    "invalid_field_type",
                    format!("{field} must be true or false"),
                );
                Err(Recorded)
            }
        }
    }

    /// A timestamp (RFC 3339) or a date (`YYYY-MM-DD`, the start of that UTC day), as the
    /// RFC 3339 text the API's validation reads.
    pub fn date(&mut self, field: &str) -> Result<Option<String>, Recorded> {
        let Some(v) = self.text(field) else {
            return Ok(None);
        };
        if DateTime::parse_from_rfc3339(v).is_ok() {
            return Ok(Some(v.to_owned()));
        }
        if let Ok(d) = chrono::NaiveDate::parse_from_str(v, "%Y-%m-%d")
            && let Some(t) = d.and_hms_opt(0, 0, 0)
        {
            return Ok(Some(t.and_utc().to_rfc3339()));
        }
        self.error(
            field,
            "invalid_date_format",
            format!("{field} must be a date (YYYY-MM-DD) or a timestamp (2026-11-23T10:00:00Z)"),
        );
        Err(Recorded)
    }
}
