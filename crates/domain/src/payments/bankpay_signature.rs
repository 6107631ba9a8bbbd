//! The bank-redirect provider's signatures (spec Part B 4.6, 5): Paytrail's scheme.
//!
//! A request, a response and a callback are signed alike: the `checkout-*` parameters
//! (headers, or query parameters of a redirect or callback) sorted by name, each as
//! `name:value`, one per line, then the body (empty for GET and callbacks), joined with
//! `\n`; HMAC with the merchant secret, SHA-256 (`checkout-algorithm: sha256`) or
//! SHA-512 (`sha512`), in lower-case hex, in the `signature` header or parameter.

use hmac::{Hmac, Mac};
use sha2::{Sha256, Sha512};

/// The hash a signature uses (`checkout-algorithm`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Algorithm {
    Sha256,
    Sha512,
}

impl Algorithm {
    pub fn parse(raw: &str) -> Option<Algorithm> {
        match raw {
            "sha256" => Some(Algorithm::Sha256),
            "sha512" => Some(Algorithm::Sha512),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Algorithm::Sha256 => "sha256",
            Algorithm::Sha512 => "sha512",
        }
    }
}

/// The signed text: the `checkout-` parameters of `params` sorted by name as
/// `name:value` lines, then `body`.
pub fn canonical<'a>(params: impl IntoIterator<Item = (&'a str, &'a str)>, body: &str) -> String {
    let mut checkout: Vec<(&str, &str)> = params
        .into_iter()
        .filter(|(name, _)| name.starts_with("checkout-"))
        .collect();
    checkout.sort_unstable_by(|a, b| a.0.cmp(b.0));
    let mut lines: Vec<String> = checkout
        .into_iter()
        .map(|(name, value)| format!("{name}:{value}"))
        .collect();
    lines.push(body.to_owned());
    lines.join("\n")
}

/// The signature of `params` and `body` with `secret`.
pub fn sign<'a>(
    secret: &str,
    algorithm: Algorithm,
    params: impl IntoIterator<Item = (&'a str, &'a str)>,
    body: &str,
) -> String {
    let text = canonical(params, body);
    match algorithm {
        Algorithm::Sha256 => hex::encode(digest::<Hmac<Sha256>>(secret, &text)),
        Algorithm::Sha512 => hex::encode(digest::<Hmac<Sha512>>(secret, &text)),
    }
}

fn digest<M: Mac + hmac::digest::KeyInit>(secret: &str, text: &str) -> Vec<u8> {
    let mut mac = match <M as hmac::digest::KeyInit>::new_from_slice(secret.as_bytes()) {
        Ok(m) => m,
        Err(_) => return Vec::new(),
    };
    mac.update(text.as_bytes());
    mac.finalize().into_bytes().to_vec()
}

/// Whether `signature` signs `params` and `body` with `secret`, using the algorithm the
/// parameters name (`checkout-algorithm`); compared in constant time.
pub fn verify<'a>(
    secret: &str,
    params: impl IntoIterator<Item = (&'a str, &'a str)> + Clone,
    body: &str,
    signature: &str,
) -> bool {
    let algorithm = params
        .clone()
        .into_iter()
        .find(|(name, _)| *name == "checkout-algorithm")
        .and_then(|(_, value)| Algorithm::parse(value));
    let (Some(algorithm), Ok(given)) = (algorithm, hex::decode(signature.trim())) else {
        return false;
    };
    let text = canonical(params, body);
    match algorithm {
        Algorithm::Sha256 => check::<Hmac<Sha256>>(secret, &text, &given),
        Algorithm::Sha512 => check::<Hmac<Sha512>>(secret, &text, &given),
    }
}

