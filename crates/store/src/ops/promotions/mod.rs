//! Promotions: administration and statistics (this file), importing (`import.rs`); their
//! use by bookings is in `ops/bookings/reductions/`.

use super::audit::{Change, diff};
use super::{Db, Repo, dialect};
use crate::stored;
use crate::{
    Actor, NewPromotion, Promotion, PromotionError, PromotionFilter, PromotionScope, StoreError,
    StoreResult, Timestamp,
};
use kairos_domain::promotions::{Discount, PromotionStatus, PromotionType};
use kairos_domain::{TenantId, new_id};
use kairos_store_macros::operations;
use serde_json::json;
use sqlx::types::Json;
use sqlx::{QueryBuilder, Transaction};
use uuid::Uuid;

mod import;

pub(crate) use import::audit_import;

#[derive(kairos_store_macros::FromRow)]
pub(crate) struct PromotionRow {
    id: Uuid,
    code: String,
    name: String,
    description: String,
    promotion_type: String,
    discount_value: i64,
    buy_quantity: Option<i32>,
    bundle_size: Option<i32>,
    min_spend: Option<i64>,
    max_discount: Option<i64>,
    starts_at: Timestamp,
    expires_at: Option<Timestamp>,
    is_stackable: bool,
    usage_limit: Option<i32>,
    per_customer_limit: Option<i32>,
    usage_count: i32,
    applicable_sites: Json<Vec<Uuid>>,
    applicable_products: Json<Vec<Uuid>>,
    is_active: bool,
    is_public: bool,
    created_at: Timestamp,
    updated_at: Timestamp,
}

pub(crate) const PROMOTION_COLUMNS: &str = "id, code, name, description, promotion_type, \
     discount_value, buy_quantity, bundle_size, min_spend, max_discount, starts_at, expires_at, \
     is_stackable, usage_limit, per_customer_limit, usage_count, applicable_sites, \
     applicable_products, is_active, is_public, created_at, updated_at";

/// The columns a discount is stored in: type, value, buy quantity, bundle size, cap.
struct DiscountColumns {
    promotion_type: PromotionType,
    value: i64,
    buy_quantity: Option<i32>,
    bundle_size: Option<i32>,
    max_discount: Option<i64>,
}

fn columns_of(discount: &Discount) -> DiscountColumns {
    let count = |n: u32| i32::try_from(n).unwrap_or(i32::MAX);
    let (value, buy_quantity, bundle_size, max_discount) = match *discount {
        Discount::Percentage { basis_points, cap } => (i64::from(basis_points), None, None, cap),
        Discount::FixedAmount { amount } => (amount, None, None, None),
        Discount::BuyXGetY { buy, free } => (i64::from(free), Some(count(buy)), None, None),
        Discount::Bundle { size, price } => (price, None, Some(count(size)), None),
    };
    DiscountColumns {
        promotion_type: discount.promotion_type(),
        value,
        buy_quantity,
        bundle_size,
        max_discount,
    }
}

fn discount_of_row(r: &PromotionRow) -> Result<Discount, StoreError> {
    let kind = stored::<PromotionType>("promotion_type", &r.promotion_type, PromotionType::parse)?;
    let count = |n: Option<i32>| n.and_then(|n| u32::try_from(n).ok()).unwrap_or(1);
    let small = |v: i64| u32::try_from(v).unwrap_or(u32::MAX);
    Ok(match kind {
        PromotionType::Percentage => Discount::Percentage {
            basis_points: i32::try_from(r.discount_value).unwrap_or(i32::MAX),
            cap: r.max_discount,
        },
        PromotionType::FixedAmount => Discount::FixedAmount {
            amount: r.discount_value,
        },
        PromotionType::BuyXGetY => Discount::BuyXGetY {
            buy: count(r.buy_quantity),
            free: small(r.discount_value),
        },
        PromotionType::Bundle => Discount::Bundle {
            size: count(r.bundle_size),
            price: r.discount_value,
        },
    })
}

