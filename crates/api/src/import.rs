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

use crate::error::{ApiError, ApiResult, code};
use axum::extract::Multipart;
use axum::extract::multipart::MultipartRejection;
use axum::http::StatusCode;
use chrono::{DateTime, Utc};
use serde::Serialize;
use std::collections::{BTreeMap, HashMap};
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

/// A cell that could not be read: the error is in the row's errors already.
#[derive(Debug, Clone, Copy)]
pub struct Recorded;

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
        file = Some(bytes.to_vec());
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

/// One row of a preview.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PreviewRow {
    pub row_number: usize,
    /// The row's cells by column.
    #[schema(value_type = Object)]
    pub data: BTreeMap<String, String>,
    pub is_valid: bool,
    pub errors: Vec<ImportError>,
    pub warnings: Vec<String>,
    /// create (valid) or skip.
    #[schema(example = "create")]
    pub action: &'static str,
}

/// How often one error type hit one column.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ErrorSummary {
    pub field: String,
    #[schema(value_type = ImportErrorTypeSchema)]
    pub error_type: &'static str,
    pub count: usize,
    pub affected_rows: Vec<usize>,
}

/// A code the file has twice, or that exists already.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DuplicateCode {
    pub code: String,
    /// The promotion or voucher that has the code already; null when only the file
    /// repeats it.
    pub existing_id: Option<String>,
    pub rows: Vec<usize>,
}

/// The answer of a preview: nothing is stored.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PreviewResponse {
    /// Data rows (the header excluded).
    pub total_rows: usize,
    pub valid_rows: usize,
    pub invalid_rows: usize,
    /// The first 50 rows.
    pub preview: Vec<PreviewRow>,
    pub error_summary: Vec<ErrorSummary>,
    pub warnings: Vec<String>,
    pub duplicate_codes: Vec<DuplicateCode>,
    /// validRows / totalRows (0 to 1; 0 for an empty file).
    pub estimated_success_rate: f64,
    /// Whether executing would create anything.
    pub can_proceed: bool,
}

/// One row of an execute.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ResultRow {
    pub row_number: usize,
    pub success: bool,
    /// created or failed.
    #[schema(example = "created")]
    pub action: &'static str,
    pub entity_id: Option<String>,
    pub code: Option<String>,
    pub errors: Vec<ImportError>,
}

/// The answer of an execute.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ExecuteResponse {
    pub success: bool,
    pub total_rows: usize,
    pub success_count: usize,
    pub failure_count: usize,
    /// Rows left out on purpose (none: every row is created or failed).
    pub skipped_count: usize,
    pub results: Vec<ResultRow>,
    pub created_ids: Vec<String>,
    pub execution_time_ms: u64,
    /// The staff member who imported.
    pub imported_by: String,
    pub imported_at: DateTime<Utc>,
    /// Vouchers only: the codes generated for rows with an empty code, in row order.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub generated_codes: Option<Vec<GeneratedCode>>,
}

/// A code generated for a row that had none.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct GeneratedCode {
    pub row_number: usize,
    pub code: String,
    pub entity_id: String,
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

/// Marks the rows whose code another row of the file or an existing record has. `existing`
/// maps a code key (ASCII lower case) to the record's id.
pub fn mark_duplicates<T>(
    rows: &mut [Checked<T>],
    existing: &HashMap<String, String>,
) -> Vec<DuplicateCode> {
    let mut by_key: BTreeMap<String, (String, Vec<usize>)> = BTreeMap::new();
    for (i, row) in rows.iter().enumerate() {
        if let Some(code) = &row.code {
            by_key
                .entry(code.to_ascii_lowercase())
                .or_insert_with(|| (code.clone(), Vec::new()))
                .1
                .push(i);
        }
    }
    let mut duplicates = Vec::new();
    for (key, (code, indexes)) in by_key {
        let existing_id = existing.get(&key).cloned();
        if indexes.len() < 2 && existing_id.is_none() {
            continue;
        }
        let first_row = rows[indexes[0]].row_number;
        for (n, &i) in indexes.iter().enumerate() {
            let row = &mut rows[i];
            let value = row.code.clone();
            if let Some(id) = &existing_id {
                row.errors.push(ImportError {
                    field: "code".into(),
                    error_type: "code_already_exists",
                    message: format!("{code} exists already (id {id})"),
                    value,
                });
            } else if n > 0 {
                row.errors.push(ImportError {
                    field: "code".into(),
                    error_type: "duplicate_code_in_batch",
                    message: format!(
                        "{code} is also on row {first_row}: only the first is imported"
                    ),
                    value,
                });
            }
        }
        duplicates.push(DuplicateCode {
            code,
            existing_id,
            rows: indexes.iter().map(|&i| rows[i].row_number).collect(),
        });
    }
    duplicates
}

