//! Catalog administration: sites, products, variants and add-ons.

use super::audit::{self, Change, diff};
use super::{Db, Repo};
use crate::{
    Actor, Addon, NewAddon, NewProduct, NewSite, NewVariant, Product, Site, StoreError,
    StoreResult, Timestamp, Variant,
};
use kairos_domain::{TenantId, new_id};
use serde_json::json;
use sqlx::Transaction;
use uuid::Uuid;

use super::tenancy::{PRODUCT_COLUMNS, ProductRow, SITE_COLUMNS, SiteRow};

#[derive(sqlx::FromRow)]
struct VariantRow {
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

impl From<VariantRow> for Variant {
    fn from(r: VariantRow) -> Self {
        Variant {
            id: r.id,
            product_id: r.product_id,
            name: r.name,
            description: r.description,
            price_mode: r.price_mode,
            price_amount: r.price_amount,
            capacity_share: r.capacity_share,
            display_order: r.display_order,
            is_active: r.is_active,
            created_at: r.created_at,
            updated_at: r.updated_at,
        }
    }
}

const VARIANT_COLUMNS: &str = "id, product_id, name, description, price_mode, price_amount, \
     capacity_share, display_order, is_active, created_at, updated_at";

#[derive(sqlx::FromRow)]
struct AddonRow {
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

impl From<AddonRow> for Addon {
    fn from(r: AddonRow) -> Self {
        Addon {
            id: r.id,
            product_id: r.product_id,
            name: r.name,
            description: r.description,
            addon_type: r.addon_type,
            mode: r.mode,
            price_type: r.price_type,
            amount: r.amount,
            max_quantity: r.max_quantity,
            display_order: r.display_order,
            is_active: r.is_active,
            created_at: r.created_at,
            updated_at: r.updated_at,
        }
    }
}

const ADDON_COLUMNS: &str = "id, product_id, name, description, addon_type, mode, price_type, \
     amount, max_quantity, display_order, is_active, created_at, updated_at";

async fn product_exists(
    tx: &mut Transaction<'static, Db>,
    tenant: &TenantId,
    product: Uuid,
) -> StoreResult<()> {
    let found: Option<i32> =
        sqlx::query_scalar("SELECT 1 FROM products WHERE tenant_id = $1 AND id = $2")
            .bind(tenant.as_str())
            .bind(product)
            .fetch_optional(&mut **tx)
            .await?;
    found.map(|_| ()).ok_or(StoreError::NotFound)
}

impl Repo {
    pub async fn get_site(&self, tenant: &TenantId, id: Uuid) -> StoreResult<Option<Site>> {
        let row: Option<SiteRow> = sqlx::query_as(&format!(
            "SELECT {SITE_COLUMNS} FROM sites WHERE tenant_id = $1 AND id = $2"
        ))
        .bind(tenant.as_str())
        .bind(id)
        .fetch_optional(&self.read)
        .await?;
        Ok(row.map(Site::from))
    }

    /// Replaces a site's fields, auditing each change.
    pub async fn update_site(
        &self,
        tenant: &TenantId,
        id: Uuid,
        new: NewSite,
        is_active: bool,
        actor: &Actor,
        now: Timestamp,
    ) -> StoreResult<Site> {
        let mut tx = self.begin_write().await?;
        let before: Site = sqlx::query_as::<_, SiteRow>(&format!(
            "SELECT {SITE_COLUMNS} FROM sites WHERE tenant_id = $1 AND id = $2"
        ))
        .bind(tenant.as_str())
        .bind(id)
        .fetch_optional(&mut *tx)
        .await?
        .ok_or(StoreError::NotFound)?
        .into();
        let row: SiteRow = sqlx::query_as(&format!(
            "UPDATE sites SET name = $3, timezone = $4, currency = $5, locale = $6, address = $7,
                 contact_email = $8, contact_phone = $9, hold_ttl_minutes = $10,
                 cancellation_policy = $11, is_active = $12, updated_at = $13
             WHERE tenant_id = $1 AND id = $2
             RETURNING {SITE_COLUMNS}"
        ))
        .bind(tenant.as_str())
        .bind(id)
        .bind(&new.name)
        .bind(&new.timezone)
        .bind(&new.currency)
        .bind(&new.locale)
        .bind(&new.address)
        .bind(&new.contact_email)
        .bind(&new.contact_phone)
        .bind(new.hold_ttl_minutes)
        .bind(&new.cancellation_policy)
        .bind(is_active)
        .bind(now)
        .fetch_one(&mut *tx)
        .await?;
        let after = Site::from(row);
        audit::record(
            &mut tx,
            tenant,
            actor,
            Change {
                action: if before.is_active && !after.is_active {
                    "site.deactivated"
                } else {
                    "site.updated"
                },
                entity_type: "site",
                entity_id: id.to_string(),
                changes: diff(&before, &after),
            },
            now,
        )
        .await?;
        tx.commit().await?;
        Ok(after)
    }

