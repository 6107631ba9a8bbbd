//! No-shows (spec Part B 2.8, 4.8, 4.9): the tracking record with the tenant's fee, the
//! fee charged off-session from the card the booking was paid with (the sandbox), owed
//! without one, declined, waived, refunded when the customer arrives late after all; the
//! pending list; the block of a customer; auto-detection under a controlled clock.

use kairos_testkit::{BookingFixture, TenantFixture, TestApp, TestResponse};
use serde_json::{Value, json};
use std::time::Duration;

/// A tenant with a bookable product, the sandbox card provider and a no-show policy of
/// `policy`: (app, tenant, fixture).
pub(crate) async fn venue(policy: Value) -> (TestApp, TenantFixture, BookingFixture) {
    let app = TestApp::builder()
        .limits(kairos_api::rate_limit::Limits::UNLIMITED)
        .spawn()
        .await;
    let t = app.tenant("acme").await;
    let fx = app.bookable(&t).await;
    app.sandbox_cardpay(&t).await;
    app.put("/api/v1/admin/no-show/policy")
        .tenant(&t.id)
        .token(&t.owner_token)
        .json(policy)
        .send()
        .await
        .assert_status(200);
    (app, t, fx)
}

/// A booking for 2 (40.00) on `slot`, paid by card with `pm` through the sandbox: its
/// hold answer.
pub(crate) async fn paid_with(
    app: &TestApp,
    t: &TenantFixture,
    fx: &BookingFixture,
    slot: &str,
    pm: &str,
) -> TestResponse {
    let hold = app.hold(&t.id, fx, slot, 2).await;
    hold.assert_status(200);
    app.post(&format!("/api/v1/bookings/{}/confirm", hold.str("id")))
        .tenant(&t.id)
        .header("x-booking-token", hold.str("bookingToken"))
        .json(
            json!({"pricingHash": hold.str("pricingHash"), "paymentMethod": "cardpay",
            "paymentMethodId": pm}),
        )
        .send()
        .await
        .assert_status(200);
    for _ in 0..100 {
        if super::payments_cancellation::booking(app, t, hold.str("id")).await["status"] == "paid" {
            return hold;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("never paid");
}

fn post<'a>(
    app: &'a TestApp,
    t: &TenantFixture,
    path: &str,
    body: Value,
) -> kairos_testkit::TestRequest<'a> {
    app.post(path)
        .tenant(&t.id)
        .token(&t.owner_token)
        .json(body)
}

async fn get(app: &TestApp, t: &TenantFixture, path: &str) -> TestResponse {
    app.get(path)
        .tenant(&t.id)
        .token(&t.owner_token)
        .send()
        .await
}

