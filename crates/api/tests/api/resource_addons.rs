//! A booking's resource add-ons (spec Part B 4.2): taken with a hold and priced into it,
//! confirmed with it, released when it expires or is cancelled, the rules of their
//! windows (404, 400, 422, 409), changed by PATCH, and a conflict at confirmation
//! resolved.

use crate::resource_setup::{room, shift};
use serde_json::json;

#[tokio::test]
async fn an_add_on_is_held_priced_into_the_hold_and_confirmed_with_it() {
    let r = room("EXCLUSIVE", 1, json!({})).await;
    let h = r.hold(0, 2).await;
    let (id, end) = (h.str("id"), h.str("endTime"));
    let total_before = h.body["price"]["total"].as_f64().unwrap_or_default();
    let added = r.add(id, end, &shift(end, 60), 60).await;
    added.assert_status(200);
    assert_eq!(added.body["success"], true);
    let a = &added.body["allocations"][0];
    assert_eq!(a["status"], "HELD");
    assert_eq!(a["position"], "AFTER");
    assert_eq!(a["price"], 10.0);
    assert_eq!(a["configId"], r.config.as_str());
    let update = &added.body["pricingUpdate"];
    assert_eq!(update["resourceAddonTotal"], 10.0);
    // The hold's price carries the add-on's line, and its hash changed.
    let b = r
        .app
        .get(&format!("/api/v1/bookings/{id}"))
        .tenant(&r.t.id)
        .token(&r.t.owner_token)
        .send()
        .await;
    assert_eq!(
        b.body["price"]["total"], update["newGrandTotal"],
        "{}",
        b.text
    );
    assert_eq!(b.body["price"]["tax"], update["newTaxTotal"]);
    assert_eq!(b.body["price"]["subtotal"], update["newSubtotal"]);
    assert!(b.body["price"]["total"].as_f64().unwrap_or_default() > total_before);
    assert_eq!(
        b.body["price"]["addons"][0]["name"], "Party room",
        "{}",
        b.text
    );
    assert_eq!(
        b.str("pricingHash"),
        update["pricingHash"].as_str().unwrap_or("")
    );
    assert_ne!(b.str("pricingHash"), h.str("pricingHash"));
    // The old hash no longer confirms; the new one does, and the add-on is confirmed.
    let confirm = |hash: String| {
        r.app
            .post(&format!("/api/v1/bookings/{id}/confirm"))
            .tenant(&r.t.id)
            .token(&r.t.owner_token)
            .json(json!({"pricingHash": hash, "paymentMethod": "poa"}))
            .send()
    };
    let stale = confirm(h.str("pricingHash").to_owned()).await;
    stale.assert_status(409);
    assert_eq!(stale.body["error"], "PRICING_CHANGED");
    confirm(b.str("pricingHash").to_owned())
        .await
        .assert_status(200);
    let addons = r.addons(id).await;
    let list = &addons.body["addons"];
    assert_eq!(list[0]["status"], "CONFIRMED", "{}", addons.text);
    assert_eq!(list[0]["addonName"], "Party room");
    assert_eq!(list[0]["resourceId"], r.resource.as_str());
    assert_eq!(list[0]["bookingAddonId"], list[0]["allocationId"]);
    assert_eq!(list[0]["totalPrice"], 10.0);
    assert_eq!(list[0]["durationMins"], 60);
}

