//! Resource groups (Part A 4.11): their administration, assigning resources, and booking
//! policies set on a resource, on its group or left to the defaults, which the resource
//! add-ons of bookings then follow.

use crate::resource_setup::{Room, call, room, shift};
use kairos_testkit::TestResponse;
use serde_json::{Value, json};

async fn owner(r: &Room, method: &str, path: &str, body: Option<Value>) -> TestResponse {
    call(&r.app, &r.t, method, path, body).await
}

async fn group(r: &Room, name: &str) -> String {
    let g = owner(
        r,
        "POST",
        "/api/v1/admin/resource-groups",
        Some(json!({"siteId": r.fx.catalog.site_id, "name": name, "description": "Rooms"})),
    )
    .await;
    g.assert_status(200);
    g.str("id").to_owned()
}

#[tokio::test]
async fn staff_keep_groups_and_assign_resources_to_them() {
    let r = room("EXCLUSIVE", 1, json!({})).await;
    let base = "/api/v1/admin/resource-groups";
    let missing = owner(&r, "POST", base, Some(json!({}))).await;
    missing.assert_status(400);
    for field in ["siteId", "name"] {
        assert!(missing.text.contains(field), "{field}: {}", missing.text);
    }
    let unknown_site = owner(
        &r,
        "POST",
        base,
        Some(json!({"siteId": uuid::Uuid::new_v4(), "name": "X"})),
    )
    .await;
    unknown_site.assert_status(404);
    let rooms = group(&r, "Party rooms").await;
    let twice = owner(
        &r,
        "POST",
        base,
        Some(json!({"siteId": r.fx.catalog.site_id, "name": "Party rooms"})),
    )
    .await;
    twice.assert_status(409);
    // A second resource, and one at another site.
    let hall = owner(
        &r,
        "POST",
        "/api/v1/admin/resources",
        Some(json!({"siteId": r.fx.catalog.site_id, "name": "Hall", "resourceType": "ROOM"})),
    )
    .await;
    let site2 = owner(
        &r,
        "POST",
        "/api/v1/admin/sites",
        Some(json!({"name": "Second site", "timezone": "Europe/Helsinki", "currency": "EUR"})),
    )
    .await;
    site2.assert_status(200);
    let far = owner(
        &r,
        "POST",
        "/api/v1/admin/resources",
        Some(json!({"siteId": site2.str("id"), "name": "Far room", "resourceType": "ROOM"})),
    )
    .await;
    far.assert_status(200);
    // All or none: the far room refuses the whole bulk assignment.
    let bulk = |ids: Value| {
        owner(
            &r,
            "POST",
            "/api/v1/admin/resource-groups/assign/bulk",
            Some(json!({"groupId": rooms, "resourceIds": ids})),
        )
    };
    let refused = bulk(json!([r.resource, far.str("id")])).await;
    refused.assert_status(400);
    assert!(refused.text.contains("resourceId"), "{}", refused.text);
    let members = owner(&r, "GET", &format!("{base}/{rooms}/resources"), None).await;
    assert_eq!(members.body["items"], json!([]), "{}", members.text);
    bulk(json!([])).await.assert_status(400);
    bulk(json!([r.resource, r.resource]))
        .await
        .assert_status(400);
    let done = bulk(json!([r.resource, hall.str("id")])).await;
    done.assert_status(200);
    assert_eq!(done.body["items"][0]["groupId"], rooms.as_str());
    let g = owner(&r, "GET", &format!("{base}/{rooms}"), None).await;
    assert_eq!(g.body["resourceCount"], 2, "{}", g.text);
    // Assigning one to another group moves it.
    let other = group(&r, "Halls").await;
    let moved = owner(
        &r,
        "POST",
        &format!("{base}/assign"),
        Some(json!({"groupId": other, "resourceId": hall.str("id")})),
    )
    .await;
    moved.assert_status(200);
    assert_eq!(moved.body["groupId"], other.as_str());
    let listed = owner(
        &r,
        "GET",
        &format!("{base}?siteId={}", r.fx.catalog.site_id),
        None,
    )
    .await;
    let counts: Vec<_> = listed.body["items"]
        .as_array()
        .map(|l| {
            l.iter()
                .map(|g| (g["name"].clone(), g["resourceCount"].clone()))
                .collect()
        })
        .unwrap_or_default();
    assert_eq!(
        counts,
        vec![(json!("Halls"), json!(1)), (json!("Party rooms"), json!(1))]
    );
    // Renamed; its site stays.
    let renamed = owner(
        &r,
        "PATCH",
        &format!("{base}/{rooms}"),
        Some(json!({"name": "Rooms for parties"})),
    )
    .await;
    assert_eq!(renamed.body["name"], "Rooms for parties");
    owner(
        &r,
        "PATCH",
        &format!("{base}/{rooms}"),
        Some(json!({"siteId": site2.str("id")})),
    )
    .await
    .assert_status(400);
    // Unassigned, then the other group deleted: its hall stays, in no group.
    let out = owner(
        &r,
        "DELETE",
        &format!("{base}/unassign/{}", r.resource),
        None,
    )
    .await;
    out.assert_status(200);
    assert_eq!(out.body["groupId"], Value::Null);
    owner(&r, "DELETE", &format!("{base}/{other}"), None)
        .await
        .assert_status(204);
    owner(&r, "GET", &format!("{base}/{other}"), None)
        .await
        .assert_status(404);
    let hall_now = owner(
        &r,
        "GET",
        &format!("/api/v1/admin/resources/{}", hall.str("id")),
        None,
    )
    .await;
    assert_eq!(hall_now.body["groupId"], Value::Null, "{}", hall_now.text);
}

