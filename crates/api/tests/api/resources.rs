//! Resources and the resource add-on configurations of products (spec Part B 2.3):
//! administered by staff, listed to customers, each rule of the input answered in words.

use kairos_testkit::{CatalogFixture, TenantFixture, TestApp, TestResponse};
use serde_json::{Value, json};

async fn post(app: &TestApp, t: &TenantFixture, path: &str, body: Value) -> TestResponse {
    app.post(path)
        .tenant(&t.id)
        .token(&t.owner_token)
        .json(body)
        .send()
        .await
}

async fn patch(app: &TestApp, t: &TenantFixture, path: &str, body: Value) -> TestResponse {
    app.patch(path)
        .tenant(&t.id)
        .token(&t.owner_token)
        .json(body)
        .send()
        .await
}

async fn get(app: &TestApp, t: &TenantFixture, path: &str) -> TestResponse {
    app.get(path)
        .tenant(&t.id)
        .token(&t.owner_token)
        .send()
        .await
}

/// A party room at the fixture's site, and the product's add-on of type resource.
async fn room_and_addon(app: &TestApp, t: &TenantFixture, c: &CatalogFixture) -> (String, String) {
    let room = post(
        app,
        t,
        "/api/v1/admin/resources",
        json!({"siteId": c.site_id, "name": "Party room", "resourceType": "ROOM"}),
    )
    .await;
    room.assert_status(200);
    let addon = post(
        app,
        t,
        &format!("/api/v1/admin/products/{}/addons", c.product_id),
        json!({"name": "Party room after", "addonType": "resource", "mode": "yesno",
            "priceType": "fixed", "price": 0}),
    )
    .await;
    addon.assert_status(200);
    (room.str("id").to_owned(), addon.str("id").to_owned())
}

