//! Refunding a collected card or bank payment: staff's refund, a cancellation's and the
//! automatic refund of late money share this path (spec Part B 2.8, 4.6, 4.11): the refund recorded
//! Processing, asked of the provider the payment was made with, against the same account
//! (cardpay: Stripe's refunds, the refund's id as idempotency key; bankpay: Paytrail's
//! `POST /payments/{transactionId}/refund`, the refund's id as `refundStamp`), then
//! finished: Completed, or Failed with a REFUND_FAILED dead letter. A bank refund the
//! provider answers `pending` stays Processing until its callback
//! (`bank_events.rs`).

use super::accounts::account_of_payment;
use super::bank::bank_account_of_payment;
use super::providers::ProviderError;
use super::providers::bank::{NewBankRefund, Urls};
use crate::App;
use crate::error::{AppResult, Failure, code};
use http::StatusCode;
use kairos_domain::TenantId;
use kairos_domain::payments::credentials::Provider;
use kairos_store::{RefundResult, RefundStarted};
use uuid::Uuid;

/// One payment's part of a refund (spec Part B 2.8).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RefundPart {
    pub payment_method: String,
    /// Minor units the payment collected.
    pub original_amount: i64,
    pub refund_amount: i64,
    pub provider_refund_id: Option<String>,
    /// For a voucher payment: its balance after the refund.
    pub voucher_new_balance: Option<i64>,
    /// The refund status of this part (spec Part B 3.5): `Completed`; `Processing` while
    /// the bank provider has yet to report (its callback finishes it); `Failed` when the
    /// provider refused (a REFUND_FAILED dead letter asks staff to act).
    pub status: String,
}

/// A refund's result (spec Part B 2.8; minor units).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RefundOutcome {
    pub success: bool,
    pub refund_id: Uuid,
    pub total_refund_amount: i64,
    pub fee_deducted: i64,
    pub net_refund_amount: i64,
    pub refund_breakdown: Vec<RefundPart>,
}

/// What the provider said to a refund: its id there, and whether it is still on its way.
struct Asked {
    provider_refund_id: String,
    pending: bool,
}

fn not_configured(message: &str) -> ProviderError {
    ProviderError::Refused {
        status: 0,
        code: "not_configured".into(),
        message: message.into(),
    }
}

/// Asks the card provider account that took the payment to refund.
async fn ask_cardpay(
    app: &App,
    tenant: &TenantId,
    started: &RefundStarted,
) -> Result<Asked, ProviderError> {
    let account = account_of_payment(app, tenant, &started.payment)
        .await
        .map_err(|e| ProviderError::Unavailable(e.message()))?;
    let Some(account) = account else {
        return Err(not_configured(
            "the payment's cardpay account is no longer configured",
        ));
    };
    let intent = started
        .payment
        .provider_payment_id
        .clone()
        .unwrap_or_default();
    let r = account
        .cardpay
        .refund(
            &intent,
            started.amount,
            &format!("kairos-refund-{}", started.refund_id),
        )
        .await?;
    tracing::info!(refund_id = %started.refund_id, "card refund completed");
    Ok(Asked {
        provider_refund_id: r.id,
        pending: false,
    })
}

/// Asks the bank provider account that took the payment to refund; its callback URLs
/// are the bank callback's (the refund is told apart by its `checkout-stamp`, the
/// refund's id).
async fn ask_bankpay(
    app: &App,
    tenant: &TenantId,
    started: &RefundStarted,
) -> Result<Asked, ProviderError> {
    let account = bank_account_of_payment(app, tenant, &started.payment)
        .await
        .map_err(|e| ProviderError::Unavailable(e.message()))?;
    let Some(client) = account else {
        return Err(not_configured(
            "the payment's bankpay account is no longer configured",
        ));
    };
    let Some(public) = app.payments.public_url.clone() else {
        return Err(not_configured(
            "bank refunds need the service's public address (KAIROS_PUBLIC_URL) for the provider's callback",
        ));
    };
    let callback = format!("{public}/webhooks/bankpay/callback");
    let transaction = started
        .payment
        .provider_payment_id
        .clone()
        .unwrap_or_default();
    let answer = client
        .refund(
            &transaction,
            &NewBankRefund {
                amount: started.amount,
                refund_stamp: started.refund_id.to_string(),
                refund_reference: started.payment.id.to_string(),
                callback_urls: Urls {
                    success: callback.clone(),
                    cancel: callback,
                },
            },
        )
        .await?;
    match answer.status.as_str() {
        "ok" | "pending" => Ok(Asked {
            provider_refund_id: answer.transaction_id,
            pending: answer.status == "pending",
        }),
        other => Err(ProviderError::Refused {
            status: 201,
            code: other.to_owned(),
            message: format!(
                "the bank provider refused the refund ({})",
                answer.provider.as_deref().unwrap_or("its payment method")
            ),
        }),
    }
}

