//! Resources are never given beyond their shared mode, whatever arrives at once: 100
//! concurrent requests for one room's overlapping windows, one wins; a SHARED resource
//! gives its capacity in bookings, a POOLED one its capacity in people; back-to-back
//! windows do not meet. On both backends (PostgreSQL also refuses it by its exclusion
//! constraint).

use chrono::{DateTime, Duration, Utc};
use kairos_domain::TenantId;
use kairos_domain::resources::WindowPosition;
use kairos_store::{Actor, AllocationRequest, ResourceError};
use kairos_testkit::{TenantFixture, TestApp};
use serde_json::json;
use uuid::Uuid;

/// A hold to attach allocations to, and a resource of `mode` and `capacity` with a
/// configuration of the product (its id).
async fn setup(mode: &str, capacity: u32) -> (TestApp, TenantFixture, Uuid, Uuid, Uuid) {
    let app = TestApp::builder()
        .limits(kairos_api::rate_limit::Limits::UNLIMITED)
        .spawn()
        .await;
    let t = app.tenant("acme").await;
    let fx = app.bookable(&t).await;
    let hold = app.hold(&t.id, &fx, &fx.slots[0], 1).await;
    hold.assert_status(200);
    let resource = app
        .post("/api/v1/admin/resources")
        .tenant(&t.id)
        .token(&t.owner_token)
        .json(
            json!({"siteId": fx.catalog.site_id, "name": "Room", "resourceType": "ROOM",
            "sharedMode": mode, "capacity": capacity}),
        )
        .send()
        .await;
    resource.assert_status(200);
    let addon = app
        .post(&format!(
            "/api/v1/admin/products/{}/addons",
            fx.catalog.product_id
        ))
        .tenant(&t.id)
        .token(&t.owner_token)
        .json(
            json!({"name": "Room after", "addonType": "resource", "mode": "yesno",
            "priceType": "fixed", "price": 0}),
        )
        .send()
        .await;
    let config = app
        .post(&format!(
            "/api/v1/admin/products/{}/resource-addons",
            fx.catalog.product_id
        ))
        .tenant(&t.id)
        .token(&t.owner_token)
        .json(
            json!({"addonId": addon.str("id"), "resourceId": resource.str("id"),
            "durationMode": "FIXED", "fixedDurationMins": 60, "pricingMode": "FLAT",
            "flatPrice": 10}),
        )
        .send()
        .await;
    config.assert_status(200);
    let id = |s: &str| Uuid::parse_str(s).unwrap_or_else(|e| panic!("{e}"));
    let (booking, resource, config) = (
        id(hold.str("id")),
        id(resource.str("id")),
        id(config.str("id")),
    );
    (app, t, booking, resource, config)
}

fn at(minutes: i64) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339("2026-11-22T12:00:00Z")
        .unwrap_or_else(|e| panic!("{e}"))
        .with_timezone(&Utc)
        + Duration::minutes(minutes)
}

fn request(resource: Uuid, config: Uuid, start: i64, units: i32) -> AllocationRequest {
    AllocationRequest {
        config_id: config,
        resource_id: resource,
        position: WindowPosition::After,
        starts_at: at(start),
        ends_at: at(start + 60),
        // Ten minutes of cleanup after.
        blocked_from: at(start),
        blocked_until: at(start + 70),
        duration_mins: 60,
        units,
        price: 1000,
    }
}

/// Sends `n` requests at once, the i-th starting `step × i` minutes in (modulo an hour,
/// so every two of them overlap); the ones taken.
async fn race(
    app: &TestApp,
    t: &TenantFixture,
    booking: Uuid,
    resource: Uuid,
    config: Uuid,
    (n, step, units): (i64, i64, i32),
) -> usize {
    let tenant = TenantId::parse(&t.id).unwrap_or_else(|e| panic!("{e}"));
    let mut tasks = Vec::new();
    for i in 0..n {
        let (store, tenant) = (app.store.clone(), tenant.clone());
        let r = request(resource, config, (i * step) % 60, units);
        tasks.push(tokio::spawn(async move {
            store
                .allocate_resources(
                    &tenant,
                    booking,
                    vec![r],
                    &Actor::system("test"),
                    Utc::now(),
                )
                .await
        }));
    }
    let mut won = 0;
    for task in tasks {
        match task.await.unwrap_or_else(|e| panic!("{e}")) {
            Ok(made) => {
                assert_eq!(made.len(), 1);
                won += 1;
            }
            Err(ResourceError::Unavailable { resource_id }) => assert_eq!(resource_id, resource),
            Err(e) => panic!("{e}"),
        }
    }
    won
}