#[tokio::test]
async fn a_no_show_keeps_its_record_and_its_fee_is_charged_to_the_card_on_file_once() {
    let (app, t, fx) =
        venue(json!({"enabled": true, "feeType": "percentage", "percentage": 50})).await;
    let hold = paid_with(&app, &t, &fx, &fx.slots[0], "pm_card_visa").await;
    let id = hold.str("id");
    let res = post(&app, &t, &format!("/api/v1/admin/bookings/{id}/no-show"), json!({
        "noShowTime": "2026-11-22T08:10:00Z",
        "contactAttempts": [{"method": "phone", "timestamp": "2026-11-22T08:05:00Z", "result": "no_answer"}],
        "notes": "called once",
    }))
    .send()
    .await;
    res.assert_status(200);
    assert_eq!(res.body["status"], "no_show");
    let record = &res.body["noShow"];
    assert_eq!(record["detectionMethod"], "manual");
    assert_eq!(record["feeCalculated"], 2000, "half of 40.00: {}", res.text);
    assert_eq!(record["feeStatus"], "pending");
    assert_eq!(record["feeCharged"], 0);
    assert_eq!(record["noShowTime"], "2026-11-22T08:10:00Z");
    assert_eq!(record["contactAttempts"][0]["result"], "no_answer");
    assert_eq!(record["notes"], "called once");
    assert!(record["resolution"].is_null());

    let got = get(&app, &t, &format!("/api/v1/admin/no-show/booking/{id}")).await;
    got.assert_status(200);
    assert_eq!(got.body["success"], true);
    assert_eq!(got.body["data"]["id"], record["id"]);

    let pending = get(&app, &t, "/api/v1/admin/no-show/pending").await;
    pending.assert_status(200);
    assert_eq!(pending.body["data"]["total"], 1);
    assert_eq!(pending.body["data"]["pendingFeeAmount"], 2000);
    assert_eq!(pending.body["data"]["items"][0]["calculatedFee"], 2000);
    assert_eq!(
        pending.body["data"]["items"][0]["customerName"],
        "Ada Lovelace"
    );
    assert_eq!(
        pending.body["metadata"]["pending_fee_amount_formatted"],
        "€20.00"
    );
    assert_eq!(pending.body["metadata"]["items_returned"], 1);
    let by_site = get(
        &app,
        &t,
        &format!(
            "/api/v1/admin/no-show/pending?siteId={}",
            fx.catalog.site_id
        ),
    )
    .await;
    assert_eq!(by_site.body["metadata"]["total_items"], 1);

    // Charged now, off-session; the same request again answers the first answer.
    let charge = || {
        post(
            &app,
            &t,
            &format!("/api/v1/admin/no-show/booking/{id}/process-fee"),
            json!({"charge_immediately": true}),
        )
        .header("idempotency-key", "charge-1")
    };
    let first = charge().send().await;
    first.assert_status(200);
    let data = &first.body["data"];
    assert_eq!(data["chargedFee"], 2000, "{}", first.text);
    assert_eq!(data["calculatedFee"], 2000);
    assert_eq!(data["feeType"], "no_show");
    assert_eq!(data["paymentMethodUsed"], "card_on_file");
    assert!(
        data["chargeResponse"]["chargeId"]
            .as_str()
            .is_some_and(|c| c.starts_with("pi_"))
    );
    assert_eq!(data["chargeResponse"]["chargedAmount"], 2000);
    let again = charge().send().await;
    again.assert_status(200);
    assert_eq!(again.body, first.body);
    assert_eq!(again.header("idempotent-replayed"), Some("true"));

    let record = get(&app, &t, &format!("/api/v1/admin/no-show/booking/{id}")).await;
    assert_eq!(record.body["data"]["feeStatus"], "charged");
    assert_eq!(record.body["data"]["feeCharged"], 2000);
    assert_eq!(record.body["data"]["resolution"], "fee_charged");
    assert_eq!(record.body["data"]["fee"]["chargeAttempts"], 1);
    let pending = get(&app, &t, "/api/v1/admin/no-show/pending").await;
    assert_eq!(pending.body["data"]["total"], 0);
    // A charged fee is not charged again.
    post(
        &app,
        &t,
        &format!("/api/v1/admin/no-show/booking/{id}/process-fee"),
        json!({}),
    )
    .send()
    .await
    .assert_error(409, "NO_SHOW_RESOLVED");
    let fee = record.body["data"]["fee"]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    post(
        &app,
        &t,
        &format!("/api/v1/admin/fees/{fee}/charge"),
        json!({}),
    )
    .send()
    .await
    .assert_error(409, "FEE_NOT_OPEN");
    // The booking is not paid any further: the fee is a payment of its own.
    let b = super::payments_cancellation::booking(&app, &t, id).await;
    assert_eq!(b["status"], "no_show");
    assert_eq!(b["payments"].as_array().map(Vec::len), Some(1), "{b}");
}

