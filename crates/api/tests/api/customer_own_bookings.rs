//! The customer's own bookings (`/api/v1/customers/me/bookings`): only theirs, newest
//! first, in pages, filtered by status and start day, and query validation.

use super::customer_history::{cancel, confirm, hold_for, ids, my_hold, setup};
use kairos_testkit::{BookingFixture, TenantFixture, TestApp, TestResponse};
use serde_json::json;

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