impl TryFrom<PromotionRow> for Promotion {
    type Error = StoreError;

    fn try_from(r: PromotionRow) -> Result<Self, StoreError> {
        let discount = discount_of_row(&r)?;
        Ok(Promotion {
            id: r.id,
            settings: NewPromotion {
                code: r.code,
                name: r.name,
                description: r.description,
                discount,
                min_spend: r.min_spend,
                starts_at: r.starts_at,
                expires_at: r.expires_at,
                is_stackable: r.is_stackable,
                usage_limit: r.usage_limit,
                per_customer_limit: r.per_customer_limit,
                applicable_sites: r.applicable_sites.0,
                applicable_products: r.applicable_products.0,
                is_active: r.is_active,
                is_public: r.is_public,
            },
            usage_count: r.usage_count,
            created_at: r.created_at,
            updated_at: r.updated_at,
        })
    }
}

/// The key a promotion's code is unique by: its ASCII lower case (codes are ASCII, and a
/// typed code is compared the same way, so that no other character folds into a letter).
pub(crate) fn code_key(code: &str) -> String {
    code.trim().to_ascii_lowercase()
}

/// The key a name is searched by: its Unicode lower case, computed here so that both
/// databases compare alike.
fn name_key(name: &str) -> String {
    name.to_lowercase()
}

/// Every site and product a promotion names exists in the tenant (read in the write).
async fn check_scope(
    tx: &mut Transaction<'static, Db>,
    tenant: &TenantId,
    new: &NewPromotion,
) -> Result<(), PromotionError> {
    for (table, ids, missing) in [
        (
            "sites",
            &new.applicable_sites,
            PromotionError::SiteNotFound as fn(Uuid) -> PromotionError,
        ),
        (
            "products",
            &new.applicable_products,
            PromotionError::ProductNotFound,
        ),
    ] {
        for id in ids {
            let found: Option<i32> = sqlx::query_scalar(sql!(
                "SELECT 1 FROM {table} WHERE tenant_id = $1 AND id = $2"
            ))
            .bind(tenant.as_str())
            .bind(*id)
            .fetch_optional(&mut **tx)
            .await?;
            if found.is_none() {
                return Err(missing(*id));
            }
        }
    }
    Ok(())
}

fn code_taken(e: sqlx::Error, code: &str) -> PromotionError {
    if dialect::violates_unique(
        &e,
        "promotions_code",
        "promotions.tenant_id, promotions.code_key",
    ) {
        PromotionError::CodeTaken(code.to_owned())
    } else {
        e.into()
    }
}

/// Appends the list filter's conditions to `q` (which ends in a WHERE clause on tenant).
fn push_filter(q: &mut QueryBuilder<Db>, f: &PromotionFilter, now: Timestamp) {
    q.push(" AND deleted_at IS NULL");
    match f.status {
        PromotionStatus::Active => {
            q.push(" AND is_active AND starts_at <= ")
                .push_bind(now)
                .push(" AND (expires_at IS NULL OR expires_at > ")
                .push_bind(now)
                .push(")");
        }
        PromotionStatus::Expired => {
            q.push(" AND expires_at <= ").push_bind(now);
        }
        PromotionStatus::Upcoming => {
            q.push(" AND starts_at > ").push_bind(now);
        }
        PromotionStatus::All => {}
    }
    if let Some(kind) = f.promotion_type {
        q.push(" AND promotion_type = ").push_bind(kind.as_str());
    }
    if let Some(active) = f.is_active {
        q.push(" AND is_active = ").push_bind(active);
    }
    if let Some(public) = f.is_public {
        q.push(" AND is_public = ").push_bind(public);
    }
    // The lists are JSON arrays: empty is '[]' on both databases.
    match f.scope {
        Some(PromotionScope::Product) => {
            q.push(" AND applicable_products <> ")
                .push_bind(Json(Vec::<Uuid>::new()));
        }
        Some(PromotionScope::Site) => {
            q.push(" AND applicable_products = ")
                .push_bind(Json(Vec::<Uuid>::new()))
                .push(" AND applicable_sites <> ")
                .push_bind(Json(Vec::<Uuid>::new()));
        }
        Some(PromotionScope::Booking) => {
            q.push(" AND applicable_products = ")
                .push_bind(Json(Vec::<Uuid>::new()))
                .push(" AND applicable_sites = ")
                .push_bind(Json(Vec::<Uuid>::new()));
        }
        None => {}
    }
    if let Some(t) = f.starts_after {
        q.push(" AND starts_at > ").push_bind(t);
    }
    if let Some(t) = f.expires_before {
        q.push(" AND expires_at < ").push_bind(t);
    }
    if let Some(search) = &f.search {
        let like = |s: String| {
            let escaped = s
                .replace('\\', "\\\\")
                .replace('%', "\\%")
                .replace('_', "\\_");
            format!("%{escaped}%")
        };
        q.push(" AND (code_key LIKE ")
            .push_bind(like(search.to_ascii_lowercase()))
            .push(" ESCAPE '\\' OR name_key LIKE ")
            .push_bind(like(name_key(search)))
            .push(" ESCAPE '\\')");
    }
}

