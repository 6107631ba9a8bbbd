//! Tracked emails (`trackDelivery`): an open pixel at the end of the body and every
//! `href="http…"` link routed through the click endpoint, which records the click and
//! redirects to the link (only to links the message itself contains).
//!
//! - open: `GET <public_url>/track/<tenant>/<message id>/open.gif`
//! - click: `GET <public_url>/track/<tenant>/<message id>/click?url=<link>`

use kairos_domain::TenantId;
use uuid::Uuid;

/// The body with its links routed through the click endpoint and the open pixel added.
pub fn instrument(body: &str, base: &str, tenant: &TenantId, id: Uuid) -> String {
    let base = base.trim_end_matches('/');
    let prefix = format!("{base}/track/{}/{id}", tenant.as_str());
    let mut out = String::with_capacity(body.len() + 200);
    let mut rest = body;
    while let Some(at) = rest.find("href=\"") {
        let start = at + "href=\"".len();
        out.push_str(&rest[..start]);
        let after = &rest[start..];
        let end = after.find('"').unwrap_or(after.len());
        let link = &after[..end];
        if link.starts_with("http://") || link.starts_with("https://") {
            match reqwest::Url::parse_with_params(
                &format!("{prefix}/click"),
                [("url", html_unescape(link))],
            ) {
                Ok(tracked) => out.push_str(tracked.as_str()),
                Err(_) => out.push_str(link),
            }
        } else {
            out.push_str(link);
        }
        rest = &after[end..];
    }
    out.push_str(rest);
    let pixel = format!(
        "<img src=\"{prefix}/open.gif\" width=\"1\" height=\"1\" alt=\"\" style=\"display:none\">"
    );
    match out.rfind("</body>") {
        Some(i) => out.insert_str(i, &pixel),
        None => out.push_str(&pixel),
    }
    out
}

/// A link as written in HTML (`&amp;` for `&`) as the browser follows it.
fn html_unescape(s: &str) -> String {
    s.replace("&amp;", "&")
        .replace("&#x3D;", "=")
        .replace("&#x27;", "'")
        .replace("&quot;", "\"")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_are_routed_and_a_pixel_added() {
        let tenant = TenantId::parse("acme").unwrap();
        let id = Uuid::from_u128(1);
        let out = instrument(
            "<p><a href=\"https://example.com/a?b=1&amp;c=2\">x</a> <a href=\"mailto:a@b\">m</a></p>",
            "https://book.example.com/",
            &tenant,
            id,
        );
        let prefix = format!("https://book.example.com/track/acme/{id}");
        assert!(
            out.contains(&format!(
                "href=\"{prefix}/click?url=https%3A%2F%2Fexample.com%2Fa%3Fb%3D1%26c%3D2\""
            )),
            "{out}"
        );
        assert!(out.contains("href=\"mailto:a@b\""), "{out}");
        assert!(out.ends_with(&format!(
            "<img src=\"{prefix}/open.gif\" width=\"1\" height=\"1\" alt=\"\" style=\"display:none\">"
        )));
    }
}
