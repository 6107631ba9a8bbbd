//! Gift card products (spec Part A 2.7, 4.10): created, changed under their rules
//! (checked on the locked row), deactivated instead of deleted, listed.

use super::super::Repo;
use super::super::audit::Change;
use super::super::dialect;
use super::super::write::Write;
use crate::{
    Actor, GiftCardError, GiftCardProduct, GiftCardProductFilter, StoreError, StoreResult,
    Timestamp, stored,
};
use kairos_domain::gift_cards::{ProductFields, ProductPatch, ValueType};
use kairos_domain::{TenantId, new_id};
use kairos_store_macros::operations;
use serde_json::json;
use sqlx::QueryBuilder;
use sqlx::types::Json;
use uuid::Uuid;

#[derive(kairos_store_macros::FromRow)]
struct ProductRow {
    id: Uuid,
    site_id: Option<Uuid>,
    name: String,
    description: String,
    value_type: String,
    fixed_value: Option<i64>,
    min_value: Option<i64>,
    max_value: Option<i64>,
    suggested_values: Json<Vec<i64>>,
    validity_days: i32,
    image_url: Option<String>,
    is_active: bool,
    display_order: i32,
    created_at: Timestamp,
    updated_at: Timestamp,
}

const COLUMNS: &str = "id, site_id, name, description, value_type, fixed_value, min_value, \
     max_value, suggested_values, validity_days, image_url, is_active, display_order, \
     created_at, updated_at";

impl TryFrom<ProductRow> for GiftCardProduct {
    type Error = StoreError;

    fn try_from(r: ProductRow) -> Result<Self, StoreError> {
        Ok(GiftCardProduct {
            id: r.id,
            fields: ProductFields {
                site_id: r.site_id,
                name: r.name,
                description: r.description,
                value_type: stored("value type", &r.value_type, ValueType::parse)?,
                fixed_value: r.fixed_value,
                min_value: r.min_value,
                max_value: r.max_value,
                suggested_values: r.suggested_values.0,
                validity_days: r.validity_days,
                image_url: r.image_url,
                is_active: r.is_active,
                display_order: r.display_order,
            },
            created_at: r.created_at,
            updated_at: r.updated_at,
        })
    }
}

async fn check_site(w: &mut Write, site: Option<Uuid>) -> Result<(), GiftCardError> {
    let Some(site) = site else {
        return Ok(());
    };
    if w.has_site(site).await? {
        Ok(())
    } else {
        Err(GiftCardError::SiteNotFound)
    }
}

/// The product `id` inside `w`, locked (a change, or a purchase reading its value, waits
/// for the other).
pub(super) async fn product_in(
    w: &mut Write,
    id: Uuid,
) -> Result<Option<GiftCardProduct>, StoreError> {
    let row: Option<ProductRow> = sqlx::query_as(sql!(
        "SELECT {COLUMNS} FROM gift_card_products WHERE tenant_id = $1 AND id = $2{}",
        dialect::FOR_UPDATE
    ))
    .bind(w.tenant.as_str())
    .bind(id)
    .fetch_optional(&mut *w.tx)
    .await?;
    row.map(GiftCardProduct::try_from).transpose()
}