fn check<M: Mac + hmac::digest::KeyInit>(secret: &str, text: &str, given: &[u8]) -> bool {
    match <M as hmac::digest::KeyInit>::new_from_slice(secret.as_bytes()) {
        Ok(mut mac) => {
            mac.update(text.as_bytes());
            mac.verify_slice(given).is_ok()
        }
        Err(_) => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SECRET: &str = "SAIPPUAKAUPPIAS";

    /// Paytrail's documented example (api-documentation, docs/examples.md): merchant
    /// 375917, secret SAIPPUAKAUPPIAS.
    #[test]
    fn the_documented_example_signs_as_paytrail_shows() {
        let headers = [
            ("checkout-account", "375917"),
            ("checkout-algorithm", "sha256"),
            ("checkout-method", "POST"),
            ("checkout-nonce", "564635208570151"),
            ("checkout-timestamp", "2018-07-06T10:01:31.904Z"),
        ];
        let body = r##"{"stamp":"unique-identifier-for-merchant","reference":"3759170","amount":1525,"currency":"EUR","language":"FI","items":[{"unitPrice":1525,"units":1,"vatPercentage":24,"productCode":"#1234","deliveryDate":"2018-09-01"}],"customer":{"email":"test.customer@example.com"},"redirectUrls":{"success":"https://ecom.example.com/cart/success","cancel":"https://ecom.example.com/cart/cancel"}}"##;
        let expected = "3708f6497ae7cc55a2e6009fc90aa10c3ad0ef125260ee91b19168750f6d74f6";
        assert_eq!(sign(SECRET, Algorithm::Sha256, headers, body), expected);
        assert!(verify(SECRET, headers, body, expected));
        assert!(!verify("other", headers, body, expected));
        assert!(!verify(SECRET, headers, "{}", expected));
    }

    /// The documentation's GET example: the headers are sorted before signing.
    #[test]
    fn parameters_are_sorted_and_an_empty_body_ends_the_text() {
        let headers = [
            ("checkout-account", "375917"),
            ("checkout-algorithm", "sha256"),
            ("checkout-method", "GET"),
            ("checkout-timestamp", "2019-11-01T08:48:50.832Z"),
            (
                "checkout-transaction-id",
                "681538c4-fc84-11e9-83bc-2ffcef4c3453",
            ),
            ("checkout-nonce", "87ac41e1-e6e6-4789-b8e0-c83930cfc447"),
        ];
        assert_eq!(
            sign(SECRET, Algorithm::Sha256, headers, ""),
            "4d84e3aedaa847b23e672ff3bc9c57ae5d1c1e84aec251ce39914eaf250bb8b2"
        );
    }

    /// The documentation's redirect example: query parameters, `signature` itself and
    /// other names left out.
    #[test]
    fn a_redirect_or_callback_verifies_from_its_query() {
        let query = [
            ("checkout-account", "375917"),
            ("checkout-algorithm", "sha256"),
            ("checkout-amount", "2964"),
            ("checkout-stamp", "15336332710015"),
            ("checkout-reference", "192387192837195"),
            (
                "checkout-transaction-id",
                "4b300af6-9a22-11e8-9184-abb6de7fd2d0",
            ),
            ("checkout-status", "ok"),
            ("checkout-provider", "nordea"),
            ("other", "ignored"),
        ];
        let signature = "b2d3ecdda2c04563a4638fcade3d4e77dfdc58829b429ad2c2cb422d0fc64080";
        assert!(verify(SECRET, query, "", signature));
        let mut tampered = query;
        tampered[2] = ("checkout-amount", "1");
        assert!(!verify(SECRET, tampered, "", signature));
        assert!(!verify(SECRET, query, "", "not hex"));
    }

    #[test]
    fn sha512_is_chosen_by_checkout_algorithm() {
        let headers = [
            ("checkout-account", "375917"),
            ("checkout-algorithm", "sha512"),
        ];
        let s = sign(SECRET, Algorithm::Sha512, headers, "");
        assert_eq!(s.len(), 128);
        assert!(verify(SECRET, headers, "", &s));
        let unknown = [("checkout-algorithm", "md5")];
        assert!(!verify(SECRET, unknown, "", &s));
    }
}
