//! Sites: a venue's locations, with time zone, currency and booking policies.

use super::{Change, Repo, diff};
use crate::stored;
use crate::{Actor, CatalogError, NewSite, Site, StoreError, StoreResult, Timestamp};
use kairos_domain::catalog::CancellationPolicy;
use kairos_domain::{TenantId, new_id};
use kairos_store_macros::operations;
use serde_json::json;
use uuid::Uuid;

#[derive(kairos_store_macros::FromRow)]
pub(crate) struct SiteRow {
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
    no_show_detection_minutes: Option<i32>,
    is_active: bool,
    created_at: Timestamp,
    updated_at: Timestamp,
}

impl TryFrom<SiteRow> for Site {
    type Error = StoreError;

    fn try_from(r: SiteRow) -> Result<Self, StoreError> {
        Ok(Site {
            id: r.id,
            name: r.name,
            timezone: r.timezone,
            currency: r.currency,
            locale: r.locale,
            address: r.address,
            contact_email: r.contact_email,
            contact_phone: r.contact_phone,
            hold_ttl_minutes: r.hold_ttl_minutes,
            cancellation_policy: stored::<CancellationPolicy>(
                "cancellation_policy",
                &r.cancellation_policy,
                CancellationPolicy::parse,
            )?,
            no_show_detection_minutes: r.no_show_detection_minutes,
            is_active: r.is_active,
            created_at: r.created_at,
            updated_at: r.updated_at,
        })
    }
}

pub(crate) const SITE_COLUMNS: &str = "id, name, timezone, currency, locale, address, contact_email, \
     contact_phone, hold_ttl_minutes, cancellation_policy, no_show_detection_minutes, is_active, \
     created_at, updated_at";

#[operations]
impl Repo {
    pub async fn create_site(
        &self,
        tenant: &TenantId,
        new: NewSite,
        actor: &Actor,
        now: Timestamp,
    ) -> StoreResult<Site> {
        let mut w = self.begin(tenant, now).await?;
        let id = new_id();
        let row: SiteRow = sqlx::query_as(sql!(
            "INSERT INTO sites (tenant_id, id, name, timezone, currency, locale, address,
                                contact_email, contact_phone, hold_ttl_minutes,
                                cancellation_policy, created_at, updated_at,
                                no_show_detection_minutes)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $12, $13)
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
        .bind(new.cancellation_policy.as_str())
        .bind(now)
        .bind(new.no_show_detection_minutes)
        .fetch_one(&mut *w.tx)
        .await?;
        w.audit(actor, Change {
                action: "site.created",
                entity_type: "site",
                entity_id: id.to_string(),
                changes: json!({"name": new.name, "timezone": new.timezone, "currency": new.currency}),
            });
        w.commit(None).await?;
        row.try_into()
    }

    pub async fn list_sites(&self, tenant: &TenantId) -> StoreResult<Vec<Site>> {
        let rows: Vec<SiteRow> = sqlx::query_as(sql!(
            "SELECT {SITE_COLUMNS} FROM sites WHERE tenant_id = $1 ORDER BY name, id"
        ))
        .bind(tenant.as_str())
        .fetch_all(&self.read)
        .await?;
        rows.into_iter()
            .map(Site::try_from)
            .collect::<Result<_, _>>()
    }

    pub async fn get_site(&self, tenant: &TenantId, id: Uuid) -> StoreResult<Option<Site>> {
        let row: Option<SiteRow> = sqlx::query_as(sql!(
            "SELECT {SITE_COLUMNS} FROM sites WHERE tenant_id = $1 AND id = $2"
        ))
        .bind(tenant.as_str())
        .bind(id)
        .fetch_optional(&self.read)
        .await?;
        row.map(Site::try_from).transpose()
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
    ) -> Result<Site, CatalogError> {
        let mut w = self.begin(tenant, now).await?;
        let before: Site = sqlx::query_as::<_, SiteRow>(sql!(
            "SELECT {SITE_COLUMNS} FROM sites WHERE tenant_id = $1 AND id = $2"
        ))
        .bind(tenant.as_str())
        .bind(id)
        .fetch_optional(&mut *w.tx)
        .await?
        .ok_or(CatalogError::SiteNotFound)?
        .try_into()?;
        let row: SiteRow = sqlx::query_as(sql!(
            "UPDATE sites SET name = $3, timezone = $4, currency = $5, locale = $6, address = $7,
                 contact_email = $8, contact_phone = $9, hold_ttl_minutes = $10,
                 cancellation_policy = $11, is_active = $12, updated_at = $13,
                 no_show_detection_minutes = $14
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
        .bind(new.cancellation_policy.as_str())
        .bind(is_active)
        .bind(now)
        .bind(new.no_show_detection_minutes)
        .fetch_one(&mut *w.tx)
        .await?;
        let after = Site::try_from(row)?;
        w.audit(
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
        );
        w.commit(None).await?;
        Ok(after)
    }
}
