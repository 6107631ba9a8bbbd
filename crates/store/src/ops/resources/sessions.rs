//! What a product's sessions need of the venue (spec Part B 4.12: "a slot is generated
//! only when … resources and capacity are free"): the resources the product names (a
//! room, a track, a pool of kayaks) and, for each skill it requires, a qualified staff
//! member. A session is given them with its first booking, inside that booking's write,
//! and holds them while it has a booking: over the session widened by the product's setup
//! and cleanup, one unit of an EXCLUSIVE or SHARED resource, one unit per person booked
//! of a POOLED one.
//!
//! Lock order: the session's key, then resource rows in id order; the caller takes the
//! slot's seats after.

use super::super::audit::Change;
use super::super::write::Write;
use super::super::{Db, Repo, dialect};
use super::allocations::{Use, lock_resource, uses};
use crate::{
    Actor, BookingError, BookingRefusal, ProductResource, ResourceError, Slot, StoreResult,
    Timestamp,
};
use chrono::Duration;
use kairos_domain::TenantId;
use kairos_domain::resources::{ResourceType, SharedMode, fits, peak_use};
use kairos_store_macros::operations;
use serde_json::json;
use uuid::Uuid;

/// What every session of a product needs.
#[derive(Default)]
pub(crate) struct Needs {
    /// Resources named outright.
    pub resources: Vec<Uuid>,
    /// Skills, each with the lowest level that qualifies.
    pub skills: Vec<(Uuid, i32)>,
}

impl Needs {
    fn is_empty(&self) -> bool {
        self.resources.is_empty() && self.skills.is_empty()
    }
}

/// What `product`'s sessions need, resources and skills in id order.
pub(crate) async fn needs_of<'e, E>(db: E, tenant: &TenantId, product: Uuid) -> StoreResult<Needs>
where
    E: sqlx::Executor<'e, Database = Db>,
{
    let rows: Vec<(String, Uuid, i32)> = sqlx::query_as(
        "SELECT 'R' AS kind, resource_id AS id, 0 AS min_level FROM product_resources
         WHERE tenant_id = $1 AND product_id = $2
         UNION ALL
         SELECT 'S', skill_id, min_level FROM product_skill_requirements
         WHERE tenant_id = $1 AND product_id = $2
         ORDER BY 1, 2",
    )
    .bind(tenant.as_str())
    .bind(product)
    .fetch_all(db)
    .await?;
    let mut needs = Needs::default();
    for (kind, id, level) in rows {
        if kind == "R" {
            needs.resources.push(id);
        } else {
            needs.skills.push((id, level));
        }
    }
    Ok(needs)
}

/// A staff member who could serve a skill: active, at the session's site, at the level.
struct Candidate {
    id: Uuid,
    expires_at: Option<Timestamp>,
    mode: SharedMode,
    capacity: i32,
}

/// Active STAFF resources of `site` holding `skill` at `min_level` or above, the lowest
/// level first (the most qualified are kept for what needs them), then by name.
async fn candidates<'e, E>(
    db: E,
    tenant: &TenantId,
    (skill, min_level): (Uuid, i32),
    site: Uuid,
) -> StoreResult<Vec<Candidate>>
where
    E: sqlx::Executor<'e, Database = Db>,
{
    let rows: Vec<(Uuid, Option<Timestamp>, String, i32)> = sqlx::query_as(
        "SELECT r.id, h.expires_at, r.shared_mode, r.capacity FROM resource_skills h
         JOIN resources r ON r.tenant_id = h.tenant_id AND r.id = h.resource_id
         WHERE h.tenant_id = $1 AND h.skill_id = $2 AND h.level >= $3 AND r.site_id = $4
           AND r.resource_type = 'STAFF' AND r.is_active
         ORDER BY h.level, r.name, r.id",
    )
    .bind(tenant.as_str())
    .bind(skill)
    .bind(min_level)
    .bind(site)
    .fetch_all(db)
    .await?;
    rows.into_iter()
        .map(|(id, expires_at, mode, capacity)| {
            Ok(Candidate {
                id,
                expires_at,
                mode: crate::stored("shared_mode", &mode, SharedMode::parse)?,
                capacity,
            })
        })
        .collect()
}

