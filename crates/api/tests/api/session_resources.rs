//! What a product's sessions need (spec Part B 4.12): the rooms and pools it names and a
//! qualified staff member per skill, offered only while free (setup and cleanup
//! included), given to a session with its first booking and back when it has none.

use crate::resource_setup::{call, resource};
use kairos_testkit::{BookingFixture, TenantFixture, TestApp, TestResponse, slot_ids};
use serde_json::{Value, json};

/// The open slots of the fixture's product tomorrow for `party`, by start.
async fn offered(app: &TestApp, t: &TenantFixture, fx: &BookingFixture, party: u32) -> Vec<String> {
    let res = app
        .availability(&t.id, &fx.catalog, "2026-11-22", "2026-11-22", party)
        .await;
    res.assert_status(200);
    slot_ids(&res.body)
}

/// A staff hold of `party` on `slot`.
async fn hold(
    app: &TestApp,
    t: &TenantFixture,
    fx: &BookingFixture,
    slot: &str,
    party: u32,
) -> TestResponse {
    call(
        app,
        t,
        "POST",
        "/api/v1/bookings/hold",
        Some(json!({
            "siteId": fx.catalog.site_id, "productId": fx.catalog.product_id,
            "slotId": slot, "partySize": party,
            "customer": {"name": "Ada Lovelace", "email": "ada@example.com"}
        })),
    )
    .await
}

/// The day sheet's slots of tomorrow, by start.
async fn sheet_slots(app: &TestApp, t: &TenantFixture, fx: &BookingFixture) -> Vec<Value> {
    let res = call(
        app,
        t,
        "GET",
        &format!(
            "/api/v1/admin/day-sheet?siteId={}&date=2026-11-22",
            fx.catalog.site_id
        ),
        None,
    )
    .await;
    res.assert_status(200);
    res.body["products"][0]["slots"]
        .as_array()
        .cloned()
        .unwrap_or_default()
}

