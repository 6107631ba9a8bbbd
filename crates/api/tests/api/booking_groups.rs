//! Booking groups (spec Part B 2.5, 3.3, 4.3): the public hold of several activities in
//! one transaction with one shared expiry (all or nothing, naming the activity that could
//! not be held), the group's token, the status derived from its bookings, the staff
//! draft → plan → hold → price flow, and the filters of the list.

use chrono::Duration;
use kairos_testkit::{
    BookingFixture, CatalogFixture, TenantFixture, TestApp, TestResponse, slot_ids,
};
use serde_json::{Value, json};

/// A venue with two activities at one site: the fixture's climbing (four slots
/// tomorrow, capacity 10, 20.00 per person) and an escape room (capacity 6, 30.00 per
/// person) on the same hours.
pub(crate) struct Venue {
    pub app: TestApp,
    pub t: TenantFixture,
    pub climbing: BookingFixture,
    pub room: CatalogFixture,
    pub room_slots: Vec<String>,
}

pub(crate) async fn venue() -> Venue {
    venue_on(TestApp::spawn().await).await
}

/// [`venue`] on `app`.
pub(crate) async fn venue_on(app: TestApp) -> Venue {
    let t = app.tenant("groups").await;
    let climbing = app.bookable(&t).await;
    let res = app
        .post("/api/v1/admin/products")
        .tenant(&t.id)
        .token(&t.owner_token)
        .json(json!({
            "siteId": climbing.catalog.site_id, "name": "Escape room", "durationMins": 60,
            "capacity": 6, "basePrice": 30.0, "priceType": "per_person", "taxRate": 24,
            "slotIntervalMin": 60
        }))
        .send()
        .await;
    res.assert_status(200);
    let room = CatalogFixture {
        site_id: climbing.catalog.site_id.clone(),
        product_id: res.str("id").to_owned(),
    };
    let res = app
        .availability(&t.id, &room, "2026-11-22", "2026-11-22", 1)
        .await;
    res.assert_status(200);
    let room_slots = slot_ids(&res.body);
    assert_eq!(room_slots.len(), 4, "{}", res.text);
    Venue {
        app,
        t,
        climbing,
        room,
        room_slots,
    }
}

pub(crate) fn selection(c: &CatalogFixture, slot: &str) -> Value {
    json!({"productId": c.product_id, "siteId": c.site_id, "slotId": slot})
}

pub(crate) fn hold_body(party: u32, selections: Vec<Value>) -> Value {
    json!({
        "groupType": "CUSTOM", "partySize": party, "customerName": "Class 5B",
        "customerEmail": "Teacher@Example.com", "customerPhone": "+358 40 765 4321",
        "slotSelections": selections
    })
}

pub(crate) async fn hold(app: &TestApp, tenant: &str, body: Value) -> TestResponse {
    app.post("/api/v1/booking-groups/hold")
        .tenant(tenant)
        .json(body)
        .send()
        .await
}

/// Seats left in `slot` of `c` tomorrow.
pub(crate) async fn seats_left(app: &TestApp, tenant: &str, c: &CatalogFixture, slot: &str) -> i64 {
    let res = app
        .availability(tenant, c, "2026-11-22", "2026-11-22", 1)
        .await;
    res.assert_status(200);
    res.body["slots"]
        .as_array()
        .and_then(|a| a.iter().find(|s| s["slotId"] == slot))
        .and_then(|s| s["availableCapacity"].as_i64())
        .unwrap_or(0)
}

