//! Staff skills (Part A 4.11): skills, grants to STAFF resources with a level and an
//! expiry, a staff member's skills, product requirements, skills expiring, and who is
//! qualified and free for a time range.

use crate::resource_setup::call;
use kairos_testkit::{TenantFixture, TestApp};
use serde_json::json;

async fn staff(app: &TestApp, t: &TenantFixture, site: &str, name: &str, kind: &str) -> String {
    let r = call(
        app,
        t,
        "POST",
        "/api/v1/admin/resources",
        Some(json!({"siteId": site, "name": name, "resourceType": kind})),
    )
    .await;
    r.assert_status(200);
    r.str("id").to_owned()
}

#[tokio::test]
async fn skills_are_kept_and_given_to_staff_with_a_level_and_an_expiry() {
    let app = TestApp::spawn().await;
    let t = app.tenant("acme").await;
    let catalog = app.catalog(&t).await;
    let site = catalog.site_id.clone();
    let base = "/api/v1/admin/skills";
    call(&app, &t, "POST", base, Some(json!({})))
        .await
        .assert_status(400);
    let marshal = call(
        &app,
        &t,
        "POST",
        base,
        Some(json!({"name": "Track marshal", "description": "Certified for the karting track"})),
    )
    .await;
    marshal.assert_status(200);
    let skill = marshal.str("id").to_owned();
    call(
        &app,
        &t,
        "POST",
        base,
        Some(json!({"name": "Track marshal"})),
    )
    .await
    .assert_status(409);
    let (mia, leo, room) = (
        staff(&app, &t, &site, "Mia", "STAFF").await,
        staff(&app, &t, &site, "Leo", "STAFF").await,
        staff(&app, &t, &site, "Party room", "ROOM").await,
    );
    // A room holds no skills; nothing of the bulk grant is kept.
    let now = app.clock_now();
    let soon = (now + chrono::Duration::days(10)).to_rfc3339();
    let later = (now + chrono::Duration::days(100)).to_rfc3339();
    let refused = call(
        &app,
        &t,
        "POST",
        &format!("{base}/assign/bulk"),
        Some(json!({"skillId": skill, "assignments": [
            {"resourceId": mia, "level": 3, "expiresAt": soon},
            {"resourceId": room}]})),
    )
    .await;
    refused.assert_status(400);
    assert!(refused.text.contains("STAFF"), "{}", refused.text);
    let bad = call(
        &app,
        &t,
        "POST",
        &format!("{base}/assign/bulk"),
        Some(json!({"skillId": skill, "assignments": [
            {"resourceId": mia, "level": 9, "expiresAt": "tomorrow"}]})),
    )
    .await;
    bad.assert_status(400);
    for field in ["assignments[0].level", "assignments[0].expiresAt"] {
        assert!(bad.text.contains(field), "{field}: {}", bad.text);
    }
    let granted = call(
        &app,
        &t,
        "POST",
        &format!("{base}/assign/bulk"),
        Some(json!({"skillId": skill, "assignments": [
            {"resourceId": mia, "level": 3, "expiresAt": soon},
            {"resourceId": leo, "level": 1}]})),
    )
    .await;
    granted.assert_status(200);
    assert_eq!(granted.body["items"][0]["skillName"], "Track marshal");
    // Granted again: the new level and expiry.
    let again = call(
        &app,
        &t,
        "POST",
        &format!("{base}/assign"),
        Some(json!({"skillId": skill, "resourceId": leo, "level": 2, "expiresAt": later})),
    )
    .await;
    again.assert_status(200);
    assert_eq!(again.body["level"], 2);
    assert_eq!(again.body["isValid"], true);
    let got = call(&app, &t, "GET", &format!("{base}/{skill}"), None).await;
    assert_eq!(got.body["holders"], 2, "{}", got.text);
    let mine = call(&app, &t, "GET", &format!("{base}/resources/{mia}"), None).await;
    mine.assert_status(200);
    assert_eq!(mine.body["items"][0]["level"], 3);
    // Expiring within 30 days: Mia's, not Leo's.
    let expiring = call(
        &app,
        &t,
        "GET",
        &format!("{base}/expiring?withinDays=30"),
        None,
    )
    .await;
    expiring.assert_status(200);
    let names: Vec<_> = expiring.body["items"]
        .as_array()
        .map(|l| l.iter().map(|h| h["resourceName"].clone()).collect())
        .unwrap_or_default();
    assert_eq!(names, vec![json!("Mia")], "{}", expiring.text);
    call(
        &app,
        &t,
        "GET",
        &format!("{base}/expiring?withinDays=0"),
        None,
    )
    .await
    .assert_status(400);
    // Renamed; removed from Mia; Mia no longer holds it.
    let renamed = call(
        &app,
        &t,
        "PATCH",
        &format!("{base}/{skill}"),
        Some(json!({"name": "Marshal"})),
    )
    .await;
    assert_eq!(renamed.body["name"], "Marshal");
    let path = format!("{base}/resources/{mia}/skills/{skill}");
    call(&app, &t, "DELETE", &path, None)
        .await
        .assert_status(204);
    call(&app, &t, "DELETE", &path, None)
        .await
        .assert_status(404);
    let mine = call(&app, &t, "GET", &format!("{base}/resources/{mia}"), None).await;
    assert_eq!(mine.body["items"], json!([]));
    // A product needs it; deleting the skill takes its grants and requirements with it.
    let req_path = format!("{base}/products/{}/requirements", catalog.product_id);
    let set = call(
        &app,
        &t,
        "POST",
        &req_path,
        Some(json!({"requirements": [{"skillId": skill, "minLevel": 2}]})),
    )
    .await;
    set.assert_status(200);
    assert_eq!(set.body["items"][0]["minLevel"], 2);
    assert_eq!(set.body["items"][0]["skillName"], "Marshal");
    let twice = call(
        &app,
        &t,
        "POST",
        &req_path,
        Some(json!({"requirements": [{"skillId": skill}, {"skillId": skill}]})),
    )
    .await;
    twice.assert_status(400);
    let empty = call(
        &app,
        &t,
        "POST",
        &req_path,
        Some(json!({"requirements": [{"skillId": "", "minLevel": 1}]})),
    )
    .await;
    empty.assert_status(400);
    assert!(
        empty.text.contains("requirements[0].skillId"),
        "{}",
        empty.text
    );
    let unknown = call(
        &app,
        &t,
        "POST",
        &req_path,
        Some(json!({"requirements": [{"skillId": uuid::Uuid::new_v4()}]})),
    )
    .await;
    unknown.assert_status(404);
    let read = call(&app, &t, "GET", &req_path, None).await;
    assert_eq!(
        read.body["items"].as_array().map(Vec::len),
        Some(1),
        "{}",
        read.text
    );
    call(&app, &t, "DELETE", &format!("{base}/{skill}"), None)
        .await
        .assert_status(204);
    call(&app, &t, "GET", &format!("{base}/{skill}"), None)
        .await
        .assert_status(404);
    assert_eq!(
        call(&app, &t, "GET", &req_path, None).await.body["items"],
        json!([])
    );
    let leo_skills = call(&app, &t, "GET", &format!("{base}/resources/{leo}"), None).await;
    assert_eq!(leo_skills.body["items"], json!([]));
}

