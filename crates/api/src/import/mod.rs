//! CSV imports (spec Part A 4.9): the upload, the rows, the typed errors, and the preview
//! and execute answers shared by promotions and vouchers.
//!
//! - The upload is `multipart/form-data` with one field `file`: UTF-8 CSV with or without a
//!   byte order mark, a header row, at most [`MAX_FILE_BYTES`] (larger: 413
//!   `PAYLOAD_TOO_LARGE`). The columns are the export's (same names, any order; unknown
//!   columns are ignored with a warning), so an export imports as it is.
//! - A cell the export neutralised against spreadsheet formulas (`'=…`, `'+…`, `'-…`,
//!   `'@…`) is read back without the `'`.
//! - Every row is checked; each problem is an [`ImportError`] naming the column, one of the
//!   spec's error types, a message and the value.

//!
//! Files: this one (the upload and the sheet of rows), `cells.rs` (reading a row's typed
//! cells), `report.rs` (the preview and execute answers).

mod cells;
mod report;

pub use cells::{Cells, Recorded};
pub use report::{
    DuplicateCode, ErrorSummary, ExecuteResponse, GeneratedCode, PreviewResponse, PreviewRow,
    ResultRow, executed, mark_duplicates, preview, results, to_write,
};

use crate::error::{ApiError, ApiResult, code};
use axum::extract::Multipart;
use axum::extract::multipart::MultipartRejection;
use axum::http::StatusCode;
use serde::Serialize;
use std::collections::HashMap;
use utoipa::ToSchema;

/// Largest CSV file: 10 MB.
pub const MAX_FILE_BYTES: usize = 10 * 1024 * 1024;
/// Rows shown by a preview.
pub const PREVIEW_ROWS: usize = 50;

crate::openapi::schemas::string_enum!(
    ImportErrorTypeSchema,
    "ImportErrorType",
    [
        "missing_required_field",
        "invalid_field_type",
        "field_too_long",
        "invalid_enum_value",
        "invalid_date_format",
        "value_out_of_range",
        "duplicate_code_in_batch",
        "code_already_exists",
        "invalid_date_range",
        "reference_not_found",
        "database_error",
        "unknown_error"
    ]
);

/// The multipart body of an import (OpenAPI only).
#[derive(ToSchema)]
pub struct ImportUpload {
    /// The CSV file (UTF-8, header row, at most 10 MB).
    #[schema(value_type = String, format = Binary)]
    pub file: Vec<u8>,
}

/// One problem of one row.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct ImportError {
    /// The column (camelCase, as in the header).
    pub field: String,
    #[serde(rename = "type")]
    #[schema(value_type = ImportErrorTypeSchema)]
    pub error_type: &'static str,
    pub message: String,
    /// The cell as read.
    pub value: Option<String>,
}

impl ImportError {
    pub fn new(
        field: &str,
        error_type: &'static str,
        message: impl Into<String>,
        value: Option<&str>,
    ) -> Self {
        ImportError {
            field: field.to_owned(),
            error_type,
            message: message.into(),
            value: value.map(str::to_owned),
        }
    }
}

/// A row's cells by column, or why the row could not be read.
pub type RowCells = Result<HashMap<String, String>, String>;

/// A CSV file read into rows of cells by column name.
pub struct Sheet {
    /// Data rows: (row number, counting the header as row 1; cells by column, or the
    /// reason the row could not be read).
    pub rows: Vec<(usize, RowCells)>,
    /// Columns the import does not know.
    pub unknown_columns: Vec<String>,
}

/// Reads the `file` field of a multipart upload: its bytes, at most [`MAX_FILE_BYTES`].
/// A body that is not `multipart/form-data` with a boundary is a 400 in shape A.
pub async fn upload(multipart: Result<Multipart, MultipartRejection>) -> ApiResult<Vec<u8>> {
    let mut multipart = multipart.map_err(|e| {
        ApiError::invalid_field(
            "file",
            format!(
                "send the CSV as multipart/form-data (with a boundary) in a field named file: {}",
                e.body_text()
            ),
        )
    })?;
    let mut file = None;
    loop {
        let field = multipart.next_field().await.map_err(|e| {
            ApiError::invalid_field("file", format!("the multipart body cannot be read: {e}"))
        })?;
        let Some(field) = field else { break };
        if field.name() != Some("file") {
            continue;
        }
        let bytes = field.bytes().await.map_err(|e| {
            ApiError::invalid_field("file", format!("the file cannot be read: {e}"))
        })?;
        if bytes.len() > MAX_FILE_BYTES {
            return Err(ApiError::new(
                StatusCode::PAYLOAD_TOO_LARGE,
                code::PAYLOAD_TOO_LARGE,
                format!(
                    "The file is {} bytes; an import takes at most {MAX_FILE_BYTES} bytes (10 MB): split it and import the parts",
                    bytes.len()
                ),
            ));
        }
        if file.replace(bytes.to_vec()).is_some() {
            return Err(ApiError::invalid_field(
                "file",
                "is sent twice: import one file at a time",
            ));
        }
    }
    file.ok_or_else(|| {
        ApiError::invalid_field(
            "file",
            "is required: send the CSV as the multipart/form-data field named file",
        )
    })
}

