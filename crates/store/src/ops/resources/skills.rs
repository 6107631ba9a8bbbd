//! Staff skills (Part A 4.11): skills, their grants to STAFF resources (a level and an
//! expiry), the skills a product needs, and who is qualified and free for a time range.

use super::super::audit::Change;
use super::super::{Db, Repo, dialect};
use crate::{
    Actor, HeldSkill, QualifiedStaff, Skill, SkillError, SkillGrant, SkillRequirement, StoreResult,
    Timestamp,
};
use kairos_domain::{TenantId, new_id};
use kairos_store_macros::operations;
use serde_json::json;
use sqlx::Transaction;
use uuid::Uuid;

#[derive(kairos_store_macros::FromRow)]
struct SkillRow {
    id: Uuid,
    name: String,
    description: String,
    holders: i64,
    created_at: Timestamp,
    updated_at: Timestamp,
}

impl From<SkillRow> for Skill {
    fn from(r: SkillRow) -> Self {
        Skill {
            id: r.id,
            name: r.name,
            description: r.description,
            holders: r.holders,
            created_at: r.created_at,
            updated_at: r.updated_at,
        }
    }
}

const SELECT: &str = "SELECT k.id, k.name, k.description,
         CAST((SELECT COUNT(*) FROM resource_skills h
               WHERE h.tenant_id = k.tenant_id AND h.skill_id = k.id) AS BIGINT) AS holders,
         k.created_at, k.updated_at
     FROM skills k";

const UNIQUE_NAME: (&str, &str) = ("skills_tenant_id_name_key", "skills.tenant_id, skills.name");

#[derive(kairos_store_macros::FromRow)]
struct HeldRow {
    resource_id: Uuid,
    resource_name: String,
    skill_id: Uuid,
    skill_name: String,
    level: i32,
    expires_at: Option<Timestamp>,
    updated_at: Timestamp,
}

impl From<HeldRow> for HeldSkill {
    fn from(r: HeldRow) -> Self {
        HeldSkill {
            resource_id: r.resource_id,
            resource_name: r.resource_name,
            skill_id: r.skill_id,
            skill_name: r.skill_name,
            level: r.level,
            expires_at: r.expires_at,
            updated_at: r.updated_at,
        }
    }
}

const SELECT_HELD: &str = "SELECT h.resource_id, r.name AS resource_name, h.skill_id,
         k.name AS skill_name, h.level, h.expires_at, h.updated_at
     FROM resource_skills h
     JOIN resources r ON r.tenant_id = h.tenant_id AND r.id = h.resource_id
     JOIN skills k ON k.tenant_id = h.tenant_id AND k.id = h.skill_id";

async fn skill_in(
    tx: &mut Transaction<'static, Db>,
    tenant: &TenantId,
    id: Uuid,
) -> Result<Skill, SkillError> {
    let row: Option<SkillRow> =
        sqlx::query_as(sql!("{SELECT} WHERE k.tenant_id = $1 AND k.id = $2"))
            .bind(tenant.as_str())
            .bind(id)
            .fetch_optional(&mut **tx)
            .await?;
    Ok(row.ok_or(SkillError::SkillNotFound)?.into())
}

fn name_taken(e: sqlx::Error) -> SkillError {
    if dialect::violates_unique(&e, UNIQUE_NAME.0, UNIQUE_NAME.1) {
        SkillError::NameTaken
    } else {
        e.into()
    }
}

#[operations]
impl Repo {
    pub async fn create_skill(
        &self,
        tenant: &TenantId,
        name: String,
        description: String,
        actor: &Actor,
        now: Timestamp,
    ) -> Result<Skill, SkillError> {
        let mut w = self.begin(tenant, now).await?;
        let id = new_id();
        sqlx::query(
            "INSERT INTO skills (tenant_id, id, name, description, created_at, updated_at)
             VALUES ($1, $2, $3, $4, $5, $5)",
        )
        .bind(tenant.as_str())
        .bind(id)
        .bind(&name)
        .bind(&description)
        .bind(now)
        .execute(&mut *w.tx)
        .await
        .map_err(name_taken)?;
        w.audit(
            actor,
            Change {
                action: "skill.created",
                entity_type: "skill",
                entity_id: id.to_string(),
                changes: json!({"name": name, "description": description}),
            },
        );
        let skill = skill_in(&mut w.tx, tenant, id).await?;
        w.commit(None).await?;
        Ok(skill)
    }

    /// The tenant's skills, by name.
    pub async fn list_skills(&self, tenant: &TenantId) -> StoreResult<Vec<Skill>> {
        let rows: Vec<SkillRow> = sqlx::query_as(sql!(
            "{SELECT} WHERE k.tenant_id = $1 ORDER BY k.name, k.id"
        ))
        .bind(tenant.as_str())
        .fetch_all(&self.read)
        .await?;
        Ok(rows.into_iter().map(Skill::from).collect())
    }

