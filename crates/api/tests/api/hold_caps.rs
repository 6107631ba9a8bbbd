//! Caps on concurrent holds: one customer (email or account) and one client address may
//! hold only so many bookings at once in a tenant, so that nobody can hold a week of
//! slots; staff are not capped.

use kairos_testkit::{BookingFixture, TenantFixture, TestApp, TestResponse, http};
use serde_json::{Value, json};

fn hold_body(fx: &BookingFixture, slot: &str, email: &str) -> Value {
    json!({
        "siteId": fx.catalog.site_id, "productId": fx.catalog.product_id,
        "slotId": slot, "partySize": 1,
        "customer": {"name": "Guest", "email": email}
    })
}

async fn hold(
    app: &TestApp,
    t: &TenantFixture,
    fx: &BookingFixture,
    slot: usize,
    email: &str,
) -> TestResponse {
    app.hold_for(&t.id, &fx.catalog, &fx.slots[slot], 1, email)
        .await
}

fn assert_capped(res: &TestResponse, scope: &str, limit: u64) {
    res.assert_status(409);
    assert_eq!(res.body["error"], "HOLD_LIMIT_REACHED", "{}", res.text);
    assert_eq!(res.body["details"]["scope"], scope, "{}", res.text);
    assert_eq!(res.body["details"]["limit"], limit, "{}", res.text);
}

#[tokio::test]
async fn one_customer_holds_at_most_the_cap_at_once() {
    let app = TestApp::builder().hold_caps(3, 0).spawn().await;
    let t = app.tenant("acme").await;
    let fx = app.bookable(&t).await;
    for slot in 0..3 {
        hold(&app, &t, &fx, slot, "ada@example.com")
            .await
            .assert_status(200);
    }
    let refused = hold(&app, &t, &fx, 3, "ada@example.com").await;
    assert_capped(&refused, "customer", 3);
    assert!(
        refused.body["message"]
            .as_str()
            .unwrap_or("")
            .contains("confirm or cancel"),
        "the message says what to do: {}",
        refused.text
    );
    // The same address spelled otherwise is the same customer.
    assert_capped(
        &hold(&app, &t, &fx, 3, "ADA@Example.com").await,
        "customer",
        3,
    );
    // Somebody else is not affected, nor are staff booking for Ada.
    hold(&app, &t, &fx, 3, "grace@example.com")
        .await
        .assert_status(200);
    app.post("/api/v1/bookings/hold")
        .tenant(&t.id)
        .token(&t.owner_token)
        .json(hold_body(&fx, &fx.slots[3], "ada@example.com"))
        .send()
        .await
        .assert_status(200);
    // Another tenant counts its own holds.
    let other = app.tenant("other").await;
    let other_fx = app.bookable(&other).await;
    hold(&app, &other, &other_fx, 0, "ada@example.com")
        .await
        .assert_status(200);
    // Expired holds no longer count.
    app.clock.advance(chrono::Duration::minutes(20));
    hold(&app, &t, &fx, 0, "ada@example.com")
        .await
        .assert_status(200);
    app.assert_capacity_invariant(&t.id).await;
}

#[tokio::test]
async fn a_signed_in_customer_is_capped_by_account_whatever_email_they_give() {
    let app = TestApp::builder().hold_caps(2, 0).spawn().await;
    let t = app.tenant("acme").await;
    let fx = app.bookable(&t).await;
    let token = app.customer_token(&t.id, "member@example.com").await;
    for (slot, email) in [(0, "one@example.com"), (1, "two@example.com")] {
        app.post("/api/v1/bookings/hold")
            .tenant(&t.id)
            .token(&token)
            .json(hold_body(&fx, &fx.slots[slot], email))
            .send()
            .await
            .assert_status(200);
    }
    let res = app
        .post("/api/v1/bookings/hold")
        .tenant(&t.id)
        .token(&token)
        .json(hold_body(&fx, &fx.slots[2], "three@example.com"))
        .send()
        .await;
    assert_capped(&res, "customer", 2);
}

#[tokio::test]
async fn an_account_and_anonymous_holds_under_its_email_count_together() {
    let app = TestApp::builder().hold_caps(2, 0).spawn().await;
    let t = app.tenant("acme").await;
    let fx = app.bookable(&t).await;
    let token = app.customer_token(&t.id, "member@example.com").await;
    app.post("/api/v1/bookings/hold")
        .tenant(&t.id)
        .token(&token)
        .json(hold_body(&fx, &fx.slots[0], "member@example.com"))
        .send()
        .await
        .assert_status(200);
    hold(&app, &t, &fx, 1, "member@example.com")
        .await
        .assert_status(200);
    assert_capped(
        &hold(&app, &t, &fx, 2, "member@example.com").await,
        "customer",
        2,
    );
    let res = app
        .post("/api/v1/bookings/hold")
        .tenant(&t.id)
        .token(&token)
        .json(hold_body(&fx, &fx.slots[2], "member@example.com"))
        .send()
        .await;
    assert_capped(&res, "customer", 2);
}

#[tokio::test]
async fn parallel_holds_of_one_customer_do_not_slip_past_the_cap() {
    let app = TestApp::builder().hold_caps(3, 0).spawn().await;
    let t = app.tenant("acme").await;
    let fx = app.bookable(&t).await;
    let tries = (0..12).map(|i| hold(&app, &t, &fx, i % 4, "ada@example.com"));
    let answers = futures::future::join_all(tries).await;
    let held = answers.iter().filter(|r| r.status == 200).count();
    let capped = answers
        .iter()
        .filter(|r| r.status == 409 && r.body["error"] == "HOLD_LIMIT_REACHED")
        .count();
    assert_eq!((held, capped), (3, 9), "exactly the cap is held");
}

#[tokio::test]
async fn one_client_address_holds_at_most_the_cap_at_once() {
    let app = TestApp::builder().hold_caps(0, 3).spawn().await;
    let t = app.tenant("acme").await;
    let fx = app.bookable(&t).await;
    let addr = app.serve().await;
    let tenant = [("x-tenant-id", t.id.as_str())];
    for (slot, email) in ["a@example.com", "b@example.com", "c@example.com"]
        .iter()
        .enumerate()
    {
        let body = hold_body(&fx, &fx.slots[slot], email);
        let (status, body) = http(addr, "POST", "/api/v1/bookings/hold", &tenant, Some(body)).await;
        assert_eq!(status, 200, "{body}");
    }
    let body = hold_body(&fx, &fx.slots[3], "d@example.com");
    let (status, body) = http(addr, "POST", "/api/v1/bookings/hold", &tenant, Some(body)).await;
    assert_eq!(status, 409, "{body}");
    assert_eq!(body["error"], "HOLD_LIMIT_REACHED");
    assert_eq!(body["details"]["scope"], "address");
    // Staff at the same address are not capped.
    let bearer = format!("Bearer {}", t.owner_token);
    let staff = [
        ("x-tenant-id", t.id.as_str()),
        ("authorization", bearer.as_str()),
    ];
    let body = hold_body(&fx, &fx.slots[3], "d@example.com");
    let (status, body) = http(addr, "POST", "/api/v1/bookings/hold", &staff, Some(body)).await;
    assert_eq!(status, 200, "{body}");
}