#[tokio::test]
async fn a_public_hold_takes_every_activity_with_one_expiry_and_the_token_opens_the_group() {
    let v = venue().await;
    let (app, t) = (&v.app, &v.t);
    let res = hold(
        app,
        &t.id,
        hold_body(
            4,
            vec![
                selection(&v.climbing.catalog, &v.climbing.slots[0]),
                selection(&v.room, &v.room_slots[1]),
            ],
        ),
    )
    .await;
    res.assert_status(200);
    let group = res.body.clone();
    assert_eq!(group["status"], "HOLD");
    assert_eq!(group["groupType"], "CUSTOM");
    assert_eq!(group["partySize"], 4);
    assert_eq!(group["customerEmail"], "teacher@example.com");
    let bookings = group["bookings"].as_array().expect("bookings");
    assert_eq!(bookings.len(), 2);
    assert_eq!(bookings[0]["slotId"], v.climbing.slots[0].as_str());
    assert_eq!(bookings[1]["slotId"], v.room_slots[1].as_str());
    assert!(bookings.iter().all(|b| b["status"] == "hold"));
    // The price: 4 × 20.00 + 4 × 30.00, each booking's part its own price.
    assert_eq!(group["pricing"]["grandTotal"], 200.0);
    assert_eq!(group["pricing"]["pricingMethod"], "SUM");
    let parts: Vec<f64> = group["pricing"]["allocations"]
        .as_array()
        .expect("allocations")
        .iter()
        .map(|a| a["allocatedTotal"].as_f64().unwrap_or(0.0))
        .collect();
    assert_eq!(parts, vec![80.0, 120.0]);
    assert!(group.get("internalNotes").is_none());
    let token = group["groupToken"].as_str().expect("groupToken").to_owned();
    // Each booking holds its seats and expires with the group.
    assert_eq!(
        seats_left(app, &t.id, &v.climbing.catalog, &v.climbing.slots[0]).await,
        6
    );
    assert_eq!(seats_left(app, &t.id, &v.room, &v.room_slots[1]).await, 2);
    let expiry = group["holdExpiresAt"].as_str().expect("expiry");
    for b in bookings {
        let detail = app
            .get(&format!(
                "/api/v1/admin/bookings/{}",
                b["bookingId"].as_str().unwrap_or("")
            ))
            .tenant(&t.id)
            .token(&t.owner_token)
            .send()
            .await;
        detail.assert_status(200);
        assert_eq!(
            detail.body["holdExpiresAt"].as_str(),
            Some(expiry),
            "{}",
            detail.text
        );
    }
    let id = group["id"].as_str().expect("id");
    let path = format!("/api/v1/booking-groups/{id}");
    let got = app
        .get(&path)
        .tenant(&t.id)
        .header("x-booking-token", &token)
        .send()
        .await;
    got.assert_status(200);
    assert_eq!(got.body["reference"], group["reference"]);
    assert!(got.body.get("groupToken").is_none());
    app.get(&path)
        .tenant(&t.id)
        .send()
        .await
        .assert_error(404, "NOT_FOUND");
    app.get(&path)
        .tenant(&t.id)
        .header("x-booking-token", "not-the-token")
        .send()
        .await
        .assert_error(404, "NOT_FOUND");
    // Staff see it; another tenant does not.
    app.get(&path)
        .tenant(&t.id)
        .token(&t.owner_token)
        .send()
        .await
        .assert_status(200);
    let other = app.tenant("elsewhere").await;
    app.get(&format!("/api/v1/admin/booking-groups/{id}"))
        .tenant(&other.id)
        .token(&other.owner_token)
        .send()
        .await
        .assert_error(404, "NOT_FOUND");
    // The holds lapse together: the group is EXPIRED as soon as they do.
    app.clock.advance(Duration::minutes(16));
    let got = app
        .get(&path)
        .tenant(&t.id)
        .header("x-booking-token", &token)
        .send()
        .await;
    assert_eq!(got.body["status"], "EXPIRED", "{}", got.text);
    app.assert_capacity_invariant(&t.id).await;
}

