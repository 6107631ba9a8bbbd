//! Rules of a group's plan and of its holds: a group counts as one hold against the caps
//! of its customer and of its client address; a plan names each slot once, is paid in one
//! currency, and holds no slot that has started; a held booking of a group is confirmed
//! with its group, not alone (nor by staff setting its status).

use super::booking_groups::{hold, hold_body, selection, venue, venue_on};
use chrono::Duration;
use kairos_testkit::{CatalogFixture, TestApp, http};
use serde_json::json;

#[tokio::test]
async fn a_group_counts_as_one_hold_against_the_customers_cap() {
    let v = venue_on(TestApp::builder().hold_caps(2, 0).spawn().await).await;
    let (app, t) = (&v.app, &v.t);
    // A group of three activities is one hold of the teacher's…
    let res = hold(
        app,
        &t.id,
        hold_body(
            1,
            vec![
                selection(&v.climbing.catalog, &v.climbing.slots[0]),
                selection(&v.room, &v.room_slots[0]),
                selection(&v.room, &v.room_slots[1]),
            ],
        ),
    )
    .await;
    res.assert_status(200);
    // …so one more hold fits under a cap of two, and a third is refused.
    app.hold_for(
        &t.id,
        &v.climbing.catalog,
        &v.climbing.slots[1],
        1,
        "teacher@example.com",
    )
    .await
    .assert_status(200);
    let res = hold(
        app,
        &t.id,
        hold_body(
            1,
            vec![selection(&v.climbing.catalog, &v.climbing.slots[2])],
        ),
    )
    .await;
    res.assert_error(409, "HOLD_LIMIT_REACHED");
    assert_eq!(res.body["details"]["scope"], "customer", "{}", res.text);
}

#[tokio::test]
async fn one_client_address_holds_only_so_many_groups_whatever_the_emails() {
    let v = venue_on(TestApp::builder().hold_caps(0, 2).spawn().await).await;
    let (app, t) = (&v.app, &v.t);
    let addr = app.serve().await;
    let tenant = [("x-tenant-id", t.id.as_str())];
    let group = |i: usize, email: &str| {
        let mut body = hold_body(
            1,
            vec![
                selection(&v.climbing.catalog, &v.climbing.slots[i]),
                selection(&v.room, &v.room_slots[i]),
            ],
        );
        body["customerEmail"] = json!(email);
        body
    };
    for (i, email) in ["a@example.com", "b@example.com"].into_iter().enumerate() {
        let (status, body) = http(
            addr,
            "POST",
            "/api/v1/booking-groups/hold",
            &tenant,
            Some(group(i, email)),
        )
        .await;
        assert_eq!(status, 200, "{body}");
    }
    let (status, body) = http(
        addr,
        "POST",
        "/api/v1/booking-groups/hold",
        &tenant,
        Some(group(2, "c@example.com")),
    )
    .await;
    assert_eq!(status, 409, "{body}");
    assert_eq!(body["error"], "HOLD_LIMIT_REACHED");
    assert_eq!(body["details"]["scope"], "address");
}

