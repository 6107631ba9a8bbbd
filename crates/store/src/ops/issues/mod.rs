//! Customer issues (spec Part B 4.8): logged with their category's priority and due time,
//! updated through their statuses, compensated once (a credit voucher issued in the
//! update's transaction, or a refund of the booking's payment made by the application
//! after it and recorded here).

use super::audit::Change;
use super::vouchers::insert_voucher;
use super::write::Write;
use super::{Repo, dialect};
use crate::{
    Actor, CompensationRefund, Issue, IssueContact, IssueError, IssueFilter, IssuePatch, NewIssue,
    NewVoucher, StoreError, StoreResult, Timestamp, stored,
};
use kairos_domain::issues::{CompensationMethod, IssueCategory, IssuePriority, IssueStatus};
use kairos_domain::vouchers::VoucherType;
use kairos_domain::{TenantId, new_id};
use kairos_store_macros::operations;
use serde_json::json;
use uuid::Uuid;

const COLUMNS: &str = "i.id, i.booking_id, i.category, i.priority, i.status, i.summary, \
     i.description, i.reported_by, i.reported_at, i.contact_name, i.contact_email, \
     i.contact_phone, i.due_at, i.responded_at, i.resolution, i.compensation_amount, \
     i.compensation_method, i.compensation_status, i.compensation_voucher_id, \
     (SELECT v.code FROM vouchers v WHERE v.tenant_id = i.tenant_id \
        AND v.id = i.compensation_voucher_id) AS compensation_voucher_code, \
     i.compensation_refund_id, \
     COALESCE((SELECT b.currency FROM bookings b WHERE b.tenant_id = i.tenant_id \
        AND b.id = i.booking_id), t.currency) AS currency, \
     i.resolved_by, i.resolved_at, i.customer_satisfaction, i.follow_up_required, \
     i.created_by, i.created_at, i.updated_at";

const FROM: &str = "issues i JOIN tenants t ON t.id = i.tenant_id";

#[derive(kairos_store_macros::FromRow)]
struct IssueRow {
    id: Uuid,
    booking_id: Option<Uuid>,
    category: String,
    priority: String,
    status: String,
    summary: String,
    description: Option<String>,
    reported_by: Option<String>,
    reported_at: Timestamp,
    contact_name: Option<String>,
    contact_email: Option<String>,
    contact_phone: Option<String>,
    due_at: Timestamp,
    responded_at: Option<Timestamp>,
    resolution: Option<String>,
    compensation_amount: Option<i64>,
    compensation_method: Option<String>,
    compensation_status: Option<String>,
    compensation_voucher_id: Option<Uuid>,
    compensation_voucher_code: Option<String>,
    compensation_refund_id: Option<Uuid>,
    currency: String,
    resolved_by: Option<String>,
    resolved_at: Option<Timestamp>,
    customer_satisfaction: Option<i32>,
    follow_up_required: bool,
    created_by: String,
    created_at: Timestamp,
    updated_at: Timestamp,
}

impl TryFrom<IssueRow> for Issue {
    type Error = StoreError;

    fn try_from(r: IssueRow) -> Result<Self, StoreError> {
        Ok(Issue {
            id: r.id,
            booking_id: r.booking_id,
            category: stored("issue category", &r.category, IssueCategory::parse)?,
            priority: stored("issue priority", &r.priority, IssuePriority::parse)?,
            status: stored("issue status", &r.status, IssueStatus::parse)?,
            summary: r.summary,
            description: r.description,
            reported_by: r.reported_by,
            reported_at: r.reported_at,
            contact: IssueContact {
                name: r.contact_name,
                email: r.contact_email,
                phone: r.contact_phone,
            },
            due_at: r.due_at,
            responded_at: r.responded_at,
            resolution: r.resolution,
            compensation_amount: r.compensation_amount,
            compensation_method: r
                .compensation_method
                .as_deref()
                .map(|m| stored("compensation method", m, CompensationMethod::parse))
                .transpose()?,
            compensation_status: r.compensation_status,
            compensation_voucher_id: r.compensation_voucher_id,
            compensation_voucher_code: r.compensation_voucher_code,
            compensation_refund_id: r.compensation_refund_id,
            currency: r.currency,
            resolved_by: r.resolved_by,
            resolved_at: r.resolved_at,
            customer_satisfaction: r.customer_satisfaction,
            follow_up_required: r.follow_up_required,
            created_by: r.created_by,
            created_at: r.created_at,
            updated_at: r.updated_at,
        })
    }
}