#[tokio::test]
async fn qualified_staff_are_listed_with_who_is_free() {
    let app = TestApp::builder()
        .limits(kairos_api::rate_limit::Limits::UNLIMITED)
        .spawn()
        .await;
    let t = app.tenant("acme").await;
    let fx = app.bookable(&t).await;
    let site = fx.catalog.site_id.clone();
    let skill = call(
        &app,
        &t,
        "POST",
        "/api/v1/admin/skills",
        Some(json!({"name": "Guide"})),
    )
    .await
    .str("id")
    .to_owned();
    let (ann, ben, cid) = (
        staff(&app, &t, &site, "Ann", "STAFF").await,
        staff(&app, &t, &site, "Ben", "STAFF").await,
        staff(&app, &t, &site, "Cid", "STAFF").await,
    );
    let hold = app.hold(&t.id, &fx, &fx.slots[0], 1).await;
    let (start, end) = (
        hold.str("startTime").to_owned(),
        hold.str("endTime").to_owned(),
    );
    let expires_early = (chrono::DateTime::parse_from_rfc3339(&start)
        .unwrap_or_else(|e| panic!("{e}"))
        + chrono::Duration::minutes(30))
    .to_rfc3339();
    call(
        &app,
        &t,
        "POST",
        "/api/v1/admin/skills/assign/bulk",
        Some(json!({"skillId": skill, "assignments": [
            {"resourceId": ann, "level": 3}, {"resourceId": ben, "level": 1},
            {"resourceId": cid, "level": 5, "expiresAt": expires_early}]})),
    )
    .await
    .assert_status(200);
    // Ann guides the held session: a configuration of her as the product's add-on.
    let addon = call(
        &app,
        &t,
        "POST",
        &format!("/api/v1/admin/products/{}/addons", fx.catalog.product_id),
        Some(
            json!({"name": "Private guide", "addonType": "resource", "mode": "yesno",
            "priceType": "fixed", "price": 0}),
        ),
    )
    .await;
    let config = call(
        &app,
        &t,
        "POST",
        &format!(
            "/api/v1/admin/products/{}/resource-addons",
            fx.catalog.product_id
        ),
        Some(
            json!({"addonId": addon.str("id"), "resourceId": ann, "durationMode": "FIXED",
            "fixedDurationMins": 60, "pricingMode": "FLAT", "flatPrice": 30}),
        ),
    )
    .await;
    config.assert_status(200);
    app.post(&format!(
        "/api/v1/bookings/{}/resource-addons",
        hold.str("id")
    ))
    .tenant(&t.id)
    .token(&t.owner_token)
    .json(
        json!({"selections": [{"configId": config.str("id"), "startsAt": start,
            "endsAt": end, "durationMins": 60}]}),
    )
    .send()
    .await
    .assert_status(200);
    let ask = |min: u8| {
        let path = format!(
            "/api/v1/admin/skills/availability?skillId={skill}&startsAt={}&endsAt={}&minLevel={min}",
            start.replace('+', "%2B"),
            end.replace('+', "%2B")
        );
        let (app, t) = (&app, &t);
        async move { call(app, t, "GET", &path, None).await }
    };
    let all = ask(1).await;
    all.assert_status(200);
    // Cid's certificate runs out during the session: not qualified. Ann is busy.
    let seen: Vec<_> = all.body["items"]
        .as_array()
        .map(|l| {
            l.iter()
                .map(|s| (s["name"].clone(), s["isFree"].clone()))
                .collect()
        })
        .unwrap_or_default();
    assert_eq!(
        seen,
        vec![(json!("Ann"), json!(false)), (json!("Ben"), json!(true))],
        "{}",
        all.text
    );
    assert_eq!(all.body["freeCount"], 1);
    // Ben works evenings: outside his own hours he is not free either.
    call(
        &app,
        &t,
        "POST",
        "/api/v1/admin/schedules/templates",
        Some(
            json!({"scopeType": "resource", "scopeId": ben, "recurrenceKind": "daily",
            "startTime": "16:00", "endTime": "20:00"}),
        ),
    )
    .await
    .assert_status(200);
    let evening = ask(1).await;
    assert_eq!(evening.body["freeCount"], 0, "{}", evening.text);
    assert_eq!(evening.body["items"][1]["isFree"], false);
    let skilled = ask(2).await;
    assert_eq!(skilled.body["items"].as_array().map(Vec::len), Some(1));
    assert_eq!(skilled.body["freeCount"], 0);
    let backwards = call(
        &app,
        &t,
        "GET",
        &format!(
            "/api/v1/admin/skills/availability?skillId={skill}&startsAt={}&endsAt={}",
            end.replace('+', "%2B"),
            start.replace('+', "%2B")
        ),
        None,
    )
    .await;
    backwards.assert_status(400);
    assert!(
        backwards.text.contains("start must be before end"),
        "{}",
        backwards.text
    );
}

