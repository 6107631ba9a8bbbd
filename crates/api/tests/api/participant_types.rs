//! Participant types with their own price (a child's ticket): the product's types, the
//! availability preview, the hold, staff creation, the pricing hash, confirmation against
//! the catalog as it is now, a smaller party, and every check of the input.

use super::admin_bookings::create;
use super::waivers::product;
use kairos_testkit::{BookingFixture, TenantFixture, TestApp, TestResponse};
use serde_json::{Value, json};

/// A bookable venue (20.00 per person, 24 % included) whose product sells a child's
/// ticket at 12.00 and a senior's at 15.00.
async fn venue() -> (TestApp, TenantFixture, BookingFixture) {
    let app = TestApp::builder()
        .limits(kairos_api::rate_limit::Limits::UNLIMITED)
        .spawn()
        .await;
    let t = app.tenant("acme").await;
    let fx = app.bookable(&t).await;
    product(
        &app,
        &t,
        &fx.catalog.product_id,
        json!({"participantTypes": [
            {"type": "child", "name": "Child (under 12)", "price": 12.0},
            {"type": "senior", "name": "Senior", "price": 15.0}
        ]}),
    )
    .await;
    (app, t, fx)
}

async fn hold(
    app: &TestApp,
    t: &TenantFixture,
    fx: &BookingFixture,
    (slot, party): (usize, u32),
    types: Value,
) -> TestResponse {
    app.post("/api/v1/bookings/hold")
        .tenant(&t.id)
        .json(json!({
            "siteId": fx.catalog.site_id, "productId": fx.catalog.product_id,
            "slotId": fx.slots[slot], "partySize": party,
            "customer": {"name": "Ada Lovelace", "email": "ada@example.com"},
            "participantTypes": types
        }))
        .send()
        .await
}

async fn preview(
    app: &TestApp,
    t: &TenantFixture,
    fx: &BookingFixture,
    query: &str,
) -> TestResponse {
    app.get(&format!(
        "/api/v1/availability?product_id={}&site_id={}&date_from=2026-11-22&party_size=4{query}",
        fx.catalog.product_id, fx.catalog.site_id
    ))
    .tenant(&t.id)
    .send()
    .await
}

async fn confirm(
    app: &TestApp,
    t: &TenantFixture,
    held: &TestResponse,
    hash: &str,
) -> TestResponse {
    app.post(&format!("/api/v1/bookings/{}/confirm", held.str("id")))
        .tenant(&t.id)
        .header("x-booking-token", held.str("bookingToken"))
        .json(json!({"pricingHash": hash, "paymentMethod": "poa"}))
        .send()
        .await
}

