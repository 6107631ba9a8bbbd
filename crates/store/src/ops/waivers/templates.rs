//! Waiver templates: a version per change of text, earlier versions of the same name and
//! locale deactivated by the new one; deactivation keeps every signature valid.

use super::super::audit::Change;
use super::super::{Repo, dialect};
use super::{TEMPLATE_COLUMNS, TemplateRow};
use crate::{Actor, NewWaiverTemplate, StoreError, Timestamp, WaiverError, WaiverTemplate};
use kairos_domain::waivers::content_hash;
use kairos_domain::{TenantId, new_id};
use kairos_store_macros::operations;
use serde_json::json;
use sqlx::types::Json;
use uuid::Uuid;

/// The version after `versions`: one more than the highest whole number among them.
fn next_version(versions: &[String]) -> String {
    let highest = versions
        .iter()
        .filter_map(|v| v.trim().parse::<u64>().ok())
        .max()
        .unwrap_or(0);
    (highest + 1).to_string()
}

#[operations]
impl Repo {
    /// Creates a template version. The same name, locale and version again with the same
    /// text, products and sites answers the existing template (a retry), as does the text
    /// in use sent again without a version; other text under an existing version is
    /// [`WaiverError::VersionExists`]. Earlier active versions of the name and locale are
    /// deactivated.
    pub async fn create_waiver_template(
        &self,
        tenant: &TenantId,
        new: NewWaiverTemplate,
        actor: &Actor,
        now: Timestamp,
    ) -> Result<(WaiverTemplate, bool), WaiverError> {
        let mut w = self.begin(tenant, now).await?;
        let result = async {
            // One publisher at a time per tenant: two new versions at once would both
            // take the next number, or both stay active.
            sqlx::query(sql!(
                "SELECT 1 FROM tenants WHERE id = $1{}",
                dialect::FOR_UPDATE
            ))
            .bind(tenant.as_str())
            .fetch_optional(&mut *w.tx)
            .await?;
            let hash = content_hash(&new.content);
            let mut products = new.product_ids.clone();
            products.sort();
            let mut sites = new.site_ids.clone();
            sites.sort();
            let same = |t: &WaiverTemplate| {
                let mut p = t.product_ids.clone();
                p.sort();
                let mut s = t.site_ids.clone();
                s.sort();
                t.content_hash == hash && p == products && s == sites
            };
            if new.version.is_none() {
                // The text in use again, without a version: a retry of its publication.
                let current: Option<TemplateRow> = sqlx::query_as(sql!(
                    "SELECT {TEMPLATE_COLUMNS} FROM waiver_templates
                     WHERE tenant_id = $1 AND name = $2 AND locale = $3 AND is_active
                     ORDER BY created_at DESC, id LIMIT 1"
                ))
                .bind(tenant.as_str())
                .bind(&new.name)
                .bind(&new.locale)
                .fetch_optional(&mut *w.tx)
                .await?;
                if let Some(current) = current.map(WaiverTemplate::from).filter(|t| same(t)) {
                    return Ok((current, false));
                }
            }
            let versions: Vec<String> = sqlx::query_scalar(
                "SELECT version FROM waiver_templates
                 WHERE tenant_id = $1 AND name = $2 AND locale = $3",
            )
            .bind(tenant.as_str())
            .bind(&new.name)
            .bind(&new.locale)
            .fetch_all(&mut *w.tx)
            .await?;
            let version = new
                .version
                .clone()
                .unwrap_or_else(|| next_version(&versions));
            if versions.contains(&version) {
                let existing: TemplateRow = sqlx::query_as(sql!(
                    "SELECT {TEMPLATE_COLUMNS} FROM waiver_templates
                     WHERE tenant_id = $1 AND name = $2 AND locale = $3 AND version = $4"
                ))
                .bind(tenant.as_str())
                .bind(&new.name)
                .bind(&new.locale)
                .bind(&version)
                .fetch_one(&mut *w.tx)
                .await?;
                let existing = WaiverTemplate::from(existing);
                return if same(&existing) {
                    Ok((existing, false))
                } else {
                    Err(WaiverError::VersionExists)
                };
            }
            sqlx::query(
                "UPDATE waiver_templates SET is_active = FALSE, deactivated_at = $4
                 WHERE tenant_id = $1 AND name = $2 AND locale = $3 AND is_active",
            )
            .bind(tenant.as_str())
            .bind(&new.name)
            .bind(&new.locale)
            .bind(now)
            .execute(&mut *w.tx)
            .await?;
            let id = new_id();
            let by = crate::actor_label(actor);
            sqlx::query(
                "INSERT INTO waiver_templates (tenant_id, id, name, content, content_hash,
                     version, locale, is_active, product_ids, site_ids, created_by, created_at)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, TRUE, $8, $9, $10, $11)",
            )
            .bind(tenant.as_str())
            .bind(id)
            .bind(&new.name)
            .bind(&new.content)
            .bind(&hash)
            .bind(&version)
            .bind(&new.locale)
            .bind(Json(&new.product_ids))
            .bind(Json(&new.site_ids))
            .bind(&by)
            .bind(now)
            .execute(&mut *w.tx)
            .await?;
            w.audit(
                actor,
                Change {
                    action: "waiver_template_created",
                    entity_type: "waiver_template",
                    entity_id: id.to_string(),
                    changes: json!({"name": new.name, "locale": new.locale,
                        "version": version, "contentHash": hash}),
                },
            );
            Ok((
                WaiverTemplate {
                    id,
                    name: new.name,
                    content: new.content,
                    content_hash: hash,
                    version,
                    locale: new.locale,
                    is_active: true,
                    product_ids: new.product_ids,
                    site_ids: new.site_ids,
                    created_by: by,
                    created_at: now,
                    deactivated_at: None,
                },
                true,
            ))
        }
        .await;
        w.finish(result, None).await
    }

    /// The tenant's templates, newest first: only active ones with `active_only`, only
    /// one locale with `locale`.
    pub async fn waiver_templates(
        &self,
        tenant: &TenantId,
        active_only: bool,
        locale: Option<&str>,
    ) -> Result<Vec<WaiverTemplate>, StoreError> {
        let rows: Vec<TemplateRow> = sqlx::query_as(sql!(
            "SELECT {TEMPLATE_COLUMNS} FROM waiver_templates
             WHERE tenant_id = $1 AND (is_active OR NOT $2) AND ($3 IS NULL OR locale = $3)
             ORDER BY name, locale, created_at DESC, id"
        ))
        .bind(tenant.as_str())
        .bind(active_only)
        .bind(locale)
        .fetch_all(&self.read)
        .await?;
        Ok(rows.into_iter().map(WaiverTemplate::from).collect())
    }

    /// One template by id.
    pub async fn waiver_template(
        &self,
        tenant: &TenantId,
        id: Uuid,
    ) -> Result<Option<WaiverTemplate>, StoreError> {
        let row: Option<TemplateRow> = sqlx::query_as(sql!(
            "SELECT {TEMPLATE_COLUMNS} FROM waiver_templates WHERE tenant_id = $1 AND id = $2"
        ))
        .bind(tenant.as_str())
        .bind(id)
        .fetch_optional(&self.read)
        .await?;
        Ok(row.map(WaiverTemplate::from))
    }

    /// Deactivates a template (again: no change). Its signatures stay valid.
    pub async fn deactivate_waiver_template(
        &self,
        tenant: &TenantId,
        id: Uuid,
        actor: &Actor,
        now: Timestamp,
    ) -> Result<WaiverTemplate, WaiverError> {
        let mut w = self.begin(tenant, now).await?;
        let result = async {
            let changed = sqlx::query(
                "UPDATE waiver_templates SET is_active = FALSE, deactivated_at = $3
                 WHERE tenant_id = $1 AND id = $2 AND is_active",
            )
            .bind(tenant.as_str())
            .bind(id)
            .bind(now)
            .execute(&mut *w.tx)
            .await?;
            let row: Option<TemplateRow> = sqlx::query_as(sql!(
                "SELECT {TEMPLATE_COLUMNS} FROM waiver_templates WHERE tenant_id = $1 AND id = $2"
            ))
            .bind(tenant.as_str())
            .bind(id)
            .fetch_optional(&mut *w.tx)
            .await?;
            let template = WaiverTemplate::from(row.ok_or(WaiverError::WaiverNotFound)?);
            if changed.rows_affected() > 0 {
                w.audit(
                    actor,
                    Change {
                        action: "waiver_template_deactivated",
                        entity_type: "waiver_template",
                        entity_id: id.to_string(),
                        changes: json!({"name": template.name, "version": template.version}),
                    },
                );
            }
            Ok(template)
        }
        .await;
        w.finish(result, None).await
    }
}

