//! A group's one card payment meeting the rest of the world: a booking cancelled while the
//! group's money was on its way gets its share back (the others are confirmed and paid),
//! the payment deadline withdraws a group payment nobody made (its holds lapse, its seats
//! come back), and a refund made at the provider beyond what Kairos refunded goes before
//! staff.

use super::booking_groups::{Venue, hold, hold_body, seats_left, selection, venue};
use super::payments_webhooks::deliver;
use kairos_app::payments::providers::sandbox::webhook_secret;
use kairos_domain::payments::cardpay_signature::header;
use kairos_testkit::TestResponse;
use serde_json::{Value, json};

/// A group of the venue's two activities for 4 (80.00 + 120.00) confirmed for one card
/// payment: (the hold's answer, the confirmation's answer).
async fn card_group(v: &Venue) -> (TestResponse, TestResponse) {
    let g = hold(
        &v.app,
        &v.t.id,
        hold_body(
            4,
            vec![
                selection(&v.climbing.catalog, &v.climbing.slots[0]),
                selection(&v.room, &v.room_slots[1]),
            ],
        ),
    )
    .await;
    g.assert_status(200);
    let res = v
        .app
        .post(&format!("/api/v1/booking-groups/{}/confirm", g.str("id")))
        .tenant(&v.t.id)
        .header("x-booking-token", g.str("groupToken"))
        .json(json!({"paymentMethod": "CARDPAY"}))
        .send()
        .await;
    res.assert_status(200);
    assert_eq!(res.body["payment"]["amount"], 20000, "{}", res.text);
    (g, res)
}

/// The customer pays the group's intent with a test card at the sandbox, which reports it
/// on the webhook.
async fn pay(v: &Venue, confirmed: &TestResponse) {
    let p = &confirmed.body["payment"];
    let paid = v
        .app
        .post(p["sandboxConfirmUrl"].as_str().unwrap_or_default())
        .header("content-type", "application/x-www-form-urlencoded")
        .raw(format!(
            "client_secret={}&payment_method=pm_card_visa",
            p["clientSecret"].as_str().unwrap_or_default()
        ))
        .send()
        .await;
    paid.assert_status(200);
}

async fn get(v: &Venue, path: &str) -> Value {
    let res = v
        .app
        .get(path)
        .tenant(&v.t.id)
        .token(&v.t.owner_token)
        .send()
        .await;
    res.assert_status(200);
    res.body
}

async fn letters(v: &Venue) -> Vec<Value> {
    get(v, "/api/v1/admin/dead-letters?type=payment").await["deadLetters"]
        .as_array()
        .cloned()
        .unwrap_or_default()
}