/// Whether a resource of `mode` and `capacity` can serve the session `slot` (blocked over
/// `range`, `booked` people so far) with `party` more, beside every other use.
fn serves(
    all: &[Use],
    (mode, capacity): (SharedMode, i32),
    slot: Uuid,
    range: (Timestamp, Timestamp),
    (booked, party): (i32, i32),
) -> bool {
    let others: Vec<_> = all
        .iter()
        .filter(|u| u.slot_id != Some(slot))
        .map(Use::triple)
        .collect();
    let units = match mode {
        SharedMode::Pooled => booked + party,
        SharedMode::Exclusive | SharedMode::Shared => 1,
    };
    fits(mode, capacity, peak_use(&others, range.0, range.1), units)
}

/// The session a seat is taken in.
#[derive(kairos_store_macros::FromRow)]
struct Session {
    product_id: Uuid,
    site_id: Uuid,
    starts_at: Timestamp,
    ends_at: Timestamp,
    setup_time: i32,
    cleanup_time: i32,
    needs: bool,
}

impl Session {
    fn blocked(&self) -> (Timestamp, Timestamp) {
        (
            self.starts_at - Duration::minutes(i64::from(self.setup_time)),
            self.ends_at + Duration::minutes(i64::from(self.cleanup_time)),
        )
    }
}

/// Gives session `slot` what its product needs before `party` more people take seats in
/// it, or refuses with [`BookingRefusal::SessionUnavailable`] (the caller's transaction
/// is rolled back). A session that already has a booking keeps what it was given (a
/// POOLED resource is counted again for the larger party); an empty one chooses afresh.
pub(crate) async fn claim(w: &mut Write, slot: Uuid, party: i32) -> Result<(), BookingError> {
    let session: Option<Session> = sqlx::query_as(
        "SELECT s.product_id, s.site_id, s.starts_at, s.ends_at, p.setup_time, p.cleanup_time,
                (EXISTS (SELECT 1 FROM product_resources n
                         WHERE n.tenant_id = s.tenant_id AND n.product_id = s.product_id)
                 OR EXISTS (SELECT 1 FROM product_skill_requirements q
                         WHERE q.tenant_id = s.tenant_id AND q.product_id = s.product_id))
                AS needs
         FROM slots s JOIN products p ON p.tenant_id = s.tenant_id AND p.id = s.product_id
         WHERE s.tenant_id = $1 AND s.id = $2",
    )
    .bind(w.tenant.as_str())
    .bind(slot)
    .fetch_optional(&mut *w.tx)
    .await?;
    let Some(session) = session.filter(|s| s.needs) else {
        return Ok(());
    };
    let key = format!("session:{}:{slot}", w.tenant.as_str());
    dialect::lock_key(&mut w.tx, &key).await?;
    let needs = needs_of(&mut *w.tx, &w.tenant, session.product_id).await?;
    let mut staff = Vec::new();
    for &need in &needs.skills {
        let found = candidates(&mut *w.tx, &w.tenant, need, session.site_id).await?;
        let valid = found
            .into_iter()
            .filter(|c| c.expires_at.is_none_or(|e| e >= session.ends_at));
        staff.push((need.0, valid.collect::<Vec<_>>()));
    }
    let mut ids: Vec<Uuid> = needs.resources.clone();
    ids.extend(staff.iter().flat_map(|(_, c)| c.iter().map(|c| c.id)));
    ids.sort();
    ids.dedup();
    let mut locked = Vec::new();
    for id in ids {
        locked.push((id, lock_resource(&mut w.tx, &w.tenant, id).await?));
    }
    let state = |id: Uuid| {
        locked
            .iter()
            .find(|l| l.0 == id)
            .and_then(|l| l.1)
            .filter(|s| s.2)
            .map(|(mode, capacity, _)| (mode, capacity))
    };
    // Read after the locks: a session given its resources meanwhile shows its booking.
    let booked: i32 =
        sqlx::query_scalar("SELECT booked FROM slots WHERE tenant_id = $1 AND id = $2")
            .bind(w.tenant.as_str())
            .bind(slot)
            .fetch_one(&mut *w.tx)
            .await?;
    let mut given: Vec<(Uuid, Option<Uuid>)> = if booked > 0 {
        sqlx::query_as(
            "SELECT resource_id, skill_id FROM session_resources
             WHERE tenant_id = $1 AND slot_id = $2",
        )
        .bind(w.tenant.as_str())
        .bind(slot)
        .fetch_all(&mut *w.tx)
        .await?
    } else {
        sqlx::query("DELETE FROM session_resources WHERE tenant_id = $1 AND slot_id = $2")
            .bind(w.tenant.as_str())
            .bind(slot)
            .execute(&mut *w.tx)
            .await?;
        Vec::new()
    };
    let range = session.blocked();
    for &r in &needs.resources {
        let refuse = BookingRefusal::SessionUnavailable {
            resource_id: Some(r),
            skill_id: None,
        };
        let Some(resource) = state(r) else {
            return Err(refuse.into());
        };
        let has = given.iter().any(|g| g.0 == r);
        if has && resource.0 != SharedMode::Pooled {
            continue;
        }
        let all = uses(&mut w.tx, &w.tenant, r, range).await?;
        if !serves(&all, resource, slot, range, (booked, party)) {
            return Err(refuse.into());
        }
        if !has {
            give(w, slot, (r, None), range).await?;
            given.push((r, None));
        }
    }
    for (skill, found) in staff {
        if given.iter().any(|g| g.1 == Some(skill)) {
            continue;
        }
        let mut chosen = None;
        for c in found {
            if given.iter().any(|g| g.0 == c.id) || state(c.id).is_none() {
                continue;
            }
            let all = uses(&mut w.tx, &w.tenant, c.id, range).await?;
            if serves(&all, (c.mode, c.capacity), slot, range, (0, 1)) {
                chosen = Some(c.id);
                break;
            }
        }
        let Some(id) = chosen else {
            return Err(BookingRefusal::SessionUnavailable {
                resource_id: None,
                skill_id: Some(skill),
            }
            .into());
        };
        give(w, slot, (id, Some(skill)), range).await?;
        given.push((id, Some(skill)));
    }
    Ok(())
}

