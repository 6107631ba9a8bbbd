//! Payments through a provider: the booking's (or gift card's) payment waiting for its
//! provider, and the provider's id recorded once it answered. Their events are
//! `events.rs`.

use super::super::Repo;
use crate::{OnlinePayment, PaymentsError, StoreError, StoreResult, Timestamp, stored};
use kairos_domain::TenantId;
use kairos_domain::payments::PaymentStatus;
use kairos_domain::payments::credentials::{CredentialSource, Provider};
use kairos_store_macros::operations;
use uuid::Uuid;

#[derive(kairos_store_macros::FromRow)]
pub(crate) struct OnlineRow {
    tenant_id: String,
    id: Uuid,
    booking_id: Option<Uuid>,
    gift_card_purchase_id: Option<Uuid>,
    site_id: Option<Uuid>,
    amount: i64,
    currency: String,
    provider: String,
    provider_payment_id: Option<String>,
    status: String,
    credential_source: Option<String>,
    credential_site_id: Option<Uuid>,
    redirect_url: Option<String>,
    created_at: Timestamp,
    fee_id: Option<Uuid>,
    group_id: Option<Uuid>,
}

pub(crate) const COLUMNS: &str = "p.tenant_id, p.id, p.booking_id, \
     p.gift_card_purchase_id, COALESCE(b.site_id, g.site_id, \
     (SELECT gb.site_id FROM bookings gb WHERE gb.tenant_id = p.tenant_id \
      AND gb.group_id = p.group_id ORDER BY gb.starts_at, gb.id LIMIT 1)) AS site_id, \
     p.amount, p.currency, \
     p.provider, p.provider_payment_id, p.status, p.credential_source, p.credential_site_id, \
     p.redirect_url, p.created_at, p.fee_id, p.group_id";

pub(crate) const FROM: &str = "payments p LEFT JOIN bookings b ON b.tenant_id = p.tenant_id AND b.id = p.booking_id \
     LEFT JOIN gift_card_purchases g ON g.tenant_id = p.tenant_id AND g.id = p.gift_card_purchase_id";

impl TryFrom<OnlineRow> for OnlinePayment {
    type Error = StoreError;

    fn try_from(r: OnlineRow) -> Result<Self, StoreError> {
        Ok(OnlinePayment {
            id: r.id,
            booking_id: r.booking_id,
            gift_card_purchase_id: r.gift_card_purchase_id,
            site_id: r.site_id,
            amount: r.amount,
            currency: r.currency,
            provider: stored("provider", &r.provider, Provider::parse)?,
            provider_payment_id: r.provider_payment_id,
            status: stored("payment status", &r.status, PaymentStatus::parse)?,
            credential_source: r
                .credential_source
                .as_deref()
                .map(|s| stored("credential source", s, CredentialSource::parse))
                .transpose()?,
            credential_site_id: r.credential_site_id,
            redirect_url: r.redirect_url,
            created_at: r.created_at,
            fee_id: r.fee_id,
            group_id: r.group_id,
        })
    }
}

#[operations]
impl Repo {
    /// The booking's newest online payment still to be collected (PENDING, AUTHORIZED, or
    /// FAILED: a declined card may be followed by another).
    pub async fn open_online_payment(
        &self,
        tenant: &TenantId,
        booking: Uuid,
    ) -> StoreResult<Option<OnlinePayment>> {
        let row: Option<OnlineRow> = sqlx::query_as(sql!(
            "SELECT {COLUMNS} FROM {FROM}
             WHERE p.tenant_id = $1 AND p.booking_id = $2 AND p.provider IS NOT NULL
               AND p.status IN ('PENDING', 'AUTHORIZED', 'FAILED')
             ORDER BY p.created_at DESC, p.id DESC LIMIT 1"
        ))
        .bind(tenant.as_str())
        .bind(booking)
        .fetch_optional(&self.read)
        .await?;
        row.map(OnlinePayment::try_from).transpose()
    }

