//! Automation rules (spec Part B 2.7, 4.7, 4.8): the defaults every tenant starts with,
//! and their administration.

use kairos_testkit::{TestApp, TestResponse};
use serde_json::{Value, json};

const BASE: &str = "/api/v1/admin/messaging/automation-rules";

fn fields(res: &TestResponse) -> Vec<String> {
    res.error_fields()
}

#[tokio::test]
async fn a_tenant_starts_with_the_automated_notifications_of_the_spec() {
    let app = TestApp::spawn().await;
    let t = app.tenant("acme").await;
    let res = app
        .get(BASE)
        .tenant("acme")
        .token(&t.owner_token)
        .send()
        .await;
    res.assert_status(200);
    let rules: Vec<String> = res.body["rules"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            assert_eq!(r["isActive"], true);
            assert_eq!(r["tenantId"], "acme");
            format!(
                "{} {} {}{} {}",
                r["defaultKey"].as_str().unwrap(),
                r["triggerEvent"].as_str().unwrap(),
                r["triggerOffset"],
                r["triggerOffsetUnit"].as_str().unwrap(),
                r["templateKey"].as_str().unwrap()
            )
        })
        .collect();
    assert_eq!(
        rules,
        [
            "booking_confirmation booking_created 0hours booking_confirmation",
            "payment_receipt booking_confirmed 0hours payment_receipt",
            "waiver_reminder_7d booking_date -7days waiver_reminder",
            "waiver_reminder_2d booking_date -2days waiver_reminder",
            "waiver_reminder_1d booking_date -1days waiver_reminder",
            "waiver_reminder_day booking_date 0days waiver_reminder",
            "pre_arrival_reminder booking_date -24hours pre_arrival_reminder",
            "arrival_confirmation booking_date 0days arrival_confirmation",
            "post_visit_follow_up booking_completed 24hours post_visit_follow_up",
            "feedback_request booking_completed 3days feedback_request",
        ]
    );
    assert_eq!(res.body["total"], 10);

    // A default rule is switched off like any other.
    let id = res.body["rules"][6]["id"].as_str().unwrap();
    let off = app
        .put(&format!("{BASE}/{id}"))
        .tenant("acme")
        .token(&t.owner_token)
        .json(json!({"isActive": false}))
        .send()
        .await;
    off.assert_status(200);
    assert_eq!(off.body["isActive"], false);
    assert_eq!(off.body["defaultKey"], "pre_arrival_reminder");
    assert_eq!(off.body["triggerOffset"], -24);
    let inactive = app
        .get(&format!("{BASE}?isActive=false"))
        .tenant("acme")
        .token(&t.owner_token)
        .send()
        .await;
    assert_eq!(inactive.body["total"], 1);
    let by_trigger = app
        .get(&format!("{BASE}?triggerEvent=booking_completed"))
        .tenant("acme")
        .token(&t.owner_token)
        .send()
        .await;
    assert_eq!(by_trigger.body["total"], 2);
    let by_key = app
        .get(&format!("{BASE}?templateKey=waiver_reminder"))
        .tenant("acme")
        .token(&t.owner_token)
        .send()
        .await;
    assert_eq!(by_key.body["total"], 4);
}

#[tokio::test]
async fn rules_are_created_read_changed_and_deleted() {
    let app = TestApp::spawn().await;
    let t = app.tenant("acme").await;
    let cat = app.catalog(&t).await;
    let created = app
        .post(BASE)
        .tenant("acme")
        .token(&t.owner_token)
        .json(json!({
            "name": "Parking tips", "description": "The day before, for the city site",
            "triggerEvent": "booking_date", "triggerOffset": -30, "triggerOffsetUnit": "hours",
            "templateKey": "parking_tips", "productIds": [cat.product_id],
            "siteIds": [cat.site_id], "isActive": true,
        }))
        .send()
        .await;
    created.assert_status(201);
    let r = &created.body;
    assert_eq!(r["name"], "Parking tips");
    assert_eq!(r["description"], "The day before, for the city site");
    assert_eq!(r["triggerEvent"], "booking_date");
    assert_eq!(r["triggerOffset"], -30);
    assert_eq!(r["triggerOffsetUnit"], "hours");
    assert_eq!(r["templateKey"], "parking_tips");
    assert_eq!(r["templateId"], Value::Null);
    assert_eq!(r["productIds"], json!([cat.product_id]));
    assert_eq!(r["siteIds"], json!([cat.site_id]));
    assert_eq!(r["defaultKey"], Value::Null);
    let id = r["id"].as_str().unwrap().to_owned();

    // Defaults: offset 0 hours, active.
    let minimal = app
        .post(BASE)
        .tenant("acme")
        .token(&t.owner_token)
        .json(json!({"name": "Thanks", "triggerEvent": "booking_completed", "templateKey": "follow_up"}))
        .send()
        .await;
    minimal.assert_status(201);
    assert_eq!(minimal.body["triggerOffset"], 0);
    assert_eq!(minimal.body["triggerOffsetUnit"], "hours");
    assert_eq!(minimal.body["isActive"], true);
    assert_eq!(minimal.body["productIds"], json!([]));

    let got = app
        .get(&format!("{BASE}/{id}"))
        .tenant("acme")
        .token(&t.owner_token)
        .send()
        .await;
    got.assert_status(200);
    assert_eq!(got.body["name"], "Parking tips");

    let changed = app
        .put(&format!("{BASE}/{id}"))
        .tenant("acme")
        .token(&t.owner_token)
        .json(json!({"triggerOffset": -2, "triggerOffsetUnit": "days", "siteIds": []}))
        .send()
        .await;
    changed.assert_status(200);
    assert_eq!(changed.body["triggerOffset"], -2);
    assert_eq!(changed.body["triggerOffsetUnit"], "days");
    assert_eq!(changed.body["siteIds"], json!([]));
    assert_eq!(
        changed.body["name"], "Parking tips",
        "untouched fields stay"
    );

    let deleted = app
        .delete(&format!("{BASE}/{id}"))
        .tenant("acme")
        .token(&t.owner_token)
        .send()
        .await;
    deleted.assert_status(204);
    for res in [
        app.get(&format!("{BASE}/{id}"))
            .tenant("acme")
            .token(&t.owner_token)
            .send()
            .await,
        app.delete(&format!("{BASE}/{id}"))
            .tenant("acme")
            .token(&t.owner_token)
            .send()
            .await,
        app.put(&format!("{BASE}/{id}"))
            .tenant("acme")
            .token(&t.owner_token)
            .json(json!({"name": "x"}))
            .send()
            .await,
    ] {
        res.assert_status(404);
        assert_eq!(res.body["statusCode"], 404);
    }

    // Another tenant sees none of it.
    let other = app.tenant("other").await;
    let minimal_id = minimal.body["id"].as_str().unwrap();
    let foreign = app
        .get(&format!("{BASE}/{minimal_id}"))
        .tenant("other")
        .token(&other.owner_token)
        .send()
        .await;
    foreign.assert_status(404);
    let theirs = app
        .get(&format!("{BASE}?templateKey=follow_up"))
        .tenant("other")
        .token(&other.owner_token)
        .send()
        .await;
    assert_eq!(theirs.body["total"], 0);
}

