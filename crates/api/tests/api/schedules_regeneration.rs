//! Slot regeneration: concurrent regenerations and schedule moves, site time zone changes,
//! and product changes.

use super::schedules::{post, slot_count};
use kairos_domain::TenantId;
use kairos_domain::scheduling::{RecurrenceKind, ScopeType};
use kairos_testkit::TestApp;
use serde_json::json;
use uuid::Uuid;

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
                waiver_check_in: kairos_domain::waivers::WaiverCheckIn::Warn,
                participant_types: Vec::new(),
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