    pub async fn get_product(&self, tenant: &TenantId, id: Uuid) -> StoreResult<Option<Product>> {
        let row: Option<ProductRow> = sqlx::query_as(&format!(
            "SELECT {PRODUCT_COLUMNS} FROM products WHERE tenant_id = $1 AND id = $2"
        ))
        .bind(tenant.as_str())
        .bind(id)
        .fetch_optional(&self.read)
        .await?;
        Ok(row.map(Product::from))
    }

    /// Replaces a product's fields, auditing each change; `NotFound` when the product or
    /// the new site is not this tenant's.
    pub async fn update_product(
        &self,
        tenant: &TenantId,
        id: Uuid,
        new: NewProduct,
        is_active: bool,
        actor: &Actor,
        now: Timestamp,
    ) -> StoreResult<Product> {
        let mut tx = self.begin_write().await?;
        let before: Product = sqlx::query_as::<_, ProductRow>(&format!(
            "SELECT {PRODUCT_COLUMNS} FROM products WHERE tenant_id = $1 AND id = $2"
        ))
        .bind(tenant.as_str())
        .bind(id)
        .fetch_optional(&mut *tx)
        .await?
        .ok_or(StoreError::NotFound)?
        .into();
        let site: Option<i32> =
            sqlx::query_scalar("SELECT 1 FROM sites WHERE tenant_id = $1 AND id = $2")
                .bind(tenant.as_str())
                .bind(new.site_id)
                .fetch_optional(&mut *tx)
                .await?;
        if site.is_none() {
            return Err(StoreError::NotFound);
        }
        let row: ProductRow = sqlx::query_as(&format!(
            "UPDATE products SET site_id = $3, name = $4, description = $5, duration_mins = $6,
                 capacity = $7, base_price = $8, price_type = $9, tax_rate_bp = $10,
                 prices_include_tax = $11, slot_policy = $12, slot_interval_min = $13,
                 fixed_slot_times = $14, setup_time = $15, cleanup_time = $16, label_codes = $17,
                 requires_waiver = $18, is_active = $19, updated_at = $20
             WHERE tenant_id = $1 AND id = $2
             RETURNING {PRODUCT_COLUMNS}"
        ))
        .bind(tenant.as_str())
        .bind(id)
        .bind(new.site_id)
        .bind(&new.name)
        .bind(&new.description)
        .bind(new.duration_mins)
        .bind(new.capacity)
        .bind(new.base_price)
        .bind(&new.price_type)
        .bind(new.tax_rate_bp)
        .bind(new.prices_include_tax)
        .bind(&new.slot_policy)
        .bind(new.slot_interval_min)
        .bind(sqlx::types::Json(&new.fixed_slot_times))
        .bind(new.setup_time)
        .bind(new.cleanup_time)
        .bind(sqlx::types::Json(&new.label_codes))
        .bind(new.requires_waiver)
        .bind(is_active)
        .bind(now)
        .fetch_one(&mut *tx)
        .await?;
        let after = Product::from(row);
        audit::record(
            &mut tx,
            tenant,
            actor,
            Change {
                action: if before.is_active && !after.is_active {
                    "product.deactivated"
                } else {
                    "product.updated"
                },
                entity_type: "product",
                entity_id: id.to_string(),
                changes: diff(&before, &after),
            },
            now,
        )
        .await?;
        tx.commit().await?;
        Ok(after)
    }

