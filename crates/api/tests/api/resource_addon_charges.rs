//! A resource add-on added to a booking paid online: the booking owes the difference
//! (`paid` becomes `part_paid`) and it is charged through the booking's payment method,
//! once under retries; a booking paid at the desk owes it at the desk.

use super::payments_cancellation::booking;
use crate::resource_setup::{Room, room, shift};
use serde_json::{Value, json};

/// The room for the hour after the booking `hold` (an add-on window).
fn hour_after(r: &Room, hold: &kairos_testkit::TestResponse) -> Value {
    let end = hold.str("endTime");
    json!({"add": [{"configId": r.config, "startsAt": end, "endsAt": shift(end, 60),
        "durationMins": 60}]})
}

#[tokio::test]
async fn an_add_on_added_to_a_card_paid_booking_is_charged_to_the_card_once() {
    let r = room("EXCLUSIVE", 1, json!({})).await;
    let (app, t) = (&r.app, &r.t);
    app.sandbox_cardpay(t).await;
    let hold = r.card_paid(0, true).await;
    let (id, token) = (
        hold.str("id").to_owned(),
        hold.str("bookingToken").to_owned(),
    );
    let paid = booking(app, t, &id).await;
    assert_eq!(paid["price"]["total"], 50.0, "{paid}");
    let first = r.addons(&id).await.body["addons"][0]["allocationId"].clone();

    // The party takes the room for the hour before the game as well.
    let start = hold.str("startTime").to_owned();
    let more = || {
        app.patch(&format!("/api/v1/bookings/{id}/resource-addons"))
            .tenant(&t.id)
            .header("x-booking-token", &token)
            .header("idempotency-key", "one-more-hour")
            .json(
                json!({"add": [{"configId": r.config, "startsAt": shift(&start, -60),
                "endsAt": start, "durationMins": 60}]}),
            )
            .send()
    };
    let charged = more().await;
    charged.assert_status(200);
    let adj = &charged.body["paymentAdjustment"];
    assert_eq!(adj["type"], "ADDITIONAL_CHARGE", "{}", charged.text);
    assert_eq!(adj["amount"], 10.0);
    assert_eq!(adj["paymentRequired"], true);
    assert_eq!(adj["payment"]["provider"], "cardpay");
    assert_eq!(adj["payment"]["amount"], 1000);
    assert_eq!(adj["payment"]["status"], "PENDING");
    assert!(
        adj["payment"]["clientSecret"].is_string(),
        "{}",
        charged.text
    );
    assert_eq!(charged.body["pricingUpdate"]["newGrandTotal"], 60.0);
    assert_eq!(charged.body["addons"].as_array().map(Vec::len), Some(2));
    let owed = booking(app, t, &id).await;
    assert_eq!(owed["status"], "part_paid", "{owed}");
    assert_eq!(owed["balanceDue"], 10.0, "{owed}");
    // The retry after a lost answer gets the first answer: one charge, one intent.
    let again = more().await;
    again.assert_status(200);
    assert_eq!(again.body, charged.body);
    let payments = booking(app, t, &id).await["payments"].clone();
    assert_eq!(payments.as_array().map(Vec::len), Some(2), "{payments}");
    // While the charge is open nothing is given back.
    r.change(&id, &token, json!({"remove": [first]}))
        .await
        .assert_error(409, "CONFLICT");

    // The customer pays it with the card: the booking is paid again.
    let pay = app
        .post("/api/v1/payments/authorize")
        .tenant(&t.id)
        .header("x-booking-token", &token)
        .json(json!({"bookingId": id, "paymentMethodId": "pm_card_visa"}))
        .send()
        .await;
    pay.assert_status(200);
    assert_eq!(
        pay.body["paymentIntentId"],
        adj["payment"]["paymentIntentId"]
    );
    let settled = r.reaches(&id, "paid").await;
    assert_eq!(settled["paidAmount"], 60.0, "{settled}");
    assert_eq!(settled["balanceDue"], 0.0);
}