#[operations]
impl Repo {
    /// How many years the tenant keeps signed waivers.
    pub async fn waiver_retention_years(&self, tenant: &TenantId) -> Result<i32, StoreError> {
        Ok(
            sqlx::query_scalar("SELECT waiver_retention_years FROM tenants WHERE id = $1")
                .bind(tenant.as_str())
                .fetch_one(&self.read)
                .await?,
        )
    }

    /// Sets how many years the tenant keeps signed waivers (1 to 100).
    pub async fn set_waiver_retention_years(
        &self,
        tenant: &TenantId,
        years: i32,
        actor: &Actor,
        now: Timestamp,
    ) -> Result<i32, StoreError> {
        let mut w = self.begin(tenant, now).await?;
        let before: i32 =
            sqlx::query_scalar("SELECT waiver_retention_years FROM tenants WHERE id = $1")
                .bind(tenant.as_str())
                .fetch_one(&mut *w.tx)
                .await?;
        sqlx::query("UPDATE tenants SET waiver_retention_years = $2 WHERE id = $1")
            .bind(tenant.as_str())
            .bind(years)
            .execute(&mut *w.tx)
            .await?;
        w.audit(
            actor,
            Change {
                action: "waiver_retention_changed",
                entity_type: "tenant",
                entity_id: tenant.as_str().to_owned(),
                changes: json!({"from": before, "to": years}),
            },
        );
        w.commit(None).await?;
        Ok(years)
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_next_version_follows_the_highest_number() {
        assert_eq!(super::next_version(&[]), "1");
        assert_eq!(
            super::next_version(&["1".into(), "3".into(), "2024-a".into()]),
            "4"
        );
    }
}
