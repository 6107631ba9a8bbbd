//! Identifiers. Entity ids are UUIDv7 (time-ordered); tenant ids are short slugs chosen
//! by the operator (`kairos tenant create --id …`).

use serde::{Deserialize, Serialize};
use std::fmt;
use uuid::Uuid;

/// A new time-ordered entity id.
pub fn new_id() -> Uuid {
    Uuid::now_v7()
}

/// Parses an entity id from a path or body; any other text is "not found", not a 500.
pub fn parse_id(s: &str) -> Option<Uuid> {
    Uuid::parse_str(s.trim()).ok()
}

/// The tenant a request acts for. Only the tenant extractor and the command line create one.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct TenantId(String);

/// Why a tenant id was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TenantIdError {
    #[error("must not be empty")]
    Empty,
    #[error("must be at most 64 characters")]
    TooLong,
    #[error("may contain only letters, digits, '-' and '_'")]
    BadCharacter,
}

impl TenantId {
    pub const MAX_LEN: usize = 64;

    pub fn parse(s: &str) -> Result<Self, TenantIdError> {
        if s.is_empty() {
            return Err(TenantIdError::Empty);
        }
        if s.len() > Self::MAX_LEN {
            return Err(TenantIdError::TooLong);
        }
        if !s
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        {
            return Err(TenantIdError::BadCharacter);
        }
        Ok(Self(s.to_owned()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for TenantId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tenant_id_accepts_slugs_and_refuses_the_rest() {
        assert!(TenantId::parse("demo").is_ok());
        assert!(TenantId::parse("acme_climbing-2").is_ok());
        assert_eq!(TenantId::parse(""), Err(TenantIdError::Empty));
        assert_eq!(TenantId::parse("a b"), Err(TenantIdError::BadCharacter));
        assert_eq!(TenantId::parse("ü"), Err(TenantIdError::BadCharacter));
        assert_eq!(
            TenantId::parse(&"x".repeat(65)),
            Err(TenantIdError::TooLong)
        );
    }

    #[test]
    fn new_ids_are_version_7_and_ordered() {
        let a = new_id();
        let b = new_id();
        assert_eq!(a.get_version_num(), 7);
        assert!(a < b);
        assert_eq!(parse_id(&a.to_string()), Some(a));
        assert_eq!(parse_id("not-a-uuid"), None);
    }
}
