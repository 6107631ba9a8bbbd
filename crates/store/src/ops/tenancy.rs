//! Tenants, sites and products.

use super::audit::{self, Change};
use super::{Repo, unique_as};
use crate::{
    Actor, NewProduct, NewSite, NewTenant, Product, Site, StoreError, StoreResult, Tenant,
    Timestamp,
};
use kairos_domain::{TenantId, new_id};
use serde_json::json;
use sqlx::types::Json;
use uuid::Uuid;

#[derive(sqlx::FromRow)]
struct TenantRow {
    id: String,
    name: String,
    currency: String,
    timezone: String,
    hold_ttl_minutes: i32,
    is_active: bool,
    created_at: Timestamp,
}

impl TryFrom<TenantRow> for Tenant {
    type Error = StoreError;
    fn try_from(r: TenantRow) -> Result<Self, StoreError> {
        Ok(Tenant {
            id: TenantId::parse(&r.id)
                .map_err(|e| StoreError::Corrupt(format!("tenant id: {e}")))?,
            name: r.name,
            currency: r.currency,
            timezone: r.timezone,
            hold_ttl_minutes: r.hold_ttl_minutes,
            is_active: r.is_active,
            created_at: r.created_at,
        })
    }
}

#[derive(sqlx::FromRow)]
pub(super) struct SiteRow {
    id: Uuid,
    name: String,
    timezone: String,
    currency: String,
    locale: String,
    address: Option<String>,
    contact_email: Option<String>,
    contact_phone: Option<String>,
    hold_ttl_minutes: Option<i32>,
    cancellation_policy: String,
    is_active: bool,
    created_at: Timestamp,
    updated_at: Timestamp,
}

impl From<SiteRow> for Site {
    fn from(r: SiteRow) -> Self {
        Site {
            id: r.id,
            name: r.name,
            timezone: r.timezone,
            currency: r.currency,
            locale: r.locale,
            address: r.address,
            contact_email: r.contact_email,
            contact_phone: r.contact_phone,
            hold_ttl_minutes: r.hold_ttl_minutes,
            cancellation_policy: r.cancellation_policy,
            is_active: r.is_active,
            created_at: r.created_at,
            updated_at: r.updated_at,
        }
    }
}

pub(super) const SITE_COLUMNS: &str = "id, name, timezone, currency, locale, address, contact_email, \
     contact_phone, hold_ttl_minutes, cancellation_policy, is_active, created_at, updated_at";

#[derive(sqlx::FromRow)]
pub(super) struct ProductRow {
    id: Uuid,
    site_id: Uuid,
    name: String,
    description: String,
    duration_mins: i32,
    capacity: i32,
    base_price: i64,
    price_type: String,
    tax_rate_bp: i32,
    prices_include_tax: bool,
    slot_policy: String,
    slot_interval_min: i32,
    fixed_slot_times: Json<Vec<String>>,
    setup_time: i32,
    cleanup_time: i32,
    label_codes: Json<Vec<String>>,
    requires_waiver: bool,
    is_active: bool,
    created_at: Timestamp,
    updated_at: Timestamp,
}

impl From<ProductRow> for Product {
    fn from(r: ProductRow) -> Self {
        Product {
            id: r.id,
            site_id: r.site_id,
            name: r.name,
            description: r.description,
            duration_mins: r.duration_mins,
            capacity: r.capacity,
            base_price: r.base_price,
            price_type: r.price_type,
            tax_rate_bp: r.tax_rate_bp,
            prices_include_tax: r.prices_include_tax,
            slot_policy: r.slot_policy,
            slot_interval_min: r.slot_interval_min,
            fixed_slot_times: r.fixed_slot_times.0,
            setup_time: r.setup_time,
            cleanup_time: r.cleanup_time,
            label_codes: r.label_codes.0,
            requires_waiver: r.requires_waiver,
            is_active: r.is_active,
            created_at: r.created_at,
            updated_at: r.updated_at,
        }
    }
}

pub(super) const PRODUCT_COLUMNS: &str = "id, site_id, name, description, duration_mins, capacity, \
     base_price, price_type, tax_rate_bp, prices_include_tax, slot_policy, slot_interval_min, \
     fixed_slot_times, setup_time, cleanup_time, label_codes, requires_waiver, is_active, \
     created_at, updated_at";

