//! The day sheet (`GET /api/v1/admin/day-sheet`): a site's day in its time zone, every slot
//! with its seats and bookings, the desk's actions by the status table, and the ETag a
//! polling desk revalidates with.

use kairos_testkit::{BookingFixture, TenantFixture, TestApp, TestResponse};
use serde_json::{Value, json};

async fn venue() -> (TestApp, TenantFixture, BookingFixture) {
    let app = TestApp::builder()
        .limits(kairos_api::rate_limit::Limits::UNLIMITED)
        .spawn()
        .await;
    let t = app.tenant("acme").await;
    let fx = app.bookable(&t).await;
    (app, t, fx)
}

async fn sheet(app: &TestApp, t: &TenantFixture, query: &str) -> TestResponse {
    app.get(&format!("/api/v1/admin/day-sheet?{query}"))
        .tenant(&t.id)
        .token(&t.owner_token)
        .send()
        .await
}

/// A booking for `party` on `slot`, confirmed to pay on arrival: its id.
async fn tentative(
    app: &TestApp,
    t: &TenantFixture,
    fx: &BookingFixture,
    slot: &str,
    party: u32,
) -> String {
    let hold = app.hold(&t.id, fx, slot, party).await;
    hold.assert_status(200);
    app.post(&format!("/api/v1/bookings/{}/confirm", hold.str("id")))
        .tenant(&t.id)
        .header("x-booking-token", hold.str("bookingToken"))
        .json(json!({"pricingHash": hold.str("pricingHash"), "paymentMethod": "poa"}))
        .send()
        .await
        .assert_status(200);
    hold.str("id").to_owned()
}

fn bookings_of(slot: &Value) -> Vec<Value> {
    slot["bookings"].as_array().cloned().unwrap_or_default()
}

#[tokio::test]
async fn the_sheet_has_every_slot_of_the_day_with_its_seats_and_bookings() {
    let (app, t, fx) = venue().await;
    let id = tentative(&app, &t, &fx, &fx.slots[0], 2).await;
    let held = app.hold(&t.id, &fx, &fx.slots[1], 3).await;
    held.assert_status(200);

    let res = sheet(
        &app,
        &t,
        &format!("siteId={}&date=2026-11-22", fx.catalog.site_id),
    )
    .await;
    res.assert_status(200);
    let b = &res.body;
    assert_eq!(b["date"], "2026-11-22");
    assert_eq!(b["timezone"], "Europe/Helsinki");
    assert_eq!(b["currency"], "EUR");
    let products = b["products"].as_array().unwrap();
    assert_eq!(products.len(), 1);
    assert_eq!(products[0]["productId"], fx.catalog.product_id.as_str());
    let slots = products[0]["slots"].as_array().unwrap();
    let ids: Vec<&str> = slots
        .iter()
        .map(|s| s["slotId"].as_str().unwrap())
        .collect();
    assert_eq!(ids, fx.slots.iter().map(String::as_str).collect::<Vec<_>>());
    // 10:00 Helsinki is 08:00 UTC.
    assert_eq!(slots[0]["startTime"], "2026-11-22T08:00:00Z");
    assert_eq!(
        (slots[0]["capacity"].as_i64(), slots[0]["booked"].as_i64()),
        (Some(10), Some(2))
    );
    assert_eq!(slots[0]["available"], 8);

    let first = bookings_of(&slots[0]);
    assert_eq!(first.len(), 1);
    assert_eq!(first[0]["bookingId"], id.as_str());
    assert_eq!(first[0]["status"], "tentative");
    assert_eq!(first[0]["partySize"], 2);
    assert_eq!(first[0]["grandTotal"], 40.0);
    assert_eq!(first[0]["balanceDue"], 40.0);
    assert_eq!(first[0]["paymentMethod"], "poa");
    assert_eq!(
        first[0]["actions"],
        json!(["mark_paid", "mark_no_show", "cancel"])
    );

    // A hold is on the sheet (its seats are taken) and can only be cancelled.
    let second = bookings_of(&slots[1]);
    assert_eq!(second[0]["status"], "hold");
    assert_eq!(second[0]["actions"], json!(["cancel"]));
    assert_eq!(slots[1]["booked"], 3);
    assert!(bookings_of(&slots[2]).is_empty());
    assert_eq!(
        b["totals"],
        json!({"bookings": 2, "guests": 2, "arrived": 0, "noShows": 0})
    );
}

