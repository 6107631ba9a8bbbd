//! Cross-origin access (CORS): which browser origins may call the API, checked once at
//! start, and the layer that answers their preflight requests.
//!
//! The default is no cross-origin access at all: without a configured origin the layer is
//! not installed, so responses carry no `Access-Control-*` header and browsers keep the
//! same-origin policy. Credentials (cookies) are never allowed: the API authenticates with
//! bearer tokens and booking tokens sent in headers, which works with `*` as well.
//!
//! `router::router` installs the layer outside the routes and their rate limits: a
//! preflight `OPTIONS` is answered here, before routing would refuse it with a 405 and
//! without spending the caller's request budget.

use axum::http::{HeaderName, HeaderValue, Method, header};
use std::time::Duration;
use tower::layer::util::Identity;
use tower::util::Either;
use tower_http::cors::{AllowOrigin, CorsLayer};

/// Request headers a browser may send cross-origin (beyond the CORS-safelisted ones).
const ALLOWED_HEADERS: [HeaderName; 6] = [
    header::CONTENT_TYPE,
    header::AUTHORIZATION,
    HeaderName::from_static("x-tenant-id"),
    HeaderName::from_static("x-booking-token"),
    HeaderName::from_static("idempotency-key"),
    HeaderName::from_static("x-request-id"),
];

/// Response headers a browser script may read (beyond the CORS-safelisted ones).
const EXPOSED_HEADERS: [HeaderName; 5] = [
    HeaderName::from_static("x-request-id"),
    HeaderName::from_static("x-ratelimit-limit"),
    HeaderName::from_static("x-ratelimit-remaining"),
    HeaderName::from_static("x-ratelimit-reset"),
    header::RETRY_AFTER,
];

/// How long a browser may reuse a preflight answer.
const PREFLIGHT_MAX_AGE: Duration = Duration::from_secs(3600);

/// Which browser origins may call the API.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum CorsOrigins {
    /// No cross-origin access (the default).
    #[default]
    None,
    /// Any origin (`*`).
    Any,
    /// Exactly these origins, as browsers send them in `Origin` (`https://shop.example`).
    List(Vec<HeaderValue>),
}

/// Why a configured origin list was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CorsError {
    #[error("'*' allows every origin and cannot be combined with other origins")]
    WildcardInList,
    #[error(
        "'{0}' is not an origin: write scheme://host or scheme://host:port, \
         without a path or a trailing '/'"
    )]
    NotAnOrigin(String),
}

impl CorsOrigins {
    /// Parses a comma-separated list of origins, or `*`; empty means none.
    ///
    /// Origins are compared byte for byte with the browser's `Origin` header, which is
    /// always `scheme://host[:port]` in lower case: anything else could never match, so
    /// it is refused here rather than silently failing in the browser.
    pub fn parse(list: &str) -> Result<CorsOrigins, CorsError> {
        let items: Vec<&str> = list
            .split(',')
            .map(str::trim)
            .filter(|item| !item.is_empty())
            .collect();
        if items.is_empty() {
            return Ok(CorsOrigins::None);
        }
        if items.contains(&"*") {
            return match items.len() {
                1 => Ok(CorsOrigins::Any),
                _ => Err(CorsError::WildcardInList),
            };
        }
        let mut origins = Vec::with_capacity(items.len());
        for item in items {
            let origin =
                normalize_origin(item).ok_or_else(|| CorsError::NotAnOrigin(item.to_owned()))?;
            let value = HeaderValue::from_str(&origin)
                .map_err(|_| CorsError::NotAnOrigin(item.to_owned()))?;
            if !origins.contains(&value) {
                origins.push(value);
            }
        }
        Ok(CorsOrigins::List(origins))
    }
}