impl Repo {
    /// Creates a tenant; `Conflict("tenant_id")` when the id is taken.
    pub async fn create_tenant(&self, new: NewTenant, now: Timestamp) -> StoreResult<Tenant> {
        let mut tx = self.begin_write().await?;
        let row: TenantRow = sqlx::query_as(
            "INSERT INTO tenants (id, name, currency, timezone, created_at, updated_at)
             VALUES ($1, $2, $3, $4, $5, $5)
             RETURNING id, name, currency, timezone, hold_ttl_minutes, is_active, created_at",
        )
        .bind(new.id.as_str())
        .bind(&new.name)
        .bind(&new.currency)
        .bind(&new.timezone)
        .bind(now)
        .fetch_one(&mut *tx)
        .await
        .map_err(|e| unique_as(e, "tenant_id"))?;
        audit::record(
            &mut tx,
            &new.id,
            &Actor::system("kairos"),
            Change {
                action: "tenant.created",
                entity_type: "tenant",
                entity_id: new.id.to_string(),
                changes: json!({"name": new.name, "currency": new.currency, "timezone": new.timezone}),
            },
            now,
        )
        .await?;
        tx.commit().await?;
        row.try_into()
    }

    pub async fn get_tenant(&self, id: &TenantId) -> StoreResult<Option<Tenant>> {
        let row: Option<TenantRow> = sqlx::query_as(
            "SELECT id, name, currency, timezone, hold_ttl_minutes, is_active, created_at
             FROM tenants WHERE id = $1",
        )
        .bind(id.as_str())
        .fetch_optional(&self.read)
        .await?;
        row.map(Tenant::try_from).transpose()
    }

    pub async fn create_site(
        &self,
        tenant: &TenantId,
        new: NewSite,
        actor: &Actor,
        now: Timestamp,
    ) -> StoreResult<Site> {
        let mut tx = self.begin_write().await?;
        let id = new_id();
        let row: SiteRow = sqlx::query_as(&format!(
            "INSERT INTO sites (tenant_id, id, name, timezone, currency, locale, address,
                                contact_email, contact_phone, hold_ttl_minutes,
                                cancellation_policy, created_at, updated_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $12)
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
        .bind(now)
        .fetch_one(&mut *tx)
        .await?;
        audit::record(
            &mut tx,
            tenant,
            actor,
            Change {
                action: "site.created",
                entity_type: "site",
                entity_id: id.to_string(),
                changes: json!({"name": new.name, "timezone": new.timezone, "currency": new.currency}),
            },
            now,
        )
        .await?;
        tx.commit().await?;
        Ok(row.into())
    }

    pub async fn list_sites(&self, tenant: &TenantId) -> StoreResult<Vec<Site>> {
        let rows: Vec<SiteRow> = sqlx::query_as(&format!(
            "SELECT {SITE_COLUMNS} FROM sites WHERE tenant_id = $1 ORDER BY name, id"
        ))
        .bind(tenant.as_str())
        .fetch_all(&self.read)
        .await?;
        Ok(rows.into_iter().map(Site::from).collect())
    }

    /// Creates a product; `NotFound` when the site is not this tenant's.
    pub async fn create_product(
        &self,
        tenant: &TenantId,
        new: NewProduct,
        actor: &Actor,
        now: Timestamp,
    ) -> StoreResult<Product> {
        let mut tx = self.begin_write().await?;
        let site_exists: Option<i32> =
            sqlx::query_scalar("SELECT 1 FROM sites WHERE tenant_id = $1 AND id = $2")
                .bind(tenant.as_str())
                .bind(new.site_id)
                .fetch_optional(&mut *tx)
                .await?;
        if site_exists.is_none() {
            return Err(StoreError::NotFound);
        }
        let id = new_id();
        let row: ProductRow = sqlx::query_as(&format!(
            "INSERT INTO products (tenant_id, id, site_id, name, description, duration_mins,
                 capacity, base_price, price_type, tax_rate_bp, prices_include_tax, slot_policy,
                 slot_interval_min, fixed_slot_times, setup_time, cleanup_time, label_codes,
                 requires_waiver, created_at, updated_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16,
                     $17, $18, $19, $19)
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
        .bind(Json(&new.fixed_slot_times))
        .bind(new.setup_time)
        .bind(new.cleanup_time)
        .bind(Json(&new.label_codes))
        .bind(new.requires_waiver)
        .bind(now)
        .fetch_one(&mut *tx)
        .await?;
        audit::record(
            &mut tx,
            tenant,
            actor,
            Change {
                action: "product.created",
                entity_type: "product",
                entity_id: id.to_string(),
                changes: json!({"name": new.name, "siteId": new.site_id}),
            },
            now,
        )
        .await?;
        tx.commit().await?;
        Ok(row.into())
    }

    pub async fn list_products(&self, tenant: &TenantId) -> StoreResult<Vec<Product>> {
        let rows: Vec<ProductRow> = sqlx::query_as(&format!(
            "SELECT {PRODUCT_COLUMNS} FROM products WHERE tenant_id = $1 ORDER BY name, id"
        ))
        .bind(tenant.as_str())
        .fetch_all(&self.read)
        .await?;
        Ok(rows.into_iter().map(Product::from).collect())
    }
}
