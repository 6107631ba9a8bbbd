use kairos_domain::auth::Role;
use kairos_testkit::TestApp;
use serde_json::json;

#[tokio::test]
async fn sites_are_created_read_updated_and_deactivated() {
    let app = TestApp::spawn().await;
    let t = app.tenant("acme").await;
    let res = app
        .post("/api/v1/admin/sites")
        .tenant("acme")
        .token(&t.owner_token)
        .json(json!({
            "name": "Harbour", "timezone": "America/New_York", "contactEmail": "Desk@Harbour.io",
            "contactPhone": "+1 555 010 9999", "holdTtlMinutes": 20, "cancellationPolicy": "flexible"
        }))
        .send()
        .await;
    res.assert_status(200);
    assert_eq!(
        res.body["currency"], "EUR",
        "the tenant's currency by default"
    );
    assert_eq!(res.body["locale"], "en");
    assert_eq!(res.body["contactEmail"], "desk@harbour.io");
    assert_eq!(res.body["holdTtlMinutes"], 20);
    let id = res.str("id").to_owned();

    let res = app
        .patch(&format!("/api/v1/admin/sites/{id}"))
        .tenant("acme")
        .token(&t.owner_token)
        .json(json!({"name": "Harbour Hall", "address": "1 Pier", "currency": "usd"}))
        .send()
        .await;
    res.assert_status(200);
    assert_eq!(res.body["name"], "Harbour Hall");
    assert_eq!(res.body["currency"], "USD");
    assert_eq!(
        res.body["timezone"], "America/New_York",
        "untouched fields stay"
    );

    let list = app
        .get("/api/v1/admin/sites")
        .tenant("acme")
        .token(&t.owner_token)
        .send()
        .await;
    assert_eq!(list.body["total"], 1);
    let gone = app
        .delete(&format!("/api/v1/admin/sites/{id}"))
        .tenant("acme")
        .token(&t.owner_token)
        .send()
        .await;
    assert_eq!(gone.body["isActive"], false);
    let got = app
        .get(&format!("/api/v1/admin/sites/{id}"))
        .tenant("acme")
        .token(&t.owner_token)
        .send()
        .await;
    assert_eq!(got.body["isActive"], false);
}

#[tokio::test]
async fn site_input_is_validated() {
    let app = TestApp::spawn().await;
    let t = app.tenant("acme").await;
    let res = app
        .post("/api/v1/admin/sites")
        .tenant("acme")
        .token(&t.owner_token)
        .json(json!({"timezone": "Mars/Base", "currency": "XXQ", "holdTtlMinutes": 0, "cancellationPolicy": "lenient", "contactEmail": "x"}))
        .send()
        .await;
    res.assert_error(400, "VALIDATION_ERROR");
    assert_eq!(
        res.error_fields(),
        [
            "name",
            "timezone",
            "currency",
            "contactEmail",
            "holdTtlMinutes",
            "cancellationPolicy"
        ]
    );
}

#[tokio::test]
async fn catalog_permissions_follow_roles() {
    let app = TestApp::spawn().await;
    let t = app.tenant("acme").await;
    let fx = app.catalog(&t).await;
    app.staff("acme", "viewer", "viewer-password", &[Role::Viewer])
        .await;
    let viewer = app.admin_token("acme", "viewer", "viewer-password").await;
    app.get(&format!("/api/v1/admin/products/{}", fx.product_id))
        .tenant("acme")
        .token(&viewer)
        .send()
        .await
        .assert_status(200);
    app.post("/api/v1/admin/sites")
        .tenant("acme")
        .token(&viewer)
        .json(json!({"name": "X", "timezone": "UTC"}))
        .send()
        .await
        .assert_error(403, "INSUFFICIENT_PERMISSIONS");
}

#[tokio::test]
async fn another_tenants_catalog_is_not_found() {
    let app = TestApp::spawn().await;
    let a = app.tenant("alpha").await;
    let b = app.tenant("beta").await;
    let fx = app.catalog(&a).await;
    app.get(&format!("/api/v1/admin/sites/{}", fx.site_id))
        .tenant("beta")
        .token(&b.owner_token)
        .send()
        .await
        .assert_error(404, "NOT_FOUND");
    app.get(&format!("/api/v1/admin/products/{}", fx.product_id))
        .tenant("beta")
        .token(&b.owner_token)
        .send()
        .await
        .assert_error(404, "NOT_FOUND");
    // A product cannot be put on another tenant's site.
    app.post("/api/v1/admin/products")
        .tenant("beta")
        .token(&b.owner_token)
        .json(json!({"siteId": fx.site_id, "name": "Stolen", "durationMins": 60, "capacity": 5, "basePrice": 10}))
        .send()
        .await
        .assert_error(404, "NOT_FOUND");
    let list = app
        .get("/api/v1/admin/products")
        .tenant("beta")
        .token(&b.owner_token)
        .send()
        .await;
    assert_eq!(list.body["total"], 0);
}

