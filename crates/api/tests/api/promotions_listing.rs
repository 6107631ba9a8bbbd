//! Promotions: the filtered, paged admin list, the promotions customers see, and exports
//! as JSON pages and CSV.

use kairos_domain::auth::Role;
use kairos_testkit::TestApp;
use serde_json::json;

#[tokio::test]
async fn the_list_filters_by_status_type_and_search_with_pages() {
    let app = TestApp::spawn().await;
    let t = app.tenant("acme").await;
    // The clock is at 2026-11-21T09:00Z.
    let promotions = [
        (
            "ACTIVE1",
            "percentage",
            "2026-11-01T00:00:00Z",
            Some("2026-12-01T00:00:00Z"),
            true,
        ),
        (
            "ACTIVE2",
            "fixed_amount",
            "2026-11-01T00:00:00Z",
            None,
            true,
        ),
        (
            "PAUSED",
            "fixed_amount",
            "2026-11-01T00:00:00Z",
            None,
            false,
        ),
        (
            "EXPIRED",
            "percentage",
            "2026-10-01T00:00:00Z",
            Some("2026-11-01T00:00:00Z"),
            true,
        ),
        ("UPCOMING", "percentage", "2026-12-24T00:00:00Z", None, true),
    ];
    for (code, kind, starts, expires, active) in promotions {
        app.post("/api/v1/admin/promotions")
            .tenant("acme")
            .token(&t.owner_token)
            .json(json!({
                "code": code, "name": format!("{code} deal"), "type": kind,
                "discount_value": 10, "starts_at": starts, "expires_at": expires,
                "is_active": active
            }))
            .send()
            .await
            .assert_status(200);
    }
    let codes = |res: &kairos_testkit::TestResponse| -> Vec<String> {
        let mut codes: Vec<String> = res.body["promotions"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|p| p["code"].as_str().map(str::to_owned))
            .collect();
        codes.sort();
        codes
    };
    let list = |query: &'static str| {
        let app = &app;
        let token = t.owner_token.clone();
        async move {
            app.get(&format!("/api/v1/admin/promotions{query}"))
                .tenant("acme")
                .token(&token)
                .send()
                .await
        }
    };
    let all = list("").await;
    all.assert_status(200);
    assert_eq!(all.body["total"], 5);
    assert_eq!(all.body["page"], 1);
    assert_eq!(all.body["per_page"], 50);
    assert_eq!(codes(&list("?status=active").await), ["ACTIVE1", "ACTIVE2"]);
    assert_eq!(codes(&list("?status=expired").await), ["EXPIRED"]);
    assert_eq!(codes(&list("?status=upcoming").await), ["UPCOMING"]);
    assert_eq!(
        codes(&list("?type=fixed_amount").await),
        ["ACTIVE2", "PAUSED"]
    );
    assert_eq!(codes(&list("?search=pAuS").await), ["PAUSED"]);
    // Names are searched in any case, accented letters too, on both databases.
    for (code, name) in [("AERGER1", "Ärger"), ("AERGER2", "ärger klein")] {
        app.post("/api/v1/admin/promotions")
            .tenant("acme")
            .token(&t.owner_token)
            .json(json!({
                "code": code, "name": name, "type": "fixed_amount", "discount_value": 1,
                "starts_at": "2026-11-01T00:00:00Z"
            }))
            .send()
            .await
            .assert_status(200);
    }
    assert_eq!(
        codes(&list("?search=%C3%84RGER").await),
        ["AERGER1", "AERGER2"]
    );
    // A code is compared as the ASCII it is: the Kelvin sign is not a K.
    assert_eq!(
        codes(&list("?search=%E2%84%AAK").await),
        Vec::<String>::new()
    );
    assert_eq!(codes(&list("?search=aerger").await), ["AERGER1", "AERGER2"]);
    assert_eq!(codes(&list("?search=upcoming%20deal").await), ["UPCOMING"]);
    // A search for a LIKE wildcard matches it literally.
    assert_eq!(codes(&list("?search=%25").await), Vec::<String>::new());
    let page = list("?per_page=2&page=4").await;
    assert_eq!(page.body["total"], 7);
    assert_eq!(page.body["total_pages"], 4);
    assert_eq!(page.body["promotions"].as_array().map(Vec::len), Some(1));
    let bad = list("?status=soon&type=free&per_page=101").await;
    bad.assert_error(400, "VALIDATION_ERROR");
    assert_eq!(bad.error_fields(), ["status", "type", "per_page"]);
}

