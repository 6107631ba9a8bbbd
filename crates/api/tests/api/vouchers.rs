//! Vouchers: administration and the public balance (spec Part A 2.6, 4.7).

use kairos_testkit::TestApp;
use serde_json::{Value, json};

#[tokio::test]
async fn vouchers_are_issued_listed_read_and_deactivated() {
    let app = TestApp::spawn().await;
    let t = app.tenant("acme").await;
    let res = app
        .post("/api/v1/admin/vouchers")
        .tenant("acme")
        .token(&t.owner_token)
        .json(json!({
            "code": "Sorry-2026", "type": "loyalty_credit", "original_value": 25.5,
            "expires_at": "2027-12-31T23:59:59Z", "customer_email": "Ada@Example.com"
        }))
        .send()
        .await;
    res.assert_status(200);
    assert_eq!(res.body["success"], true);
    let v = &res.body["voucher"];
    assert_eq!(v["code"], "Sorry-2026");
    assert_eq!(v["type"], "loyalty_credit");
    assert_eq!(v["original_value"], 25.5);
    assert_eq!(v["current_balance"], 25.5);
    assert_eq!(v["currency"], "EUR");
    assert_eq!(v["usage_count"], 0);
    assert_eq!(v["usage_limit"], Value::Null);
    assert_eq!(v["is_active"], true);
    assert_eq!(v["is_redeemed"], false);
    assert_eq!(v["customer_email"], "ada@example.com");
    let id = v["id"].as_str().unwrap_or_default().to_owned();

    // The ledger starts with the issue.
    let got = app
        .get(&format!("/api/v1/admin/vouchers/{id}"))
        .tenant("acme")
        .token(&t.owner_token)
        .send()
        .await;
    got.assert_status(200);
    assert_eq!(got.body["voucher"]["code"], "Sorry-2026");
    let ledger = got.body["transactions"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert_eq!(ledger.len(), 1);
    assert_eq!(ledger[0]["kind"], "issue");
    assert_eq!(ledger[0]["amount"], 25.5);
    assert_eq!(ledger[0]["balance_after"], 25.5);

    // Anyone with the code sees its balance, in any case, but not who it is for.
    let balance = app
        .get("/api/v1/vouchers/sorry-2026/balance")
        .tenant("acme")
        .send()
        .await;
    balance.assert_status(200);
    assert_eq!(balance.body["voucher"]["current_balance"], 25.5);
    assert_eq!(balance.body["voucher"]["customer_email"], Value::Null);
    // The Kelvin sign is not a K: codes are compared as the ASCII they are.
    for unknown in ["NOPE", "%E2%84%AAORRY-2026"] {
        app.get(&format!("/api/v1/vouchers/{unknown}/balance"))
            .tenant("acme")
            .send()
            .await
            .assert_error(404, "NOT_FOUND");
    }
    app.get(&format!("/api/v1/vouchers/{}/balance", "X".repeat(51)))
        .tenant("acme")
        .send()
        .await
        .assert_error(400, "VALIDATION_ERROR");
    // Another tenant does not know the code.
    app.tenant("other").await;
    app.get("/api/v1/vouchers/Sorry-2026/balance")
        .tenant("other")
        .send()
        .await
        .assert_error(404, "NOT_FOUND");

    let off = app
        .delete(&format!("/api/v1/admin/vouchers/{id}"))
        .tenant("acme")
        .token(&t.owner_token)
        .send()
        .await;
    off.assert_status(200);
    assert_eq!(off.body["voucher"]["is_active"], false);
    assert_eq!(
        off.body["voucher"]["current_balance"], 25.5,
        "the balance stays"
    );
    app.delete(&format!("/api/v1/admin/vouchers/{}", uuid::Uuid::nil()))
        .tenant("acme")
        .token(&t.owner_token)
        .send()
        .await
        .assert_error(404, "NOT_FOUND");
}

#[tokio::test]
async fn codes_are_generated_when_left_out_and_unique_whatever_their_case() {
    let app = TestApp::spawn().await;
    let t = app.tenant("acme").await;
    let issue = |body: Value| {
        let app = &app;
        let token = t.owner_token.clone();
        async move {
            app.post("/api/v1/admin/vouchers")
                .tenant("acme")
                .token(&token)
                .json(body)
                .send()
                .await
        }
    };
    let gift = issue(json!({"type": "gift_card", "original_value": 50})).await;
    gift.assert_status(200);
    let code = gift.body["voucher"]["code"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    let parts: Vec<&str> = code.split('-').collect();
    assert_eq!(parts.len(), 3, "{code}");
    assert_eq!(parts[0], "GIFT");
    assert!(
        parts[1..].iter().all(|p| p.len() == 4
            && p.chars()
                .all(|c| "ABCDEFGHJKLMNPQRSTUVWXYZ23456789".contains(c))),
        "{code}"
    );
    let credit = issue(json!({"type": "multi_use", "original_value": 10})).await;
    assert!(
        credit.body["voucher"]["code"]
            .as_str()
            .is_some_and(|c| c.starts_with("VCHR-"))
    );
    // A single-use voucher allows one use.
    let once = issue(json!({"type": "single_use", "original_value": 10})).await;
    assert_eq!(once.body["voucher"]["usage_limit"], 1);

    let taken =
        issue(json!({"code": code.to_lowercase(), "type": "multi_use", "original_value": 5})).await;
    taken.assert_error(409, "CONFLICT");
    assert_eq!(taken.body["details"]["code"], code.to_lowercase());
}

#[tokio::test]
async fn voucher_input_is_validated_field_by_field() {
    let app = TestApp::spawn().await;
    let t = app.tenant("acme").await;
    let post = |body: Value| {
        let app = &app;
        let token = t.owner_token.clone();
        async move {
            app.post("/api/v1/admin/vouchers")
                .tenant("acme")
                .token(&token)
                .json(body)
                .send()
                .await
        }
    };
    let res = post(json!({})).await;
    res.assert_error(400, "VALIDATION_ERROR");
    assert_eq!(res.error_fields(), ["type", "original_value"]);
    // The test clock is at 2026-11-21T09:00Z.
    let res = post(json!({
        "code": "no spaces", "type": "coupon", "original_value": 0,
        "expires_at": "2026-11-01T00:00:00Z", "usage_limit": 0, "customer_email": "nope"
    }))
    .await;
    res.assert_error(400, "VALIDATION_ERROR");
    assert_eq!(
        res.error_fields(),
        [
            "code",
            "type",
            "original_value",
            "expires_at",
            "usage_limit",
            "customer_email"
        ]
    );
    // A key named twice is refused, not read as its last value.
    let res = app
        .post("/api/v1/admin/vouchers")
        .tenant("acme")
        .token(&t.owner_token)
        .header("content-type", "application/json")
        .raw(r#"{"type": "gift_card", "original_value": 1.10, "original_value": 999}"#)
        .send()
        .await;
    res.assert_error(400, "VALIDATION_ERROR");
    assert!(
        res.body["message"]
            .as_str()
            .is_some_and(|m| m.contains("duplicate field `original_value`")),
        "{}",
        res.text
    );
    let res = post(json!({"type": "single_use", "original_value": 10.001, "usage_limit": 3})).await;
    res.assert_error(400, "VALIDATION_ERROR");
    assert_eq!(res.error_fields(), ["original_value", "usage_limit"]);
}

#[tokio::test]
async fn the_voucher_list_filters_and_pages() {
    let app = TestApp::spawn().await;
    let t = app.tenant("acme").await;
    for (code, kind, email) in [
        ("GIFT-AAAA-BBBB", "gift_card", "ada@example.com"),
        ("SORRY-1", "loyalty_credit", "bob@example.com"),
        ("SORRY-2", "loyalty_credit", "ada@example.com"),
    ] {
        app.post("/api/v1/admin/vouchers")
            .tenant("acme")
            .token(&t.owner_token)
            .json(
                json!({"code": code, "type": kind, "original_value": 20, "customer_email": email}),
            )
            .send()
            .await
            .assert_status(200);
    }
    let list = |query: String| {
        let app = &app;
        let token = t.owner_token.clone();
        async move {
            let res = app
                .get(&format!("/api/v1/admin/vouchers{query}"))
                .tenant("acme")
                .token(&token)
                .send()
                .await;
            res.assert_status(200);
            let mut codes: Vec<String> = res.body["vouchers"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|v| v["code"].as_str().map(str::to_owned))
                .collect();
            codes.sort();
            (codes, res.body.clone())
        }
    };
    let (all, body) = list(String::new()).await;
    assert_eq!(all.len(), 3);
    assert_eq!(body["total"], 3);
    assert_eq!(
        list("?type=loyalty_credit".into()).await.0,
        ["SORRY-1", "SORRY-2"]
    );
    assert_eq!(list("?search=sorry-2".into()).await.0, ["SORRY-2"]);
    assert_eq!(
        list("?customer_email=ADA@example.com".into()).await.0,
        ["GIFT-AAAA-BBBB", "SORRY-2"]
    );
    assert_eq!(
        list("?is_active=false".into()).await.0,
        Vec::<String>::new()
    );
    let (page, body) = list("?per_page=2&page=2".into()).await;
    assert_eq!(page.len(), 1);
    assert_eq!(body["total_pages"], 2);
    let bad = app
        .get("/api/v1/admin/vouchers?type=coupon&is_active=maybe&per_page=0")
        .tenant("acme")
        .token(&t.owner_token)
        .send()
        .await;
    bad.assert_error(400, "VALIDATION_ERROR");
    assert_eq!(bad.error_fields(), ["type", "is_active", "per_page"]);
}

#[tokio::test]
async fn vouchers_export_as_json_pages_and_as_csv() {
    let app = TestApp::spawn().await;
    let t = app.tenant("acme").await;
    for body in [
        json!({"code": "GIFT-AAAA-BBBB", "type": "gift_card", "original_value": 50, "customer_email": "ada@example.com"}),
        json!({"code": "SORRY-1", "type": "loyalty_credit", "original_value": 10}),
        json!({"code": "-1", "type": "single_use", "original_value": 5, "is_active": false}),
    ] {
        app.post("/api/v1/admin/vouchers")
            .tenant("acme")
            .token(&t.owner_token)
            .json(body)
            .send()
            .await
            .assert_status(200);
    }
    let codes = |res: &kairos_testkit::TestResponse| -> Vec<String> {
        let mut codes: Vec<String> = res.body["data"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|v| v["code"].as_str().map(str::to_owned))
            .collect();
        codes.sort();
        codes
    };
    let get = |query: &'static str| {
        let app = &app;
        let token = t.owner_token.clone();
        async move {
            app.get(&format!("/api/v1/admin/vouchers/export{query}"))
                .tenant("acme")
                .token(&token)
                .send()
                .await
        }
    };
    let all = get("").await;
    all.assert_status(200);
    assert_eq!(all.body["total"], 3);
    assert_eq!(all.body["pageSize"], 100);
    assert!(all.body["generatedAt"].is_string());
    let gift = all.body["data"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|v| v["code"] == "GIFT-AAAA-BBBB")
        .cloned()
        .unwrap_or_default();
    assert_eq!(gift["voucherType"], "gift_card");
    assert_eq!(gift["originalValue"], 50.0);
    assert_eq!(gift["currentBalance"], 50.0);
    assert_eq!(gift["isRedeemed"], false);
    assert_eq!(gift["customerEmail"], "ada@example.com");
    assert!(gift["issuedBy"].is_string());
    for (query, expected) in [
        ("?voucherType=loyalty_credit", vec!["SORRY-1"]),
        ("?isActive=false", vec!["-1"]),
        ("?customerEmail=ADA@example.com", vec!["GIFT-AAAA-BBBB"]),
        ("?search=gift", vec!["GIFT-AAAA-BBBB"]),
        ("?isRedeemed=true", vec![]),
        ("?issuedAfter=2026-11-22", vec![]),
        (
            "?issuedBefore=2026-11-22",
            vec!["-1", "GIFT-AAAA-BBBB", "SORRY-1"],
        ),
    ] {
        assert_eq!(codes(&get(query).await), expected, "{query}");
    }
    let csv = get("?format=csv").await;
    csv.assert_status(200);
    assert!(
        csv.header("content-type")
            .is_some_and(|v| v.starts_with("text/csv"))
    );
    assert!(
        csv.header("content-disposition")
            .is_some_and(|v| v.starts_with("attachment; filename=\"vouchers-"))
    );
    let lines: Vec<&str> = csv.text.lines().collect();
    assert_eq!(lines.len(), 4, "{}", csv.text);
    assert!(lines[0].starts_with("code,voucherType,originalValue,currentBalance,"));
    // A code that looks like a formula is neutralised.
    assert!(
        lines.iter().any(|l| l.starts_with("'-1,single_use,")),
        "{}",
        csv.text
    );
    let bad =
        get("?format=pdf&isRedeemed=perhaps&voucherType=coupon&customerId=x&issuedAfter=later")
            .await;
    bad.assert_error(400, "VALIDATION_ERROR");
    assert_eq!(
        bad.error_fields(),
        [
            "format",
            "isRedeemed",
            "voucherType",
            "customerId",
            "issuedAfter"
        ]
    );
}