    pub async fn skill(&self, tenant: &TenantId, id: Uuid) -> Result<Skill, SkillError> {
        let row: Option<SkillRow> =
            sqlx::query_as(sql!("{SELECT} WHERE k.tenant_id = $1 AND k.id = $2"))
                .bind(tenant.as_str())
                .bind(id)
                .fetch_optional(&self.read)
                .await?;
        Ok(row.ok_or(SkillError::SkillNotFound)?.into())
    }

    pub async fn update_skill(
        &self,
        tenant: &TenantId,
        id: Uuid,
        name: Option<String>,
        description: Option<String>,
        actor: &Actor,
        now: Timestamp,
    ) -> Result<Skill, SkillError> {
        let mut w = self.begin(tenant, now).await?;
        let before = skill_in(&mut w.tx, tenant, id).await?;
        sqlx::query(
            "UPDATE skills SET name = $3, description = $4, updated_at = $5
             WHERE tenant_id = $1 AND id = $2",
        )
        .bind(tenant.as_str())
        .bind(id)
        .bind(name.unwrap_or_else(|| before.name.clone()))
        .bind(description.unwrap_or_else(|| before.description.clone()))
        .bind(now)
        .execute(&mut *w.tx)
        .await
        .map_err(name_taken)?;
        let after = skill_in(&mut w.tx, tenant, id).await?;
        w.audit(
            actor,
            Change {
                action: "skill.updated",
                entity_type: "skill",
                entity_id: id.to_string(),
                changes: json!({"name": {"from": before.name, "to": after.name},
                    "description": {"from": before.description, "to": after.description}}),
            },
        );
        w.commit(None).await?;
        Ok(after)
    }

    /// Deletes a skill with its grants and the product requirements that name it.
    pub async fn delete_skill(
        &self,
        tenant: &TenantId,
        id: Uuid,
        actor: &Actor,
        now: Timestamp,
    ) -> Result<(), SkillError> {
        let mut w = self.begin(tenant, now).await?;
        let skill = skill_in(&mut w.tx, tenant, id).await?;
        for table in ["resource_skills", "product_skill_requirements"] {
            sqlx::query(sql!(
                "DELETE FROM {table} WHERE tenant_id = $1 AND skill_id = $2"
            ))
            .bind(tenant.as_str())
            .bind(id)
            .execute(&mut *w.tx)
            .await?;
        }
        sqlx::query("DELETE FROM skills WHERE tenant_id = $1 AND id = $2")
            .bind(tenant.as_str())
            .bind(id)
            .execute(&mut *w.tx)
            .await?;
        w.audit(
            actor,
            Change {
                action: "skill.deleted",
                entity_type: "skill",
                entity_id: id.to_string(),
                changes: json!({"name": skill.name, "holders": skill.holders}),
            },
        );
        w.commit(None).await?;
        Ok(())
    }

