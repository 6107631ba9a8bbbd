//! Confirming a booking group (spec Part B 3.3, 4.3, 6): one card payment for the whole
//! group keeps its bookings held until the provider's event confirms and pays them all,
//! once however often it is delivered, each booking's share refunded through the group's
//! payment; invoice and comp confirm at once and are staff's; a custom total is spread
//! exactly and needs its reason and permission.

use super::booking_groups::{Venue, hold, hold_body, selection, venue};
use super::payments_webhooks::deliver;
use chrono::Duration;
use kairos_app::payments::providers::sandbox::webhook_secret;
use kairos_domain::auth::Role;
use kairos_domain::payments::cardpay_signature::header;
use kairos_testkit::TestResponse;
use serde_json::{Value, json};

/// A group of the venue's two activities for 4 (80.00 + 120.00) at the `n`th hours: the
/// hold's answer.
async fn held_at(v: &Venue, n: usize) -> TestResponse {
    let res = hold(
        &v.app,
        &v.t.id,
        hold_body(
            4,
            vec![
                selection(&v.climbing.catalog, &v.climbing.slots[n]),
                selection(&v.room, &v.room_slots[n + 1]),
            ],
        ),
    )
    .await;
    res.assert_status(200);
    res
}

async fn held(v: &Venue) -> TestResponse {
    held_at(v, 0).await
}

async fn confirm(v: &Venue, group: &TestResponse, body: Value) -> TestResponse {
    v.app
        .post(&format!(
            "/api/v1/booking-groups/{}/confirm",
            group.str("id")
        ))
        .tenant(&v.t.id)
        .header("x-booking-token", group.str("groupToken"))
        .json(body)
        .send()
        .await
}

async fn admin_confirm(v: &Venue, id: &str, token: &str, body: Value) -> TestResponse {
    v.app
        .post(&format!("/api/v1/admin/booking-groups/{id}/confirm"))
        .tenant(&v.t.id)
        .token(token)
        .json(body)
        .send()
        .await
}

async fn staff_booking(v: &Venue, id: &str) -> Value {
    let res = v
        .app
        .get(&format!("/api/v1/admin/bookings/{id}"))
        .tenant(&v.t.id)
        .token(&v.t.owner_token)
        .send()
        .await;
    res.assert_status(200);
    res.body
}

async fn group(v: &Venue, id: &str) -> Value {
    let res = v
        .app
        .get(&format!("/api/v1/admin/booking-groups/{id}"))
        .tenant(&v.t.id)
        .token(&v.t.owner_token)
        .send()
        .await;
    res.assert_status(200);
    res.body
}

/// A signed `payment_intent.succeeded` of the group's tenant.
fn succeeded(v: &Venue, key: &str, event: &str, intent: &str, amount: i64) -> (Vec<u8>, String) {
    let body = serde_json::to_vec(&json!({
        "id": event, "object": "event", "type": "payment_intent.succeeded",
        "created": 1, "livemode": false,
        "data": {"object": {"id": intent, "object": "payment_intent", "amount": amount,
            "amount_received": amount, "currency": "eur", "status": "succeeded",
            "metadata": {"tenant_id": v.t.id}}}
    }))
    .unwrap_or_default();
    let secret = webhook_secret(&v.app.state.config.payments.secrets, key);
    let sig = header(&secret, v.app.clock_now().timestamp(), &body);
    (body, sig)
}

