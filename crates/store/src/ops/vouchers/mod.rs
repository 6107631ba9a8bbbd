//! Vouchers: issuing, listing, reading and deactivating (this file), importing
//! (`import.rs`); spending them on holds is in `ops/bookings/reductions/`.

use super::audit::Change;
use super::write::Write;
use super::{Db, Repo, dialect};
use crate::stored;
use crate::{
    Actor, NewVoucher, StoreError, StoreResult, Timestamp, Voucher, VoucherError, VoucherFilter,
    VoucherTransaction,
};
use kairos_domain::vouchers::{TransactionKind, VoucherType, generate_code};
use kairos_domain::{TenantId, new_id};
use kairos_store_macros::operations;
use serde_json::json;
use sqlx::QueryBuilder;
use uuid::Uuid;

mod import;

/// Attempts at a generated code before giving up (a collision is about one in 10^12).
const CODE_ATTEMPTS: usize = 5;

#[derive(kairos_store_macros::FromRow)]
pub(crate) struct VoucherRow {
    id: Uuid,
    code: String,
    voucher_type: String,
    original_value: i64,
    current_balance: i64,
    usage_limit: Option<i32>,
    usage_count: i32,
    expires_at: Option<Timestamp>,
    customer_email: Option<String>,
    customer_id: Option<Uuid>,
    is_active: bool,
    issued_by: Option<String>,
    issued_at: Timestamp,
    updated_at: Timestamp,
}

pub(crate) const VOUCHER_COLUMNS: &str = "id, code, voucher_type, original_value, \
     current_balance, usage_limit, usage_count, expires_at, customer_email, customer_id, \
     is_active, issued_by, issued_at, updated_at";

impl TryFrom<VoucherRow> for Voucher {
    type Error = StoreError;

    fn try_from(r: VoucherRow) -> Result<Self, StoreError> {
        Ok(Voucher {
            id: r.id,
            code: r.code,
            voucher_type: stored::<VoucherType>(
                "voucher_type",
                &r.voucher_type,
                VoucherType::parse,
            )?,
            original_value: r.original_value,
            current_balance: r.current_balance,
            usage_limit: r.usage_limit,
            usage_count: r.usage_count,
            expires_at: r.expires_at,
            customer_email: r.customer_email,
            customer_id: r.customer_id,
            is_active: r.is_active,
            issued_by: r.issued_by,
            issued_at: r.issued_at,
            updated_at: r.updated_at,
        })
    }
}

#[derive(kairos_store_macros::FromRow)]
struct TransactionRow {
    id: Uuid,
    booking_id: Option<Uuid>,
    kind: String,
    amount: i64,
    balance_after: i64,
    created_at: Timestamp,
}

impl TryFrom<TransactionRow> for VoucherTransaction {
    type Error = StoreError;

    fn try_from(r: TransactionRow) -> Result<Self, StoreError> {
        Ok(VoucherTransaction {
            id: r.id,
            booking_id: r.booking_id,
            kind: stored::<TransactionKind>("kind", &r.kind, TransactionKind::parse)?,
            amount: r.amount,
            balance_after: r.balance_after,
            created_at: r.created_at,
        })
    }
}

// Voucher codes are keyed like promotion codes.
pub(crate) use super::promotions::code_key;

fn violates_code(e: &sqlx::Error) -> bool {
    dialect::violates_unique(e, "vouchers_code", "vouchers.tenant_id, vouchers.code_key")
}

fn push_filter(q: &mut QueryBuilder<Db>, f: &VoucherFilter) {
    if let Some(kind) = f.voucher_type {
        q.push(" AND voucher_type = ").push_bind(kind.as_str());
    }
    if let Some(active) = f.is_active {
        q.push(" AND is_active = ").push_bind(active);
    }
    if let Some(search) = &f.search {
        let escaped = search
            .to_ascii_lowercase()
            .replace('\\', "\\\\")
            .replace('%', "\\%")
            .replace('_', "\\_");
        q.push(" AND code_key LIKE ")
            .push_bind(format!("%{escaped}%"))
            .push(" ESCAPE '\\'");
    }
    if let Some(email) = &f.customer_email {
        q.push(" AND customer_email = ")
            .push_bind(email.trim().to_lowercase());
    }
    if let Some(id) = f.customer_id {
        q.push(" AND customer_id = ").push_bind(id);
    }
    if let Some(redeemed) = f.is_redeemed {
        q.push(if redeemed { " AND " } else { " AND NOT " });
        q.push(
            "(current_balance <= 0 OR (usage_limit IS NOT NULL AND usage_count >= usage_limit))",
        );
    }
    if let Some(t) = f.issued_after {
        q.push(" AND issued_at > ").push_bind(t);
    }
    if let Some(t) = f.issued_before {
        q.push(" AND issued_at < ").push_bind(t);
    }
}

