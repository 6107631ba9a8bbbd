//! Customer booking history for staff (`/api/v1/admin/customers/{identifier}/bookings`)
//! and the customer's own bookings (`/api/v1/customers/me/bookings`).

use kairos_domain::TenantId;
use kairos_domain::auth::Role;
use kairos_domain::bookings::BookingStatus;
use kairos_store::{Actor, BookingAction};
use kairos_testkit::{BookingFixture, TenantFixture, TestApp, TestResponse};
use serde_json::{Value, json};

const UNKNOWN: &str = "01890000-0000-7000-8000-000000000000";

async fn setup() -> (TestApp, TenantFixture, BookingFixture) {
    let app = TestApp::spawn().await;
    let t = app.tenant("acme").await;
    let fx = app.bookable(&t).await;
    app.sandbox_cardpay(&t).await;
    (app, t, fx)
}

/// An anonymous hold for `customer`.
async fn hold_for(
    app: &TestApp,
    t: &TenantFixture,
    fx: &BookingFixture,
    slot: &str,
    party: u32,
    customer: Value,
) -> TestResponse {
    let res = app
        .post("/api/v1/bookings/hold")
        .tenant(&t.id)
        .json(
            json!({"siteId": fx.catalog.site_id, "productId": fx.catalog.product_id,
                     "slotId": slot, "partySize": party, "customer": customer}),
        )
        .send()
        .await;
    res.assert_status(200);
    res
}

/// A hold made by a signed-in customer.
async fn my_hold(
    app: &TestApp,
    t: &TenantFixture,
    fx: &BookingFixture,
    token: &str,
    slot: &str,
    party: u32,
    customer: Option<Value>,
) -> TestResponse {
    let mut body = json!({"siteId": fx.catalog.site_id, "productId": fx.catalog.product_id,
                          "slotId": slot, "partySize": party});
    if let Some(c) = customer {
        body["customer"] = c;
    }
    let res = app
        .post("/api/v1/bookings/hold")
        .tenant(&t.id)
        .token(token)
        .json(body)
        .send()
        .await;
    res.assert_status(200);
    res
}

/// Confirms a hold through its booking token: online (confirmed) or pay on arrival
/// (tentative).
async fn confirm(app: &TestApp, t: &TenantFixture, hold: &TestResponse, online: bool) {
    let body = if online {
        json!({"pricingHash": hold.str("pricingHash"), "paymentMethod": "cardpay"})
    } else {
        json!({"pricingHash": hold.str("pricingHash"), "paymentMethod": "poa"})
    };
    let res = app
        .post(&format!("/api/v1/bookings/{}/confirm", hold.str("id")))
        .tenant(&t.id)
        .header("x-booking-token", hold.str("bookingToken"))
        .json(body)
        .send()
        .await;
    res.assert_status(200);
    assert_eq!(
        res.body["status"],
        if online { "confirmed" } else { "tentative" }
    );
}

async fn cancel(app: &TestApp, t: &TenantFixture, token: &str, id: &str) {
    let res = app
        .post(&format!("/api/v1/bookings/{id}/cancel"))
        .tenant(&t.id)
        .token(token)
        .send()
        .await;
    res.assert_status(200);
    assert_eq!(res.body["status"], "canceled");
}

/// Confirmed → arrived (API) → completed (status machine, as the admin status change does).
async fn complete(app: &TestApp, t: &TenantFixture, id: &str) {
    let res = app
        .post(&format!("/api/v1/bookings/{id}/mark-arrived"))
        .tenant(&t.id)
        .token(&t.owner_token)
        .send()
        .await;
    res.assert_status(200);
    let tenant = TenantId::parse(&t.id).unwrap_or_else(|e| panic!("{e}"));
    let uuid = uuid::Uuid::parse_str(id).unwrap_or_else(|e| panic!("{e}"));
    let b = app
        .store
        .apply_booking_action(
            &tenant,
            uuid,
            BookingAction::SetStatus {
                status: BookingStatus::Completed,
                reason: None,
                admin_notes: None,
            },
            &Actor::system("test"),
            app.clock_now(),
            None,
        )
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let kairos_store::Written::Done(b) = b else {
        panic!("a replay without an Idempotency-Key")
    };
    assert_eq!(b.status, BookingStatus::Completed);
}

