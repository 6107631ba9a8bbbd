//! A product's resource add-on configurations (spec Part B 2.3): which of its add-ons (of
//! type `resource`) gives which resource of its site, for how long, at what price.

use super::super::audit::{Change, diff};
use super::super::{Db, Repo};
use crate::stored;
use crate::{
    Actor, AddonConfig, NewAddonConfig, OfferedAddon, ResourceError, StoreError, StoreResult,
    Timestamp,
};
use kairos_domain::resource_policies::{PolicySet, effective};
use kairos_domain::resources::{DurationMode, PricingMode, SharedMode};
use kairos_domain::{TenantId, new_id};
use kairos_store_macros::operations;
use serde_json::json;
use sqlx::Transaction;
use sqlx::types::Json;
use uuid::Uuid;

#[derive(kairos_store_macros::FromRow)]
pub(crate) struct ConfigRow {
    id: Uuid,
    product_id: Uuid,
    addon_id: Uuid,
    resource_id: Uuid,
    duration_mode: String,
    duration_options: Json<Vec<i32>>,
    fixed_duration_mins: Option<i32>,
    min_duration_mins: Option<i32>,
    max_duration_mins: Option<i32>,
    duration_step_mins: i32,
    default_duration_mins: Option<i32>,
    pricing_mode: String,
    flat_price: Option<i64>,
    per_hour_price: Option<i64>,
    per_person_price: Option<i64>,
    base_price: Option<i64>,
    allow_before: bool,
    allow_during: bool,
    allow_after: bool,
    buffer_before_mins: i32,
    buffer_after_mins: i32,
    max_capacity: Option<i32>,
    is_active: bool,
    addon_name: String,
    addon_description: String,
    resource_name: String,
    created_at: Timestamp,
    updated_at: Timestamp,
}

impl TryFrom<ConfigRow> for AddonConfig {
    type Error = StoreError;

    fn try_from(r: ConfigRow) -> Result<Self, StoreError> {
        Ok(AddonConfig {
            id: r.id,
            product_id: r.product_id,
            config: NewAddonConfig {
                addon_id: r.addon_id,
                resource_id: r.resource_id,
                duration_mode: stored("duration_mode", &r.duration_mode, DurationMode::parse)?,
                duration_options: r.duration_options.0,
                fixed_duration_mins: r.fixed_duration_mins,
                min_duration_mins: r.min_duration_mins,
                max_duration_mins: r.max_duration_mins,
                duration_step_mins: r.duration_step_mins,
                default_duration_mins: r.default_duration_mins,
                pricing_mode: stored("pricing_mode", &r.pricing_mode, PricingMode::parse)?,
                flat_price: r.flat_price,
                per_hour_price: r.per_hour_price,
                per_person_price: r.per_person_price,
                base_price: r.base_price,
                allow_before: r.allow_before,
                allow_during: r.allow_during,
                allow_after: r.allow_after,
                buffer_before_mins: r.buffer_before_mins,
                buffer_after_mins: r.buffer_after_mins,
                max_capacity: r.max_capacity,
                is_active: r.is_active,
            },
            addon_name: r.addon_name,
            addon_description: r.addon_description,
            resource_name: r.resource_name,
            created_at: r.created_at,
            updated_at: r.updated_at,
        })
    }
}

/// The configuration with its add-on's and resource's names.
const SELECT: &str = "SELECT c.id, c.product_id, c.addon_id, c.resource_id, c.duration_mode,
         c.duration_options, c.fixed_duration_mins, c.min_duration_mins, c.max_duration_mins,
         c.duration_step_mins, c.default_duration_mins, c.pricing_mode, c.flat_price,
         c.per_hour_price, c.per_person_price, c.base_price, c.allow_before, c.allow_during,
         c.allow_after, c.buffer_before_mins, c.buffer_after_mins, c.max_capacity, c.is_active,
         a.name AS addon_name, a.description AS addon_description, r.name AS resource_name,
         c.created_at, c.updated_at
     FROM resource_addon_configs c
     JOIN product_addons a ON a.tenant_id = c.tenant_id AND a.id = c.addon_id
     JOIN resources r ON r.tenant_id = c.tenant_id AND r.id = c.resource_id";