/// The preview of checked rows.
pub fn preview<T>(
    rows: &[Checked<T>],
    duplicates: Vec<DuplicateCode>,
    mut warnings: Vec<String>,
) -> PreviewResponse {
    let total = rows.len();
    let valid = rows.iter().filter(|r| r.errors.is_empty()).count();
    let mut summary: BTreeMap<(String, &'static str), Vec<usize>> = BTreeMap::new();
    for r in rows {
        for e in &r.errors {
            summary
                .entry((e.field.clone(), e.error_type))
                .or_default()
                .push(r.row_number);
        }
    }
    if total == 0 {
        warnings.push("The file has no data rows".to_owned());
    }
    PreviewResponse {
        total_rows: total,
        valid_rows: valid,
        invalid_rows: total - valid,
        preview: rows
            .iter()
            .take(PREVIEW_ROWS)
            .map(|r| PreviewRow {
                row_number: r.row_number,
                data: r.data.iter().map(|(k, v)| (k.clone(), v.clone())).collect(),
                is_valid: r.errors.is_empty(),
                errors: r.errors.clone(),
                warnings: r.warnings.clone(),
                action: if r.errors.is_empty() {
                    "create"
                } else {
                    "skip"
                },
            })
            .collect(),
        error_summary: summary
            .into_iter()
            .map(|((field, error_type), affected_rows)| ErrorSummary {
                field,
                error_type,
                count: affected_rows.len(),
                affected_rows,
            })
            .collect(),
        warnings,
        duplicate_codes: duplicates,
        estimated_success_rate: if total == 0 {
            0.0
        } else {
            valid as f64 / total as f64
        },
        can_proceed: valid > 0,
    }
}

/// The warning for columns the import does not read.
pub fn unknown_columns_warning(sheet: &Sheet) -> Option<String> {
    (!sheet.unknown_columns.is_empty())
        .then(|| format!("Columns not imported: {}", sheet.unknown_columns.join(", ")))
}

/// The answer of an execute from its rows.
pub fn executed(
    results: Vec<ResultRow>,
    started: std::time::Instant,
    imported_by: &str,
    imported_at: DateTime<Utc>,
    generated_codes: Option<Vec<GeneratedCode>>,
) -> ExecuteResponse {
    let success_count = results.iter().filter(|r| r.success).count();
    ExecuteResponse {
        success: success_count > 0 || results.is_empty(),
        total_rows: results.len(),
        success_count,
        failure_count: results.len() - success_count,
        skipped_count: 0,
        created_ids: results.iter().filter_map(|r| r.entity_id.clone()).collect(),
        results,
        execution_time_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
        imported_by: imported_by.to_owned(),
        imported_at,
        generated_codes,
    }
}

/// The valid rows of a check, to write: their indexes and values, in order.
pub fn to_write<T: Clone>(rows: &[Checked<T>]) -> (Vec<usize>, Vec<T>) {
    rows.iter()
        .enumerate()
        .filter(|(_, r)| r.errors.is_empty())
        .filter_map(|(i, r)| r.value.clone().map(|v| (i, v)))
        .unzip()
}

/// Every checked row with what the write made of it (`outcomes`, one per index of
/// `indexes`), and the codes generated for rows that had none.
pub fn results<T>(
    rows: Vec<Checked<T>>,
    indexes: Vec<usize>,
    outcomes: Vec<kairos_store::ImportOutcome>,
) -> (Vec<ResultRow>, Vec<GeneratedCode>) {
    use kairos_store::ImportOutcome;
    let mut by_row: HashMap<usize, ImportOutcome> = indexes.into_iter().zip(outcomes).collect();
    let mut generated = Vec::new();
    let results = rows
        .into_iter()
        .enumerate()
        .map(|(i, r)| match by_row.remove(&i) {
            Some(ImportOutcome::Created { id, code }) => {
                if r.code.is_none() {
                    generated.push(GeneratedCode {
                        row_number: r.row_number,
                        code: code.clone(),
                        entity_id: id.to_string(),
                    });
                }
                ResultRow {
                    row_number: r.row_number,
                    success: true,
                    action: "created",
                    entity_id: Some(id.to_string()),
                    code: Some(code),
                    errors: Vec::new(),
                }
            }
            Some(ImportOutcome::Failed {
                field,
                error_type,
                message,
            }) => ResultRow {
                row_number: r.row_number,
                success: false,
                action: "failed",
                entity_id: None,
                errors: vec![ImportError::new(
                    field,
                    error_type,
                    message,
                    r.code.as_deref(),
                )],
                code: r.code,
            },
            None => ResultRow {
                row_number: r.row_number,
                success: false,
                action: "failed",
                entity_id: None,
                code: r.code,
                errors: r.errors,
            },
        })
        .collect();
    (results, generated)
}
