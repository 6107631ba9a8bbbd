//! The mixed-tender result (spec Part B 2.8): a booking paid partly by a voucher (redeemed
//! first, when applied to the hold) and for the rest through the provider, told in one
//! object beside the confirm answer's `payment`.

use super::intents::PaymentAction;
use crate::App;
use crate::error::AppResult;
use kairos_domain::TenantId;
use kairos_domain::payments::credentials::Provider;
use kairos_domain::vouchers::TransactionKind;
use uuid::Uuid;

/// The voucher's part (minor units).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VoucherPayment {
    pub voucher_code: String,
    /// The ledger entry of the redemption.
    pub voucher_transaction_id: Option<Uuid>,
    pub amount_redeemed: i64,
    pub remaining_voucher_balance: i64,
}

/// The provider's part (minor units).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExternalPayment {
    pub provider: Provider,
    pub payment_intent_id: Option<String>,
    pub amount_charged: i64,
    pub requires_action: bool,
    pub client_secret: Option<String>,
}

/// A booking paid by a voucher and a provider together (spec Part B 2.8).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MixedTender {
    pub success: bool,
    /// The voucher's and the provider's parts together (minor units).
    pub total_amount_charged: i64,
    /// The first voucher applied (every one is in the booking's `price.vouchers`).
    pub voucher_payment: VoucherPayment,
    pub external_payment: ExternalPayment,
}

/// The mixed-tender result of a booking whose vouchers paid part and whose provider
/// payment `action` is for the rest; None when no voucher paid.
pub async fn mixed_tender(
    app: &App,
    tenant: &TenantId,
    booking: Uuid,
    action: &PaymentAction,
) -> AppResult<Option<MixedTender>> {
    let Some(b) = app.store.get_booking(tenant, booking).await? else {
        return Ok(None);
    };
    let Some(first) = b.price.vouchers.first() else {
        return Ok(None);
    };
    let voucher = app.store.voucher(tenant, first.voucher_id).await?;
    let redemption = app
        .store
        .voucher_transactions(tenant, first.voucher_id)
        .await?
        .into_iter()
        .rev()
        .find(|t| t.booking_id == Some(booking) && t.kind == TransactionKind::Redeem)
        .map(|t| t.id);
    let redeemed: i64 = b.price.vouchers.iter().map(|v| v.amount).sum();
    Ok(Some(MixedTender {
        success: true,
        total_amount_charged: redeemed + action.amount,
        voucher_payment: VoucherPayment {
            voucher_code: first.code.clone(),
            voucher_transaction_id: redemption,
            amount_redeemed: first.amount,
            remaining_voucher_balance: voucher.current_balance,
        },
        external_payment: ExternalPayment {
            provider: action.provider,
            payment_intent_id: action.payment_intent_id.clone(),
            amount_charged: action.amount,
            requires_action: action.requires_action,
            client_secret: action.client_secret.clone(),
        },
    }))
}

/// The online part of a confirmed booking's payment: what the customer does next and,
/// when vouchers paid part of it, the mixed-tender result; `None` when the booking has
/// no open online payment.
pub async fn start_payment(
    app: &App,
    tenant: &TenantId,
    booking: Uuid,
    (payment_method, manual_capture): (Option<&str>, bool),
    returns: &super::bank::ReturnUrls,
) -> AppResult<Option<(PaymentAction, Option<MixedTender>)>> {
    let Some(action) = super::intents::payment_action(
        app,
        tenant,
        booking,
        payment_method,
        manual_capture,
        returns,
    )
    .await?
    else {
        return Ok(None);
    };
    let mixed = mixed_tender(app, tenant, booking, &action).await?;
    Ok(Some((action, mixed)))
}