#[tokio::test]
async fn a_hundred_requests_for_one_rooms_overlapping_windows_one_wins() {
    let (app, t, booking, room, config) = setup("EXCLUSIVE", 1).await;
    // Each starts a minute after the one before, within an hour: every pair overlaps.
    assert_eq!(race(&app, &t, booking, room, config, (100, 1, 1)).await, 1);
    // The one taken is in the booking's audit log; the refused ones left nothing.
    let detail = app
        .get(&format!("/api/v1/admin/bookings/{booking}"))
        .tenant(&t.id)
        .token(&t.owner_token)
        .send()
        .await;
    let held: Vec<_> = detail.body["auditLog"]
        .as_array()
        .unwrap_or_else(|| panic!("{}", detail.text))
        .iter()
        .filter(|e| e["action"] == "booking.resources_held")
        .collect();
    assert_eq!(held.len(), 1, "{}", detail.text);
    assert_eq!(
        held[0]["changes"]["allocations"][0]["resource_id"],
        room.to_string()
    );
    // The windows offered say so, except to the booking that holds it.
    let windows = |exclude: &str| {
        let (app, t) = (&app, &t);
        let path = format!(
            "/api/v1/availability/resource-addons/{config}/windows?activity_starts_at=2026-11-22T11:00:00Z&activity_ends_at=2026-11-22T12:00:00Z{exclude}"
        );
        async move { app.get(&path).tenant(&t.id).send().await }
    };
    let after = |res: &kairos_testkit::TestResponse| {
        res.body["windows"]
            .as_array()
            .unwrap_or_else(|| panic!("{}", res.text))
            .iter()
            .find(|w| w["position"] == "AFTER")
            .map(|w| w["isAvailable"].clone())
    };
    assert_eq!(after(&windows("").await), Some(json!(false)));
    let own = windows(&format!("&exclude_booking_id={booking}")).await;
    assert_eq!(after(&own), Some(json!(true)));
    // The cleanup is kept free: a window starting at the end of the first is refused,
    // one starting after its cleanup is taken.
    let tenant = TenantId::parse(&t.id).unwrap_or_else(|e| panic!("{e}"));
    let first: Vec<(DateTime<Utc>, DateTime<Utc>, i32)> = app
        .store
        .resource_use(&tenant, room, (at(0), at(200)), None)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(first.len(), 1);
    let end = (first[0].1 - at(0)).num_minutes();
    let after = |start| request(room, config, start, 1);
    let refused = app
        .store
        .allocate_resources(
            &tenant,
            booking,
            vec![after(end - 10)],
            &Actor::system("test"),
            Utc::now(),
        )
        .await;
    assert!(matches!(refused, Err(ResourceError::Unavailable { .. })));
    app.store
        .allocate_resources(
            &tenant,
            booking,
            vec![after(end)],
            &Actor::system("test"),
            Utc::now(),
        )
        .await
        .unwrap_or_else(|e| panic!("{e}"));
}

#[tokio::test]
async fn a_shared_resource_gives_its_capacity_in_bookings_and_a_pooled_one_in_people() {
    let (app, t, booking, hall, config) = setup("SHARED", 3).await;
    assert_eq!(race(&app, &t, booking, hall, config, (40, 1, 1)).await, 3);
    let (app, t, booking, kayaks, config) = setup("POOLED", 10).await;
    // Four people each: two fit in ten.
    assert_eq!(race(&app, &t, booking, kayaks, config, (40, 1, 4)).await, 2);
}

#[tokio::test]
async fn only_a_hold_takes_resources_and_all_or_nothing() {
    let (app, t, booking, room, config) = setup("EXCLUSIVE", 1).await;
    let tenant = TenantId::parse(&t.id).unwrap_or_else(|e| panic!("{e}"));
    // The second window meets the first: neither is kept.
    let both = app
        .store
        .allocate_resources(
            &tenant,
            booking,
            vec![request(room, config, 0, 1), request(room, config, 30, 1)],
            &Actor::system("test"),
            Utc::now(),
        )
        .await;
    assert!(matches!(both, Err(ResourceError::Unavailable { .. })));
    let used = app
        .store
        .resource_use(&tenant, room, (at(-100), at(300)), None)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(used.is_empty(), "nothing was kept: {used:?}");
    let unknown = app
        .store
        .allocate_resources(
            &tenant,
            Uuid::new_v4(),
            vec![],
            &Actor::system("test"),
            Utc::now(),
        )
        .await;
    assert!(matches!(unknown, Err(ResourceError::BookingNotFound)));
    // A configuration of no one, or of another resource, takes nothing.
    let mut stray = request(room, Uuid::new_v4(), 0, 1);
    let refused = app
        .store
        .allocate_resources(
            &tenant,
            booking,
            vec![stray.clone()],
            &Actor::system("test"),
            Utc::now(),
        )
        .await;
    assert!(matches!(refused, Err(ResourceError::ConfigNotFound)));
    stray.config_id = config;
    stray.resource_id = Uuid::new_v4();
    let refused = app
        .store
        .allocate_resources(
            &tenant,
            booking,
            vec![stray],
            &Actor::system("test"),
            Utc::now(),
        )
        .await;
    assert!(matches!(refused, Err(ResourceError::ConfigNotFound)));
    // Confirmed, the booking no longer takes add-ons this way.
    let b = app
        .get(&format!("/api/v1/admin/bookings/{booking}"))
        .tenant(&t.id)
        .token(&t.owner_token)
        .send()
        .await;
    app.post(&format!("/api/v1/bookings/{booking}/confirm"))
        .tenant(&t.id)
        .token(&t.owner_token)
        .json(json!({"pricingHash": b.str("pricingHash"), "paymentMethod": "poa"}))
        .send()
        .await
        .assert_status(200);
    let confirmed = app
        .store
        .allocate_resources(
            &tenant,
            booking,
            vec![request(room, config, 0, 1)],
            &Actor::system("test"),
            Utc::now(),
        )
        .await;
    assert!(matches!(confirmed, Err(ResourceError::NotHold)));
}
