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

/// The alphabet of booking references: no 0/O, 1/I to misread.
pub const REFERENCE_ALPHABET: &[u8] = b"ABCDEFGHJKLMNPQRSTUVWXYZ23456789";

/// Length of a booking reference: 32^8 ≈ 1.1 × 10^12 values per tenant.
pub const REFERENCE_LEN: usize = 8;

/// A random human-readable booking reference, e.g. `K7QXM2PA`.
pub fn new_reference() -> String {
    use rand::Rng;
    let mut rng = rand::rng();
    (0..REFERENCE_LEN)
        .map(|_| char::from(REFERENCE_ALPHABET[rng.random_range(0..REFERENCE_ALPHABET.len())]))
        .collect()
}

/// A random secret of 32 bytes as hex (booking tokens), and its SHA-256 as stored.
pub fn new_secret() -> (String, String) {
    use rand::RngCore;
    let mut bytes = [0u8; 32];
    rand::rng().fill_bytes(&mut bytes);
    let secret = hex::encode(bytes);
    let hash = secret_hash(&secret);
    (secret, hash)
}

/// The stored form of a secret.
pub fn secret_hash(secret: &str) -> String {
    use sha2::{Digest, Sha256};
    hex::encode(Sha256::digest(secret.as_bytes()))
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
    fn references_use_the_unambiguous_alphabet() {
        for _ in 0..200 {
            let r = new_reference();
            assert_eq!(r.len(), REFERENCE_LEN);
            assert!(r.bytes().all(|b| REFERENCE_ALPHABET.contains(&b)), "{r}");
            assert!(!r.contains(['0', 'O', '1', 'I']));
        }
        assert_ne!(new_reference(), new_reference());
    }

    #[test]
    fn secrets_are_stored_as_their_hash() {
        let (secret, hash) = new_secret();
        assert_eq!(secret.len(), 64);
        assert_eq!(secret_hash(&secret), hash);
        assert_ne!(secret, hash);
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
