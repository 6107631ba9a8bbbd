//! No-show auto-detection under a controlled clock: off by default; with a site's window,
//! a booking with no arrival recorded within it after its start is marked (`auto`), with
//! the policy's fee charged when the policy says so; an arrived booking is left alone;
//! a second pass (or instance) marks nothing twice. And other fees: damage applied,
//! the customer told, charged, waived.

use super::no_shows::{paid_with, venue};
use chrono::{Duration, TimeZone, Utc};
use kairos_app::jobs::detect_no_shows;
use serde_json::json;

#[tokio::test]
async fn bookings_past_their_sites_window_are_marked_no_show_once_with_the_fee_charged() {
    let (app, t, fx) =
        venue(json!({"enabled": true, "feeType": "flat", "flatFee": 1000, "autoCharge": true}))
            .await;
    let missing = paid_with(&app, &t, &fx, &fx.slots[0], "pm_card_visa").await;
    let came = app
        .hold_for(&t.id, &fx.catalog, &fx.slots[0], 1, "grace@example.com")
        .await;
    app.post(&format!("/api/v1/bookings/{}/confirm", came.str("id")))
        .tenant(&t.id)
        .header("x-booking-token", came.str("bookingToken"))
        .json(json!({"pricingHash": came.str("pricingHash"), "paymentMethod": "poa"}))
        .send()
        .await
        .assert_status(200);
    // The slot starts 2026-11-22 10:00 Helsinki (08:00Z).
    let start = Utc.with_ymd_and_hms(2026, 11, 22, 8, 0, 0).unwrap();
    app.clock.set(start + Duration::minutes(30));
    // Detection is off until the site sets a window.
    assert_eq!(detect_no_shows(&app.state.app).await.unwrap(), 0);
    let token = app
        .admin_token(&t.id, &t.owner_username, &t.owner_password)
        .await;
    let site = app
        .patch(&format!("/api/v1/admin/sites/{}", fx.catalog.site_id))
        .tenant(&t.id)
        .token(&token)
        .json(json!({"noShowDetectionMinutes": 15}))
        .send()
        .await;
    site.assert_status(200);
    assert_eq!(site.body["noShowDetectionMinutes"], 15);
    // Paying on arrival: paid at the desk, then arrived.
    for action in ["mark-paid", "mark-arrived"] {
        app.post(&format!("/api/v1/bookings/{}/{action}", came.str("id")))
            .tenant(&t.id)
            .token(&token)
            .send()
            .await
            .assert_status(200);
    }
    // Inside the window: nothing yet.
    app.clock.set(start + Duration::minutes(14));
    assert_eq!(detect_no_shows(&app.state.app).await.unwrap(), 0);
    app.clock.set(start + Duration::minutes(16));
    assert_eq!(detect_no_shows(&app.state.app).await.unwrap(), 1);
    assert_eq!(
        detect_no_shows(&app.state.app).await.unwrap(),
        0,
        "marked once"
    );
    let record = app
        .get(&format!(
            "/api/v1/admin/no-show/booking/{}",
            missing.str("id")
        ))
        .tenant(&t.id)
        .token(&token)
        .send()
        .await;
    record.assert_status(200);
    let data = &record.body["data"];
    assert_eq!(data["detectionMethod"], "auto");
    assert_eq!(data["markedBy"], "system:no-show detection");
    assert_eq!(data["minutesPastStartTime"], 16);
    assert_eq!(data["feeCalculated"], 1000);
    assert_eq!(data["feeStatus"], "charged", "{}", record.text);
    let arrived = app
        .get(&format!("/api/v1/admin/bookings/{}", came.str("id")))
        .tenant(&t.id)
        .token(&token)
        .send()
        .await;
    assert_eq!(arrived.body["status"], "arrived");
    // A window is 1 to 1440 minutes (null switches detection off).
    let site = app
        .patch(&format!("/api/v1/admin/sites/{}", fx.catalog.site_id))
        .tenant(&t.id)
        .token(&token)
        .json(json!({"noShowDetectionMinutes": 0}))
        .send()
        .await;
    site.assert_error(400, "VALIDATION_ERROR");
}