#[tokio::test]
async fn windows_follow_the_configuration_and_the_resource() {
    let r = room(
        "EXCLUSIVE",
        1,
        json!({"allowBefore": false, "pricingMode": "PER_PERSON", "perPersonPrice": 4,
            "maxCapacity": 3}),
    )
    .await;
    let h = r.hold(0, 2).await;
    let (id, start, end) = (h.str("id"), h.str("startTime"), h.str("endTime"));
    // A length the add-on does not allow: 422.
    let long = r.add(id, end, &shift(end, 90), 90).await;
    long.assert_status(422);
    assert_eq!(long.body["error"], "VALIDATION_ERROR");
    assert!(long.text.contains("exactly 60 minutes"), "{}", long.text);
    // Not a window around the activity, or one the add-on does not allow: 400.
    let stray = r.add(id, &shift(end, 30), &shift(end, 90), 60).await;
    stray.assert_status(400);
    assert!(
        stray.text.contains("selections[0].startsAt"),
        "{}",
        stray.text
    );
    let before = r.add(id, &shift(start, -60), start, 60).await;
    before.assert_status(400);
    // Start after end, and a duration that is not the window's length: 400.
    let backwards = r.add(id, end, &shift(end, -60), 60).await;
    backwards.assert_status(400);
    assert!(
        backwards.text.contains("start must be before end"),
        "{}",
        backwards.text
    );
    let mismatch = r.add(id, end, &shift(end, 60), 30).await;
    mismatch.assert_status(400);
    // An unknown configuration, or another product's: 404.
    let unknown = r
        .app
        .post(&format!("/api/v1/bookings/{id}/resource-addons"))
        .tenant(&r.t.id)
        .token(&r.t.owner_token)
        .json(
            json!({"selections": [{"configId": uuid::Uuid::new_v4(), "startsAt": end,
            "endsAt": shift(end, 60), "durationMins": 60}]}),
        )
        .send()
        .await;
    unknown.assert_status(404);
    assert_eq!(unknown.body["error"], "NOT_FOUND");
    // During the activity is allowed, priced per person.
    let during = r.add(id, start, end, 60).await;
    during.assert_status(200);
    assert_eq!(during.body["allocations"][0]["price"], 8.0);
    assert_eq!(during.body["allocations"][0]["position"], "DURING");
    // A party bigger than the add-on serves is refused as unavailable.
    let big = r.hold(1, 4).await;
    let refused = r
        .add(
            big.str("id"),
            big.str("endTime"),
            &shift(big.str("endTime"), 60),
            60,
        )
        .await;
    refused.assert_status(409);
    // A resource add-on cannot be chosen as a plain add-on of a hold.
    let addon = r
        .app
        .get(&format!(
            "/api/v1/availability/resource-addons?product_id={}",
            r.fx.catalog.product_id
        ))
        .tenant(&r.t.id)
        .send()
        .await;
    let addon_id = addon.body["configs"][0]["addonId"].clone();
    let plain = r
        .app
        .post("/api/v1/bookings/hold")
        .tenant(&r.t.id)
        .json(
            json!({"siteId": r.fx.catalog.site_id, "productId": r.fx.catalog.product_id,
            "slotId": r.fx.slots[2], "partySize": 1,
            "customer": {"name": "Ada", "email": "ada@example.com"},
            "addons": [{"addonId": addon_id, "quantity": 1}]}),
        )
        .send()
        .await;
    plain.assert_status(400);
    assert!(plain.text.contains("resource add-on"), "{}", plain.text);
}

#[tokio::test]
async fn expiry_and_cancellation_give_the_resource_back() {
    let r = room("EXCLUSIVE", 1, json!({})).await;
    let (a, b) = (r.hold(0, 1).await, r.hold(0, 1).await);
    let end = a.str("endTime").to_owned();
    r.add(a.str("id"), &end, &shift(&end, 60), 60)
        .await
        .assert_status(200);
    r.add(b.str("id"), &end, &shift(&end, 60), 60)
        .await
        .assert_status(409);
    // The hold expires: the sweep (this one, or the service's own) releases its room.
    r.app.clock.advance(chrono::Duration::minutes(30));
    r.app
        .store
        .expire_overdue_holds(r.app.clock_now(), 100)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let gone = r
        .app
        .get(&format!("/api/v1/bookings/{}", a.str("id")))
        .tenant(&r.t.id)
        .token(&r.t.owner_token)
        .send()
        .await;
    assert_eq!(gone.body["status"], "expired", "{}", gone.text);
    assert_eq!(r.addons(a.str("id")).await.body["addons"], json!([]));
    // Taken again by a new hold, then cancelled: free again.
    let c = r.hold(0, 1).await;
    r.add(c.str("id"), &end, &shift(&end, 60), 60)
        .await
        .assert_status(200);
    r.app
        .post(&format!("/api/v1/bookings/{}/cancel", c.str("id")))
        .tenant(&r.t.id)
        .token(&r.t.owner_token)
        .json(json!({"reason": "changed plans"}))
        .send()
        .await
        .assert_status(200);
    let d = r.hold(0, 1).await;
    r.add(d.str("id"), &end, &shift(&end, 60), 60)
        .await
        .assert_status(200);
    // A confirmed booking takes no add-ons by POST; an expired hold says so.
    let late = r.add(a.str("id"), &end, &shift(&end, 60), 60).await;
    late.assert_status(409);
}