#[tokio::test]
async fn a_resources_own_policy_wins_over_its_groups_and_its_groups_over_the_default() {
    let r = room("EXCLUSIVE", 1, json!({})).await;
    let rooms = group(&r, "Party rooms").await;
    owner(
        &r,
        "POST",
        "/api/v1/admin/resource-groups/assign",
        Some(json!({"groupId": rooms, "resourceId": r.resource})),
    )
    .await
    .assert_status(200);
    let set = owner(
        &r,
        "PATCH",
        &format!("/api/v1/admin/resource-groups/{rooms}/policies"),
        Some(json!({"minLeadMins": 120, "bufferAfterMins": 15, "customerBookable": false})),
    )
    .await;
    set.assert_status(200);
    assert_eq!(set.body["policies"]["minLeadMins"], 120);
    let bad = owner(
        &r,
        "PATCH",
        &format!("/api/v1/admin/resource-groups/{rooms}/policies"),
        Some(json!({"maxAdvanceDays": 0, "bufferBeforeMins": 5000})),
    )
    .await;
    bad.assert_status(400);
    for field in ["maxAdvanceDays", "bufferBeforeMins"] {
        assert!(bad.text.contains(field), "{field}: {}", bad.text);
    }
    // Policies are an object; an array is refused, not read as one.
    let array = owner(
        &r,
        "PATCH",
        &format!("/api/v1/admin/resources/{}", r.resource),
        Some(json!({"policies": [null, null]})),
    )
    .await;
    array.assert_status(400);
    assert!(array.text.contains("policies"), "{}", array.text);
    let own = owner(
        &r,
        "PATCH",
        &format!("/api/v1/admin/resources/{}", r.resource),
        Some(json!({"policies": {"customerBookable": true, "minLeadMins": 30}})),
    )
    .await;
    own.assert_status(200);
    assert_eq!(own.body["policies"]["customerBookable"], true);
    let path = format!(
        "/api/v1/admin/resource-groups/resources/{}/effective-policies",
        r.resource
    );
    let eff = owner(&r, "GET", &path, None).await;
    eff.assert_status(200);
    assert_eq!(eff.body["groupId"], rooms.as_str());
    let p = &eff.body["policies"];
    assert_eq!(
        (
            p["minLeadMins"].clone(),
            p["bufferAfterMins"].clone(),
            p["customerBookable"].clone()
        ),
        (json!(30), json!(15), json!(true)),
        "{}",
        eff.text
    );
    assert_eq!(p["maxAdvanceDays"], Value::Null);
    let s = &eff.body["sources"];
    assert_eq!(s["minLeadMins"], "resource");
    assert_eq!(s["bufferAfterMins"], "group");
    assert_eq!(s["bufferBeforeMins"], "default");
    // The resource's own lead time cleared: the group's applies again.
    owner(
        &r,
        "PATCH",
        &format!("/api/v1/admin/resources/{}", r.resource),
        Some(json!({"policies": {"minLeadMins": null}})),
    )
    .await
    .assert_status(200);
    let eff = owner(&r, "GET", &path, None).await;
    assert_eq!(eff.body["policies"]["minLeadMins"], 120);
    assert_eq!(eff.body["sources"]["minLeadMins"], "group");
    assert_eq!(eff.body["sources"]["customerBookable"], "resource");
}