#[tokio::test]
async fn a_childs_ticket_is_priced_in_the_preview_the_hold_and_its_hash() {
    let (app, t, fx) = venue().await;
    // The widget reads the types with the site's configuration.
    let config = app
        .get(&format!(
            "/api/v1/availability/sites/{}/config",
            fx.catalog.site_id
        ))
        .tenant(&t.id)
        .send()
        .await;
    config.assert_status(200);
    assert_eq!(
        config.body["products"][0]["participantTypes"][0],
        json!({"type": "child", "name": "Child (under 12)", "price": 12.0})
    );
    // Four people, two of them children: 2 × 20.00 + 2 × 12.00.
    let typed = preview(&app, &t, &fx, "&participant_types=child:2").await;
    typed.assert_status(200);
    assert_eq!(typed.body["slots"][0]["pricingPreview"]["subtotal"], 64.0);
    assert_eq!(typed.body["slots"][0]["pricingPreview"]["grandTotal"], 64.0);
    let plain = preview(&app, &t, &fx, "").await;
    assert_eq!(plain.body["slots"][0]["pricingPreview"]["subtotal"], 80.0);

    let res = hold(
        &app,
        &t,
        &fx,
        (0, 4),
        json!([{"type": "child", "quantity": 2}]),
    )
    .await;
    res.assert_status(200);
    assert_eq!(res.body["price"]["basePrice"], 64.0, "{}", res.text);
    assert_eq!(res.body["price"]["total"], 64.0);
    assert_eq!(
        res.body["price"]["participantTypes"],
        json!([{"type": "child", "name": "Child (under 12)", "quantity": 2,
            "unitPrice": 12.0, "total": 24.0}])
    );
    let adults = hold(&app, &t, &fx, (1, 4), json!([])).await;
    adults.assert_status(200);
    assert_eq!(adults.body["price"]["total"], 80.0);
    assert_eq!(adults.body["price"]["participantTypes"], json!([]));
    let seniors = hold(
        &app,
        &t,
        &fx,
        (2, 4),
        json!([{"type": "senior", "quantity": 2}]),
    )
    .await;
    seniors.assert_status(200);
    assert_eq!(seniors.body["price"]["total"], 70.0);
    let hashes = [
        res.str("pricingHash"),
        adults.str("pricingHash"),
        seniors.str("pricingHash"),
    ];
    assert!(hashes[0] != hashes[1] && hashes[0] != hashes[2] && hashes[1] != hashes[2]);

    // Confirming prices the booking again from the catalog, types included.
    let done = confirm(&app, &t, &res, res.str("pricingHash")).await;
    done.assert_status(200);
    assert_eq!(done.body["price"]["participantTypes"][0]["quantity"], 2);
    // A child's ticket that costs more since the hold changes the price…
    product(
        &app,
        &t,
        &fx.catalog.product_id,
        json!({"participantTypes": [{"type": "senior", "name": "Senior", "price": 16.0}]}),
    )
    .await;
    let changed = confirm(&app, &t, &seniors, seniors.str("pricingHash")).await;
    changed.assert_error(409, "PRICING_CHANGED");
    assert_eq!(changed.body["details"]["price"]["total"], 72.0);
    let again = changed.body["details"]["pricingHash"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    confirm(&app, &t, &seniors, &again).await.assert_status(200);
    // …and a type no longer sold withdraws the hold's item.
    let gone = hold(
        &app,
        &t,
        &fx,
        (3, 3),
        json!([{"type": "senior", "quantity": 1}]),
    )
    .await;
    gone.assert_status(200);
    product(
        &app,
        &t,
        &fx.catalog.product_id,
        json!({"participantTypes": []}),
    )
    .await;
    let withdrawn = confirm(&app, &t, &gone, gone.str("pricingHash")).await;
    withdrawn.assert_error(409, "PRICING_CHANGED");
    assert_eq!(withdrawn.body["details"]["reason"], "item_withdrawn");
    app.assert_capacity_invariant(&t.id).await;
}

/// A partial cancellation of booking `id` with `body` (`newPartySize`, …).
async fn reduce_to(app: &TestApp, t: &TenantFixture, id: &str, body: Value) -> TestResponse {
    let mut full = json!({"reason": "reduced_party_size"});
    if let (Some(map), Value::Object(extra)) = (full.as_object_mut(), body) {
        map.extend(extra);
    }
    app.post(&format!("/api/v1/admin/bookings/{id}/cancel"))
        .tenant(&t.id)
        .token(&t.owner_token)
        .json(full)
        .send()
        .await
}

/// Makes the party of booking `id` `party` by a partial cancellation: the booking after.
async fn reduce(app: &TestApp, t: &TenantFixture, id: &str, party: u32) -> Value {
    reduce_to(app, t, id, json!({"newPartySize": party}))
        .await
        .assert_status(200);
    let detail = app
        .get(&format!("/api/v1/admin/bookings/{id}"))
        .tenant(&t.id)
        .token(&t.owner_token)
        .send()
        .await;
    detail.assert_status(200);
    assert_eq!(detail.body["partySize"], party);
    detail.body
}

#[tokio::test]
async fn staff_book_by_type_and_a_smaller_party_keeps_the_typed_places_first() {
    let (app, t, fx) = venue().await;
    let res = create(
        &app,
        &t,
        &fx,
        json!({"partySize": 4, "autoConfirm": true,
            "participantTypes": [{"type": "child", "quantity": 3}]}),
    )
    .await;
    res.assert_status(200);
    // One adult at 20.00 and three children at 12.00.
    assert_eq!(res.body["grandTotal"], 56.0, "{}", res.text);
    assert_eq!(res.body["breakdown"]["participantTypes"][0]["total"], 36.0);
    let id = res.str("bookingId").to_owned();
    // The adult's place goes first: two children are left…
    let two = reduce(&app, &t, &id, 2).await;
    assert_eq!(two["price"]["total"], 24.0, "{two}");
    assert_eq!(two["price"]["participantTypes"][0]["quantity"], 2);
    // …then one of the children: one child is left, at 12.00.
    let one = reduce(&app, &t, &id, 1).await;
    assert_eq!(one["price"]["total"], 12.0, "{one}");

    // Staff may say who left: of two adults and two children, a child.
    let res = create(
        &app,
        &t,
        &fx,
        json!({"partySize": 4, "autoConfirm": true, "startTime": super::admin_bookings::start(1),
            "participantTypes": [{"type": "child", "quantity": 2}]}),
    )
    .await;
    res.assert_status(200);
    assert_eq!(res.body["grandTotal"], 64.0);
    let id = res.str("bookingId").to_owned();
    for (body, says) in [
        (
            json!({"newPartySize": 3, "newParticipantTypes": [{"type": "child", "quantity": 3}]}),
            "has 2 child places",
        ),
        (
            json!({"newPartySize": 3, "newParticipantTypes": [{"type": "senior", "quantity": 1}]}),
            "has 0 senior places",
        ),
        (
            json!({"newPartySize": 3, "newParticipantTypes": []}),
            "leave 3 places at the full price, but the booking has 2",
        ),
        (
            json!({"newPartySize": 3, "newParticipantTypes": [{"type": "child", "quantity": 1},
            {"type": "child", "quantity": 1}]}),
            "listed twice",
        ),
        (
            json!({"newPartySize": 1, "newParticipantTypes": [{"type": "child", "quantity": 2}]}),
            "more than the party of 1",
        ),
        (
            json!({"newPartySize": 3, "newParticipantTypes": [{"type": "Child", "quantity": 1}]}),
            "newParticipantTypes[0].type",
        ),
    ] {
        let res = reduce_to(&app, &t, &id, body.clone()).await;
        res.assert_error(400, "VALIDATION_ERROR");
        assert!(res.text.contains(says), "{body}: {}", res.text);
    }
    let res = app
        .post(&format!("/api/v1/admin/bookings/{id}/cancel"))
        .tenant(&t.id)
        .token(&t.owner_token)
        .json(json!({"reason": "admin_initiated",
            "newParticipantTypes": [{"type": "child", "quantity": 1}]}))
        .send()
        .await;
    res.assert_error(400, "VALIDATION_ERROR");
    assert!(res.text.contains("reduced_party_size only"), "{}", res.text);
    // Refused changes left the booking as it was; a child leaving takes 12.00 off.
    reduce_to(
        &app,
        &t,
        &id,
        json!({"newPartySize": 3, "newParticipantTypes": [{"type": "child", "quantity": 1}]}),
    )
    .await
    .assert_status(200);
    let detail = app
        .get(&format!("/api/v1/admin/bookings/{id}"))
        .tenant(&t.id)
        .token(&t.owner_token)
        .send()
        .await;
    assert_eq!(detail.body["price"]["total"], 52.0, "{}", detail.text);
    assert_eq!(detail.body["price"]["participantTypes"][0]["quantity"], 1);
    app.assert_capacity_invariant(&t.id).await;
}

#[tokio::test]
async fn participant_types_are_checked_on_the_product_the_booking_and_the_preview() {
    let (app, t, fx) = venue().await;
    let bad_hold = |types: Value, party: u32| {
        let (app, t, fx) = (&app, &t, &fx);
        async move {
            let res = hold(app, t, fx, (0, party), types).await;
            res.assert_error(400, "VALIDATION_ERROR");
            res
        }
    };
    let res = bad_hold(json!([{"type": "toddler", "quantity": 1}]), 2).await;
    assert!(
        res.text.contains("participantTypes[0].type"),
        "{}",
        res.text
    );
    assert!(res.text.contains("child, senior"), "{}", res.text);
    let res = bad_hold(
        json!([{"type": "child", "quantity": 2}, {"type": "senior", "quantity": 1}]),
        2,
    )
    .await;
    assert!(
        res.text.contains("more than the party of 2"),
        "{}",
        res.text
    );
    let res = bad_hold(
        json!([{"type": "child", "quantity": 1}, {"type": "child", "quantity": 1}]),
        4,
    )
    .await;
    assert!(res.text.contains("listed twice"), "{}", res.text);
    let res = bad_hold(json!([{"type": "child", "quantity": 0}]), 4).await;
    assert!(
        res.text.contains("participantTypes[0].quantity"),
        "{}",
        res.text
    );
    let res = bad_hold(json!([{"quantity": 1}]), 4).await;
    assert!(
        res.text.contains("participantTypes[0].type"),
        "{}",
        res.text
    );
    let eleven: Vec<Value> = (0..11)
        .map(|i| json!({"type": format!("t{i}"), "quantity": 1}))
        .collect();
    let res = bad_hold(Value::from(eleven), 20).await;
    assert!(res.text.contains("at most 10"), "{}", res.text);
    // Nothing was held by any of them.
    assert_eq!(
        super::bookings::available(&app, &t.id, &fx, &fx.slots[0]).await,
        10
    );

    for (query, says) in [
        ("&participant_types=toddler:1", "not a participant type"),
        ("&participant_types=child:5", "more than the party of 4"),
        ("&participant_types=child:1,child:1", "twice"),
        ("&participant_types=child", "type:count"),
        ("&participant_types=child:0", "type:count"),
        ("&participant_types=Child:1", "type:count"),
        ("&participant_types=child:%2B1", "type:count"),
        ("&participant_types=%20child:1", "type:count"),
        ("&participant_types=child:1000", "type:count"),
        ("&participant_types=child:01", "type:count"),
    ] {
        let res = preview(&app, &t, &fx, query).await;
        res.assert_error(400, "VALIDATION_ERROR");
        assert!(res.text.contains(says), "{query}: {}", res.text);
    }

    let path = format!("/api/v1/admin/products/{}", fx.catalog.product_id);
    for (body, field) in [
        (
            json!({"participantTypes": [{"type": "Child", "name": "Child", "price": 1.0}]}),
            "participantTypes[0].type",
        ),
        (
            json!({"participantTypes": [{"type": "child", "name": "", "price": 1.0}]}),
            "participantTypes[0].name",
        ),
        (
            json!({"participantTypes": [{"type": "child", "name": "Child"}]}),
            "participantTypes[0].price",
        ),
        (
            json!({"participantTypes": [{"type": "child", "name": "Child", "price": -1.0}]}),
            "participantTypes[0].price",
        ),
        (
            json!({"participantTypes": [{"type": "child", "name": "Child", "price": 1.0},
            {"type": "child", "name": "Kid", "price": 2.0}]}),
            "participantTypes[1].type",
        ),
        (json!({"priceType": "per_booking"}), "participantTypes"),
    ] {
        let res = app
            .patch(&path)
            .tenant(&t.id)
            .token(&t.owner_token)
            .json(body.clone())
            .send()
            .await;
        res.assert_error(400, "VALIDATION_ERROR");
        assert!(res.text.contains(field), "{body}: {}", res.text);
    }
    // A per-booking product costs the same whoever comes: its bookings take no types.
    product(
        &app,
        &t,
        &fx.catalog.product_id,
        json!({"priceType": "per_booking", "participantTypes": []}),
    )
    .await;
    let res = bad_hold(json!([{"type": "child", "quantity": 1}]), 2).await;
    assert!(res.text.contains("priced per booking"), "{}", res.text);
}
