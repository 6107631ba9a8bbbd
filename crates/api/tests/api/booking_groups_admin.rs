//! Booking groups by staff (spec Part B 4.3): the draft, its plan, its price, its hold,
//! the plan fixed once held, customer and notes changed, deletion of a draft; the status
//! derived from the bookings as staff change them, and the list's filters; the permission.

use super::booking_groups::{hold, hold_body, seats_left, selection, venue};
use kairos_domain::auth::Role;
use kairos_testkit::CatalogFixture;
use serde_json::{Value, json};

#[tokio::test]
async fn the_status_follows_the_bookings() {
    let v = venue().await;
    let (app, t) = (&v.app, &v.t);
    let res = hold(
        app,
        &t.id,
        hold_body(
            2,
            vec![
                selection(&v.climbing.catalog, &v.climbing.slots[0]),
                selection(&v.room, &v.room_slots[1]),
            ],
        ),
    )
    .await;
    res.assert_status(200);
    let id = res.str("id").to_owned();
    let bookings: Vec<String> = res.body["bookings"]
        .as_array()
        .expect("bookings")
        .iter()
        .map(|b| b["bookingId"].as_str().unwrap_or("").to_owned())
        .collect();
    let status = |target: &'static str, booking: String| async move {
        app.patch(&format!("/api/v1/admin/bookings/{booking}/status"))
            .tenant(&t.id)
            .token(&t.owner_token)
            .json(json!({"status": target, "reason": "group test"}))
            .send()
            .await
            .assert_status(200);
    };
    let group_status = || async {
        let res = app
            .get(&format!("/api/v1/admin/booking-groups/{id}"))
            .tenant(&t.id)
            .token(&t.owner_token)
            .send()
            .await;
        res.assert_status(200);
        res.body["status"].as_str().unwrap_or("").to_owned()
    };
    assert_eq!(group_status().await, "HOLD");
    // Confirmed with the group (its bookings are not confirmed one by one).
    app.post(&format!("/api/v1/admin/booking-groups/{id}/confirm"))
        .tenant(&t.id)
        .token(&t.owner_token)
        .json(json!({"paymentMethod": "INVOICE"}))
        .send()
        .await
        .assert_status(200);
    assert_eq!(group_status().await, "CONFIRMED");
    status("canceled", bookings[0].clone()).await;
    assert_eq!(group_status().await, "PARTIALLY_CANCELED");
    status("canceled", bookings[1].clone()).await;
    assert_eq!(group_status().await, "CANCELED");
    let list = app
        .get("/api/v1/admin/booking-groups?status=CANCELED&customerEmail=teacher@example.com")
        .tenant(&t.id)
        .token(&t.owner_token)
        .send()
        .await;
    list.assert_status(200);
    assert_eq!(list.body["total"], 1, "{}", list.text);
    let none = app
        .get("/api/v1/admin/booking-groups?status=HOLD")
        .tenant(&t.id)
        .token(&t.owner_token)
        .send()
        .await;
    assert_eq!(none.body["total"], 0, "{}", none.text);
    app.get("/api/v1/admin/booking-groups?status=OPEN")
        .tenant(&t.id)
        .token(&t.owner_token)
        .send()
        .await
        .assert_error(400, "VALIDATION_ERROR");
    app.assert_capacity_invariant(&t.id).await;
}