/// Issues a voucher with its `issue` transaction inside the write `w`. A code that is
/// not given is generated (retried on the rare collision).
pub(crate) async fn insert_voucher(
    w: &mut Write,
    new: &NewVoucher,
    issued_by: Option<&str>,
) -> Result<Voucher, VoucherError> {
    let id = new_id();
    let tenant = w.tenant.clone();
    let now = w.now;
    let email = new
        .customer_email
        .as_deref()
        .map(|e| e.trim().to_lowercase());
    let attempts = if new.code.is_some() { 1 } else { CODE_ATTEMPTS };
    let mut row: Option<VoucherRow> = None;
    for attempt in 1..=attempts {
        let code = new
            .code
            .as_deref()
            .map(str::trim)
            .map_or_else(|| generate_code(new.voucher_type), str::to_owned);
        // A taken code inserts nothing (and does not abort the transaction): try another.
        let inserted = sqlx::query_as::<_, VoucherRow>(sql!(
            "INSERT INTO vouchers (tenant_id, id, code, code_key, voucher_type,
                     original_value, current_balance, usage_limit, expires_at, customer_email,
                     is_active, issued_by, issued_at, updated_at)
                 SELECT $1, $2, $3, $4, $5, $6, $6, $7, $8, $9, $10, $11, $12, $12
                 WHERE NOT EXISTS (SELECT 1 FROM vouchers WHERE tenant_id = $1 AND code_key = $4)
                 RETURNING {VOUCHER_COLUMNS}"
        ))
        .bind(tenant.as_str())
        .bind(id)
        .bind(&code)
        .bind(code_key(&code))
        .bind(new.voucher_type.as_str())
        .bind(new.original_value)
        .bind(new.usage_limit)
        .bind(new.expires_at)
        .bind(&email)
        .bind(new.is_active)
        .bind(issued_by)
        .bind(now)
        .fetch_optional(&mut *w.tx)
        .await
        .map_err(|e| {
            if violates_code(&e) {
                VoucherError::CodeTaken(code.clone())
            } else {
                e.into()
            }
        })?;
        match inserted {
            Some(r) => {
                row = Some(r);
                break;
            }
            None if attempt == attempts => return Err(VoucherError::CodeTaken(code)),
            None => {}
        }
    }
    let row = row.ok_or_else(|| VoucherError::CodeTaken(String::new()))?;
    sqlx::query(
        "INSERT INTO voucher_transactions (tenant_id, id, voucher_id, booking_id, kind,
                 amount, balance_after, created_at)
             VALUES ($1, $2, $3, NULL, $4, $5, $5, $6)",
    )
    .bind(tenant.as_str())
    .bind(new_id())
    .bind(id)
    .bind(TransactionKind::Issue.as_str())
    .bind(new.original_value)
    .bind(now)
    .execute(&mut *w.tx)
    .await?;
    Ok(Voucher::try_from(row)?)
}

#[operations]
impl Repo {
    /// Issues a voucher with its `issue` transaction. A code that is not given is
    /// generated (retried on the rare collision).
    pub async fn create_voucher(
        &self,
        tenant: &TenantId,
        new: NewVoucher,
        actor: &Actor,
        now: Timestamp,
    ) -> Result<Voucher, VoucherError> {
        let mut w = self.begin(tenant, now).await?;
        let issued_by = actor.name.clone().or_else(|| actor.id.clone());
        let voucher = insert_voucher(&mut w, &new, issued_by.as_deref()).await?;
        let id = voucher.id;
        w.audit(
            actor,
            Change {
                action: "voucher.created",
                entity_type: "voucher",
                entity_id: id.to_string(),
                changes: json!({
                    "code": voucher.code,
                    "type": voucher.voucher_type.as_str(),
                    "originalValue": voucher.original_value,
                    "usageLimit": voucher.usage_limit,
                    "expiresAt": voucher.expires_at,
                    "customerEmail": voucher.customer_email,
                }),
            },
        );
        w.commit(None).await?;
        Ok(voucher)
    }