/// A configuration with what the public windows need beside it.
const SELECT_OFFERED: &str =
    "SELECT c.id, c.product_id, c.addon_id, c.resource_id, c.duration_mode,
         c.duration_options, c.fixed_duration_mins, c.min_duration_mins, c.max_duration_mins,
         c.duration_step_mins, c.default_duration_mins, c.pricing_mode, c.flat_price,
         c.per_hour_price, c.per_person_price, c.base_price, c.allow_before, c.allow_during,
         c.allow_after, c.buffer_before_mins, c.buffer_after_mins, c.max_capacity, c.is_active,
         a.name AS addon_name, a.description AS addon_description, r.name AS resource_name,
         c.created_at, c.updated_at, r.shared_mode, r.capacity,
         r.policies AS resource_policies, g.policies AS group_policies, s.currency
     FROM resource_addon_configs c
     JOIN product_addons a ON a.tenant_id = c.tenant_id AND a.id = c.addon_id
     JOIN resources r ON r.tenant_id = c.tenant_id AND r.id = c.resource_id
     JOIN products p ON p.tenant_id = c.tenant_id AND p.id = c.product_id
     JOIN sites s ON s.tenant_id = p.tenant_id AND s.id = p.site_id
     LEFT JOIN resource_groups g ON g.tenant_id = r.tenant_id AND g.id = r.group_id";

#[derive(kairos_store_macros::FromRow)]
struct OfferedRow {
    #[sqlx(flatten)]
    config: ConfigRow,
    shared_mode: String,
    capacity: i32,
    resource_policies: Json<PolicySet>,
    group_policies: Option<Json<PolicySet>>,
    currency: String,
}

/// Checks that the add-on is the product's, of type `resource`, and the resource at the
/// product's site.
async fn check_parts(
    tx: &mut Transaction<'static, Db>,
    tenant: &TenantId,
    product: Uuid,
    new: &NewAddonConfig,
) -> Result<(), ResourceError> {
    let site = super::product_site(&mut **tx, tenant, product)
        .await?
        .ok_or(ResourceError::ProductNotFound)?;
    let addon_type: Option<String> = sqlx::query_scalar(
        "SELECT addon_type FROM product_addons WHERE tenant_id = $1 AND product_id = $2 AND id = $3",
    )
    .bind(tenant.as_str())
    .bind(product)
    .bind(new.addon_id)
    .fetch_optional(&mut **tx)
    .await?;
    match addon_type.as_deref() {
        None => return Err(ResourceError::AddonNotFound),
        Some("resource") => {}
        Some(_) => return Err(ResourceError::NotResourceAddon),
    }
    let resource = super::resource_in(tx, tenant, new.resource_id).await?;
    if resource.site_id != site {
        return Err(ResourceError::OtherSite);
    }
    Ok(())
}

type Statement<'q> = sqlx::query::Query<'q, Db, <Db as sqlx::Database>::Arguments>;

/// Binds a configuration's fields, `$4` to `$24` of both the insert and the update.
fn bind_fields<'q>(q: Statement<'q>, new: &NewAddonConfig) -> Statement<'q> {
    q.bind(new.addon_id)
        .bind(new.resource_id)
        .bind(new.duration_mode.as_str())
        .bind(Json(new.duration_options.clone()))
        .bind(new.fixed_duration_mins)
        .bind(new.min_duration_mins)
        .bind(new.max_duration_mins)
        .bind(new.duration_step_mins)
        .bind(new.default_duration_mins)
        .bind(new.pricing_mode.as_str())
        .bind(new.flat_price)
        .bind(new.per_hour_price)
        .bind(new.per_person_price)
        .bind(new.base_price)
        .bind(new.allow_before)
        .bind(new.allow_during)
        .bind(new.allow_after)
        .bind(new.buffer_before_mins)
        .bind(new.buffer_after_mins)
        .bind(new.max_capacity)
        .bind(new.is_active)
}

pub(super) async fn config_in(
    tx: &mut Transaction<'static, Db>,
    tenant: &TenantId,
    product: Uuid,
    id: Uuid,
) -> Result<AddonConfig, ResourceError> {
    let row: Option<ConfigRow> = sqlx::query_as(sql!(
        "{SELECT} WHERE c.tenant_id = $1 AND c.product_id = $2 AND c.id = $3"
    ))
    .bind(tenant.as_str())
    .bind(product)
    .bind(id)
    .fetch_optional(&mut **tx)
    .await?;
    Ok(row.ok_or(ResourceError::ConfigNotFound)?.try_into()?)
}

