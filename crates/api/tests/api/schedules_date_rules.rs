//! Schedule date rules: overrides and blackouts regenerate their dates, are validated and
//! changed, and booked slots are orphaned rather than deleted.

use super::schedules::post;
use kairos_domain::TenantId;
use kairos_testkit::TestApp;
use serde_json::json;
use uuid::Uuid;

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