#[tokio::test]
async fn products_carry_every_field_and_validate_them() {
    let app = TestApp::spawn().await;
    let t = app.tenant("acme").await;
    let fx = app.catalog(&t).await;
    let res = app
        .post("/api/v1/admin/products")
        .tenant("acme")
        .token(&t.owner_token)
        .json(json!({
            "siteId": fx.site_id, "name": "Escape room", "description": "Get out",
            "durationMins": 60, "capacity": 6, "basePrice": 120.5, "priceType": "per_booking",
            "taxRate": 25.5, "pricesIncludeTax": false, "slotPolicy": "fixed",
            "fixedSlotTimes": ["18:00", "10:00"], "setupTime": 10, "cleanupTime": 15,
            "labelCodes": ["adults_only"], "requiresWaiver": true
        }))
        .send()
        .await;
    res.assert_status(200);
    assert_eq!(res.body["basePrice"], 120.5);
    assert_eq!(res.body["taxRate"], 25.5);
    assert_eq!(res.body["fixedSlotTimes"], json!(["10:00", "18:00"]));
    assert_eq!(res.body["pricesIncludeTax"], false);
    assert_eq!(res.body["requiresWaiver"], true);
    assert_eq!(res.body["currency"], "EUR");

    let bad = app
        .post("/api/v1/admin/products")
        .tenant("acme")
        .token(&t.owner_token)
        .json(json!({
            "siteId": fx.site_id, "durationMins": 0, "capacity": 5, "basePrice": -1,
            "priceType": "per_hour", "taxRate": 150, "slotPolicy": "fixed", "labelCodes": ["Bad Code"]
        }))
        .send()
        .await;
    bad.assert_error(400, "VALIDATION_ERROR");
    assert_eq!(
        bad.error_fields(),
        [
            "name",
            "durationMins",
            "basePrice",
            "priceType",
            "taxRate",
            "fixedSlotTimes",
            "labelCodes[0]"
        ]
    );
    let missing = app
        .post("/api/v1/admin/products")
        .tenant("acme")
        .token(&t.owner_token)
        .json(json!({}))
        .send()
        .await;
    assert_eq!(
        missing.error_fields(),
        ["siteId", "name", "durationMins", "capacity", "basePrice"]
    );
}

#[tokio::test]
async fn variants_and_addons_are_managed_per_product() {
    let app = TestApp::spawn().await;
    let t = app.tenant("acme").await;
    let fx = app.catalog(&t).await;
    let base = format!("/api/v1/admin/products/{}", fx.product_id);
    let v = app
        .post(&format!("{base}/variants"))
        .tenant("acme")
        .token(&t.owner_token)
        .json(json!({"name": "Student", "priceMode": "adjustment", "priceAmount": -5.5}))
        .send()
        .await;
    v.assert_status(200);
    assert_eq!(v.body["priceAmount"], -5.5);
    let vid = v.str("id").to_owned();
    let patched = app
        .patch(&format!("{base}/variants/{vid}"))
        .tenant("acme")
        .token(&t.owner_token)
        .json(json!({"capacityShare": 2}))
        .send()
        .await;
    assert_eq!(patched.body["capacityShare"], 2);
    assert_eq!(patched.body["name"], "Student");
    app.post(&format!("{base}/variants"))
        .tenant("acme")
        .token(&t.owner_token)
        .json(json!({"name": "VIP", "priceMode": "override", "priceAmount": -1}))
        .send()
        .await
        .assert_error(400, "VALIDATION_ERROR");

    let shoes = app
        .post(&format!("{base}/addons"))
        .tenant("acme")
        .token(&t.owner_token)
        .json(json!({"name": "Shoe rental", "addonType": "item", "mode": "per_participant", "priceType": "per_person", "unitPrice": 4}))
        .send()
        .await;
    shoes.assert_status(200);
    assert_eq!(shoes.body["unitPrice"], 4.0);
    assert!(shoes.body.get("price").is_none());
    let photo = app
        .post(&format!("{base}/addons"))
        .tenant("acme")
        .token(&t.owner_token)
        .json(json!({"name": "Photo pack", "addonType": "upgrade", "mode": "yesno", "priceType": "fixed", "price": 9.9}))
        .send()
        .await;
    photo.assert_status(200);
    assert_eq!(photo.body["price"], 9.9);
    let bad = app
        .post(&format!("{base}/addons"))
        .tenant("acme")
        .token(&t.owner_token)
        .json(json!({"name": "Chalk", "addonType": "gadget", "mode": "free_qty", "priceType": "fixed"}))
        .send()
        .await;
    bad.assert_error(400, "VALIDATION_ERROR");
    assert_eq!(bad.error_fields(), ["addonType", "unitPrice"]);
    // The price field the mode does not use is ignored, but must still be an amount.
    let ignored = app
        .post(&format!("{base}/addons"))
        .tenant("acme")
        .token(&t.owner_token)
        .json(json!({"name": "Towel", "addonType": "item", "mode": "yesno", "priceType": "fixed", "price": 2, "unitPrice": -1}))
        .send()
        .await;
    ignored.assert_error(400, "VALIDATION_ERROR");
    assert_eq!(ignored.error_fields(), ["unitPrice"]);

    let off = app
        .delete(&format!("{base}/addons/{}", photo.str("id")))
        .tenant("acme")
        .token(&t.owner_token)
        .send()
        .await;
    assert_eq!(off.body["available"], false);
    let list = app
        .get(&format!("{base}/addons"))
        .tenant("acme")
        .token(&t.owner_token)
        .send()
        .await;
    assert_eq!(list.body["items"].as_array().map(Vec::len), Some(2));
    app.get(&format!("{base}/variants/{}", shoes.str("id")))
        .tenant("acme")
        .token(&t.owner_token)
        .send()
        .await
        .assert_error(404, "NOT_FOUND");
}
