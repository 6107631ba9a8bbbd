//! Catalog administration: sites, products, variants and add-ons, one file each.

mod addons;
mod packages;
mod products;
mod sites;
mod variants;

use super::audit::{Change, diff};
use super::{Db, Repo};
use crate::CatalogError;
use kairos_domain::TenantId;
use sqlx::Transaction;
use uuid::Uuid;

pub(crate) use addons::{ADDON_COLUMNS, AddonRow};
pub(crate) use packages::load_package;
pub(crate) use products::{PRODUCT_COLUMNS, ProductRow};
pub(crate) use variants::{VARIANT_COLUMNS, VariantRow};

async fn product_exists(
    tx: &mut Transaction<'static, Db>,
    tenant: &TenantId,
    product: Uuid,
) -> Result<(), CatalogError> {
    let found: Option<i32> =
        sqlx::query_scalar("SELECT 1 FROM products WHERE tenant_id = $1 AND id = $2")
            .bind(tenant.as_str())
            .bind(product)
            .fetch_optional(&mut **tx)
            .await?;
    found.map(|_| ()).ok_or(CatalogError::ProductNotFound)
}
