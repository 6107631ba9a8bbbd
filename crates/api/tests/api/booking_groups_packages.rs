//! Packages: staff define products booked together at a package price (per person, or a
//! percentage off); a PACKAGE group books each of its products once and is priced by it
//! when held and again when confirmed, the price spread exactly over its bookings.

use super::booking_groups::{Venue, hold, hold_body, selection, venue};
use serde_json::{Value, json};

async fn create(v: &Venue, body: Value) -> kairos_testkit::TestResponse {
    v.app
        .post("/api/v1/admin/packages")
        .tenant(&v.t.id)
        .token(&v.t.owner_token)
        .json(body)
        .send()
        .await
}

/// The venue's two activities as a package priced `price`.
async fn package(v: &Venue, price: Value) -> String {
    let mut body = json!({
        "name": "Climb & Escape", "description": "The wall, then the room",
        "productIds": [v.climbing.catalog.product_id, v.room.product_id]
    });
    if let (Value::Object(b), Value::Object(p)) = (&mut body, price) {
        b.extend(p);
    }
    let res = create(v, body).await;
    res.assert_status(201);
    res.str("id").to_owned()
}

fn package_hold(package: &str, selections: Vec<Value>) -> Value {
    json!({
        "groupType": "PACKAGE", "packageId": package, "partySize": 4,
        "customerName": "Stag party", "customerEmail": "best.man@example.com",
        "slotSelections": selections
    })
}

fn both(v: &Venue) -> Vec<Value> {
    vec![
        selection(&v.climbing.catalog, &v.climbing.slots[0]),
        selection(&v.room, &v.room_slots[1]),
    ]
}

fn allocations(group: &Value) -> Vec<f64> {
    group["pricing"]["allocations"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|x| x["allocatedTotal"].as_f64())
                .collect()
        })
        .unwrap_or_default()
}

#[tokio::test]
async fn staff_define_packages_and_bad_ones_are_refused_field_by_field() {
    let v = venue().await;
    let climbing = v.climbing.catalog.product_id.clone();
    for (body, field) in [
        (
            json!({"productIds": [climbing, v.room.product_id], "priceType": "PACKAGE_PRICE", "pricePerPerson": 45}),
            "name",
        ),
        (
            json!({"name": "One", "productIds": [climbing], "priceType": "PACKAGE_PRICE", "pricePerPerson": 45}),
            "productIds",
        ),
        (
            json!({"name": "Twice", "productIds": [climbing, climbing], "priceType": "PACKAGE_PRICE", "pricePerPerson": 45}),
            "productIds",
        ),
        (
            json!({"name": "No price", "productIds": [climbing, v.room.product_id], "priceType": "PACKAGE_PRICE"}),
            "pricePerPerson",
        ),
        (
            json!({"name": "Zero", "productIds": [climbing, v.room.product_id], "priceType": "PERCENT_OFF", "percentOff": 0}),
            "percentOff",
        ),
        (
            json!({"name": "Kind", "productIds": [climbing, v.room.product_id], "priceType": "FREE"}),
            "priceType",
        ),
    ] {
        let res = create(&v, body).await;
        res.assert_error(400, "VALIDATION_ERROR");
        assert!(res.text.contains(field), "{field}: {}", res.text);
    }
    create(
        &v,
        json!({"name": "Ghost", "productIds": [climbing, uuid::Uuid::now_v7()],
               "priceType": "PERCENT_OFF", "percentOff": 10}),
    )
    .await
    .assert_error(404, "NOT_FOUND");

    let id = package(
        &v,
        json!({"priceType": "PACKAGE_PRICE", "pricePerPerson": 45.0}),
    )
    .await;
    let path = format!("/api/v1/admin/packages/{id}");
    // A change is written only over the package it was made from: one read before
    // another change is refused, not written over it.
    let tenant = kairos_domain::TenantId::parse(&v.t.id).unwrap_or_else(|e| panic!("{e}"));
    let package_id = uuid::Uuid::parse_str(&id).unwrap_or_else(|e| panic!("{e}"));
    let stale = v
        .app
        .store
        .package(&tenant, package_id)
        .await
        .ok()
        .flatten()
        .unwrap_or_else(|| panic!("no package {id}"));
    let got = v
        .app
        .get(&path)
        .tenant(&v.t.id)
        .token(&v.t.owner_token)
        .send()
        .await;
    got.assert_status(200);
    assert_eq!(got.body["pricePerPerson"], 45.0);
    assert_eq!(got.body["priceType"], "PACKAGE_PRICE");
    assert_eq!(got.body["currency"], "EUR");
    assert_eq!(got.body["isActive"], true);
    let changed = v
        .app
        .patch(&path)
        .tenant(&v.t.id)
        .token(&v.t.owner_token)
        .json(json!({"priceType": "PERCENT_OFF", "percentOff": 12.5, "isActive": false}))
        .send()
        .await;
    changed.assert_status(200);
    assert_eq!(changed.body["percentOff"], 12.5);
    assert!(changed.body["pricePerPerson"].is_null());
    assert_eq!(changed.body["isActive"], false);
    assert_eq!(changed.body["name"], "Climb & Escape", "kept");
    // An amount of the other price type is refused, not dropped.
    let other_kind = v
        .app
        .patch(&path)
        .tenant(&v.t.id)
        .token(&v.t.owner_token)
        .json(json!({"pricePerPerson": 40}))
        .send()
        .await;
    other_kind.assert_error(400, "VALIDATION_ERROR");
    assert!(
        other_kind.text.contains("pricePerPerson"),
        "{}",
        other_kind.text
    );
    let mut over = kairos_store::NewPackage {
        name: stale.name.clone(),
        description: stale.description.clone(),
        product_ids: stale.product_ids.clone(),
        price: stale.price,
        is_active: stale.is_active,
    };
    over.name = "Stale".into();
    let refused = v
        .app
        .store
        .update_package(
            &tenant,
            &stale,
            over,
            &kairos_store::Actor::system("test"),
            v.app.clock_now(),
        )
        .await;
    assert!(
        matches!(refused, Err(kairos_store::CatalogError::ChangedMeanwhile)),
        "{refused:?}"
    );
    let list = v
        .app
        .get("/api/v1/admin/packages")
        .tenant(&v.t.id)
        .token(&v.t.owner_token)
        .send()
        .await;
    list.assert_status(200);
    assert_eq!(list.body["items"].as_array().map(Vec::len), Some(1));
    // The booking page lists only the packages on offer.
    let none = v.app.get("/api/v1/packages").tenant(&v.t.id).send().await;
    none.assert_status(200);
    assert_eq!(none.body["items"].as_array().map(Vec::len), Some(0));
    v.app
        .patch(&path)
        .tenant(&v.t.id)
        .token(&v.t.owner_token)
        .json(json!({"isActive": true}))
        .send()
        .await
        .assert_status(200);
    let one = v.app.get("/api/v1/packages").tenant(&v.t.id).send().await;
    assert_eq!(one.body["items"][0]["id"], id.as_str(), "{}", one.text);
}

