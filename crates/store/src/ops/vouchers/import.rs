//! Importing vouchers (spec Part A 4.9): every checked row of a file in one transaction.
//!
//! Each voucher is inserted with its ledger: an `issue` entry of its original value and,
//! when it arrives partly spent, one `redeem` entry (with no booking) down to its current
//! balance, so that every balance still equals its ledger. Rows without a code get one
//! generated here, inside the transaction, against the codes taken. Batches the database
//! refuses are retried row by row under savepoints (`database_error` for the bad ones).

use super::super::promotions::audit_import;
use super::super::write::Write;
use super::super::{Db, Repo};
use super::code_key;
use crate::{Actor, ImportContext, ImportOutcome, ImportedVoucher, StoreResult, Timestamp};
use kairos_domain::vouchers::generate_code;
use kairos_domain::{TenantId, new_id};
use kairos_store_macros::operations;
use sqlx::QueryBuilder;
use std::collections::HashSet;
use uuid::Uuid;

/// Rows per INSERT (14 binds each).
const BATCH: usize = 500;

async fn codes_in(
    conn: &mut <Db as sqlx::Database>::Connection,
    tenant: &TenantId,
) -> StoreResult<ImportContext> {
    let codes: Vec<(String, Uuid)> =
        sqlx::query_as("SELECT code_key, id FROM vouchers WHERE tenant_id = $1")
            .bind(tenant.as_str())
            .fetch_all(&mut *conn)
            .await?;
    Ok(ImportContext {
        codes: codes.into_iter().collect(),
        ..ImportContext::default()
    })
}

/// A row ready to insert: its index, id and code.
struct Ready {
    index: usize,
    id: Uuid,
    code: String,
}

#[operations]
impl Repo {
    /// The codes the tenant's vouchers have (read pool: a preview).
    pub async fn voucher_import_context(&self, tenant: &TenantId) -> StoreResult<ImportContext> {
        let mut conn = self.read.acquire().await?;
        codes_in(&mut conn, tenant).await
    }

    /// Creates the vouchers of an import in one transaction; one outcome per row, in order.
    pub async fn import_vouchers(
        &self,
        tenant: &TenantId,
        rows: Vec<ImportedVoucher>,
        actor: &Actor,
        now: Timestamp,
    ) -> StoreResult<Vec<ImportOutcome>> {
        let mut w = self.begin(tenant, now).await?;
        let issued_by = actor.name.clone().or_else(|| actor.id.clone());
        let ctx = codes_in(&mut w.tx, tenant).await?;
        let result = import(&mut w, &ctx, &rows, issued_by.as_deref()).await;
        if let Ok(outcomes) = &result {
            audit_import(&mut w, actor, "voucher", "vouchers.imported", outcomes);
        }
        w.finish(result, None).await
    }
}

