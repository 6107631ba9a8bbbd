//! Secrets at rest (provider keys, webhook signing secrets): sealed with AES-256-GCM under
//! a key derived from the service's secret key (`KAIROS_SECRET_KEY`).
//!
//! A sealed value is `v1:<hex nonce>:<hex ciphertext and tag>`; each seal has a fresh
//! random 96-bit nonce. The tenant and purpose are bound as associated data, so a value
//! copied to another tenant's row does not open.

use aes_gcm::aead::{Aead, KeyInit, Payload};
use aes_gcm::{Aes256Gcm, Nonce};
use sha2::{Digest, Sha256};

/// Why a sealed value did not open.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SecretError {
    #[error("the sealed value is malformed")]
    Malformed,
    #[error("the sealed value does not open with this key (was KAIROS_SECRET_KEY changed?)")]
    WrongKey,
}

/// Seals and opens secrets with one key.
#[derive(Clone)]
pub struct SecretBox {
    cipher: Aes256Gcm,
    /// Key material for [`SecretBox::derive`], apart from the cipher's key.
    derivation: [u8; 32],
}

impl std::fmt::Debug for SecretBox {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SecretBox(..)")
    }
}

impl SecretBox {
    /// A box whose key is the SHA-256 of `secret_key` (any string with enough entropy).
    pub fn new(secret_key: &str) -> SecretBox {
        let key = Sha256::digest(secret_key.as_bytes());
        let derivation = Sha256::digest(format!("kairos-derive/{secret_key}").as_bytes());
        SecretBox {
            cipher: Aes256Gcm::new(&key),
            derivation: derivation.into(),
        }
    }

    /// A secret for `purpose` that only holders of the service's key can compute: hex of
    /// HMAC-SHA256 over `purpose` (the sandbox provider's webhook secrets).
    pub fn derive(&self, purpose: &str) -> String {
        use hmac::{Hmac, Mac};
        match <Hmac<Sha256> as Mac>::new_from_slice(&self.derivation) {
            Ok(mut mac) => {
                mac.update(purpose.as_bytes());
                hex::encode(mac.finalize().into_bytes())
            }
            Err(_) => String::new(),
        }
    }

    /// Seals `plain`, bound to `context` (e.g. `tenant/cardpay/secretKey`).
    pub fn seal(&self, context: &str, plain: &str) -> String {
        let nonce: [u8; 12] = rand::random();
        let sealed = self
            .cipher
            .encrypt(
                Nonce::from_slice(&nonce),
                Payload {
                    msg: plain.as_bytes(),
                    aad: context.as_bytes(),
                },
            )
            .unwrap_or_default();
        format!("v1:{}:{}", hex::encode(nonce), hex::encode(sealed))
    }

    /// Opens a value [`SecretBox::seal`] made with the same key and `context`.
    pub fn open(&self, context: &str, sealed: &str) -> Result<String, SecretError> {
        let mut parts = sealed.split(':');
        let (Some("v1"), Some(nonce), Some(data), None) =
            (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            return Err(SecretError::Malformed);
        };
        let nonce = hex::decode(nonce).map_err(|_| SecretError::Malformed)?;
        let data = hex::decode(data).map_err(|_| SecretError::Malformed)?;
        if nonce.len() != 12 {
            return Err(SecretError::Malformed);
        }
        let plain = self
            .cipher
            .decrypt(
                Nonce::from_slice(&nonce),
                Payload {
                    msg: &data,
                    aad: context.as_bytes(),
                },
            )
            .map_err(|_| SecretError::WrongKey)?;
        String::from_utf8(plain).map_err(|_| SecretError::Malformed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sealed_secret_opens_with_its_key_and_context_only() {
        let sealed_box = SecretBox::new("a key of the service, long and random enough");
        let sealed = sealed_box.seal("acme/cardpay/secretKey", "sk_test_123");
        assert!(sealed.starts_with("v1:"));
        assert!(!sealed.contains("sk_test_123"));
        assert_eq!(
            sealed_box.open("acme/cardpay/secretKey", &sealed),
            Ok("sk_test_123".to_owned())
        );
        assert_eq!(
            sealed_box.open("globex/cardpay/secretKey", &sealed),
            Err(SecretError::WrongKey)
        );
        let other = SecretBox::new("another key entirely, also long enough");
        assert_eq!(
            other.open("acme/cardpay/secretKey", &sealed),
            Err(SecretError::WrongKey)
        );
        assert_eq!(
            sealed_box.open("acme/cardpay/secretKey", "v1:zz:00"),
            Err(SecretError::Malformed)
        );
    }

    #[test]
    fn derived_secrets_depend_on_the_key_and_the_purpose() {
        let a = SecretBox::new("key one, long enough for the test");
        let b = SecretBox::new("key two, long enough for the test");
        assert_eq!(a.derive("p"), a.derive("p"));
        assert_ne!(a.derive("p"), a.derive("q"));
        assert_ne!(a.derive("p"), b.derive("p"));
        assert_eq!(a.derive("p").len(), 64);
    }

    #[test]
    fn each_seal_has_its_own_nonce() {
        let b = SecretBox::new("k");
        assert_ne!(b.seal("c", "same"), b.seal("c", "same"));
    }
}