/// A cell the export neutralised against formulas, as it was.
fn unneutralised(cell: &str) -> &str {
    match cell.strip_prefix('\'') {
        Some(rest) if rest.starts_with(['=', '+', '-', '@', '\t', '\r']) => rest,
        _ => cell,
    }
}

/// Parses `bytes` as CSV with a header row. `known` are the columns the import reads;
/// `required` must be in the header.
pub fn sheet(bytes: &[u8], known: &[&str], required: &[&str]) -> ApiResult<Sheet> {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    if let Err(e) = std::str::from_utf8(bytes) {
        return Err(ApiError::invalid_field(
            "file",
            format!(
                "is not UTF-8 text (byte {}): save the file as CSV UTF-8 and import it again",
                e.valid_up_to()
            ),
        ));
    }
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(true)
        .flexible(true)
        .from_reader(bytes);
    let headers: Vec<String> = reader
        .headers()
        .map_err(|e| ApiError::invalid_field("file", format!("has no readable header row: {e}")))?
        .iter()
        .map(|h| h.trim().to_owned())
        .collect();
    // A column named twice: which one holds the value is a guess, so the file is refused.
    let mut seen = std::collections::BTreeSet::new();
    let repeated: std::collections::BTreeSet<&str> = headers
        .iter()
        .filter(|h| !h.is_empty() && !seen.insert(h.as_str()))
        .map(String::as_str)
        .collect();
    if !repeated.is_empty() {
        return Err(ApiError::invalid_field(
            "file",
            format!(
                "names the column{} {} more than once: keep one of each and import it again",
                if repeated.len() == 1 { "" } else { "s" },
                repeated.into_iter().collect::<Vec<_>>().join(", ")
            ),
        ));
    }
    let missing: Vec<&str> = required
        .iter()
        .filter(|r| !headers.iter().any(|h| h == *r))
        .copied()
        .collect();
    if !missing.is_empty() {
        return Err(ApiError::invalid_field(
            "file",
            format!(
                "misses the column{} {}: the first row must name the columns, as an export does",
                if missing.len() == 1 { "" } else { "s" },
                missing.join(", ")
            ),
        ));
    }
    let unknown_columns = headers
        .iter()
        .filter(|h| !h.is_empty() && !known.contains(&h.as_str()))
        .cloned()
        .collect();
    let mut rows = Vec::new();
    for (i, record) in reader.records().enumerate() {
        let number = i + 2;
        let row: RowCells = match record {
            Err(e) => Err(format!("the row cannot be read as CSV: {e}")),
            Ok(r) if r.len() != headers.len() => Err(format!(
                "the row has {} cells; the header has {}",
                r.len(),
                headers.len()
            )),
            Ok(r) => Ok(headers
                .iter()
                .zip(r.iter())
                .filter(|(h, _)| known.contains(&h.as_str()))
                .map(|(h, v)| (h.clone(), unneutralised(v).to_owned()))
                .collect()),
        };
        // A blank line at the end is no row.
        if let Ok(cells) = &row
            && cells.values().all(|v| v.trim().is_empty())
        {
            continue;
        }
        rows.push((number, row));
    }
    Ok(Sheet {
        rows,
        unknown_columns,
    })
}

/// One checked row, before the write: its cells, errors, warnings and code.
pub struct Checked<T> {
    pub row_number: usize,
    pub data: HashMap<String, String>,
    pub code: Option<String>,
    pub errors: Vec<ImportError>,
    pub warnings: Vec<String>,
    pub value: Option<T>,
}

/// Reads the rows of an upload and checks each with `check` (row number, cells); a row
/// that cannot be read as CSV is an `unknown_error`. Also answers the warnings of the whole
/// file (columns not imported).
pub async fn checked_upload<T>(
    multipart: Result<Multipart, MultipartRejection>,
    columns: &[&str],
    required: &[&str],
    mut check: impl FnMut(usize, HashMap<String, String>) -> Checked<T>,
) -> ApiResult<(Vec<Checked<T>>, Vec<String>)> {
    let bytes = upload(multipart).await?;
    let sheet = sheet(&bytes, columns, required)?;
    let warnings: Vec<String> = (!sheet.unknown_columns.is_empty())
        .then(|| format!("Columns not imported: {}", sheet.unknown_columns.join(", ")))
        .into_iter()
        .collect();
    let rows = sheet
        .rows
        .into_iter()
        .map(|(n, row)| match row {
            Ok(cells) => check(n, cells),
            Err(reason) => Checked {
                row_number: n,
                data: HashMap::new(),
                code: None,
                errors: vec![ImportError::new("row", "unknown_error", reason, None)],
                warnings: Vec::new(),
                value: None,
            },
        })
        .collect();
    Ok((rows, warnings))
}
