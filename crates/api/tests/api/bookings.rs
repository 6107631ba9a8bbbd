//! The public booking flow's holds: seats and prices, variants, add-ons and participants,
//! input validation, and access by booking token.

use kairos_testkit::{BookingFixture, TestApp, TestResponse};
use serde_json::json;

pub(crate) async fn setup() -> (TestApp, kairos_testkit::TenantFixture, BookingFixture) {
    let app = TestApp::spawn().await;
    let t = app.tenant("acme").await;
    let fx = app.bookable(&t).await;
    app.sandbox_cardpay(&t).await;
    (app, t, fx)
}

pub(crate) fn token(res: &TestResponse) -> String {
    res.str("bookingToken").to_owned()
}

pub(crate) async fn available(app: &TestApp, t: &str, fx: &BookingFixture, slot: &str) -> i64 {
    let res = app
        .availability(t, &fx.catalog, "2026-11-22", "2026-11-22", 1)
        .await;
    res.body["slots"]
        .as_array()
        .and_then(|a| a.iter().find(|s| s["slotId"] == slot))
        .map(|s| s["availableCapacity"].as_i64().unwrap_or(-1))
        .unwrap_or(0)
}

#[tokio::test]
async fn hold_reserves_seats_and_returns_price_hash_and_token() {
    let (app, t, fx) = setup().await;
    let res = app.hold(&t.id, &fx, &fx.slots[0], 3).await;
    res.assert_status(200);
    assert_eq!(res.body["status"], "hold");
    assert_eq!(res.str("reference").len(), 8);
    assert_eq!(res.body["partySize"], 3);
    // 3 × 20.00 including 24 % tax.
    assert_eq!(res.body["price"]["basePrice"], 60.0);
    assert_eq!(res.body["price"]["subtotal"], 60.0);
    assert_eq!(res.body["price"]["tax"], 11.61);
    assert_eq!(res.body["price"]["total"], 60.0);
    assert_eq!(res.body["price"]["currency"], "EUR");
    assert!(res.str("pricingHash").starts_with("ph1_"));
    assert_eq!(token(&res).len(), 64);
    // Default time-to-live: 15 minutes from the test clock's 09:00Z.
    assert_eq!(res.body["holdExpiresAt"], "2026-11-21T09:15:00Z");
    assert_eq!(available(&app, &t.id, &fx, &fx.slots[0]).await, 7);
    app.assert_capacity_invariant(&t.id).await;
}

#[tokio::test]
async fn hold_on_full_slot_is_rejected() {
    let (app, t, fx) = setup().await;
    app.hold(&t.id, &fx, &fx.slots[0], 8)
        .await
        .assert_status(200);
    app.hold(&t.id, &fx, &fx.slots[0], 3)
        .await
        .assert_error(409, "SLOT_UNAVAILABLE");
    app.hold(&t.id, &fx, &fx.slots[0], 2)
        .await
        .assert_status(200);
    app.hold(&t.id, &fx, &fx.slots[0], 1)
        .await
        .assert_error(409, "SLOT_UNAVAILABLE");
    app.assert_capacity_invariant(&t.id).await;
}

#[tokio::test]
async fn hold_validates_input_and_unknown_ids_are_404() {
    let (app, t, fx) = setup().await;
    let res = app
        .post("/api/v1/bookings/hold")
        .tenant(&t.id)
        .json(
            json!({"slotId": fx.slots[0], "partySize": 0, "customer": {"email": "nope"},
                     "participants": [{"firstName": "A"}]}),
        )
        .send()
        .await;
    res.assert_error(400, "VALIDATION_ERROR");
    let fields = res.error_fields();
    for f in ["siteId", "productId", "partySize", "customer.email"] {
        assert!(fields.contains(&f.to_owned()), "{f} in {fields:?}");
    }
    let res = app
        .post("/api/v1/bookings/hold")
        .tenant(&t.id)
        .json(json!({"siteId": fx.catalog.site_id, "productId": fx.catalog.product_id, "partySize": 11, "slotId": fx.slots[0]}))
        .send()
        .await;
    res.assert_error(400, "VALIDATION_ERROR");
    assert_eq!(res.error_fields(), vec!["partySize"]);

    let unknown = "01890000-0000-7000-8000-000000000000";
    for body in [
        json!({"siteId": fx.catalog.site_id, "productId": unknown, "slotId": fx.slots[0], "partySize": 1}),
        json!({"siteId": unknown, "productId": fx.catalog.product_id, "slotId": fx.slots[0], "partySize": 1}),
        json!({"siteId": fx.catalog.site_id, "productId": fx.catalog.product_id, "slotId": unknown, "partySize": 1}),
        json!({"siteId": fx.catalog.site_id, "productId": fx.catalog.product_id, "slotId": fx.slots[0], "partySize": 1, "variantId": unknown}),
    ] {
        app.post("/api/v1/bookings/hold")
            .tenant(&t.id)
            .json(body)
            .send()
            .await
            .assert_error(404, "NOT_FOUND");
    }
    app.assert_capacity_invariant(&t.id).await;
}

