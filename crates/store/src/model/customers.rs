//! Customer accounts.

use super::Timestamp;
use uuid::Uuid;

#[derive(Debug, Clone)]
pub struct NewCustomer {
    pub email: String,
    pub password_hash: Option<String>,
    pub first_name: Option<String>,
    pub last_name: Option<String>,
    pub phone: Option<String>,
    pub marketing_opt_in: bool,
    pub sms_opt_in: bool,
    pub terms_accepted: bool,
    pub privacy_accepted: bool,
}

#[derive(Debug, Clone)]
pub struct Customer {
    pub id: Uuid,
    pub email: String,
    pub password_hash: Option<String>,
    pub first_name: Option<String>,
    pub last_name: Option<String>,
    pub phone: Option<String>,
    pub marketing_opt_in: bool,
    pub sms_opt_in: bool,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
}

impl Customer {
    /// "First Last", or the email when no name is known.
    pub fn display_name(&self) -> String {
        let name = [self.first_name.as_deref(), self.last_name.as_deref()]
            .into_iter()
            .flatten()
            .collect::<Vec<_>>()
            .join(" ");
        if name.is_empty() {
            self.email.clone()
        } else {
            name
        }
    }
}

/// Profile fields a customer may change; `Some(None)` clears an optional field.
#[derive(Debug, Clone, Default)]
pub struct CustomerPatch {
    pub first_name: Option<Option<String>>,
    pub last_name: Option<Option<String>>,
    pub phone: Option<Option<String>>,
    pub marketing_opt_in: Option<bool>,
    pub sms_opt_in: Option<bool>,
}

/// Why a customer account operation failed.
#[derive(Debug, thiserror::Error)]
pub enum CustomerError {
    #[error("no such customer")]
    CustomerNotFound,
    #[error("an account with this email exists")]
    EmailExists,
    #[error(transparent)]
    Store(#[from] crate::StoreError),
}

crate::store_error_from_sqlx!(CustomerError);
