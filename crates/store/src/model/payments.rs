//! Payments: provider credentials, payments through providers, provider events.

use super::Timestamp;
use kairos_domain::payments::credentials::Provider;
use uuid::Uuid;

/// The payments area's failures.
#[derive(Debug, thiserror::Error)]
pub enum PaymentsError {
    #[error("no such site")]
    SiteNotFound,
    #[error("no {0} credentials to change")]
    CredentialsNotFound(Provider),
    #[error("payment not found")]
    PaymentNotFound,
    /// The payment is not in a status the action applies to.
    #[error("the payment is {0}")]
    PaymentState(kairos_domain::payments::PaymentStatus),
    /// A gift card purchase's payment whose voucher was used (balance, original value):
    /// refunding it would take back what was spent.
    #[error("the gift card was used ({0} of {1} left)")]
    GiftCardUsed(i64, i64),
    /// A gift card purchase's payment is refunded whole (its voucher withdrawn), not in part.
    #[error("a gift card purchase is refunded in full")]
    GiftCardWhole,
    /// A booking group's payment is refunded through its bookings' shares.
    #[error("a group's payment is refunded booking by booking")]
    GroupPayment,
    /// More than is left to refund (minor units left).
    #[error("at most {0} can be refunded")]
    RefundTooLarge(i64),
    /// Another request is asking the provider about this payment's refund right now.
    #[error("the payment's refund is being asked of its provider")]
    RefundInProgress,
    /// A cancellation's refund asked for when nothing is owed any more (refunded meanwhile).
    #[error("nothing is owed from the payment")]
    NothingOwed,
    /// New credentials without a secret their provider needs (the field's name).
    #[error("{0} is required for new credentials")]
    Missing(&'static str),
    #[error(transparent)]
    Store(#[from] crate::StoreError),
}

crate::store_error_from_sqlx!(PaymentsError);

/// Provider credentials to store; the secrets are sealed already (the store never sees
/// them in the clear).
#[derive(Debug, Clone)]
pub struct CredentialsInput {
    pub provider: Provider,
    /// None: tenant-wide.
    pub site_id: Option<Uuid>,
    /// Sealed; None keeps the stored one (an update that changes other fields).
    pub secret_key: Option<String>,
    /// Sealed (cardpay); None keeps the stored one.
    pub webhook_secret: Option<String>,
    /// bankpay's merchant id; None keeps the stored one.
    pub merchant_id: Option<String>,
    /// cardpay's publishable key (not a secret); None keeps the stored one.
    pub publishable_key: Option<String>,
    pub sandbox: bool,
    pub enabled: bool,
}

/// A tenant's cancellation fee; `updated_at` None: never set (time-based).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RefundPolicy {
    pub rule: kairos_domain::payments::refund_policy::FeeRule,
    pub updated_at: Option<Timestamp>,
}

/// Stored provider credentials (secrets sealed).
#[derive(Debug, Clone)]
pub struct StoredCredentials {
    pub provider: Provider,
    pub site_id: Option<Uuid>,
    pub secret_key: String,
    pub webhook_secret: Option<String>,
    pub merchant_id: Option<String>,
    /// cardpay's publishable key, for the provider's card element in the browser.
    pub publishable_key: Option<String>,
    pub sandbox: bool,
    pub enabled: bool,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
}

/// A payment through a provider, as the payment engine sees it.
#[derive(Debug, Clone)]
pub struct OnlinePayment {
    pub id: Uuid,
    pub booking_id: Option<Uuid>,
    /// The gift card purchase it pays (then `booking_id` is None).
    pub gift_card_purchase_id: Option<Uuid>,
    /// The booking's site, or the gift card's (whose credentials come first).
    pub site_id: Option<Uuid>,
    /// Minor units.
    pub amount: i64,
    pub currency: String,
    pub provider: Provider,
    pub provider_payment_id: Option<String>,
    pub status: kairos_domain::payments::PaymentStatus,
    pub credential_source: Option<kairos_domain::payments::credentials::CredentialSource>,
    pub credential_site_id: Option<Uuid>,
    /// bankpay: the provider's page where the customer pays.
    pub redirect_url: Option<String>,
    pub created_at: Timestamp,
    /// The fee this payment charges (an off-session charge; then `booking_id` is None).
    pub fee_id: Option<Uuid>,
    /// The booking group it pays, all its bookings at once (then `booking_id` is None).
    pub group_id: Option<Uuid>,
}

/// A provider's report about a payment, verified: the card webhook's events, the bank
/// callbacks, and what the deadline's poller found.
#[derive(Debug, Clone)]
pub struct ProviderEvent {
    pub provider: Provider,
    /// The provider's id of the event (processed once per provider and tenant).
    pub event_id: String,
    /// The event's type as the provider named it, kept with its record.
    pub event_type: String,
    /// The provider's id of the payment the event is about (cardpay: the PaymentIntent;
    /// bankpay: the transaction).
    pub payment_intent: Option<String>,
    /// The Kairos payment the provider's object names in its metadata (cardpay): finds a
    /// fee's charge whose answer was lost before its intent was recorded.
    pub payment_id: Option<Uuid>,
    /// What the provider reports.
    pub report: kairos_domain::payments::reports::ProviderReport,
}

pub use kairos_domain::payments::reports::Dispute;

/// The event answer's code for money that arrived for a booking that can no longer take
/// it (cancelled by the customer or staff, or its seats taken since): the API refunds it
/// automatically; its dead letter stays open until the refund is made.
pub const PAID_AFTER_CLOSE: &str = "PAID_AFTER_CLOSE";

/// What processing a provider event did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EventOutcome {
    /// Whether the event changed something (false: ignored, or nothing to do).
    pub processed: bool,
    pub message: String,
    /// A repeat of an event processed before: `processed` and `message` are its first
    /// answer's.
    pub duplicate: bool,
    /// An error code of the answer (`GIFT_CARD_ALREADY_PAID`: a second payment of a paid
    /// gift card purchase, recorded, no second voucher).
    pub code: Option<String>,
}