#[tokio::test]
async fn a_booking_is_visible_only_to_its_token_customer_or_staff() {
    let (app, t, fx) = setup().await;
    let res = app.hold(&t.id, &fx, &fx.slots[0], 2).await;
    let id = res.str("id").to_owned();
    let tok = token(&res);
    let path = format!("/api/v1/bookings/{id}");
    app.get(&path)
        .tenant(&t.id)
        .header("x-booking-token", &tok)
        .send()
        .await
        .assert_status(200);
    app.get(&path)
        .tenant(&t.id)
        .token(&t.owner_token)
        .send()
        .await
        .assert_status(200);
    app.get(&path)
        .tenant(&t.id)
        .send()
        .await
        .assert_error(404, "BOOKING_NOT_FOUND");
    app.get(&path)
        .tenant(&t.id)
        .header("x-booking-token", "wrong")
        .send()
        .await
        .assert_error(404, "BOOKING_NOT_FOUND");
    let stranger = app.customer_token(&t.id, "eve@example.com").await;
    app.get(&path)
        .tenant(&t.id)
        .token(&stranger)
        .send()
        .await
        .assert_error(404, "BOOKING_NOT_FOUND");
    app.get("/api/v1/bookings/not-an-id")
        .tenant(&t.id)
        .token(&t.owner_token)
        .send()
        .await
        .assert_error(404, "BOOKING_NOT_FOUND");

    // A hold made with a customer token belongs to that customer.
    let me = app.customer_token(&t.id, "bob@example.com").await;
    let res = app
        .post("/api/v1/bookings/hold")
        .tenant(&t.id)
        .token(&me)
        .json(json!({"siteId": fx.catalog.site_id, "productId": fx.catalog.product_id, "slotId": fx.slots[1], "partySize": 1}))
        .send()
        .await;
    res.assert_status(200);
    assert_eq!(res.body["customer"]["email"], "bob@example.com");
    app.get(&format!("/api/v1/bookings/{}", res.str("id")))
        .tenant(&t.id)
        .token(&me)
        .send()
        .await
        .assert_status(200);

    // Another tenant's staff see nothing.
    let other = app.tenant("other").await;
    app.get(&path)
        .tenant(&other.id)
        .token(&other.owner_token)
        .send()
        .await
        .assert_error(404, "BOOKING_NOT_FOUND");
}

