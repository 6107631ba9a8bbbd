//! Packages: products booked together as a booking group at a package price.

use super::Timestamp;
use kairos_domain::packages::PackagePrice;
use serde::Serialize;
use uuid::Uuid;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Package {
    pub id: Uuid,
    pub name: String,
    pub description: String,
    /// The products a group of it books, each once.
    pub product_ids: Vec<Uuid>,
    pub price: PackagePrice,
    pub is_active: bool,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
}

/// A package as staff write it (whole: a change sends the result of the merge).
#[derive(Debug, Clone, Serialize)]
pub struct NewPackage {
    pub name: String,
    pub description: String,
    pub product_ids: Vec<Uuid>,
    pub price: PackagePrice,
    pub is_active: bool,
}