/// Refunds `amount` (default: all that is left) of a collected card or bank payment at
/// its provider, against the account that took it: staff's refund, a cancelled booking's
/// and the automatic refund of money that arrived for a closed booking.
pub async fn refund_payment(
    app: &App,
    tenant: &TenantId,
    payment: Uuid,
    amount: Option<i64>,
    reason: Option<String>,
    actor: &kairos_store::Actor,
) -> AppResult<RefundOutcome> {
    let started = app
        .store
        .begin_refund(tenant, payment, amount, reason, actor, app.now())
        .await?;
    ask_and_finish(app, tenant, started, actor).await
}

/// Refunds what a cancellation still owes from `payment` (its refund target minus what it
/// has refunded, decided on the locked payment): the cancellation's own request and the
/// owed-refunds job call this, so neither refunds what the other did. None when nothing
/// is owed any more.
pub async fn refund_owed(
    app: &App,
    tenant: &TenantId,
    payment: Uuid,
    reason: Option<String>,
    actor: &kairos_store::Actor,
) -> AppResult<Option<RefundOutcome>> {
    let started = match app
        .store
        .begin_owed_refund(tenant, payment, reason, actor, app.now())
        .await
    {
        Ok(started) => started,
        // Refunded meanwhile (by the other caller).
        Err(kairos_store::PaymentsError::NothingOwed) => return Ok(None),
        Err(e) => return Err(e.into()),
    };
    ask_and_finish(app, tenant, started, actor).await.map(Some)
}

/// Asks the provider for a refund begun, and records its answer.
async fn ask_and_finish(
    app: &App,
    tenant: &TenantId,
    started: RefundStarted,
    actor: &kairos_store::Actor,
) -> AppResult<RefundOutcome> {
    let provider = started.payment.provider;
    let asked = match provider {
        // Asked before (its answer `pending`, or lost): never asked twice; its callback
        // finishes it.
        Provider::Bankpay if started.resumed => Ok(Asked {
            provider_refund_id: started.provider_refund_id.clone().unwrap_or_default(),
            pending: true,
        }),
        Provider::Bankpay => ask_bankpay(app, tenant, &started).await,
        Provider::Cardpay => ask_cardpay(app, tenant, &started).await,
    };
    let (provider_refund_id, status) = match asked {
        Ok(Asked {
            provider_refund_id,
            pending: true,
        }) => {
            if !provider_refund_id.is_empty() {
                app.store
                    .note_refund_pending(tenant, started.refund_id, &provider_refund_id, app.now())
                    .await?;
            }
            tracing::info!(refund_id = %started.refund_id, "bank refund pending at the provider");
            (provider_refund_id, "Processing".to_owned())
        }
        Ok(Asked {
            provider_refund_id, ..
        }) => {
            let changed = app
                .store
                .finish_refund(
                    tenant,
                    started.refund_id,
                    RefundResult::Completed {
                        provider_refund_id: provider_refund_id.clone(),
                    },
                    actor,
                    app.now(),
                )
                .await?;
            // Finished meanwhile by another path (a callback): report what it recorded.
            let status = if changed {
                "Completed".to_owned()
            } else {
                app.store
                    .refund_by_id(started.refund_id)
                    .await?
                    .map_or_else(|| "Completed".to_owned(), |r| r.status)
            };
            (provider_refund_id, status)
        }
        Err(e @ ProviderError::Unavailable(_)) => {
            // Not known whether the provider refunded: the refund stays Processing. The
            // same request again asks the card provider with the same idempotency key; a
            // bank refund is not asked twice: the bank's callback settles it.
            let next = match provider {
                Provider::Cardpay => "send the same request again to finish it",
                Provider::Bankpay => {
                    "the bank's callback settles it (asking again refunds nothing twice); if none comes, check the bank's merchant panel"
                }
            };
            return Err(Failure::new(
                StatusCode::BAD_GATEWAY,
                code::PROVIDER_ERROR,
                format!(
                    "{} did not answer the refund ({e}); {next}",
                    provider.as_str()
                ),
            )
            .into());
        }
        Err(e) => {
            app.store
                .finish_refund(
                    tenant,
                    started.refund_id,
                    RefundResult::Failed {
                        message: e.to_string(),
                    },
                    actor,
                    app.now(),
                )
                .await?;
            return Err(Failure::new(
                StatusCode::INTERNAL_SERVER_ERROR,
                code::REFUND_FAILED,
                format!(
                    "The refund failed at {} ({e}); it waits in the dead-letter queue for staff to return the money another way",
                    provider.as_str()
                ),
            ).into());
        }
    };
    Ok(RefundOutcome {
        success: true,
        refund_id: started.refund_id,
        total_refund_amount: started.amount,
        fee_deducted: 0,
        net_refund_amount: started.amount,
        refund_breakdown: vec![RefundPart {
            payment_method: provider.as_str().to_owned(),
            original_amount: started.collected,
            refund_amount: started.amount,
            provider_refund_id: Some(provider_refund_id).filter(|id| !id.is_empty()),
            voucher_new_balance: None,
            status,
        }],
    })
}