#[tokio::test]
async fn a_group_is_held_whole_or_not_at_all_and_the_refusal_names_the_activity() {
    let v = venue().await;
    let (app, t) = (&v.app, &v.t);
    // The room's second slot has 2 seats left.
    app.hold_in(&t.id, &v.room, &v.room_slots[1], 4)
        .await
        .assert_status(200);
    let res = hold(
        app,
        &t.id,
        hold_body(
            3,
            vec![
                selection(&v.climbing.catalog, &v.climbing.slots[0]),
                selection(&v.room, &v.room_slots[1]),
            ],
        ),
    )
    .await;
    res.assert_error(409, "SLOT_UNAVAILABLE");
    assert_eq!(res.body["details"]["activityIndex"], 1, "{}", res.text);
    assert_eq!(res.body["details"]["slotId"], v.room_slots[1].as_str());
    // Nothing of it was held: the climbing slot is untouched and no group exists.
    assert_eq!(
        seats_left(app, &t.id, &v.climbing.catalog, &v.climbing.slots[0]).await,
        10
    );
    let list = app
        .get("/api/v1/admin/booking-groups")
        .tenant(&t.id)
        .token(&t.owner_token)
        .send()
        .await;
    list.assert_status(200);
    assert_eq!(list.body["total"], 0);
    // A party larger than an activity takes is that activity's field.
    let res = hold(
        app,
        &t.id,
        hold_body(
            7,
            vec![
                selection(&v.climbing.catalog, &v.climbing.slots[0]),
                selection(&v.room, &v.room_slots[2]),
            ],
        ),
    )
    .await;
    res.assert_error(400, "VALIDATION_ERROR");
    assert!(
        res.text.contains("slotSelections[1].partySize"),
        "{}",
        res.text
    );
    // A slot of another product is that activity's 404.
    let res = hold(
        app,
        &t.id,
        hold_body(2, vec![selection(&v.room, &v.climbing.slots[0])]),
    )
    .await;
    res.assert_status(404);
    assert_eq!(res.body["details"]["activityIndex"], 0, "{}", res.text);
    app.assert_capacity_invariant(&t.id).await;
}

#[tokio::test]
async fn the_hold_checks_its_body_and_names_every_bad_field() {
    let v = venue().await;
    let (app, t) = (&v.app, &v.t);
    let one = vec![selection(&v.climbing.catalog, &v.climbing.slots[0])];
    let cases = [
        (
            json!({"partySize": 2, "customerName": "A", "customerEmail": "a@example.com", "slotSelections": one.clone()}),
            "groupType",
        ),
        (
            json!({"groupType": "TEAM", "partySize": 2, "customerName": "A", "customerEmail": "a@example.com", "slotSelections": one.clone()}),
            "groupType",
        ),
        (
            json!({"groupType": "CUSTOM", "customerName": "A", "customerEmail": "a@example.com", "slotSelections": one.clone()}),
            "partySize",
        ),
        (
            json!({"groupType": "CUSTOM", "partySize": 0, "customerName": "A", "customerEmail": "a@example.com", "slotSelections": one.clone()}),
            "partySize",
        ),
        (
            json!({"groupType": "CUSTOM", "partySize": 501, "customerName": "A", "customerEmail": "a@example.com", "slotSelections": one.clone()}),
            "partySize",
        ),
        (
            json!({"groupType": "CUSTOM", "partySize": 2, "customerName": "A", "customerEmail": "a@example.com"}),
            "slotSelections",
        ),
        (
            json!({"groupType": "CUSTOM", "partySize": 2, "customerName": "A", "customerEmail": "a@example.com", "slotSelections": vec![one[0].clone(); 21]}),
            "slotSelections",
        ),
        (
            json!({"groupType": "CUSTOM", "partySize": 2, "customerName": "A", "slotSelections": one.clone()}),
            "customerEmail",
        ),
        (
            json!({"groupType": "CUSTOM", "partySize": 2, "customerEmail": "a@example.com", "slotSelections": one.clone()}),
            "customerName",
        ),
        (
            json!({"groupType": "CUSTOM", "partySize": 2, "customerName": "A", "customerEmail": "nope", "slotSelections": one.clone()}),
            "customerEmail",
        ),
        (
            json!({"groupType": "CUSTOM", "partySize": 2, "customerName": "A", "customerEmail": "a@example.com", "slotSelections": [{"productId": v.room.product_id}]}),
            "slotSelections[0].slotId",
        ),
        (
            json!({"groupType": "PACKAGE", "partySize": 2, "customerName": "A", "customerEmail": "a@example.com", "slotSelections": one.clone()}),
            "packageId",
        ),
        (
            json!({"groupType": "CUSTOM", "packageId": "0190a1b2-0000-7000-8000-000000000000", "partySize": 2, "customerName": "A", "customerEmail": "a@example.com", "slotSelections": one.clone()}),
            "packageId",
        ),
    ];
    for (body, field) in cases {
        let res = hold(app, &t.id, body.clone()).await;
        res.assert_error(400, "VALIDATION_ERROR");
        assert!(res.text.contains(field), "{field} for {body}: {}", res.text);
    }
    // Ids that name nothing are 404s.
    let res = hold(
        app,
        &t.id,
        hold_body(
            2,
            vec![json!({"productId": "x", "siteId": v.room.site_id, "slotId": v.room_slots[0]})],
        ),
    )
    .await;
    res.assert_error(404, "NOT_FOUND");
    let res = hold(
        app,
        &t.id,
        json!({"groupType": "PACKAGE", "packageId": "0190a1b2-0000-7000-8000-000000000000", "partySize": 2,
               "customerName": "A", "customerEmail": "a@example.com", "slotSelections": one}),
    )
    .await;
    res.assert_error(404, "NOT_FOUND");
    assert_eq!(
        seats_left(app, &t.id, &v.climbing.catalog, &v.climbing.slots[0]).await,
        10
    );
}

