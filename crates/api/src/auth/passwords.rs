//! Password hashing with Argon2id (the argon2 crate's defaults: m=19 MiB, t=2, p=1),
//! run on the blocking pool so hashing never stalls the async workers.

use crate::error::ApiError;
use argon2::Argon2;
use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use std::sync::OnceLock;

/// Hashes `password` into a PHC string.
pub async fn hash(password: String) -> Result<String, ApiError> {
    tokio::task::spawn_blocking(move || hash_blocking(&password))
        .await
        .map_err(ApiError::internal)?
}

/// Hashes on the current thread (command line and seeding).
pub fn hash_blocking(password: &str) -> Result<String, ApiError> {
    let salt = SaltString::generate(&mut argon2::password_hash::rand_core::OsRng);
    Argon2::default()
        .hash_password(password.as_bytes(), &salt)
        .map(|h| h.to_string())
        .map_err(ApiError::internal)
}

/// Checks `password` against `stored`. With no stored hash (unknown account) a dummy
/// hash is checked anyway, so the answer takes as long as for a real account and does
/// not reveal whether the account exists.
pub async fn verify(password: String, stored: Option<String>) -> Result<bool, ApiError> {
    tokio::task::spawn_blocking(move || {
        let (phc, known) = match stored {
            Some(s) => (s, true),
            None => (dummy_hash().to_owned(), false),
        };
        let Ok(parsed) = PasswordHash::new(&phc) else {
            return false;
        };
        let ok = Argon2::default()
            .verify_password(password.as_bytes(), &parsed)
            .is_ok();
        ok && known
    })
    .await
    .map_err(ApiError::internal)
}

fn dummy_hash() -> &'static str {
    static DUMMY: OnceLock<String> = OnceLock::new();
    DUMMY.get_or_init(|| hash_blocking("kairos-timing-equaliser").unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn hashes_verify_only_the_right_password() {
        let stored = hash("correct horse".into())
            .await
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(stored.starts_with("$argon2id$"));
        assert!(
            verify("correct horse".into(), Some(stored.clone()))
                .await
                .unwrap_or(false)
        );
        assert!(
            !verify("wrong horse".into(), Some(stored))
                .await
                .unwrap_or(true)
        );
        assert!(
            !verify("kairos-timing-equaliser".into(), None)
                .await
                .unwrap_or(true)
        );
    }
}
