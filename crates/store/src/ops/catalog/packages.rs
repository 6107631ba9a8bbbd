//! Packages: products booked together as a booking group (groupType PACKAGE) at a
//! package price. Deactivated, never deleted.

use super::super::Db;
use super::{Change, Repo, diff, product_exists};
use crate::{Actor, CatalogError, NewPackage, Package, StoreError, StoreResult, Timestamp};
use kairos_domain::packages::PackagePrice;
use kairos_domain::{TenantId, new_id};
use kairos_store_macros::operations;
use serde_json::json;
use sqlx::Transaction;
use sqlx::types::Json;
use uuid::Uuid;

#[derive(kairos_store_macros::FromRow)]
struct PackageRow {
    id: Uuid,
    name: String,
    description: String,
    product_ids: Json<Vec<Uuid>>,
    price_type: String,
    price_per_person: Option<i64>,
    percent_off_bp: Option<i32>,
    is_active: bool,
    created_at: Timestamp,
    updated_at: Timestamp,
}

impl TryFrom<PackageRow> for Package {
    type Error = StoreError;

    fn try_from(r: PackageRow) -> Result<Self, StoreError> {
        let price = match (r.price_type.as_str(), r.price_per_person, r.percent_off_bp) {
            ("PACKAGE_PRICE", Some(p), _) => PackagePrice::PackagePrice(p),
            ("PERCENT_OFF", _, Some(bp)) => PackagePrice::PercentOff(bp),
            (other, _, _) => {
                return Err(StoreError::Corrupt(format!("package price '{other}'")));
            }
        };
        Ok(Package {
            id: r.id,
            name: r.name,
            description: r.description,
            product_ids: r.product_ids.0,
            price,
            is_active: r.is_active,
            created_at: r.created_at,
            updated_at: r.updated_at,
        })
    }
}

const COLUMNS: &str = "id, name, description, product_ids, price_type, price_per_person, \
     percent_off_bp, is_active, created_at, updated_at";

fn amounts(price: PackagePrice) -> (Option<i64>, Option<i32>) {
    match price {
        PackagePrice::PackagePrice(p) => (Some(p), None),
        PackagePrice::PercentOff(bp) => (None, Some(bp)),
    }
}

/// The package `id` of `tenant`, in the transaction of the write it decides.
pub(crate) async fn load_package(
    tx: &mut Transaction<'static, Db>,
    tenant: &TenantId,
    id: Uuid,
) -> StoreResult<Option<Package>> {
    let row: Option<PackageRow> = sqlx::query_as(sql!(
        "SELECT {COLUMNS} FROM packages WHERE tenant_id = $1 AND id = $2"
    ))
    .bind(tenant.as_str())
    .bind(id)
    .fetch_optional(&mut **tx)
    .await?;
    row.map(Package::try_from).transpose()
}

#[operations]
impl Repo {
    /// Creates a package; every product must be the tenant's.
    pub async fn create_package(
        &self,
        tenant: &TenantId,
        new: NewPackage,
        actor: &Actor,
        now: Timestamp,
    ) -> Result<Package, CatalogError> {
        let mut w = self.begin(tenant, now).await?;
        for product in &new.product_ids {
            product_exists(&mut w.tx, tenant, *product).await?;
        }
        let id = new_id();
        let (per_person, bp) = amounts(new.price);
        let row: PackageRow = sqlx::query_as(sql!(
            "INSERT INTO packages (tenant_id, id, name, description, product_ids, price_type,
                 price_per_person, percent_off_bp, is_active, created_at, updated_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $10)
             RETURNING {COLUMNS}"
        ))
        .bind(tenant.as_str())
        .bind(id)
        .bind(&new.name)
        .bind(&new.description)
        .bind(Json(&new.product_ids))
        .bind(new.price.kind())
        .bind(per_person)
        .bind(bp)
        .bind(new.is_active)
        .bind(now)
        .fetch_one(&mut *w.tx)
        .await?;
        w.audit(
            actor,
            Change {
                action: "package.created",
                entity_type: "package",
                entity_id: id.to_string(),
                changes: json!(new),
            },
        );
        w.commit(None).await?;
        Ok(row.try_into()?)
    }

    /// The tenant's packages by name (`active_only`: those offered now).
    pub async fn list_packages(
        &self,
        tenant: &TenantId,
        active_only: bool,
    ) -> StoreResult<Vec<Package>> {
        let rows: Vec<PackageRow> = sqlx::query_as(sql!(
            "SELECT {COLUMNS} FROM packages
             WHERE tenant_id = $1 AND (is_active OR NOT $2)
             ORDER BY name, id"
        ))
        .bind(tenant.as_str())
        .bind(active_only)
        .fetch_all(&self.read)
        .await?;
        rows.into_iter().map(Package::try_from).collect()
    }

    pub async fn package(&self, tenant: &TenantId, id: Uuid) -> StoreResult<Option<Package>> {
        let row: Option<PackageRow> = sqlx::query_as(sql!(
            "SELECT {COLUMNS} FROM packages WHERE tenant_id = $1 AND id = $2"
        ))
        .bind(tenant.as_str())
        .bind(id)
        .fetch_optional(&self.read)
        .await?;
        row.map(Package::try_from).transpose()
    }

    /// Replaces a package with `new` (the merge of its change); groups already held keep
    /// the prices they were held at until they are confirmed.
    pub async fn update_package(
        &self,
        tenant: &TenantId,
        read: &Package,
        new: NewPackage,
        actor: &Actor,
        now: Timestamp,
    ) -> Result<Package, CatalogError> {
        let id = read.id;
        let mut w = self.begin(tenant, now).await?;
        sqlx::query(sql!(
            "SELECT id FROM packages WHERE tenant_id = $1 AND id = $2{}",
            super::super::dialect::FOR_UPDATE
        ))
        .bind(tenant.as_str())
        .bind(id)
        .fetch_optional(&mut *w.tx)
        .await?;
        let before = load_package(&mut w.tx, tenant, id)
            .await?
            .ok_or(CatalogError::PackageNotFound)?;
        // `new` was merged from `read`: another change since would be undone by it.
        if before != *read {
            return Err(CatalogError::ChangedMeanwhile);
        }
        for product in &new.product_ids {
            product_exists(&mut w.tx, tenant, *product).await?;
        }
        let (per_person, bp) = amounts(new.price);
        let row: PackageRow = sqlx::query_as(sql!(
            "UPDATE packages SET name = $3, description = $4, product_ids = $5, price_type = $6,
                 price_per_person = $7, percent_off_bp = $8, is_active = $9, updated_at = $10
             WHERE tenant_id = $1 AND id = $2
             RETURNING {COLUMNS}"
        ))
        .bind(tenant.as_str())
        .bind(id)
        .bind(&new.name)
        .bind(&new.description)
        .bind(Json(&new.product_ids))
        .bind(new.price.kind())
        .bind(per_person)
        .bind(bp)
        .bind(new.is_active)
        .bind(now)
        .fetch_one(&mut *w.tx)
        .await?;
        let after = Package::try_from(row)?;
        w.audit(
            actor,
            Change {
                action: "package.updated",
                entity_type: "package",
                entity_id: id.to_string(),
                changes: diff(&before, &after),
            },
        );
        w.commit(None).await?;
        Ok(after)
    }
}
