//! Promotions: administration (spec Part A 2.5, 4.8).

use kairos_domain::auth::Role;
use kairos_testkit::TestApp;
use serde_json::{Value, json};

/// The test clock starts at 2026-11-21T09:00:00Z.
fn summer() -> Value {
    json!({
        "code": "Summer10", "name": "Summer 10 %", "description": "Ten percent off all summer",
        "type": "percentage", "discount_value": 10, "max_discount_amount": 25.5,
        "min_spend_amount": 40, "starts_at": "2026-11-01T00:00:00Z",
        "expires_at": "2027-09-01T00:00:00Z", "usage_limit": 100, "per_customer_limit": 2
    })
}

#[tokio::test]
async fn promotions_are_created_listed_read_updated_and_deleted() {
    let app = TestApp::spawn().await;
    let t = app.tenant("acme").await;
    let catalog = app.catalog(&t).await;

    let mut body = summer();
    body["applicable_sites"] = json!([catalog.site_id]);
    body["applicable_products"] = json!([catalog.product_id]);
    let res = app
        .post("/api/v1/admin/promotions")
        .tenant("acme")
        .token(&t.owner_token)
        .json(body)
        .send()
        .await;
    res.assert_status(200);
    assert_eq!(res.body["success"], true);
    let p = &res.body["promotion"];
    assert_eq!(p["code"], "Summer10");
    assert_eq!(p["type"], "percentage");
    assert_eq!(p["discount_value"], 10.0);
    assert_eq!(p["max_discount_amount"], 25.5);
    assert_eq!(p["min_spend_amount"], 40.0);
    assert_eq!(p["currency"], "EUR");
    assert_eq!(p["usage_count"], 0);
    assert_eq!(p["usage_limit"], 100);
    assert_eq!(p["per_customer_limit"], 2);
    assert_eq!(p["is_active"], true);
    assert_eq!(p["is_stackable"], false, "not stackable unless said");
    assert_eq!(p["tenant_id"], "acme");
    assert_eq!(p["applicable_sites"], json!([catalog.site_id]));
    assert_eq!(p["applicable_products"], json!([catalog.product_id]));
    let id = p["id"].as_str().unwrap_or_default().to_owned();

    let got = app
        .get(&format!("/api/v1/admin/promotions/{id}"))
        .tenant("acme")
        .token(&t.owner_token)
        .send()
        .await;
    got.assert_status(200);
    assert_eq!(got.body["code"], "Summer10");

    // Partial update: untouched fields stay; null clears.
    let res = app
        .patch(&format!("/api/v1/admin/promotions/{id}"))
        .tenant("acme")
        .token(&t.owner_token)
        .json(json!({"usage_limit": 50, "expires_at": null, "is_active": false}))
        .send()
        .await;
    res.assert_status(200);
    let p = &res.body["promotion"];
    assert_eq!(p["usage_limit"], 50);
    assert_eq!(p["expires_at"], Value::Null);
    assert_eq!(p["is_active"], false);
    assert_eq!(p["discount_value"], 10.0);
    assert_eq!(p["name"], "Summer 10 %");

    // A change of type needs its value.
    let res = app
        .patch(&format!("/api/v1/admin/promotions/{id}"))
        .tenant("acme")
        .token(&t.owner_token)
        .json(json!({"type": "fixed_amount"}))
        .send()
        .await;
    res.assert_error(400, "VALIDATION_ERROR");
    assert_eq!(
        res.error_fields(),
        ["discount_value"],
        "the percentage cap goes with the type"
    );
    let res = app
        .patch(&format!("/api/v1/admin/promotions/{id}"))
        .tenant("acme")
        .token(&t.owner_token)
        .json(json!({"type": "fixed_amount", "discount_value": 5, "max_discount_amount": null}))
        .send()
        .await;
    res.assert_status(200);
    assert_eq!(res.body["promotion"]["type"], "fixed_amount");
    assert_eq!(res.body["promotion"]["discount_value"], 5.0);

    let gone = app
        .delete(&format!("/api/v1/admin/promotions/{id}"))
        .tenant("acme")
        .token(&t.owner_token)
        .send()
        .await;
    gone.assert_status(200);
    assert_eq!(gone.body["success"], true);
    assert_eq!(gone.body["deleted_id"], id.as_str());
    assert!(gone.body["message"].is_string());
    for res in [
        app.get(&format!("/api/v1/admin/promotions/{id}"))
            .tenant("acme")
            .token(&t.owner_token)
            .send()
            .await,
        app.delete(&format!("/api/v1/admin/promotions/{id}"))
            .tenant("acme")
            .token(&t.owner_token)
            .send()
            .await,
    ] {
        res.assert_error(404, "NOT_FOUND");
    }
    let list = app
        .get("/api/v1/admin/promotions")
        .tenant("acme")
        .token(&t.owner_token)
        .send()
        .await;
    assert_eq!(list.body["total"], 0, "deleted promotions leave the list");
    // Its code is free again.
    app.post("/api/v1/admin/promotions")
        .tenant("acme")
        .token(&t.owner_token)
        .json(summer())
        .send()
        .await
        .assert_status(200);
}

