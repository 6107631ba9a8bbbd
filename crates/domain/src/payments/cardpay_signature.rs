//! The card provider's webhook signature (spec Part B 4.6, 5, 6): Stripe's scheme.
//!
//! The header `cardpay-signature: t=<unix seconds>,v1=<hex>[,v1=<hex>…]` signs
//! `"{t}.{raw body}"` with HMAC-SHA256 keyed by the endpoint's signing secret (the whole
//! secret string, `whsec_` prefix included, as Stripe's libraries use it). Any one `v1`
//! may match (a secret being rolled signs with both); other schemes (`v0`) are ignored.
//! The timestamp must lie within the tolerance (300 s) in the past and a small skew in
//! the future. Signatures are compared in constant time.

use hmac::{Hmac, Mac};
use sha2::Sha256;

/// How old a signed timestamp may be, in seconds (Stripe's default).
pub const TOLERANCE_SECS: i64 = 300;

/// How far in the future a signed timestamp may be (clocks differ a little).
pub const FUTURE_SKEW_SECS: i64 = 60;

/// Why a signature header was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SignatureError {
    #[error("the cardpay-signature header is missing")]
    Missing,
    #[error("the cardpay-signature header is malformed: {0}")]
    Malformed(&'static str),
    #[error("the cardpay-signature header has no v1 signature")]
    NoSignature,
    #[error("no v1 signature matches the payload")]
    Mismatch,
    #[error("the signed timestamp is {0} s old (at most {TOLERANCE_SECS} s)")]
    Stale(i64),
    #[error("the signed timestamp is {0} s in the future")]
    Future(i64),
}

/// A parsed header: its timestamp and `v1` signatures.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Header {
    pub timestamp: i64,
    pub signatures: Vec<Vec<u8>>,
}

/// Parses `t=…,v1=…`. Unknown schemes are skipped; a `v1` that is not hex counts as no
/// signature (it cannot match).
pub fn parse(header: &str) -> Result<Header, SignatureError> {
    let header = header.trim();
    if header.is_empty() {
        return Err(SignatureError::Missing);
    }
    let mut timestamp = None;
    let mut signatures = Vec::new();
    for item in header.split(',') {
        let Some((key, value)) = item.trim().split_once('=') else {
            return Err(SignatureError::Malformed("an item is not key=value"));
        };
        match key.trim() {
            "t" => {
                let t = value
                    .trim()
                    .parse::<i64>()
                    .map_err(|_| SignatureError::Malformed("t is not a number"))?;
                timestamp = Some(t);
            }
            "v1" => {
                if let Ok(bytes) = hex::decode(value.trim()) {
                    signatures.push(bytes);
                }
            }
            _ => {}
        }
    }
    let timestamp = timestamp.ok_or(SignatureError::Malformed("no timestamp t"))?;
    if signatures.is_empty() {
        return Err(SignatureError::NoSignature);
    }
    Ok(Header {
        timestamp,
        signatures,
    })
}

/// The MAC of `"{timestamp}.{body}"`; `None` never happens (HMAC takes a key of any
/// length).
fn mac(secret: &str, timestamp: i64, body: &[u8]) -> Option<Hmac<Sha256>> {
    let mut mac = Hmac::<Sha256>::new_from_slice(secret.as_bytes()).ok()?;
    mac.update(timestamp.to_string().as_bytes());
    mac.update(b".");
    mac.update(body);
    Some(mac)
}

/// The hex `v1` signature of `body` at `timestamp` with `secret`.
pub fn signature(secret: &str, timestamp: i64, body: &[u8]) -> String {
    mac(secret, timestamp, body)
        .map(|m| hex::encode(m.finalize().into_bytes()))
        .unwrap_or_default()
}

/// A whole header value signing `body` at `timestamp` (for the sandbox provider and
/// tests).
pub fn header(secret: &str, timestamp: i64, body: &[u8]) -> String {
    format!("t={timestamp},v1={}", signature(secret, timestamp, body))
}

