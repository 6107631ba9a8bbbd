//! Products: what a venue sells, with duration, capacity, price, tax and slot policy.

use super::{Change, Repo, diff};
use crate::stored;
use crate::{Actor, CatalogError, NewProduct, Product, StoreError, StoreResult, Timestamp};
use kairos_domain::catalog::SlotPolicyKind;
use kairos_domain::pricing::PriceType;
use kairos_domain::{TenantId, new_id};
use kairos_store_macros::operations;
use serde_json::json;
use sqlx::types::Json;
use uuid::Uuid;

#[derive(kairos_store_macros::FromRow)]
pub(crate) struct ProductRow {
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
    waiver_check_in: String,
    participant_types: Json<Vec<crate::ParticipantTypePrice>>,
    is_active: bool,
    created_at: Timestamp,
    updated_at: Timestamp,
}

impl TryFrom<ProductRow> for Product {
    type Error = StoreError;

    fn try_from(r: ProductRow) -> Result<Self, StoreError> {
        Ok(Product {
            id: r.id,
            site_id: r.site_id,
            name: r.name,
            description: r.description,
            duration_mins: r.duration_mins,
            capacity: r.capacity,
            base_price: r.base_price,
            price_type: stored::<PriceType>("price_type", &r.price_type, PriceType::parse)?,
            tax_rate_bp: r.tax_rate_bp,
            prices_include_tax: r.prices_include_tax,
            slot_policy: stored::<SlotPolicyKind>(
                "slot_policy",
                &r.slot_policy,
                SlotPolicyKind::parse,
            )?,
            slot_interval_min: r.slot_interval_min,
            fixed_slot_times: r.fixed_slot_times.0,
            setup_time: r.setup_time,
            cleanup_time: r.cleanup_time,
            label_codes: r.label_codes.0,
            requires_waiver: r.requires_waiver,
            waiver_check_in: crate::stored(
                "waiver check-in",
                &r.waiver_check_in,
                kairos_domain::waivers::WaiverCheckIn::parse,
            )?,
            participant_types: r.participant_types.0,
            is_active: r.is_active,
            created_at: r.created_at,
            updated_at: r.updated_at,
        })
    }
}

pub(crate) const PRODUCT_COLUMNS: &str = "id, site_id, name, description, duration_mins, capacity, \
     base_price, price_type, tax_rate_bp, prices_include_tax, slot_policy, slot_interval_min, \
     fixed_slot_times, setup_time, cleanup_time, label_codes, requires_waiver, waiver_check_in, \
     participant_types, is_active, created_at, updated_at";

#[operations]
impl Repo {
    /// Creates a product; `NotFound` when the site is not this tenant's.
    pub async fn create_product(
        &self,
        tenant: &TenantId,
        new: NewProduct,
        actor: &Actor,
        now: Timestamp,
    ) -> Result<Product, CatalogError> {
        let mut w = self.begin(tenant, now).await?;
        if !w.has_site(new.site_id).await? {
            return Err(CatalogError::SiteNotFound);
        }
        let id = new_id();
        let row: ProductRow = sqlx::query_as(sql!(
            "INSERT INTO products (tenant_id, id, site_id, name, description, duration_mins,
                 capacity, base_price, price_type, tax_rate_bp, prices_include_tax, slot_policy,
                 slot_interval_min, fixed_slot_times, setup_time, cleanup_time, label_codes,
                 requires_waiver, waiver_check_in, participant_types, created_at, updated_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16,
                     $17, $18, $20, $21, $19, $19)
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
        .bind(new.price_type.as_str())
        .bind(new.tax_rate_bp)
        .bind(new.prices_include_tax)
        .bind(new.slot_policy.as_str())
        .bind(new.slot_interval_min)
        .bind(Json(&new.fixed_slot_times))
        .bind(new.setup_time)
        .bind(new.cleanup_time)
        .bind(Json(&new.label_codes))
        .bind(new.requires_waiver)
        .bind(now)
        .bind(new.waiver_check_in.as_str())
        .bind(Json(&new.participant_types))
        .fetch_one(&mut *w.tx)
        .await?;
        w.audit(
            actor,
            Change {
                action: "product.created",
                entity_type: "product",
                entity_id: id.to_string(),
                changes: json!({"name": new.name, "siteId": new.site_id}),
            },
        );
        w.commit(None).await?;
        Ok(row.try_into()?)
    }

    pub async fn list_products(&self, tenant: &TenantId) -> StoreResult<Vec<Product>> {
        let rows: Vec<ProductRow> = sqlx::query_as(sql!(
            "SELECT {PRODUCT_COLUMNS} FROM products WHERE tenant_id = $1 ORDER BY name, id"
        ))
        .bind(tenant.as_str())
        .fetch_all(&self.read)
        .await?;
        rows.into_iter()
            .map(Product::try_from)
            .collect::<Result<_, _>>()
    }

    pub async fn get_product(&self, tenant: &TenantId, id: Uuid) -> StoreResult<Option<Product>> {
        let row: Option<ProductRow> = sqlx::query_as(sql!(
            "SELECT {PRODUCT_COLUMNS} FROM products WHERE tenant_id = $1 AND id = $2"
        ))
        .bind(tenant.as_str())
        .bind(id)
        .fetch_optional(&self.read)
        .await?;
        row.map(Product::try_from).transpose()
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
    ) -> Result<Product, CatalogError> {
        let mut w = self.begin(tenant, now).await?;
        let before: Product = sqlx::query_as::<_, ProductRow>(sql!(
            "SELECT {PRODUCT_COLUMNS} FROM products WHERE tenant_id = $1 AND id = $2"
        ))
        .bind(tenant.as_str())
        .bind(id)
        .fetch_optional(&mut *w.tx)
        .await?
        .ok_or(CatalogError::ProductNotFound)?
        .try_into()?;
        if !w.has_site(new.site_id).await? {
            return Err(CatalogError::SiteNotFound);
        }
        let row: ProductRow = sqlx::query_as(sql!(
            "UPDATE products SET site_id = $3, name = $4, description = $5, duration_mins = $6,
                 capacity = $7, base_price = $8, price_type = $9, tax_rate_bp = $10,
                 prices_include_tax = $11, slot_policy = $12, slot_interval_min = $13,
                 fixed_slot_times = $14, setup_time = $15, cleanup_time = $16, label_codes = $17,
                 requires_waiver = $18, is_active = $19, updated_at = $20,
                 waiver_check_in = $21, participant_types = $22
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
        .bind(new.price_type.as_str())
        .bind(new.tax_rate_bp)
        .bind(new.prices_include_tax)
        .bind(new.slot_policy.as_str())
        .bind(new.slot_interval_min)
        .bind(sqlx::types::Json(&new.fixed_slot_times))
        .bind(new.setup_time)
        .bind(new.cleanup_time)
        .bind(sqlx::types::Json(&new.label_codes))
        .bind(new.requires_waiver)
        .bind(is_active)
        .bind(now)
        .bind(new.waiver_check_in.as_str())
        .bind(Json(&new.participant_types))
        .fetch_one(&mut *w.tx)
        .await?;
        let after = Product::try_from(row)?;
        w.audit(
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
        );
        w.commit(None).await?;
        Ok(after)
    }
}