#[tokio::test]
async fn a_package_group_books_each_product_once_at_the_package_price() {
    let v = venue().await;
    let id = package(
        &v,
        json!({"priceType": "PACKAGE_PRICE", "pricePerPerson": 45.0}),
    )
    .await;
    // Not the package's activities: refused, nothing held.
    let one = hold(
        &v.app,
        &v.t.id,
        package_hold(
            &id,
            vec![selection(&v.climbing.catalog, &v.climbing.slots[0])],
        ),
    )
    .await;
    one.assert_error(400, "VALIDATION_ERROR");
    assert!(one.text.contains("packageId"), "{}", one.text);
    hold(
        &v.app,
        &v.t.id,
        package_hold(&uuid::Uuid::now_v7().to_string(), both(&v)),
    )
    .await
    .assert_error(404, "NOT_FOUND");

    let res = hold(&v.app, &v.t.id, package_hold(&id, both(&v))).await;
    res.assert_status(200);
    assert_eq!(res.body["groupType"], "PACKAGE");
    assert_eq!(res.body["packageId"], id.as_str());
    // 4 × 45.00 instead of 80.00 + 120.00, spread 80 : 120.
    assert_eq!(res.body["pricing"]["pricingMethod"], "PACKAGE");
    assert_eq!(res.body["pricing"]["grandTotal"], 180.0, "{}", res.text);
    assert_eq!(allocations(&res.body), vec![72.0, 108.0]);
    let confirmed = v
        .app
        .post(&format!(
            "/api/v1/admin/booking-groups/{}/confirm",
            res.str("id")
        ))
        .tenant(&v.t.id)
        .token(&v.t.owner_token)
        .json(json!({"paymentMethod": "INVOICE"}))
        .send()
        .await;
    confirmed.assert_status(200);
    assert_eq!(confirmed.body["status"], "CONFIRMED");
    assert_eq!(
        allocations(&confirmed.body),
        vec![72.0, 108.0],
        "priced by the package again"
    );

    // A package no longer offered takes no new groups.
    v.app
        .patch(&format!("/api/v1/admin/packages/{id}"))
        .tenant(&v.t.id)
        .token(&v.t.owner_token)
        .json(json!({"isActive": false}))
        .send()
        .await
        .assert_status(200);
    let later = vec![
        selection(&v.climbing.catalog, &v.climbing.slots[1]),
        selection(&v.room, &v.room_slots[2]),
    ];
    hold(&v.app, &v.t.id, package_hold(&id, later))
        .await
        .assert_error(404, "NOT_FOUND");
}

