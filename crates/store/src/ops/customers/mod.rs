//! Customer accounts.

use super::audit::Change;
use super::{Repo, dialect};
use crate::{Actor, Customer, CustomerError, CustomerPatch, NewCustomer, StoreResult, Timestamp};
use kairos_domain::{TenantId, new_id};
use kairos_store_macros::operations;
use serde_json::{Map, Value, json};
use uuid::Uuid;

#[derive(kairos_store_macros::FromRow)]
struct CustomerRow {
    id: Uuid,
    email: String,
    password_hash: Option<String>,
    first_name: Option<String>,
    last_name: Option<String>,
    phone: Option<String>,
    marketing_opt_in: bool,
    sms_opt_in: bool,
    created_at: Timestamp,
    updated_at: Timestamp,
}

impl From<CustomerRow> for Customer {
    fn from(r: CustomerRow) -> Self {
        Customer {
            id: r.id,
            email: r.email,
            password_hash: r.password_hash,
            first_name: r.first_name,
            last_name: r.last_name,
            phone: r.phone,
            marketing_opt_in: r.marketing_opt_in,
            sms_opt_in: r.sms_opt_in,
            created_at: r.created_at,
            updated_at: r.updated_at,
        }
    }
}

const CUSTOMER_COLUMNS: &str = "id, email, password_hash, first_name, last_name, phone, \
     marketing_opt_in, sms_opt_in, created_at, updated_at";

#[operations]
impl Repo {
    /// Creates a customer; `EmailExists` when the tenant already has the address.
    pub async fn create_customer(
        &self,
        tenant: &TenantId,
        new: NewCustomer,
        now: Timestamp,
    ) -> Result<Customer, CustomerError> {
        let mut w = self.begin(tenant, now).await?;
        let id = new_id();
        let accepted_at = |yes: bool| yes.then_some(now);
        let row: CustomerRow = sqlx::query_as(sql!(
            "INSERT INTO customers (tenant_id, id, email, password_hash, first_name, last_name,
                 phone, marketing_opt_in, sms_opt_in, terms_accepted_at, privacy_accepted_at,
                 created_at, updated_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $12)
             RETURNING {CUSTOMER_COLUMNS}"
        ))
        .bind(tenant.as_str())
        .bind(id)
        .bind(&new.email)
        .bind(&new.password_hash)
        .bind(&new.first_name)
        .bind(&new.last_name)
        .bind(&new.phone)
        .bind(new.marketing_opt_in)
        .bind(new.sms_opt_in)
        .bind(accepted_at(new.terms_accepted))
        .bind(accepted_at(new.privacy_accepted))
        .bind(now)
        .fetch_one(&mut *w.tx)
        .await
        .map_err(|e| {
            if dialect::violates_unique(
                &e,
                "customers_email",
                "customers.tenant_id, customers.email",
            ) {
                CustomerError::EmailExists
            } else {
                e.into()
            }
        })?;
        let customer = Customer::from(row);
        w.audit(
            &Actor::customer(id, Some(&customer.display_name())),
            Change {
                action: "customer.registered",
                entity_type: "customer",
                entity_id: id.to_string(),
                changes: json!({
                    "email": new.email,
                    "marketingOptIn": new.marketing_opt_in,
                    "smsOptIn": new.sms_opt_in,
                    "termsAccepted": new.terms_accepted,
                    "privacyPolicyAccepted": new.privacy_accepted,
                }),
            },
        );
        // The welcome email (spec Part A 6), queued with the account.
        if let Some(to) = super::messaging::customer_recipient(&mut w, id).await? {
            super::messaging::queue_message_to(
                &mut w,
                &to,
                super::messaging::Compose {
                    channels: &[kairos_domain::messaging::Channel::Email],
                    ..super::messaging::Compose::of("welcome", "account", now)
                },
            )
            .await?;
        }
        w.commit(None).await?;
        Ok(customer)
    }

    pub async fn get_customer(&self, tenant: &TenantId, id: Uuid) -> StoreResult<Option<Customer>> {
        let row: Option<CustomerRow> = sqlx::query_as(sql!(
            "SELECT {CUSTOMER_COLUMNS} FROM customers WHERE tenant_id = $1 AND id = $2"
        ))
        .bind(tenant.as_str())
        .bind(id)
        .fetch_optional(&self.read)
        .await?;
        Ok(row.map(Customer::from))
    }

    /// Looks a customer up by normalised (lower-case) email.
    pub async fn find_customer_by_email(
        &self,
        tenant: &TenantId,
        email: &str,
    ) -> StoreResult<Option<Customer>> {
        let row: Option<CustomerRow> = sqlx::query_as(sql!(
            "SELECT {CUSTOMER_COLUMNS} FROM customers WHERE tenant_id = $1 AND email = $2"
        ))
        .bind(tenant.as_str())
        .bind(email)
        .fetch_optional(&self.read)
        .await?;
        Ok(row.map(Customer::from))
    }

    /// Applies a profile change made by the customer, auditing old and new values.
    pub async fn update_customer(
        &self,
        tenant: &TenantId,
        id: Uuid,
        patch: CustomerPatch,
        now: Timestamp,
    ) -> Result<Customer, CustomerError> {
        let mut w = self.begin(tenant, now).await?;
        let before: Customer = sqlx::query_as::<_, CustomerRow>(sql!(
            "SELECT {CUSTOMER_COLUMNS} FROM customers WHERE tenant_id = $1 AND id = $2"
        ))
        .bind(tenant.as_str())
        .bind(id)
        .fetch_optional(&mut *w.tx)
        .await?
        .ok_or(CustomerError::CustomerNotFound)?
        .into();

        let first_name = patch.first_name.unwrap_or(before.first_name.clone());
        let last_name = patch.last_name.unwrap_or(before.last_name.clone());
        let phone = patch.phone.unwrap_or(before.phone.clone());
        let marketing = patch.marketing_opt_in.unwrap_or(before.marketing_opt_in);
        let sms = patch.sms_opt_in.unwrap_or(before.sms_opt_in);

        let mut changes = Map::new();
        for (field, from, to) in [
            ("firstName", json!(before.first_name), json!(first_name)),
            ("lastName", json!(before.last_name), json!(last_name)),
            ("phone", json!(before.phone), json!(phone)),
            (
                "marketingOptIn",
                json!(before.marketing_opt_in),
                json!(marketing),
            ),
            ("smsOptIn", json!(before.sms_opt_in), json!(sms)),
        ] {
            if from != to {
                changes.insert(field.to_owned(), json!({"from": from, "to": to}));
            }
        }
        if changes.is_empty() {
            w.commit(None).await?;
            return Ok(before);
        }

        let row: CustomerRow = sqlx::query_as(sql!(
            "UPDATE customers
             SET first_name = $3, last_name = $4, phone = $5, marketing_opt_in = $6,
                 sms_opt_in = $7, updated_at = $8
             WHERE tenant_id = $1 AND id = $2
             RETURNING {CUSTOMER_COLUMNS}"
        ))
        .bind(tenant.as_str())
        .bind(id)
        .bind(&first_name)
        .bind(&last_name)
        .bind(&phone)
        .bind(marketing)
        .bind(sms)
        .bind(now)
        .fetch_one(&mut *w.tx)
        .await?;
        let customer = Customer::from(row);
        w.audit(
            &Actor::customer(id, Some(&customer.display_name())),
            Change {
                action: "customer.profile_updated",
                entity_type: "customer",
                entity_id: id.to_string(),
                changes: Value::Object(changes),
            },
        );
        w.commit(None).await?;
        Ok(customer)
    }
}
