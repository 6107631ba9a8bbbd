//! Importing promotions (spec Part A 4.9): every checked row of a file in one transaction.
//!
//! What decides each row (the tenant's sites and products, the codes already taken) is
//! read inside the transaction. Rows are inserted in batches; a batch the database refuses
//! is retried row by row, each under a savepoint, so that one bad row is reported as
//! `database_error` and the others still land. A crash before the commit leaves nothing.

use super::super::audit::Change;
use super::super::write::Write;
use super::super::{Db, Repo};
use super::{code_key, columns_of, name_key};
use crate::{Actor, ImportContext, ImportOutcome, NewPromotion, StoreResult, Timestamp};
use kairos_domain::{TenantId, new_id};
use kairos_store_macros::operations;
use serde_json::json;
use sqlx::QueryBuilder;
use sqlx::types::Json;
use std::collections::HashSet;
use uuid::Uuid;

/// Rows per INSERT (24 binds each: well under both databases' limits).
const BATCH: usize = 400;

pub(crate) async fn context_in(
    conn: &mut <Db as sqlx::Database>::Connection,
    tenant: &TenantId,
) -> StoreResult<ImportContext> {
    let sites: Vec<Uuid> = sqlx::query_scalar("SELECT id FROM sites WHERE tenant_id = $1")
        .bind(tenant.as_str())
        .fetch_all(&mut *conn)
        .await?;
    let products: Vec<Uuid> = sqlx::query_scalar("SELECT id FROM products WHERE tenant_id = $1")
        .bind(tenant.as_str())
        .fetch_all(&mut *conn)
        .await?;
    let codes: Vec<(String, Uuid)> = sqlx::query_as(
        "SELECT code_key, id FROM promotions WHERE tenant_id = $1 AND deleted_at IS NULL",
    )
    .bind(tenant.as_str())
    .fetch_all(&mut *conn)
    .await?;
    Ok(ImportContext {
        sites: sites.into_iter().collect(),
        products: products.into_iter().collect(),
        codes: codes.into_iter().collect(),
    })
}

#[operations]
impl Repo {
    /// What the checks of an import need to know of the tenant (read pool: a preview).
    pub async fn promotion_import_context(&self, tenant: &TenantId) -> StoreResult<ImportContext> {
        let mut conn = self.read.acquire().await?;
        context_in(&mut conn, tenant).await
    }

    /// Creates the promotions of an import in one transaction; one outcome per row, in
    /// order. Codes that exist, or come twice, and unknown sites or products fail their
    /// row only.
    pub async fn import_promotions(
        &self,
        tenant: &TenantId,
        rows: Vec<NewPromotion>,
        actor: &Actor,
        now: Timestamp,
    ) -> StoreResult<Vec<ImportOutcome>> {
        let mut w = self.begin(tenant, now).await?;
        let ctx = context_in(&mut w.tx, tenant).await?;
        let result = import(&mut w, &ctx, &rows).await;
        if let Ok(outcomes) = &result {
            audit_import(&mut w, actor, "promotion", "promotions.imported", outcomes);
        }
        w.finish(result, None).await
    }
}

async fn import(
    w: &mut Write,
    ctx: &ImportContext,
    rows: &[NewPromotion],
) -> StoreResult<Vec<ImportOutcome>> {
    let mut outcomes: Vec<Option<ImportOutcome>> = vec![None; rows.len()];
    let mut seen = HashSet::new();
    let mut todo: Vec<(usize, Uuid)> = Vec::new();
    for (i, p) in rows.iter().enumerate() {
        if let Some(refused) = ctx.refusal(p) {
            outcomes[i] = Some(refused);
        } else if !seen.insert(code_key(&p.code)) {
            outcomes[i] = Some(ImportOutcome::Failed {
                field: "code",
                error_type: "duplicate_code_in_batch",
                message: format!("{} comes earlier in the file", p.code),
            });
        } else {
            todo.push((i, new_id()));
        }
    }
    for chunk in todo.chunks(BATCH) {
        let inserted = {
            let mut sp = sqlx::Acquire::begin(&mut *w.tx).await?;
            match insert(&mut sp, &w.tenant, w.now, rows, chunk).await {
                Ok(ids) => {
                    sp.commit().await?;
                    Some(ids)
                }
                Err(_) => {
                    sp.rollback().await?;
                    None
                }
            }
        };
        match inserted {
            Some(ids) => record(&mut outcomes, chunk, &ids, rows),
            None => {
                // One row at a time, to name the ones the database refuses.
                for one in chunk {
                    let mut sp = sqlx::Acquire::begin(&mut *w.tx).await?;
                    match insert(&mut sp, &w.tenant, w.now, rows, std::slice::from_ref(one)).await {
                        Ok(ids) => {
                            sp.commit().await?;
                            record(&mut outcomes, std::slice::from_ref(one), &ids, rows);
                        }
                        Err(e) => {
                            sp.rollback().await?;
                            outcomes[one.0] = Some(ImportOutcome::Failed {
                                field: "code",
                                error_type: "database_error",
                                message: format!("the database refused the row: {e}"),
                            });
                        }
                    }
                }
            }
        }
    }
    Ok(outcomes
        .into_iter()
        .map(|o| {
            o.unwrap_or(ImportOutcome::Failed {
                field: "code",
                error_type: "unknown_error",
                message: "the row was not processed".to_owned(),
            })
        })
        .collect())
}