#[tokio::test]
async fn bad_rules_are_400_in_shape_b_naming_each_field() {
    let app = TestApp::spawn().await;
    let t = app.tenant("acme").await;
    let post = |body: Value| {
        let app = &app;
        let token = t.owner_token.clone();
        async move {
            app.post(BASE)
                .tenant("acme")
                .token(&token)
                .json(body)
                .send()
                .await
        }
    };
    let missing = post(json!({})).await;
    missing.assert_status(400);
    assert_eq!(missing.body["statusCode"], 400);
    assert_eq!(fields(&missing), ["name", "triggerEvent", "templateKey"]);

    let bad = post(json!({
        "name": "", "triggerEvent": "booking_paid", "triggerOffset": 9000,
        "triggerOffsetUnit": "weeks", "templateKey": "Bad Key", "templateId": "x",
        "productIds": ["nope"], "siteIds": "all",
    }))
    .await;
    bad.assert_status(400);
    assert_eq!(
        fields(&bad),
        ["siteIds"],
        "a wrong type fails the body first"
    );
    let bad = post(json!({
        "name": "", "triggerEvent": "booking_paid", "triggerOffset": 9000,
        "triggerOffsetUnit": "weeks", "templateKey": "Bad Key", "templateId": "x",
        "productIds": ["nope"],
    }))
    .await;
    assert_eq!(
        fields(&bad),
        [
            "name",
            "triggerEvent",
            "triggerOffsetUnit",
            "triggerOffset",
            "templateKey",
            "templateId",
            "productIds[0]"
        ]
    );
    let days = post(
        json!({"name": "n", "triggerEvent": "booking_date", "triggerOffset": -400,
        "triggerOffsetUnit": "days", "templateKey": "k"}),
    )
    .await;
    assert_eq!(fields(&days), ["triggerOffset"]);

    let unknown_product = post(json!({"name": "n", "triggerEvent": "booking_date",
        "templateKey": "k", "productIds": ["0190f4c2-7b1e-7a3c-9d2e-5f6a7b8c9d0e"]}))
    .await;
    unknown_product.assert_status(404);
    assert_eq!(unknown_product.body["statusCode"], 404);
    assert!(
        unknown_product.body["message"]
            .as_str()
            .unwrap()
            .starts_with("Product ")
    );
    let unknown_site = post(json!({"name": "n", "triggerEvent": "booking_date",
        "templateKey": "k", "siteIds": ["0190f4c2-7b1e-7a3c-9d2e-5f6a7b8c9d0e"]}))
    .await;
    unknown_site.assert_status(404);
    assert!(
        unknown_site.body["message"]
            .as_str()
            .unwrap()
            .starts_with("Site ")
    );
    let unknown_template = post(json!({"name": "n", "triggerEvent": "booking_date",
        "templateKey": "k", "templateId": "0190f4c2-7b1e-7a3c-9d2e-5f6a7b8c9d0e"}))
    .await;
    unknown_template.assert_status(404);
    assert_eq!(unknown_template.body["message"], "Template not found");

    let long = app
        .get(&format!("{BASE}?templateKey={}", "k".repeat(65)))
        .tenant("acme")
        .token(&t.owner_token)
        .send()
        .await;
    long.assert_status(400);
    assert_eq!(fields(&long), ["templateKey"]);
    let list = app
        .get(&format!("{BASE}?triggerEvent=nope"))
        .tenant("acme")
        .token(&t.owner_token)
        .send()
        .await;
    list.assert_status(400);
    assert_eq!(fields(&list), ["triggerEvent"]);
    let all = app
        .get(BASE)
        .tenant("acme")
        .token(&t.owner_token)
        .send()
        .await;
    assert_eq!(all.body["total"], 10, "nothing was written");
}