    /// One page of the tenant's vouchers, newest first, and how many match.
    pub async fn list_vouchers(
        &self,
        tenant: &TenantId,
        filter: VoucherFilter,
    ) -> StoreResult<(Vec<Voucher>, u64)> {
        let mut q = QueryBuilder::<Db>::new("SELECT COUNT(*) FROM vouchers WHERE tenant_id = ");
        q.push_bind(tenant.as_str());
        push_filter(&mut q, &filter);
        let total: i64 = q.build_query_scalar().fetch_one(&self.read).await?;
        let mut q = QueryBuilder::<Db>::new(format!(
            "SELECT {VOUCHER_COLUMNS} FROM vouchers WHERE tenant_id = "
        ));
        q.push_bind(tenant.as_str());
        push_filter(&mut q, &filter);
        q.push(" ORDER BY issued_at DESC, id DESC LIMIT ");
        q.push_bind(i64::from(filter.per_page));
        q.push(" OFFSET ");
        q.push_bind(i64::from(filter.page.saturating_sub(1)) * i64::from(filter.per_page));
        let rows: Vec<VoucherRow> = q.build_query_as().fetch_all(&self.read).await?;
        let items = rows
            .into_iter()
            .map(Voucher::try_from)
            .collect::<StoreResult<_>>()?;
        Ok((items, u64::try_from(total).unwrap_or(0)))
    }

    pub async fn voucher(&self, tenant: &TenantId, id: Uuid) -> Result<Voucher, VoucherError> {
        let row: VoucherRow = sqlx::query_as(sql!(
            "SELECT {VOUCHER_COLUMNS} FROM vouchers WHERE tenant_id = $1 AND id = $2"
        ))
        .bind(tenant.as_str())
        .bind(id)
        .fetch_optional(&self.read)
        .await?
        .ok_or(VoucherError::NotFound)?;
        Ok(row.try_into()?)
    }

    /// The voucher with `code`, any case.
    pub async fn voucher_by_code(
        &self,
        tenant: &TenantId,
        code: &str,
    ) -> Result<Voucher, VoucherError> {
        let row: VoucherRow = sqlx::query_as(sql!(
            "SELECT {VOUCHER_COLUMNS} FROM vouchers WHERE tenant_id = $1 AND code_key = $2"
        ))
        .bind(tenant.as_str())
        .bind(code_key(code))
        .fetch_optional(&self.read)
        .await?
        .ok_or(VoucherError::NotFound)?;
        Ok(row.try_into()?)
    }

    /// A voucher's ledger, oldest first.
    pub async fn voucher_transactions(
        &self,
        tenant: &TenantId,
        id: Uuid,
    ) -> StoreResult<Vec<VoucherTransaction>> {
        let rows: Vec<TransactionRow> = sqlx::query_as(
            "SELECT id, booking_id, kind, amount, balance_after, created_at
             FROM voucher_transactions WHERE tenant_id = $1 AND voucher_id = $2
             ORDER BY created_at, id",
        )
        .bind(tenant.as_str())
        .bind(id)
        .fetch_all(&self.read)
        .await?;
        rows.into_iter().map(VoucherTransaction::try_from).collect()
    }

    /// Switches a voucher off: it can no longer be applied; its balance and ledger stay.
    pub async fn deactivate_voucher(
        &self,
        tenant: &TenantId,
        id: Uuid,
        actor: &Actor,
        now: Timestamp,
    ) -> Result<Voucher, VoucherError> {
        let mut w = self.begin(tenant, now).await?;
        let row: VoucherRow = sqlx::query_as(sql!(
            "UPDATE vouchers SET is_active = FALSE, updated_at = $3
             WHERE tenant_id = $1 AND id = $2
             RETURNING {VOUCHER_COLUMNS}"
        ))
        .bind(tenant.as_str())
        .bind(id)
        .bind(now)
        .fetch_optional(&mut *w.tx)
        .await?
        .ok_or(VoucherError::NotFound)?;
        w.audit(
            actor,
            Change {
                action: "voucher.deactivated",
                entity_type: "voucher",
                entity_id: id.to_string(),
                changes: json!({"isActive": false}),
            },
        );
        w.commit(None).await?;
        Ok(row.try_into()?)
    }
}