    /// The booking's card payments canceled with it that the provider knows (their
    /// intents are to be canceled there too).
    pub async fn canceled_card_payments(
        &self,
        tenant: &TenantId,
        booking: Uuid,
    ) -> StoreResult<Vec<OnlinePayment>> {
        let rows: Vec<OnlineRow> = sqlx::query_as(sql!(
            "SELECT {COLUMNS} FROM {FROM}
             WHERE p.tenant_id = $1 AND p.booking_id = $2 AND p.provider = 'cardpay'
               AND p.status = 'CANCELED' AND p.provider_payment_id IS NOT NULL"
        ))
        .bind(tenant.as_str())
        .bind(booking)
        .fetch_all(&self.read)
        .await?;
        rows.into_iter().map(OnlinePayment::try_from).collect()
    }

    /// A provider payment of the tenant.
    pub async fn online_payment(
        &self,
        tenant: &TenantId,
        id: Uuid,
    ) -> StoreResult<Option<OnlinePayment>> {
        let row: Option<OnlineRow> = sqlx::query_as(sql!(
            "SELECT {COLUMNS} FROM {FROM}
             WHERE p.tenant_id = $1 AND p.id = $2 AND p.provider IS NOT NULL"
        ))
        .bind(tenant.as_str())
        .bind(id)
        .fetch_optional(&self.read)
        .await?;
        row.map(OnlinePayment::try_from).transpose()
    }

    /// Records that an authorized payment was captured at the provider, for `amount`
    /// (what its settling event will report; it makes the payment COMPLETED).
    pub async fn mark_captured(
        &self,
        tenant: &TenantId,
        id: Uuid,
        amount: i64,
        now: Timestamp,
    ) -> Result<(), PaymentsError> {
        let mut w = self.begin(tenant, now).await?;
        sqlx::query(
            "UPDATE payments SET status = 'CAPTURED', amount = $4,
                 authorized_at = COALESCE(authorized_at, $3), updated_at = $3
             WHERE tenant_id = $1 AND id = $2 AND status IN ('PENDING', 'AUTHORIZED')",
        )
        .bind(tenant.as_str())
        .bind(id)
        .bind(now)
        .bind(amount)
        .execute(&mut *w.tx)
        .await?;
        w.commit(None).await?;
        Ok(())
    }

    /// Records that the provider holds the funds of a payment (AUTHORIZED: staff capture
    /// it), or only that it was looked at (`authorized` false), so that the deadline's
    /// pass goes on to the next payments.
    pub async fn note_payment_checked(
        &self,
        tenant: &TenantId,
        id: Uuid,
        authorized: bool,
        now: Timestamp,
    ) -> Result<(), PaymentsError> {
        let mut w = self.begin(tenant, now).await?;
        let sql = if authorized {
            "UPDATE payments SET status = 'AUTHORIZED', authorized_at = COALESCE(authorized_at, $3),
                 updated_at = $3
             WHERE tenant_id = $1 AND id = $2 AND status IN ('PENDING', 'FAILED')"
        } else {
            "UPDATE payments SET updated_at = $3 WHERE tenant_id = $1 AND id = $2"
        };
        sqlx::query(sql)
            .bind(tenant.as_str())
            .bind(id)
            .bind(now)
            .execute(&mut *w.tx)
            .await?;
        w.commit(None).await?;
        Ok(())
    }

    /// Gives up an online payment nobody made of a `part_paid` booking (an additional
    /// charge, or the balance): the payment is CANCELED, the booking keeps its status and
    /// what it owes, and staff see on it that the rest is to be taken at the desk. False
    /// (nothing changed) for any other booking, or a payment no longer open.
    pub async fn give_up_unpaid_charge(
        &self,
        tenant: &TenantId,
        booking: Uuid,
        payment: Uuid,
        now: Timestamp,
    ) -> Result<bool, PaymentsError> {
        let mut w = self.begin(tenant, now).await?;
        let row: Option<(i64, String)> = sqlx::query_as(
            "UPDATE payments SET status = 'CANCELED', updated_at = $4
             WHERE tenant_id = $1 AND id = $2 AND booking_id = $3
               AND status IN ('PENDING', 'FAILED')
               AND EXISTS (SELECT 1 FROM bookings b WHERE b.tenant_id = $1 AND b.id = $3
                             AND b.status = 'part_paid')
             RETURNING amount, currency",
        )
        .bind(tenant.as_str())
        .bind(payment)
        .bind(booking)
        .bind(now)
        .fetch_optional(&mut *w.tx)
        .await?;
        let Some((amount, currency)) = row else {
            return Ok(false);
        };
        let what = format!(
            "The online payment of {amount} {currency} (minor units) was not made in time and is withdrawn: the booking keeps its places; take what it owes at the desk (mark paid)"
        );
        super::charges::issue_note(&mut w, booking, "payments", "normal", &what).await?;
        w.commit(None).await?;
        Ok(true)
    }