fn names(resources: &Value) -> Vec<String> {
    resources
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|r| r["name"].as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

#[tokio::test]
async fn a_session_takes_the_room_its_product_needs_until_it_has_no_booking() {
    let app = TestApp::spawn().await;
    let t = app.tenant("acme").await;
    let fx = app.bookable(&t).await;
    let site = fx.catalog.site_id.clone();
    let product = fx.catalog.product_id.clone();
    let path = format!("/api/v1/admin/products/{product}/resources");
    let room = resource(
        &app,
        &t,
        &site,
        json!({"name": "Wall A", "resourceType": "ROOM", "sharedMode": "EXCLUSIVE"}),
    )
    .await;
    // Every bad request is refused with nothing written.
    let other_site = call(
        &app,
        &t,
        "POST",
        "/api/v1/admin/sites",
        Some(json!({"name": "Annex", "timezone": "Europe/Helsinki"})),
    )
    .await;
    other_site.assert_status(200);
    let elsewhere = resource(
        &app,
        &t,
        other_site.str("id"),
        json!({"name": "Annex room", "resourceType": "ROOM"}),
    )
    .await;
    for (body, status, field) in [
        (json!({}), 400, "resourceIds"),
        (json!({"resourceIds": [room, room]}), 400, "resourceIds[1]"),
        (json!({"resourceIds": ["nope"]}), 400, "resourceIds[0]"),
        (json!({"resourceIds": [room, elsewhere]}), 400, "resourceId"),
    ] {
        let res = call(&app, &t, "PUT", &path, Some(body)).await;
        res.assert_status(status);
        let named = res.body["details"]["errors"]
            .as_array()
            .is_some_and(|e| e.iter().any(|e| e["field"] == field));
        assert!(named, "{}", res.text);
    }
    let unknown = uuid::Uuid::new_v4();
    call(
        &app,
        &t,
        "PUT",
        &format!("/api/v1/admin/products/{unknown}/resources"),
        Some(json!({"resourceIds": [room]})),
    )
    .await
    .assert_status(404);
    call(&app, &t, "GET", &path, None).await.assert_status(200);
    assert_eq!(
        call(&app, &t, "GET", &path, None).await.body["items"],
        json!([])
    );
    let set = call(&app, &t, "PUT", &path, Some(json!({"resourceIds": [room]}))).await;
    set.assert_status(200);
    assert_eq!(set.body["items"][0]["name"], "Wall A");
    assert_eq!(set.body["items"][0]["sharedMode"], "EXCLUSIVE");
    assert_eq!(
        call(&app, &t, "GET", &path, None).await.body["items"],
        set.body["items"]
    );
    // 30 minutes of cleanup: the 10:00 session keeps the wall until 11:30.
    call(
        &app,
        &t,
        "PATCH",
        &format!("/api/v1/admin/products/{product}"),
        Some(json!({"cleanupTime": 30})),
    )
    .await
    .assert_status(200);
    let slots = offered(&app, &t, &fx, 1).await;
    assert!(slots.len() >= 3, "{slots:?}");
    let first = hold(&app, &t, &fx, &slots[0], 2).await;
    first.assert_status(200);
    // The session shares its wall with its own bookings; the next one must wait.
    let now = offered(&app, &t, &fx, 1).await;
    assert!(
        now.contains(&slots[0]) && !now.contains(&slots[1]) && now.contains(&slots[2]),
        "{now:?}"
    );
    let second = hold(&app, &t, &fx, &slots[0], 1).await;
    second.assert_status(200);
    let refused = hold(&app, &t, &fx, &slots[1], 1).await;
    refused.assert_status(409);
    assert_eq!(refused.body["error"], "SLOT_UNAVAILABLE");
    assert_eq!(refused.body["details"]["reason"], "resource_unavailable");
    assert_eq!(refused.body["details"]["resourceId"], room.as_str());
    // Staff cannot move a booking there either while the 10:00 session has the wall: the
    // precheck names it, and the commit is refused.
    let pre = call(
        &app,
        &t,
        "POST",
        "/api/v1/admin/calendar/precheck-move",
        Some(json!({"booking_id": second.str("id"), "new_slot_id": slots[1]})),
    )
    .await;
    pre.assert_status(200);
    assert_eq!(pre.body["is_valid"], false, "{}", pre.text);
    let blocking = &pre.body["hard_conflicts"][0];
    assert_eq!(blocking["type"], "resource_overlap", "{}", pre.text);
    assert_eq!(blocking["details"]["resource_id"], room.as_str());
    let moved = call(
        &app,
        &t,
        "POST",
        "/api/v1/admin/calendar/commit-move",
        Some(
            json!({"booking_id": second.str("id"), "new_slot_id": slots[1],
            "actor_id": "mia", "reason": "customer asked", "confirmed_override": true}),
        ),
    )
    .await;
    moved.assert_status(409);
    assert_eq!(
        moved.body["details"]["reason"], "hard_conflicts",
        "{}",
        moved.text
    );
    let sheet = sheet_slots(&app, &t, &fx).await;
    assert_eq!(names(&sheet[0]["resources"]), ["Wall A"]);
    assert_eq!(sheet[0]["resources"][0]["resourceType"], "ROOM");
    assert_eq!(names(&sheet[1]["resources"]), Vec::<String>::new());
    // The holds run out: the session has no booking, and the wall is free again.
    app.clock.advance(chrono::Duration::minutes(30));
    app.store
        .expire_overdue_holds(app.clock_now(), 100)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(offered(&app, &t, &fx, 1).await.contains(&slots[1]));
    hold(&app, &t, &fx, &slots[1], 1).await.assert_status(200);
    let now = offered(&app, &t, &fx, 1).await;
    assert!(
        !now.contains(&slots[0]) && !now.contains(&slots[2]),
        "{now:?}"
    );
    // An inactive wall offers nothing new.
    call(
        &app,
        &t,
        "PATCH",
        &format!("/api/v1/admin/resources/{room}"),
        Some(json!({"isActive": false})),
    )
    .await
    .assert_status(200);
    let now = offered(&app, &t, &fx, 1).await;
    assert_eq!(now, Vec::<String>::new());
}

#[tokio::test]
async fn a_pool_gives_each_person_a_unit() {
    let app = TestApp::spawn().await;
    let t = app.tenant("acme").await;
    let fx = app.bookable(&t).await;
    let product = fx.catalog.product_id.clone();
    let kayaks = resource(
        &app,
        &t,
        &fx.catalog.site_id,
        json!({"name": "Kayaks", "resourceType": "EQUIPMENT", "sharedMode": "POOLED", "capacity": 5}),
    )
    .await;
    call(
        &app,
        &t,
        "PUT",
        &format!("/api/v1/admin/products/{product}/resources"),
        Some(json!({"resourceIds": [kayaks]})),
    )
    .await
    .assert_status(200);
    let slot = fx.slots[0].clone();
    hold(&app, &t, &fx, &slot, 3).await.assert_status(200);
    assert!(!offered(&app, &t, &fx, 3).await.contains(&slot));
    assert!(offered(&app, &t, &fx, 2).await.contains(&slot));
    let refused = hold(&app, &t, &fx, &slot, 3).await;
    refused.assert_status(409);
    assert_eq!(refused.body["details"]["resourceId"], kayaks.as_str());
    hold(&app, &t, &fx, &slot, 2).await.assert_status(200);
    hold(&app, &t, &fx, &slot, 1).await.assert_status(409);
    // The next session has its own five.
    hold(&app, &t, &fx, &fx.slots[1], 5)
        .await
        .assert_status(200);
}

#[tokio::test]
async fn a_session_needing_a_skill_gets_a_qualified_free_staff_member() {
    let app = TestApp::spawn().await;
    let t = app.tenant("acme").await;
    let fx = app.bookable(&t).await;
    let site = fx.catalog.site_id.clone();
    let product = fx.catalog.product_id.clone();
    let skill = call(
        &app,
        &t,
        "POST",
        "/api/v1/admin/skills",
        Some(json!({"name": "Marshal"})),
    )
    .await;
    skill.assert_status(200);
    let skill = skill.str("id").to_owned();
    let staff = json!({"resourceType": "STAFF"});
    let mut ids = Vec::new();
    for name in ["Mia", "Leo", "Ann"] {
        let mut body = staff.clone();
        body["name"] = json!(name);
        ids.push(resource(&app, &t, &site, body).await);
    }
    let (mia, leo, ann) = (ids[0].clone(), ids[1].clone(), ids[2].clone());
    let grant = |who: &str, level: i64, expires: Option<&str>| {
        let path = "/api/v1/admin/skills/assign".to_owned();
        let body =
            json!({"skillId": skill, "resourceId": who, "level": level, "expiresAt": expires});
        (path, body)
    };
    // Mia is not qualified enough; Ann's certificate runs out during the first session.
    for (who, level, expires) in [
        (&mia, 2, None),
        (&leo, 4, None),
        (&ann, 5, Some("2026-11-22T08:30:00Z")),
    ] {
        let (path, body) = grant(who, level, expires);
        call(&app, &t, "POST", &path, Some(body))
            .await
            .assert_status(200);
    }
    call(
        &app,
        &t,
        "POST",
        &format!("/api/v1/admin/skills/products/{product}/requirements"),
        Some(json!({"requirements": [{"skillId": skill, "minLevel": 3}]})),
    )
    .await
    .assert_status(200);
    call(
        &app,
        &t,
        "PATCH",
        &format!("/api/v1/admin/products/{product}"),
        Some(json!({"cleanupTime": 30})),
    )
    .await
    .assert_status(200);
    let slots = offered(&app, &t, &fx, 1).await;
    assert!(slots.len() >= 2, "{slots:?}");
    hold(&app, &t, &fx, &slots[0], 2).await.assert_status(200);
    let sheet = sheet_slots(&app, &t, &fx).await;
    assert_eq!(names(&sheet[0]["resources"]), ["Leo"]);
    assert_eq!(sheet[0]["resources"][0]["skillName"], "Marshal");
    // Leo is taken until 11:30, and nobody else qualifies for 11:00.
    assert!(!offered(&app, &t, &fx, 1).await.contains(&slots[1]));
    let refused = hold(&app, &t, &fx, &slots[1], 1).await;
    refused.assert_status(409);
    assert_eq!(refused.body["error"], "SLOT_UNAVAILABLE");
    assert_eq!(refused.body["details"]["reason"], "staff_unavailable");
    assert_eq!(refused.body["details"]["skillId"], skill.as_str());
    let busy = call(
        &app,
        &t,
        "GET",
        &format!(
            "/api/v1/admin/skills/availability?skillId={skill}&minLevel=3&startsAt={}&endsAt={}",
            "2026-11-22T08:00:00Z", "2026-11-22T09:00:00Z"
        ),
        None,
    )
    .await;
    busy.assert_status(200);
    assert_eq!(busy.body["items"][0]["name"], "Leo");
    assert_eq!(busy.body["items"][0]["isFree"], false);
    // Ann renews her certificate: the 11:00 session is offered, and she is given it.
    let (path, body) = grant(&ann, 5, None);
    call(&app, &t, "POST", &path, Some(body))
        .await
        .assert_status(200);
    assert!(offered(&app, &t, &fx, 1).await.contains(&slots[1]));
    hold(&app, &t, &fx, &slots[1], 1).await.assert_status(200);
    let sheet = sheet_slots(&app, &t, &fx).await;
    assert_eq!(names(&sheet[1]["resources"]), ["Ann"]);
    // Leo's day off in the afternoon: he is not free then.
    let off = call(
        &app,
        &t,
        "POST",
        &format!("/api/v1/admin/resources/{leo}/blackouts"),
        Some(
            json!({"kind": "holiday", "startsAt": "2026-11-22T11:00:00Z",
            "endsAt": "2026-11-22T16:00:00Z"}),
        ),
    )
    .await;
    off.assert_status(200);
    assert_eq!(off.body["warnings"], json!([]));
    let afternoon = call(
        &app,
        &t,
        "GET",
        &format!(
            "/api/v1/admin/skills/availability?skillId={skill}&minLevel=3&startsAt={}&endsAt={}",
            "2026-11-22T11:00:00Z", "2026-11-22T12:00:00Z"
        ),
        None,
    )
    .await;
    let leo_free = afternoon.body["items"]
        .as_array()
        .and_then(|i| i.iter().find(|s| s["name"] == "Leo"))
        .map(|s| s["isFree"].clone());
    assert_eq!(leo_free, Some(json!(false)), "{}", afternoon.text);
    // A second booking of a staffed session keeps its marshal.
    hold(&app, &t, &fx, &slots[0], 1).await.assert_status(200);
    assert_eq!(
        names(&sheet_slots(&app, &t, &fx).await[0]["resources"]),
        ["Leo"]
    );
}

/// Sends `n` holds at once, alternating between two sessions that need the same thing;
/// how many each got. Every refusal is 409 `SLOT_UNAVAILABLE`: full, or naming `reason`.
async fn race(
    app: &TestApp,
    t: &TenantFixture,
    fx: &BookingFixture,
    slots: [&str; 2],
    reason: &str,
) -> [usize; 2] {
    let answers =
        futures::future::join_all((0..40).map(|i| hold(app, t, fx, slots[i % 2], 1))).await;
    let mut won = [0, 0];
    for (i, a) in answers.iter().enumerate() {
        match a.status.as_u16() {
            200 => won[i % 2] += 1,
            409 => {
                assert_eq!(a.body["error"], "SLOT_UNAVAILABLE", "{}", a.text);
                // Full (capacity 10), or the session's need is taken.
                let why = &a.body["details"]["reason"];
                assert!(why.is_null() || why == reason, "{}", a.text);
            }
            other => panic!("{other}: {}", a.text),
        }
    }
    won
}

/// A venue whose sessions keep 30 minutes of cleanup (10:00 overlaps 11:00), and its
/// sessions tomorrow.
async fn busy_venue() -> (TestApp, TenantFixture, BookingFixture, Vec<String>) {
    let app = TestApp::builder()
        .limits(kairos_api::rate_limit::Limits::UNLIMITED)
        .spawn()
        .await;
    let t = app.tenant("acme").await;
    let fx = app.bookable(&t).await;
    let product = fx.catalog.product_id.clone();
    call(
        &app,
        &t,
        "PATCH",
        &format!("/api/v1/admin/products/{product}"),
        Some(json!({"cleanupTime": 30})),
    )
    .await
    .assert_status(200);
    let slots = offered(&app, &t, &fx, 1).await;
    (app, t, fx, slots)
}

#[tokio::test]
async fn overlapping_sessions_racing_for_one_room_never_share_it() {
    let (app, t, fx, slots) = busy_venue().await;
    let room = resource(
        &app,
        &t,
        &fx.catalog.site_id,
        json!({"name": "Track", "resourceType": "ROOM", "sharedMode": "EXCLUSIVE"}),
    )
    .await;
    call(
        &app,
        &t,
        "PUT",
        &format!("/api/v1/admin/products/{}/resources", fx.catalog.product_id),
        Some(json!({"resourceIds": [room]})),
    )
    .await
    .assert_status(200);
    // 40 holds at once for the 10:00 and 11:00 sessions: one session gets the track and
    // every hold of it (capacity 10); the other gets none.
    let won = race(
        &app,
        &t,
        &fx,
        [&slots[0], &slots[1]],
        "resource_unavailable",
    )
    .await;
    assert!(won.contains(&0) && won.contains(&10), "{won:?}");
}

#[tokio::test]
async fn overlapping_sessions_racing_for_one_marshal_never_share_them() {
    let (app, t, fx, slots) = busy_venue().await;
    let skill = call(
        &app,
        &t,
        "POST",
        "/api/v1/admin/skills",
        Some(json!({"name": "Marshal"})),
    )
    .await;
    let marshal = resource(
        &app,
        &t,
        &fx.catalog.site_id,
        json!({"name": "Leo", "resourceType": "STAFF"}),
    )
    .await;
    call(
        &app,
        &t,
        "POST",
        "/api/v1/admin/skills/assign",
        Some(json!({"skillId": skill.str("id"), "resourceId": marshal})),
    )
    .await
    .assert_status(200);
    call(
        &app,
        &t,
        "POST",
        &format!(
            "/api/v1/admin/skills/products/{}/requirements",
            fx.catalog.product_id
        ),
        Some(json!({"requirements": [{"skillId": skill.str("id")}]})),
    )
    .await
    .assert_status(200);
    let won = race(&app, &t, &fx, [&slots[0], &slots[1]], "staff_unavailable").await;
    assert!(won.contains(&0) && won.contains(&10), "{won:?}");
}