async fn read(w: &mut Write, id: Uuid, lock: bool) -> Result<Issue, IssueError> {
    let row: Option<IssueRow> = sqlx::query_as(sql!(
        "SELECT {COLUMNS} FROM {FROM} WHERE i.tenant_id = $1 AND i.id = $2{}",
        if lock { dialect::FOR_UPDATE_OF_I } else { "" }
    ))
    .bind(w.tenant.as_str())
    .bind(id)
    .fetch_optional(&mut *w.tx)
    .await?;
    Ok(row.ok_or(IssueError::NotFound)?.try_into()?)
}

/// Where an issue's changes are audited: its booking's history, else the issue's own.
fn audit(
    w: &mut Write,
    actor: &Actor,
    issue: &Issue,
    action: &'static str,
    changes: serde_json::Value,
) {
    let (entity_type, entity_id) = match issue.booking_id {
        Some(b) => ("booking", b.to_string()),
        None => ("issue", issue.id.to_string()),
    };
    let mut changes = changes;
    changes["issueId"] = json!(issue.id);
    w.audit(
        actor,
        Change {
            action,
            entity_type,
            entity_id,
            changes,
        },
    );
}

#[operations]
impl Repo {
    /// Logs an issue: its priority (given, else the category's) and its due time
    /// (reported + the category's response target); contact details not given are the
    /// booking's customer's.
    pub async fn create_issue(
        &self,
        tenant: &TenantId,
        new: NewIssue,
        actor: &Actor,
        now: Timestamp,
    ) -> Result<Issue, IssueError> {
        let mut w = self.begin(tenant, now).await?;
        let mut contact = new.contact.clone();
        if let Some(booking) = new.booking_id {
            let customer: Option<(String, String, String)> = sqlx::query_as(
                "SELECT customer_name, customer_email, customer_phone FROM bookings
                 WHERE tenant_id = $1 AND id = $2",
            )
            .bind(tenant.as_str())
            .bind(booking)
            .fetch_optional(&mut *w.tx)
            .await?;
            let (name, email, phone) = customer.ok_or(IssueError::BookingNotFound)?;
            let given = |s: String| (!s.is_empty()).then_some(s);
            contact.name = contact.name.or(given(name));
            contact.email = contact.email.or(given(email));
            contact.phone = contact.phone.or(given(phone));
        }
        let id = new_id();
        let priority = new.priority.unwrap_or(new.category.priority());
        let by = crate::actor_label(actor);
        sqlx::query(
            "INSERT INTO issues (tenant_id, id, booking_id, category, priority, status, summary,
                 description, reported_by, reported_at, contact_name, contact_email,
                 contact_phone, due_at, created_by, created_at, updated_at)
             VALUES ($1, $2, $3, $4, $5, 'open', $6, $7, $8, $9, $10, $11, $12, $13, $14,
                 $15, $15)",
        )
        .bind(tenant.as_str())
        .bind(id)
        .bind(new.booking_id)
        .bind(new.category.as_str())
        .bind(priority.as_str())
        .bind(&new.summary)
        .bind(&new.description)
        .bind(&new.reported_by)
        .bind(new.reported_at)
        .bind(&contact.name)
        .bind(&contact.email)
        .bind(&contact.phone)
        .bind(new.category.due_at(new.reported_at))
        .bind(&by)
        .bind(now)
        .execute(&mut *w.tx)
        .await?;
        let issue = read(&mut w, id, false).await?;
        audit(
            &mut w,
            actor,
            &issue,
            "issue.created",
            json!({"category": issue.category.as_str(), "priority": issue.priority.as_str(),
                "summary": issue.summary, "dueAt": issue.due_at}),
        );
        w.commit(None).await?;
        Ok(issue)
    }

    pub async fn issue(&self, tenant: &TenantId, id: Uuid) -> StoreResult<Option<Issue>> {
        let row: Option<IssueRow> = sqlx::query_as(sql!(
            "SELECT {COLUMNS} FROM {FROM} WHERE i.tenant_id = $1 AND i.id = $2"
        ))
        .bind(tenant.as_str())
        .bind(id)
        .fetch_optional(&self.read)
        .await?;
        row.map(Issue::try_from).transpose()
    }

    /// The issues of these bookings, newest reported first.
    pub async fn issues_of_bookings(
        &self,
        tenant: &TenantId,
        bookings: Vec<Uuid>,
    ) -> StoreResult<Vec<Issue>> {
        if bookings.is_empty() {
            return Ok(Vec::new());
        }
        let mut q = sqlx::QueryBuilder::<super::Db>::new(format!(
            "SELECT {COLUMNS} FROM {FROM} WHERE i.tenant_id = "
        ));
        q.push_bind(tenant.as_str());
        q.push(" AND i.booking_id IN (");
        let mut sep = q.separated(", ");
        for id in bookings {
            sep.push_bind(id);
        }
        q.push(") ORDER BY i.reported_at DESC, i.id");
        let rows: Vec<IssueRow> = q.build_query_as().fetch_all(&self.read).await?;
        rows.into_iter().map(Issue::try_from).collect()
    }

    /// A page of the tenant's issues, newest reported first, and how many match.
    pub async fn list_issues(
        &self,
        tenant: &TenantId,
        f: &IssueFilter,
    ) -> StoreResult<(Vec<Issue>, i64)> {
        const WHERE: &str = "i.tenant_id = $1 AND ($2 IS NULL OR i.status = $2)
             AND ($3 IS NULL OR i.category = $3) AND ($4 IS NULL OR i.priority = $4)
             AND ($5 IS NULL OR i.booking_id = $5)
             AND ($6 IS NULL OR (i.status = 'open' AND i.responded_at IS NULL AND i.due_at < $6))";
        let rows: Vec<IssueRow> = sqlx::query_as(sql!(
            "SELECT {COLUMNS} FROM {FROM} WHERE {WHERE}
             ORDER BY i.reported_at DESC, i.id LIMIT $7 OFFSET $8"
        ))
        .bind(tenant.as_str())
        .bind(f.status.map(|s| s.as_str()))
        .bind(f.category.map(|c| c.as_str()))
        .bind(f.priority.map(|p| p.as_str()))
        .bind(f.booking_id)
        .bind(f.overdue_at)
        .bind(f.limit)
        .bind(f.offset)
        .fetch_all(&self.read)
        .await?;
        let total: i64 = sqlx::query_scalar(sql!("SELECT COUNT(*) FROM {FROM} WHERE {WHERE}"))
            .bind(tenant.as_str())
            .bind(f.status.map(|s| s.as_str()))
            .bind(f.category.map(|c| c.as_str()))
            .bind(f.priority.map(|p| p.as_str()))
            .bind(f.booking_id)
            .bind(f.overdue_at)
            .fetch_one(&self.read)
            .await?;
        let issues = rows
            .into_iter()
            .map(Issue::try_from)
            .collect::<Result<_, _>>()?;
        Ok((issues, total))
    }

    /// Updates an issue on its locked row. The first move out of `open` is its response;
    /// `resolved` records who and when (default: the actor, now); a closed issue stays
    /// closed. A compensation is given once: a voucher is issued here; a refund is
    /// recorded `pending` and answered for the application to make.
    pub async fn update_issue(
        &self,
        tenant: &TenantId,
        id: Uuid,
        patch: IssuePatch,
        actor: &Actor,
        now: Timestamp,
    ) -> Result<(Issue, Option<CompensationRefund>), IssueError> {
        let mut w = self.begin(tenant, now).await?;
        let before = read(&mut w, id, true).await?;
        let status = patch.status.unwrap_or(before.status);
        if !before.status.may_become(status)
            || (before.status == IssueStatus::Closed
                && (patch.compensation.is_some() || patch.resolution.is_some()))
        {
            return Err(IssueError::Closed);
        }
        let responded_at = before
            .responded_at
            .or((status != IssueStatus::Open).then_some(now));
        let resolving = matches!(status, IssueStatus::Resolved | IssueStatus::Closed);
        let resolved_by = patch
            .resolved_by
            .clone()
            .or(before.resolved_by.clone())
            .or(resolving.then(|| {
                actor
                    .name
                    .clone()
                    .unwrap_or_else(|| crate::actor_label(actor))
            }));
        let resolved_at = patch
            .resolved_at
            .or(before.resolved_at)
            .or(resolving.then_some(now));
        let mut refund = None;
        let mut voucher = None;
        if let Some(c) = patch.compensation {
            // Given once; a refund that failed, or was begun and never answered for ten
            // minutes (the service stopped), may be given again.
            let retry = match before.compensation_status.as_deref() {
                Some("failed") => true,
                Some("pending") => {
                    before.compensation_refund_id.is_none()
                        && now - before.updated_at > chrono::Duration::minutes(10)
                }
                _ => false,
            };
            if before.compensation_method.is_some() && !retry {
                return Err(IssueError::Compensated);
            }
            match c.method {
                CompensationMethod::Voucher => {
                    // Vouchers are in the tenant's currency.
                    let tenant_currency: String =
                        sqlx::query_scalar("SELECT currency FROM tenants WHERE id = $1")
                            .bind(tenant.as_str())
                            .fetch_one(&mut *w.tx)
                            .await?;
                    if tenant_currency != before.currency {
                        return Err(IssueError::VoucherCurrency);
                    }
                    let v = insert_voucher(
                        &mut w,
                        &NewVoucher {
                            code: None,
                            voucher_type: VoucherType::LoyaltyCredit,
                            original_value: c.amount,
                            usage_limit: None,
                            expires_at: None,
                            customer_email: before.contact.email.clone(),
                            is_active: true,
                        },
                        Some(&crate::actor_label(actor)),
                    )
                    .await?;
                    voucher = Some(v.id);
                }
                CompensationMethod::Refund => {
                    let booking = before.booking_id.ok_or(IssueError::NothingToRefund)?;
                    let payment: Option<Uuid> = sqlx::query_scalar(sql!(
                        "SELECT id FROM payments
                         WHERE tenant_id = $1 AND booking_id = $2
                           AND provider IN ('cardpay', 'bankpay') AND status = 'COMPLETED'
                           AND refund_target IS NULL AND amount - refunded_amount >= $3
                         ORDER BY created_at DESC, id LIMIT 1{}",
                        dialect::FOR_UPDATE
                    ))
                    .bind(tenant.as_str())
                    .bind(booking)
                    .bind(c.amount)
                    .fetch_optional(&mut *w.tx)
                    .await?;
                    let payment_id = payment.ok_or(IssueError::NothingToRefund)?;
                    refund = Some(CompensationRefund {
                        payment_id,
                        amount: c.amount,
                    });
                }
            }
        }
        let compensation_status = match (&patch.compensation, voucher) {
            (Some(_), Some(_)) => Some("issued"),
            (Some(_), None) => Some("pending"),
            (None, _) => None,
        };
        sqlx::query(
            "UPDATE issues SET status = $3, responded_at = $4,
                 resolution = COALESCE($5, resolution), resolved_by = $6, resolved_at = $7,
                 customer_satisfaction = COALESCE($8, customer_satisfaction),
                 follow_up_required = COALESCE($9, follow_up_required),
                 compensation_amount = COALESCE($10, compensation_amount),
                 compensation_method = COALESCE($11, compensation_method),
                 compensation_status = COALESCE($12, compensation_status),
                 compensation_voucher_id = CASE WHEN $10 IS NULL THEN compensation_voucher_id
                     ELSE $13 END,
                 compensation_refund_id = CASE WHEN $10 IS NULL THEN compensation_refund_id
                     ELSE NULL END,
                 updated_at = $14
             WHERE tenant_id = $1 AND id = $2",
        )
        .bind(tenant.as_str())
        .bind(id)
        .bind(status.as_str())
        .bind(responded_at)
        .bind(&patch.resolution)
        .bind(&resolved_by)
        .bind(resolved_at)
        .bind(patch.customer_satisfaction)
        .bind(patch.follow_up_required)
        .bind(patch.compensation.map(|c| c.amount))
        .bind(patch.compensation.map(|c| c.method.as_str()))
        .bind(compensation_status)
        .bind(voucher)
        .bind(now)
        .execute(&mut *w.tx)
        .await?;
        let after = read(&mut w, id, false).await?;
        audit(
            &mut w,
            actor,
            &after,
            "issue.updated",
            json!({"status": {"from": before.status.as_str(), "to": after.status.as_str()},
                "resolution": patch.resolution, "compensationAmount": after.compensation_amount,
                "compensationMethod": after.compensation_method.map(|m| m.as_str()),
                "customerSatisfaction": patch.customer_satisfaction}),
        );
        w.commit(None).await?;
        Ok((after, refund))
    }

    /// Records how an issue's refund compensation ended: its refund and `refunded`,
    /// `pending` (still processing at the provider) or `failed` (before staff in the
    /// dead-letter queue).
    pub async fn record_issue_refund(
        &self,
        tenant: &TenantId,
        id: Uuid,
        refund: Option<Uuid>,
        status: &str,
        now: Timestamp,
    ) -> Result<Issue, IssueError> {
        let mut w = self.begin(tenant, now).await?;
        sqlx::query(
            "UPDATE issues SET compensation_refund_id = COALESCE($3, compensation_refund_id),
                 compensation_status = $4, updated_at = $5
             WHERE tenant_id = $1 AND id = $2",
        )
        .bind(tenant.as_str())
        .bind(id)
        .bind(refund)
        .bind(status)
        .bind(now)
        .execute(&mut *w.tx)
        .await?;
        let issue = read(&mut w, id, false).await?;
        w.commit(None).await?;
        Ok(issue)
    }
}