/// The provider events' counts (spec Part B 4.6 health).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct EventStats {
    pub total_events_processed: i64,
    pub events_last_hour: i64,
    pub duplicate_events_rejected: i64,
    pub failed_events: i64,
}

/// A refund begun: recorded Processing, to be asked of the provider.
#[derive(Debug, Clone)]
pub struct RefundStarted {
    pub refund_id: Uuid,
    pub payment: OnlinePayment,
    /// Minor units to return.
    pub amount: i64,
    /// What the payment had collected, and had returned before this refund.
    pub collected: i64,
    pub refunded_before: i64,
    /// The provider's refund, when it answered before that it would report later (a
    /// resumed bank refund `pending`).
    pub provider_refund_id: Option<String>,
    /// A refund asked of its provider before whose outcome is not known (an earlier
    /// request lost the answer): a card refund is asked again with the same idempotency
    /// key; a bank refund is not asked again (its callback reports it).
    pub resumed: bool,
}

/// A refund's outcome at the provider.
#[derive(Debug, Clone)]
pub enum RefundResult {
    Completed { provider_refund_id: String },
    Failed { message: String },
}

/// A refund a provider reports on later (a bank refund `pending`): what its callback
/// needs to find it and check it.
#[derive(Debug, Clone)]
pub struct PendingRefund {
    pub tenant: kairos_domain::TenantId,
    pub refund_id: Uuid,
    pub payment_id: Uuid,
    /// Minor units asked for.
    pub amount: i64,
    /// `Processing` until the provider's outcome; `Completed` or `Failed` after.
    pub status: String,
    pub provider_refund_id: Option<String>,
}

/// What a voucher got back from a cancelled booking.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RestoredVoucher {
    pub voucher_id: Uuid,
    pub code: String,
    /// Minor units given back.
    pub amount: i64,
    pub balance_after: i64,
}

/// What a cancellation owes back (spec Part B 4.6), decided in the cancellation's own
/// transaction: the fee, each card or bank payment's part (recorded as its refund
/// target, so a job finishes what is not refunded at once) and the vouchers' part
/// (restored in that transaction).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CancellationRefund {
    /// Minor units paid and not refunded before: card and bank payments and vouchers.
    pub paid: i64,
    /// Minor units kept.
    pub fee: i64,
    /// Who cancelled and the rule that set the fee: the reason of its refunds.
    pub reason: String,
    pub payments: Vec<OwedRefund>,
    /// Minor units vouchers paid.
    pub vouchers_paid: i64,
    pub vouchers: Vec<RestoredVoucher>,
}

/// A card or bank payment's part of a cancellation's refund.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OwedRefund {
    pub payment_id: Uuid,
    pub provider: Provider,
    /// Minor units it had not refunded when the booking was cancelled.
    pub left: i64,
    /// Minor units of it the cancellation refunds.
    pub owed: i64,
}

/// A payment whose cancellation's refund is not finished: owed money to ask its provider
/// for, or a card refund whose outcome was lost, to resume.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnfinishedRefund {
    pub tenant: kairos_domain::TenantId,
    pub payment_id: Uuid,
    /// Minor units still owed; `None`: resume the refund under way.
    pub owed: Option<i64>,
}

/// A dead letter a payment path opens for staff (category `payment`): its `kind`
/// (`cardpay`, `bankpay`, `refund`), its `error_type` (`AMOUNT_MISMATCH`,
/// `REFUND_FAILED`, `REFUND_STALLED`, …), what staff should know and do, and what it is
/// about.
#[derive(Debug, Clone)]
pub struct PaymentLetter<'a> {
    pub kind: &'a str,
    pub error_type: &'a str,
    pub message: &'a str,
    pub booking_id: Option<Uuid>,
    pub transaction_id: Option<Uuid>,
}