/// Marks the rows of `chunk` created when their id came back; a row whose id did not come
/// back lost its code to a promotion created meanwhile.
fn record(
    outcomes: &mut [Option<ImportOutcome>],
    chunk: &[(usize, Uuid)],
    ids: &HashSet<Uuid>,
    rows: &[NewPromotion],
) {
    for (i, id) in chunk {
        outcomes[*i] = Some(if ids.contains(id) {
            ImportOutcome::Created {
                id: *id,
                code: rows[*i].code.trim().to_owned(),
            }
        } else {
            ImportOutcome::Failed {
                field: "code",
                error_type: "code_already_exists",
                message: format!("{} exists already", rows[*i].code),
            }
        });
    }
}

async fn insert(
    tx: &mut sqlx::Transaction<'_, Db>,
    tenant: &TenantId,
    now: Timestamp,
    rows: &[NewPromotion],
    chunk: &[(usize, Uuid)],
) -> Result<HashSet<Uuid>, sqlx::Error> {
    let mut q: QueryBuilder<Db> = QueryBuilder::new(
        "INSERT INTO promotions (tenant_id, id, code, code_key, name, description,
             promotion_type, discount_value, buy_quantity, bundle_size, min_spend,
             max_discount, starts_at, expires_at, is_stackable, usage_limit,
             per_customer_limit, applicable_sites, applicable_products, is_active,
             is_public, created_at, updated_at, name_key) ",
    );
    q.push_values(chunk, |mut b, (i, id)| {
        let p = &rows[*i];
        let c = columns_of(&p.discount);
        b.push_bind(tenant.as_str().to_owned())
            .push_bind(*id)
            .push_bind(p.code.trim().to_owned())
            .push_bind(code_key(&p.code))
            .push_bind(p.name.clone())
            .push_bind(p.description.clone())
            .push_bind(c.promotion_type.as_str())
            .push_bind(c.value)
            .push_bind(c.buy_quantity)
            .push_bind(c.bundle_size)
            .push_bind(p.min_spend)
            .push_bind(c.max_discount)
            .push_bind(p.starts_at)
            .push_bind(p.expires_at)
            .push_bind(p.is_stackable)
            .push_bind(p.usage_limit)
            .push_bind(p.per_customer_limit)
            .push_bind(Json(p.applicable_sites.clone()))
            .push_bind(Json(p.applicable_products.clone()))
            .push_bind(p.is_active)
            .push_bind(p.is_public)
            .push_bind(now)
            .push_bind(now)
            .push_bind(name_key(&p.name));
    });
    q.push(" ON CONFLICT (tenant_id, code_key) WHERE deleted_at IS NULL DO NOTHING RETURNING id");
    let ids: Vec<Uuid> = q.build_query_scalar().fetch_all(&mut **tx).await?;
    Ok(ids.into_iter().collect::<HashSet<_>>())
}

/// The audit row of an import: how many rows came and how many were created.
pub(crate) fn audit_import(
    w: &mut Write,
    actor: &Actor,
    entity_type: &'static str,
    action: &'static str,
    outcomes: &[ImportOutcome],
) {
    let created = outcomes
        .iter()
        .filter(|o| matches!(o, ImportOutcome::Created { .. }))
        .count();
    w.audit(
        actor,
        Change {
            action,
            entity_type,
            entity_id: String::new(),
            changes: json!({"rows": outcomes.len(), "created": created}),
        },
    );
}
