//! A bank refund's callback (the refund was `pending` at the provider): `ok` completes
//! it, `fail` fails it (REFUND_FAILED in the dead-letter queue), `pending`/`delayed` wait.

use super::bank_events::{
    BankAnswer, BankCallback, BankReceipt, amount_of, bad_status, note_other_amount, other_amount,
    processing_failed, refuse, verify,
};
use crate::App;
use crate::error::code;
use http::StatusCode;
use kairos_domain::payments::credentials::Provider;
use kairos_store::{Actor, PendingRefund, RefundResult};

/// A refund's callback (the refund was `pending` at the provider): `ok` completes it,
/// `fail` fails it (REFUND_FAILED in the dead-letter queue), `pending`/`delayed` wait.
/// An `ok` whose `checkout-amount` is not the refund's is not applied (the refund stays
/// processing for staff). Verified with the account of the refunded payment; its transaction must be the
/// refund's or the payment's. A repeat of an outcome recorded before changes nothing and
/// answers `DUPLICATE_EVENT`.
pub(super) async fn receive_refund(
    app: &App,
    cb: &BankCallback,
    refund: PendingRefund,
    transaction: &str,
    status: &str,
) -> BankReceipt {
    let tenant = &refund.tenant;
    let payment = match app.store.online_payment(tenant, refund.payment_id).await {
        Ok(Some(p)) if p.provider == Provider::Bankpay => p,
        Ok(_) => {
            return refuse(
                StatusCode::FORBIDDEN,
                code::INVALID_SIGNATURE,
                "No bank payment has this refund: the callback cannot be verified",
            );
        }
        Err(e) => return BankReceipt::Refused(e.into()),
    };
    // The refund's transaction (not known yet when the answer to the refund was lost:
    // then the signed stamp alone names it), or its payment's.
    let ours = refund
        .provider_refund_id
        .as_deref()
        .is_none_or(|id| id == transaction)
        || payment.provider_payment_id.as_deref() == Some(transaction);
    if !ours {
        return refuse(
            StatusCode::FORBIDDEN,
            code::INVALID_SIGNATURE,
            "checkout-transaction-id is neither this refund's nor its payment's",
        );
    }
    if let Err(refused) = verify(app, cb, tenant, &payment).await {
        return refused;
    }
    let key = format!("refund:{}:{status}", refund.refund_id);
    let amount = match amount_of(cb) {
        Ok(amount) => amount,
        Err(refused) => return refused,
    };
    if status == "ok" && amount != refund.amount {
        // Left processing for staff to check at the provider, never completed on it.
        let what = format!("refund {}", refund.refund_id);
        let about = (payment.booking_id, refund.refund_id);
        if !note_other_amount(app, tenant, &what, amount, refund.amount, about).await {
            return processing_failed(key);
        }
        return other_amount(key, what, amount, refund.amount);
    }
    let result = match status {
        "ok" => RefundResult::Completed {
            provider_refund_id: refund
                .provider_refund_id
                .clone()
                .unwrap_or_else(|| transaction.to_owned()),
        },
        "fail" => RefundResult::Failed {
            message: "the bank provider could not return the money (refund callback: fail)"
                .to_owned(),
        },
        "pending" | "delayed" | "new" => {
            return BankReceipt::Answered(BankAnswer {
                message: format!("refund {} still on its way", refund.refund_id),
                idempotency_key: key,
                processed: false,
                error: None,
            });
        }
        _ => return bad_status(),
    };
    let actor = Actor::system(Provider::Bankpay.as_str());
    match app
        .store
        .finish_refund(tenant, refund.refund_id, result, &actor, app.now())
        .await
    {
        Ok(changed) => BankReceipt::Answered(BankAnswer {
            message: if changed {
                format!(
                    "refund {} {}",
                    refund.refund_id,
                    if status == "ok" {
                        "completed"
                    } else {
                        "failed"
                    }
                )
            } else {
                format!("refund {} was finished before", refund.refund_id)
            },
            idempotency_key: key,
            processed: changed,
            error: (!changed).then(|| code::DUPLICATE_EVENT.to_owned()),
        }),
        Err(e) => {
            tracing::warn!(idempotency_key = %key, error = %e, "bankpay refund callback failed");
            processing_failed(key)
        }
    }
}