#[tokio::test]
async fn customers_see_the_promotions_that_apply() {
    let app = TestApp::spawn().await;
    let t = app.tenant("acme").await;
    let catalog = app.catalog(&t).await;
    let other_product = uuid::Uuid::from_u128(7).to_string();
    // The clock is at 2026-11-21T09:00Z.
    let promotions = [
        json!({"code": "OPEN", "is_public": true}),
        json!({"code": "HIDDEN", "is_public": false}),
        json!({"code": "OFF", "is_active": false}),
        json!({"code": "LATER", "starts_at": "2026-12-24T00:00:00Z"}),
        json!({"code": "OVER", "starts_at": "2026-10-01T00:00:00Z", "expires_at": "2026-11-01T00:00:00Z"}),
        json!({"code": "HERE", "applicable_sites": [catalog.site_id], "applicable_products": [catalog.product_id]}),
    ];
    for extra in promotions {
        let mut body = json!({
            "name": "Deal", "type": "percentage", "discount_value": 10,
            "starts_at": "2026-11-01T00:00:00Z", "usage_limit": 5
        });
        for (k, v) in extra.as_object().into_iter().flatten() {
            body[k] = v.clone();
        }
        app.post("/api/v1/admin/promotions")
            .tenant("acme")
            .token(&t.owner_token)
            .json(body)
            .send()
            .await
            .assert_status(200);
    }
    let codes = |res: &kairos_testkit::TestResponse| -> Vec<String> {
        res.body["promotions"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|p| p["code"].as_str().map(str::to_owned))
            .collect()
    };
    // No token needed.
    let listed = app.get("/api/v1/promotions").tenant("acme").send().await;
    listed.assert_status(200);
    assert_eq!(codes(&listed), ["HERE", "LATER", "OPEN"]);
    assert_eq!(listed.body["total"], 3);
    let open = &listed.body["promotions"][2];
    assert_eq!(open["usage_remaining"], 5);
    assert_eq!(open["usage_limit"], 5);
    assert_eq!(open["type"], "percentage");
    assert!(open.get("usage_count").is_none(), "admin views only");

    let active = app
        .get("/api/v1/promotions/active")
        .tenant("acme")
        .send()
        .await;
    assert_eq!(codes(&active), ["HERE", "OPEN"]);
    let here = app
        .get(&format!(
            "/api/v1/promotions/active?site_id={}&product_id={}",
            catalog.site_id, catalog.product_id
        ))
        .tenant("acme")
        .send()
        .await;
    assert_eq!(codes(&here), ["HERE", "OPEN"]);
    let elsewhere = app
        .get(&format!(
            "/api/v1/promotions/active?product_id={other_product}"
        ))
        .tenant("acme")
        .send()
        .await;
    assert_eq!(codes(&elsewhere), ["OPEN"]);
    // A code that is not public is found when typed, in any case; one that does not
    // apply is not.
    let hidden = app
        .get("/api/v1/promotions/active?code=hidden")
        .tenant("acme")
        .send()
        .await;
    assert_eq!(codes(&hidden), ["HIDDEN"]);
    for code in ["OFF", "LATER", "OVER", "NOPE"] {
        let res = app
            .get(&format!("/api/v1/promotions/active?code={code}"))
            .tenant("acme")
            .send()
            .await;
        assert_eq!(codes(&res), Vec::<String>::new(), "{code}");
    }
    let bad = app
        .get(&format!(
            "/api/v1/promotions/active?site_id=nope&code={}",
            "X".repeat(51)
        ))
        .tenant("acme")
        .send()
        .await;
    bad.assert_error(400, "VALIDATION_ERROR");
    assert_eq!(bad.error_fields(), ["site_id", "code"]);
    // Another tenant sees none of them.
    app.tenant("other").await;
    let theirs = app.get("/api/v1/promotions").tenant("other").send().await;
    assert_eq!(theirs.body["total"], 0);
}

