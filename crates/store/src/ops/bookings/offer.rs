//! What a booking is made of, read inside its write transaction: the product with its
//! site and the tenant's hold time-to-live (and, for a new booking, the slot) in one
//! statement; the variant and add-ons only when the booking has them.

use super::super::catalog::{
    ADDON_COLUMNS, AddonRow, PRODUCT_COLUMNS, ProductRow, VARIANT_COLUMNS, VariantRow,
};
use super::Tx;
use crate::stored;
use crate::{Addon, Product, SlotChoice, StoreError, Timestamp, Variant};
use kairos_domain::TenantId;
use kairos_domain::catalog::CancellationPolicy;
use kairos_domain::tenancy::Currency;
use std::sync::LazyLock;
use uuid::Uuid;

/// A product as a booking sees it, with what it needs of the site and tenant.
pub(super) struct Offer {
    pub product: Product,
    pub site_is_active: bool,
    pub currency: Currency,
    pub site_hold_ttl_minutes: Option<i32>,
    pub tenant_hold_ttl_minutes: i32,
    /// The slot asked for, when it exists for this product.
    pub slot: Option<OfferSlot>,
}

/// A slot of the product, as read before its seats are taken.
pub(super) struct OfferSlot {
    pub id: Uuid,
    pub starts_at: Timestamp,
    pub ends_at: Timestamp,
    pub is_orphaned: bool,
}

impl Offer {
    /// The hold time-to-live: the site's, else the tenant's.
    pub fn hold_ttl(&self) -> chrono::Duration {
        chrono::Duration::minutes(i64::from(
            self.site_hold_ttl_minutes
                .unwrap_or(self.tenant_hold_ttl_minutes),
        ))
    }
}

#[derive(kairos_store_macros::FromRow)]
struct OfferRow {
    #[sqlx(flatten)]
    product: ProductRow,
    site_is_active: bool,
    site_currency: String,
    site_hold_ttl_minutes: Option<i32>,
    tenant_hold_ttl_minutes: i32,
    slot_id: Option<Uuid>,
    slot_starts_at: Option<Timestamp>,
    slot_ends_at: Option<Timestamp>,
    slot_is_orphaned: Option<bool>,
}

/// `SELECT … FROM products p JOIN sites … JOIN tenants … LEFT JOIN slots sl ON <slot>`;
/// `$1` tenant, `$2` product, `$3` the slot's id or start.
fn offer_sql(slot_condition: &str) -> String {
    let product_columns: Vec<String> = PRODUCT_COLUMNS
        .split(',')
        .map(|c| format!("p.{}", c.trim()))
        .collect();
    format!(
        "SELECT {}, s.is_active AS site_is_active, s.currency AS site_currency,
                s.hold_ttl_minutes AS site_hold_ttl_minutes,
                t.hold_ttl_minutes AS tenant_hold_ttl_minutes,
                sl.id AS slot_id, sl.starts_at AS slot_starts_at, sl.ends_at AS slot_ends_at,
                sl.is_orphaned AS slot_is_orphaned
         FROM products p
         JOIN sites s ON s.tenant_id = p.tenant_id AND s.id = p.site_id
         JOIN tenants t ON t.id = p.tenant_id
         LEFT JOIN slots sl ON sl.tenant_id = p.tenant_id AND sl.product_id = p.id AND {slot_condition}
         WHERE p.tenant_id = $1 AND p.id = $2",
        product_columns.join(", ")
    )
}

static BY_SLOT_ID: LazyLock<String> = LazyLock::new(|| offer_sql("sl.id = $3"));
static BY_SLOT_START: LazyLock<String> = LazyLock::new(|| offer_sql("sl.starts_at = $3"));

