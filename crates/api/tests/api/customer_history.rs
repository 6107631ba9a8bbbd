//! Customer booking history for staff (`/api/v1/admin/customers/{identifier}/bookings`):
//! every booking of the customer summarized, by email or by customer account.

use kairos_domain::TenantId;
use kairos_domain::bookings::BookingStatus;
use kairos_store::{Actor, BookingAction};
use kairos_testkit::{BookingFixture, TenantFixture, TestApp, TestResponse};
use serde_json::{Value, json};

const UNKNOWN: &str = "01890000-0000-7000-8000-000000000000";

pub(crate) async fn setup() -> (TestApp, TenantFixture, BookingFixture) {
    let app = TestApp::spawn().await;
    let t = app.tenant("acme").await;
    let fx = app.bookable(&t).await;
    app.sandbox_cardpay(&t).await;
    (app, t, fx)
}

/// An anonymous hold for `customer`.
pub(crate) async fn hold_for(
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
pub(crate) async fn my_hold(
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
pub(crate) async fn confirm(app: &TestApp, t: &TenantFixture, hold: &TestResponse, online: bool) {
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

pub(crate) async fn cancel(app: &TestApp, t: &TenantFixture, token: &str, id: &str) {
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

pub(crate) async fn history(
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

pub(crate) fn ids(res: &TestResponse, key: &str, id_field: &str) -> Vec<String> {
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