/// Waits (up to 10 s) until `ready` holds for what `path` answers; the last answer.
async fn wait_for(v: &Venue, path: &str, ready: impl Fn(&Value) -> bool) -> Value {
    let mut last = Value::Null;
    for _ in 0..100 {
        last = get(v, path).await;
        if ready(&last) {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    last
}

fn booking_ids(confirmed: &TestResponse) -> Vec<String> {
    confirmed.body["bookings"]
        .as_array()
        .map(|b| {
            b.iter()
                .filter_map(|x| x["bookingId"].as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

#[tokio::test]
async fn a_booking_cancelled_while_the_group_pays_gets_its_share_back_and_the_rest_are_paid() {
    let v = venue().await;
    v.app.sandbox_cardpay(&v.t).await;
    let (g, confirmed) = card_group(&v).await;
    let ids = booking_ids(&confirmed);
    assert_eq!(ids.len(), 2);
    // Staff cancel the climbing booking (80.00) while the customer is at the card form.
    let res = v
        .app
        .post(&format!("/api/v1/bookings/{}/cancel", ids[0]))
        .tenant(&v.t.id)
        .token(&v.t.owner_token)
        .json(json!({"reason": "the wall is closed"}))
        .send()
        .await;
    res.assert_status(200);
    pay(&v, &confirmed).await;
    let room = wait_for(&v, &format!("/api/v1/admin/bookings/{}", ids[1]), |b| {
        b["status"] == "paid"
    })
    .await;
    assert_eq!(room["status"], "paid", "{room}");
    assert_eq!(room["paidAmount"].as_f64(), Some(120.0));
    let climbing = get(&v, &format!("/api/v1/admin/bookings/{}", ids[0])).await;
    assert_eq!(
        climbing["status"], "canceled",
        "stays cancelled: {climbing}"
    );
    // Its share was collected with the group's money and is owed back, before staff.
    let open = letters(&v).await;
    assert_eq!(open.len(), 1, "{open:?}");
    assert_eq!(open[0]["errorType"], "PAID_AFTER_CLOSE");
    assert_eq!(open[0]["status"], "open");
    assert!(
        open[0]["errorMessage"]
            .as_str()
            .unwrap_or_default()
            .contains(&ids[0]),
        "names the booking: {open:?}"
    );
    let done = kairos_app::payments::owed::finish_unfinished(&v.app.state.app)
        .await
        .unwrap_or_else(|e| panic!("owed refunds: {}", e.message()));
    assert_eq!(done.refunded, 1, "{done:?}");
    assert_eq!(letters(&v).await[0]["status"], "resolved");
    let climbing = get(&v, &format!("/api/v1/admin/bookings/{}", ids[0])).await;
    let share = &climbing["payments"][0];
    assert_eq!(share["amount"], 8000, "{climbing}");
    assert_eq!(share["status"], "REFUNDED", "{climbing}");
    // The room's share was not touched.
    let room = get(&v, &format!("/api/v1/admin/bookings/{}", ids[1])).await;
    assert_eq!(room["payments"][0]["status"], "COMPLETED");
    let group = get(&v, &format!("/api/v1/admin/booking-groups/{}", g.str("id"))).await;
    assert_eq!(group["status"], "PARTIALLY_CANCELED", "{group}");
    // What the group costs now: the room alone.
    assert_eq!(
        group["pricing"]["grandTotal"].as_f64(),
        Some(120.0),
        "{group}"
    );
    let allocations = group["pricing"]["allocations"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert_eq!(allocations.len(), 1, "{group}");
    assert_eq!(allocations[0]["bookingId"], ids[1].as_str());
    v.app.assert_capacity_invariant(&v.t.id).await;
}

#[tokio::test]
async fn the_payment_deadline_withdraws_a_group_payment_nobody_made_and_frees_its_seats() {
    let v = venue().await;
    v.app.sandbox_cardpay(&v.t).await;
    let (g, confirmed) = card_group(&v).await;
    let ids = booking_ids(&confirmed);
    let path = format!("/api/v1/admin/booking-groups/{}", g.str("id"));
    let slot = v.climbing.slots[0].as_str();
    let seats_before = seats_left(&v.app, &v.t.id, &v.climbing.catalog, slot).await + 4;
    // Not yet: the deadline (30 minutes) has not passed.
    v.app.clock.advance(chrono::Duration::minutes(20));
    let report = kairos_app::payments::deadline::run_once(&v.app.state.app)
        .await
        .unwrap_or_else(|e| panic!("deadline: {e}"));
    assert_eq!((report.settled, report.canceled), (0, 0));
    assert_eq!(get(&v, &path).await["status"], "HOLD");

    v.app.clock.advance(chrono::Duration::minutes(11));
    let report = kairos_app::payments::deadline::run_once(&v.app.state.app)
        .await
        .unwrap_or_else(|e| panic!("deadline: {e}"));
    assert_eq!((report.settled, report.canceled), (0, 1), "{report:?}");
    // The payment and the shares waiting on it are withdrawn; the holds lapsed with it.
    for id in &ids {
        let b = get(&v, &format!("/api/v1/admin/bookings/{id}")).await;
        assert_eq!(b["payments"][0]["status"], "CANCELED", "{b}");
        assert_ne!(b["status"], "confirmed", "{b}");
    }
    let group = get(&v, &path).await;
    assert_eq!(group["status"], "EXPIRED", "{group}");
    // Paying it now is too late: the public payment step refuses an expired group.
    let res = v
        .app
        .post(&format!("/api/v1/booking-groups/{}/confirm", g.str("id")))
        .tenant(&v.t.id)
        .header("x-booking-token", g.str("groupToken"))
        .json(json!({"paymentMethod": "CARDPAY"}))
        .send()
        .await;
    res.assert_error(409, "HOLD_EXPIRED");
    // Nothing more to do on the next pass.
    let report = kairos_app::payments::deadline::run_once(&v.app.state.app)
        .await
        .unwrap_or_else(|e| panic!("deadline: {e}"));
    assert_eq!(report, Default::default());
    // The sweep expires both holds; their seats are free again.
    let expired = v
        .app
        .store
        .expire_overdue_holds(v.app.clock_now(), 100)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(expired, 2);
    let slot = v.climbing.slots[0].as_str();
    assert_eq!(
        seats_left(&v.app, &v.t.id, &v.climbing.catalog, slot).await,
        seats_before
    );
    v.app.assert_capacity_invariant(&v.t.id).await;
}

/// A signed `charge.refunded` for the group's intent, `amount_refunded` of 20000.
fn refunded(
    v: &Venue,
    key: &str,
    event: &str,
    intent: &str,
    amount_refunded: i64,
) -> (Vec<u8>, String) {
    let body = serde_json::to_vec(&json!({
        "id": event, "object": "event", "type": "charge.refunded",
        "created": 1, "livemode": false,
        "data": {"object": {"id": "ch_group", "object": "charge", "payment_intent": intent,
            "amount": 20000, "amount_refunded": amount_refunded, "currency": "eur",
            "refunded": amount_refunded >= 20000}}
    }))
    .unwrap_or_default();
    let secret = webhook_secret(&v.app.state.config.payments.secrets, key);
    let sig = header(&secret, v.app.clock_now().timestamp(), &body);
    (body, sig)
}

#[tokio::test]
async fn a_group_refund_made_at_the_provider_beyond_kaiross_own_goes_before_staff() {
    let v = venue().await;
    let key = v.app.sandbox_cardpay(&v.t).await;
    let (g, confirmed) = card_group(&v).await;
    let ids = booking_ids(&confirmed);
    let intent = confirmed.body["payment"]["paymentIntentId"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    pay(&v, &confirmed).await;
    let path = format!("/api/v1/admin/booking-groups/{}", g.str("id"));
    let group = wait_for(&v, &path, |g| g["status"] == "CONFIRMED").await;
    assert_eq!(group["status"], "CONFIRMED", "{group}");
    // Kairos refunds the climbing booking's share (80.00) through the group's intent.
    let res = v
        .app
        .post(&format!("/api/v1/bookings/{}/cancel", ids[0]))
        .tenant(&v.t.id)
        .token(&v.t.owner_token)
        .json(json!({"reason": "one child ill"}))
        .send()
        .await;
    res.assert_status(200);
    assert_eq!(
        res.body["refund"]["net_refund_amount"], 8000,
        "{}",
        res.text
    );
    // The provider reports that refund: it is Kairos's own, recorded already.
    let (body, sig) = refunded(&v, &key, "evt_group_refund_1", &intent, 8000);
    let own = deliver(&v.app, Some(&sig), &body).await;
    own.assert_status(200);
    assert_eq!(own.body["processed"], false, "{}", own.text);
    assert!(letters(&v).await.is_empty());
    // Someone refunds 50.00 more in the provider's dashboard: no booking can be told
    // from it, so staff are asked to record it.
    let (body, sig) = refunded(&v, &key, "evt_group_refund_2", &intent, 13000);
    let outside = deliver(&v.app, Some(&sig), &body).await;
    outside.assert_status(200);
    assert_eq!(outside.body["processed"], true, "{}", outside.text);
    let open = letters(&v).await;
    assert_eq!(open.len(), 1, "{open:?}");
    assert_eq!(open[0]["errorType"], "REFUNDED_AT_PROVIDER");
    assert!(
        open[0]["errorMessage"]
            .as_str()
            .unwrap_or_default()
            .contains("50.00 EUR"),
        "{open:?}"
    );
    // The room's booking keeps its money as far as Kairos knows.
    let room = get(&v, &format!("/api/v1/admin/bookings/{}", ids[1])).await;
    assert_eq!(room["status"], "paid", "{room}");
    assert_eq!(room["paidAmount"].as_f64(), Some(120.0));
}