/// Reads the product `product_id` with its site, the tenant's time-to-live and, when
/// `slot` is given, that slot of the product. `None` when the product does not exist.
pub(super) async fn load_offer(
    tx: &mut Tx,
    tenant: &TenantId,
    product_id: Uuid,
    slot: Option<SlotChoice>,
) -> Result<Option<Offer>, StoreError> {
    let query = match slot {
        None | Some(SlotChoice::Id(_)) => {
            sqlx::query_as::<_, OfferRow>(sqlx::AssertSqlSafe(BY_SLOT_ID.as_str()))
        }
        Some(SlotChoice::StartingAt(_)) => {
            sqlx::query_as::<_, OfferRow>(sqlx::AssertSqlSafe(BY_SLOT_START.as_str()))
        }
    }
    .bind(tenant.as_str())
    .bind(product_id);
    let query = match slot {
        None => query.bind(Uuid::nil()),
        Some(SlotChoice::Id(id)) => query.bind(id),
        Some(SlotChoice::StartingAt(at)) => query.bind(at),
    };
    let Some(row) = query.fetch_optional(&mut **tx).await? else {
        return Ok(None);
    };
    let currency = Currency::parse(&row.site_currency)
        .map_err(|e| StoreError::Corrupt(format!("site currency: {e}")))?;
    let slot = match (
        row.slot_id,
        row.slot_starts_at,
        row.slot_ends_at,
        row.slot_is_orphaned,
    ) {
        (Some(id), Some(starts_at), Some(ends_at), Some(is_orphaned)) => Some(OfferSlot {
            id,
            starts_at,
            ends_at,
            is_orphaned,
        }),
        _ => None,
    };
    Ok(Some(Offer {
        product: row.product.try_into()?,
        site_is_active: row.site_is_active,
        currency,
        site_hold_ttl_minutes: row.site_hold_ttl_minutes,
        tenant_hold_ttl_minutes: row.tenant_hold_ttl_minutes,
        slot,
    }))
}

/// The active variant `id` of the product, if any.
pub(super) async fn load_variant(
    tx: &mut Tx,
    tenant: &TenantId,
    product: Uuid,
    id: Uuid,
) -> Result<Option<Variant>, StoreError> {
    let row: Option<VariantRow> = sqlx::query_as(sql!(
        "SELECT {VARIANT_COLUMNS} FROM product_variants
         WHERE tenant_id = $1 AND product_id = $2 AND id = $3"
    ))
    .bind(tenant.as_str())
    .bind(product)
    .bind(id)
    .fetch_optional(&mut **tx)
    .await?;
    Ok(row
        .map(Variant::try_from)
        .transpose()?
        .filter(|v| v.is_active))
}

/// Every add-on of the product (active or not).
pub(super) async fn load_addons(
    tx: &mut Tx,
    tenant: &TenantId,
    product: Uuid,
) -> Result<Vec<Addon>, StoreError> {
    let rows: Vec<AddonRow> = sqlx::query_as(sql!(
        "SELECT {ADDON_COLUMNS} FROM product_addons WHERE tenant_id = $1 AND product_id = $2"
    ))
    .bind(tenant.as_str())
    .bind(product)
    .fetch_all(&mut **tx)
    .await?;
    rows.into_iter().map(Addon::try_from).collect()
}

/// The site's cancellation policy and hold time-to-live with the tenant's, for a booking
/// already made.
pub(super) async fn site_policy(
    tx: &mut Tx,
    tenant: &TenantId,
    site: Uuid,
) -> Result<(CancellationPolicy, chrono::Duration), StoreError> {
    let (policy, site_ttl, tenant_ttl): (String, Option<i32>, i32) = sqlx::query_as(
        "SELECT s.cancellation_policy, s.hold_ttl_minutes, t.hold_ttl_minutes
         FROM sites s JOIN tenants t ON t.id = s.tenant_id
         WHERE s.tenant_id = $1 AND s.id = $2",
    )
    .bind(tenant.as_str())
    .bind(site)
    .fetch_one(&mut **tx)
    .await?;
    Ok((
        stored("cancellation_policy", &policy, CancellationPolicy::parse)?,
        chrono::Duration::minutes(i64::from(site_ttl.unwrap_or(tenant_ttl))),
    ))
}
