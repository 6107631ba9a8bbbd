//! Access tokens: HS256 JWTs signed with a secret shared by every instance (stored in
//! the database on first start, or given by configuration).

use crate::error::{ApiError, code};
use axum::http::StatusCode;
use chrono::{DateTime, Utc};
use jsonwebtoken::{Algorithm, DecodingKey, EncodingKey, Header, Validation};
use serde::{Deserialize, Serialize};

/// Who a token speaks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TokenKind {
    Admin,
    Customer,
}

/// The claims Kairos puts in a token. Permissions are not trusted from the token: the
/// account is reloaded on each request so that role changes and deactivation apply at once.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Claims {
    /// Account id.
    pub sub: String,
    /// Tenant id.
    pub tid: String,
    pub kind: TokenKind,
    pub iat: i64,
    pub exp: i64,
    /// The account's token generation when issued (staff accounts; 0 for customers).
    #[serde(rename = "gen", default)]
    pub generation: i32,
}

/// Signing and verification keys.
#[derive(Clone)]
pub struct TokenKeys {
    encoding: EncodingKey,
    decoding: DecodingKey,
}

impl std::fmt::Debug for TokenKeys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("TokenKeys(..)")
    }
}

impl TokenKeys {
    pub fn from_secret(secret: &[u8]) -> Self {
        Self {
            encoding: EncodingKey::from_secret(secret),
            decoding: DecodingKey::from_secret(secret),
        }
    }

    /// Issues a token valid for `ttl_secs` from `now`.
    pub fn issue(
        &self,
        kind: TokenKind,
        subject: &str,
        tenant: &str,
        generation: i32,
        now: DateTime<Utc>,
        ttl_secs: i64,
    ) -> Result<String, ApiError> {
        let claims = Claims {
            sub: subject.to_owned(),
            tid: tenant.to_owned(),
            kind,
            iat: now.timestamp(),
            exp: now.timestamp() + ttl_secs,
            generation,
        };
        jsonwebtoken::encode(&Header::new(Algorithm::HS256), &claims, &self.encoding)
            .map_err(ApiError::internal)
    }

    /// Verifies the signature and expiry against `now` (the application clock, so tests
    /// can expire tokens). Malformed → 401 `UNAUTHORIZED`; expired → 401 `TOKEN_EXPIRED`.
    pub fn verify(&self, token: &str, now: DateTime<Utc>) -> Result<Claims, ApiError> {
        let mut validation = Validation::new(Algorithm::HS256);
        validation.validate_exp = false;
        validation.set_required_spec_claims(&["exp", "sub"]);
        let data = jsonwebtoken::decode::<Claims>(token, &self.decoding, &validation)
            .map_err(|_| ApiError::unauthorized("Invalid access token"))?;
        if data.claims.exp <= now.timestamp() {
            return Err(ApiError::new(
                StatusCode::UNAUTHORIZED,
                code::TOKEN_EXPIRED,
                "Access token expired; log in again",
            ));
        }
        Ok(data.claims)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::Duration;

    #[test]
    fn tokens_verify_until_they_expire() {
        let keys = TokenKeys::from_secret(b"0123456789abcdef0123456789abcdef");
        let now = Utc::now();
        let token = keys
            .issue(TokenKind::Admin, "user-1", "demo", 0, now, 3600)
            .unwrap_or_else(|e| panic!("{e}"));
        let claims = keys.verify(&token, now).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(claims.sub, "user-1");
        assert_eq!(claims.tid, "demo");
        assert_eq!(claims.kind, TokenKind::Admin);
        let expired = keys.verify(&token, now + Duration::seconds(3600));
        assert_eq!(expired.err().map(|e| e.code), Some(code::TOKEN_EXPIRED));
    }

    #[test]
    fn tokens_signed_with_another_key_are_refused() {
        let keys = TokenKeys::from_secret(b"0123456789abcdef0123456789abcdef");
        let other = TokenKeys::from_secret(b"fedcba9876543210fedcba9876543210");
        let now = Utc::now();
        let token = other
            .issue(TokenKind::Customer, "c", "demo", 0, now, 60)
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            keys.verify(&token, now).err().map(|e| e.code),
            Some(code::UNAUTHORIZED)
        );
        assert!(keys.verify("not.a.token", now).is_err());
    }
}
