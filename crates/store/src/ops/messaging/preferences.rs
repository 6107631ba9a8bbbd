//! A customer's message choices: read and change (spec Part B 4.8).

use super::super::audit::Change;
use super::super::{Repo, dialect};
use crate::{Actor, CustomerPreferences, MessagingError, PreferencesPatch, StoreResult, Timestamp};
use kairos_domain::TenantId;
use kairos_domain::messaging::Preferences;
use kairos_store_macros::operations;
use serde_json::json;
use uuid::Uuid;

#[derive(kairos_store_macros::FromRow)]
struct Row {
    id: Uuid,
    sms_opt_in: bool,
    marketing_opt_in: bool,
    email_booking_confirmation: bool,
    email_reminders: bool,
    email_follow_up: bool,
    sms_reminders: bool,
    sms_arrival_confirmation: bool,
    language: Option<String>,
    timezone: Option<String>,
    updated_at: Timestamp,
}

const COLUMNS: &str = "id, sms_opt_in, marketing_opt_in, email_booking_confirmation, \
     email_reminders, email_follow_up, sms_reminders, sms_arrival_confirmation, language, \
     timezone, updated_at";

impl From<Row> for CustomerPreferences {
    fn from(r: Row) -> Self {
        CustomerPreferences {
            customer_id: r.id,
            prefs: Preferences {
                sms_opt_in: r.sms_opt_in,
                marketing_opt_in: r.marketing_opt_in,
                email_booking_confirmation: r.email_booking_confirmation,
                email_reminders: r.email_reminders,
                email_follow_up: r.email_follow_up,
                sms_reminders: r.sms_reminders,
                sms_arrival_confirmation: r.sms_arrival_confirmation,
            },
            language: r.language,
            timezone: r.timezone,
            updated_at: r.updated_at,
        }
    }
}

#[operations]
impl Repo {
    pub async fn customer_preferences(
        &self,
        tenant: &TenantId,
        customer: Uuid,
    ) -> StoreResult<Option<CustomerPreferences>> {
        let row: Option<Row> = sqlx::query_as(sql!(
            "SELECT {COLUMNS} FROM customers WHERE tenant_id = $1 AND id = $2"
        ))
        .bind(tenant.as_str())
        .bind(customer)
        .fetch_optional(&self.read)
        .await?;
        Ok(row.map(CustomerPreferences::from))
    }

    /// Changes the given choices; the audit row records each change.
    pub async fn update_customer_preferences(
        &self,
        tenant: &TenantId,
        customer: Uuid,
        patch: PreferencesPatch,
        actor: &Actor,
        now: Timestamp,
    ) -> Result<CustomerPreferences, MessagingError> {
        let mut w = self.begin(tenant, now).await?;
        let row: Option<Row> = sqlx::query_as(sql!(
            "SELECT {COLUMNS} FROM customers WHERE tenant_id = $1 AND id = $2{}",
            dialect::FOR_UPDATE
        ))
        .bind(tenant.as_str())
        .bind(customer)
        .fetch_optional(&mut *w.tx)
        .await?;
        let before = CustomerPreferences::from(row.ok_or(MessagingError::CustomerNotFound)?);
        let p = &before.prefs;
        let after = CustomerPreferences {
            prefs: Preferences {
                sms_opt_in: patch.sms_opt_in.unwrap_or(p.sms_opt_in),
                marketing_opt_in: patch.marketing_opt_in.unwrap_or(p.marketing_opt_in),
                email_booking_confirmation: patch
                    .email_booking_confirmation
                    .unwrap_or(p.email_booking_confirmation),
                email_reminders: patch.email_reminders.unwrap_or(p.email_reminders),
                email_follow_up: patch.email_follow_up.unwrap_or(p.email_follow_up),
                sms_reminders: patch.sms_reminders.unwrap_or(p.sms_reminders),
                sms_arrival_confirmation: patch
                    .sms_arrival_confirmation
                    .unwrap_or(p.sms_arrival_confirmation),
            },
            language: patch.language.clone().unwrap_or(before.language.clone()),
            timezone: patch.timezone.clone().unwrap_or(before.timezone.clone()),
            updated_at: now,
            ..before.clone()
        };
        let q = &after.prefs;
        sqlx::query(
            "UPDATE customers SET sms_opt_in = $3, marketing_opt_in = $4,
                 email_booking_confirmation = $5, email_reminders = $6, email_follow_up = $7,
                 sms_reminders = $8, sms_arrival_confirmation = $9, language = $10,
                 timezone = $11, updated_at = $12
             WHERE tenant_id = $1 AND id = $2",
        )
        .bind(tenant.as_str())
        .bind(customer)
        .bind(q.sms_opt_in)
        .bind(q.marketing_opt_in)
        .bind(q.email_booking_confirmation)
        .bind(q.email_reminders)
        .bind(q.email_follow_up)
        .bind(q.sms_reminders)
        .bind(q.sms_arrival_confirmation)
        .bind(&after.language)
        .bind(&after.timezone)
        .bind(now)
        .execute(&mut *w.tx)
        .await?;
        w.audit(
            actor,
            Change {
                action: "customer.preferences_updated",
                entity_type: "customer",
                entity_id: customer.to_string(),
                changes: json!({
                    "before": {"smsOptIn": p.sms_opt_in, "marketingOptIn": p.marketing_opt_in,
                        "emailReminders": p.email_reminders, "emailFollowUp": p.email_follow_up,
                        "emailBookingConfirmation": p.email_booking_confirmation,
                        "smsReminders": p.sms_reminders,
                        "smsArrivalConfirmation": p.sms_arrival_confirmation,
                        "language": before.language, "timezone": before.timezone},
                    "after": {"smsOptIn": q.sms_opt_in, "marketingOptIn": q.marketing_opt_in,
                        "emailReminders": q.email_reminders, "emailFollowUp": q.email_follow_up,
                        "emailBookingConfirmation": q.email_booking_confirmation,
                        "smsReminders": q.sms_reminders,
                        "smsArrivalConfirmation": q.sms_arrival_confirmation,
                        "language": after.language, "timezone": after.timezone},
                }),
            },
        );
        w.commit(None).await?;
        Ok(after)
    }
}
