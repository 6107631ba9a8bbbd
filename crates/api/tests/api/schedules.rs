use kairos_domain::TenantId;
use kairos_domain::scheduling::{RecurrenceKind, ScopeType};
use kairos_testkit::{TenantFixture, TestApp};
use serde_json::json;
use uuid::Uuid;

async fn slot_count(app: &TestApp, tenant: &str, product: &str) -> usize {
    let tenant = TenantId::parse(tenant).unwrap_or_else(|e| panic!("{e}"));
    let product = Uuid::parse_str(product).unwrap_or_else(|e| panic!("{e}"));
    let from = app.clock_now() - chrono::Duration::days(1);
    let to = app.clock_now() + chrono::Duration::days(90);
    app.store
        .list_slots(&tenant, product, from, to)
        .await
        .unwrap_or_else(|e| panic!("{e}"))
        .len()
}

async fn post(
    app: &TestApp,
    t: &TenantFixture,
    path: &str,
    body: serde_json::Value,
) -> kairos_testkit::TestResponse {
    app.post(path)
        .tenant(&t.id)
        .token(&t.owner_token)
        .json(body)
        .send()
        .await
}

#[tokio::test]
async fn a_template_generates_slots_to_the_horizon() {
    let app = TestApp::spawn().await;
    let t = app.tenant("acme").await;
    let fx = app.catalog(&t).await;
    let body = app
        .daily_hours(&t, "site", &fx.site_id, "10:00", "14:00")
        .await;
    // Now is 11:00 in Helsinki: today keeps 11:00, 12:00 and 13:00; then 60 days of four.
    assert_eq!(body["regeneration"]["created"], 243);
    assert_eq!(body["recurrenceKind"], "daily");
    assert_eq!(slot_count(&app, "acme", &fx.product_id).await, 243);
    let again = post(
        &app,
        &t,
        "/api/v1/admin/schedules/regenerate",
        json!({"scopeType": "site", "scopeId": fx.site_id}),
    )
    .await;
    again.assert_status(200);
    assert_eq!(again.body["created"], 0, "regeneration is idempotent");
    assert_eq!(again.body["kept"], 243);
}

#[tokio::test]
async fn template_validation_names_each_rule() {
    let app = TestApp::spawn().await;
    let t = app.tenant("acme").await;
    let fx = app.catalog(&t).await;
    let res = post(
        &app,
        &t,
        "/api/v1/admin/schedules/templates",
        json!({
            "scopeType": "room", "scopeId": "x", "startTime": "24:00", "endTime": "9:00"
        }),
    )
    .await;
    res.assert_error(400, "VALIDATION_ERROR");
    assert_eq!(
        res.error_fields(),
        ["scopeType", "scopeId", "startTime", "endTime"]
    );
    let res = post(&app, &t, "/api/v1/admin/schedules/templates", json!({
        "scopeType": "site", "scopeId": fx.site_id, "startTime": "18:00", "endTime": "09:00",
        "recurrenceKind": "weekly", "byDay": 200, "validFrom": "2026-12-31", "validTo": "2026-12-01"
    }))
    .await;
    assert_eq!(res.error_fields(), ["startTime", "byDay", "validFrom"]);
    let res = post(&app, &t, "/api/v1/admin/schedules/templates", json!({
        "scopeType": "site", "scopeId": fx.site_id, "startTime": "09:00", "endTime": "10:00", "recurrenceKind": "hourly"
    }))
    .await;
    assert_eq!(res.error_fields(), ["recurrenceKind"]);
}

#[tokio::test]
async fn schedules_of_unknown_or_foreign_scopes_are_not_found() {
    let app = TestApp::spawn().await;
    let a = app.tenant("alpha").await;
    let b = app.tenant("beta").await;
    let fx = app.catalog(&a).await;
    for scope in [fx.site_id.clone(), Uuid::now_v7().to_string()] {
        let res = post(&app, &b, "/api/v1/admin/schedules/templates", json!({
            "scopeType": "site", "scopeId": scope, "recurrenceKind": "daily", "startTime": "09:00", "endTime": "10:00"
        }))
        .await;
        res.assert_error(404, "NOT_FOUND");
    }
    let res = post(&app, &b, "/api/v1/admin/schedules/blackouts", json!({
        "scopeType": "product", "scopeId": fx.product_id, "kind": "closure", "dateFrom": "2026-12-01"
    }))
    .await;
    res.assert_error(404, "NOT_FOUND");
    assert_eq!(slot_count(&app, "alpha", &fx.product_id).await, 0);
}