/// Verifies `header` over the raw `body` with `secret` at `now` (unix seconds); returns
/// the signed timestamp.
pub fn verify(header: &str, body: &[u8], secret: &str, now: i64) -> Result<i64, SignatureError> {
    let parsed = parse(header)?;
    let matches = parsed
        .signatures
        .iter()
        .any(|s| mac(secret, parsed.timestamp, body).is_some_and(|m| m.verify_slice(s).is_ok()));
    if !matches {
        return Err(SignatureError::Mismatch);
    }
    // Saturating: a signed timestamp may be any i64.
    let age = now.saturating_sub(parsed.timestamp);
    if age > TOLERANCE_SECS {
        return Err(SignatureError::Stale(age));
    }
    let ahead = parsed.timestamp.saturating_sub(now);
    if ahead > FUTURE_SKEW_SECS {
        return Err(SignatureError::Future(ahead));
    }
    Ok(parsed.timestamp)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_signed_timestamp_at_the_ends_of_i64_is_stale_or_future_not_a_panic() {
        let body = b"{}";
        let now = 1_700_000_000;
        let oldest = header(SECRET, i64::MIN, body);
        assert!(matches!(
            verify(&oldest, body, SECRET, now),
            Err(SignatureError::Stale(_))
        ));
        let newest = header(SECRET, i64::MAX, body);
        assert!(matches!(
            verify(&newest, body, SECRET, now),
            Err(SignatureError::Future(_))
        ));
    }

    const SECRET: &str = "whsec_test_secret";
    const BODY: &[u8] = br#"{"id": "evt_test_webhook", "object": "event"}"#;
    const NOW: i64 = 1_700_000_000;

    /// Headers made by Stripe's own libraries (stripe-python 16.1.0
    /// `WebhookSignature.generate_signature_header`, stripe-node `generateTestHeaderString`
    /// for the payload of their test suites).
    #[test]
    fn headers_made_by_stripes_libraries_verify() {
        let node_payload = "{\n  \"id\": \"evt_test_webhook\",\n  \"object\": \"event\"\n}";
        let h = "t=12345,v1=2672d138c9a412830f3bfe2ecc5bfb3277cf6f5b49d0119d77dd6cb64da1257e";
        assert_eq!(
            header("whsec_test_secret", 12345, node_payload.as_bytes()),
            h
        );
        assert_eq!(
            verify(h, node_payload.as_bytes(), "whsec_test_secret", 12345 + 10),
            Ok(12345)
        );
        let c = "t=1700000000,v1=6fd13aeb3eae8caf0f65b522a7573de9e4d64a4652a207fed6a4c68a74b00b8a";
        let body = br#"{"id":"evt_1","object":"event"}"#;
        assert_eq!(
            verify(c, body, "whsec_s3cr3t", 1_700_000_000),
            Ok(1_700_000_000)
        );
        // The secret is the whole string, prefix included.
        assert_eq!(
            verify(c, body, "s3cr3t", 1_700_000_000),
            Err(SignatureError::Mismatch)
        );
        // Stripe's raw HMAC vector (stripe-node test/crypto/helpers.ts, key test_secret).
        let mut mac = Hmac::<Sha256>::new_from_slice(b"test_secret").unwrap();
        mac.update(br#"{"obj1":"hello","obj2":"world"}"#);
        assert_eq!(
            hex::encode(mac.finalize().into_bytes()),
            "bebb1a643997f419b315ddba19e6f5411e1ce7f810ba6d3617ce72823092f363"
        );
    }

    #[test]
    fn a_valid_header_verifies() {
        let h = header(SECRET, NOW, BODY);
        assert_eq!(verify(&h, BODY, SECRET, NOW), Ok(NOW));
        assert_eq!(verify(&h, BODY, SECRET, NOW + TOLERANCE_SECS), Ok(NOW));
    }

    #[test]
    fn malformed_and_missing_headers_are_refused() {
        assert_eq!(verify("", BODY, SECRET, NOW), Err(SignatureError::Missing));
        assert!(matches!(
            verify("garbage", BODY, SECRET, NOW),
            Err(SignatureError::Malformed(_))
        ));
        assert!(matches!(
            verify("t=abc,v1=00", BODY, SECRET, NOW),
            Err(SignatureError::Malformed(_))
        ));
        assert!(matches!(
            verify(
                &format!("v1={}", signature(SECRET, NOW, BODY)),
                BODY,
                SECRET,
                NOW
            ),
            Err(SignatureError::Malformed(_))
        ));
    }

    #[test]
    fn a_header_without_v1_is_refused() {
        let v0 = format!("t={NOW},v0={}", signature(SECRET, NOW, BODY));
        assert_eq!(
            verify(&v0, BODY, SECRET, NOW),
            Err(SignatureError::NoSignature)
        );
    }

    #[test]
    fn a_bad_signature_is_refused() {
        let h = header("whsec_other", NOW, BODY);
        assert_eq!(verify(&h, BODY, SECRET, NOW), Err(SignatureError::Mismatch));
        // The body changed after signing.
        let h = header(SECRET, NOW, BODY);
        assert_eq!(
            verify(&h, b"{}", SECRET, NOW),
            Err(SignatureError::Mismatch)
        );
    }

    #[test]
    fn any_one_of_several_signatures_may_match() {
        let good = signature(SECRET, NOW, BODY);
        let bad = signature("whsec_other", NOW, BODY);
        let h = format!("t={NOW},v1={bad},v1={good}");
        assert_eq!(verify(&h, BODY, SECRET, NOW), Ok(NOW));
        let h = format!("t={NOW},v1={bad},v1=nothex");
        assert_eq!(verify(&h, BODY, SECRET, NOW), Err(SignatureError::Mismatch));
    }

    #[test]
    fn stale_and_future_timestamps_are_refused() {
        let h = header(SECRET, NOW, BODY);
        assert_eq!(
            verify(&h, BODY, SECRET, NOW + TOLERANCE_SECS + 1),
            Err(SignatureError::Stale(TOLERANCE_SECS + 1))
        );
        assert_eq!(
            verify(&h, BODY, SECRET, NOW - FUTURE_SKEW_SECS - 1),
            Err(SignatureError::Future(FUTURE_SKEW_SECS + 1))
        );
        assert_eq!(verify(&h, BODY, SECRET, NOW - FUTURE_SKEW_SECS), Ok(NOW));
    }
}