#[tokio::test]
async fn bookings_follow_the_policies() {
    let r = room(
        "EXCLUSIVE",
        1,
        json!({"durationMode": "SELECTABLE", "selectableDurations": [60, 120]}),
    )
    .await;
    let rooms = group(&r, "Party rooms").await;
    owner(
        &r,
        "POST",
        "/api/v1/admin/resource-groups/assign",
        Some(json!({"groupId": rooms, "resourceId": r.resource})),
    )
    .await
    .assert_status(200);
    let policies_path = format!("/api/v1/admin/resource-groups/{rooms}/policies");
    let policies = |body: Value| owner(&r, "PATCH", &policies_path, Some(body));
    policies(json!({"maxDurationMins": 60, "customerBookable": false, "bufferBeforeMins": 30}))
        .await
        .assert_status(200);
    let a = r.hold(0, 1).await;
    let end = a.str("endTime").to_owned();
    // Longer than the group allows: 422.
    let long = r.add(a.str("id"), &end, &shift(&end, 120), 120).await;
    long.assert_status(422);
    assert!(long.text.contains("at most 60 minutes"), "{}", long.text);
    // Staff only: the customer's own token is refused, staff take it.
    let by_customer = r
        .app
        .post(&format!("/api/v1/bookings/{}/resource-addons", a.str("id")))
        .tenant(&r.t.id)
        .header("x-booking-token", a.str("bookingToken"))
        .json(
            json!({"selections": [{"configId": r.config, "startsAt": end,
            "endsAt": shift(&end, 60), "durationMins": 60}]}),
        )
        .send()
        .await;
    by_customer.assert_status(409);
    assert_eq!(by_customer.body["details"]["reason"], "resource_policy");
    assert_eq!(by_customer.body["details"]["policy"], "customerBookable");
    r.add(a.str("id"), &end, &shift(&end, 60), 60)
        .await
        .assert_status(200);
    // The group's 30 minutes of setup keep the next hour's start free: the hour after
    // the second slot (which begins when the first's ends) is refused.
    let b = r.hold(1, 1).await;
    let b_end = b.str("endTime").to_owned();
    let refused = r.add(b.str("id"), &b_end, &shift(&b_end, 60), 60).await;
    refused.assert_status(409);
    // The windows say so too, as they say the staff-only rule to customers.
    let windows = r
        .app
        .get(&format!(
            "/api/v1/availability/resource-addons/{}/windows?activity_starts_at={}&activity_ends_at={}",
            r.config,
            b.str("startTime").replace('+', "%2B"),
            b_end.replace('+', "%2B")
        ))
        .tenant(&r.t.id)
        .send()
        .await;
    windows.assert_status(200);
    assert!(
        windows.body["windows"]
            .as_array()
            .is_some_and(|w| w.iter().all(|w| w["isAvailable"] == false)),
        "{}",
        windows.text
    );
    // A lead time longer than the time left: refused even for staff.
    policies(json!({"minLeadMins": 525600, "bufferBeforeMins": null}))
        .await
        .assert_status(200);
    let c = r.hold(3, 1).await;
    let c_end = c.str("endTime").to_owned();
    let soon = r.add(c.str("id"), &c_end, &shift(&c_end, 60), 60).await;
    soon.assert_status(409);
    assert_eq!(
        soon.body["details"]["policy"], "minLeadMins",
        "{}",
        soon.text
    );
}