#[tokio::test]
async fn conflicting_templates_are_reported() {
    let app = TestApp::spawn().await;
    let t = app.tenant("acme").await;
    let fx = app.catalog(&t).await;
    let first = app
        .daily_hours(&t, "site", &fx.site_id, "10:00", "14:00")
        .await;
    assert_eq!(first["warnings"], json!([]));
    let second = app
        .daily_hours(&t, "site", &fx.site_id, "13:00", "16:00")
        .await;
    assert_eq!(second["warnings"][0]["type"], "template_conflict");
    assert_eq!(second["warnings"][0]["details"]["templateId"], first["id"]);
    let evening = app
        .daily_hours(&t, "site", &fx.site_id, "16:00", "18:00")
        .await;
    assert_eq!(
        evening["warnings"],
        json!([]),
        "touching hours do not conflict"
    );
}

#[tokio::test]
async fn overrides_and_blackouts_regenerate_their_dates() {
    let app = TestApp::spawn().await;
    let t = app.tenant("acme").await;
    let fx = app.catalog(&t).await;
    app.daily_hours(&t, "site", &fx.site_id, "10:00", "14:00")
        .await;

    let over = post(&app, &t, "/api/v1/admin/schedules/overrides", json!({
        "scopeType": "site", "scopeId": fx.site_id, "dateFrom": "2026-12-24", "dateTo": "2026-12-24",
        "startTime": "10:00", "endTime": "12:00", "reason": "Christmas Eve"
    }))
    .await;
    over.assert_status(200);
    assert_eq!(over.body["regeneration"]["deleted"], 2);
    let eve = app
        .availability("acme", &fx, "2026-12-24", "2026-12-24", 1)
        .await;
    assert_eq!(eve.body["slots"].as_array().map(Vec::len), Some(2));

    let black = post(
        &app,
        &t,
        "/api/v1/admin/schedules/blackouts",
        json!({
            "scopeType": "product", "scopeId": fx.product_id, "kind": "maintenance",
            "dateFrom": "2026-12-01", "dateTo": "2026-12-02"
        }),
    )
    .await;
    black.assert_status(200);
    assert_eq!(black.body["regeneration"]["deleted"], 8);
    assert_eq!(black.body["kind"], "maintenance");
    let dec1 = app
        .availability("acme", &fx, "2026-12-01", "2026-12-02", 1)
        .await;
    assert_eq!(dec1.body["slots"], json!([]));

    // Removing the blackout brings the slots back.
    let id = black.str("id").to_owned();
    let back = app
        .delete(&format!("/api/v1/admin/schedules/blackouts/{id}"))
        .tenant("acme")
        .token(&t.owner_token)
        .send()
        .await;
    back.assert_status(200);
    assert_eq!(back.body["regeneration"]["created"], 8);
    app.get(&format!("/api/v1/admin/schedules/blackouts/{id}"))
        .tenant("acme")
        .token(&t.owner_token)
        .send()
        .await
        .assert_error(404, "NOT_FOUND");
}

#[tokio::test]
async fn date_rule_validation() {
    let app = TestApp::spawn().await;
    let t = app.tenant("acme").await;
    let fx = app.catalog(&t).await;
    let res = post(&app, &t, "/api/v1/admin/schedules/overrides", json!({
        "scopeType": "site", "scopeId": fx.site_id, "dateFrom": "2026-12-24", "dateTo": "2026-12-20"
    }))
    .await;
    res.assert_error(400, "VALIDATION_ERROR");
    assert_eq!(res.error_fields(), ["dateFrom", "startTime", "endTime"]);
    let res = post(
        &app,
        &t,
        "/api/v1/admin/schedules/blackouts",
        json!({
            "scopeType": "site", "scopeId": fx.site_id, "dateFrom": "2026-13-01", "kind": "party",
            "startTime": "12:00", "recurrence": "weekly"
        }),
    )
    .await;
    assert_eq!(
        res.error_fields(),
        ["dateFrom", "endTime", "kind", "recurrence"]
    );
    let res = post(
        &app,
        &t,
        "/api/v1/admin/schedules/templates",
        json!({
            "scopeType": "site", "scopeId": fx.site_id, "startTime": "09:00", "endTime": "10:00",
            "recurrenceKind": "none", "validFrom": "+99999-01-01", "exdates": ["1066-10-14"]
        }),
    )
    .await;
    res.assert_error(400, "VALIDATION_ERROR");
    assert_eq!(res.error_fields(), ["exdates[0]", "validFrom"]);
}

