//! A resource's time off (Part B 4.12, resource-level schedules): while a blackout lasts
//! the resource gives no add-on window and no session; what it already serves is kept
//! and listed as a warning; ending it frees the resource at once.

use crate::resource_setup::{room, shift};
use kairos_testkit::slot_ids;
use serde_json::{Value, json};

const TOMORROW_10: &str = "2026-11-22T08:00:00Z";

#[tokio::test]
async fn a_blackout_takes_the_resource_out_of_every_offer_and_keeps_what_is_booked() {
    let r = room("EXCLUSIVE", 1, json!({})).await;
    let (app, t) = (&r.app, &r.t);
    let base = format!("/api/v1/admin/resources/{}/blackouts", r.resource);
    let post = |body: Value| {
        app.post(&base)
            .tenant(&t.id)
            .token(&t.owner_token)
            .json(body)
            .send()
    };
    // Every bad request is refused with nothing written.
    for (body, field) in [
        (
            json!({"startsAt": TOMORROW_10, "endsAt": "2026-11-22T09:00:00Z"}),
            "kind",
        ),
        (
            json!({"kind": "nap", "startsAt": TOMORROW_10, "endsAt": "2026-11-22T09:00:00Z"}),
            "kind",
        ),
        (
            json!({"kind": "maintenance", "endsAt": TOMORROW_10}),
            "startsAt",
        ),
        (
            json!({"kind": "maintenance", "startsAt": TOMORROW_10, "endsAt": TOMORROW_10}),
            "endsAt",
        ),
        (
            json!({"kind": "maintenance", "startsAt": TOMORROW_10, "endsAt": "2028-01-01T00:00:00Z"}),
            "endsAt",
        ),
        (
            json!({"kind": "maintenance", "startsAt": TOMORROW_10, "endsAt": "2026-11-22T09:00:00Z",
            "reason": "x".repeat(501)}),
            "reason",
        ),
    ] {
        let res = post(body).await;
        res.assert_status(400);
        let named = res.body["details"]["errors"]
            .as_array()
            .is_some_and(|e| e.iter().any(|e| e["field"] == field));
        assert!(named, "{field}: {}", res.text);
    }
    let unknown = uuid::Uuid::new_v4();
    app.post(&format!("/api/v1/admin/resources/{unknown}/blackouts"))
        .tenant(&t.id)
        .token(&t.owner_token)
        .json(json!({"kind": "maintenance", "startsAt": TOMORROW_10, "endsAt": "2026-11-22T09:00:00Z"}))
        .send()
        .await
        .assert_status(404);
    let list = || app.get(&base).tenant(&t.id).token(&t.owner_token).send();
    assert_eq!(list().await.body["items"], json!([]));

    // A party already has the room after the first session; a repair is then planned
    // over that hour and the next.
    let booked = r.hold(0, 2).await;
    let end = booked.str("endTime").to_owned();
    r.add(booked.str("id"), &end, &shift(&end, 60), 60)
        .await
        .assert_status(200);
    let made = post(
        json!({"kind": "maintenance", "startsAt": end, "endsAt": shift(&end, 120),
        "reason": "New floor"}),
    )
    .await;
    made.assert_status(200);
    assert_eq!(made.body["kind"], "maintenance");
    assert_eq!(made.body["reason"], "New floor");
    assert_eq!(
        made.body["warnings"][0]["code"], "existing_bookings",
        "{}",
        made.text
    );
    assert_eq!(made.body["warnings"].as_array().map(Vec::len), Some(1));
    // The party keeps its room; nobody else gets it then.
    assert_eq!(
        r.addons(booked.str("id")).await.body["addons"][0]["status"],
        "HELD"
    );
    let other = r.hold(1, 1).await;
    let other_end = other.str("endTime").to_owned();
    let refused = r
        .add(other.str("id"), &other_end, &shift(&other_end, 60), 60)
        .await;
    refused.assert_status(409);
    assert_eq!(refused.body["details"]["reason"], "resource_unavailable");
    let windows = app
        .get(&format!(
            "/api/v1/availability/resource-addons/{}/windows?activity_starts_at={}&activity_ends_at={}",
            r.config,
            other.str("startTime").replace('+', "%2B"),
            other_end.replace('+', "%2B")
        ))
        .tenant(&t.id)
        .send()
        .await;
    windows.assert_status(200);
    // Before the session the room is free; during and after it, under repair.
    let available: Vec<(&str, bool)> = windows.body["windows"]
        .as_array()
        .map(|w| {
            w.iter()
                .map(|w| {
                    (
                        w["position"].as_str().unwrap_or_default(),
                        w["isAvailable"] == true,
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    assert_eq!(
        available,
        [("BEFORE", true), ("DURING", false), ("AFTER", false)],
        "{}",
        windows.text
    );
    let listed = list().await;
    assert_eq!(listed.body["items"][0]["id"], made.body["id"]);
    // A product whose sessions need the room is not offered over the repair either.
    let product = &r.fx.catalog.product_id;
    app.put(&format!("/api/v1/admin/products/{product}/resources"))
        .tenant(&t.id)
        .token(&t.owner_token)
        .json(json!({"resourceIds": [r.resource]}))
        .send()
        .await
        .assert_status(200);
    let offered = || async {
        let res = app
            .availability(&t.id, &r.fx.catalog, "2026-11-22", "2026-11-22", 1)
            .await;
        res.assert_status(200);
        slot_ids(&res.body)
    };
    let now = offered().await;
    assert!(
        !now.contains(&r.fx.slots[1]) && !now.contains(&r.fx.slots[2]),
        "{now:?}"
    );
    // Ended early: the room is back at once.
    let path = format!("{base}/{}", made.str("id"));
    let delete = || app.delete(&path).tenant(&t.id).token(&t.owner_token).send();
    delete().await.assert_status(204);
    delete().await.assert_status(404);
    assert_eq!(list().await.body["items"], json!([]));
    assert!(offered().await.contains(&r.fx.slots[2]));
    r.add(other.str("id"), &other_end, &shift(&other_end, 60), 60)
        .await
        .assert_status(200);
}