async fn give(
    w: &mut Write,
    slot: Uuid,
    (resource, skill): (Uuid, Option<Uuid>),
    (from, until): (Timestamp, Timestamp),
) -> StoreResult<()> {
    sqlx::query(
        "INSERT INTO session_resources (tenant_id, slot_id, resource_id, skill_id,
             blocked_from, blocked_until, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7)",
    )
    .bind(w.tenant.as_str())
    .bind(slot)
    .bind(resource)
    .bind(skill)
    .bind(from)
    .bind(until)
    .bind(w.now)
    .execute(&mut *w.tx)
    .await?;
    Ok(())
}

#[operations]
impl Repo {
    /// For each of `slots` (sessions of `product`, setup and cleanup around them), whether
    /// what the product needs is free for `party` more people: each resource it names, and
    /// a qualified, unexpired, free staff member for each skill (or the session has them
    /// already). The booking's write decides; this is what availability offers.
    pub async fn sessions_served(
        &self,
        tenant: &TenantId,
        product: Uuid,
        buffers: (i32, i32),
        slots: &[Slot],
        party: i32,
    ) -> StoreResult<Vec<bool>> {
        let mut ok = vec![true; slots.len()];
        let mut conn = self.read.acquire().await?;
        let needs = needs_of(&mut *conn, tenant, product).await?;
        let (Some(first), Some(last), false) = (slots.first(), slots.last(), needs.is_empty())
        else {
            return Ok(ok);
        };
        let widen = |s: &Slot| {
            (
                s.starts_at - Duration::minutes(i64::from(buffers.0)),
                s.ends_at + Duration::minutes(i64::from(buffers.1)),
            )
        };
        let range = (widen(first).0, widen(last).1);
        for r in needs.resources {
            let row: Option<(String, i32, bool)> = sqlx::query_as(
                "SELECT shared_mode, capacity, is_active FROM resources
                 WHERE tenant_id = $1 AND id = $2",
            )
            .bind(tenant.as_str())
            .bind(r)
            .fetch_optional(&mut *conn)
            .await?;
            let resource = match row {
                Some((mode, capacity, true)) => Some((
                    crate::stored("shared_mode", &mode, SharedMode::parse)?,
                    capacity,
                )),
                _ => None,
            };
            let all = uses(&mut conn, tenant, r, range).await?;
            for (i, s) in slots.iter().enumerate() {
                ok[i] = ok[i]
                    && resource.is_some_and(|res| {
                        (res.0 != SharedMode::Pooled && all.iter().any(|u| u.slot_id == Some(s.id)))
                            || serves(&all, res, s.id, widen(s), (s.booked, party))
                    });
            }
        }
        let site = first.site_id;
        for need in needs.skills {
            let staffed: Vec<Uuid> = sqlx::query_scalar(
                "SELECT u.slot_id FROM session_resources u
                 JOIN slots s ON s.tenant_id = u.tenant_id AND s.id = u.slot_id
                 WHERE u.tenant_id = $1 AND u.skill_id = $2 AND s.product_id = $3
                   AND s.booked > 0 AND s.starts_at >= $4 AND s.starts_at <= $5",
            )
            .bind(tenant.as_str())
            .bind(need.0)
            .bind(product)
            .bind(first.starts_at)
            .bind(last.starts_at)
            .fetch_all(&mut *conn)
            .await?;
            let mut found = Vec::new();
            for c in candidates(&mut *conn, tenant, need, site).await? {
                let all = uses(&mut conn, tenant, c.id, range).await?;
                found.push((c, all));
            }
            for (i, s) in slots.iter().enumerate() {
                ok[i] = ok[i]
                    && (staffed.contains(&s.id)
                        || found.iter().any(|(c, all)| {
                            c.expires_at.is_none_or(|e| e >= s.ends_at)
                                && serves(all, (c.mode, c.capacity), s.id, widen(s), (0, 1))
                        }));
            }
        }
        Ok(ok)
    }
}