#[tokio::test]
async fn booked_slots_are_orphaned_not_deleted_and_restored_when_the_schedule_returns() {
    let app = TestApp::spawn().await;
    let t = app.tenant("acme").await;
    let fx = app.catalog(&t).await;
    app.daily_hours(&t, "site", &fx.site_id, "10:00", "14:00")
        .await;
    let day = app
        .availability("acme", &fx, "2026-12-01", "2026-12-01", 1)
        .await;
    let slot = day.body["slots"][0]["slotId"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    let tenant = TenantId::parse("acme").unwrap_or_else(|e| panic!("{e}"));
    let slot_id = Uuid::parse_str(&slot).unwrap_or_else(|e| panic!("{e}"));
    app.hold_in("acme", &fx, &slot, 2).await.assert_status(200);

    let black = post(
        &app,
        &t,
        "/api/v1/admin/schedules/blackouts",
        json!({
            "scopeType": "site", "scopeId": fx.site_id, "kind": "closure", "dateFrom": "2026-12-01"
        }),
    )
    .await;
    black.assert_status(200);
    assert_eq!(black.body["regeneration"]["orphaned"], 1);
    assert_eq!(black.body["regeneration"]["deleted"], 3);
    assert_eq!(black.body["warnings"][0]["type"], "bookings_affected");
    assert_eq!(
        black.body["warnings"][0]["details"]["orphanedSlots"][0],
        day.body["slots"][0]["startsAt"]
    );
    // The booked slot still exists but is not offered.
    let offered = app
        .availability("acme", &fx, "2026-12-01", "2026-12-01", 1)
        .await;
    assert_eq!(offered.body["slots"], json!([]));
    let product = Uuid::parse_str(&fx.product_id).unwrap_or_else(|e| panic!("{e}"));
    let all = app
        .store
        .list_slots(
            &tenant,
            product,
            app.clock_now(),
            app.clock_now() + chrono::Duration::days(30),
        )
        .await
        .unwrap_or_default();
    let kept = all
        .iter()
        .find(|s| s.id == slot_id)
        .map(|s| (s.is_orphaned, s.booked));
    assert_eq!(kept, Some((true, 2)));

    let id = black.str("id").to_owned();
    let back = app
        .delete(&format!("/api/v1/admin/schedules/blackouts/{id}"))
        .tenant("acme")
        .token(&t.owner_token)
        .send()
        .await;
    assert_eq!(back.body["regeneration"]["restored"], 1);
    assert_eq!(back.body["regeneration"]["created"], 3);
    let offered = app
        .availability("acme", &fx, "2026-12-01", "2026-12-01", 1)
        .await;
    assert_eq!(offered.body["slots"][0]["slotId"], slot.as_str());
    assert_eq!(offered.body["slots"][0]["availableCapacity"], 8);
}

#[tokio::test]
async fn preview_reports_without_writing() {
    let app = TestApp::spawn().await;
    let t = app.tenant("acme").await;
    let fx = app.catalog(&t).await;
    app.daily_hours(&t, "site", &fx.site_id, "10:00", "14:00")
        .await;
    let before = slot_count(&app, "acme", &fx.product_id).await;
    let preview = post(&app, &t, "/api/v1/admin/schedules/regenerate/preview", json!({
        "scopeType": "product", "scopeId": fx.product_id, "dateFrom": "2026-12-01", "dateTo": "2026-12-07"
    }))
    .await;
    preview.assert_status(200);
    assert_eq!(preview.body["dryRun"], true);
    assert_eq!(preview.body["kept"], 28);
    assert_eq!(preview.body["created"], 0);
    assert_eq!(slot_count(&app, "acme", &fx.product_id).await, before);

    let bad = post(&app, &t, "/api/v1/admin/schedules/regenerate/preview", json!({
        "scopeType": "product", "scopeId": fx.product_id, "dateFrom": "2026-12-07", "dateTo": "2026-12-01"
    }))
    .await;
    bad.assert_error(400, "VALIDATION_ERROR");
    let missing = post(
        &app,
        &t,
        "/api/v1/admin/schedules/regenerate",
        json!({"scopeType": "product", "scopeId": Uuid::now_v7()}),
    )
    .await;
    missing.assert_error(404, "NOT_FOUND");
}

#[tokio::test]
async fn deleting_a_template_removes_unbooked_slots() {
    let app = TestApp::spawn().await;
    let t = app.tenant("acme").await;
    let fx = app.catalog(&t).await;
    let tpl = app
        .daily_hours(&t, "product", &fx.product_id, "10:00", "12:00")
        .await;
    assert_eq!(tpl["scopeType"], "product");
    let id = tpl["id"].as_str().unwrap_or_default();
    let list = app
        .get(&format!(
            "/api/v1/admin/schedules/templates?scopeType=product&scopeId={}",
            fx.product_id
        ))
        .tenant("acme")
        .token(&t.owner_token)
        .send()
        .await;
    assert_eq!(list.body["items"].as_array().map(Vec::len), Some(1));
    let patched = app
        .patch(&format!("/api/v1/admin/schedules/templates/{id}"))
        .tenant("acme")
        .token(&t.owner_token)
        .json(json!({"endTime": "11:00"}))
        .send()
        .await;
    patched.assert_status(200);
    assert_eq!(patched.body["endTime"], "11:00");
    assert!(
        patched.body["regeneration"]["deleted"]
            .as_u64()
            .unwrap_or(0)
            >= 60
    );
    let gone = app
        .delete(&format!("/api/v1/admin/schedules/templates/{id}"))
        .tenant("acme")
        .token(&t.owner_token)
        .send()
        .await;
    gone.assert_status(200);
    assert_eq!(slot_count(&app, "acme", &fx.product_id).await, 0);
}

#[tokio::test]
async fn a_new_product_on_a_scheduled_site_gets_slots_at_once() {
    let app = TestApp::spawn().await;
    let t = app.tenant("acme").await;
    let fx = app.catalog(&t).await;
    app.daily_hours(&t, "site", &fx.site_id, "10:00", "14:00")
        .await;
    let res = post(&app, &t, "/api/v1/admin/products", json!({
        "siteId": fx.site_id, "name": "Second", "durationMins": 120, "capacity": 4, "basePrice": 30, "slotIntervalMin": 120
    }))
    .await;
    res.assert_status(200);
    // 10:00 and 12:00 each day; today only 12:00 is still ahead.
    assert_eq!(slot_count(&app, "acme", res.str("id")).await, 1 + 60 * 2);
}

#[tokio::test]
async fn concurrent_regenerations_create_each_slot_once() {
    let app = TestApp::spawn().await;
    let t = app.tenant("acme").await;
    let fx = app.catalog(&t).await;
    app.daily_hours(&t, "site", &fx.site_id, "10:00", "14:00")
        .await;
    let tenant = TenantId::parse("acme").unwrap_or_else(|e| panic!("{e}"));
    // A product created behind the API has no slots yet; five instances race to fill it.
    let product = app
        .store
        .create_product(
            &tenant,
            kairos_store::NewProduct {
                site_id: Uuid::parse_str(&fx.site_id).unwrap_or_else(|e| panic!("{e}")),
                name: "Raced".into(),
                description: String::new(),
                duration_mins: 60,
                capacity: 5,
                base_price: 1000,
                price_type: kairos_domain::pricing::PriceType::PerPerson,
                tax_rate_bp: 0,
                prices_include_tax: true,
                slot_policy: kairos_domain::catalog::SlotPolicyKind::Interval,
                slot_interval_min: 60,
                fixed_slot_times: vec![],
                setup_time: 0,
                cleanup_time: 0,
                label_codes: vec![],
                requires_waiver: false,
            },
            &kairos_store::Actor::system("test"),
            app.clock_now(),
        )
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let runs = (0..5).map(|_| {
        let store = app.store.clone();
        let tenant = tenant.clone();
        let now = app.clock_now();
        tokio::spawn(async move {
            store
                .regenerate(
                    &tenant,
                    ScopeType::Product,
                    product.id,
                    kairos_store::DateSpan::default(),
                    now,
                    false,
                )
                .await
        })
    });
    let mut created = 0;
    for run in runs {
        created += run
            .await
            .unwrap_or_else(|e| panic!("{e}"))
            .unwrap_or_else(|e| panic!("{e}"))
            .created;
    }
    assert_eq!(slot_count(&app, "acme", &product.id.to_string()).await, 243);
    assert_eq!(
        created, 243,
        "each slot reported created by exactly one run"
    );
}

#[tokio::test]
async fn overrides_and_blackouts_can_be_changed_and_both_date_ranges_regenerate() {
    let app = TestApp::spawn().await;
    let t = app.tenant("acme").await;
    let fx = app.catalog(&t).await;
    app.daily_hours(&t, "site", &fx.site_id, "10:00", "14:00")
        .await;
    let black = post(
        &app,
        &t,
        "/api/v1/admin/schedules/blackouts",
        json!({
            "scopeType": "site", "scopeId": fx.site_id, "kind": "event", "dateFrom": "2026-12-01"
        }),
    )
    .await;
    let id = black.str("id").to_owned();
    // Move the blackout to the afternoon of 2 December.
    let moved = app
        .patch(&format!("/api/v1/admin/schedules/blackouts/{id}"))
        .tenant("acme")
        .token(&t.owner_token)
        .json(json!({"dateFrom": "2026-12-02", "dateTo": "2026-12-02", "startTime": "12:00", "endTime": "14:00", "reason": "Private party"}))
        .send()
        .await;
    moved.assert_status(200);
    assert_eq!(moved.body["kind"], "event");
    assert_eq!(moved.body["reason"], "Private party");
    assert_eq!(
        moved.body["regeneration"]["created"], 4,
        "1 December is open again"
    );
    assert_eq!(
        moved.body["regeneration"]["deleted"], 2,
        "2 December loses 12:00 and 13:00"
    );
    let dec1 = app
        .availability("acme", &fx, "2026-12-01", "2026-12-01", 1)
        .await;
    assert_eq!(dec1.body["slots"].as_array().map(Vec::len), Some(4));
    let dec2 = app
        .availability("acme", &fx, "2026-12-02", "2026-12-02", 1)
        .await;
    assert_eq!(dec2.body["slots"].as_array().map(Vec::len), Some(2));

    let over = post(&app, &t, "/api/v1/admin/schedules/overrides", json!({
        "scopeType": "site", "scopeId": fx.site_id, "dateFrom": "2026-12-10", "startTime": "10:00", "endTime": "11:00"
    }))
    .await;
    let oid = over.str("id").to_owned();
    let widened = app
        .patch(&format!("/api/v1/admin/schedules/overrides/{oid}"))
        .tenant("acme")
        .token(&t.owner_token)
        .json(json!({"endTime": "18:00"}))
        .send()
        .await;
    widened.assert_status(200);
    assert_eq!(widened.body["startTime"], "10:00");
    assert_eq!(
        widened.body["warnings"],
        json!([]),
        "an override does not conflict with itself"
    );
    let dec10 = app
        .availability("acme", &fx, "2026-12-10", "2026-12-10", 1)
        .await;
    assert_eq!(dec10.body["slots"].as_array().map(Vec::len), Some(8));
    let bad = app
        .patch(&format!("/api/v1/admin/schedules/overrides/{oid}"))
        .tenant("acme")
        .token(&t.owner_token)
        .json(json!({"startTime": "19:00"}))
        .send()
        .await;
    bad.assert_error(400, "VALIDATION_ERROR");
    app.patch(&format!(
        "/api/v1/admin/schedules/overrides/{}",
        Uuid::now_v7()
    ))
    .tenant("acme")
    .token(&t.owner_token)
    .json(json!({}))
    .send()
    .await
    .assert_error(404, "NOT_FOUND");
}

#[tokio::test]
async fn changing_a_sites_time_zone_moves_its_slots() {
    let app = TestApp::spawn().await;
    let t = app.tenant("acme").await;
    let fx = app.catalog(&t).await;
    app.daily_hours(&t, "site", &fx.site_id, "10:00", "14:00")
        .await;
    let before = app
        .availability("acme", &fx, "2026-12-01", "2026-12-01", 1)
        .await;
    assert_eq!(before.body["slots"][0]["startsAt"], "2026-12-01T08:00:00Z");
    app.patch(&format!("/api/v1/admin/sites/{}", fx.site_id))
        .tenant("acme")
        .token(&t.owner_token)
        .json(json!({"timezone": "America/New_York"}))
        .send()
        .await
        .assert_status(200);
    // 10:00 in New York (UTC-5) is 15:00 UTC; the Helsinki-time slots are gone.
    let after = app
        .availability("acme", &fx, "2026-12-01", "2026-12-01", 1)
        .await;
    let starts: Vec<&str> = after.body["slots"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|s| s["startsAt"].as_str())
        .collect();
    assert_eq!(
        starts,
        [
            "2026-12-01T15:00:00Z",
            "2026-12-01T16:00:00Z",
            "2026-12-01T17:00:00Z",
            "2026-12-01T18:00:00Z"
        ]
    );
}

#[tokio::test]
async fn product_changes_regenerate_and_deactivation_removes_unbooked_slots() {
    let app = TestApp::spawn().await;
    let t = app.tenant("acme").await;
    let fx = app.catalog(&t).await;
    app.daily_hours(&t, "site", &fx.site_id, "10:00", "14:00")
        .await;
    let path = format!("/api/v1/admin/products/{}", fx.product_id);
    app.patch(&path)
        .tenant("acme")
        .token(&t.owner_token)
        .json(json!({"durationMins": 120, "slotIntervalMin": 120}))
        .send()
        .await
        .assert_status(200);
    let day = app
        .availability("acme", &fx, "2026-12-01", "2026-12-01", 1)
        .await;
    let starts: Vec<&str> = day.body["slots"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|s| s["startsAt"].as_str())
        .collect();
    assert_eq!(starts, ["2026-12-01T08:00:00Z", "2026-12-01T10:00:00Z"]);
    assert_eq!(day.body["slots"][0]["endsAt"], "2026-12-01T10:00:00Z");

    app.delete(&path)
        .tenant("acme")
        .token(&t.owner_token)
        .send()
        .await
        .assert_status(200);
    assert_eq!(slot_count(&app, "acme", &fx.product_id).await, 0);
}

#[tokio::test]
async fn concurrent_changes_moving_schedules_between_site_and_products_all_succeed() {
    let app = TestApp::spawn().await;
    let t = app.tenant("acme").await;
    let fx = app.catalog(&t).await;
    let second = post(&app, &t, "/api/v1/admin/products", json!({
        "siteId": fx.site_id, "name": "Second", "durationMins": 60, "capacity": 4, "basePrice": 10
    }))
    .await;
    let site = Uuid::parse_str(&fx.site_id).unwrap_or_else(|e| panic!("{e}"));
    let p1 = Uuid::parse_str(&fx.product_id).unwrap_or_else(|e| panic!("{e}"));
    let p2 = Uuid::parse_str(second.str("id")).unwrap_or_else(|e| panic!("{e}"));
    let a = app
        .daily_hours(&t, "site", &fx.site_id, "10:00", "12:00")
        .await;
    let b = app
        .daily_hours(&t, "site", &fx.site_id, "13:00", "15:00")
        .await;
    let id = |v: &serde_json::Value| {
        Uuid::parse_str(v["id"].as_str().unwrap_or_default()).unwrap_or_else(|e| panic!("{e}"))
    };
    let (a, b) = (id(&a), id(&b));
    let tenant = TenantId::parse("acme").unwrap_or_else(|e| panic!("{e}"));
    for round in 0..6 {
        // Moving a site template to a product regenerates that product, then every
        // product of the site; the two moves below need the two products' locks in
        // opposite orders unless they are taken together, sorted.
        let moves = if round % 2 == 0 {
            [
                (a, ScopeType::Product, p2, "10:00", "12:00"),
                (b, ScopeType::Product, p1, "13:00", "15:00"),
            ]
        } else {
            [
                (a, ScopeType::Site, site, "10:00", "12:00"),
                (b, ScopeType::Site, site, "13:00", "15:00"),
            ]
        };
        let runs: Vec<_> = moves
            .into_iter()
            .map(|(id, scope_type, scope_id, start, end)| {
                let store = app.store.clone();
                let tenant = tenant.clone();
                let now = app.clock_now();
                tokio::spawn(async move {
                    let new = kairos_store::NewTemplate {
                        scope_type,
                        scope_id,
                        day_of_week: None,
                        start_time: start.into(),
                        end_time: end.into(),
                        recurrence_kind: RecurrenceKind::Daily,
                        by_day: None,
                        by_month: None,
                        by_month_day: None,
                        exdates: vec![],
                        valid_from: None,
                        valid_to: None,
                    };
                    store
                        .update_template(
                            &tenant,
                            id,
                            new,
                            &kairos_store::Actor::system("test"),
                            now,
                        )
                        .await
                })
            })
            .collect();
        for run in runs {
            run.await
                .unwrap_or_else(|e| panic!("{e}"))
                .unwrap_or_else(|e| panic!("a concurrent change failed: {e}"));
        }
    }
    // Whatever order they ran in, the slots match the final schedules.
    let check = post(
        &app,
        &t,
        "/api/v1/admin/schedules/regenerate/preview",
        json!({"scopeType": "site", "scopeId": fx.site_id}),
    )
    .await;
    assert_eq!(check.body["created"], 0);
    assert_eq!(check.body["deleted"], 0);
}

/// The message of the validation error of `field`.
fn field_message(res: &kairos_testkit::TestResponse, field: &str) -> String {
    res.body["details"]["errors"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|e| e["field"] == field)
        .and_then(|e| e["message"].as_str())
        .unwrap_or_else(|| panic!("no error for {field}: {}", res.text))
        .to_owned()
}

#[tokio::test]
async fn an_unknown_scope_recurrence_or_blackout_kind_is_a_400_naming_the_field_and_its_choices() {
    let app = TestApp::spawn().await;
    let t = app.tenant("acme").await;
    let fx = app.catalog(&t).await;
    let site = json!(fx.site_id);
    let cases = [
        (
            "/api/v1/admin/schedules/templates",
            json!({"scopeType": "room", "scopeId": site, "startTime": "09:00", "endTime": "10:00"}),
            "scopeType",
            "site or product",
        ),
        (
            "/api/v1/admin/schedules/templates",
            json!({"scopeType": "site", "scopeId": site, "startTime": "09:00", "endTime": "10:00",
                   "recurrenceKind": "Weekly"}),
            "recurrenceKind",
            "none, daily, weekly, monthly or annual",
        ),
        (
            "/api/v1/admin/schedules/overrides",
            json!({"scopeType": "site", "scopeId": site, "dateFrom": "2026-12-24",
                   "startTime": "09:00", "endTime": "10:00", "recurrence": "yearly"}),
            "recurrence",
            "none or annual",
        ),
        (
            "/api/v1/admin/schedules/blackouts",
            json!({"scopeType": "site", "scopeId": site, "dateFrom": "2026-12-24", "kind": "party"}),
            "kind",
            "maintenance, holiday, closure or event",
        ),
        (
            "/api/v1/admin/schedules/blackouts",
            json!({"scopeType": "site", "scopeId": site, "dateFrom": "2026-12-24", "kind": "closure",
                   "recurrence": "weekly"}),
            "recurrence",
            "none or annual",
        ),
        (
            "/api/v1/admin/schedules/regenerate",
            json!({"scopeType": "tenant", "scopeId": site}),
            "scopeType",
            "site or product",
        ),
    ];
    for (path, body, field, choices) in cases {
        let res = post(&app, &t, path, body).await;
        res.assert_error(400, "VALIDATION_ERROR");
        assert_eq!(res.error_fields(), [field], "{path}");
        assert_eq!(field_message(&res, field), format!("must be {choices}"));
    }
    let listed = app
        .get(&format!(
            "/api/v1/admin/schedules/overrides?scopeType=room&scopeId={}",
            fx.site_id
        ))
        .tenant("acme")
        .token(&t.owner_token)
        .send()
        .await;
    listed.assert_error(400, "VALIDATION_ERROR");
    assert_eq!(listed.error_fields(), ["scopeType"]);

    // A change is checked like a creation; the stored template stays as it was.
    let tpl = app
        .daily_hours(&t, "site", &fx.site_id, "10:00", "12:00")
        .await;
    let id = tpl["id"].as_str().unwrap_or_default();
    let patched = app
        .patch(&format!("/api/v1/admin/schedules/templates/{id}"))
        .tenant("acme")
        .token(&t.owner_token)
        .json(json!({"recurrenceKind": "hourly"}))
        .send()
        .await;
    patched.assert_error(400, "VALIDATION_ERROR");
    assert_eq!(patched.error_fields(), ["recurrenceKind"]);
    let got = app
        .get(&format!("/api/v1/admin/schedules/templates/{id}"))
        .tenant("acme")
        .token(&t.owner_token)
        .send()
        .await;
    assert_eq!(got.body["recurrenceKind"], "daily");
    assert_eq!(got.body["scopeType"], "site");
}