#[tokio::test]
async fn every_promotion_type_round_trips() {
    let app = TestApp::spawn().await;
    let t = app.tenant("acme").await;
    let cases = [
        (
            json!({"code": "FIVE", "type": "fixed_amount", "discount_value": 5}),
            json!({"discount_value": 5.0, "buy_quantity": null, "bundle_size": null}),
        ),
        (
            json!({"code": "BRING4", "type": "buy_x_get_y", "discount_value": 1, "buy_quantity": 3}),
            json!({"discount_value": 1.0, "buy_quantity": 3, "bundle_size": null}),
        ),
        (
            json!({"code": "FAMILY", "type": "bundle", "discount_value": 80, "bundle_size": 4}),
            json!({"discount_value": 80.0, "buy_quantity": null, "bundle_size": 4}),
        ),
    ];
    for (input, expected) in cases {
        let mut body = input.clone();
        body["name"] = json!("Deal");
        body["starts_at"] = json!("2026-11-01T00:00:00Z");
        let res = app
            .post("/api/v1/admin/promotions")
            .tenant("acme")
            .token(&t.owner_token)
            .json(body)
            .send()
            .await;
        res.assert_status(200);
        for (field, value) in expected.as_object().into_iter().flatten() {
            assert_eq!(&res.body["promotion"][field], value, "{input} {field}");
        }
        assert_eq!(res.body["promotion"]["type"], input["type"]);
    }
}

#[tokio::test]
async fn promotion_input_is_validated_field_by_field() {
    let app = TestApp::spawn().await;
    let t = app.tenant("acme").await;
    let post = |body: Value| {
        let app = &app;
        let token = t.owner_token.clone();
        async move {
            app.post("/api/v1/admin/promotions")
                .tenant("acme")
                .token(&token)
                .json(body)
                .send()
                .await
        }
    };

    let res = post(json!({})).await;
    res.assert_error(400, "VALIDATION_ERROR");
    assert_eq!(
        res.error_fields(),
        ["discount_value", "type", "code", "name", "starts_at"],
        "every required field is named"
    );

    // A leap second (which no stored instant holds) and years out of range are refused.
    for (starts, expires) in [
        ("2026-12-01T12:34:60Z", "2026-12-02T00:00:00Z"),
        ("0000-01-01T00:00:00Z", "2026-12-02T00:00:00Z"),
        ("2026-12-01T00:00:00Z", "3000-01-01T00:00:00Z"),
    ] {
        let res = post(json!({
            "code": "TIME", "name": "T", "type": "fixed_amount", "discount_value": 5,
            "starts_at": starts, "expires_at": expires
        }))
        .await;
        res.assert_error(400, "VALIDATION_ERROR");
        assert_eq!(res.error_fields().len(), 1, "{starts} {expires}");
    }

    let res = post(json!({
        "code": "bad code!", "name": "", "type": "percentage", "discount_value": 120,
        "starts_at": "yesterday", "usage_limit": 0, "per_customer_limit": -1,
        "applicable_sites": ["nope"], "min_spend_amount": -5
    }))
    .await;
    res.assert_error(400, "VALIDATION_ERROR");
    assert_eq!(
        res.error_fields(),
        [
            "discount_value",
            "code",
            "name",
            "min_spend_amount",
            "starts_at",
            "usage_limit",
            "per_customer_limit",
            "applicable_sites[0]"
        ]
    );

    let res = post(json!({
        "code": "ZERO", "name": "Zero", "type": "fixed_amount", "discount_value": 0.001,
        "starts_at": "2026-12-01T00:00:00Z", "expires_at": "2026-11-01T00:00:00Z",
        "max_discount_amount": 3
    }))
    .await;
    res.assert_error(400, "VALIDATION_ERROR");
    assert_eq!(
        res.error_fields(),
        ["max_discount_amount", "discount_value", "expires_at"]
    );

    // The people-based types need their group sizes.
    let res = post(json!({
        "code": "BXGY", "name": "B", "type": "buy_x_get_y", "discount_value": 1.5,
        "starts_at": "2026-12-01T00:00:00Z"
    }))
    .await;
    res.assert_error(400, "VALIDATION_ERROR");
    assert_eq!(res.error_fields(), ["discount_value", "buy_quantity"]);
    let res = post(json!({
        "code": "BUNDLE", "name": "B", "type": "bundle", "discount_value": 80, "bundle_size": 1,
        "starts_at": "2026-12-01T00:00:00Z"
    }))
    .await;
    res.assert_error(400, "VALIDATION_ERROR");
    assert_eq!(res.error_fields(), ["bundle_size"]);

    // Sites and products must be the tenant's.
    let other = app.tenant("other").await;
    let theirs = app.catalog(&other).await;
    let res = post(json!({
        "code": "SCOPED", "name": "S", "type": "fixed_amount", "discount_value": 5,
        "starts_at": "2026-12-01T00:00:00Z", "applicable_sites": [theirs.site_id]
    }))
    .await;
    res.assert_error(400, "VALIDATION_ERROR");
    assert_eq!(res.error_fields(), ["applicable_sites"]);
    let res = post(json!({
        "code": "SCOPED", "name": "S", "type": "fixed_amount", "discount_value": 5,
        "starts_at": "2026-12-01T00:00:00Z", "applicable_products": [theirs.product_id]
    }))
    .await;
    res.assert_error(400, "VALIDATION_ERROR");
    assert_eq!(res.error_fields(), ["applicable_products"]);
}