#[tokio::test]
async fn staff_plan_a_draft_price_it_hold_it_and_then_its_plan_is_fixed() {
    let v = venue().await;
    let (app, t) = (&v.app, &v.t);
    let admin = |method: &str, path: String| {
        let req = match method {
            "GET" => app.get(&path),
            "PATCH" => app.patch(&path),
            "DELETE" => app.delete(&path),
            _ => app.post(&path),
        };
        req.tenant(&t.id).token(&t.owner_token)
    };
    let res = admin("POST", "/api/v1/admin/booking-groups".into())
        .json(json!({"partySize": 3, "customerName": "Stag party", "customerEmail": "best.man@example.com",
                     "internalNotes": "Wants the loud room"}))
        .send()
        .await;
    res.assert_status(200);
    assert_eq!(res.body["status"], "DRAFT");
    assert_eq!(res.body["groupType"], "CUSTOM");
    assert_eq!(res.body["internalNotes"], "Wants the loud room");
    assert_eq!(res.body["pricing"], Value::Null);
    let id = res.str("id").to_owned();
    let base = format!("/api/v1/admin/booking-groups/{id}");
    // Holding an empty plan is refused.
    admin("POST", format!("{base}/hold"))
        .send()
        .await
        .assert_error(400, "VALIDATION_ERROR");
    // The product must belong to the site and the slot to the product.
    let other_site = app.catalog(t).await;
    admin("POST", format!("{base}/bookings"))
        .json(json!({"productId": v.room.product_id, "siteId": other_site.site_id, "slotId": v.room_slots[0]}))
        .send()
        .await
        .assert_error(404, "NOT_FOUND");
    admin("POST", format!("{base}/bookings"))
        .json(json!({"productId": v.room.product_id, "siteId": v.room.site_id, "slotId": v.climbing.slots[0]}))
        .send()
        .await
        .assert_error(404, "NOT_FOUND");
    admin("POST", format!("{base}/bookings"))
        .json(json!({"productId": v.room.product_id, "siteId": v.room.site_id, "slotId": v.room_slots[0], "partySize": 7}))
        .send()
        .await
        .assert_error(400, "VALIDATION_ERROR");
    admin("POST", format!("{base}/bookings"))
        .json(json!({"siteId": v.room.site_id}))
        .send()
        .await
        .assert_error(400, "VALIDATION_ERROR");
    let add = |c: &CatalogFixture, slot: &str, party: Option<u32>| {
        let mut body = selection(c, slot);
        if let Some(p) = party {
            body["partySize"] = json!(p);
        }
        admin("POST", format!("{base}/bookings")).json(body).send()
    };
    let res = add(&v.climbing.catalog, &v.climbing.slots[1], None).await;
    res.assert_status(200);
    let res = add(&v.room, &v.room_slots[2], Some(2)).await;
    res.assert_status(200);
    let res = add(&v.room, &v.room_slots[3], None).await;
    res.assert_status(200);
    let activities = res.body["activities"]
        .as_array()
        .expect("activities")
        .clone();
    assert_eq!(activities.len(), 3);
    assert_eq!(activities[0]["partySize"], 3);
    assert_eq!(activities[1]["partySize"], 2);
    assert!(res.body["bookings"].as_array().is_some_and(Vec::is_empty));
    // Nothing is held by planning.
    assert_eq!(
        seats_left(app, &t.id, &v.climbing.catalog, &v.climbing.slots[1]).await,
        10
    );
    let dropped = activities[2]["bookingId"].as_str().unwrap_or("").to_owned();
    let res = admin("DELETE", format!("{base}/bookings/{dropped}"))
        .send()
        .await;
    res.assert_status(200);
    assert_eq!(res.body["activities"].as_array().map(Vec::len), Some(2));
    admin("DELETE", format!("{base}/bookings/{dropped}"))
        .send()
        .await
        .assert_error(404, "BOOKING_NOT_FOUND");
    // The draft's price: 3 × 20.00 + 2 × 30.00, parts summing to the total.
    let price = admin("POST", format!("{base}/calculate-pricing"))
        .send()
        .await;
    price.assert_status(200);
    assert_eq!(price.body["grandTotal"], 120.0, "{}", price.text);
    assert_eq!(price.body["subtotal"], 120.0);
    assert_eq!(price.body["taxTotal"], 23.22);
    assert_eq!(price.body["pricingMethod"], "SUM");
    let parts: Vec<f64> = price.body["allocations"]
        .as_array()
        .expect("allocations")
        .iter()
        .map(|a| a["allocatedTotal"].as_f64().unwrap_or(0.0))
        .collect();
    assert_eq!(parts, vec![60.0, 60.0]);
    // Held: the planned ids become the bookings'.
    let held = admin("POST", format!("{base}/hold")).send().await;
    held.assert_status(200);
    assert_eq!(held.body["status"], "HOLD");
    let first = activities[0]["bookingId"].as_str().unwrap_or("");
    assert_eq!(held.body["bookings"][0]["bookingId"], first);
    assert_eq!(
        seats_left(app, &t.id, &v.climbing.catalog, &v.climbing.slots[1]).await,
        7
    );
    let again = admin("POST", format!("{base}/calculate-pricing"))
        .send()
        .await;
    assert_eq!(again.body["grandTotal"], 120.0);
    // A held group's plan is fixed, it cannot be held twice or deleted.
    add(&v.room, &v.room_slots[0], None)
        .await
        .assert_error(409, "INVALID_TRANSITION");
    admin("DELETE", format!("{base}/bookings/{first}"))
        .send()
        .await
        .assert_error(409, "INVALID_TRANSITION");
    admin("POST", format!("{base}/hold"))
        .send()
        .await
        .assert_error(409, "INVALID_TRANSITION");
    admin("DELETE", base.clone())
        .send()
        .await
        .assert_error(409, "INVALID_TRANSITION");
    // Customer and notes change at any status.
    let res = admin("PATCH", base.clone())
        .json(json!({"customerPhone": "+358 50 111 2222", "internalNotes": ""}))
        .send()
        .await;
    res.assert_status(200);
    assert_eq!(res.body["customerPhone"], "+358 50 111 2222");
    assert!(res.body.get("internalNotes").is_none(), "{}", res.text);
    admin("PATCH", base.clone())
        .json(json!({"customerEmail": "not an email"}))
        .send()
        .await
        .assert_error(400, "VALIDATION_ERROR");
    // A draft is deleted.
    let draft = admin("POST", "/api/v1/admin/booking-groups".into())
        .json(json!({"partySize": 2}))
        .send()
        .await;
    draft.assert_status(200);
    let draft_path = format!("/api/v1/admin/booking-groups/{}", draft.str("id"));
    admin("DELETE", draft_path.clone())
        .send()
        .await
        .assert_status(204);
    admin("GET", draft_path)
        .send()
        .await
        .assert_error(404, "NOT_FOUND");
    app.assert_capacity_invariant(&t.id).await;
}

