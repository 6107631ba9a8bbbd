//! Gift card products (spec Part A 2.7, 4.10): administered by staff, sold publicly while
//! active; deleting deactivates.

use kairos_testkit::{TenantFixture, TestApp, TestResponse};
use serde_json::{Value, json};

const ADMIN: &str = "/api/v1/admin/gift-card-products";

async fn create(app: &TestApp, t: &TenantFixture, body: Value) -> TestResponse {
    app.post(ADMIN)
        .tenant(&t.id)
        .token(&t.owner_token)
        .json(body)
        .send()
        .await
}

#[tokio::test]
async fn staff_sell_gift_cards_that_the_public_sees_while_active() {
    let app = TestApp::spawn().await;
    let t = app.tenant("acme").await;
    let fx = app.catalog(&t).await;
    let fixed = create(
        &app,
        &t,
        json!({"name": "Escape room for two", "valueType": "fixed", "fixedValue": 59.9,
            "validityDays": 365, "displayOrder": 2, "imageUrl": "https://example.com/g.png"}),
    )
    .await;
    fixed.assert_status(200);
    assert_eq!(fixed.body["fixedValue"], 59.9);
    assert_eq!(fixed.body["minValue"], Value::Null);
    assert_eq!(fixed.body["suggestedValues"], Value::Null);
    assert_eq!(fixed.body["isActive"], true);
    assert_eq!(fixed.body["siteId"], Value::Null);
    assert_eq!(fixed.body["currency"], "EUR");
    let range = create(
        &app,
        &t,
        json!({"name": "Any amount", "valueType": "custom_range", "minValue": 20,
            "maxValue": 200, "suggestedValues": [25, 50, 100], "siteId": fx.site_id,
            "displayOrder": 1}),
    )
    .await;
    range.assert_status(200);
    assert_eq!(range.body["suggestedValues"], json!([25.0, 50.0, 100.0]));
    assert_eq!(range.body["validityDays"], 365, "the default");

    // Public: in display order; a site's own products and those of every site.
    let public = app
        .get(&format!(
            "/api/v1/gift-cards/products?siteId={}",
            fx.site_id
        ))
        .tenant(&t.id)
        .send()
        .await;
    public.assert_status(200);
    let names: Vec<&str> = public.body["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["Any amount", "Escape room for two"]);
    let other_site = app
        .get(&format!(
            "/api/v1/gift-cards/products?siteId={}",
            uuid::Uuid::new_v4()
        ))
        .tenant(&t.id)
        .send()
        .await;
    assert_eq!(other_site.body["items"].as_array().unwrap().len(), 1);
    let id = fixed.str("id").to_owned();
    let one = app
        .get(&format!("/api/v1/gift-cards/products/{id}"))
        .tenant(&t.id)
        .send()
        .await;
    one.assert_status(200);
    assert_eq!(one.body["name"], "Escape room for two");

    // A change is checked as a whole: a range without its bounds is refused.
    let res = app
        .patch(&format!("{ADMIN}/{id}"))
        .tenant(&t.id)
        .token(&t.owner_token)
        .json(json!({"valueType": "custom_range"}))
        .send()
        .await;
    res.assert_error(400, "VALIDATION_ERROR");
    assert_eq!(
        res.error_fields(),
        vec!["fixedValue", "minValue", "maxValue"]
    );
    let res = app
        .patch(&format!("{ADMIN}/{id}"))
        .tenant(&t.id)
        .token(&t.owner_token)
        .json(json!({"fixedValue": 79, "imageUrl": null}))
        .send()
        .await;
    res.assert_status(200);
    assert_eq!(res.body["fixedValue"], 79.0);
    assert_eq!(res.body["imageUrl"], Value::Null);

    // Deleting deactivates: gone from the public catalogue, kept for staff.
    app.delete(&format!("{ADMIN}/{id}"))
        .tenant(&t.id)
        .token(&t.owner_token)
        .send()
        .await
        .assert_status(200);
    app.get(&format!("/api/v1/gift-cards/products/{id}"))
        .tenant(&t.id)
        .send()
        .await
        .assert_error(404, "GIFT_CARD_PRODUCT_NOT_FOUND");
    let listed = app
        .get(&format!("{ADMIN}?isActive=false"))
        .tenant(&t.id)
        .token(&t.owner_token)
        .send()
        .await;
    listed.assert_status(200);
    assert_eq!(listed.body["total"], 1);
    assert_eq!(listed.body["items"][0]["id"], id.as_str());
    let all = app
        .get(&format!("{ADMIN}?page=1&limit=1"))
        .tenant(&t.id)
        .token(&t.owner_token)
        .send()
        .await;
    assert_eq!(
        (all.body["total"].as_i64(), all.body["limit"].as_u64()),
        (Some(2), Some(1))
    );
    assert_eq!(all.body["items"].as_array().unwrap().len(), 1);

    // Another tenant sees none of them.
    let other = app.tenant("globex").await;
    app.get(&format!("/api/v1/gift-cards/products/{}", range.str("id")))
        .tenant(&other.id)
        .send()
        .await
        .assert_error(404, "GIFT_CARD_PRODUCT_NOT_FOUND");
    app.patch(&format!("{ADMIN}/{}", range.str("id")))
        .tenant(&other.id)
        .token(&other.owner_token)
        .json(json!({"name": "mine"}))
        .send()
        .await
        .assert_error(404, "GIFT_CARD_PRODUCT_NOT_FOUND");
}

#[tokio::test]
async fn bad_products_are_refused_naming_each_field() {
    let app = TestApp::spawn().await;
    let t = app.tenant("acme").await;
    let res = create(&app, &t, json!({})).await;
    res.assert_error(400, "VALIDATION_ERROR");
    assert_eq!(res.error_fields(), vec!["name", "valueType"]);
    let res = create(
        &app,
        &t,
        json!({"name": "x", "valueType": "custom_range", "minValue": 50, "maxValue": 10,
            "suggestedValues": [5], "fixedValue": 1, "validityDays": 0}),
    )
    .await;
    assert_eq!(
        res.error_fields(),
        vec!["fixedValue", "maxValue", "suggestedValues", "validityDays"]
    );
    let res = create(
        &app,
        &t,
        json!({"name": "x", "valueType": "fixed", "fixedValue": 10.005, "siteId": "nope"}),
    )
    .await;
    assert_eq!(res.error_fields(), vec!["fixedValue", "siteId"]);
    let res = create(&app, &t, json!({"name": "x", "valueType": "voucher"})).await;
    assert_eq!(res.error_fields(), vec!["valueType"]);
    create(
        &app,
        &t,
        json!({"name": "x", "valueType": "fixed", "fixedValue": 10,
            "siteId": uuid::Uuid::new_v4()}),
    )
    .await
    .assert_error(404, "NOT_FOUND");
    app.get(&format!("{ADMIN}?limit=0"))
        .tenant(&t.id)
        .token(&t.owner_token)
        .send()
        .await
        .assert_error(400, "VALIDATION_ERROR");
    app.delete(&format!("{ADMIN}/{}", uuid::Uuid::new_v4()))
        .tenant(&t.id)
        .token(&t.owner_token)
        .send()
        .await
        .assert_error(404, "GIFT_CARD_PRODUCT_NOT_FOUND");
}