async fn history(
    app: &TestApp,
    t: &TenantFixture,
    token: &str,
    identifier: &str,
    query: &str,
) -> TestResponse {
    app.get(&format!(
        "/api/v1/admin/customers/{identifier}/bookings{query}"
    ))
    .tenant(&t.id)
    .token(token)
    .send()
    .await
}

fn ids(res: &TestResponse, key: &str, id_field: &str) -> Vec<String> {
    res.body[key]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|b| b[id_field].as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

fn statuses(res: &TestResponse) -> Vec<String> {
    let mut s: Vec<String> = res.body["bookings"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|b| b["status"].as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default();
    s.sort();
    s
}

const ADA: &str = "+358 40 123 4567";

/// Ada's six bookings (one expired, one canceled, one confirmed, one hold, one tentative,
/// one completed) and one of Bob's. Returns (booking ids by letter, bob's id).
struct Scenario {
    expired: String,
    canceled: String,
    confirmed: String,
    held: String,
    tentative: String,
    completed: String,
    bob: String,
}

async fn scenario(app: &TestApp, t: &TenantFixture, fx: &BookingFixture) -> Scenario {
    let e = app.hold(&t.id, fx, &fx.slots[0], 1).await;
    e.assert_status(200);
    app.clock.advance(chrono::Duration::minutes(16));
    let expired = app
        .store
        .expire_overdue_holds(app.clock_now(), 100)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(expired, 1);
    let a = app.hold(&t.id, fx, &fx.slots[0], 2).await;
    a.assert_status(200);
    cancel(app, t, &t.owner_token, a.str("id")).await;
    let b = app.hold(&t.id, fx, &fx.slots[1], 3).await;
    b.assert_status(200);
    confirm(app, t, &b, true).await;
    let c = app.hold(&t.id, fx, &fx.slots[2], 1).await;
    c.assert_status(200);
    let d = app.hold(&t.id, fx, &fx.slots[3], 4).await;
    d.assert_status(200);
    confirm(app, t, &d, false).await;
    // The most recently made booking carries another name for the same email.
    app.clock.advance(chrono::Duration::seconds(1));
    let f = hold_for(
        app,
        t,
        fx,
        &fx.slots[1],
        2,
        json!({"name": "Ada King", "email": "ada@example.com", "phone": ADA}),
    )
    .await;
    confirm(app, t, &f, true).await;
    complete(app, t, f.str("id")).await;
    let bob = hold_for(
        app,
        t,
        fx,
        &fx.slots[2],
        1,
        json!({"name": "Bob", "email": "bob@example.com", "phone": "+358 50 999 0000"}),
    )
    .await;
    Scenario {
        expired: e.str("id").to_owned(),
        canceled: a.str("id").to_owned(),
        confirmed: b.str("id").to_owned(),
        held: c.str("id").to_owned(),
        tentative: d.str("id").to_owned(),
        completed: f.str("id").to_owned(),
        bob: bob.str("id").to_owned(),
    }
}

#[tokio::test]
async fn history_summarizes_every_booking_of_the_customer() {
    let (app, t, fx) = setup().await;
    let s = scenario(&app, &t, &fx).await;
    app.post(&format!("/api/v1/admin/bookings/{}/notes", s.confirmed))
        .tenant(&t.id)
        .token(&t.owner_token)
        .json(json!({"content": "VIP", "priority": "high"}))
        .send()
        .await
        .assert_status(200);

    let res = history(&app, &t, &t.owner_token, "ada@example.com", "").await;
    res.assert_status(200);
    let c = &res.body["customer"];
    assert_eq!(c["identifier"], "ada@example.com");
    assert_eq!(
        c["name"], "Ada King",
        "the most recently made booking's name"
    );
    assert_eq!(c["totalBookings"], 6);
    // confirmed 60 + tentative 80 + completed 40; not the hold, canceled or expired ones.
    assert_eq!(c["lifetimeValue"], 180.0);
    assert_eq!(c["currency"], "EUR");
    assert_eq!(c["firstBookingDate"], "2026-11-22T08:00:00Z");
    assert_eq!(c["lastBookingDate"], "2026-11-22T11:00:00Z");
    let st = &res.body["statistics"];
    assert_eq!(st["completedBookings"], 1);
    assert_eq!(st["cancelledBookings"], 1);
    assert_eq!(st["noShows"], 0);
    // (2 + 3 + 1 + 4 + 2) / 5: the expired hold does not count.
    assert_eq!(st["averagePartySize"], 2.4);
    assert_eq!(st["averageBookingValue"], 60.0);
    assert_eq!(st["favoriteProduct"], "Climbing session");
    assert_eq!(st["favoriteSite"], "Main hall");

    // Default filters: completed listed, canceled and expired not; newest start first.
    let listed = ids(&res, "bookings", "bookingId");
    assert_eq!(listed.len(), 4, "{}", res.text);
    assert_eq!(listed[0], s.tentative);
    assert_eq!(listed[1], s.held);
    for id in [&s.confirmed, &s.completed] {
        assert!(listed.contains(id), "{id} in {listed:?}");
    }
    assert!(!listed.contains(&s.bob));
    assert_eq!(
        statuses(&res),
        vec!["completed", "confirmed", "hold", "tentative"]
    );
    let first = &res.body["bookings"][0];
    assert_eq!(first["status"], "tentative");
    assert_eq!(first["startTime"], "2026-11-22T11:00:00Z");
    assert_eq!(first["product"], "Climbing session");
    assert_eq!(first["site"], "Main hall");
    assert_eq!(first["partySize"], 4);
    assert_eq!(first["total"], 80.0);
    assert_eq!(first["bookingReference"].as_str().map(str::len), Some(8));
    assert_eq!(first["notes"], json!([]));
    let vip = res.body["bookings"]
        .as_array()
        .and_then(|a| a.iter().find(|b| b["bookingId"] == s.confirmed.as_str()))
        .cloned()
        .unwrap_or_default();
    assert_eq!(vip["notes"].as_array().map(Vec::len), Some(1));
    assert_eq!(vip["notes"][0]["content"], "VIP");
    assert_eq!(vip["notes"][0]["priority"], "high");
    assert_eq!(vip["notes"][0]["bookingId"], s.confirmed.as_str());
    assert_eq!(vip["total"], 60.0);

    // Filters and limit change the list, never the summary or statistics.
    let res = history(
        &app,
        &t,
        &t.owner_token,
        "ada@example.com",
        "?includeCompleted=false",
    )
    .await;
    res.assert_status(200);
    assert_eq!(statuses(&res), vec!["confirmed", "hold", "tentative"]);
    assert_eq!(res.body["customer"]["totalBookings"], 6);
    assert_eq!(res.body["statistics"]["completedBookings"], 1);

    let res = history(
        &app,
        &t,
        &t.owner_token,
        "ada@example.com",
        "?includeCancelled=true",
    )
    .await;
    res.assert_status(200);
    assert_eq!(
        statuses(&res),
        vec![
            "canceled",
            "completed",
            "confirmed",
            "expired",
            "hold",
            "tentative"
        ]
    );
    let listed = ids(&res, "bookings", "bookingId");
    assert!(listed.contains(&s.canceled) && listed.contains(&s.expired));

    let res = history(
        &app,
        &t,
        &t.owner_token,
        "ada@example.com",
        "?includeCancelled=true&includeCompleted=false",
    )
    .await;
    res.assert_status(200);
    assert_eq!(
        statuses(&res),
        vec!["canceled", "confirmed", "expired", "hold", "tentative"]
    );

    let res = history(&app, &t, &t.owner_token, "ada@example.com", "?limit=2").await;
    res.assert_status(200);
    assert_eq!(
        ids(&res, "bookings", "bookingId"),
        vec![s.tentative.clone(), s.held.clone()]
    );
    assert_eq!(res.body["customer"]["totalBookings"], 6);
    assert_eq!(res.body["customer"]["lifetimeValue"], 180.0);
    assert_eq!(res.body["statistics"]["averagePartySize"], 2.4);

    // The same customer by email in another case and by phone number.
    let res = history(&app, &t, &t.owner_token, "ADA@Example.COM", "").await;
    res.assert_status(200);
    assert_eq!(res.body["customer"]["identifier"], "ada@example.com");
    assert_eq!(res.body["customer"]["totalBookings"], 6);
    for phone in ["%2B358%2040%20123%204567", "358-40-123-4567"] {
        let res = history(&app, &t, &t.owner_token, phone, "").await;
        res.assert_status(200);
        assert_eq!(res.body["customer"]["totalBookings"], 6, "{phone}");
        assert_eq!(res.body["customer"]["lifetimeValue"], 180.0);
        assert!(!ids(&res, "bookings", "bookingId").contains(&s.bob));
    }

    // Bob is a customer of his own.
    let res = history(&app, &t, &t.owner_token, "bob@example.com", "").await;
    res.assert_status(200);
    assert_eq!(res.body["customer"]["name"], "Bob");
    assert_eq!(res.body["customer"]["totalBookings"], 1);
    assert_eq!(res.body["customer"]["lifetimeValue"], 0.0);
    assert_eq!(res.body["statistics"]["averageBookingValue"], 0.0);
    assert_eq!(res.body["statistics"]["averagePartySize"], 1.0);
    assert_eq!(ids(&res, "bookings", "bookingId"), vec![s.bob.clone()]);
}

#[tokio::test]
async fn history_by_customer_account_includes_its_email_bookings() {
    let (app, t, fx) = setup().await;
    // Made before the account existed, with the same email.
    let anonymous = app.hold(&t.id, &fx, &fx.slots[0], 2).await;
    anonymous.assert_status(200);
    let token = app.customer_token(&t.id, "ada@example.com").await;
    let me = app
        .get("/api/v1/customers/me")
        .tenant(&t.id)
        .token(&token)
        .send()
        .await;
    me.assert_status(200);
    let account = me.str("id").to_owned();
    let signed_in = my_hold(&app, &t, &fx, &token, &fx.slots[1], 1, None).await;
    // Signed in, but booked under another email and name; made last.
    app.clock.advance(chrono::Duration::seconds(1));
    let alias = my_hold(
        &app,
        &t,
        &fx,
        &token,
        &fx.slots[2],
        3,
        Some(json!({"name": "Ada Alias", "email": "alias@example.com"})),
    )
    .await;
    let expected = {
        let mut v = vec![
            anonymous.str("id").to_owned(),
            signed_in.str("id").to_owned(),
            alias.str("id").to_owned(),
        ];
        v.sort();
        v
    };

    for identifier in [account.as_str(), "ada@example.com"] {
        let res = history(&app, &t, &t.owner_token, identifier, "").await;
        res.assert_status(200);
        let mut listed = ids(&res, "bookings", "bookingId");
        listed.sort();
        assert_eq!(listed, expected, "{identifier}");
        assert_eq!(res.body["customer"]["identifier"], identifier);
        assert_eq!(res.body["customer"]["totalBookings"], 3);
        assert_eq!(res.body["customer"]["name"], "Ada Alias");
        assert_eq!(res.body["customer"]["lifetimeValue"], 0.0, "only holds");
        assert_eq!(res.body["statistics"]["averagePartySize"], 2.0);
    }
    // The alias email alone finds only that booking.
    let res = history(&app, &t, &t.owner_token, "alias@example.com", "").await;
    res.assert_status(200);
    assert_eq!(
        ids(&res, "bookings", "bookingId"),
        vec![alias.str("id").to_owned()]
    );

    // An account without bookings is found, with empty statistics.
    let lonely = app.customer_token(&t.id, "lonely@example.com").await;
    let lonely_id = app
        .get("/api/v1/customers/me")
        .tenant(&t.id)
        .token(&lonely)
        .send()
        .await
        .str("id")
        .to_owned();
    for identifier in ["lonely@example.com", lonely_id.as_str()] {
        let res = history(&app, &t, &t.owner_token, identifier, "").await;
        res.assert_status(200);
        assert_eq!(res.body["customer"]["name"], "Test Customer");
        assert_eq!(res.body["customer"]["totalBookings"], 0);
        assert_eq!(res.body["customer"]["lifetimeValue"], 0.0);
        assert_eq!(res.body["customer"]["firstBookingDate"], Value::Null);
        assert_eq!(res.body["customer"]["lastBookingDate"], Value::Null);
        assert_eq!(res.body["bookings"], json!([]));
        assert_eq!(
            res.body["statistics"],
            json!({"completedBookings": 0, "cancelledBookings": 0, "noShows": 0,
                   "averagePartySize": 0.0, "averageBookingValue": 0.0,
                   "favoriteProduct": null, "favoriteSite": null})
        );
    }

    // Nobody: unknown email, account id, phone or text.
    for identifier in ["ghost@example.com", UNKNOWN, "%2B1%20555%200100", "nobody"] {
        history(&app, &t, &t.owner_token, identifier, "")
            .await
            .assert_error(404, "NOT_FOUND");
    }
}

#[tokio::test]
async fn history_validates_its_query_and_needs_staff_of_the_tenant() {
    let (app, t, fx) = setup().await;
    app.hold(&t.id, &fx, &fx.slots[0], 2)
        .await
        .assert_status(200);
    for (query, fields) in [
        ("?limit=0", vec!["limit"]),
        ("?limit=101", vec!["limit"]),
        ("?limit=ten", vec!["limit"]),
        ("?includeCompleted=yes", vec!["includeCompleted"]),
        ("?includeCancelled=2", vec!["includeCancelled"]),
        (
            "?includeCompleted=no&includeCancelled=no&limit=-1",
            vec!["includeCompleted", "includeCancelled", "limit"],
        ),
    ] {
        let res = history(&app, &t, &t.owner_token, "ada@example.com", query).await;
        res.assert_error(400, "VALIDATION_ERROR");
        assert_eq!(res.error_fields(), fields, "{query}");
    }
    for query in [
        "?limit=1",
        "?limit=100",
        "?includeCompleted=true&includeCancelled=false",
    ] {
        history(&app, &t, &t.owner_token, "ada@example.com", query)
            .await
            .assert_status(200);
    }

    // Every staff role holds admin:customers:read, the viewer included.
    app.staff(&t.id, "viewer", "viewer-password-1", &[Role::Viewer])
        .await;
    let viewer = app.admin_token(&t.id, "viewer", "viewer-password-1").await;
    let res = history(&app, &t, &viewer, "ada@example.com", "").await;
    res.assert_status(200);
    assert_eq!(res.body["customer"]["totalBookings"], 1);

    app.get("/api/v1/admin/customers/ada@example.com/bookings")
        .tenant(&t.id)
        .send()
        .await
        .assert_error(401, "UNAUTHORIZED");
    let customer = app.customer_token(&t.id, "ada@example.com").await;
    history(&app, &t, &customer, "ada@example.com", "")
        .await
        .assert_error(403, "INSUFFICIENT_PERMISSIONS");

    // Another tenant knows no such customer.
    let other = app.tenant("other").await;
    history(&app, &other, &other.owner_token, "ada@example.com", "")
        .await
        .assert_error(404, "NOT_FOUND");
    history(
        &app,
        &other,
        &other.owner_token,
        "%2B358%2040%20123%204567",
        "",
    )
    .await
    .assert_error(404, "NOT_FOUND");
}

// ─────────────────────────── /customers/me/bookings ───────────────────────────

async fn mine(app: &TestApp, t: &TenantFixture, token: &str, query: &str) -> TestResponse {
    app.get(&format!("/api/v1/customers/me/bookings{query}"))
        .tenant(&t.id)
        .token(token)
        .send()
        .await
}

/// Bob's three bookings, all made signed in: held (2026-11-23), tentative and canceled
/// (2026-11-22); plus bookings that are not his (anonymous ones with his email, before and
/// after he registered, and another customer's). Returns (bob's token, [held, tentative, canceled]).
async fn bobs_bookings(
    app: &TestApp,
    t: &TenantFixture,
    fx: &BookingFixture,
) -> (String, [String; 3]) {
    let res = app
        .availability(&t.id, &fx.catalog, "2026-11-23", "2026-11-23", 1)
        .await;
    res.assert_status(200);
    let first = &res.body["slots"][0];
    let day_after = first["slotId"]
        .as_str()
        .or_else(|| first["slot_id"].as_str())
        .unwrap_or_else(|| panic!("slots on 2026-11-23: {}", res.text))
        .to_owned();
    // Made with Bob's email before he registered: not linked to his account.
    hold_for(
        app,
        t,
        fx,
        &fx.slots[0],
        1,
        json!({"name": "Bob", "email": "bob@example.com"}),
    )
    .await;
    let bob = app.customer_token(&t.id, "bob@example.com").await;
    let tentative = my_hold(app, t, fx, &bob, &fx.slots[1], 2, None).await;
    confirm(app, t, &tentative, false).await;
    let canceled = my_hold(app, t, fx, &bob, &fx.slots[2], 1, None).await;
    cancel(app, t, &bob, canceled.str("id")).await;
    let held = my_hold(app, t, fx, &bob, &day_after, 1, None).await;
    // Made without signing in, with his email, after he registered: still not his, or
    // anyone could put bookings into his account.
    hold_for(
        app,
        t,
        fx,
        &fx.slots[3],
        1,
        json!({"name": "Bob", "email": "bob@example.com"}),
    )
    .await;
    // Another customer's.
    let eve = app.customer_token(&t.id, "eve@example.com").await;
    my_hold(app, t, fx, &eve, &fx.slots[0], 1, None).await;
    (
        bob,
        [
            held.str("id").to_owned(),
            tentative.str("id").to_owned(),
            canceled.str("id").to_owned(),
        ],
    )
}

#[tokio::test]
async fn my_bookings_lists_only_mine_newest_first_in_pages() {
    let (app, t, fx) = setup().await;
    let (bob, [held, tentative, canceled]) = bobs_bookings(&app, &t, &fx).await;

    let res = mine(&app, &t, &bob, "").await;
    res.assert_status(200);
    assert_eq!(
        ids(&res, "bookings", "id"),
        vec![held.clone(), canceled.clone(), tentative.clone()]
    );
    assert_eq!(
        res.body["pagination"],
        json!({"page": 1, "limit": 20, "total": 3, "totalPages": 1})
    );
    let first = &res.body["bookings"][0];
    assert_eq!(first["status"], "hold");
    assert_eq!(first["customer"]["email"], "bob@example.com");
    assert_eq!(first["startTime"], "2026-11-23T08:00:00Z");
    assert_eq!(first["price"]["total"], 20.0);
    assert!(
        first.get("bookingToken").is_none(),
        "never the booking token"
    );

    for (page, expected) in [(1, &held), (2, &canceled), (3, &tentative)] {
        let res = mine(&app, &t, &bob, &format!("?limit=1&page={page}")).await;
        res.assert_status(200);
        assert_eq!(
            ids(&res, "bookings", "id"),
            vec![expected.clone()],
            "page {page}"
        );
        assert_eq!(
            res.body["pagination"],
            json!({"page": page, "limit": 1, "total": 3, "totalPages": 3})
        );
    }
    let res = mine(&app, &t, &bob, "?limit=2&page=2").await;
    assert_eq!(ids(&res, "bookings", "id"), vec![tentative.clone()]);
    assert_eq!(res.body["pagination"]["totalPages"], 2);
    let res = mine(&app, &t, &bob, "?limit=1&page=4").await;
    res.assert_status(200);
    assert_eq!(res.body["bookings"], json!([]));
    assert_eq!(res.body["pagination"]["total"], 3);

    // A customer without bookings gets an empty first page.
    let carol = app.customer_token(&t.id, "carol@example.com").await;
    let res = mine(&app, &t, &carol, "").await;
    res.assert_status(200);
    assert_eq!(
        res.body,
        json!({"bookings": [], "pagination": {"page": 1, "limit": 20, "total": 0, "totalPages": 0}})
    );
}

#[tokio::test]
async fn my_bookings_filter_by_status_and_start_day() {
    let (app, t, fx) = setup().await;
    let (bob, [held, tentative, canceled]) = bobs_bookings(&app, &t, &fx).await;
    for (query, expected) in [
        ("?status=hold&status=tentative", vec![&held, &tentative]),
        (
            "?status=tentative&status=hold&status=hold",
            vec![&held, &tentative],
        ),
        ("?status=canceled", vec![&canceled]),
        ("?status=hold,canceled", vec![&held, &canceled]),
        ("?status=paid", vec![]),
        ("?from=2026-11-23", vec![&held]),
        ("?to=2026-11-22", vec![&canceled, &tentative]),
        (
            "?from=2026-11-22&to=2026-11-22",
            vec![&canceled, &tentative],
        ),
        (
            "?from=2026-11-22&to=2026-11-23",
            vec![&held, &canceled, &tentative],
        ),
        ("?from=2026-11-24", vec![]),
        ("?to=2026-11-21", vec![]),
        (
            "?status=canceled&status=tentative&from=2026-11-22&to=2026-11-22&limit=1",
            vec![&canceled],
        ),
    ] {
        let res = mine(&app, &t, &bob, query).await;
        res.assert_status(200);
        let expected: Vec<String> = expected.into_iter().cloned().collect();
        if query.ends_with("limit=1") {
            assert_eq!(res.body["pagination"]["total"], 2, "{query}");
            assert_eq!(res.body["pagination"]["totalPages"], 2, "{query}");
        } else {
            assert_eq!(res.body["pagination"]["total"], expected.len(), "{query}");
        }
        assert_eq!(ids(&res, "bookings", "id"), expected, "{query}");
    }
}

#[tokio::test]
async fn my_bookings_validates_its_query_and_needs_a_customer_token() {
    let (app, t, fx) = setup().await;
    let (bob, _) = bobs_bookings(&app, &t, &fx).await;
    for (query, fields) in [
        ("?status=bogus", vec!["status"]),
        ("?status=hold&status=HOLD", vec!["status"]),
        ("?from=22-11-2026", vec!["from"]),
        ("?to=2026-13-01", vec!["to"]),
        ("?from=2026-11-23&to=2026-11-22", vec!["to"]),
        ("?page=0", vec!["page"]),
        ("?page=two", vec!["page"]),
        ("?limit=0", vec!["limit"]),
        ("?limit=101", vec!["limit"]),
        (
            "?status=x&from=x&to=y&page=-1&limit=1000",
            vec!["status", "from", "to", "page", "limit"],
        ),
    ] {
        let res = mine(&app, &t, &bob, query).await;
        res.assert_error(400, "VALIDATION_ERROR");
        assert_eq!(res.error_fields(), fields, "{query}");
    }
    mine(&app, &t, &bob, "?limit=100&page=1")
        .await
        .assert_status(200);

    app.get("/api/v1/customers/me/bookings")
        .tenant(&t.id)
        .send()
        .await
        .assert_error(401, "UNAUTHORIZED");
    mine(&app, &t, &t.owner_token, "")
        .await
        .assert_error(403, "INSUFFICIENT_PERMISSIONS");
    let other = app.tenant("other").await;
    mine(&app, &other, &bob, "")
        .await
        .assert_error(403, "TENANT_MISMATCH");
    // The other tenant's customers have bookings of their own only.
    let stranger = app.customer_token(&other.id, "bob@example.com").await;
    let res = mine(&app, &other, &stranger, "").await;
    res.assert_status(200);
    assert_eq!(res.body["pagination"]["total"], 0);
}

#[tokio::test]
async fn the_endpoints_are_documented_with_their_parameters() {
    let app = TestApp::spawn().await;
    let res = app.get("/api/openapi.json").send().await;
    res.assert_status(200);
    let params = |path: &str, method: &str| -> Vec<String> {
        res.body["paths"][path][method]["parameters"]
            .as_array()
            .map(|a| {
                a.iter()
                    .map(|p| match p["$ref"].as_str() {
                        // "#/components/parameters/TenantId" → the component.
                        Some(r) => {
                            &res.body["components"]["parameters"]
                                [r.rsplit('/').next().unwrap_or_default()]
                        }
                        None => p,
                    })
                    .filter_map(|p| p["name"].as_str().map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default()
    };
    let history = "/api/v1/admin/customers/{identifier}/bookings";
    assert_eq!(
        params(history, "get"),
        vec![
            "x-tenant-id",
            "identifier",
            "includeCompleted",
            "includeCancelled",
            "limit"
        ]
    );
    assert_eq!(
        res.body["paths"][history]["get"]["tags"],
        json!(["admin-bookings"])
    );
    let mine = "/api/v1/customers/me/bookings";
    assert_eq!(
        params(mine, "get"),
        vec!["x-tenant-id", "status", "from", "to", "page", "limit"]
    );
    assert_eq!(res.body["paths"][mine]["get"]["tags"], json!(["customers"]));
    for (path, method, codes) in [
        (history, "get", &["200", "400", "401", "403", "404"][..]),
        (mine, "get", &["200", "400", "401", "403"][..]),
        (
            "/api/v1/admin/bookings/{bookingId}/notes",
            "get",
            &["200", "401", "403", "404"][..],
        ),
        (
            "/api/v1/admin/bookings/{bookingId}/notes",
            "post",
            &["200", "400", "401", "403", "404"][..],
        ),
        (
            "/api/v1/admin/bookings/{bookingId}/notes/{noteId}",
            "patch",
            &["200", "400", "401", "403", "404"][..],
        ),
        (
            "/api/v1/admin/bookings/{bookingId}/notes/{noteId}",
            "delete",
            &["200", "401", "403", "404"][..],
        ),
    ] {
        let op = &res.body["paths"][path][method];
        for code in codes {
            assert!(
                op["responses"][code].is_object(),
                "{method} {path} documents {code}"
            );
        }
        assert_eq!(op["security"], json!([{"bearer": []}]), "{method} {path}");
    }
}