#[tokio::test]
async fn a_retried_request_gets_the_first_answer_and_takes_once() {
    let r = room("EXCLUSIVE", 1, json!({})).await;
    let h = r.hold(0, 1).await;
    let end = h.str("endTime");
    let body = json!({"selections": [{"configId": r.config, "startsAt": end,
        "endsAt": shift(end, 60), "durationMins": 60}]});
    let send = || {
        r.app
            .post(&format!("/api/v1/bookings/{}/resource-addons", h.str("id")))
            .tenant(&r.t.id)
            .token(&r.t.owner_token)
            .header("idempotency-key", "add-room-1")
            .json(body.clone())
            .send()
    };
    let first = send().await;
    first.assert_status(200);
    let again = send().await;
    again.assert_status(200);
    assert_eq!(again.body, first.body);
    assert_eq!(again.header("idempotent-replayed"), Some("true"));
    let addons = r.addons(h.str("id")).await;
    assert_eq!(addons.body["addons"].as_array().map(Vec::len), Some(1));
}

#[tokio::test]
async fn patch_swaps_add_ons_on_a_hold_and_adjusts_a_pay_on_arrival_booking() {
    let r = room("EXCLUSIVE", 1, json!({})).await;
    let h = r.hold(0, 1).await;
    let (id, start, end) = (h.str("id"), h.str("startTime"), h.str("endTime"));
    let added = r.add(id, end, &shift(end, 60), 60).await;
    let first = added.body["allocations"][0]["id"]
        .as_str()
        .unwrap_or("")
        .to_owned();
    let patch = |body: serde_json::Value| {
        r.app
            .patch(&format!("/api/v1/bookings/{id}/resource-addons"))
            .tenant(&r.t.id)
            .token(&r.t.owner_token)
            .json(body)
            .send()
    };
    // After becomes before, in one step.
    let swapped = patch(json!({"remove": [first],
        "add": [{"configId": r.config, "startsAt": shift(start, -60), "endsAt": start,
            "durationMins": 60}]}))
    .await;
    swapped.assert_status(200);
    assert_eq!(swapped.body["addons"].as_array().map(Vec::len), Some(1));
    assert_eq!(swapped.body["addons"][0]["position"], "BEFORE");
    assert_eq!(swapped.body["paymentAdjustment"]["type"], "NONE");
    // Removing what the booking does not have: 404, nothing changed.
    let missing = patch(json!({"remove": [uuid::Uuid::new_v4()]})).await;
    missing.assert_status(404);
    // The after window is free again for someone else.
    let other = r.hold(0, 1).await;
    r.add(other.str("id"), end, &shift(end, 60), 60)
        .await
        .assert_status(200);
    // Confirmed to pay on arrival, an added window raises what is due at the desk.
    let hash = swapped.body["pricingUpdate"]["pricingHash"].clone();
    r.app
        .post(&format!("/api/v1/bookings/{id}/confirm"))
        .tenant(&r.t.id)
        .token(&r.t.owner_token)
        .json(json!({"pricingHash": hash, "paymentMethod": "poa"}))
        .send()
        .await
        .assert_status(200);
    let during = patch(
        json!({"add": [{"configId": r.config, "startsAt": start, "endsAt": end,
        "durationMins": 60}]}),
    )
    .await;
    during.assert_status(200);
    let adj = &during.body["paymentAdjustment"];
    assert_eq!(adj["type"], "ADDITIONAL_CHARGE", "{}", during.text);
    assert_eq!(adj["amount"], 10.0);
    assert_eq!(adj["paymentRequired"], false);
    assert!(
        during.body["addons"]
            .as_array()
            .is_some_and(|l| l.iter().all(|a| a["status"] == "CONFIRMED"))
    );
    let dropped = patch(json!({"remove": [during.body["addons"][1]["allocationId"]]})).await;
    dropped.assert_status(200);
    assert_eq!(
        dropped.body["paymentAdjustment"]["type"],
        "AMOUNT_DUE_REDUCED"
    );
    // A cancelled booking's add-ons are gone and cannot be changed.
    r.app
        .post(&format!("/api/v1/bookings/{id}/cancel"))
        .tenant(&r.t.id)
        .token(&r.t.owner_token)
        .json(json!({}))
        .send()
        .await
        .assert_status(200);
    assert_eq!(r.addons(id).await.body["addons"], json!([]));
    let closed = patch(json!({"remove": []})).await;
    closed.assert_status(409);
    assert_eq!(closed.body["error"], "INVALID_TRANSITION");
}

