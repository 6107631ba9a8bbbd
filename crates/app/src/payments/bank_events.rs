//! Settling what the bank-redirect provider reports (spec Part B 4.6, 6): one callback,
//! read at the edge into a [`BankCallback`] (its signed parameters, signature and typed
//! fields), verified and processed once.
//!
//! Two forms, both signed with Paytrail's scheme by the merchant secret of the account the
//! payment was made with: as the spec shows it (the signing parameters in headers, the
//! fields in a JSON body; the signature covers the headers' `checkout-*` values and the
//! raw body; `checkout-timestamp` at most 5 minutes old), or as Paytrail calls its
//! callback URLs (every field and `signature` in the query string, over an empty body).
//!
//! A refund's callback is told from a payment's by its signed `checkout-stamp`, the
//! refund's id (`bank_refunds.rs`). A payment's is found by `checkout-transaction-id` (its
//! tenant with it); a bad, missing or stale signature is 403 INVALID_SIGNATURE. Each
//! (transaction, status) is processed once: its idempotency key; a repeat answers the
//! first answer with `DUPLICATE_EVENT`. `ok` settles the payment like the card provider's
//! success (`checkout-amount`, required, must equal the payment's, else nothing is applied
//! or recorded and staff are told), `fail` marks it FAILED, `pending` and `delayed` (a
//! bank transfer on its way) change nothing.

use super::bank::bank_account_of_payment;
use super::card_events::{Receipt, settle};
use crate::App;
use crate::error::{AppError, Failure, code};
use chrono::{DateTime, Utc};
use http::StatusCode;
use kairos_domain::TenantId;
use kairos_domain::payments::credentials::Provider;
use kairos_domain::payments::reports::ProviderReport;
use kairos_store::{OnlinePayment, ProviderEvent};
use serde::{Deserialize, Deserializer};
use serde_json::Value;
use uuid::Uuid;

/// Oldest signed callback accepted (spec Part B 6: 5 minutes).
const MAX_AGE_SECONDS: i64 = 300;

/// A callback as received, in either form.
#[derive(Debug, Clone)]
pub struct BankCallback {
    /// The signed `checkout-*` parameters (headers, or the query's).
    pub signed: Vec<(String, String)>,
    pub signature: String,
    /// The signed body (empty in the query form).
    pub body: String,
    pub fields: CallbackFields,
    /// Called as Paytrail calls callback URLs (no timestamp check: the query carries none
    /// that is fresh on a redirect).
    pub query_form: bool,
}

/// The callback's fields (JSON body or query), as Paytrail names them.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct CallbackFields {
    #[serde(rename = "checkout-transaction-id", default, deserialize_with = "text")]
    pub transaction_id: Option<String>,
    #[serde(rename = "checkout-status", default, deserialize_with = "text")]
    pub status: Option<String>,
    /// The payment's id, or a refund's.
    #[serde(rename = "checkout-stamp", default, deserialize_with = "text")]
    pub stamp: Option<String>,
    /// Minor units, as text.
    #[serde(rename = "checkout-amount", default, deserialize_with = "text")]
    pub amount: Option<String>,
    /// The bank or method the customer chose.
    #[serde(rename = "checkout-provider", default, deserialize_with = "text")]
    pub provider: Option<String>,
}

/// Text or a number as text; `None` for anything else.
fn text<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    Ok(match Value::deserialize(d)? {
        Value::String(s) => Some(s),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    })
}

impl CallbackFields {
    /// The fields of a JSON object (none when it is not one).
    pub fn from_json(body: &str) -> CallbackFields {
        match serde_json::from_str::<Value>(body) {
            Ok(v @ Value::Object(_)) => serde_json::from_value(v).unwrap_or_default(),
            _ => CallbackFields::default(),
        }
    }

    /// The fields of name-value pairs (a query string's; a name given twice counts once,
    /// its first value).
    pub fn from_pairs(pairs: &[(String, String)]) -> CallbackFields {
        let mut object = serde_json::Map::new();
        for (k, v) in pairs {
            object
                .entry(k.clone())
                .or_insert_with(|| Value::String(v.clone()));
        }
        serde_json::from_value(Value::Object(object)).unwrap_or_default()
    }
}

/// A callback's status.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BankStatus {
    Ok,
    Fail,
    /// `pending`, `delayed` or `new`: on its way.
    Waiting,
}

impl BankStatus {
    pub fn parse(raw: &str) -> Option<BankStatus> {
        match raw {
            "ok" => Some(BankStatus::Ok),
            "fail" => Some(BankStatus::Fail),
            "pending" | "delayed" | "new" => Some(BankStatus::Waiting),
            _ => None,
        }
    }
}

/// The callback's answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BankAnswer {
    pub message: String,
    /// `{checkout-transaction-id}:{checkout-status}`: each is processed once.
    pub idempotency_key: String,
    /// Whether the callback changed something.
    pub processed: bool,
    /// `DUPLICATE_EVENT` for a repeat (the first answer is repeated).
    pub error: Option<String>,
}