#[operations]
impl Repo {
    /// Creates a product (its fields checked first).
    pub async fn create_gift_card_product(
        &self,
        tenant: &TenantId,
        fields: ProductFields,
        actor: &Actor,
        now: Timestamp,
    ) -> Result<GiftCardProduct, GiftCardError> {
        fields.check().map_err(GiftCardError::Invalid)?;
        let mut w = self.begin(tenant, now).await?;
        check_site(&mut w, fields.site_id).await?;
        let id = new_id();
        sqlx::query(
            "INSERT INTO gift_card_products (tenant_id, id, site_id, name, description,
                 value_type, fixed_value, min_value, max_value, suggested_values, validity_days,
                 image_url, is_active, display_order, created_at, updated_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $15)",
        )
        .bind(tenant.as_str())
        .bind(id)
        .bind(fields.site_id)
        .bind(fields.name.trim())
        .bind(&fields.description)
        .bind(fields.value_type.as_str())
        .bind(fields.fixed_value)
        .bind(fields.min_value)
        .bind(fields.max_value)
        .bind(Json(&fields.suggested_values))
        .bind(fields.validity_days)
        .bind(&fields.image_url)
        .bind(fields.is_active)
        .bind(fields.display_order)
        .bind(now)
        .execute(&mut *w.tx)
        .await?;
        w.audit(
            actor,
            Change {
                action: "gift_card_product.created",
                entity_type: "gift_card_product",
                entity_id: id.to_string(),
                changes: json!({"name": fields.name, "valueType": fields.value_type.as_str()}),
            },
        );
        w.commit(None).await?;
        Ok(GiftCardProduct {
            id,
            fields: ProductFields {
                name: fields.name.trim().to_owned(),
                ..fields
            },
            created_at: now,
            updated_at: now,
        })
    }

    /// Changes a product: the patch is laid over the locked row and the result checked.
    pub async fn update_gift_card_product(
        &self,
        tenant: &TenantId,
        id: Uuid,
        patch: ProductPatch,
        actor: &Actor,
        now: Timestamp,
    ) -> Result<GiftCardProduct, GiftCardError> {
        let mut w = self.begin(tenant, now).await?;
        let current = product_in(&mut w, id)
            .await?
            .ok_or(GiftCardError::ProductNotFound)?;
        let site_changed = patch.site_id.is_some();
        let fields = current.fields.clone().patched(patch);
        fields.check().map_err(GiftCardError::Invalid)?;
        if site_changed {
            check_site(&mut w, fields.site_id).await?;
        }
        sqlx::query(
            "UPDATE gift_card_products SET site_id = $3, name = $4, description = $5,
                 value_type = $6, fixed_value = $7, min_value = $8, max_value = $9,
                 suggested_values = $10, validity_days = $11, image_url = $12,
                 is_active = $13, display_order = $14, updated_at = $15
             WHERE tenant_id = $1 AND id = $2",
        )
        .bind(tenant.as_str())
        .bind(id)
        .bind(fields.site_id)
        .bind(fields.name.trim())
        .bind(&fields.description)
        .bind(fields.value_type.as_str())
        .bind(fields.fixed_value)
        .bind(fields.min_value)
        .bind(fields.max_value)
        .bind(Json(&fields.suggested_values))
        .bind(fields.validity_days)
        .bind(&fields.image_url)
        .bind(fields.is_active)
        .bind(fields.display_order)
        .bind(now)
        .execute(&mut *w.tx)
        .await?;
        w.audit(
            actor,
            Change {
                action: "gift_card_product.updated",
                entity_type: "gift_card_product",
                entity_id: id.to_string(),
                changes: json!({"isActive": fields.is_active}),
            },
        );
        w.commit(None).await?;
        Ok(GiftCardProduct {
            id,
            fields: ProductFields {
                name: fields.name.trim().to_owned(),
                ..fields
            },
            created_at: current.created_at,
            updated_at: now,
        })
    }

    /// A product of the tenant (active or not).
    pub async fn get_gift_card_product(
        &self,
        tenant: &TenantId,
        id: Uuid,
    ) -> StoreResult<Option<GiftCardProduct>> {
        let row: Option<ProductRow> = sqlx::query_as(sql!(
            "SELECT {COLUMNS} FROM gift_card_products WHERE tenant_id = $1 AND id = $2"
        ))
        .bind(tenant.as_str())
        .bind(id)
        .fetch_optional(&self.read)
        .await?;
        row.map(GiftCardProduct::try_from).transpose()
    }

    /// One page of the tenant's products in display order, and how many match.
    pub async fn list_gift_card_products(
        &self,
        tenant: &TenantId,
        filter: &GiftCardProductFilter,
    ) -> StoreResult<(Vec<GiftCardProduct>, i64)> {
        let conditions = |q: &mut QueryBuilder<super::super::Db>| {
            q.push(" WHERE tenant_id = ")
                .push_bind(tenant.as_str().to_owned());
            if let Some(active) = filter.is_active {
                q.push(" AND is_active = ").push_bind(active);
            }
            if let Some(site) = filter.site_id {
                q.push(" AND (site_id IS NULL OR site_id = ")
                    .push_bind(site)
                    .push(")");
            }
        };
        let mut count = QueryBuilder::new("SELECT COUNT(*) FROM gift_card_products");
        conditions(&mut count);
        let total: i64 = count.build_query_scalar().fetch_one(&self.read).await?;
        let mut q = QueryBuilder::new(format!("SELECT {COLUMNS} FROM gift_card_products"));
        conditions(&mut q);
        let limit = i64::from(filter.limit.clamp(1, 100));
        let offset = i64::from(filter.page.max(1) - 1) * limit;
        q.push(" ORDER BY display_order, created_at, id LIMIT ")
            .push_bind(limit)
            .push(" OFFSET ")
            .push_bind(offset);
        let rows: Vec<ProductRow> = q.build_query_as().fetch_all(&self.read).await?;
        let items = rows
            .into_iter()
            .map(GiftCardProduct::try_from)
            .collect::<StoreResult<Vec<_>>>()?;
        Ok((items, total))
    }
}