#[tokio::test]
async fn a_card_that_needs_its_customer_is_declined_off_session_and_the_fee_stays_pending() {
    let (app, t, fx) = venue(json!({"enabled": true, "feeType": "flat", "flatFee": 1500})).await;
    let hold = paid_with(
        &app,
        &t,
        &fx,
        &fx.slots[0],
        "pm_card_authenticationRequired",
    )
    .await;
    let id = hold.str("id");
    app.patch(&format!("/api/v1/bookings/{id}/mark-no-show"))
        .tenant(&t.id)
        .token(&t.owner_token)
        .json(json!({"reason": "did not come"}))
        .send()
        .await
        .assert_status(200);
    let res = post(
        &app,
        &t,
        &format!("/api/v1/admin/no-show/booking/{id}/process-fee"),
        json!({}),
    )
    .send()
    .await;
    res.assert_error(400, "PAYMENT_FAILED");
    assert_eq!(res.body["details"]["provider"], "cardpay");
    assert_eq!(
        res.body["details"]["provider_error_code"],
        "authentication_required"
    );
    assert_eq!(res.body["details"]["retry_allowed"], true);
    assert!(res.body["details"]["suggested_action"].is_string());
    let record = get(&app, &t, &format!("/api/v1/admin/no-show/booking/{id}")).await;
    let fee = &record.body["data"]["fee"];
    assert_eq!(fee["status"], "pending");
    assert_eq!(fee["amount"], 1500);
    assert_eq!(fee["lastError"]["code"], "authentication_required");
    assert_eq!(record.body["data"]["reason"], "did not come");

    // Waived with 0 and a reason.
    post(
        &app,
        &t,
        &format!("/api/v1/admin/no-show/booking/{id}/process-fee"),
        json!({"override_fee_amount": 0}),
    )
    .send()
    .await
    .assert_error(400, "VALIDATION_ERROR");
    let waived = post(
        &app,
        &t,
        &format!("/api/v1/admin/no-show/booking/{id}/process-fee"),
        json!({"override_fee_amount": 0, "reason": "regular customer"}),
    )
    .send()
    .await;
    waived.assert_status(200);
    assert_eq!(waived.body["data"]["feeStatus"], "waived");
    assert_eq!(waived.body["data"]["chargedFee"], 0);
    let record = get(&app, &t, &format!("/api/v1/admin/no-show/booking/{id}")).await;
    assert_eq!(record.body["data"]["resolution"], "fee_waived");
    assert_eq!(record.body["data"]["resolutionNotes"], "regular customer");
}

#[tokio::test]
async fn without_a_card_on_file_the_fee_is_owed_and_staff_can_set_its_amount() {
    let (app, t, fx) = venue(json!({"enabled": true, "feeType": "flat", "flatFee": 1500})).await;
    let hold = app.hold(&t.id, &fx, &fx.slots[0], 2).await;
    let id = hold.str("id").to_owned();
    app.post(&format!("/api/v1/bookings/{id}/confirm"))
        .tenant(&t.id)
        .header("x-booking-token", hold.str("bookingToken"))
        .json(json!({"pricingHash": hold.str("pricingHash"), "paymentMethod": "poa"}))
        .send()
        .await
        .assert_status(200);
    let res = post(
        &app,
        &t,
        &format!("/api/v1/admin/bookings/{id}/no-show"),
        json!({}),
    )
    .send()
    .await;
    res.assert_status(200);
    assert_eq!(res.body["noShow"]["feeStatus"], "owed");
    assert!(
        res.body["warnings"][0]
            .as_str()
            .is_some_and(|w| w.contains("owed"))
    );
    let res = post(
        &app,
        &t,
        &format!("/api/v1/admin/no-show/booking/{id}/process-fee"),
        json!({"override_fee_amount": 900, "charge_immediately": true, "notes": "reduced"}),
    )
    .send()
    .await;
    res.assert_status(200);
    assert_eq!(res.body["data"]["feeStatus"], "owed");
    assert_eq!(res.body["data"]["chargedFee"], 0);
    assert!(res.body["data"]["paymentMethodUsed"].is_null());
    assert!(res.body["data"]["chargeResponse"].is_null());
    let fees = get(&app, &t, &format!("/api/v1/admin/bookings/{id}/fees")).await;
    assert_eq!(fees.body["fees"][0]["amount"], 900);
    assert_eq!(fees.body["fees"][0]["notes"], "reduced");
    // Marked again: the booking is a no-show already.
    post(
        &app,
        &t,
        &format!("/api/v1/admin/bookings/{id}/no-show"),
        json!({}),
    )
    .send()
    .await
    .assert_error(409, "INVALID_TRANSITION");
}