#[tokio::test]
async fn staff_keep_a_sites_resources() {
    let app = TestApp::spawn().await;
    let t = app.tenant("acme").await;
    let c = app.catalog(&t).await;
    let res = post(
        &app,
        &t,
        "/api/v1/admin/resources",
        json!({"siteId": c.site_id, "name": "Kayaks", "resourceType": "EQUIPMENT",
            "sharedMode": "POOLED", "capacity": 12, "description": "Two-seaters"}),
    )
    .await;
    res.assert_status(200);
    assert_eq!(res.body["sharedMode"], "POOLED");
    assert_eq!(res.body["capacity"], 12);
    assert_eq!(res.body["isActive"], true);
    let kayaks = res.str("id").to_owned();
    // An EXCLUSIVE resource (the default) holds one booking: its capacity is 1.
    let room = post(
        &app,
        &t,
        "/api/v1/admin/resources",
        json!({"siteId": c.site_id, "name": "Room", "resourceType": "ROOM"}),
    )
    .await;
    assert_eq!(room.body["sharedMode"], "EXCLUSIVE");
    assert_eq!(room.body["capacity"], 1);

    // Every bad field is named.
    let bad = post(
        &app,
        &t,
        "/api/v1/admin/resources",
        json!({"siteId": "nope", "name": " ", "resourceType": "BOAT", "sharedMode": "ALL",
            "capacity": 0}),
    )
    .await;
    bad.assert_error(400, "VALIDATION_ERROR");
    assert_eq!(
        bad.error_fields(),
        ["siteId", "name", "resourceType", "sharedMode", "capacity"]
    );
    let exclusive = post(
        &app,
        &t,
        "/api/v1/admin/resources",
        json!({"siteId": c.site_id, "name": "Room", "resourceType": "ROOM", "capacity": 3}),
    )
    .await;
    assert_eq!(exclusive.error_fields(), ["capacity"]);
    post(
        &app,
        &t,
        "/api/v1/admin/resources",
        json!({"siteId": uuid::Uuid::new_v4(), "name": "Room", "resourceType": "ROOM"}),
    )
    .await
    .assert_error(404, "NOT_FOUND");

    // Listed by name, filtered by site and type; read and changed one by one.
    let list = get(&app, &t, "/api/v1/admin/resources").await;
    let names: Vec<&str> = list.body["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["Kayaks", "Room"]);
    let rooms = get(&app, &t, "/api/v1/admin/resources?resourceType=ROOM").await;
    assert_eq!(rooms.body["items"].as_array().unwrap().len(), 1);
    get(&app, &t, "/api/v1/admin/resources?resourceType=boat")
        .await
        .assert_error(400, "VALIDATION_ERROR");
    let other_site = format!("/api/v1/admin/resources?siteId={}", uuid::Uuid::new_v4());
    assert_eq!(get(&app, &t, &other_site).await.body["items"], json!([]));
    let path = format!("/api/v1/admin/resources/{kayaks}");
    let changed = patch(&app, &t, &path, json!({"capacity": 8, "isActive": false})).await;
    changed.assert_status(200);
    assert_eq!(changed.body["capacity"], 8);
    assert_eq!(changed.body["isActive"], false);
    assert_eq!(changed.body["name"], "Kayaks");
    let moved = patch(&app, &t, &path, json!({"siteId": c.site_id})).await;
    assert_eq!(moved.error_fields(), ["siteId"]);
    assert_eq!(get(&app, &t, &path).await.body["capacity"], 8);

    // Another tenant sees none of it.
    let other = app.tenant("globex").await;
    app.get(&path)
        .tenant(&other.id)
        .token(&other.owner_token)
        .send()
        .await
        .assert_error(404, "NOT_FOUND");
    get(&app, &t, "/api/v1/admin/resources/not-an-id")
        .await
        .assert_error(404, "NOT_FOUND");
}

#[tokio::test]
async fn a_product_offers_a_resource_as_an_add_on() {
    let app = TestApp::spawn().await;
    let t = app.tenant("acme").await;
    let c = app.catalog(&t).await;
    let (room, addon) = room_and_addon(&app, &t, &c).await;
    let configs = format!("/api/v1/admin/products/{}/resource-addons", c.product_id);
    let res = post(
        &app,
        &t,
        &configs,
        json!({"addonId": addon, "resourceId": room, "durationMode": "SELECTABLE",
            "selectableDurations": [60, 120], "defaultDurationMins": 60,
            "pricingMode": "PER_HOUR", "perHourPrice": 40.0, "allowBefore": false,
            "allowDuring": false, "bufferMinsBefore": 15, "bufferMinsAfter": 30,
            "maxCapacity": 20}),
    )
    .await;
    res.assert_status(200);
    assert_eq!(res.body["addonName"], "Party room after");
    assert_eq!(res.body["resourceName"], "Party room");
    assert_eq!(res.body["durationOptions"], json!([60, 120]));
    assert_eq!(res.body["hourlyRate"], 40.0);
    assert_eq!(res.body["currency"], "EUR");
    assert_eq!(res.body["bufferBeforeMins"], 15);
    assert_eq!(res.body["bufferAfterMins"], 30);
    assert_eq!(res.body["allowAfter"], true);
    assert_eq!(res.body["allowBefore"], false);
    assert_eq!(res.body["durationStepMins"], 30);
    let config = res.str("id").to_owned();

    // Customers see it with the tenant header alone.
    let public = app
        .get(&format!(
            "/api/v1/availability/resource-addons?product_id={}",
            c.product_id
        ))
        .tenant(&t.id)
        .send()
        .await;
    public.assert_status(200);
    assert_eq!(public.body["configs"][0]["id"], config.as_str());

    // Changed in part; switched off, it is no longer offered.
    let path = format!("{configs}/{config}");
    let changed = patch(
        &app,
        &t,
        &path,
        json!({"pricingMode": "FLAT", "flatPrice": 50, "isActive": false}),
    )
    .await;
    changed.assert_status(200);
    assert_eq!(changed.body["flatPrice"], 50.0);
    assert_eq!(changed.body["durationOptions"], json!([60, 120]));
    let public = app
        .get(&format!(
            "/api/v1/availability/resource-addons?product_id={}",
            c.product_id
        ))
        .tenant(&t.id)
        .send()
        .await;
    assert_eq!(public.body["configs"], json!([]));
    let staff = get(&app, &t, &configs).await;
    assert_eq!(staff.body["items"].as_array().unwrap().len(), 1);

    app.get("/api/v1/availability/resource-addons")
        .tenant(&t.id)
        .send()
        .await
        .assert_error(400, "VALIDATION_ERROR");
    app.get(&format!(
        "/api/v1/availability/resource-addons?product_id={}",
        uuid::Uuid::new_v4()
    ))
    .tenant(&t.id)
    .send()
    .await
    .assert_error(404, "NOT_FOUND");
    patch(
        &app,
        &t,
        &format!("{configs}/{}", uuid::Uuid::new_v4()),
        json!({}),
    )
    .await
    .assert_error(404, "NOT_FOUND");
}

#[tokio::test]
async fn each_mode_needs_its_fields_and_the_parts_must_belong_together() {
    let app = TestApp::spawn().await;
    let t = app.tenant("acme").await;
    let c = app.catalog(&t).await;
    let (room, addon) = room_and_addon(&app, &t, &c).await;
    let configs = format!("/api/v1/admin/products/{}/resource-addons", c.product_id);
    let fields = |body: Value| {
        let (app, t, configs) = (&app, &t, configs.clone());
        async move { post(app, t, &configs, body).await.error_fields() }
    };
    let base = |extra: Value| {
        let mut b = json!({"addonId": addon, "resourceId": room});
        for (k, v) in extra.as_object().unwrap() {
            b[k] = v.clone();
        }
        b
    };
    assert_eq!(
        fields(json!({})).await,
        ["addonId", "resourceId", "durationMode", "pricingMode"]
    );
    assert_eq!(
        fields(base(
            json!({"durationMode": "FIXED", "pricingMode": "FLAT"})
        ))
        .await,
        ["fixedDurationMins", "flatPrice"]
    );
    assert_eq!(
        fields(base(
            json!({"durationMode": "SELECTABLE", "selectableDurations": [],
            "pricingMode": "COMPOSITE", "basePrice": 10})
        ))
        .await,
        ["selectableDurations", "perPersonPrice"]
    );
    assert_eq!(
        fields(base(
            json!({"durationMode": "CUSTOM", "minDurationMins": 120,
            "maxDurationMins": 60, "pricingMode": "PER_PERSON", "perPersonPrice": -1})
        ))
        .await,
        ["perPersonPrice", "maxDurationMins"]
    );
    assert_eq!(
        fields(base(
            json!({"durationMode": "CUSTOM", "minDurationMins": 60,
            "maxDurationMins": 180, "durationStepMins": 45, "defaultDurationMins": 90,
            "pricingMode": "FLAT", "flatPrice": 5})
        ))
        .await,
        ["defaultDurationMins"]
    );
    assert_eq!(
        fields(base(
            json!({"durationMode": "FIXED", "fixedDurationMins": 60,
            "pricingMode": "FLAT", "flatPrice": 5, "allowBefore": false,
            "allowDuring": false, "allowAfter": false, "bufferMinsAfter": 2000})
        ))
        .await,
        ["bufferMinsAfter", "allowAfter"]
    );
    let ok = base(json!({"durationMode": "FIXED", "fixedDurationMins": 60,
        "pricingMode": "FLAT", "flatPrice": 5}));

    // The add-on must be the product's and of type resource; the resource at its site.
    let item = post(
        &app,
        &t,
        &format!("/api/v1/admin/products/{}/addons", c.product_id),
        json!({"name": "Cake", "addonType": "item", "mode": "yesno", "priceType": "fixed",
            "price": 5}),
    )
    .await;
    let mut with_item = ok.clone();
    with_item["addonId"] = json!(item.str("id"));
    assert_eq!(
        post(&app, &t, &configs, with_item).await.error_fields(),
        ["addonId"]
    );
    let mut unknown = ok.clone();
    unknown["addonId"] = json!(uuid::Uuid::new_v4());
    post(&app, &t, &configs, unknown)
        .await
        .assert_error(404, "NOT_FOUND");
    let elsewhere = post(
        &app,
        &t,
        "/api/v1/admin/sites",
        json!({"name": "Annex", "timezone": "Europe/Helsinki"}),
    )
    .await;
    let far_room = post(
        &app,
        &t,
        "/api/v1/admin/resources",
        json!({"siteId": elsewhere.str("id"), "name": "Far room", "resourceType": "ROOM"}),
    )
    .await;
    let mut far = ok.clone();
    far["resourceId"] = json!(far_room.str("id"));
    assert_eq!(
        post(&app, &t, &configs, far).await.error_fields(),
        ["resourceId"]
    );
    post(&app, &t, &configs, ok).await.assert_status(200);
}

#[tokio::test]
async fn windows_lie_around_the_activity_priced_for_the_party() {
    let app = TestApp::spawn().await;
    let t = app.tenant("acme").await;
    let c = app.catalog(&t).await;
    let (room, addon) = room_and_addon(&app, &t, &c).await;
    let configs = format!("/api/v1/admin/products/{}/resource-addons", c.product_id);
    let config = post(
        &app,
        &t,
        &configs,
        json!({"addonId": addon, "resourceId": room, "durationMode": "SELECTABLE",
            "selectableDurations": [30, 120], "pricingMode": "COMPOSITE", "basePrice": 20,
            "perPersonPrice": 2.5, "bufferMinsAfter": 15, "maxCapacity": 8}),
    )
    .await;
    config.assert_status(200);
    let id = config.str("id").to_owned();
    let windows = |query: String| {
        let (app, t, id) = (&app, &t, id.clone());
        async move {
            app.get(&format!(
                "/api/v1/availability/resource-addons/{id}/windows?{query}"
            ))
            .tenant(&t.id)
            .send()
            .await
        }
    };
    let activity = "activity_starts_at=2026-12-01T16:00:00Z&activity_ends_at=2026-12-01T17:00:00Z";
    let res = windows(format!("{activity}&party_size=6")).await;
    res.assert_status(200);
    assert_eq!(res.body["configId"], id.as_str());
    let got: Vec<(String, String, String, i64, f64, bool)> = res.body["windows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| {
            (
                w["position"].as_str().unwrap().to_owned(),
                w["startsAt"].as_str().unwrap().to_owned(),
                w["endsAt"].as_str().unwrap().to_owned(),
                w["durationMins"].as_i64().unwrap(),
                w["price"].as_f64().unwrap(),
                w["isAvailable"].as_bool().unwrap(),
            )
        })
        .collect();
    let w = |p: &str, s: &str, e: &str, d: i64| {
        // 20.00 + 2.50 × 6, whatever the length.
        (p.to_owned(), s.to_owned(), e.to_owned(), d, 35.0, true)
    };
    assert_eq!(
        got,
        vec![
            w("BEFORE", "2026-12-01T15:30:00Z", "2026-12-01T16:00:00Z", 30),
            w(
                "BEFORE",
                "2026-12-01T14:00:00Z",
                "2026-12-01T16:00:00Z",
                120
            ),
            w("DURING", "2026-12-01T16:00:00Z", "2026-12-01T16:30:00Z", 30),
            w("AFTER", "2026-12-01T17:00:00Z", "2026-12-01T17:30:00Z", 30),
            w("AFTER", "2026-12-01T17:00:00Z", "2026-12-01T19:00:00Z", 120),
        ]
    );
    // A party larger than the add-on serves gets no window.
    let big = windows(format!("{activity}&party_size=9")).await;
    assert!(
        big.body["windows"]
            .as_array()
            .unwrap()
            .iter()
            .all(|w| w["isAvailable"] == false)
    );

    // The activity must start before it ends, and every parameter be readable.
    let backwards = windows(
        "activity_starts_at=2026-12-01T17:00:00Z&activity_ends_at=2026-12-01T16:00:00Z".into(),
    )
    .await;
    backwards.assert_error(400, "VALIDATION_ERROR");
    assert!(
        backwards.text.contains("start must be before end"),
        "{}",
        backwards.text
    );
    // Nor last longer than a product can: a day at most (a range of centuries would
    // otherwise be walked day by day through a resource's hours).
    let long = windows(
        "activity_starts_at=1900-01-01T00:00:00Z&activity_ends_at=2999-12-31T00:00:00Z".into(),
    )
    .await;
    long.assert_error(400, "VALIDATION_ERROR");
    assert!(long.text.contains("at most 24 hours"), "{}", long.text);
    let day = windows(
        "activity_starts_at=2026-12-01T16:00:00Z&activity_ends_at=2026-12-02T16:00:00Z".into(),
    )
    .await;
    day.assert_status(200);
    let bad = windows("activity_starts_at=tomorrow&party_size=0&exclude_booking_id=x".into()).await;
    bad.assert_status(400);
    for field in [
        "activity_starts_at",
        "activity_ends_at",
        "party_size",
        "exclude_booking_id",
    ] {
        assert!(bad.text.contains(field), "{field}: {}", bad.text);
    }
    let far = windows(
        "activity_starts_at=3000-12-31T22:00:00Z&activity_ends_at=3000-12-31T23:00:00Z".into(),
    )
    .await;
    far.assert_status(400);
    assert!(
        far.text.contains("between the years 1900 and 2999"),
        "{}",
        far.text
    );
    // Unknown, or no longer offered: not found.
    app.get(&format!(
        "/api/v1/availability/resource-addons/{}/windows?{activity}",
        uuid::Uuid::new_v4()
    ))
    .tenant(&t.id)
    .send()
    .await
    .assert_error(404, "NOT_FOUND");
    patch(
        &app,
        &t,
        &format!("/api/v1/admin/resources/{room}"),
        json!({"isActive": false}),
    )
    .await
    .assert_status(200);
    windows(activity.into())
        .await
        .assert_error(404, "NOT_FOUND");
}