#[tokio::test]
async fn an_add_on_added_to_a_booking_paid_at_the_desk_is_owed_at_the_desk() {
    let r = room("EXCLUSIVE", 1, json!({})).await;
    let (app, t) = (&r.app, &r.t);
    let hold = r.hold(0, 2).await;
    let id = hold.str("id").to_owned();
    app.post(&format!("/api/v1/bookings/{id}/confirm"))
        .tenant(&t.id)
        .token(&t.owner_token)
        .json(json!({"pricingHash": hold.str("pricingHash"), "paymentMethod": "poa"}))
        .send()
        .await
        .assert_status(200);
    app.post(&format!("/api/v1/bookings/{id}/mark-paid"))
        .tenant(&t.id)
        .token(&t.owner_token)
        .json(json!({"paymentMethod": "cash"}))
        .send()
        .await
        .assert_status(200);
    let added = app
        .patch(&format!("/api/v1/bookings/{id}/resource-addons"))
        .tenant(&t.id)
        .token(&t.owner_token)
        .json(hour_after(&r, &hold))
        .send()
        .await;
    added.assert_status(200);
    let adj = &added.body["paymentAdjustment"];
    assert_eq!(adj["type"], "ADDITIONAL_CHARGE", "{}", added.text);
    assert_eq!(adj["amount"], 10.0);
    assert_eq!(adj["paymentRequired"], false, "nothing to pay online");
    assert!(adj.get("payment").is_none(), "{}", added.text);
    let owed = booking(app, t, &id).await;
    assert_eq!(owed["status"], "part_paid", "{owed}");
    assert_eq!(owed["balanceDue"], 10.0);
    // The day sheet offers taking it at the desk.
    let sheet = app
        .get(&format!(
            "/api/v1/admin/day-sheet?siteId={}&date=2026-11-22",
            r.fx.catalog.site_id
        ))
        .tenant(&t.id)
        .token(&t.owner_token)
        .send()
        .await;
    sheet.assert_status(200);
    let on_sheet = sheet.body["products"][0]["slots"][0]["bookings"][0].clone();
    assert_eq!(on_sheet["bookingId"], json!(id), "{}", sheet.text);
    assert_eq!(
        on_sheet["actions"],
        json!(["mark_paid", "mark_no_show", "cancel"])
    );
    // Collected at the desk: paid again.
    let settled = app
        .post(&format!("/api/v1/bookings/{id}/mark-paid"))
        .tenant(&t.id)
        .token(&t.owner_token)
        .json(json!({"paymentMethod": "cash"}))
        .send()
        .await;
    settled.assert_status(200);
    assert_eq!(settled.body["status"], "paid", "{}", settled.text);
}

#[tokio::test]
async fn a_charge_nobody_pays_is_withdrawn_at_the_deadline_and_the_booking_kept() {
    let r = room("EXCLUSIVE", 1, json!({})).await;
    let (app, t) = (&r.app, &r.t);
    app.sandbox_cardpay(t).await;
    let hold = r.card_paid(0, false).await;
    let (id, token) = (hold.str("id"), hold.str("bookingToken"));
    r.change(id, token, hour_after(&r, &hold))
        .await
        .assert_status(200);
    let charge = booking(app, t, id).await;
    assert_eq!(charge["status"], "part_paid", "{charge}");

    // Nobody pays it: at the deadline the charge is withdrawn, not the booking.
    app.clock.advance(chrono::Duration::minutes(31));
    let report = kairos_app::payments::deadline::run_once(&app.state.app)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(report.canceled, 1);
    let kept = booking(app, t, id).await;
    assert_eq!(kept["status"], "part_paid", "{kept}");
    assert_eq!(kept["balanceDue"], 10.0);
    let statuses: Vec<&str> = kept["payments"]
        .as_array()
        .map(|p| p.iter().filter_map(|p| p["status"].as_str()).collect())
        .unwrap_or_default();
    assert!(statuses.contains(&"CANCELED"), "{kept}");
    let notes = app
        .get(&format!("/api/v1/admin/bookings/{id}/notes"))
        .tenant(&t.id)
        .token(&t.owner_token)
        .send()
        .await;
    assert!(notes.text.contains("not made in time"), "{}", notes.text);
    // Nothing is open any more: the room can be given back again.
    let allocation = r.addons(id).await.body["addons"][0]["allocationId"].clone();
    r.change(id, token, json!({"remove": [allocation]}))
        .await
        .assert_status(200);
    // A second pass finds nothing more to do.
    let again = kairos_app::payments::deadline::run_once(&app.state.app)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(again.canceled, 0);
}

#[tokio::test]
async fn money_taken_at_the_desk_withdraws_the_open_charge() {
    let r = room("EXCLUSIVE", 1, json!({})).await;
    let (app, t) = (&r.app, &r.t);
    app.sandbox_cardpay(t).await;
    let hold = r.card_paid(0, false).await;
    let (id, token) = (hold.str("id"), hold.str("bookingToken"));
    let charged = r.change(id, token, hour_after(&r, &hold)).await;
    charged.assert_status(200);
    assert_eq!(
        charged.body["paymentAdjustment"]["payment"]["status"],
        "PENDING"
    );
    // The customer pays the room in cash at the desk instead.
    let settled = app
        .post(&format!("/api/v1/bookings/{id}/mark-paid"))
        .tenant(&t.id)
        .token(&t.owner_token)
        .json(json!({"paymentMethod": "cash"}))
        .send()
        .await;
    settled.assert_status(200);
    assert_eq!(settled.body["status"], "paid", "{}", settled.text);
    let after = booking(app, t, id).await;
    let charge = after["payments"]
        .as_array()
        .and_then(|p| {
            p.iter()
                .find(|p| p["amount"] == 1000 && p["method"] == "cardpay")
        })
        .cloned()
        .unwrap_or_default();
    assert_eq!(charge["status"], "CANCELED", "{after}");
    // The card can no longer be asked for it, and the room may be given back again.
    app.post("/api/v1/payments/authorize")
        .tenant(&t.id)
        .header("x-booking-token", token)
        .json(json!({"bookingId": id}))
        .send()
        .await
        .assert_error(409, "INVALID_TRANSITION");
    let allocation = r.addons(id).await.body["addons"][0]["allocationId"].clone();
    r.change(id, token, json!({"remove": [allocation]}))
        .await
        .assert_status(200);
}