#[operations]
impl Repo {
    pub async fn create_addon_config(
        &self,
        tenant: &TenantId,
        product: Uuid,
        new: NewAddonConfig,
        actor: &Actor,
        now: Timestamp,
    ) -> Result<AddonConfig, ResourceError> {
        let mut w = self.begin(tenant, now).await?;
        check_parts(&mut w.tx, tenant, product, &new).await?;
        let id = new_id();
        let insert = sqlx::query(
            "INSERT INTO resource_addon_configs (tenant_id, id, product_id, addon_id, resource_id,
                 duration_mode, duration_options, fixed_duration_mins, min_duration_mins,
                 max_duration_mins, duration_step_mins, default_duration_mins, pricing_mode,
                 flat_price, per_hour_price, per_person_price, base_price, allow_before,
                 allow_during, allow_after, buffer_before_mins, buffer_after_mins, max_capacity,
                 is_active, created_at, updated_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17,
                 $18, $19, $20, $21, $22, $23, $24, $25, $25)",
        )
        .bind(tenant.as_str())
        .bind(id)
        .bind(product);
        bind_fields(insert, &new)
            .bind(now)
            .execute(&mut *w.tx)
            .await?;
        let created = config_in(&mut w.tx, tenant, product, id).await?;
        w.audit(
            actor,
            Change {
                action: "resource_addon_config.created",
                entity_type: "resource_addon_config",
                entity_id: id.to_string(),
                changes: json!(new),
            },
        );
        w.commit(None).await?;
        Ok(created)
    }

    /// A product's configurations; `active_only` for the public list.
    /// The configuration `id` as the public windows read it, in one query: only while it,
    /// its add-on, its resource, its product and its site are all active; with the
    /// resource's mode and capacity, its effective booking policies and the site's
    /// currency.
    pub async fn offered_addon(
        &self,
        tenant: &TenantId,
        id: Uuid,
    ) -> StoreResult<Option<OfferedAddon>> {
        let row: Option<OfferedRow> = sqlx::query_as(sql!(
            "{SELECT_OFFERED} WHERE c.tenant_id = $1 AND c.id = $2 AND c.is_active
                 AND a.is_active AND r.is_active AND p.is_active AND s.is_active"
        ))
        .bind(tenant.as_str())
        .bind(id)
        .fetch_optional(&self.read)
        .await?;
        row.map(|r| {
            let (policies, _) = effective(
                &r.resource_policies.0,
                r.group_policies.as_ref().map(|g| &g.0),
            );
            Ok(OfferedAddon {
                config: r.config.try_into()?,
                shared_mode: stored("shared_mode", &r.shared_mode, SharedMode::parse)?,
                capacity: r.capacity,
                policies,
                currency: r.currency,
            })
        })
        .transpose()
    }

    pub async fn list_addon_configs(
        &self,
        tenant: &TenantId,
        product: Uuid,
        active_only: bool,
    ) -> StoreResult<Vec<AddonConfig>> {
        let rows: Vec<ConfigRow> = sqlx::query_as(sql!(
            "{SELECT} WHERE c.tenant_id = $1 AND c.product_id = $2
                 AND (NOT $3 OR (c.is_active AND a.is_active AND r.is_active))
             ORDER BY a.display_order, a.name, c.id"
        ))
        .bind(tenant.as_str())
        .bind(product)
        .bind(active_only)
        .fetch_all(&self.read)
        .await?;
        rows.into_iter().map(AddonConfig::try_from).collect()
    }

    /// One configuration by its id alone (the public windows).
    pub async fn addon_config(
        &self,
        tenant: &TenantId,
        id: Uuid,
    ) -> Result<AddonConfig, ResourceError> {
        let row: Option<ConfigRow> =
            sqlx::query_as(sql!("{SELECT} WHERE c.tenant_id = $1 AND c.id = $2"))
                .bind(tenant.as_str())
                .bind(id)
                .fetch_optional(&self.read)
                .await?;
        Ok(row.ok_or(ResourceError::ConfigNotFound)?.try_into()?)
    }

    pub async fn update_addon_config(
        &self,
        tenant: &TenantId,
        product: Uuid,
        id: Uuid,
        new: NewAddonConfig,
        actor: &Actor,
        now: Timestamp,
    ) -> Result<AddonConfig, ResourceError> {
        let mut w = self.begin(tenant, now).await?;
        let before = config_in(&mut w.tx, tenant, product, id).await?;
        check_parts(&mut w.tx, tenant, product, &new).await?;
        let update = sqlx::query(
            "UPDATE resource_addon_configs SET addon_id = $4, resource_id = $5,
                 duration_mode = $6, duration_options = $7, fixed_duration_mins = $8,
                 min_duration_mins = $9, max_duration_mins = $10, duration_step_mins = $11,
                 default_duration_mins = $12, pricing_mode = $13, flat_price = $14,
                 per_hour_price = $15, per_person_price = $16, base_price = $17,
                 allow_before = $18, allow_during = $19, allow_after = $20,
                 buffer_before_mins = $21, buffer_after_mins = $22, max_capacity = $23,
                 is_active = $24, updated_at = $25
             WHERE tenant_id = $1 AND product_id = $2 AND id = $3",
        )
        .bind(tenant.as_str())
        .bind(product)
        .bind(id);
        bind_fields(update, &new)
            .bind(now)
            .execute(&mut *w.tx)
            .await?;
        let after = config_in(&mut w.tx, tenant, product, id).await?;
        w.audit(
            actor,
            Change {
                action: "resource_addon_config.updated",
                entity_type: "resource_addon_config",
                entity_id: id.to_string(),
                changes: diff(&before.config, &after.config),
            },
        );
        w.commit(None).await?;
        Ok(after)
    }
}