#[derive(kairos_store_macros::FromRow)]
struct ProductResourceRow {
    resource_id: Uuid,
    name: String,
    resource_type: String,
    shared_mode: String,
    is_active: bool,
}

async fn product_resources_in<'e, E>(
    db: E,
    tenant: &TenantId,
    product: Uuid,
) -> StoreResult<Vec<ProductResource>>
where
    E: sqlx::Executor<'e, Database = Db>,
{
    let rows: Vec<ProductResourceRow> = sqlx::query_as(
        "SELECT n.resource_id, r.name, r.resource_type, r.shared_mode, r.is_active
         FROM product_resources n
         JOIN resources r ON r.tenant_id = n.tenant_id AND r.id = n.resource_id
         WHERE n.tenant_id = $1 AND n.product_id = $2 ORDER BY r.name, r.id",
    )
    .bind(tenant.as_str())
    .bind(product)
    .fetch_all(db)
    .await?;
    rows.into_iter()
        .map(|r| {
            Ok(ProductResource {
                resource_id: r.resource_id,
                name: r.name,
                resource_type: crate::stored(
                    "resource_type",
                    &r.resource_type,
                    ResourceType::parse,
                )?,
                shared_mode: crate::stored("shared_mode", &r.shared_mode, SharedMode::parse)?,
                is_active: r.is_active,
            })
        })
        .collect()
}

#[operations]
impl Repo {
    /// Replaces the resources every session of `product` needs; each must be at the
    /// product's site. Sessions that have a booking keep what they were given; the rest
    /// follow the new set from their first booking on.
    pub async fn set_product_resources(
        &self,
        tenant: &TenantId,
        product: Uuid,
        resources: Vec<Uuid>,
        actor: &Actor,
        now: Timestamp,
    ) -> Result<Vec<ProductResource>, ResourceError> {
        let mut w = self.begin(tenant, now).await?;
        let site = super::product_site(&mut *w.tx, tenant, product)
            .await?
            .ok_or(ResourceError::ProductNotFound)?;
        sqlx::query("DELETE FROM product_resources WHERE tenant_id = $1 AND product_id = $2")
            .bind(tenant.as_str())
            .bind(product)
            .execute(&mut *w.tx)
            .await?;
        for &id in &resources {
            let r = super::resource_in(&mut w.tx, tenant, id).await?;
            if r.site_id != site {
                return Err(ResourceError::OtherSite);
            }
            sqlx::query(
                "INSERT INTO product_resources (tenant_id, product_id, resource_id, created_at)
                 VALUES ($1, $2, $3, $4)",
            )
            .bind(tenant.as_str())
            .bind(product)
            .bind(id)
            .bind(now)
            .execute(&mut *w.tx)
            .await?;
        }
        w.audit(
            actor,
            Change {
                action: "product.resources_set",
                entity_type: "product",
                entity_id: product.to_string(),
                changes: json!({ "resourceIds": resources }),
            },
        );
        let out = product_resources_in(&mut *w.tx, tenant, product).await?;
        w.commit(None).await?;
        Ok(out)
    }

    /// The resources every session of `product` needs, by name.
    pub async fn product_resources(
        &self,
        tenant: &TenantId,
        product: Uuid,
    ) -> Result<Vec<ProductResource>, ResourceError> {
        super::product_site(&self.read, tenant, product)
            .await?
            .ok_or(ResourceError::ProductNotFound)?;
        Ok(product_resources_in(&self.read, tenant, product).await?)
    }
}