#[tokio::test]
async fn booking_groups_need_manage_bookings() {
    let v = venue().await;
    let (app, t) = (&v.app, &v.t);
    app.staff(&t.id, "viewer", "viewer-password-1", &[Role::Viewer])
        .await;
    let viewer = app.admin_token(&t.id, "viewer", "viewer-password-1").await;
    app.staff(&t.id, "desk", "desk-password-1", &[Role::FrontDesk])
        .await;
    let desk = app.admin_token(&t.id, "desk", "desk-password-1").await;
    app.get("/api/v1/admin/booking-groups")
        .tenant(&t.id)
        .token(&viewer)
        .send()
        .await
        .assert_error(403, "INSUFFICIENT_PERMISSIONS");
    app.post("/api/v1/admin/booking-groups")
        .tenant(&t.id)
        .token(&viewer)
        .json(json!({"partySize": 2}))
        .send()
        .await
        .assert_error(403, "INSUFFICIENT_PERMISSIONS");
    app.post("/api/v1/booking-groups/hold")
        .tenant(&t.id)
        .token(&viewer)
        .json(hold_body(2, vec![selection(&v.room, &v.room_slots[0])]))
        .send()
        .await
        .assert_error(403, "INSUFFICIENT_PERMISSIONS");
    app.get("/api/v1/admin/booking-groups")
        .tenant(&t.id)
        .send()
        .await
        .assert_status(401);
    // The front desk manages groups.
    app.post("/api/v1/admin/booking-groups")
        .tenant(&t.id)
        .token(&desk)
        .json(json!({"partySize": 2}))
        .send()
        .await
        .assert_status(200);
}

