//! A resource add-on no longer free at confirmation (spec Part B 4.2): the confirmation
//! answers `resourceConflict` and changes nothing; `resolve-conflict` moves the add-on to
//! an alternative window or drops it, and confirms.

use crate::resource_setup::{Room, room, shift};
use kairos_testkit::TestResponse;
use serde_json::{Value, json};

async fn confirm(r: &Room, id: &str, hash: &str) -> TestResponse {
    r.app
        .post(&format!("/api/v1/bookings/{id}/confirm"))
        .tenant(&r.t.id)
        .token(&r.t.owner_token)
        .json(json!({"pricingHash": hash, "paymentMethod": "poa"}))
        .send()
        .await
}

async fn resolve(r: &Room, id: &str, body: Value) -> TestResponse {
    r.app
        .post(&format!(
            "/api/v1/bookings/{id}/resource-addons/resolve-conflict"
        ))
        .tenant(&r.t.id)
        .token(&r.t.owner_token)
        .json(body)
        .send()
        .await
}

async fn set_resource(r: &Room, body: Value) {
    r.app
        .patch(&format!("/api/v1/admin/resources/{}", r.resource))
        .tenant(&r.t.id)
        .token(&r.t.owner_token)
        .json(body)
        .send()
        .await
        .assert_status(200);
}

#[tokio::test]
async fn a_smaller_room_conflicts_and_an_alternative_window_confirms() {
    let r = room("SHARED", 2, json!({})).await;
    let (a, b) = (r.hold(0, 1).await, r.hold(0, 1).await);
    let (start, end) = (a.str("startTime").to_owned(), a.str("endTime").to_owned());
    let add_a = r.add(a.str("id"), &end, &shift(&end, 60), 60).await;
    let add_b = r.add(b.str("id"), &end, &shift(&end, 60), 60).await;
    add_b.assert_status(200);
    // The venue now has room for one booking at a time.
    set_resource(&r, json!({"capacity": 1})).await;
    let hash_b = add_b.body["pricingUpdate"]["pricingHash"]
        .as_str()
        .unwrap_or("");
    let refused = confirm(&r, b.str("id"), hash_b).await;
    refused.assert_status(409);
    assert_eq!(refused.body["error"], "CONFLICT");
    let conflict = &refused.body["details"]["resourceConflict"];
    assert_eq!(conflict["pricingHash"], hash_b, "{}", refused.text);
    let c = &conflict["conflicts"][0];
    assert_eq!(c["conflictReason"], "capacity_exceeded");
    assert_eq!(c["allocationId"], add_b.body["allocations"][0]["id"]);
    assert_eq!(c["resourceName"], "Party room");
    assert_eq!(
        c["requestedStartsAt"],
        add_b.body["allocations"][0]["startsAt"]
    );
    // The hour before (and during) is free; the hour after, taken by A, is not offered.
    let alternatives = c["alternativeWindows"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert!(
        alternatives.iter().any(|w| w["position"] == "BEFORE"),
        "{}",
        refused.text
    );
    assert!(
        alternatives.iter().all(|w| w["position"] != "AFTER"),
        "{}",
        refused.text
    );
    let actions: Vec<_> = conflict["options"]
        .as_array()
        .map(|o| o.iter().map(|x| x["action"].clone()).collect())
        .unwrap_or_default();
    assert_eq!(
        actions,
        vec![json!("SELECT_ALTERNATIVE"), json!("PROCEED_WITHOUT")]
    );
    // Nothing changed: still a hold with its add-on held.
    let still = r.addons(b.str("id")).await;
    assert_eq!(still.body["addons"][0]["status"], "HELD");
    let move_to_before = |hash: &str| {
        json!({"action": "SELECT_ALTERNATIVE", "allocationId": c["allocationId"],
            "newStartsAt": shift(&start, -60), "newEndsAt": start,
            "expected_pricing_hash": hash, "payment_mode": "poa"})
    };
    // A price the customer did not see: nothing done.
    let stale = resolve(&r, b.str("id"), move_to_before("stale")).await;
    stale.assert_status(409);
    assert_eq!(stale.body["error"], "PRICING_CHANGED");
    let resolved = resolve(&r, b.str("id"), move_to_before(hash_b)).await;
    resolved.assert_status(200);
    assert_eq!(resolved.body["status"], "tentative", "{}", resolved.text);
    assert_eq!(resolved.body["paymentIntent"], Value::Null);
    assert_eq!(resolved.body["booking"]["id"], b.str("id"));
    let now = r.addons(b.str("id")).await;
    assert_eq!(now.body["addons"][0]["position"], "BEFORE");
    assert_eq!(now.body["addons"][0]["status"], "CONFIRMED");
    // A's hour after is its own again.
    let hash_a = add_a.body["pricingUpdate"]["pricingHash"]
        .as_str()
        .unwrap_or("");
    confirm(&r, a.str("id"), hash_a).await.assert_status(200);
    // Bad requests name their fields.
    let bad = resolve(&r, a.str("id"), json!({"action": "SOMETHING"})).await;
    bad.assert_status(400);
    for field in ["action", "expected_pricing_hash", "payment_mode"] {
        assert!(bad.text.contains(field), "{field}: {}", bad.text);
    }
}

#[tokio::test]
async fn a_withdrawn_room_is_dropped_and_the_booking_paid_by_card() {
    let r = room("EXCLUSIVE", 1, json!({})).await;
    r.app.sandbox_cardpay(&r.t).await;
    let h = r.hold(1, 2).await;
    let end = h.str("endTime").to_owned();
    let added = r.add(h.str("id"), &end, &shift(&end, 60), 60).await;
    added.assert_status(200);
    set_resource(&r, json!({"isActive": false})).await;
    let hash = added.body["pricingUpdate"]["pricingHash"]
        .as_str()
        .unwrap_or("")
        .to_owned();
    let refused = confirm(&r, h.str("id"), &hash).await;
    refused.assert_status(409);
    let c = &refused.body["details"]["resourceConflict"]["conflicts"][0];
    assert_eq!(c["conflictReason"], "resource_inactive", "{}", refused.text);
    assert_eq!(c["alternativeWindows"], json!([]));
    let resolved = resolve(
        &r,
        h.str("id"),
        json!({"action": "PROCEED_WITHOUT", "releaseAllocationIds": [c["allocationId"]],
            "expected_pricing_hash": hash, "payment_mode": "cardpay"}),
    )
    .await;
    resolved.assert_status(200);
    assert_eq!(resolved.body["status"], "confirmed", "{}", resolved.text);
    let secret = resolved.body["paymentIntent"]["clientSecret"]
        .as_str()
        .unwrap_or("");
    assert!(!secret.is_empty(), "{}", resolved.text);
    // Confirmed at the price without the room.
    assert_eq!(
        resolved.body["booking"]["price"]["total"], h.body["price"]["total"],
        "{}",
        resolved.text
    );
    assert_eq!(r.addons(h.str("id")).await.body["addons"], json!([]));
}