    pub async fn create_variant(
        &self,
        tenant: &TenantId,
        product: Uuid,
        new: NewVariant,
        actor: &Actor,
        now: Timestamp,
    ) -> StoreResult<Variant> {
        let mut tx = self.begin_write().await?;
        product_exists(&mut tx, tenant, product).await?;
        let id = new_id();
        let row: VariantRow = sqlx::query_as(&format!(
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
        .bind(&new.price_mode)
        .bind(new.price_amount)
        .bind(new.capacity_share)
        .bind(new.display_order)
        .bind(new.is_active)
        .bind(now)
        .fetch_one(&mut *tx)
        .await?;
        audit::record(
            &mut tx,
            tenant,
            actor,
            Change {
                action: "variant.created",
                entity_type: "variant",
                entity_id: id.to_string(),
                changes: json!(new),
            },
            now,
        )
        .await?;
        tx.commit().await?;
        Ok(row.into())
    }

    pub async fn list_variants(
        &self,
        tenant: &TenantId,
        product: Uuid,
    ) -> StoreResult<Vec<Variant>> {
        let rows: Vec<VariantRow> = sqlx::query_as(&format!(
            "SELECT {VARIANT_COLUMNS} FROM product_variants WHERE tenant_id = $1 AND product_id = $2
             ORDER BY display_order, name, id"
        ))
        .bind(tenant.as_str())
        .bind(product)
        .fetch_all(&self.read)
        .await?;
        Ok(rows.into_iter().map(Variant::from).collect())
    }

    pub async fn update_variant(
        &self,
        tenant: &TenantId,
        product: Uuid,
        id: Uuid,
        new: NewVariant,
        actor: &Actor,
        now: Timestamp,
    ) -> StoreResult<Variant> {
        let mut tx = self.begin_write().await?;
        let before: Variant = sqlx::query_as::<_, VariantRow>(&format!(
            "SELECT {VARIANT_COLUMNS} FROM product_variants
             WHERE tenant_id = $1 AND product_id = $2 AND id = $3"
        ))
        .bind(tenant.as_str())
        .bind(product)
        .bind(id)
        .fetch_optional(&mut *tx)
        .await?
        .ok_or(StoreError::NotFound)?
        .into();
        let row: VariantRow = sqlx::query_as(&format!(
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
        .bind(&new.price_mode)
        .bind(new.price_amount)
        .bind(new.capacity_share)
        .bind(new.display_order)
        .bind(new.is_active)
        .bind(now)
        .fetch_one(&mut *tx)
        .await?;
        let after = Variant::from(row);
        audit::record(
            &mut tx,
            tenant,
            actor,
            Change {
                action: "variant.updated",
                entity_type: "variant",
                entity_id: id.to_string(),
                changes: diff(&before, &after),
            },
            now,
        )
        .await?;
        tx.commit().await?;
        Ok(after)
    }

    pub async fn create_addon(
        &self,
        tenant: &TenantId,
        product: Uuid,
        new: NewAddon,
        actor: &Actor,
        now: Timestamp,
    ) -> StoreResult<Addon> {
        let mut tx = self.begin_write().await?;
        product_exists(&mut tx, tenant, product).await?;
        let id = new_id();
        let row: AddonRow = sqlx::query_as(&format!(
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
        .bind(&new.addon_type)
        .bind(&new.mode)
        .bind(&new.price_type)
        .bind(new.amount)
        .bind(new.max_quantity)
        .bind(new.display_order)
        .bind(new.is_active)
        .bind(now)
        .fetch_one(&mut *tx)
        .await?;
        audit::record(
            &mut tx,
            tenant,
            actor,
            Change {
                action: "addon.created",
                entity_type: "addon",
                entity_id: id.to_string(),
                changes: json!(new),
            },
            now,
        )
        .await?;
        tx.commit().await?;
        Ok(row.into())
    }

    pub async fn list_addons(&self, tenant: &TenantId, product: Uuid) -> StoreResult<Vec<Addon>> {
        let rows: Vec<AddonRow> = sqlx::query_as(&format!(
            "SELECT {ADDON_COLUMNS} FROM product_addons WHERE tenant_id = $1 AND product_id = $2
             ORDER BY display_order, name, id"
        ))
        .bind(tenant.as_str())
        .bind(product)
        .fetch_all(&self.read)
        .await?;
        Ok(rows.into_iter().map(Addon::from).collect())
    }

    pub async fn update_addon(
        &self,
        tenant: &TenantId,
        product: Uuid,
        id: Uuid,
        new: NewAddon,
        actor: &Actor,
        now: Timestamp,
    ) -> StoreResult<Addon> {
        let mut tx = self.begin_write().await?;
        let before: Addon = sqlx::query_as::<_, AddonRow>(&format!(
            "SELECT {ADDON_COLUMNS} FROM product_addons
             WHERE tenant_id = $1 AND product_id = $2 AND id = $3"
        ))
        .bind(tenant.as_str())
        .bind(product)
        .bind(id)
        .fetch_optional(&mut *tx)
        .await?
        .ok_or(StoreError::NotFound)?
        .into();
        let row: AddonRow = sqlx::query_as(&format!(
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
        .bind(&new.addon_type)
        .bind(&new.mode)
        .bind(&new.price_type)
        .bind(new.amount)
        .bind(new.max_quantity)
        .bind(new.display_order)
        .bind(new.is_active)
        .bind(now)
        .fetch_one(&mut *tx)
        .await?;
        let after = Addon::from(row);
        audit::record(
            &mut tx,
            tenant,
            actor,
            Change {
                action: "addon.updated",
                entity_type: "addon",
                entity_id: id.to_string(),
                changes: diff(&before, &after),
            },
            now,
        )
        .await?;
        tx.commit().await?;
        Ok(after)
    }
}