#[tokio::test]
async fn a_percentage_off_package_takes_it_off_the_activities_own_prices() {
    let v = venue().await;
    let id = package(&v, json!({"priceType": "PERCENT_OFF", "percentOff": 15})).await;
    let res = hold(&v.app, &v.t.id, package_hold(&id, both(&v))).await;
    res.assert_status(200);
    assert_eq!(res.body["pricing"]["grandTotal"], 170.0, "{}", res.text);
    assert_eq!(allocations(&res.body), vec![68.0, 102.0]);
    // Staff plan a package draft: priced by the package before it is held.
    let draft = v
        .app
        .post("/api/v1/admin/booking-groups")
        .tenant(&v.t.id)
        .token(&v.t.owner_token)
        .json(
            json!({"groupType": "PACKAGE", "packageId": id, "partySize": 2,
                     "customerName": "Ann", "customerEmail": "ann@example.com"}),
        )
        .send()
        .await;
    draft.assert_status(200);
    let gid = draft.str("id").to_owned();
    for (c, slot) in [
        (&v.climbing.catalog, &v.climbing.slots[2]),
        (&v.room, &v.room_slots[3]),
    ] {
        v.app
            .post(&format!("/api/v1/admin/booking-groups/{gid}/bookings"))
            .tenant(&v.t.id)
            .token(&v.t.owner_token)
            .json(json!({"productId": c.product_id, "siteId": c.site_id, "slotId": slot}))
            .send()
            .await
            .assert_status(200);
    }
    let priced = v
        .app
        .post(&format!(
            "/api/v1/admin/booking-groups/{gid}/calculate-pricing"
        ))
        .tenant(&v.t.id)
        .token(&v.t.owner_token)
        .send()
        .await;
    priced.assert_status(200);
    // 2 × 20.00 + 2 × 30.00 = 100.00, 15 % off.
    assert_eq!(priced.body["grandTotal"], 85.0, "{}", priced.text);
    assert_eq!(priced.body["pricingMethod"], "PACKAGE");
}

fn sorted(mut parts: Vec<f64>) -> Vec<f64> {
    parts.sort_by(f64::total_cmp);
    parts
}

#[tokio::test]
async fn a_package_bookings_agreed_price_shrinks_with_its_party() {
    let v = venue().await;
    let res = v
        .app
        .post("/api/v1/admin/packages")
        .tenant(&v.t.id)
        .token(&v.t.owner_token)
        .json(json!({
            "name": "Climb & Escape",
            "productIds": [v.climbing.catalog.product_id, v.room.product_id],
            "priceType": "PACKAGE_PRICE", "pricePerPerson": 35
        }))
        .send()
        .await;
    res.assert_status(201);
    let mut body = hold_body(
        4,
        vec![
            selection(&v.climbing.catalog, &v.climbing.slots[0]),
            selection(&v.room, &v.room_slots[1]),
        ],
    );
    body["groupType"] = json!("PACKAGE");
    body["packageId"] = json!(res.str("id"));
    let group = hold(&v.app, &v.t.id, body).await;
    group.assert_status(200);
    // 140.00 over climbing (80.00 at its own price) and the room (120.00): 56 and 84.
    assert_eq!(sorted(allocations(&group.body)), vec![56.0, 84.0]);
    let climbing = group.body["bookings"]
        .as_array()
        .and_then(|b| {
            b.iter()
                .find(|b| b["productId"] == v.climbing.catalog.product_id.as_str())
        })
        .map(|b| b["bookingId"].as_str().unwrap_or_default().to_owned())
        .unwrap_or_default();
    let res = v
        .app
        .post(&format!("/api/v1/admin/bookings/{climbing}/cancel"))
        .tenant(&v.t.id)
        .token(&v.t.owner_token)
        .json(json!({"reason": "reduced_party_size", "newPartySize": 2}))
        .send()
        .await;
    res.assert_status(200);
    let group = v
        .app
        .get(&format!("/api/v1/admin/booking-groups/{}", group.str("id")))
        .tenant(&v.t.id)
        .token(&v.t.owner_token)
        .send()
        .await;
    group.assert_status(200);
    assert_eq!(
        sorted(allocations(&group.body)),
        vec![28.0, 84.0],
        "half the party, half its share"
    );
}