#[tokio::test]
async fn a_repeated_hold_with_its_key_answers_the_first_group() {
    let v = venue().await;
    let (app, t) = (&v.app, &v.t);
    let body = hold_body(
        2,
        vec![
            selection(&v.climbing.catalog, &v.climbing.slots[0]),
            selection(&v.room, &v.room_slots[0]),
        ],
    );
    let send = |body: Value| {
        app.post("/api/v1/booking-groups/hold")
            .tenant(&t.id)
            .header("Idempotency-Key", "group-hold-1")
            .json(body)
            .send()
    };
    let first = send(body.clone()).await;
    first.assert_status(200);
    let again = send(body.clone()).await;
    again.assert_status(200);
    assert_eq!(again.body["id"], first.body["id"]);
    assert_eq!(again.body["groupToken"], first.body["groupToken"]);
    assert_eq!(again.header("idempotent-replayed"), Some("true"));
    let mut other = body;
    other["partySize"] = json!(3);
    send(other)
        .await
        .assert_error(422, "IDEMPOTENCY_KEY_REUSED");
    assert_eq!(
        seats_left(app, &t.id, &v.climbing.catalog, &v.climbing.slots[0]).await,
        8
    );
    app.assert_capacity_invariant(&t.id).await;
}

#[tokio::test]
async fn a_customer_holds_a_group_as_their_own() {
    let v = venue().await;
    let (app, t) = (&v.app, &v.t);
    let me = app.customer_token(&t.id, "ada@example.com").await;
    let res = app
        .post("/api/v1/booking-groups/hold")
        .tenant(&t.id)
        .token(&me)
        .json(json!({"groupType": "CUSTOM", "partySize": 1,
                     "slotSelections": [selection(&v.room, &v.room_slots[0])]}))
        .send()
        .await;
    res.assert_status(200);
    assert_eq!(res.body["customerEmail"], "ada@example.com");
    let path = format!("/api/v1/booking-groups/{}", res.str("id"));
    app.get(&path)
        .tenant(&t.id)
        .token(&me)
        .send()
        .await
        .assert_status(200);
    let someone = app.customer_token(&t.id, "grace@example.com").await;
    app.get(&path)
        .tenant(&t.id)
        .token(&someone)
        .send()
        .await
        .assert_error(404, "NOT_FOUND");
}