#[tokio::test]
async fn a_late_arrival_corrects_the_no_show_and_refunds_its_charged_fee() {
    let (app, t, fx) = venue(
        json!({"enabled": true, "feeType": "percentage", "percentage": 100, "autoCharge": true}),
    )
    .await;
    let hold = paid_with(&app, &t, &fx, &fx.slots[0], "pm_card_visa").await;
    let id = hold.str("id");
    let res = post(
        &app,
        &t,
        &format!("/api/v1/admin/bookings/{id}/no-show"),
        json!({}),
    )
    .send()
    .await;
    res.assert_status(200);
    // The policy charges at once.
    assert_eq!(res.body["noShow"]["feeStatus"], "charged", "{}", res.text);
    assert_eq!(res.body["noShow"]["feeCharged"], 4000);
    app.post(&format!("/api/v1/bookings/{id}/mark-arrived"))
        .tenant(&t.id)
        .token(&t.owner_token)
        .send()
        .await
        .assert_status(200);
    let record = get(&app, &t, &format!("/api/v1/admin/no-show/booking/{id}")).await;
    assert_eq!(record.body["data"]["resolution"], "arrived_late");
    assert_eq!(record.body["data"]["feeStatus"], "refunded");
    // The charge went back: nothing is left owed for the refunds job.
    let owed = app
        .store
        .unfinished_refunds(app.clock_now() + chrono::Duration::hours(1), 10)
        .await
        .unwrap();
    assert!(owed.is_empty(), "{owed:?}");
    let audit = app
        .store
        .list_audit(
            &kairos_domain::TenantId::parse("acme").unwrap(),
            "booking",
            id,
        )
        .await
        .unwrap();
    let actions: Vec<&str> = audit.iter().map(|a| a.action.as_str()).collect();
    for action in ["no_show.recorded", "fee.assessed", "no_show.resolved"] {
        assert!(actions.contains(&action), "{action} in {actions:?}");
    }
}

#[tokio::test]
async fn a_blocked_customer_is_refused_new_holds_until_staff_lift_the_block() {
    let (app, t, fx) = venue(json!({"enabled": false, "feeType": "flat", "flatFee": 0})).await;
    let hold = paid_with(&app, &t, &fx, &fx.slots[0], "pm_card_visa").await;
    let id = hold.str("id");
    let res = post(
        &app,
        &t,
        &format!("/api/v1/admin/bookings/{id}/no-show"),
        json!({"blockFutureBookings": true}),
    )
    .send()
    .await;
    res.assert_status(200);
    assert_eq!(res.body["noShow"]["feeStatus"], "none");
    assert_eq!(res.body["noShow"]["blockFutureBookings"], true);
    app.hold(&t.id, &fx, &fx.slots[1], 1)
        .await
        .assert_error(403, "CUSTOMER_BLOCKED");
    // Another customer books as before.
    app.hold_for(&t.id, &fx.catalog, &fx.slots[1], 1, "grace@example.com")
        .await
        .assert_status(200);
    let blocks = get(&app, &t, "/api/v1/admin/customer-blocks").await;
    assert_eq!(blocks.body["total"], 1);
    assert_eq!(blocks.body["blocks"][0]["email"], "ada@example.com");
    assert_eq!(blocks.body["blocks"][0]["bookingId"], id);
    let block = blocks.body["blocks"][0]["id"].as_str().unwrap().to_owned();
    let lifted = post(
        &app,
        &t,
        &format!("/api/v1/admin/customer-blocks/{block}/lift"),
        json!({"reason": "paid at the desk"}),
    )
    .send()
    .await;
    lifted.assert_status(200);
    assert!(lifted.body["liftedAt"].is_string());
    app.hold(&t.id, &fx, &fx.slots[1], 1)
        .await
        .assert_status(200);
    let active = get(&app, &t, "/api/v1/admin/customer-blocks").await;
    assert_eq!(active.body["total"], 0);
    let all = get(&app, &t, "/api/v1/admin/customer-blocks?includeLifted=true").await;
    assert_eq!(all.body["total"], 1);
    post(
        &app,
        &t,
        &format!(
            "/api/v1/admin/customer-blocks/{}/lift",
            uuid::Uuid::new_v4()
        ),
        json!({}),
    )
    .send()
    .await
    .assert_error(404, "NOT_FOUND");
}