#[tokio::test]
async fn cancelling_a_group_cancels_every_booking_still_on_refunds_what_was_paid_and_keeps_the_arrived()
 {
    let v = venue().await;
    let (app, t) = (&v.app, &v.t);
    app.sandbox_cardpay(t).await;
    let res = hold(
        app,
        &t.id,
        hold_body(
            2,
            vec![
                selection(&v.climbing.catalog, &v.climbing.slots[0]),
                selection(&v.room, &v.room_slots[1]),
                selection(&v.room, &v.room_slots[2]),
            ],
        ),
    )
    .await;
    res.assert_status(200);
    let id = res.str("id").to_owned();
    let ids: Vec<String> = res.body["bookings"]
        .as_array()
        .expect("bookings")
        .iter()
        .map(|b| b["bookingId"].as_str().unwrap_or("").to_owned())
        .collect();
    // The group is paid by card (one payment, a share per booking); then the third
    // booking's party arrives.
    app.post(&format!("/api/v1/booking-groups/{id}/confirm"))
        .tenant(&t.id)
        .header("x-booking-token", res.str("groupToken"))
        .json(json!({"paymentMethod": "CARDPAY", "paymentMethodId": "pm_card_visa"}))
        .send()
        .await
        .assert_status(200);
    let mut paid = false;
    for _ in 0..100 {
        let b = super::payments_cancellation::booking(app, t, &ids[2]).await;
        if b["status"] == "paid" {
            paid = true;
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert!(paid, "the group was never paid");
    app.post(&format!("/api/v1/bookings/{}/mark-arrived", ids[2]))
        .tenant(&t.id)
        .token(&t.owner_token)
        .send()
        .await
        .assert_status(200);
    let path = format!("/api/v1/admin/booking-groups/{id}/cancel");
    app.post(&path)
        .tenant(&t.id)
        .token(&t.owner_token)
        .json(json!({"reason": "x".repeat(1001)}))
        .send()
        .await
        .assert_error(400, "VALIDATION_ERROR");
    let res = app
        .post(&path)
        .tenant(&t.id)
        .token(&t.owner_token)
        .json(json!({"reason": "The school trip was called off"}))
        .send()
        .await;
    res.assert_status(200);
    let cancelled = res.body["cancelled"].as_array().expect("cancelled");
    assert_eq!(cancelled.len(), 2, "{}", res.text);
    assert_eq!(cancelled[0]["bookingId"], ids[0].as_str());
    assert_eq!(cancelled[0]["status"], "canceled");
    assert_eq!(
        cancelled[0]["refund"]["total_refund_amount"], 4000,
        "{}",
        res.text
    );
    assert_eq!(cancelled[1]["bookingId"], ids[1].as_str());
    // Each booking's share back through the group's card payment.
    assert_eq!(cancelled[1]["refund"]["total_refund_amount"], 6000);
    assert_eq!(cancelled[1]["refund"]["success"], true, "{}", res.text);
    assert_eq!(res.body["kept"][0]["bookingId"], ids[2].as_str());
    assert_eq!(res.body["kept"][0]["status"], "arrived");
    // The seats are free again, and the group shows one booking still on.
    assert_eq!(
        seats_left(app, &t.id, &v.climbing.catalog, &v.climbing.slots[0]).await,
        10
    );
    assert_eq!(seats_left(app, &t.id, &v.room, &v.room_slots[1]).await, 6);
    assert_eq!(res.body["group"]["status"], "PARTIALLY_CANCELED");
    // Again: nothing more to cancel.
    let again = app
        .post(&path)
        .tenant(&t.id)
        .token(&t.owner_token)
        .json(json!({}))
        .send()
        .await;
    again.assert_status(200);
    assert!(
        again.body["cancelled"]
            .as_array()
            .is_some_and(Vec::is_empty)
    );
    // A draft holds nothing to cancel.
    let draft = app
        .post("/api/v1/admin/booking-groups")
        .tenant(&t.id)
        .token(&t.owner_token)
        .json(json!({"partySize": 2}))
        .send()
        .await;
    app.post(&format!(
        "/api/v1/admin/booking-groups/{}/cancel",
        draft.str("id")
    ))
    .tenant(&t.id)
    .token(&t.owner_token)
    .json(json!({}))
    .send()
    .await
    .assert_error(409, "INVALID_TRANSITION");
    app.assert_capacity_invariant(&t.id).await;
}
