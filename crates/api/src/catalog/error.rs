//! Catalog failures → HTTP status and spec code: the area's one table.

use crate::error::ApiError;
use kairos_store::CatalogError;

impl From<CatalogError> for ApiError {
    #[track_caller]
    fn from(e: CatalogError) -> Self {
        match e {
            CatalogError::SiteNotFound => ApiError::not_found("Site"),
            CatalogError::ProductNotFound => ApiError::not_found("Product"),
            CatalogError::VariantNotFound => ApiError::not_found("Variant"),
            CatalogError::AddonNotFound => ApiError::not_found("Add-on"),
            CatalogError::PackageNotFound => ApiError::not_found("Package"),
            CatalogError::ChangedMeanwhile => ApiError::conflict(
                crate::error::code::CONFLICT,
                "Someone else changed it while this change was made: read it again and retry",
            ),
            CatalogError::Store(e) => e.into(),
        }
    }
}