#[tokio::test]
async fn another_tenants_staff_skills_and_groups_are_not_found() {
    let app = TestApp::spawn().await;
    let (t, other) = (app.tenant("acme").await, app.tenant("other").await);
    let site = app.catalog(&t).await.site_id;
    let their_site = app.catalog(&other).await.site_id;
    let theirs = staff(&app, &other, &their_site, "Their guide", "STAFF").await;
    let skill = call(
        &app,
        &t,
        "POST",
        "/api/v1/admin/skills",
        Some(json!({"name": "Guide"})),
    )
    .await
    .str("id")
    .to_owned();
    let grant = call(
        &app,
        &t,
        "POST",
        "/api/v1/admin/skills/assign",
        Some(json!({"skillId": skill, "resourceId": theirs})),
    )
    .await;
    grant.assert_status(404);
    call(
        &app,
        &t,
        "GET",
        &format!("/api/v1/admin/skills/resources/{theirs}"),
        None,
    )
    .await
    .assert_status(404);
    // Their tenant does not see our skill either.
    call(
        &app,
        &other,
        "GET",
        &format!("/api/v1/admin/skills/{skill}"),
        None,
    )
    .await
    .assert_status(404);
    let group = call(
        &app,
        &t,
        "POST",
        "/api/v1/admin/resource-groups",
        Some(json!({"siteId": site, "name": "Guides"})),
    )
    .await
    .str("id")
    .to_owned();
    call(
        &app,
        &t,
        "POST",
        "/api/v1/admin/resource-groups/assign",
        Some(json!({"groupId": group, "resourceId": theirs})),
    )
    .await
    .assert_status(404);
    let path = format!("/api/v1/admin/resource-groups/resources/{theirs}/effective-policies");
    call(&app, &t, "GET", &path, None).await.assert_status(404);
    let held = call(
        &app,
        &other,
        "GET",
        &format!("/api/v1/admin/skills/resources/{theirs}"),
        None,
    )
    .await;
    assert_eq!(held.body["items"], json!([]), "{}", held.text);
}