#[tokio::test]
async fn a_plan_names_each_slot_once_in_one_currency_and_no_started_slot() {
    let v = venue_on(TestApp::spawn().await).await;
    let (app, t) = (&v.app, &v.t);
    // The same slot twice.
    let res = hold(
        app,
        &t.id,
        hold_body(
            1,
            vec![
                selection(&v.room, &v.room_slots[0]),
                selection(&v.room, &v.room_slots[0]),
            ],
        ),
    )
    .await;
    res.assert_error(400, "VALIDATION_ERROR");
    assert!(
        res.text.contains("slotSelections[1].slotId"),
        "{}",
        res.text
    );
    // A site selling in another currency.
    let site = app
        .post("/api/v1/admin/sites")
        .tenant(&t.id)
        .token(&t.owner_token)
        .json(json!({"name": "Stockholm hall", "timezone": "Europe/Stockholm", "currency": "SEK"}))
        .send()
        .await;
    site.assert_status(200);
    let product = app
        .post("/api/v1/admin/products")
        .tenant(&t.id)
        .token(&t.owner_token)
        .json(
            json!({"siteId": site.str("id"), "name": "Karting", "durationMins": 60,
                     "capacity": 8, "basePrice": 300.0, "priceType": "per_person",
                     "taxRate": 25, "slotIntervalMin": 60}),
        )
        .send()
        .await;
    product.assert_status(200);
    let karting = CatalogFixture {
        site_id: site.str("id").to_owned(),
        product_id: product.str("id").to_owned(),
    };
    app.daily_hours(t, "site", &karting.site_id, "10:00", "14:00")
        .await;
    let slots = app
        .availability(&t.id, &karting, "2026-11-22", "2026-11-22", 1)
        .await;
    slots.assert_status(200);
    let karting_slot = kairos_testkit::slot_ids(&slots.body)
        .first()
        .cloned()
        .expect("a karting slot");
    let res = hold(
        app,
        &t.id,
        hold_body(
            1,
            vec![
                selection(&v.room, &v.room_slots[0]),
                selection(&karting, &karting_slot),
            ],
        ),
    )
    .await;
    res.assert_error(400, "VALIDATION_ERROR");
    assert!(
        res.text.contains("slotSelections[1].siteId"),
        "{}",
        res.text
    );
    assert!(res.text.contains("SEK"), "{}", res.text);
    // Staff planning a draft get the same answers.
    let draft = app
        .post("/api/v1/admin/booking-groups")
        .tenant(&t.id)
        .token(&t.owner_token)
        .json(json!({"partySize": 1}))
        .send()
        .await;
    let base = format!("/api/v1/admin/booking-groups/{}/bookings", draft.str("id"));
    let add = |c: &CatalogFixture, slot: &str| {
        app.post(&base)
            .tenant(&t.id)
            .token(&t.owner_token)
            .json(selection(c, slot))
            .send()
    };
    add(&v.room, &v.room_slots[0]).await.assert_status(200);
    add(&v.room, &v.room_slots[0])
        .await
        .assert_error(400, "VALIDATION_ERROR");
    let res = add(&karting, &karting_slot).await;
    res.assert_error(400, "VALIDATION_ERROR");
    assert!(res.text.contains("siteId"), "{}", res.text);
    // A slot that has started is refused as unavailable.
    app.clock
        .advance(Duration::hours(23) + Duration::minutes(30));
    let res = hold(
        app,
        &t.id,
        hold_body(1, vec![selection(&v.room, &v.room_slots[0])]),
    )
    .await;
    res.assert_error(409, "SLOT_UNAVAILABLE");
    assert!(!res.text.contains("skipAvailabilityCheck"), "{}", res.text);
    app.assert_capacity_invariant(&t.id).await;
}

#[tokio::test]
async fn a_held_booking_of_a_group_is_confirmed_with_its_group_not_alone() {
    let v = venue().await;
    let res = hold(
        &v.app,
        &v.t.id,
        hold_body(
            2,
            vec![
                selection(&v.climbing.catalog, &v.climbing.slots[0]),
                selection(&v.room, &v.room_slots[1]),
            ],
        ),
    )
    .await;
    res.assert_status(200);
    let booking = res.body["bookings"][0]["bookingId"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    let hash = v
        .app
        .get(&format!("/api/v1/admin/bookings/{booking}"))
        .tenant(&v.t.id)
        .token(&v.t.owner_token)
        .send()
        .await
        .body["pricingHash"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    let alone = v
        .app
        .post(&format!("/api/v1/bookings/{booking}/confirm"))
        .tenant(&v.t.id)
        .token(&v.t.owner_token)
        .json(json!({"pricingHash": hash, "paymentMethod": "comp"}))
        .send()
        .await;
    alone.assert_error(409, "INVALID_TRANSITION");
    assert_eq!(
        alone.body["details"]["groupId"], res.body["id"],
        "{}",
        alone.text
    );
    // Nor by setting its status: staff confirm the group, not one of it.
    for status in ["confirmed", "tentative"] {
        let set = v
            .app
            .patch(&format!("/api/v1/admin/bookings/{booking}/status"))
            .tenant(&v.t.id)
            .token(&v.t.owner_token)
            .json(json!({"status": status, "reason": "trying"}))
            .send()
            .await;
        set.assert_error(409, "INVALID_TRANSITION");
        assert_eq!(
            set.body["details"]["groupId"], res.body["id"],
            "{}",
            set.text
        );
    }
    let group = v
        .app
        .get(&format!("/api/v1/booking-groups/{}", res.str("id")))
        .tenant(&v.t.id)
        .header("x-booking-token", res.str("groupToken"))
        .send()
        .await;
    assert_eq!(group.body["status"], "HOLD", "{}", group.text);
}