fn ids(group: &Value) -> Vec<String> {
    group["bookings"]
        .as_array()
        .map(|b| {
            b.iter()
                .filter_map(|x| x["bookingId"].as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

#[tokio::test]
async fn a_card_paid_group_stays_held_until_its_event_confirms_every_booking_once() {
    let v = venue().await;
    let key = v.app.sandbox_cardpay(&v.t).await;
    let g = held(&v).await;
    let before = g.str("holdExpiresAt").to_owned();
    let res = confirm(&v, &g, json!({"paymentMethod": "CARDPAY"})).await;
    res.assert_status(200);
    assert_eq!(res.body["status"], "HOLD", "stays held until paid");
    assert_eq!(res.body["paymentMethod"], "CARDPAY");
    assert!(res.body["confirmedAt"].is_null());
    let p = &res.body["payment"];
    assert_eq!(
        p["amount"], 20000,
        "one payment for the group: {}",
        res.text
    );
    assert_eq!(p["status"], "PENDING");
    assert_eq!(res.body["cardpayClientSecret"], p["clientSecret"]);
    assert!(res.body["cardpayClientSecret"].is_string());
    assert!(
        res.str("holdExpiresAt") > before.as_str(),
        "held for the payment"
    );
    let intent = p["paymentIntentId"].as_str().unwrap_or_default().to_owned();
    let booking_ids = ids(&res.body);
    for id in &booking_ids {
        assert_eq!(staff_booking(&v, id).await["status"], "hold");
    }
    // Back at the payment step: the same payment again.
    let again = confirm(&v, &g, json!({"paymentMethod": "cardpay"})).await;
    again.assert_status(200);
    assert_eq!(again.body["payment"]["paymentIntentId"], intent.as_str());

    // The customer pays with a test card: the sandbox reports it on the webhook. The same
    // report delivered by someone else meanwhile, twice, changes nothing more.
    let paid = confirm(
        &v,
        &g,
        json!({"paymentMethod": "CARDPAY", "paymentMethodId": "pm_card_visa"}),
    )
    .await;
    paid.assert_status(200);
    assert_eq!(paid.body["payment"]["paymentIntentId"], intent.as_str());
    let (body, sig) = succeeded(&v, &key, "evt_group_copy", &intent, 20000);
    let copy = deliver(&v.app, Some(&sig), &body).await;
    copy.assert_status(200);
    let dup = deliver(&v.app, Some(&sig), &body).await;
    dup.assert_status(200);
    assert_eq!(dup.body["error"], "DUPLICATE_EVENT");
    let mut after = Value::Null;
    for _ in 0..100 {
        after = group(&v, g.str("id")).await;
        if after["status"] == "CONFIRMED" {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert_eq!(after["status"], "CONFIRMED", "{after}");
    assert!(after["confirmedAt"].is_string());
    assert!(after["holdExpiresAt"].is_null());
    // Whichever delivery came first settled it; the sandbox's own is in by now too.
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    let shares = [8000, 12000];
    for (id, share) in booking_ids.iter().zip(shares) {
        let b = staff_booking(&v, id).await;
        assert_eq!(b["status"], "paid", "{b}");
        let payments = b["payments"].as_array().cloned().unwrap_or_default();
        assert_eq!(payments.len(), 1, "one share each: {b}");
        assert_eq!(payments[0]["status"], "COMPLETED");
        assert_eq!(payments[0]["amount"], share, "minor units");
        assert_eq!(b["paidAmount"].as_f64(), Some(share as f64 / 100.0));
    }
    let (body2, sig2) = succeeded(&v, &key, "evt_group_late", &intent, 20000);
    let late = deliver(&v.app, Some(&sig2), &body2).await;
    late.assert_status(200);
    assert_eq!(late.body["processed"], false, "{}", late.text);

    // Staff cancel one booking: its share comes back through the group's card payment.
    let res = v
        .app
        .post(&format!("/api/v1/bookings/{}/cancel", booking_ids[0]))
        .tenant(&v.t.id)
        .token(&v.t.owner_token)
        .json(json!({"reason": "one child ill"}))
        .send()
        .await;
    res.assert_status(200);
    let r = &res.body["refund"];
    assert_eq!(r["net_refund_amount"], 8000, "{}", res.text);
    assert!(r["refund_breakdown"][0]["provider_refund_id"].is_string());
    assert_eq!(group(&v, g.str("id")).await["status"], "PARTIALLY_CANCELED");
    v.app.assert_capacity_invariant(&v.t.id).await;
}

#[tokio::test]
async fn invoice_and_comp_confirm_a_group_at_once_and_are_for_staff_only() {
    let v = venue().await;
    let g = held(&v).await;
    confirm(&v, &g, json!({"paymentMethod": "INVOICE"}))
        .await
        .assert_error(403, "INSUFFICIENT_PERMISSIONS");
    confirm(&v, &g, json!({"paymentMethod": "POA"}))
        .await
        .assert_error(400, "VALIDATION_ERROR");
    confirm(&v, &g, json!({}))
        .await
        .assert_error(400, "VALIDATION_ERROR");
    // A front desk role manages bookings but may not invoice.
    v.app
        .staff(&v.t.id, "desk", "desk-password-1", &[Role::FrontDesk])
        .await;
    let desk = v.app.admin_token(&v.t.id, "desk", "desk-password-1").await;
    admin_confirm(&v, g.str("id"), &desk, json!({"paymentMethod": "INVOICE"}))
        .await
        .assert_error(403, "INSUFFICIENT_PERMISSIONS");

    let res = admin_confirm(
        &v,
        g.str("id"),
        &v.t.owner_token,
        json!({"paymentMethod": "INVOICE"}),
    )
    .await;
    res.assert_status(200);
    assert_eq!(res.body["status"], "CONFIRMED", "{}", res.text);
    assert_eq!(res.body["paymentMethod"], "INVOICE");
    assert!(res.body.get("payment").is_none());
    for (id, share) in ids(&res.body).iter().zip([8000, 12000]) {
        let b = staff_booking(&v, id).await;
        assert_eq!(b["status"], "confirmed");
        assert_eq!(b["payments"][0]["status"], "PENDING", "{b}");
        assert_eq!(b["payments"][0]["amount"], share);
    }
    // The customer gets the invoice: its number, a line per booking, tax, the due date
    // (the first activity starts within the 14 days) and the venue.
    let first = &ids(&res.body)[0];
    let messages = v
        .app
        .get(&format!(
            "/api/v1/admin/messaging/messages?bookingId={first}"
        ))
        .tenant(&v.t.id)
        .token(&v.t.owner_token)
        .send()
        .await;
    messages.assert_status(200);
    let invoice = messages.body["messages"]
        .as_array()
        .and_then(|m| m.iter().find(|m| m["templateKey"] == "group_invoice"))
        .cloned()
        .unwrap_or_else(|| panic!("no invoice: {}", messages.text));
    let number = format!("INV-{}", g.str("reference"));
    assert!(
        invoice["subject"]
            .as_str()
            .is_some_and(|s| s.contains(&number)),
        "{invoice}"
    );
    let body = invoice["body"].as_str().unwrap_or_default();
    for part in [
        number.as_str(),
        "Climbing",
        "Escape room",
        "80.00",
        "120.00",
        "200.00",
        "Due: November 22, 2026",
    ] {
        assert!(body.contains(part), "{part} missing: {body}");
    }
    // Confirmed once.
    admin_confirm(
        &v,
        g.str("id"),
        &v.t.owner_token,
        json!({"paymentMethod": "COMP"}),
    )
    .await
    .assert_error(409, "INVALID_TRANSITION");

    // A lapsed group is HOLD_EXPIRED.
    let late = held_at(&v, 1).await;
    v.app.clock.advance(Duration::minutes(16));
    admin_confirm(
        &v,
        late.str("id"),
        &v.t.owner_token,
        json!({"paymentMethod": "COMP"}),
    )
    .await
    .assert_error(409, "HOLD_EXPIRED");
}

#[tokio::test]
async fn a_custom_total_needs_its_reason_and_permission_and_is_spread_exactly() {
    let v = venue().await;
    let g = held(&v).await;
    let id = g.str("id").to_owned();
    let res = admin_confirm(
        &v,
        &id,
        &v.t.owner_token,
        json!({"paymentMethod": "COMP", "customTotal": 99.99}),
    )
    .await;
    res.assert_error(400, "VALIDATION_ERROR");
    assert!(res.text.contains("customPricingReason"), "{}", res.text);
    admin_confirm(
        &v,
        &id,
        &v.t.owner_token,
        json!({"paymentMethod": "COMP", "customTotal": -1, "customPricingReason": "x"}),
    )
    .await
    .assert_error(400, "VALIDATION_ERROR");
    // Managing bookings is not enough to set a price.
    v.app
        .staff(&v.t.id, "desk", "desk-password-1", &[Role::FrontDesk])
        .await;
    let desk = v.app.admin_token(&v.t.id, "desk", "desk-password-1").await;
    admin_confirm(
        &v,
        &id,
        &desk,
        json!({"paymentMethod": "CARDPAY", "customTotal": 99.99, "customPricingReason": "school rate"}),
    )
    .await
    .assert_error(403, "INSUFFICIENT_PERMISSIONS");
    assert_eq!(group(&v, &id).await["status"], "HOLD", "nothing changed");

    let res = admin_confirm(
        &v,
        &id,
        &v.t.owner_token,
        json!({"paymentMethod": "COMP", "customTotal": 99.99, "customPricingReason": "school rate"}),
    )
    .await;
    res.assert_status(200);
    assert_eq!(res.body["customTotal"], 99.99, "{}", res.text);
    assert_eq!(res.body["customPricingReason"], "school rate");
    let pricing = &res.body["pricing"];
    assert_eq!(pricing["grandTotal"], 99.99);
    // 80 : 120 of 9999 minor units is 3999.6 : 5999.4; the larger remainder gets the cent.
    let parts: Vec<f64> = pricing["allocations"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|x| x["allocatedTotal"].as_f64())
                .collect()
        })
        .unwrap_or_default();
    assert_eq!(parts, vec![40.0, 59.99]);
}

#[tokio::test]
async fn a_bank_paid_group_is_confirmed_by_the_banks_signed_callback() {
    use super::payments_bankpay::{PUBLIC, SECRET, callback, transaction_of};
    let server = kairos_testkit::bankpay::BankpayServer::start("375917", SECRET).await;
    let app = kairos_testkit::TestApp::builder()
        .bankpay(kairos_testkit::BankpaySetup {
            api_base: server.url.clone(),
            public_url: PUBLIC.to_owned(),
            env: None,
        })
        .spawn()
        .await;
    let v = super::booking_groups::venue_on(app).await;
    v.app
        .put("/api/v1/admin/payments/credentials/bankpay")
        .tenant(&v.t.id)
        .token(&v.t.owner_token)
        .json(json!({"merchantId": "375917", "secretKey": SECRET}))
        .send()
        .await
        .assert_status(200);
    let g = held(&v).await;
    let res = confirm(&v, &g, json!({"paymentMethod": "BANKPAY"})).await;
    res.assert_status(200);
    assert_eq!(res.body["status"], "HOLD", "{}", res.text);
    assert_eq!(res.body["payment"]["provider"], "bankpay");
    assert_eq!(res.body["payment"]["amount"], 20000);
    assert!(res.body.get("cardpayClientSecret").is_none());
    let asked = server.accepted();
    assert_eq!(asked.len(), 1, "one bank payment for the group");
    assert_eq!(asked[0]["amount"], 20000);
    let transaction = transaction_of(&res);
    callback(&v.app, &transaction, "ok", "20000", 0, SECRET)
        .await
        .assert_status(200);
    let after = group(&v, g.str("id")).await;
    assert_eq!(after["status"], "CONFIRMED", "{after}");
    for id in ids(&after) {
        assert_eq!(staff_booking(&v, &id).await["status"], "paid");
    }
    // The bank's retry of the same callback: nothing more.
    callback(&v.app, &transaction, "ok", "20000", 0, SECRET)
        .await
        .assert_status(200);
    for id in ids(&after) {
        let b = staff_booking(&v, &id).await;
        assert_eq!(b["payments"].as_array().map(Vec::len), Some(1), "{b}");
    }
}

#[tokio::test]
async fn a_withdrawn_group_payment_paid_after_all_confirms_nothing_and_is_refunded_whole() {
    let v = venue().await;
    v.app.sandbox_cardpay(&v.t).await;
    let g = held(&v).await;
    let card = confirm(&v, &g, json!({"paymentMethod": "CARDPAY"})).await;
    card.assert_status(200);
    let payment = card.body["payment"].clone();
    let secret = payment["clientSecret"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    let url = payment["sandboxConfirmUrl"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    // Staff refund only through the bookings' shares, never the group's payment itself.
    v.app
        .post("/api/v1/payments/refund")
        .tenant(&v.t.id)
        .token(&v.t.owner_token)
        .json(json!({"paymentId": payment["paymentId"]}))
        .send()
        .await
        .assert_error(400, "VALIDATION_ERROR");
    // Staff invoice the group instead: the card payment is withdrawn.
    let res = admin_confirm(
        &v,
        g.str("id"),
        &v.t.owner_token,
        json!({"paymentMethod": "INVOICE"}),
    )
    .await;
    res.assert_status(200);
    assert_eq!(res.body["status"], "CONFIRMED");
    // The customer pays the old card payment after all.
    let paid = v
        .app
        .post(&url)
        .header("content-type", "application/x-www-form-urlencoded")
        .raw(format!(
            "client_secret={secret}&payment_method=pm_card_visa"
        ))
        .send()
        .await;
    paid.assert_status(200);
    let letters = || async {
        v.app
            .get("/api/v1/admin/dead-letters?type=payment")
            .tenant(&v.t.id)
            .token(&v.t.owner_token)
            .send()
            .await
            .body["deadLetters"]
            .as_array()
            .cloned()
            .unwrap_or_default()
    };
    let mut open = Vec::new();
    for _ in 0..100 {
        open = letters().await;
        if !open.is_empty() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert_eq!(open.len(), 1, "{open:?}");
    assert_eq!(open[0]["errorType"], "PAID_AFTER_CLOSE");
    assert_eq!(open[0]["status"], "open");
    // Nothing was credited to the bookings: their invoice payments still wait.
    for id in ids(&res.body) {
        let b = staff_booking(&v, &id).await;
        assert_eq!(b["status"], "confirmed", "{b}");
        assert_eq!(b["paidAmount"], 0.0);
    }
    // The owed-refunds job gives the money back whole and the letter closes.
    let done = kairos_app::payments::owed::finish_unfinished(&v.app.state.app)
        .await
        .unwrap_or_else(|e| panic!("owed refunds: {}", e.message()));
    assert_eq!(done.refunded, 1, "{done:?}");
    let after = letters().await;
    assert_eq!(after[0]["status"], "resolved", "{after:?}");
}

#[tokio::test]
async fn the_customers_payment_step_keeps_the_total_staff_set() {
    let v = venue().await;
    v.app.sandbox_cardpay(&v.t).await;
    let g = held(&v).await;
    let staff = admin_confirm(
        &v,
        g.str("id"),
        &v.t.owner_token,
        json!({"paymentMethod": "CARDPAY", "customTotal": 150, "customPricingReason": "club rate"}),
    )
    .await;
    staff.assert_status(200);
    assert_eq!(staff.body["payment"]["amount"], 15000);
    assert_eq!(staff.body["pricing"]["pricingMethod"], "CUSTOM");
    let customer = confirm(&v, &g, json!({"paymentMethod": "CARDPAY"})).await;
    customer.assert_status(200);
    assert_eq!(customer.body["customTotal"], 150.0, "{}", customer.text);
    assert_eq!(
        customer.body["payment"]["paymentIntentId"],
        staff.body["payment"]["paymentIntentId"]
    );
}

#[tokio::test]
async fn money_taken_for_an_invoiced_group_is_spread_over_what_each_booking_owes() {
    async fn pay_group(v: &Venue, id: &str, body: Value) -> TestResponse {
        v.app
            .post(&format!("/api/v1/admin/booking-groups/{id}/mark-paid"))
            .tenant(&v.t.id)
            .token(&v.t.owner_token)
            .json(body)
            .send()
            .await
    }
    let v = venue().await;
    let g = held(&v).await;
    let id = g.str("id").to_owned();
    admin_confirm(
        &v,
        &id,
        &v.t.owner_token,
        json!({"paymentMethod": "INVOICE"}),
    )
    .await
    .assert_status(200);
    pay_group(&v, &id, json!({"amount": 0}))
        .await
        .assert_error(400, "VALIDATION_ERROR");
    let too_much = pay_group(&v, &id, json!({"amount": 200.01})).await;
    too_much.assert_error(409, "AMOUNT_EXCEEDS_BALANCE");
    // A first instalment of 50.00: 20.00 and 30.00 (80 : 120).
    let part = pay_group(
        &v,
        &id,
        json!({"amount": 50, "paymentMethod": "bank_transfer"}),
    )
    .await;
    part.assert_status(200);
    let bookings = ids(&part.body);
    for (booking, paid) in bookings.iter().zip([20.0, 30.0]) {
        let b = staff_booking(&v, booking).await;
        assert_eq!(b["status"], "part_paid", "{b}");
        assert_eq!(b["paidAmount"], paid);
    }
    // The rest, by default everything owed.
    pay_group(&v, &id, json!({})).await.assert_status(200);
    for booking in &bookings {
        let b = staff_booking(&v, booking).await;
        assert_eq!(b["status"], "paid", "{b}");
        assert_eq!(b["balanceDue"], 0.0);
    }
    assert_eq!(group(&v, &id).await["status"], "CONFIRMED");
    pay_group(&v, &id, json!({}))
        .await
        .assert_error(409, "AMOUNT_EXCEEDS_BALANCE");
}
