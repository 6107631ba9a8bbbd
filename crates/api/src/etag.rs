//! Conditional GETs: whether a request's `If-None-Match` names the current entity tag, so
//! the answer is `304 Not Modified` (the day sheet, the pages' files).

use axum::http::{HeaderMap, header};

/// True when `If-None-Match` is `*` or lists `etag` (a quoted tag), compared weakly as
/// RFC 9110 asks of `If-None-Match`: `W/"x"` matches `"x"`.
pub fn unchanged(headers: &HeaderMap, etag: &str) -> bool {
    let weak = |t: &str| t.trim().trim_start_matches("W/").to_owned();
    let wanted = weak(etag);
    headers
        .get_all(header::IF_NONE_MATCH)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .any(|t| t.trim() == "*" || weak(t) == wanted)
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn with(values: &[&str]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for v in values {
            h.append(
                header::IF_NONE_MATCH,
                HeaderValue::from_str(v).unwrap_or_else(|e| panic!("{e}")),
            );
        }
        h
    }

    #[test]
    fn a_listed_tag_or_a_star_is_unchanged_and_anything_else_is_not() {
        let tag = "\"abc\"";
        assert!(unchanged(&with(&["\"abc\""]), tag));
        assert!(unchanged(&with(&["\"x\", \"abc\""]), tag));
        assert!(unchanged(&with(&["\"x\"", "W/\"abc\""]), tag));
        assert!(unchanged(&with(&["*"]), tag));
        assert!(!unchanged(&with(&["\"abcd\""]), tag));
        assert!(!unchanged(&with(&[]), tag));
    }
}