#[tokio::test]
async fn the_no_show_endpoints_refuse_what_they_cannot_do() {
    let (app, t, fx) = venue(json!({"enabled": true, "feeType": "flat", "flatFee": 1500})).await;
    let hold = paid_with(&app, &t, &fx, &fx.slots[0], "pm_card_visa").await;
    let id = hold.str("id");
    let res = get(&app, &t, &format!("/api/v1/admin/no-show/booking/{id}")).await;
    res.assert_error(404, "NO_SHOW_NOT_FOUND");
    get(
        &app,
        &t,
        &format!("/api/v1/admin/no-show/booking/{}", uuid::Uuid::new_v4()),
    )
    .await
    .assert_error(404, "BOOKING_NOT_FOUND");
    let bad = post(
        &app,
        &t,
        &format!("/api/v1/admin/bookings/{id}/no-show"),
        json!({
            "noShowTime": "yesterday",
            "contactAttempts": [{"method": "", "result": "x"}],
        }),
    )
    .send()
    .await;
    bad.assert_error(400, "VALIDATION_ERROR");
    let fields = bad.error_fields();
    for f in [
        "noShowTime",
        "contactAttempts[0].method",
        "contactAttempts[0].timestamp",
    ] {
        assert!(fields.contains(&f.to_owned()), "{f} in {fields:?}");
    }
    post(
        &app,
        &t,
        &format!("/api/v1/admin/no-show/booking/{id}/process-fee"),
        json!({}),
    )
    .send()
    .await
    .assert_error(404, "NO_SHOW_NOT_FOUND");
    post(
        &app,
        &t,
        &format!("/api/v1/admin/bookings/{id}/no-show"),
        json!({}),
    )
    .send()
    .await
    .assert_status(200);
    // The fee assessment variant checks whose booking it names.
    post(
        &app,
        &t,
        "/api/v1/admin/no-shows/process-fee",
        json!({"booking_id": id, "tenant_id": "someone-else"}),
    )
    .send()
    .await
    .assert_error(403, "TENANT_MISMATCH");
    post(
        &app,
        &t,
        "/api/v1/admin/no-shows/process-fee",
        json!({"booking_id": id, "customer_id": uuid::Uuid::new_v4()}),
    )
    .send()
    .await
    .assert_error(400, "VALIDATION_ERROR");
    post(
        &app,
        &t,
        "/api/v1/admin/no-shows/process-fee",
        json!({"booking_id": "nope"}),
    )
    .send()
    .await
    .assert_error(400, "VALIDATION_ERROR");
    let assessed = post(
        &app,
        &t,
        "/api/v1/admin/no-shows/process-fee",
        json!({
            "booking_id": id, "tenant_id": t.id, "assessed_by": "Mia at the desk",
            "assessment_reason": "no call", "override_fee_amount": 1200,
        }),
    )
    .send()
    .await;
    assessed.assert_status(200);
    assert_eq!(assessed.body["success"], true);
    assert_eq!(assessed.body["calculated_fee_amount"], 1500);
    assert_eq!(assessed.body["charged_fee_amount"], 1200);
    assert_eq!(assessed.body["payment_method_used"], "card_on_file");
    assert_eq!(assessed.body["metadata"]["payment_attempts"], 1);
    assert!(
        assessed.body["metadata"]["policy_applied"]
            .as_str()
            .is_some_and(|p| p.contains("flat"))
    );
    post(
        &app,
        &t,
        &format!("/api/v1/admin/no-show/booking/{id}/resolve"),
        json!({"resolution": "rescheduled"}),
    )
    .send()
    .await
    .assert_error(409, "NO_SHOW_RESOLVED");
}

#[tokio::test]
async fn the_no_show_fee_policy_is_read_by_staff_and_set_by_owners_only() {
    let app = TestApp::spawn().await;
    let t = app.tenant("acme").await;
    let res = get(&app, &t, "/api/v1/admin/no-show/policy").await;
    res.assert_status(200);
    assert_eq!(res.body["enabled"], false);
    assert!(res.body["updatedAt"].is_null());
    let bad = app
        .put("/api/v1/admin/no-show/policy")
        .tenant(&t.id)
        .token(&t.owner_token)
        .json(json!({"feeType": "flat", "percentage": 10}))
        .send()
        .await;
    bad.assert_error(400, "VALIDATION_ERROR");
    let fields = bad.error_fields();
    for f in ["enabled", "flatFee", "percentage"] {
        assert!(fields.contains(&f.to_owned()), "{f} in {fields:?}");
    }
    app.put("/api/v1/admin/no-show/policy")
        .tenant(&t.id)
        .token(&t.owner_token)
        .json(json!({"enabled": true, "feeType": "percentage", "percentage": 101}))
        .send()
        .await
        .assert_error(400, "VALIDATION_ERROR");
    let set = app
        .put("/api/v1/admin/no-show/policy")
        .tenant(&t.id)
        .token(&t.owner_token)
        .json(json!({"enabled": true, "feeType": "flat", "flatFee": 2500, "autoCharge": true}))
        .send()
        .await;
    set.assert_status(200);
    assert_eq!(set.body["flatFee"], 2500);
    assert_eq!(set.body["autoCharge"], true);
    assert!(set.body["percentage"].is_null());
    let read = get(&app, &t, "/api/v1/admin/no-show/policy").await;
    assert_eq!(read.body, set.body);
}