async fn import(
    w: &mut Write,
    ctx: &ImportContext,
    rows: &[ImportedVoucher],
    issued_by: Option<&str>,
) -> StoreResult<Vec<ImportOutcome>> {
    let mut outcomes: Vec<Option<ImportOutcome>> = vec![None; rows.len()];
    let mut taken: HashSet<String> = ctx.codes.keys().cloned().collect();
    let mut todo = Vec::new();
    for (index, row) in rows.iter().enumerate() {
        let code = match row.voucher.code.as_deref().map(str::trim) {
            Some(c) => {
                if let Some(id) = ctx.codes.get(&code_key(c)) {
                    outcomes[index] = Some(ImportOutcome::Failed {
                        field: "code",
                        error_type: "code_already_exists",
                        message: format!("{c} exists already (id {id})"),
                    });
                    continue;
                }
                if !taken.insert(code_key(c)) {
                    outcomes[index] = Some(ImportOutcome::Failed {
                        field: "code",
                        error_type: "duplicate_code_in_batch",
                        message: format!("{c} comes earlier in the file"),
                    });
                    continue;
                }
                c.to_owned()
            }
            None => loop {
                let c = generate_code(row.voucher.voucher_type);
                if taken.insert(code_key(&c)) {
                    break c;
                }
            },
        };
        todo.push(Ready {
            index,
            id: new_id(),
            code,
        });
    }
    for chunk in todo.chunks(BATCH) {
        let batch_ok = {
            let mut sp = sqlx::Acquire::begin(&mut *w.tx).await?;
            match insert(&mut sp, &w.tenant, w.now, rows, chunk, issued_by).await {
                Ok(()) => {
                    sp.commit().await?;
                    true
                }
                Err(_) => {
                    sp.rollback().await?;
                    false
                }
            }
        };
        if batch_ok {
            for r in chunk {
                outcomes[r.index] = Some(ImportOutcome::Created {
                    id: r.id,
                    code: r.code.clone(),
                });
            }
            continue;
        }
        for r in chunk {
            let mut sp = sqlx::Acquire::begin(&mut *w.tx).await?;
            let one = std::slice::from_ref(r);
            match insert(&mut sp, &w.tenant, w.now, rows, one, issued_by).await {
                Ok(()) => {
                    sp.commit().await?;
                    outcomes[r.index] = Some(ImportOutcome::Created {
                        id: r.id,
                        code: r.code.clone(),
                    });
                }
                Err(e) => {
                    sp.rollback().await?;
                    outcomes[r.index] = Some(ImportOutcome::Failed {
                        field: "code",
                        error_type: "database_error",
                        message: format!("the database refused the row: {e}"),
                    });
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

async fn insert(
    tx: &mut sqlx::Transaction<'_, Db>,
    tenant: &TenantId,
    now: Timestamp,
    rows: &[ImportedVoucher],
    chunk: &[Ready],
    issued_by: Option<&str>,
) -> Result<(), sqlx::Error> {
    let mut q: QueryBuilder<Db> = QueryBuilder::new(
        "INSERT INTO vouchers (tenant_id, id, code, code_key, voucher_type, original_value,
             current_balance, usage_limit, usage_count, expires_at, customer_email, is_active,
             issued_by, issued_at, updated_at) ",
    );
    q.push_values(chunk, |mut b, r| {
        let v = &rows[r.index];
        b.push_bind(tenant.as_str().to_owned())
            .push_bind(r.id)
            .push_bind(r.code.clone())
            .push_bind(code_key(&r.code))
            .push_bind(v.voucher.voucher_type.as_str())
            .push_bind(v.voucher.original_value)
            .push_bind(v.current_balance)
            .push_bind(v.voucher.usage_limit)
            .push_bind(v.usage_count)
            .push_bind(v.voucher.expires_at)
            .push_bind(v.voucher.customer_email.clone())
            .push_bind(v.voucher.is_active)
            .push_bind(issued_by.map(str::to_owned))
            .push_bind(now)
            .push_bind(now);
    });
    q.build().execute(&mut **tx).await?;
    // The ledger: the issue, and what was spent before the import.
    let mut entries: Vec<(Uuid, &'static str, i64, i64)> = Vec::with_capacity(chunk.len() * 2);
    for r in chunk {
        let v = &rows[r.index];
        let original = v.voucher.original_value;
        entries.push((r.id, "issue", original, original));
        if v.current_balance < original {
            entries.push((
                r.id,
                "redeem",
                v.current_balance - original,
                v.current_balance,
            ));
        }
    }
    for part in entries.chunks(BATCH) {
        let mut q: QueryBuilder<Db> = QueryBuilder::new(
            "INSERT INTO voucher_transactions (tenant_id, id, voucher_id, booking_id, kind,
                 amount, balance_after, created_at) ",
        );
        q.push_values(part, |mut b, (voucher, kind, amount, after)| {
            b.push_bind(tenant.as_str().to_owned())
                .push_bind(new_id())
                .push_bind(*voucher)
                .push_bind(None::<Uuid>)
                .push_bind(*kind)
                .push_bind(*amount)
                .push_bind(*after)
                .push_bind(now);
        });
        q.build().execute(&mut **tx).await?;
    }
    Ok(())
}
