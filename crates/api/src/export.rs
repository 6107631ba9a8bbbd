//! Exports (spec Part A 4.9): a page as JSON or the same rows as a CSV download.
//!
//! JSON is one page (`{data, total, page, pageSize, totalPages, generatedAt}`, `pageSize`
//! at most 1000); CSV is every matching row, read a page at a time, with a header row.
//!
//! CSV cells that begin with `=`, `+`, `-` or `@` (or a tab or carriage return) are
//! prefixed with `'`, so that a spreadsheet shows them as text instead of running them as
//! formulas (CWE-1236). Lists are joined with `;` in one cell.

use crate::error::{ApiError, ApiResult};
use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};
use kairos_domain::FieldErrors;

/// Largest `pageSize`.
pub const MAX_PAGE_SIZE: u32 = 1000;
/// Default `pageSize`.
pub const DEFAULT_PAGE_SIZE: u32 = 100;

crate::openapi::schemas::string_enum!(ExportFormatSchema, "ExportFormat", ["json", "csv"]);

/// How an export is delivered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Json,
    Csv,
}

impl Format {
    /// `format` of the query: json (default) or csv.
    pub fn parse(errors: &mut FieldErrors, raw: Option<&str>) -> Format {
        match raw.map(str::trim).filter(|s| !s.is_empty()) {
            None | Some("json") => Format::Json,
            Some("csv") => Format::Csv,
            Some(_) => {
                errors.add("format", "must be json or csv");
                Format::Json
            }
        }
    }
}

/// A cell as a spreadsheet will show it: a leading formula character is neutralised.
pub fn cell(value: &str) -> String {
    if value.starts_with(['=', '+', '-', '@', '\t', '\r']) {
        format!("'{value}")
    } else {
        value.to_owned()
    }
}

/// `rows` (each as long as `headers`) as a CSV attachment named `filename`.
pub fn csv_response(
    filename: &str,
    headers: &[&str],
    rows: Vec<Vec<String>>,
) -> ApiResult<Response> {
    let mut writer = csv::Writer::from_writer(Vec::new());
    writer.write_record(headers).map_err(ApiError::internal)?;
    for row in rows {
        writer
            .write_record(row.iter().map(|v| cell(v)))
            .map_err(ApiError::internal)?;
    }
    let body = writer.into_inner().map_err(ApiError::internal)?;
    let mut response = body.into_response();
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/csv; charset=utf-8"),
    );
    headers.insert(
        header::CONTENT_DISPOSITION,
        HeaderValue::from_str(&format!("attachment; filename=\"{filename}\""))
            .map_err(ApiError::internal)?,
    );
    Ok(response)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formula_cells_are_neutralised() {
        assert_eq!(cell("=HYPERLINK(\"x\")"), "'=HYPERLINK(\"x\")");
        for bad in ["+1", "-1", "@SUM(A1)", "\tx", "\rx"] {
            assert!(cell(bad).starts_with('\''), "{bad:?}");
        }
        assert_eq!(cell("SUMMER10"), "SUMMER10");
        assert_eq!(cell("10.5"), "10.5");
    }
}
