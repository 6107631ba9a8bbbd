use kairos_testkit::TestApp;
use serde_json::json;
use uuid::Uuid;

#[tokio::test]
async fn availability_lists_open_slots_with_a_price_preview() {
    let app = TestApp::spawn().await;
    let t = app.tenant("acme").await;
    let fx = app.catalog(&t).await;
    app.daily_hours(&t, "site", &fx.site_id, "10:00", "14:00")
        .await;
    let res = app
        .availability("acme", &fx, "2026-11-23", "2026-11-24", 3)
        .await;
    res.assert_status(200);
    assert!(res.body["request_id"].is_string());
    assert_eq!(res.body["productId"], fx.product_id.as_str());
    assert_eq!(res.body["siteId"], fx.site_id.as_str());
    assert_eq!(res.body["dateFrom"], "2026-11-23");
    assert_eq!(res.body["dateTo"], "2026-11-24");
    assert_eq!(res.body["partySize"], 3);
    let slots = res.body["slots"].as_array().cloned().unwrap_or_default();
    assert_eq!(slots.len(), 8);
    let first = &slots[0];
    // 10:00 in Helsinki (UTC+2) on 23 November.
    assert_eq!(first["startsAt"], "2026-11-23T08:00:00Z");
    assert_eq!(first["endsAt"], "2026-11-23T09:00:00Z");
    assert_eq!(first["availableCapacity"], 10);
    assert_eq!(first["totalCapacity"], 10);
    assert_eq!(first["labelCodes"], json!(["beginner_friendly"]));
    // 3 × 20.00 including 24 % tax: subtotal 60.00 as priced, of which 11.61 is tax; 60.00
    // to pay (the same words as the hold's).
    assert_eq!(
        first["pricingPreview"],
        json!({"subtotal": 60.0, "taxTotal": 11.61, "grandTotal": 60.0, "currency": "EUR"})
    );
}

#[tokio::test]
async fn date_from_alone_means_one_day_and_labels_can_be_left_out() {
    let app = TestApp::spawn().await;
    let t = app.tenant("acme").await;
    let fx = app.catalog(&t).await;
    app.daily_hours(&t, "site", &fx.site_id, "10:00", "14:00")
        .await;
    let res = app
        .get(&format!(
            "/api/v1/availability?product_id={}&site_id={}&date_from=2026-11-23&include_labels=false",
            fx.product_id, fx.site_id
        ))
        .tenant("acme")
        .send()
        .await;
    res.assert_status(200);
    assert_eq!(res.body["dateTo"], "2026-11-23");
    assert_eq!(res.body["partySize"], 1);
    let slots = res.body["slots"].as_array().cloned().unwrap_or_default();
    assert_eq!(slots.len(), 4);
    assert!(slots.iter().all(|s| s.get("labelCodes").is_none()));
}

#[tokio::test]
async fn missing_and_bad_parameters_are_named() {
    let app = TestApp::spawn().await;
    let t = app.tenant("acme").await;
    let fx = app.catalog(&t).await;
    let res = app.get("/api/v1/availability").tenant("acme").send().await;
    res.assert_error(400, "VALIDATION_ERROR");
    assert_eq!(res.error_fields(), ["product_id", "site_id", "date_from"]);
    let base = format!(
        "/api/v1/availability?product_id={}&site_id={}",
        fx.product_id, fx.site_id
    );
    for (query, field) in [
        ("&date_from=21-11-2026", "date_from"),
        ("&date_from=2026-11-23&date_to=2026-11-22", "date_to"),
        ("&date_from=2026-11-01&date_to=2026-12-15", "date_to"),
        ("&date_from=2026-11-23&party_size=0", "party_size"),
        ("&date_from=2026-11-23&party_size=two", "party_size"),
        (
            "&date_from=2026-11-23&include_labels=maybe",
            "include_labels",
        ),
    ] {
        let res = app
            .get(&format!("{base}{query}"))
            .tenant("acme")
            .send()
            .await;
        res.assert_error(400, "VALIDATION_ERROR");
        assert_eq!(res.error_fields(), [field], "{query}");
    }
    app.get(&format!("{base}&date_from=2026-11-23"))
        .send()
        .await
        .assert_error(400, "VALIDATION_ERROR");
}