/// What became of a callback.
#[derive(Debug)]
pub enum BankReceipt {
    /// Processed, or a repeat.
    Answered(BankAnswer),
    /// Not processed: the provider retries it.
    Failed(BankAnswer),
    /// Refused (signature, fields), or the store could not be read.
    Refused(AppError),
}

pub(super) fn refuse(status: StatusCode, code: &'static str, message: &str) -> BankReceipt {
    BankReceipt::Refused(Failure::new(status, code, message).into())
}

pub(super) fn bad_status() -> BankReceipt {
    refuse(
        StatusCode::BAD_REQUEST,
        code::VALIDATION_ERROR,
        "checkout-status must be ok, fail, pending or delayed",
    )
}

/// 500: the callback was not processed; the provider retries it.
pub(super) fn processing_failed(key: String) -> BankReceipt {
    BankReceipt::Failed(BankAnswer {
        message: "processing failed; the provider's retry will process it".to_owned(),
        idempotency_key: key,
        processed: false,
        error: None,
    })
}

/// The callback's `checkout-amount` (minor units, required: what the provider reports
/// is checked against what was asked); 400 when it is missing or not a whole number.
pub(super) fn amount_of(cb: &BankCallback) -> Result<i64, BankReceipt> {
    cb.fields
        .amount
        .as_deref()
        .and_then(|a| a.parse::<i64>().ok())
        .ok_or_else(|| {
            refuse(
                StatusCode::BAD_REQUEST,
                code::VALIDATION_ERROR,
                "checkout-amount is required, in minor units",
            )
        })
}

/// Verifies and processes one bank callback.
pub async fn receive(app: &App, cb: &BankCallback) -> BankReceipt {
    let (Some(transaction), Some(status)) = (
        cb.fields.transaction_id.as_deref(),
        cb.fields.status.as_deref(),
    ) else {
        return refuse(
            StatusCode::BAD_REQUEST,
            code::VALIDATION_ERROR,
            "checkout-transaction-id and checkout-status are required",
        );
    };
    // A refund's callback: its stamp is the refund's id (a payment's is the payment's).
    let refund = match cb
        .fields
        .stamp
        .as_deref()
        .and_then(|s| Uuid::parse_str(s).ok())
    {
        Some(stamp) => match app.store.refund_by_id(stamp).await {
            Ok(found) => found,
            Err(e) => return BankReceipt::Refused(e.into()),
        },
        None => None,
    };
    if let Some(refund) = refund {
        return super::bank_refunds::receive_refund(app, cb, refund, transaction, status).await;
    }
    let found = match app
        .store
        .online_payment_by_provider_id(Provider::Bankpay, transaction)
        .await
    {
        Ok(found) => found,
        Err(e) => return BankReceipt::Refused(e.into()),
    };
    let Some((tenant, payment)) = found else {
        return refuse(
            StatusCode::FORBIDDEN,
            code::INVALID_SIGNATURE,
            "No payment has this transaction: the callback cannot be verified",
        );
    };
    if let Err(refused) = verify(app, cb, &tenant, &payment).await {
        return refused;
    }
    let Some(parsed) = BankStatus::parse(status) else {
        return bad_status();
    };
    let amount = match amount_of(cb) {
        Ok(amount) => amount,
        Err(refused) => return refused,
    };
    let key = format!("{transaction}:{status}");
    if parsed == BankStatus::Ok && amount != payment.amount {
        let what = format!("payment {}", payment.id);
        let about = (payment.booking_id, payment.id);
        if !note_other_amount(app, &tenant, &what, amount, payment.amount, about).await {
            return processing_failed(key);
        }
        return other_amount(key, what, amount, payment.amount);
    }
    let (event_type, report) = match parsed {
        BankStatus::Ok => (
            "payment_intent.succeeded",
            ProviderReport::Succeeded {
                amount: Some(amount),
                currency: None,
            },
        ),
        BankStatus::Fail => (
            "payment_intent.payment_failed",
            ProviderReport::Failed {
                code: "bank_payment_failed".to_owned(),
                message: format!(
                    "the bank payment failed ({})",
                    cb.fields.provider.as_deref().unwrap_or("unknown bank")
                ),
            },
        ),
        BankStatus::Waiting => ("bankpay.pending", ProviderReport::Pending),
    };
    let event = ProviderEvent {
        provider: Provider::Bankpay,
        event_id: key.clone(),
        event_type: event_type.to_owned(),
        payment_intent: Some(transaction.to_owned()),
        payment_id: None,
        report,
    };
    match settle(app, &tenant, &event).await {
        Receipt::Answered(a) => BankReceipt::Answered(BankAnswer {
            message: a.message,
            idempotency_key: key,
            processed: a.processed,
            error: a.error,
        }),
        Receipt::Failed(_) => processing_failed(key),
        Receipt::Refused(e) => BankReceipt::Refused(e),
    }
}