#[tokio::test]
async fn arrivals_no_shows_notes_and_issues_show_on_the_sheet() {
    let (app, t, fx) = venue().await;
    let arrives = tentative(&app, &t, &fx, &fx.slots[0], 2).await;
    let missing = tentative(&app, &t, &fx, &fx.slots[0], 3).await;
    let post = |path: String, body: Value| {
        app.post(&path)
            .tenant(&t.id)
            .token(&t.owner_token)
            .json(body)
    };
    post(format!("/api/v1/bookings/{arrives}/mark-paid"), json!({}))
        .send()
        .await
        .assert_status(200);
    post(
        format!("/api/v1/bookings/{arrives}/mark-arrived"),
        json!({}),
    )
    .send()
    .await
    .assert_status(200);
    post(
        format!("/api/v1/admin/bookings/{missing}/no-show"),
        json!({}),
    )
    .send()
    .await
    .assert_status(200);
    post(
        format!("/api/v1/admin/bookings/{arrives}/notes"),
        json!({"content": "Birthday: bring the cake in at 11", "category": "special_request"}),
    )
    .send()
    .await
    .assert_status(200);
    post(
        "/api/v1/admin/issues".into(),
        json!({"bookingId": arrives, "category": "equipment", "summary": "Helmet strap broken"}),
    )
    .send()
    .await
    .assert_status(200);

    let res = sheet(
        &app,
        &t,
        &format!("siteId={}&date=2026-11-22", fx.catalog.site_id),
    )
    .await;
    res.assert_status(200);
    let slot = &res.body["products"][0]["slots"][0];
    let by_id = |id: &str| {
        bookings_of(slot)
            .into_iter()
            .find(|b| b["bookingId"] == id)
            .unwrap()
    };
    let a = by_id(&arrives);
    assert_eq!(a["status"], "arrived");
    assert_eq!(a["balanceDue"], 0.0);
    assert_eq!(
        (a["notesCount"].as_i64(), a["openIssues"].as_i64()),
        (Some(1), Some(1))
    );
    assert_eq!(a["actions"], json!(["mark_completed", "mark_no_show"]));
    let m = by_id(&missing);
    assert_eq!(m["status"], "no_show");
    assert_eq!(m["actions"], json!(["mark_arrived"]));
    assert_eq!(
        res.body["totals"],
        json!({"bookings": 2, "guests": 2, "arrived": 2, "noShows": 1})
    );
}

#[tokio::test]
async fn the_day_is_the_sites_own_and_defaults_to_today_there() {
    let (app, t, fx) = venue().await;
    tentative(&app, &t, &fx, &fx.slots[0], 2).await;
    // 23:30 UTC on the 21st is 01:30 on the 22nd in Helsinki.
    app.clock.set("2026-11-21T23:30:00Z".parse().unwrap());
    let token = app
        .admin_token(&t.id, &t.owner_username, &t.owner_password)
        .await;
    let res = app
        .get(&format!(
            "/api/v1/admin/day-sheet?siteId={}",
            fx.catalog.site_id
        ))
        .tenant(&t.id)
        .token(&token)
        .send()
        .await;
    res.assert_status(200);
    assert_eq!(res.body["date"], "2026-11-22");
    assert_eq!(res.body["products"][0]["slots"][0]["booked"], 2);
    // The 21st in Helsinki holds none of the 22nd's slots.
    let res = app
        .get(&format!(
            "/api/v1/admin/day-sheet?siteId={}&date=2026-11-21",
            fx.catalog.site_id
        ))
        .tenant(&t.id)
        .token(&token)
        .send()
        .await;
    res.assert_status(200);
    let slots = res.body["products"][0]["slots"].as_array().unwrap();
    assert!(!slots.is_empty());
    for s in slots {
        assert!(
            s["startTime"].as_str().unwrap().starts_with("2026-11-21"),
            "{s}"
        );
        assert_ne!(s["slotId"], fx.slots[0].as_str());
    }
}

#[tokio::test]
async fn a_desk_polling_with_the_etag_gets_304_until_the_sheet_changes() {
    let (app, t, fx) = venue().await;
    let id = tentative(&app, &t, &fx, &fx.slots[0], 2).await;
    let path = format!(
        "/api/v1/admin/day-sheet?siteId={}&date=2026-11-22",
        fx.catalog.site_id
    );
    let first = sheet(
        &app,
        &t,
        &format!("siteId={}&date=2026-11-22", fx.catalog.site_id),
    )
    .await;
    let etag = first.header("etag").unwrap().to_owned();
    app.clock.advance(chrono::Duration::seconds(30));
    let again = app
        .get(&path)
        .tenant(&t.id)
        .token(&t.owner_token)
        .header("if-none-match", &etag)
        .send()
        .await;
    again.assert_status(304);
    assert_eq!(again.header("etag"), Some(etag.as_str()));

    app.post(&format!("/api/v1/bookings/{id}/mark-paid"))
        .tenant(&t.id)
        .token(&t.owner_token)
        .json(json!({}))
        .send()
        .await
        .assert_status(200);
    let changed = app
        .get(&path)
        .tenant(&t.id)
        .token(&t.owner_token)
        .header("if-none-match", &etag)
        .send()
        .await;
    changed.assert_status(200);
    assert_ne!(changed.header("etag"), Some(etag.as_str()));
    assert_eq!(
        changed.body["products"][0]["slots"][0]["bookings"][0]["status"],
        "paid"
    );
}

#[tokio::test]
async fn a_bad_query_is_a_400_and_another_tenants_site_is_not_found() {
    let (app, t, fx) = venue().await;
    let res = sheet(&app, &t, "").await;
    res.assert_error(400, "VALIDATION_ERROR");
    assert_eq!(res.error_fields(), vec!["siteId"]);
    let res = sheet(&app, &t, "siteId=nope&date=22.11.2026").await;
    res.assert_error(400, "VALIDATION_ERROR");
    assert_eq!(res.error_fields(), vec!["siteId", "date"]);
    let res = sheet(
        &app,
        &t,
        &format!("siteId={}&date=2026-02-30", fx.catalog.site_id),
    )
    .await;
    res.assert_error(400, "VALIDATION_ERROR");

    let other = app.tenant("other").await;
    let res = app
        .get(&format!(
            "/api/v1/admin/day-sheet?siteId={}",
            fx.catalog.site_id
        ))
        .tenant(&other.id)
        .token(&other.owner_token)
        .send()
        .await;
    res.assert_error(404, "NOT_FOUND");
}