/// `scheme://host[:port]` in lower case, or `None` when `text` is not an origin.
fn normalize_origin(text: &str) -> Option<String> {
    let (scheme, authority) = text.split_once("://")?;
    let scheme_ok = scheme.starts_with(|c: char| c.is_ascii_alphabetic())
        && scheme
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
    if !scheme_ok || authority.is_empty() {
        return None;
    }
    // Bracketed IPv6 hosts contain ':' themselves; the port follows the bracket.
    let (host, port) = match authority.strip_prefix('[') {
        Some(rest) => {
            let (inside, after) = rest.split_once(']')?;
            let ipv6_ok = !inside.is_empty()
                && inside
                    .chars()
                    .all(|c| c.is_ascii_hexdigit() || matches!(c, ':' | '.'));
            if !ipv6_ok {
                return None;
            }
            let port = match after {
                "" => None,
                _ => Some(after.strip_prefix(':')?),
            };
            (&authority[..inside.len() + 2], port)
        }
        None => match authority.split_once(':') {
            Some((host, port)) => (host, Some(port)),
            None => (authority, None),
        },
    };
    let host_ok = host.starts_with('[')
        || (!host.is_empty()
            && host
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '.')));
    let port_ok = port.is_none_or(|p| p.parse::<u16>().is_ok_and(|n| n > 0));
    (host_ok && port_ok).then(|| text.to_ascii_lowercase())
}

/// The CORS layer for `origins`; nothing when cross-origin access is off, so that nothing
/// changes for same-origin callers (an `OPTIONS` request stays a 405).
pub fn layer(origins: &CorsOrigins) -> Either<CorsLayer, Identity> {
    tower::util::option_layer(cors_layer(origins))
}

fn cors_layer(origins: &CorsOrigins) -> Option<CorsLayer> {
    let allow_origin = match origins {
        CorsOrigins::None => return None,
        CorsOrigins::Any => AllowOrigin::any(),
        // `AllowOrigin::list` panics on `*`; `parse` never puts it in a list.
        CorsOrigins::List(list) => AllowOrigin::list(
            list.iter()
                .filter(|origin| origin.as_bytes() != b"*")
                .cloned(),
        ),
    };
    Some(
        CorsLayer::new()
            .allow_origin(allow_origin)
            .allow_methods([
                Method::GET,
                Method::POST,
                Method::PUT,
                Method::PATCH,
                Method::DELETE,
            ])
            .allow_headers(ALLOWED_HEADERS)
            .expose_headers(EXPOSED_HEADERS)
            .max_age(PREFLIGHT_MAX_AGE),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list(origins: &[&str]) -> CorsOrigins {
        CorsOrigins::List(
            origins
                .iter()
                .map(|o| HeaderValue::from_str(o).unwrap_or_else(|e| panic!("{e}")))
                .collect(),
        )
    }

    #[test]
    fn origin_lists_are_parsed_and_normalized() {
        assert_eq!(CorsOrigins::parse(""), Ok(CorsOrigins::None));
        assert_eq!(CorsOrigins::parse(" , "), Ok(CorsOrigins::None));
        assert_eq!(CorsOrigins::parse("*"), Ok(CorsOrigins::Any));
        assert_eq!(
            CorsOrigins::parse("https://Shop.Example, http://localhost:5173,https://shop.example"),
            Ok(list(&["https://shop.example", "http://localhost:5173"]))
        );
        assert_eq!(
            CorsOrigins::parse("http://[::1]:3000"),
            Ok(list(&["http://[::1]:3000"]))
        );
    }

    #[test]
    fn anything_a_browser_would_never_send_as_origin_is_refused() {
        for bad in [
            "shop.example",
            "https://shop.example/",
            "https://shop.example/app",
            "https://shop.example?x=1",
            "https://user@shop.example",
            "https://shop.example:0",
            "https://shop.example:99999",
            "https://",
            "null",
            "https://[zz]:1",
        ] {
            assert_eq!(
                CorsOrigins::parse(bad),
                Err(CorsError::NotAnOrigin(bad.to_owned())),
                "{bad}"
            );
        }
        assert_eq!(
            CorsOrigins::parse("*, https://shop.example"),
            Err(CorsError::WildcardInList)
        );
    }
}
