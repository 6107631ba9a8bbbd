//! A tenant's message templates: create, list, read, change, delete.

use super::super::audit::Change;
use super::super::{Repo, dialect};
use crate::stored;
use crate::{
    Actor, MessageTemplate, MessageTemplateFilter, MessageTemplatePatch, MessagingError,
    NewMessageTemplate, StoreError, StoreResult, Timestamp,
};
use kairos_domain::messaging::Channel;
use kairos_domain::{TenantId, new_id};
use kairos_store_macros::operations;
use serde_json::json;
use sqlx::QueryBuilder;
use uuid::Uuid;

#[derive(kairos_store_macros::FromRow)]
struct TemplateRow {
    id: Uuid,
    site_id: Option<Uuid>,
    template_key: String,
    language_code: String,
    template_type: String,
    subject_template: String,
    body_template: String,
    created_at: Timestamp,
    updated_at: Timestamp,
}

const COLUMNS: &str = "id, site_id, template_key, language_code, template_type, \
     subject_template, body_template, created_at, updated_at";

impl TryFrom<TemplateRow> for MessageTemplate {
    type Error = StoreError;

    fn try_from(r: TemplateRow) -> Result<Self, StoreError> {
        Ok(MessageTemplate {
            id: r.id,
            site_id: r.site_id,
            template_key: r.template_key,
            language_code: r.language_code,
            template_type: stored("template_type", &r.template_type, Channel::parse)?,
            subject_template: r.subject_template,
            body_template: r.body_template,
            created_at: r.created_at,
            updated_at: r.updated_at,
        })
    }
}

/// The unique key's scope column: '' tenant-wide, else the site id.
fn scope_key(site: Option<Uuid>) -> String {
    site.map(|s| s.to_string()).unwrap_or_default()
}

fn violates_key(e: &sqlx::Error) -> bool {
    dialect::violates_unique(
        e,
        "message_templates_key",
        "message_templates.tenant_id, message_templates.scope_key, \
         message_templates.template_key, message_templates.language_code, \
         message_templates.template_type",
    )
}

fn exists_or(e: sqlx::Error) -> MessagingError {
    if violates_key(&e) {
        MessagingError::TemplateExists
    } else {
        e.into()
    }
}