#[tokio::test]
async fn other_fees_are_applied_told_charged_and_waived() {
    let (app, t, fx) = venue(json!({"enabled": false, "feeType": "flat", "flatFee": 0})).await;
    let hold = paid_with(&app, &t, &fx, &fx.slots[0], "pm_card_visa").await;
    let id = hold.str("id");
    let bad = app
        .post(&format!("/api/v1/admin/bookings/{id}/apply-fee"))
        .tenant(&t.id)
        .token(&t.owner_token)
        .json(json!({"feeType": "parking", "amount": -1}))
        .send()
        .await;
    bad.assert_error(400, "VALIDATION_ERROR");
    let fields = bad.error_fields();
    for f in ["feeType", "amount", "reason"] {
        assert!(fields.contains(&f.to_owned()), "{f} in {fields:?}");
    }
    let damage = app
        .post(&format!("/api/v1/admin/bookings/{id}/apply-fee"))
        .tenant(&t.id)
        .token(&t.owner_token)
        .json(
            json!({"feeType": "damage", "amount": 4500, "reason": "broken paddle",
            "notifyCustomer": true, "chargeImmediately": true}),
        )
        .send()
        .await;
    damage.assert_status(200);
    assert_eq!(damage.body["fee"]["status"], "charged", "{}", damage.text);
    assert_eq!(damage.body["fee"]["amount"], 4500);
    assert!(
        damage.body["fee"]["chargeId"]
            .as_str()
            .is_some_and(|c| c.starts_with("pi_"))
    );
    let messages = app
        .get(&format!("/api/v1/admin/messaging/messages?bookingId={id}"))
        .tenant(&t.id)
        .token(&t.owner_token)
        .send()
        .await;
    assert!(messages.text.contains("fee_notice"), "{}", messages.text);
    let late = app
        .post(&format!("/api/v1/admin/bookings/{id}/apply-fee"))
        .tenant(&t.id)
        .token(&t.owner_token)
        .json(json!({"feeType": "late_cancellation", "amount": 1000, "reason": "late"}))
        .send()
        .await;
    late.assert_status(200);
    assert_eq!(late.body["fee"]["status"], "pending");
    let fee = late.body["fee"]["id"].as_str().unwrap().to_owned();
    app.post(&format!("/api/v1/admin/fees/{fee}/waive"))
        .tenant(&t.id)
        .token(&t.owner_token)
        .json(json!({}))
        .send()
        .await
        .assert_error(400, "VALIDATION_ERROR");
    let waived = app
        .post(&format!("/api/v1/admin/fees/{fee}/waive"))
        .tenant(&t.id)
        .token(&t.owner_token)
        .json(json!({"reason": "goodwill"}))
        .send()
        .await;
    waived.assert_status(200);
    assert_eq!(waived.body["fee"]["status"], "waived");
    app.post(&format!("/api/v1/admin/fees/{fee}/charge"))
        .tenant(&t.id)
        .token(&t.owner_token)
        .send()
        .await
        .assert_error(409, "FEE_NOT_OPEN");
    app.post(&format!(
        "/api/v1/admin/fees/{}/charge",
        uuid::Uuid::new_v4()
    ))
    .tenant(&t.id)
    .token(&t.owner_token)
    .send()
    .await
    .assert_error(404, "NOT_FOUND");
    let fees = app
        .get(&format!("/api/v1/admin/bookings/{id}/fees"))
        .tenant(&t.id)
        .token(&t.owner_token)
        .send()
        .await;
    let statuses: Vec<&str> = fees.body["fees"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["status"].as_str().unwrap())
        .collect();
    assert_eq!(statuses, ["charged", "waived"]);
}