#[tokio::test]
async fn a_moved_booking_takes_its_add_ons_along_or_does_not_move() {
    let r = room("EXCLUSIVE", 1, json!({})).await;
    let h = r.hold(0, 1).await;
    let id = h.str("id");
    let end = h.str("endTime");
    r.add(id, end, &shift(end, 60), 60).await.assert_status(200);
    // Another customer's booking has the room after the third slot.
    let other = r.hold_for(2, 1, "bea@example.com").await;
    let other_end = other.str("endTime");
    r.add(other.str("id"), other_end, &shift(other_end, 60), 60)
        .await
        .assert_status(200);
    let reschedule = |slot: usize| {
        r.app
            .post(&format!("/api/v1/bookings/{id}/reschedule"))
            .tenant(&r.t.id)
            .token(&r.t.owner_token)
            .json(json!({"slotId": r.fx.slots[slot]}))
            .send()
    };
    // Moved to the second slot, its room after moves an hour later.
    let moved = reschedule(1).await;
    moved.assert_status(200);
    let new_end = moved.str("endTime").to_owned();
    let addons = r.addons(id).await;
    assert_eq!(
        addons.body["addons"][0]["startsAt"],
        new_end.as_str(),
        "{}",
        addons.text
    );
    assert_eq!(addons.body["addons"][0]["position"], "AFTER");
    // The third slot's room after is the other booking's: the move is refused, nothing moves.
    let refused = reschedule(2).await;
    refused.assert_status(409);
    assert_eq!(
        refused.body["details"]["reason"], "resource_unavailable",
        "{}",
        refused.text
    );
    assert_eq!(
        r.addons(id).await.body["addons"][0]["startsAt"],
        new_end.as_str()
    );
    // Staff moves say the same.
    let commit = r
        .app
        .post("/api/v1/admin/calendar/commit-move")
        .tenant(&r.t.id)
        .token(&r.t.owner_token)
        .json(
            json!({"booking_id": id, "new_slot_id": r.fx.slots[2], "actor_id": "mia",
            "reason": "customer asked"}),
        )
        .send()
        .await;
    commit.assert_status(409);
    assert_eq!(
        commit.body["details"]["reason"], "hard_conflicts",
        "{}",
        commit.text
    );
    let overlap = &commit.body["details"]["hard_conflicts"][0];
    assert_eq!(overlap["type"], "resource_overlap", "{}", commit.text);
    assert_eq!(overlap["details"]["resource_name"], "Party room");
    // The first slot again: its room after is free, and it moves back.
    reschedule(0).await.assert_status(200);
    assert_eq!(r.addons(id).await.body["addons"][0]["startsAt"], end);
}