#[tokio::test]
async fn unknown_inactive_or_mismatched_products_and_sites_are_not_found() {
    let app = TestApp::spawn().await;
    let t = app.tenant("acme").await;
    let fx = app.catalog(&t).await;
    let other_site = app
        .post("/api/v1/admin/sites")
        .tenant("acme")
        .token(&t.owner_token)
        .json(json!({"name": "Annex", "timezone": "Europe/Helsinki"}))
        .send()
        .await;
    let other_site = other_site.str("id").to_owned();
    let q = |product: &str, site: &str| {
        format!("/api/v1/availability?product_id={product}&site_id={site}&date_from=2026-11-23")
    };
    let unknown = Uuid::now_v7().to_string();
    for path in [
        q(&unknown, &fx.site_id),
        q(&fx.product_id, &unknown),
        q(&fx.product_id, &other_site),
        q("nope", &fx.site_id),
    ] {
        app.get(&path)
            .tenant("acme")
            .send()
            .await
            .assert_error(404, "NOT_FOUND");
    }
    // Another tenant cannot see it either.
    app.tenant("beta").await;
    app.get(&q(&fx.product_id, &fx.site_id))
        .tenant("beta")
        .send()
        .await
        .assert_error(404, "NOT_FOUND");
    // Deactivated products and sites disappear.
    app.delete(&format!("/api/v1/admin/products/{}", fx.product_id))
        .tenant("acme")
        .token(&t.owner_token)
        .send()
        .await
        .assert_status(200);
    app.get(&q(&fx.product_id, &fx.site_id))
        .tenant("acme")
        .send()
        .await
        .assert_error(404, "NOT_FOUND");
}