    /// Gives `skill` to every staff member of `grants` (a grant already there takes the
    /// new level and expiry), all or none: each must be a STAFF resource.
    pub async fn grant_skill(
        &self,
        tenant: &TenantId,
        skill: Uuid,
        grants: Vec<SkillGrant>,
        actor: &Actor,
        now: Timestamp,
    ) -> Result<Vec<HeldSkill>, SkillError> {
        let mut w = self.begin(tenant, now).await?;
        skill_in(&mut w.tx, tenant, skill).await?;
        let mut out = Vec::new();
        for g in grants {
            let kind: Option<String> = sqlx::query_scalar(
                "SELECT resource_type FROM resources WHERE tenant_id = $1 AND id = $2",
            )
            .bind(tenant.as_str())
            .bind(g.resource_id)
            .fetch_optional(&mut *w.tx)
            .await?;
            match kind.as_deref() {
                None => {
                    return Err(SkillError::ResourceNotFound {
                        resource_id: g.resource_id,
                    });
                }
                Some("STAFF") => {}
                Some(_) => {
                    return Err(SkillError::NotStaff {
                        resource_id: g.resource_id,
                    });
                }
            }
            sqlx::query(
                "INSERT INTO resource_skills (tenant_id, resource_id, skill_id, level, expires_at,
                     created_at, updated_at)
                 VALUES ($1, $2, $3, $4, $5, $6, $6)
                 ON CONFLICT (tenant_id, resource_id, skill_id)
                 DO UPDATE SET level = excluded.level, expires_at = excluded.expires_at,
                     updated_at = excluded.updated_at",
            )
            .bind(tenant.as_str())
            .bind(g.resource_id)
            .bind(skill)
            .bind(g.level)
            .bind(g.expires_at)
            .bind(now)
            .execute(&mut *w.tx)
            .await?;
            w.audit(
                actor,
                Change {
                    action: "resource.skill_granted",
                    entity_type: "resource",
                    entity_id: g.resource_id.to_string(),
                    changes: json!({"skillId": skill, "level": g.level, "expiresAt": g.expires_at}),
                },
            );
            let row: HeldRow = sqlx::query_as(sql!(
                "{SELECT_HELD} WHERE h.tenant_id = $1 AND h.resource_id = $2 AND h.skill_id = $3"
            ))
            .bind(tenant.as_str())
            .bind(g.resource_id)
            .bind(skill)
            .fetch_one(&mut *w.tx)
            .await?;
            out.push(row.into());
        }
        w.commit(None).await?;
        Ok(out)
    }

    /// Takes a skill from a staff member.
    pub async fn revoke_skill(
        &self,
        tenant: &TenantId,
        resource: Uuid,
        skill: Uuid,
        actor: &Actor,
        now: Timestamp,
    ) -> Result<(), SkillError> {
        let mut w = self.begin(tenant, now).await?;
        let gone = sqlx::query(
            "DELETE FROM resource_skills WHERE tenant_id = $1 AND resource_id = $2 AND skill_id = $3",
        )
        .bind(tenant.as_str())
        .bind(resource)
        .bind(skill)
        .execute(&mut *w.tx)
        .await?;
        if gone.rows_affected() == 0 {
            return Err(SkillError::NotHeld);
        }
        w.audit(
            actor,
            Change {
                action: "resource.skill_revoked",
                entity_type: "resource",
                entity_id: resource.to_string(),
                changes: json!({"skillId": skill}),
            },
        );
        w.commit(None).await?;
        Ok(())
    }

    /// The skills a staff member holds, by name (expired ones included).
    pub async fn held_skills(
        &self,
        tenant: &TenantId,
        resource: Uuid,
    ) -> Result<Vec<HeldSkill>, SkillError> {
        let exists: Option<Uuid> =
            sqlx::query_scalar("SELECT id FROM resources WHERE tenant_id = $1 AND id = $2")
                .bind(tenant.as_str())
                .bind(resource)
                .fetch_optional(&self.read)
                .await?;
        if exists.is_none() {
            return Err(SkillError::ResourceNotFound {
                resource_id: resource,
            });
        }
        let rows: Vec<HeldRow> = sqlx::query_as(sql!(
            "{SELECT_HELD} WHERE h.tenant_id = $1 AND h.resource_id = $2 ORDER BY k.name, k.id"
        ))
        .bind(tenant.as_str())
        .bind(resource)
        .fetch_all(&self.read)
        .await?;
        Ok(rows.into_iter().map(HeldSkill::from).collect())
    }

    /// Grants that expire in `[from, until)`, soonest first.
    pub async fn expiring_skills(
        &self,
        tenant: &TenantId,
        from: Timestamp,
        until: Timestamp,
    ) -> StoreResult<Vec<HeldSkill>> {
        let rows: Vec<HeldRow> = sqlx::query_as(sql!(
            "{SELECT_HELD} WHERE h.tenant_id = $1 AND h.expires_at >= $2 AND h.expires_at < $3
             ORDER BY h.expires_at, r.name, h.resource_id"
        ))
        .bind(tenant.as_str())
        .bind(from)
        .bind(until)
        .fetch_all(&self.read)
        .await?;
        Ok(rows.into_iter().map(HeldSkill::from).collect())
    }

    /// Replaces the skills `product` needs.
    pub async fn set_skill_requirements(
        &self,
        tenant: &TenantId,
        product: Uuid,
        requirements: Vec<(Uuid, i32)>,
        actor: &Actor,
        now: Timestamp,
    ) -> Result<Vec<SkillRequirement>, SkillError> {
        let mut w = self.begin(tenant, now).await?;
        super::product_site(&mut *w.tx, tenant, product)
            .await?
            .ok_or(SkillError::ProductNotFound)?;
        sqlx::query(
            "DELETE FROM product_skill_requirements WHERE tenant_id = $1 AND product_id = $2",
        )
        .bind(tenant.as_str())
        .bind(product)
        .execute(&mut *w.tx)
        .await?;
        for (skill, level) in &requirements {
            skill_in(&mut w.tx, tenant, *skill).await?;
            sqlx::query(
                "INSERT INTO product_skill_requirements (tenant_id, product_id, skill_id,
                     min_level, created_at)
                 VALUES ($1, $2, $3, $4, $5)",
            )
            .bind(tenant.as_str())
            .bind(product)
            .bind(skill)
            .bind(level)
            .bind(now)
            .execute(&mut *w.tx)
            .await?;
        }
        w.audit(
            actor,
            Change {
                action: "product.skill_requirements_set",
                entity_type: "product",
                entity_id: product.to_string(),
                changes: json!({"requirements": requirements
                    .iter()
                    .map(|(s, l)| json!({"skillId": s, "minLevel": l}))
                    .collect::<Vec<_>>()}),
            },
        );
        let out = requirements_in(&mut *w.tx, tenant, product).await?;
        w.commit(None).await?;
        Ok(out)
    }

    /// The skills `product` needs, by name.
    pub async fn skill_requirements(
        &self,
        tenant: &TenantId,
        product: Uuid,
    ) -> Result<Vec<SkillRequirement>, SkillError> {
        super::product_site(&self.read, tenant, product)
            .await?
            .ok_or(SkillError::ProductNotFound)?;
        Ok(requirements_in(&self.read, tenant, product).await?)
    }

    /// Active STAFF resources holding `skill` at `min_level` or above, valid for the
    /// whole of `[from, to)` (no expiry, or one after `to`), by name, each marked free
    /// when none of its live allocations, sessions and blackouts meets the range and it
    /// is within its own hours for all of it.
    pub async fn qualified_staff(
        &self,
        tenant: &TenantId,
        skill: Uuid,
        min_level: i32,
        range: (Timestamp, Timestamp),
    ) -> Result<Vec<QualifiedStaff>, SkillError> {
        let (from, to) = range;
        self.skill(tenant, skill).await?;
        let rows: Vec<(Uuid, String, i32, Option<Timestamp>, i64)> = sqlx::query_as(
            "SELECT r.id, r.name, h.level, h.expires_at,
                    CAST((SELECT COUNT(*) FROM resource_allocations a
                          WHERE a.tenant_id = r.tenant_id AND a.resource_id = r.id
                            AND a.status <> 'RELEASED'
                            AND a.blocked_from < $5 AND a.blocked_until > $4)
                        + (SELECT COUNT(*) FROM session_resources u
                          JOIN slots s ON s.tenant_id = u.tenant_id AND s.id = u.slot_id
                          WHERE u.tenant_id = r.tenant_id AND u.resource_id = r.id
                            AND s.booked > 0
                            AND u.blocked_from < $5 AND u.blocked_until > $4)
                        + (SELECT COUNT(*) FROM resource_blackouts x
                          WHERE x.tenant_id = r.tenant_id AND x.resource_id = r.id
                            AND x.starts_at < $5 AND x.ends_at > $4) AS BIGINT)
             FROM resource_skills h
             JOIN resources r ON r.tenant_id = h.tenant_id AND r.id = h.resource_id
             WHERE h.tenant_id = $1 AND h.skill_id = $2 AND h.level >= $3
               AND r.resource_type = 'STAFF' AND r.is_active
               AND (h.expires_at IS NULL OR h.expires_at >= $5)
             ORDER BY r.name, r.id",
        )
        .bind(tenant.as_str())
        .bind(skill)
        .bind(min_level)
        .bind(from)
        .bind(to)
        .fetch_all(&self.read)
        .await?;
        let mut conn = self.read.acquire().await?;
        let mut staff = Vec::with_capacity(rows.len());
        for (id, name, level, expires_at, busy) in rows {
            // Free of bookings: free unless outside the staff member's own hours.
            let is_free = busy == 0
                && super::allocations::uses(&mut conn, tenant, id, range)
                    .await?
                    .is_empty();
            staff.push(QualifiedStaff {
                resource_id: id,
                name,
                level,
                expires_at,
                is_free,
            });
        }
        Ok(staff)
    }
}

async fn requirements_in<'e, E>(
    db: E,
    tenant: &TenantId,
    product: Uuid,
) -> StoreResult<Vec<SkillRequirement>>
where
    E: sqlx::Executor<'e, Database = Db>,
{
    let rows: Vec<(Uuid, String, i32)> = sqlx::query_as(
        "SELECT q.skill_id, k.name, q.min_level FROM product_skill_requirements q
         JOIN skills k ON k.tenant_id = q.tenant_id AND k.id = q.skill_id
         WHERE q.tenant_id = $1 AND q.product_id = $2 ORDER BY k.name, k.id",
    )
    .bind(tenant.as_str())
    .bind(product)
    .fetch_all(db)
    .await?;
    Ok(rows
        .into_iter()
        .map(|(skill_id, skill_name, min_level)| SkillRequirement {
            skill_id,
            skill_name,
            min_level,
        })
        .collect())
}