    /// Online payments still PENDING (or FAILED, a declined card) for bookings still
    /// `confirmed` or `part_paid`, made before `before` (the payment deadline), least
    /// recently looked at first: every tenant's.
    pub async fn overdue_online_payments(
        &self,
        before: Timestamp,
        limit: i64,
    ) -> StoreResult<Vec<(TenantId, OnlinePayment)>> {
        let rows: Vec<OnlineRow> = sqlx::query_as(sql!(
            "SELECT {COLUMNS} FROM {FROM}
             WHERE p.provider IN ('cardpay', 'bankpay') AND p.status IN ('PENDING', 'FAILED')
               AND p.created_at < $1
               AND (b.status IN ('confirmed', 'part_paid')
                    OR g.status IN ('pending', 'payment_failed')
                    OR (p.group_id IS NOT NULL AND p.booking_id IS NULL))
             ORDER BY p.updated_at, p.id LIMIT $2"
        ))
        .bind(before)
        .bind(limit)
        .fetch_all(&self.read)
        .await?;
        rows.into_iter()
            .map(|r| {
                let tenant = TenantId::parse(&r.tenant_id)
                    .map_err(|e| StoreError::Corrupt(format!("payment tenant: {e}")))?;
                Ok((tenant, OnlinePayment::try_from(r)?))
            })
            .collect()
    }

    /// The payment the provider knows by `provider_payment_id`, in whichever tenant:
    /// how a provider event finds its tenant and account.
    pub async fn online_payment_by_provider_id(
        &self,
        provider: Provider,
        provider_payment_id: &str,
    ) -> StoreResult<Option<(TenantId, OnlinePayment)>> {
        let row: Option<OnlineRow> = sqlx::query_as(sql!(
            "SELECT {COLUMNS} FROM {FROM} WHERE p.provider = $1 AND p.provider_payment_id = $2"
        ))
        .bind(provider.as_str())
        .bind(provider_payment_id)
        .fetch_optional(&self.read)
        .await?;
        row.map(|r| {
            let tenant = TenantId::parse(&r.tenant_id)
                .map_err(|e| StoreError::Corrupt(format!("payment tenant: {e}")))?;
            Ok((tenant, OnlinePayment::try_from(r)?))
        })
        .transpose()
    }

    /// Records the provider's id of payment `payment` and the account it was made with.
    /// Idempotent: the same id again changes nothing; another id is refused (the payment
    /// is someone else's already).
    pub async fn attach_provider_payment(
        &self,
        tenant: &TenantId,
        payment: Uuid,
        provider_payment_id: &str,
        account: (CredentialSource, Option<Uuid>),
        redirect_url: Option<&str>,
        now: Timestamp,
    ) -> Result<(), PaymentsError> {
        let (source, credential_site) = account;
        let mut w = self.begin(tenant, now).await?;
        let done = sqlx::query(
            "UPDATE payments SET provider_payment_id = $3, credential_source = $4,
                 credential_site_id = $5, updated_at = $6,
                 redirect_url = COALESCE($7, redirect_url)
             WHERE tenant_id = $1 AND id = $2
               AND (provider_payment_id IS NULL OR provider_payment_id = $3)",
        )
        .bind(tenant.as_str())
        .bind(payment)
        .bind(provider_payment_id)
        .bind(source.as_str())
        .bind(credential_site)
        .bind(now)
        .bind(redirect_url)
        .execute(&mut *w.tx)
        .await?;
        if done.rows_affected() == 0 {
            return Err(PaymentsError::PaymentNotFound);
        }
        w.commit(None).await?;
        Ok(())
    }
}
