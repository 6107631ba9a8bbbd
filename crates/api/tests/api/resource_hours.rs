//! A resource's own opening hours (Part B 4.12: resource-level schedules are independent
//! of product schedules): schedule templates, overrides and blackouts of scope
//! `resource`. Outside its hours the resource gives no add-on window and no session.

use crate::resource_setup::{call, room, shift};
use kairos_testkit::slot_ids;
use serde_json::{Value, json};

/// The positions of the windows around `[starts, ends)` and whether each is available.
async fn windows(r: &crate::resource_setup::Room, starts: &str, ends: &str) -> Vec<(String, bool)> {
    let res = r
        .app
        .get(&format!(
            "/api/v1/availability/resource-addons/{}/windows?activity_starts_at={}&activity_ends_at={}",
            r.config,
            starts.replace('+', "%2B"),
            ends.replace('+', "%2B")
        ))
        .tenant(&r.t.id)
        .send()
        .await;
    res.assert_status(200);
    res.body["windows"]
        .as_array()
        .map(|w| {
            w.iter()
                .map(|w| {
                    (
                        w["position"].as_str().unwrap_or_default().to_owned(),
                        w["isAvailable"] == true,
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

fn positions(list: &[(&str, bool)]) -> Vec<(String, bool)> {
    list.iter().map(|(p, a)| ((*p).to_owned(), *a)).collect()
}

#[tokio::test]
async fn a_resource_is_offered_only_within_its_own_hours() {
    let r = room("EXCLUSIVE", 1, json!({})).await;
    let (app, t) = (&r.app, &r.t);
    // The room opens 10:00 to 12:00 (Helsinki) every day.
    let hours = |body: Value| {
        call(
            app,
            t,
            "POST",
            "/api/v1/admin/schedules/templates",
            Some(body),
        )
    };
    let unknown = uuid::Uuid::new_v4();
    hours(
        json!({"scopeType": "resource", "scopeId": unknown, "recurrenceKind": "daily",
        "startTime": "10:00", "endTime": "12:00"}),
    )
    .await
    .assert_error(404, "NOT_FOUND");
    let made = hours(json!({"scopeType": "resource", "scopeId": r.resource,
        "recurrenceKind": "daily", "startTime": "10:00", "endTime": "12:00"}))
    .await;
    made.assert_status(200);
    assert_eq!(made.body["scopeType"], "resource", "{}", made.text);
    // Hours of a resource generate no slots of any product.
    assert_eq!(made.body["regeneration"]["products"], 0);
    let listed = call(
        app,
        t,
        "GET",
        &format!(
            "/api/v1/admin/schedules/templates?scopeType=resource&scopeId={}",
            r.resource
        ),
        None,
    )
    .await;
    assert_eq!(
        listed.body["items"].as_array().map(Vec::len),
        Some(1),
        "{}",
        listed.text
    );

    // The first session runs 10:00 to 11:00: the hour before it is outside the hours.
    let first = r.hold(0, 2).await;
    let (starts, ends) = (first.str("startTime"), first.str("endTime"));
    assert_eq!(
        windows(&r, starts, ends).await,
        positions(&[("BEFORE", false), ("DURING", true), ("AFTER", true)])
    );
    // After the second session (11:00 to 12:00) the room has closed.
    let second = r.hold(1, 2).await;
    let (starts, ends) = (second.str("startTime"), second.str("endTime"));
    assert_eq!(
        windows(&r, starts, ends).await,
        positions(&[("BEFORE", true), ("DURING", true), ("AFTER", false)])
    );
    let refused = r.add(second.str("id"), ends, &shift(ends, 60), 60).await;
    refused.assert_status(409);
    assert_eq!(refused.body["details"]["reason"], "resource_unavailable");
    r.add(second.str("id"), starts, ends, 60)
        .await
        .assert_status(200);
    for id in [first.str("id"), second.str("id")] {
        call(
            app,
            t,
            "POST",
            &format!("/api/v1/admin/bookings/{id}/cancel"),
            Some(json!({"reason": "admin_initiated"})),
        )
        .await
        .assert_status(200);
    }

    // A product whose sessions need the room is offered within its hours only.
    let product = &r.fx.catalog.product_id;
    call(
        app,
        t,
        "PUT",
        &format!("/api/v1/admin/products/{product}/resources"),
        Some(json!({"resourceIds": [r.resource]})),
    )
    .await
    .assert_status(200);
    let offered = || async {
        let res = app
            .availability(&t.id, &r.fx.catalog, "2026-11-22", "2026-11-22", 1)
            .await;
        res.assert_status(200);
        slot_ids(&res.body)
    };
    let slots = &r.fx.slots;
    assert_eq!(offered().await, slots[..2].to_vec());
    let late = app
        .post("/api/v1/bookings/hold")
        .tenant(&t.id)
        .token(&t.owner_token)
        .json(json!({
            "siteId": r.fx.catalog.site_id, "productId": product, "slotId": slots[2],
            "partySize": 1, "customer": {"name": "Ada Lovelace", "email": "ada@example.com"}
        }))
        .send()
        .await;
    late.assert_error(409, "SLOT_UNAVAILABLE");
    assert_eq!(late.body["details"]["resourceId"], json!(r.resource));

    // An override replaces the template on its date: 12:00 to 14:00 tomorrow.
    let changed = call(
        app,
        t,
        "POST",
        "/api/v1/admin/schedules/overrides",
        Some(
            json!({"scopeType": "resource", "scopeId": r.resource, "dateFrom": "2026-11-22",
            "dateTo": "2026-11-22", "startTime": "12:00", "endTime": "14:00"}),
        ),
    )
    .await;
    changed.assert_status(200);
    assert_eq!(offered().await, slots[2..].to_vec());
    // A blackout of the resource over 13:00 to 14:00 closes the last session too.
    call(
        app,
        t,
        "POST",
        "/api/v1/admin/schedules/blackouts",
        Some(
            json!({"scopeType": "resource", "scopeId": r.resource, "kind": "maintenance",
            "dateFrom": "2026-11-22", "dateTo": "2026-11-22", "startTime": "13:00",
            "endTime": "14:00"}),
        ),
    )
    .await
    .assert_status(200);
    assert_eq!(offered().await, slots[2..3].to_vec());

    // Without hours of its own the room is open at all hours again.
    let path = format!("/api/v1/admin/schedules/overrides/{}", changed.str("id"));
    call(app, t, "DELETE", &path, None).await.assert_status(200);
    let path = format!("/api/v1/admin/schedules/templates/{}", made.str("id"));
    call(app, t, "DELETE", &path, None).await.assert_status(200);
    let open = offered().await;
    assert_eq!(
        open,
        vec![slots[0].clone(), slots[1].clone(), slots[2].clone()]
    );
}
