//! Add-ons of a product (spec Part B 2.2).

use super::{Change, Repo, diff, product_exists};
use crate::stored;
use crate::{Actor, Addon, CatalogError, NewAddon, StoreError, StoreResult, Timestamp};
use kairos_domain::catalog::{AddonPriceType, AddonType};
use kairos_domain::pricing::AddonMode;
use kairos_domain::{TenantId, new_id};
use kairos_store_macros::operations;
use serde_json::json;
use uuid::Uuid;

#[derive(kairos_store_macros::FromRow)]
pub(crate) struct AddonRow {
    id: Uuid,
    product_id: Uuid,
    name: String,
    description: String,
    addon_type: String,
    mode: String,
    price_type: String,
    amount: i64,
    max_quantity: Option<i32>,
    display_order: i32,
    is_active: bool,
    created_at: Timestamp,
    updated_at: Timestamp,
}

impl TryFrom<AddonRow> for Addon {
    type Error = StoreError;

    fn try_from(r: AddonRow) -> Result<Self, StoreError> {
        Ok(Addon {
            id: r.id,
            product_id: r.product_id,
            name: r.name,
            description: r.description,
            addon_type: stored::<AddonType>("addon_type", &r.addon_type, AddonType::parse)?,
            mode: stored::<AddonMode>("mode", &r.mode, AddonMode::parse)?,
            price_type: stored::<AddonPriceType>(
                "price_type",
                &r.price_type,
                AddonPriceType::parse,
            )?,
            amount: r.amount,
            max_quantity: r.max_quantity,
            display_order: r.display_order,
            is_active: r.is_active,
            created_at: r.created_at,
            updated_at: r.updated_at,
        })
    }
}

pub(crate) const ADDON_COLUMNS: &str = "id, product_id, name, description, addon_type, mode, price_type, \
     amount, max_quantity, display_order, is_active, created_at, updated_at";

#[operations]
impl Repo {
    pub async fn create_addon(
        &self,
        tenant: &TenantId,
        product: Uuid,
        new: NewAddon,
        actor: &Actor,
        now: Timestamp,
    ) -> Result<Addon, CatalogError> {
        let mut w = self.begin(tenant, now).await?;
        product_exists(&mut w.tx, tenant, product).await?;
        let id = new_id();
        let row: AddonRow = sqlx::query_as(sql!(
            "INSERT INTO product_addons (tenant_id, id, product_id, name, description, addon_type,
                 mode, price_type, amount, max_quantity, display_order, is_active, created_at,
                 updated_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $13)
             RETURNING {ADDON_COLUMNS}"
        ))
        .bind(tenant.as_str())
        .bind(id)
        .bind(product)
        .bind(&new.name)
        .bind(&new.description)
        .bind(new.addon_type.as_str())
        .bind(new.mode.as_str())
        .bind(new.price_type.as_str())
        .bind(new.amount)
        .bind(new.max_quantity)
        .bind(new.display_order)
        .bind(new.is_active)
        .bind(now)
        .fetch_one(&mut *w.tx)
        .await?;
        w.audit(
            actor,
            Change {
                action: "addon.created",
                entity_type: "addon",
                entity_id: id.to_string(),
                changes: json!(new),
            },
        );
        w.commit(None).await?;
        Ok(row.try_into()?)
    }

    pub async fn list_addons(&self, tenant: &TenantId, product: Uuid) -> StoreResult<Vec<Addon>> {
        let rows: Vec<AddonRow> = sqlx::query_as(sql!(
            "SELECT {ADDON_COLUMNS} FROM product_addons WHERE tenant_id = $1 AND product_id = $2
             ORDER BY display_order, name, id"
        ))
        .bind(tenant.as_str())
        .bind(product)
        .fetch_all(&self.read)
        .await?;
        rows.into_iter()
            .map(Addon::try_from)
            .collect::<Result<_, _>>()
    }

    pub async fn update_addon(
        &self,
        tenant: &TenantId,
        product: Uuid,
        id: Uuid,
        new: NewAddon,
        actor: &Actor,
        now: Timestamp,
    ) -> Result<Addon, CatalogError> {
        let mut w = self.begin(tenant, now).await?;
        let before: Addon = sqlx::query_as::<_, AddonRow>(sql!(
            "SELECT {ADDON_COLUMNS} FROM product_addons
             WHERE tenant_id = $1 AND product_id = $2 AND id = $3"
        ))
        .bind(tenant.as_str())
        .bind(product)
        .bind(id)
        .fetch_optional(&mut *w.tx)
        .await?
        .ok_or(CatalogError::AddonNotFound)?
        .try_into()?;
        let row: AddonRow = sqlx::query_as(sql!(
            "UPDATE product_addons SET name = $4, description = $5, addon_type = $6, mode = $7,
                 price_type = $8, amount = $9, max_quantity = $10, display_order = $11,
                 is_active = $12, updated_at = $13
             WHERE tenant_id = $1 AND product_id = $2 AND id = $3
             RETURNING {ADDON_COLUMNS}"
        ))
        .bind(tenant.as_str())
        .bind(product)
        .bind(id)
        .bind(&new.name)
        .bind(&new.description)
        .bind(new.addon_type.as_str())
        .bind(new.mode.as_str())
        .bind(new.price_type.as_str())
        .bind(new.amount)
        .bind(new.max_quantity)
        .bind(new.display_order)
        .bind(new.is_active)
        .bind(now)
        .fetch_one(&mut *w.tx)
        .await?;
        let after = Addon::try_from(row)?;
        w.audit(
            actor,
            Change {
                action: "addon.updated",
                entity_type: "addon",
                entity_id: id.to_string(),
                changes: diff(&before, &after),
            },
        );
        w.commit(None).await?;
        Ok(after)
    }
}