#[tokio::test]
async fn a_hold_prices_its_variant_addons_and_keeps_participants() {
    let (app, t, fx) = setup().await;
    let base = format!("/api/v1/admin/products/{}", fx.catalog.product_id);
    let admin = |path: String, body: serde_json::Value| {
        app.post(&path)
            .tenant(&t.id)
            .token(&t.owner_token)
            .json(body)
            .send()
    };
    let student = admin(
        format!("{base}/variants"),
        json!({"name": "Student", "priceMode": "adjustment", "priceAmount": -5}),
    )
    .await;
    student.assert_status(200);
    let shoes = admin(
        format!("{base}/addons"),
        json!({"name": "Shoes", "addonType": "item", "mode": "per_participant", "priceType": "per_person", "unitPrice": 4}),
    )
    .await;
    let photo = admin(
        format!("{base}/addons"),
        json!({"name": "Photo", "addonType": "upgrade", "mode": "yesno", "priceType": "fixed", "price": 9.9}),
    )
    .await;
    let chalk = admin(
        format!("{base}/addons"),
        json!({"name": "Chalk", "addonType": "item", "mode": "free_qty", "priceType": "fixed", "unitPrice": 1.5, "maxQuantity": 5}),
    )
    .await;
    let hold = |addons: serde_json::Value, participants: serde_json::Value| {
        app.post("/api/v1/bookings/hold")
            .tenant(&t.id)
            .json(json!({
                "siteId": fx.catalog.site_id, "productId": fx.catalog.product_id,
                "slotId": fx.slots[0], "partySize": 2, "variantId": student.str("id"),
                "addons": addons, "participants": participants
            }))
            .send()
    };
    let res = hold(
        json!([
            {"addonId": shoes.str("id"), "quantity": 1},
            {"addonId": photo.str("id"), "quantity": 1},
            {"addonId": chalk.str("id"), "quantity": 3}
        ]),
        json!([{"firstName": "Ada", "lastName": "Lovelace", "dateOfBirth": "1990-12-10"}]),
    )
    .await;
    res.assert_status(200);
    // 2 × (20 − 5) = 30; shoes 2 × 4 = 8; photo 9.90; chalk 3 × 1.50 = 4.50.
    assert_eq!(res.body["price"]["basePrice"], 30.0);
    assert_eq!(res.body["price"]["total"], 52.4);
    let lines: Vec<(String, u64, f64)> = res.body["price"]["addons"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|l| {
                    (
                        l["name"].as_str().unwrap_or_default().to_owned(),
                        l["quantity"].as_u64().unwrap_or(0),
                        l["total"].as_f64().unwrap_or(0.0),
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    assert_eq!(
        lines,
        vec![
            ("Shoes".to_owned(), 2, 8.0),
            ("Photo".to_owned(), 1, 9.9),
            ("Chalk".to_owned(), 3, 4.5)
        ]
    );
    assert_eq!(res.body["participants"][0]["firstName"], "Ada");
    assert_eq!(
        res.body["addons"][0]["quantity"], 2,
        "stored as priced: one per participant"
    );
    assert_eq!(res.body["variantId"], student.body["id"]);

    let res = hold(
        json!([
            {"addonId": photo.str("id"), "quantity": 2},
            {"addonId": chalk.str("id"), "quantity": 9},
            {"addonId": chalk.str("id"), "quantity": 1},
            {"addonId": "01890000-0000-7000-8000-000000000000"}
        ]),
        json!([{"firstName": "A"}, {"lastName": "B", "dateOfBirth": "10/12/1990"}, {"firstName": "C", "lastName": "D"}]),
    )
    .await;
    res.assert_error(400, "VALIDATION_ERROR");
    let mut fields = res.error_fields();
    fields.sort();
    assert_eq!(
        fields,
        [
            "participants",
            "participants[0].lastName",
            "participants[1].dateOfBirth",
            "participants[1].firstName",
        ]
    );
    let res = hold(
        json!([
            {"addonId": photo.str("id"), "quantity": 2},
            {"addonId": chalk.str("id"), "quantity": 9},
            {"addonId": chalk.str("id"), "quantity": 1},
            {"addonId": "01890000-0000-7000-8000-000000000000"}
        ]),
        json!([]),
    )
    .await;
    res.assert_error(400, "VALIDATION_ERROR");
    assert_eq!(
        res.error_fields(),
        [
            "addons[0].quantity",
            "addons[1].quantity",
            "addons[2].addonId",
            "addons[3].addonId"
        ]
    );
    app.assert_capacity_invariant(&t.id).await;
}

#[tokio::test]
async fn booking_texts_are_bounded_and_checked() {
    let (app, t, fx) = setup().await;
    let long = "x".repeat(1001);
    let res = app
        .post("/api/v1/bookings/hold")
        .tenant(&t.id)
        .json(json!({
            "siteId": fx.catalog.site_id, "productId": fx.catalog.product_id,
            "slotId": fx.slots[0], "partySize": 2,
            "customer": {"name": "Eve"},
            "participants": [
                {"firstName": "y".repeat(101), "lastName": "L", "email": "nope", "phone": "abc",
                 "dateOfBirth": "1800-01-01", "specialRequests": long},
                {"firstName": "A", "lastName": "B", "dateOfBirth": "2027-01-01"}
            ]
        }))
        .send()
        .await;
    res.assert_error(400, "VALIDATION_ERROR");
    let mut fields = res.error_fields();
    fields.sort();
    assert_eq!(
        fields,
        [
            "participants[0].dateOfBirth",
            "participants[0].email",
            "participants[0].firstName",
            "participants[0].phone",
            "participants[0].specialRequests",
            "participants[1].dateOfBirth",
        ]
    );
    // Control characters are refused before anything else is looked at (one text rule
    // for every request string): a header injection in a name is named alone.
    let res = app
        .post("/api/v1/bookings/hold")
        .tenant(&t.id)
        .json(json!({
            "siteId": fx.catalog.site_id, "productId": fx.catalog.product_id,
            "slotId": fx.slots[0], "partySize": 2,
            "customer": {"name": "Eve\r\nBcc: x@example.com"},
        }))
        .send()
        .await;
    res.assert_error(400, "VALIDATION_ERROR");
    assert_eq!(res.error_fields(), ["customer.name"]);
    app.post("/api/v1/bookings/hold")
        .tenant(&t.id)
        .header("Idempotency-Key", "tab\there")
        .json(json!({}))
        .send()
        .await
        .assert_error(400, "VALIDATION_ERROR");
    let a = app.hold(&t.id, &fx, &fx.slots[0], 1).await;
    let res = app
        .post(&format!("/api/v1/bookings/{}/cancel", a.str("id")))
        .tenant(&t.id)
        .header("x-booking-token", &token(&a))
        .json(json!({"reason": long}))
        .send()
        .await;
    res.assert_error(400, "VALIDATION_ERROR");
    assert_eq!(res.error_fields(), ["reason"]);
    assert_eq!(
        available(&app, &t.id, &fx, &fx.slots[0]).await,
        9,
        "nothing canceled"
    );
}
