//! Variants of a product, with their own price.

use super::{Change, Repo, diff, product_exists};
use crate::stored;
use crate::{Actor, CatalogError, NewVariant, StoreError, StoreResult, Timestamp, Variant};
use kairos_domain::catalog::VariantPriceMode;
use kairos_domain::{TenantId, new_id};
use kairos_store_macros::operations;
use serde_json::json;
use uuid::Uuid;

#[derive(kairos_store_macros::FromRow)]
pub(crate) struct VariantRow {
    id: Uuid,
    product_id: Uuid,
    name: String,
    description: String,
    price_mode: String,
    price_amount: i64,
    capacity_share: Option<i32>,
    display_order: i32,
    is_active: bool,
    created_at: Timestamp,
    updated_at: Timestamp,
}

impl TryFrom<VariantRow> for Variant {
    type Error = StoreError;

    fn try_from(r: VariantRow) -> Result<Self, StoreError> {
        Ok(Variant {
            id: r.id,
            product_id: r.product_id,
            name: r.name,
            description: r.description,
            price_mode: stored::<VariantPriceMode>(
                "price_mode",
                &r.price_mode,
                VariantPriceMode::parse,
            )?,
            price_amount: r.price_amount,
            capacity_share: r.capacity_share,
            display_order: r.display_order,
            is_active: r.is_active,
            created_at: r.created_at,
            updated_at: r.updated_at,
        })
    }
}

pub(crate) const VARIANT_COLUMNS: &str = "id, product_id, name, description, price_mode, price_amount, \
     capacity_share, display_order, is_active, created_at, updated_at";

#[operations]
impl Repo {
    pub async fn create_variant(
        &self,
        tenant: &TenantId,
        product: Uuid,
        new: NewVariant,
        actor: &Actor,
        now: Timestamp,
    ) -> Result<Variant, CatalogError> {
        let mut w = self.begin(tenant, now).await?;
        product_exists(&mut w.tx, tenant, product).await?;
        let id = new_id();
        let row: VariantRow = sqlx::query_as(sql!(
            "INSERT INTO product_variants (tenant_id, id, product_id, name, description, price_mode,
                 price_amount, capacity_share, display_order, is_active, created_at, updated_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $11)
             RETURNING {VARIANT_COLUMNS}"
        ))
        .bind(tenant.as_str())
        .bind(id)
        .bind(product)
        .bind(&new.name)
        .bind(&new.description)
        .bind(new.price_mode.as_str())
        .bind(new.price_amount)
        .bind(new.capacity_share)
        .bind(new.display_order)
        .bind(new.is_active)
        .bind(now)
        .fetch_one(&mut *w.tx)
        .await?;
        w.audit(
            actor,
            Change {
                action: "variant.created",
                entity_type: "variant",
                entity_id: id.to_string(),
                changes: json!(new),
            },
        );
        w.commit(None).await?;
        Ok(row.try_into()?)
    }

    pub async fn list_variants(
        &self,
        tenant: &TenantId,
        product: Uuid,
    ) -> StoreResult<Vec<Variant>> {
        let rows: Vec<VariantRow> = sqlx::query_as(sql!(
            "SELECT {VARIANT_COLUMNS} FROM product_variants WHERE tenant_id = $1 AND product_id = $2
             ORDER BY display_order, name, id"
        ))
        .bind(tenant.as_str())
        .bind(product)
        .fetch_all(&self.read)
        .await?;
        rows.into_iter()
            .map(Variant::try_from)
            .collect::<Result<_, _>>()
    }

    pub async fn update_variant(
        &self,
        tenant: &TenantId,
        product: Uuid,
        id: Uuid,
        new: NewVariant,
        actor: &Actor,
        now: Timestamp,
    ) -> Result<Variant, CatalogError> {
        let mut w = self.begin(tenant, now).await?;
        let before: Variant = sqlx::query_as::<_, VariantRow>(sql!(
            "SELECT {VARIANT_COLUMNS} FROM product_variants
             WHERE tenant_id = $1 AND product_id = $2 AND id = $3"
        ))
        .bind(tenant.as_str())
        .bind(product)
        .bind(id)
        .fetch_optional(&mut *w.tx)
        .await?
        .ok_or(CatalogError::VariantNotFound)?
        .try_into()?;
        let row: VariantRow = sqlx::query_as(sql!(
            "UPDATE product_variants SET name = $4, description = $5, price_mode = $6,
                 price_amount = $7, capacity_share = $8, display_order = $9, is_active = $10,
                 updated_at = $11
             WHERE tenant_id = $1 AND product_id = $2 AND id = $3
             RETURNING {VARIANT_COLUMNS}"
        ))
        .bind(tenant.as_str())
        .bind(product)
        .bind(id)
        .bind(&new.name)
        .bind(&new.description)
        .bind(new.price_mode.as_str())
        .bind(new.price_amount)
        .bind(new.capacity_share)
        .bind(new.display_order)
        .bind(new.is_active)
        .bind(now)
        .fetch_one(&mut *w.tx)
        .await?;
        let after = Variant::try_from(row)?;
        w.audit(
            actor,
            Change {
                action: "variant.updated",
                entity_type: "variant",
                entity_id: id.to_string(),
                changes: diff(&before, &after),
            },
        );
        w.commit(None).await?;
        Ok(after)
    }
}
