//! Updating a customer issue, with its compensation: a credit voucher is issued in the
//! update's own transaction; a refund of the booking's payment is made right after it and
//! recorded on the issue (`refunded`, `pending` while the provider has yet to report, or
//! `failed`: the refund's dead letter puts it before staff).

use crate::App;
use crate::error::AppResult;
use crate::payments::refund::refund_payment;
use kairos_domain::TenantId;
use kairos_store::{Actor, Issue, IssuePatch};
use uuid::Uuid;

/// An issue updated, and what staff should know.
#[derive(Debug, Clone)]
pub struct IssueUpdated {
    pub issue: Issue,
    pub warnings: Vec<String>,
}

/// Applies `patch` to the issue; a refund compensation is made after it commits.
pub async fn update_issue(
    app: &App,
    tenant: &TenantId,
    id: Uuid,
    patch: IssuePatch,
    actor: &Actor,
) -> AppResult<IssueUpdated> {
    let (issue, refund) = app
        .store
        .update_issue(tenant, id, patch, actor, app.now())
        .await?;
    let Some(refund) = refund else {
        return Ok(IssueUpdated {
            issue,
            warnings: Vec::new(),
        });
    };
    let reason = format!("compensation for issue: {}", issue.summary);
    let mut warnings = Vec::new();
    let (refund_id, status) = match refund_payment(
        app,
        tenant,
        refund.payment_id,
        Some(refund.amount),
        Some(reason),
        actor,
    )
    .await
    {
        Ok(outcome)
            if outcome
                .refund_breakdown
                .iter()
                .any(|p| p.status == "Processing") =>
        {
            warnings.push(
                "the refund is still processing at the provider; it completes by itself".to_owned(),
            );
            (Some(outcome.refund_id), "pending")
        }
        Ok(outcome)
            if outcome
                .refund_breakdown
                .iter()
                .any(|p| p.status == "Failed") =>
        {
            warnings.push(
                "the provider refused the refund: it is in the dead-letter queue for staff to return the money another way"
                    .to_owned(),
            );
            (Some(outcome.refund_id), "failed")
        }
        Ok(outcome) => (Some(outcome.refund_id), "refunded"),
        Err(e) => {
            warnings.push(format!(
                "the refund was not made ({}); compensate another way or try the refund again from the payment",
                e.message()
            ));
            (None, "failed")
        }
    };
    let issue = app
        .store
        .record_issue_refund(tenant, id, refund_id, status, app.now())
        .await?;
    Ok(IssueUpdated { issue, warnings })
}