#[tokio::test]
async fn nothing_free_is_an_empty_list_and_full_or_past_slots_are_not_offered() {
    let app = TestApp::spawn().await;
    let t = app.tenant("acme").await;
    let fx = app.catalog(&t).await;
    let empty = app
        .availability("acme", &fx, "2026-11-23", "2026-11-23", 1)
        .await;
    empty.assert_status(200);
    assert_eq!(empty.body["slots"], json!([]));

    app.daily_hours(&t, "site", &fx.site_id, "10:00", "14:00")
        .await;
    let day = app
        .availability("acme", &fx, "2026-11-23", "2026-11-23", 1)
        .await;
    let first = day.body["slots"][0]["slotId"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    app.hold_in("acme", &fx, &first, 8).await.assert_status(200);
    app.hold_in("acme", &fx, &first, 3)
        .await
        .assert_error(409, "SLOT_UNAVAILABLE");
    let for_two = app
        .availability("acme", &fx, "2026-11-23", "2026-11-23", 2)
        .await;
    assert_eq!(for_two.body["slots"][0]["slotId"], first.as_str());
    assert_eq!(for_two.body["slots"][0]["availableCapacity"], 2);
    let for_three = app
        .availability("acme", &fx, "2026-11-23", "2026-11-23", 3)
        .await;
    assert_ne!(for_three.body["slots"][0]["slotId"], first.as_str());
    assert_eq!(for_three.body["slots"].as_array().map(Vec::len), Some(3));

    // Today 11:00 is now: the 10:00 slot has started and is not offered.
    let today = app
        .availability("acme", &fx, "2026-11-21", "2026-11-21", 1)
        .await;
    assert_eq!(today.body["slots"][0]["startsAt"], "2026-11-21T09:00:00Z");
    app.clock.advance(chrono::Duration::hours(2));
    let later = app
        .availability("acme", &fx, "2026-11-21", "2026-11-21", 1)
        .await;
    assert_eq!(later.body["slots"].as_array().map(Vec::len), Some(1));
}

#[tokio::test]
async fn product_addons_are_public_and_only_active_ones_are_listed() {
    let app = TestApp::spawn().await;
    let t = app.tenant("acme").await;
    let fx = app.catalog(&t).await;
    let base = format!("/api/v1/admin/products/{}/addons", fx.product_id);
    for (name, active) in [("Shoes", true), ("Old thing", false)] {
        app.post(&base)
            .tenant("acme")
            .token(&t.owner_token)
            .json(json!({"name": name, "addonType": "item", "mode": "free_qty", "priceType": "fixed", "unitPrice": 3, "isActive": active}))
            .send()
            .await
            .assert_status(200);
    }
    let res = app
        .get(&format!(
            "/api/v1/availability/products/{}/addons",
            fx.product_id
        ))
        .tenant("acme")
        .send()
        .await;
    res.assert_status(200);
    assert_eq!(res.body["product_id"], fx.product_id.as_str());
    let addons = res.body["addons"].as_array().cloned().unwrap_or_default();
    assert_eq!(addons.len(), 1);
    assert_eq!(addons[0]["name"], "Shoes");
    assert_eq!(addons[0]["unitPrice"], 3.0);
    assert_eq!(addons[0]["currency"], "EUR");
    assert_eq!(addons[0]["available"], true);
    app.get(&format!(
        "/api/v1/availability/products/{}/addons",
        Uuid::now_v7()
    ))
    .tenant("acme")
    .send()
    .await
    .assert_error(404, "NOT_FOUND");
}

#[tokio::test]
async fn site_config_shows_products_on_sale_and_policies() {
    let app = TestApp::spawn().await;
    let t = app.tenant("acme").await;
    let fx = app.catalog(&t).await;
    let res = app
        .get(&format!("/api/v1/availability/sites/{}/config", fx.site_id))
        .tenant("acme")
        .send()
        .await;
    res.assert_status(200);
    assert_eq!(res.body["timezone"], "Europe/Helsinki");
    assert_eq!(res.body["currency"], "EUR");
    assert_eq!(res.body["products"][0]["id"], fx.product_id.as_str());
    assert_eq!(res.body["products"][0]["basePrice"], 20.0);
    assert_eq!(res.body["bookingPolicies"]["holdTtlMinutes"], 15);
    assert_eq!(
        res.body["bookingPolicies"]["cancellationPolicy"],
        "standard"
    );
    assert_eq!(res.body["bookingPolicies"]["bookingHorizonDays"], 60);
    // No card or bank provider yet: pay on arrival only.
    assert_eq!(res.body["paymentMethods"], serde_json::json!(["poa"]));
    app.sandbox_cardpay(&t).await;
    let res = app
        .get(&format!("/api/v1/availability/sites/{}/config", fx.site_id))
        .tenant("acme")
        .send()
        .await;
    assert_eq!(
        res.body["paymentMethods"],
        serde_json::json!(["poa", "cardpay"])
    );
    app.get(&format!(
        "/api/v1/availability/sites/{}/config",
        Uuid::now_v7()
    ))
    .tenant("acme")
    .send()
    .await
    .assert_error(404, "NOT_FOUND");
}

#[tokio::test]
async fn the_public_site_list_has_the_active_sites_of_the_tenant_only() {
    let app = TestApp::spawn().await;
    let t = app.tenant("acme").await;
    let fx = app.catalog(&t).await;
    let closed = app
        .post("/api/v1/admin/sites")
        .tenant("acme")
        .token(&t.owner_token)
        .json(
            serde_json::json!({"name": "Old hall", "timezone": "Europe/Helsinki",
            "currency": "EUR"}),
        )
        .send()
        .await;
    closed.assert_status(200);
    app.patch(&format!("/api/v1/admin/sites/{}", closed.str("id")))
        .tenant("acme")
        .token(&t.owner_token)
        .json(serde_json::json!({"isActive": false}))
        .send()
        .await
        .assert_status(200);
    let other = app.tenant("other").await;
    app.catalog(&other).await;
    let res = app
        .get("/api/v1/availability/sites")
        .tenant("acme")
        .send()
        .await;
    res.assert_status(200);
    let sites = res.body["sites"].as_array().unwrap();
    assert_eq!(sites.len(), 1, "{}", res.text);
    assert_eq!(sites[0]["siteId"], fx.site_id.as_str());
    assert_eq!(sites[0]["timezone"], "Europe/Helsinki");
    assert_eq!(sites[0]["currency"], "EUR");
    app.get("/api/v1/availability/sites")
        .tenant("nobody")
        .send()
        .await
        .assert_error(404, "NOT_FOUND");
}

#[tokio::test]
async fn availability_uses_the_relaxed_rate_tier() {
    let app = TestApp::spawn().await;
    let t = app.tenant("acme").await;
    let fx = app.catalog(&t).await;
    let res = app
        .availability("acme", &fx, "2026-11-23", "2026-11-23", 1)
        .await;
    assert_eq!(res.header("x-ratelimit-limit"), Some("200"));
}

#[tokio::test]
async fn the_availability_cache_serves_repeats_and_forgets_on_writes_and_expiry() {
    let app = TestApp::builder()
        .availability_cache(std::time::Duration::from_secs(1))
        .spawn()
        .await;
    let t = app.tenant("acme").await;
    let fx = app.catalog(&t).await;
    app.daily_hours(&t, "site", &fx.site_id, "10:00", "14:00")
        .await;
    let first = app
        .availability("acme", &fx, "2026-11-23", "2026-11-23", 1)
        .await;
    let slot = first.body["slots"][0]["slotId"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    // A hold made through another instance of the deployment is seen here after the
    // time-to-live.
    let other = TestApp::builder().same_database_as(&app).spawn().await;
    other
        .hold_in("acme", &fx, &slot, 4)
        .await
        .assert_status(200);
    let cached = app
        .availability("acme", &fx, "2026-11-23", "2026-11-23", 1)
        .await;
    assert_eq!(cached.body["slots"][0]["availableCapacity"], 10);
    assert_ne!(
        cached.body["request_id"], first.body["request_id"],
        "each answer has its own request id"
    );
    app.clock.advance(chrono::Duration::seconds(1));
    let fresh = app
        .availability("acme", &fx, "2026-11-23", "2026-11-23", 1)
        .await;
    assert_eq!(fresh.body["slots"][0]["availableCapacity"], 6);
    // A write through the API drops the tenant's answers at once.
    app.post("/api/v1/admin/schedules/blackouts")
        .tenant("acme")
        .token(&t.owner_token)
        .json(json!({"scopeType": "site", "scopeId": fx.site_id, "kind": "event", "dateFrom": "2026-11-23", "startTime": "13:00", "endTime": "14:00"}))
        .send()
        .await
        .assert_status(200);
    let after = app
        .availability("acme", &fx, "2026-11-23", "2026-11-23", 1)
        .await;
    assert_eq!(after.body["slots"].as_array().map(Vec::len), Some(3));
}
