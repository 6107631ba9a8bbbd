//! The pages for people, served by the binary: the console at /admin (every path under it
//! is the same page, which routes on the client), the widget at /book/{tenantId}, and
//! their files under /ui, with their types, ETags, compression and security headers.

use kairos_testkit::TestApp;

#[tokio::test]
async fn the_console_is_served_at_every_admin_path_and_may_not_be_framed() {
    let app = TestApp::spawn().await;
    for path in ["/admin", "/admin/", "/admin/operations/bookings/new"] {
        let res = app.get(path).send().await;
        res.assert_status(200);
        assert_eq!(
            res.header("content-type"),
            Some("text/html; charset=utf-8"),
            "{path}"
        );
        assert!(
            res.text.contains("/ui/admin/main.js"),
            "{path}: {}",
            res.text
        );
        let csp = res.header("content-security-policy").unwrap();
        // This origin, and Stripe.js with its frames and API for a venue's card account.
        assert!(
            csp.contains("script-src 'self' https://js.stripe.com;"),
            "{csp}"
        );
        assert!(
            csp.contains(
                "frame-src 'self' https://js.stripe.com https://*.js.stripe.com https://hooks.stripe.com;"
            ),
            "{csp}"
        );
        assert!(
            csp.contains("connect-src 'self' https://js.stripe.com https://api.stripe.com;"),
            "{csp}"
        );
        assert!(csp.contains("frame-ancestors 'none'"), "{csp}");
        assert_eq!(res.header("x-content-type-options"), Some("nosniff"));
    }
}

#[tokio::test]
async fn the_widget_is_served_for_every_tenant_path_and_may_be_framed_by_any_site() {
    let app = TestApp::spawn().await;
    for path in ["/book/demo", "/book/demo/", "/book/demo/manage"] {
        let res = app.get(path).send().await;
        res.assert_status(200);
        assert!(
            res.text.contains("/ui/book/main.js"),
            "{path}: {}",
            res.text
        );
        let csp = res.header("content-security-policy").unwrap();
        assert!(csp.contains("frame-ancestors *"), "{csp}");
        assert!(csp.contains("script-src 'self'"), "{csp}");
    }
}

#[tokio::test]
async fn the_pages_files_have_their_types_and_revalidate_by_etag() {
    let app = TestApp::spawn().await;
    let res = app.get("/ui/admin/main.js").send().await;
    res.assert_status(200);
    assert_eq!(
        res.header("content-type"),
        Some("text/javascript; charset=utf-8")
    );
    assert_eq!(res.header("cache-control"), Some("no-cache"));
    let etag = res.header("etag").unwrap().to_owned();
    let again = app
        .get("/ui/admin/main.js")
        .header("if-none-match", &etag)
        .send()
        .await;
    again.assert_status(304);
    assert!(again.text.is_empty());

    let vendor = app.get("/ui/vendor/preact.mjs").send().await;
    vendor.assert_status(200);
    assert_eq!(
        vendor.header("content-type"),
        Some("text/javascript; charset=utf-8")
    );
    let css = app.get("/ui/shared/kairos.css").send().await;
    assert_eq!(css.header("content-type"), Some("text/css; charset=utf-8"));
}

#[tokio::test]
async fn files_are_compressed_for_clients_that_accept_gzip() {
    let app = TestApp::spawn().await;
    let plain = app.get("/ui/vendor/openapi-fetch.mjs").send().await;
    let gzipped = app
        .get("/ui/vendor/openapi-fetch.mjs")
        .header("accept-encoding", "gzip")
        .send()
        .await;
    gzipped.assert_status(200);
    assert_eq!(gzipped.header("content-encoding"), Some("gzip"));
    assert!(plain.header("content-encoding").is_none());
}

#[tokio::test]
async fn a_missing_file_is_the_apis_404_and_pages_are_not_served_as_files() {
    let app = TestApp::spawn().await;
    for path in [
        "/ui/admin/nothing.js",
        "/ui/admin.html",
        "/ui/../Cargo.toml",
    ] {
        app.get(path).send().await.assert_error(404, "NOT_FOUND");
    }
}

#[test]
fn the_policy_follows_the_card_providers_addresses() {
    // A Stripe-compatible test server serving its stand-in for Stripe.js and its API.
    let csp = kairos_api::pages::content_policy(
        "http://127.0.0.1:8420/js.stripe.com/v3/",
        "http://127.0.0.1:8420",
    );
    assert!(
        csp.contains("script-src 'self' http://127.0.0.1:8420;"),
        "{csp}"
    );
    assert!(
        csp.contains("frame-src 'self' http://127.0.0.1:8420;"),
        "{csp}"
    );
    assert!(!csp.contains("stripe.com"), "{csp}");
    // Addresses that are not URLs add nothing.
    let csp = kairos_api::pages::content_policy("", "not a url");
    assert!(csp.contains("script-src 'self';"), "{csp}");
    assert!(csp.contains("connect-src 'self';"), "{csp}");
    assert!(csp.contains("frame-src 'self';"), "{csp}");
}