/// Puts a signed `ok` for another amount than was asked for before staff (an
/// AMOUNT_MISMATCH dead letter about (booking, payment or refund)): money may have moved
/// that Kairos does not show. False when it could not be written: the callback is then
/// answered as a processing failure, so the bank sends it again.
pub(super) async fn note_other_amount(
    app: &App,
    tenant: &TenantId,
    what: &str,
    reported: i64,
    asked: i64,
    (booking_id, about): (Option<Uuid>, Uuid),
) -> bool {
    let message = format!(
        "bankpay reported {reported} (minor units) for {what}, which asked for {asked}: not applied; check it in the bank's merchant panel"
    );
    let letter = kairos_store::PaymentLetter {
        kind: "bankpay",
        error_type: "AMOUNT_MISMATCH",
        message: &message,
        booking_id,
        transaction_id: Some(about),
    };
    match app
        .store
        .open_payment_dead_letter(tenant, letter, app.now())
        .await
    {
        Ok(()) => true,
        Err(e) => {
            tracing::error!(error = %e, "the bank's report of another amount could not be put before staff");
            false
        }
    }
}

/// The answer to a signed `ok` that names another amount than was asked for: not
/// applied, and not recorded as the event either, so the provider's right report still
/// settles it (staff see it: [`note_other_amount`]).
pub(super) fn other_amount(key: String, what: String, reported: i64, asked: i64) -> BankReceipt {
    tracing::warn!(idempotency_key = %key, reported, asked,
        "bankpay callback names another amount: not applied");
    BankReceipt::Answered(BankAnswer {
        message: format!("checkout-amount differs from {what} ({asked}): not applied"),
        idempotency_key: key,
        processed: false,
        error: None,
    })
}

/// Checks a callback's signature with the account `payment` was made with, its
/// `checkout-account`, and (header form) its timestamp's age.
pub(super) async fn verify(
    app: &App,
    cb: &BankCallback,
    tenant: &TenantId,
    payment: &OnlinePayment,
) -> Result<(), BankReceipt> {
    let client = match bank_account_of_payment(app, tenant, payment).await {
        Ok(Some(c)) => c,
        Ok(None) => {
            return Err(refuse(
                StatusCode::FORBIDDEN,
                code::INVALID_SIGNATURE,
                "The account of this payment is no longer configured: the callback cannot be verified",
            ));
        }
        Err(e) => return Err(BankReceipt::Refused(e)),
    };
    let signed: Vec<(&str, &str)> = cb
        .signed
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    if !client.verifies(&signed, &cb.body, &cb.signature) {
        return Err(refuse(
            StatusCode::FORBIDDEN,
            code::INVALID_SIGNATURE,
            "Invalid signature",
        ));
    }
    let signed_value = |name: &str| {
        cb.signed
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    };
    if signed_value("checkout-account") != Some(client.merchant_id()) {
        return Err(refuse(
            StatusCode::FORBIDDEN,
            code::INVALID_SIGNATURE,
            "checkout-account is not the merchant of this payment",
        ));
    }
    if !cb.query_form {
        let at = signed_value("checkout-timestamp")
            .and_then(|t| DateTime::parse_from_rfc3339(t).ok())
            .map(|t| t.with_timezone(&Utc));
        let now = app.now();
        let fresh = at.is_some_and(|t| {
            (now - t).num_seconds() <= MAX_AGE_SECONDS && (t - now).num_seconds() <= 60
        });
        if !fresh {
            return Err(refuse(
                StatusCode::FORBIDDEN,
                code::INVALID_SIGNATURE,
                "checkout-timestamp is missing, over 5 minutes old or in the future",
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
        list.iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect()
    }

    #[test]
    fn a_query_field_given_twice_counts_its_first_value() {
        let f = CallbackFields::from_pairs(&pairs(&[
            ("checkout-status", "fail"),
            ("checkout-status", "ok"),
            ("checkout-amount", "4000"),
        ]));
        assert_eq!(f.status.as_deref(), Some("fail"));
        assert_eq!(f.amount.as_deref(), Some("4000"));
        assert_eq!(f.transaction_id, None);
    }

    #[test]
    fn a_json_body_gives_text_and_numbers_and_drops_the_rest() {
        let f = CallbackFields::from_json(
            r#"{"checkout-transaction-id": "t-1", "checkout-amount": 4000,
                "checkout-status": true, "checkout-stamp": null}"#,
        );
        assert_eq!(f.transaction_id.as_deref(), Some("t-1"));
        assert_eq!(f.amount.as_deref(), Some("4000"));
        assert_eq!(f.status, None);
        assert_eq!(f.stamp, None);
        for not_an_object in ["[1]", "\"ok\"", "not json", ""] {
            assert_eq!(CallbackFields::from_json(not_an_object).status, None);
        }
    }

    #[test]
    fn statuses_the_bank_sends() {
        assert_eq!(BankStatus::parse("ok"), Some(BankStatus::Ok));
        assert_eq!(BankStatus::parse("fail"), Some(BankStatus::Fail));
        for waiting in ["pending", "delayed", "new"] {
            assert_eq!(BankStatus::parse(waiting), Some(BankStatus::Waiting));
        }
        assert_eq!(BankStatus::parse("OK"), None);
    }
}