#[tokio::test]
async fn promotions_export_as_json_pages_and_as_csv() {
    let app = TestApp::spawn().await;
    let t = app.tenant("acme").await;
    let catalog = app.catalog(&t).await;
    let rows = [
        json!({"code": "PCT", "type": "percentage", "discount_value": 12.5, "max_discount_amount": 20,
               "applicable_products": [catalog.product_id]}),
        json!({"code": "SITE5", "type": "fixed_amount", "discount_value": 5, "applicable_sites": [catalog.site_id],
               "is_public": false}),
        json!({"code": "FAMILY", "type": "bundle", "discount_value": 80, "bundle_size": 4,
               "name": "@family", "description": "=HYPERLINK(\"http://x\")",
               "is_active": false, "expires_at": "2027-01-01T00:00:00Z"}),
    ];
    for row in rows {
        let mut body = json!({"name": "Deal", "starts_at": "2026-11-01T00:00:00Z"});
        for (k, v) in row.as_object().into_iter().flatten() {
            body[k] = v.clone();
        }
        app.post("/api/v1/admin/promotions")
            .tenant("acme")
            .token(&t.owner_token)
            .json(body)
            .send()
            .await
            .assert_status(200);
    }
    // A viewer (admin:read) may export.
    app.staff("acme", "look", "look-password-1", &[Role::Viewer])
        .await;
    let viewer = app.admin_token("acme", "look", "look-password-1").await;

    let page = app
        .get("/api/v1/admin/promotions/export?pageSize=2")
        .tenant("acme")
        .token(&viewer)
        .send()
        .await;
    page.assert_status(200);
    assert_eq!(page.body["total"], 3);
    assert_eq!(page.body["page"], 1);
    assert_eq!(page.body["pageSize"], 2);
    assert_eq!(page.body["totalPages"], 2);
    assert!(page.body["generatedAt"].is_string());
    assert_eq!(page.body["data"].as_array().map(Vec::len), Some(2));

    let filtered = app
        .get("/api/v1/admin/promotions/export?scopeType=product")
        .tenant("acme")
        .token(&viewer)
        .send()
        .await;
    let data = filtered.body["data"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert_eq!(data.len(), 1);
    let pct = &data[0];
    assert_eq!(pct["code"], "PCT");
    assert_eq!(pct["promotionType"], "percentage");
    assert_eq!(pct["discountValue"], 12.5);
    assert_eq!(pct["maxDiscountAmount"], 20.0);
    assert_eq!(pct["scopeType"], "product");
    assert_eq!(pct["currentUsageCount"], 0);
    assert_eq!(pct["applicableProducts"], json!([catalog.product_id]));
    for (query, codes) in [
        ("scopeType=site", vec!["SITE5"]),
        ("scopeType=booking", vec!["FAMILY"]),
        ("isPublic=false", vec!["SITE5"]),
        ("isActive=false", vec!["FAMILY"]),
        ("promotionType=bundle", vec!["FAMILY"]),
        ("search=pc", vec!["PCT"]),
        ("endDate=2027-06-01", vec!["FAMILY"]),
        ("startDate=2026-11-02", vec![]),
    ] {
        let res = app
            .get(&format!("/api/v1/admin/promotions/export?{query}"))
            .tenant("acme")
            .token(&viewer)
            .send()
            .await;
        let got: Vec<&str> = res.body["data"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|p| p["code"].as_str())
            .collect();
        assert_eq!(got, codes, "{query}");
    }

    let csv = app
        .get("/api/v1/admin/promotions/export?format=csv")
        .tenant("acme")
        .token(&viewer)
        .send()
        .await;
    csv.assert_status(200);
    assert!(
        csv.header("content-type")
            .is_some_and(|v| v.starts_with("text/csv")),
        "{:?}",
        csv.header("content-type")
    );
    assert!(
        csv.header("content-disposition")
            .is_some_and(|v| v.starts_with("attachment; filename=\"promotions-")),
    );
    let text = &csv.text;
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 4, "{text}");
    assert!(lines[0].starts_with("code,name,description,promotionType,discountValue,"));
    // Formula cells are neutralised.
    assert!(text.contains(",'@family,"), "{text}");
    assert!(text.contains(",\"'=HYPERLINK("), "{text}");
    assert!(!text.contains(",@family,"), "{text}");

    let bad = app
        .get("/api/v1/admin/promotions/export?format=xml&isActive=maybe&scopeType=all&startDate=soon&pageSize=1001")
        .tenant("acme")
        .token(&viewer)
        .send()
        .await;
    bad.assert_error(400, "VALIDATION_ERROR");
    assert_eq!(
        bad.error_fields(),
        ["format", "isActive", "scopeType", "startDate", "pageSize"]
    );
}
