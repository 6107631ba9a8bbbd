//! The answers of an import: the preview (nothing stored) and the execute (per row).

use super::{Checked, ImportError, ImportErrorTypeSchema, PREVIEW_ROWS};
use chrono::{DateTime, Utc};
use serde::Serialize;
use std::collections::{BTreeMap, HashMap};
use utoipa::ToSchema;

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

/// Marks the rows whose code another row of the file or an existing record has. `existing`
/// maps a code key (ASCII lower case) to the record's id.
pub fn mark_duplicates<T>(
    rows: &mut [Checked<T>],
    existing: &HashMap<String, uuid::Uuid>,
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
        let existing_id = existing.get(&key).map(ToString::to_string);
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