#[operations]
impl Repo {
    /// Creates a template. Another with the same key, language, type and site is
    /// [`MessagingError::TemplateExists`].
    pub async fn create_message_template(
        &self,
        tenant: &TenantId,
        new: NewMessageTemplate,
        actor: &Actor,
        now: Timestamp,
    ) -> Result<MessageTemplate, MessagingError> {
        let mut w = self.begin(tenant, now).await?;
        if let Some(site) = new.site_id
            && !w.has_site(site).await?
        {
            return Err(MessagingError::SiteNotFound);
        }
        let row: TemplateRow = sqlx::query_as(sql!(
            "INSERT INTO message_templates (tenant_id, id, site_id, scope_key, template_key,
                 language_code, template_type, subject_template, body_template, created_at,
                 updated_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $10)
             RETURNING {COLUMNS}"
        ))
        .bind(tenant.as_str())
        .bind(new_id())
        .bind(new.site_id)
        .bind(scope_key(new.site_id))
        .bind(&new.template_key)
        .bind(&new.language_code)
        .bind(new.template_type.as_str())
        .bind(&new.subject_template)
        .bind(&new.body_template)
        .bind(now)
        .fetch_one(&mut *w.tx)
        .await
        .map_err(exists_or)?;
        let template = MessageTemplate::try_from(row)?;
        w.audit(
            actor,
            Change {
                action: "message_template.created",
                entity_type: "message_template",
                entity_id: template.id.to_string(),
                changes: json!({
                    "templateKey": template.template_key,
                    "languageCode": template.language_code,
                    "templateType": template.template_type.as_str(),
                    "siteId": template.site_id,
                }),
            },
        );
        w.commit(None).await?;
        Ok(template)
    }

    /// The tenant's templates matching `filter`, by key, language, type, site.
    pub async fn list_message_templates(
        &self,
        tenant: &TenantId,
        filter: &MessageTemplateFilter,
    ) -> StoreResult<Vec<MessageTemplate>> {
        let mut q = QueryBuilder::new(format!(
            "SELECT {COLUMNS} FROM message_templates WHERE tenant_id = "
        ));
        q.push_bind(tenant.as_str());
        if let Some(key) = &filter.template_key {
            q.push(" AND template_key = ").push_bind(key.clone());
        }
        if let Some(lang) = &filter.language_code {
            q.push(" AND language_code = ").push_bind(lang.clone());
        }
        if let Some(kind) = filter.template_type {
            q.push(" AND template_type = ").push_bind(kind.as_str());
        }
        if let Some(site) = filter.site_id {
            q.push(" AND (site_id IS NULL OR site_id = ")
                .push_bind(site)
                .push(")");
        }
        q.push(" ORDER BY template_key, language_code, template_type, scope_key, id");
        let rows: Vec<TemplateRow> = q.build_query_as().fetch_all(&self.read).await?;
        rows.into_iter().map(MessageTemplate::try_from).collect()
    }

    pub async fn get_message_template(
        &self,
        tenant: &TenantId,
        id: Uuid,
    ) -> StoreResult<Option<MessageTemplate>> {
        let row: Option<TemplateRow> = sqlx::query_as(sql!(
            "SELECT {COLUMNS} FROM message_templates WHERE tenant_id = $1 AND id = $2"
        ))
        .bind(tenant.as_str())
        .bind(id)
        .fetch_optional(&self.read)
        .await?;
        row.map(MessageTemplate::try_from).transpose()
    }

    /// Changes the given fields of a template.
    pub async fn update_message_template(
        &self,
        tenant: &TenantId,
        id: Uuid,
        patch: MessageTemplatePatch,
        actor: &Actor,
        now: Timestamp,
    ) -> Result<MessageTemplate, MessagingError> {
        let mut w = self.begin(tenant, now).await?;
        let row: Option<TemplateRow> = sqlx::query_as(sql!(
            "SELECT {COLUMNS} FROM message_templates WHERE tenant_id = $1 AND id = $2{}",
            dialect::FOR_UPDATE
        ))
        .bind(tenant.as_str())
        .bind(id)
        .fetch_optional(&mut *w.tx)
        .await?;
        let before = MessageTemplate::try_from(row.ok_or(MessagingError::TemplateNotFound)?)?;
        let site_id = patch.site_id.unwrap_or(before.site_id);
        if let Some(site) = site_id
            && Some(site) != before.site_id
            && !w.has_site(site).await?
        {
            return Err(MessagingError::SiteNotFound);
        }
        let after = MessageTemplate {
            site_id,
            template_key: patch.template_key.unwrap_or(before.template_key.clone()),
            language_code: patch.language_code.unwrap_or(before.language_code.clone()),
            template_type: patch.template_type.unwrap_or(before.template_type),
            subject_template: patch
                .subject_template
                .unwrap_or(before.subject_template.clone()),
            body_template: patch.body_template.unwrap_or(before.body_template.clone()),
            updated_at: now,
            ..before.clone()
        };
        sqlx::query(
            "UPDATE message_templates SET site_id = $3, scope_key = $4, template_key = $5,
                 language_code = $6, template_type = $7, subject_template = $8,
                 body_template = $9, updated_at = $10
             WHERE tenant_id = $1 AND id = $2",
        )
        .bind(tenant.as_str())
        .bind(id)
        .bind(after.site_id)
        .bind(scope_key(after.site_id))
        .bind(&after.template_key)
        .bind(&after.language_code)
        .bind(after.template_type.as_str())
        .bind(&after.subject_template)
        .bind(&after.body_template)
        .bind(now)
        .execute(&mut *w.tx)
        .await
        .map_err(exists_or)?;
        let mut changes = serde_json::Map::new();
        let mut note = |field: &str, from: serde_json::Value, to: serde_json::Value| {
            if from != to {
                changes.insert(field.to_owned(), json!({"from": from, "to": to}));
            }
        };
        note("siteId", json!(before.site_id), json!(after.site_id));
        note(
            "templateKey",
            json!(before.template_key),
            json!(after.template_key),
        );
        note(
            "languageCode",
            json!(before.language_code),
            json!(after.language_code),
        );
        note(
            "templateType",
            json!(before.template_type.as_str()),
            json!(after.template_type.as_str()),
        );
        note(
            "subjectTemplate",
            json!(before.subject_template),
            json!(after.subject_template),
        );
        note(
            "bodyTemplate",
            json!(before.body_template),
            json!(after.body_template),
        );
        w.audit(
            actor,
            Change {
                action: "message_template.updated",
                entity_type: "message_template",
                entity_id: id.to_string(),
                changes: serde_json::Value::Object(changes),
            },
        );
        w.commit(None).await?;
        Ok(after)
    }

    pub async fn delete_message_template(
        &self,
        tenant: &TenantId,
        id: Uuid,
        actor: &Actor,
        now: Timestamp,
    ) -> Result<(), MessagingError> {
        let mut w = self.begin(tenant, now).await?;
        let key: String = sqlx::query_scalar(
            "DELETE FROM message_templates WHERE tenant_id = $1 AND id = $2 RETURNING template_key",
        )
        .bind(tenant.as_str())
        .bind(id)
        .fetch_optional(&mut *w.tx)
        .await?
        .ok_or(MessagingError::TemplateNotFound)?;
        w.audit(
            actor,
            Change {
                action: "message_template.deleted",
                entity_type: "message_template",
                entity_id: id.to_string(),
                changes: json!({"templateKey": key}),
            },
        );
        w.commit(None).await?;
        Ok(())
    }
}
