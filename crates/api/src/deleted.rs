//! The answer of a `DELETE` whose spec states no status (spec Part A 4: success is 200
//! unless stated): what was removed, in camelCase. (The promotions' snake_case group has
//! its own, `{success, message, deleted_id}`, as Part A 4.8 draws it.)

use serde::Serialize;
use utoipa::ToSchema;

/// What a delete removed (or, for a soft delete, deactivated).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Deleted {
    pub success: bool,
    #[schema(example = "Note deleted")]
    pub message: String,
    pub deleted_id: String,
}

impl Deleted {
    /// `what` (e.g. "Note deleted") of the thing with id `id`.
    pub fn of(what: &str, id: impl ToString) -> axum::Json<Deleted> {
        axum::Json(Deleted {
            success: true,
            message: what.to_owned(),
            deleted_id: id.to_string(),
        })
    }
}