#[tokio::test]
async fn codes_are_unique_per_tenant_whatever_their_case() {
    let app = TestApp::spawn().await;
    let t = app.tenant("acme").await;
    let other = app.tenant("other").await;
    app.post("/api/v1/admin/promotions")
        .tenant("acme")
        .token(&t.owner_token)
        .json(summer())
        .send()
        .await
        .assert_status(200);
    let mut again = summer();
    again["code"] = json!("SUMMER10");
    let res = app
        .post("/api/v1/admin/promotions")
        .tenant("acme")
        .token(&t.owner_token)
        .json(again.clone())
        .send()
        .await;
    res.assert_error(409, "CONFLICT");
    assert_eq!(res.body["details"]["code"], "SUMMER10");
    // Another tenant may use it.
    app.post("/api/v1/admin/promotions")
        .tenant("other")
        .token(&other.owner_token)
        .json(again)
        .send()
        .await
        .assert_status(200);
    // Renaming onto a taken code is a conflict too.
    let mut second = summer();
    second["code"] = json!("WINTER");
    let res = app
        .post("/api/v1/admin/promotions")
        .tenant("acme")
        .token(&t.owner_token)
        .json(second)
        .send()
        .await;
    let id = res.body["promotion"]["id"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    app.patch(&format!("/api/v1/admin/promotions/{id}"))
        .tenant("acme")
        .token(&t.owner_token)
        .json(json!({"code": "summer10"}))
        .send()
        .await
        .assert_error(409, "CONFLICT");
    // Another tenant's promotion is not found.
    app.get(&format!("/api/v1/admin/promotions/{id}"))
        .tenant("other")
        .token(&other.owner_token)
        .send()
        .await
        .assert_error(404, "NOT_FOUND");
}

#[tokio::test]
async fn promotion_administration_needs_admin_write() {
    let app = TestApp::spawn().await;
    app.tenant("acme").await;
    app.staff("acme", "desk", "desk-password-1", &[Role::FrontDesk])
        .await;
    let desk = app.admin_token("acme", "desk", "desk-password-1").await;
    app.get("/api/v1/admin/promotions")
        .tenant("acme")
        .token(&desk)
        .send()
        .await
        .assert_error(403, "INSUFFICIENT_PERMISSIONS");
    app.staff("acme", "boss", "boss-password-1", &[Role::Manager])
        .await;
    let manager = app.admin_token("acme", "boss", "boss-password-1").await;
    app.post("/api/v1/admin/promotions")
        .tenant("acme")
        .token(&manager)
        .json(summer())
        .send()
        .await
        .assert_status(200);
}