#[operations]
impl Repo {
    pub async fn create_promotion(
        &self,
        tenant: &TenantId,
        new: NewPromotion,
        actor: &Actor,
        now: Timestamp,
    ) -> Result<Promotion, PromotionError> {
        let mut w = self.begin(tenant, now).await?;
        check_scope(&mut w.tx, tenant, &new).await?;
        let id = new_id();
        let c = columns_of(&new.discount);
        let row: PromotionRow = sqlx::query_as(sql!(
            "INSERT INTO promotions (tenant_id, id, code, code_key, name, description,
                 promotion_type, discount_value, buy_quantity, bundle_size, min_spend,
                 max_discount, starts_at, expires_at, is_stackable, usage_limit,
                 per_customer_limit, applicable_sites, applicable_products, is_active,
                 is_public, created_at, updated_at, name_key)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16,
                     $17, $18, $19, $20, $21, $22, $22, $23)
             RETURNING {PROMOTION_COLUMNS}"
        ))
        .bind(tenant.as_str())
        .bind(id)
        .bind(new.code.trim())
        .bind(code_key(&new.code))
        .bind(&new.name)
        .bind(&new.description)
        .bind(c.promotion_type.as_str())
        .bind(c.value)
        .bind(c.buy_quantity)
        .bind(c.bundle_size)
        .bind(new.min_spend)
        .bind(c.max_discount)
        .bind(new.starts_at)
        .bind(new.expires_at)
        .bind(new.is_stackable)
        .bind(new.usage_limit)
        .bind(new.per_customer_limit)
        .bind(Json(&new.applicable_sites))
        .bind(Json(&new.applicable_products))
        .bind(new.is_active)
        .bind(new.is_public)
        .bind(now)
        .bind(name_key(&new.name))
        .fetch_one(&mut *w.tx)
        .await
        .map_err(|e| code_taken(e, &new.code))?;
        w.audit(
            actor,
            Change {
                action: "promotion.created",
                entity_type: "promotion",
                entity_id: id.to_string(),
                changes: json!(new),
            },
        );
        w.commit(None).await?;
        Ok(row.try_into()?)
    }

    /// One page of the tenant's promotions (deleted ones never), newest first, and how
    /// many match.
    pub async fn list_promotions(
        &self,
        tenant: &TenantId,
        filter: PromotionFilter,
        now: Timestamp,
    ) -> StoreResult<(Vec<Promotion>, u64)> {
        let mut q = QueryBuilder::<Db>::new("SELECT COUNT(*) FROM promotions WHERE tenant_id = ");
        q.push_bind(tenant.as_str());
        push_filter(&mut q, &filter, now);
        let total: i64 = q.build_query_scalar().fetch_one(&self.read).await?;

        let mut q = QueryBuilder::<Db>::new(format!(
            "SELECT {PROMOTION_COLUMNS} FROM promotions WHERE tenant_id = "
        ));
        q.push_bind(tenant.as_str());
        push_filter(&mut q, &filter, now);
        q.push(" ORDER BY created_at DESC, id DESC LIMIT ");
        q.push_bind(i64::from(filter.per_page));
        q.push(" OFFSET ");
        q.push_bind(i64::from(filter.page.saturating_sub(1)) * i64::from(filter.per_page));
        let rows: Vec<PromotionRow> = q.build_query_as().fetch_all(&self.read).await?;
        let items = rows
            .into_iter()
            .map(Promotion::try_from)
            .collect::<StoreResult<_>>()?;
        Ok((items, u64::try_from(total).unwrap_or(0)))
    }

    /// A promotion that has not been deleted.
    pub async fn promotion(
        &self,
        tenant: &TenantId,
        id: Uuid,
    ) -> Result<Promotion, PromotionError> {
        let row: PromotionRow = sqlx::query_as(sql!(
            "SELECT {PROMOTION_COLUMNS} FROM promotions
             WHERE tenant_id = $1 AND id = $2 AND deleted_at IS NULL"
        ))
        .bind(tenant.as_str())
        .bind(id)
        .fetch_optional(&self.read)
        .await?
        .ok_or(PromotionError::NotFound)?;
        Ok(row.try_into()?)
    }

    /// A promotion's live uses (held and final), oldest first, for its statistics.
    pub async fn promotion_uses(
        &self,
        tenant: &TenantId,
        id: Uuid,
    ) -> StoreResult<Vec<kairos_domain::promotions::stats::Use>> {
        let rows: Vec<(Uuid, String, i64, Timestamp)> = sqlx::query_as(
            "SELECT booking_id, customer_key, discount_amount, applied_at
             FROM promotion_usages
             WHERE tenant_id = $1 AND promotion_id = $2 AND status <> 'released'
             ORDER BY applied_at, id",
        )
        .bind(tenant.as_str())
        .bind(id)
        .fetch_all(&self.read)
        .await?;
        Ok(rows
            .into_iter()
            .map(|(booking_id, customer_key, discount, applied_at)| {
                kairos_domain::promotions::stats::Use {
                    booking_id,
                    customer_key,
                    discount,
                    applied_at,
                }
            })
            .collect())
    }

    /// Replaces a promotion's settings. Its uses stay: a usage limit below the uses
    /// already taken is refused.
    pub async fn update_promotion(
        &self,
        tenant: &TenantId,
        id: Uuid,
        new: NewPromotion,
        actor: &Actor,
        now: Timestamp,
    ) -> Result<Promotion, PromotionError> {
        let mut w = self.begin(tenant, now).await?;
        let before: Promotion = sqlx::query_as::<_, PromotionRow>(sql!(
            "SELECT {PROMOTION_COLUMNS} FROM promotions
             WHERE tenant_id = $1 AND id = $2 AND deleted_at IS NULL"
        ))
        .bind(tenant.as_str())
        .bind(id)
        .fetch_optional(&mut *w.tx)
        .await?
        .ok_or(PromotionError::NotFound)?
        .try_into()?;
        if new
            .usage_limit
            .is_some_and(|limit| limit < before.usage_count)
        {
            return Err(PromotionError::LimitBelowUses(before.usage_count));
        }
        check_scope(&mut w.tx, tenant, &new).await?;
        let c = columns_of(&new.discount);
        let row: PromotionRow = sqlx::query_as(sql!(
            "UPDATE promotions SET code = $3, code_key = $4, name = $5, description = $6,
                 promotion_type = $7, discount_value = $8, buy_quantity = $9, bundle_size = $10,
                 min_spend = $11, max_discount = $12, starts_at = $13, expires_at = $14,
                 is_stackable = $15, usage_limit = $16, per_customer_limit = $17,
                 applicable_sites = $18, applicable_products = $19, is_active = $20,
                 is_public = $21, updated_at = $22, name_key = $23
             WHERE tenant_id = $1 AND id = $2
             RETURNING {PROMOTION_COLUMNS}"
        ))
        .bind(tenant.as_str())
        .bind(id)
        .bind(new.code.trim())
        .bind(code_key(&new.code))
        .bind(&new.name)
        .bind(&new.description)
        .bind(c.promotion_type.as_str())
        .bind(c.value)
        .bind(c.buy_quantity)
        .bind(c.bundle_size)
        .bind(new.min_spend)
        .bind(c.max_discount)
        .bind(new.starts_at)
        .bind(new.expires_at)
        .bind(new.is_stackable)
        .bind(new.usage_limit)
        .bind(new.per_customer_limit)
        .bind(Json(&new.applicable_sites))
        .bind(Json(&new.applicable_products))
        .bind(new.is_active)
        .bind(new.is_public)
        .bind(now)
        .bind(name_key(&new.name))
        .fetch_one(&mut *w.tx)
        .await
        .map_err(|e| code_taken(e, &new.code))?;
        let after = Promotion::try_from(row)?;
        w.audit(
            actor,
            Change {
                action: "promotion.updated",
                entity_type: "promotion",
                entity_id: id.to_string(),
                changes: diff(&before, &after),
            },
        );
        w.commit(None).await?;
        Ok(after)
    }

    /// Deletes a promotion: it never applies again and leaves the lists, but the bookings
    /// that used it keep it in their history.
    pub async fn delete_promotion(
        &self,
        tenant: &TenantId,
        id: Uuid,
        actor: &Actor,
        now: Timestamp,
    ) -> Result<(), PromotionError> {
        let mut w = self.begin(tenant, now).await?;
        let code: String = sqlx::query_scalar(
            "UPDATE promotions SET deleted_at = $3, is_active = FALSE, updated_at = $3
             WHERE tenant_id = $1 AND id = $2 AND deleted_at IS NULL
             RETURNING code",
        )
        .bind(tenant.as_str())
        .bind(id)
        .bind(now)
        .fetch_optional(&mut *w.tx)
        .await?
        .ok_or(PromotionError::NotFound)?;
        w.audit(
            actor,
            Change {
                action: "promotion.deleted",
                entity_type: "promotion",
                entity_id: id.to_string(),
                changes: json!({"code": code}),
            },
        );
        w.commit(None).await?;
        Ok(())
    }

    /// The promotions a customer may see: public, switched on, not deleted and not
    /// expired at `now` (started or upcoming), ordered by code.
    pub async fn public_promotions(
        &self,
        tenant: &TenantId,
        now: Timestamp,
    ) -> StoreResult<Vec<Promotion>> {
        let rows: Vec<PromotionRow> = sqlx::query_as(sql!(
            "SELECT {PROMOTION_COLUMNS} FROM promotions
             WHERE tenant_id = $1 AND deleted_at IS NULL AND is_active AND is_public
               AND (expires_at IS NULL OR expires_at > $2)
             ORDER BY code_key, id"
        ))
        .bind(tenant.as_str())
        .bind(now)
        .fetch_all(&self.read)
        .await?;
        rows.into_iter().map(Promotion::try_from).collect()
    }

    /// The promotion with `code` (any case), public or not, unless deleted.
    pub async fn promotion_by_code(
        &self,
        tenant: &TenantId,
        code: &str,
    ) -> StoreResult<Option<Promotion>> {
        let row: Option<PromotionRow> = sqlx::query_as(sql!(
            "SELECT {PROMOTION_COLUMNS} FROM promotions
             WHERE tenant_id = $1 AND code_key = $2 AND deleted_at IS NULL"
        ))
        .bind(tenant.as_str())
        .bind(code_key(code))
        .fetch_optional(&self.read)
        .await?;
        row.map(Promotion::try_from).transpose()
    }
}
