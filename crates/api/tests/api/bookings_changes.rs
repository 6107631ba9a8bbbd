//! Changing a booking: cancellation, rescheduling, the cancellation policy window, and staff
//! actions through the booking's day.

use super::bookings::{available, setup, token};
use kairos_domain::auth::Role;
use kairos_testkit::{BookingFixture, TestApp};
use serde_json::json;

#[tokio::test]
async fn cancel_releases_capacity_once() {
    let (app, t, fx) = setup().await;
    let a = app.hold(&t.id, &fx, &fx.slots[0], 4).await;
    assert_eq!(available(&app, &t.id, &fx, &fx.slots[0]).await, 6);
    let path = format!("/api/v1/bookings/{}/cancel", a.str("id"));
    let res = app
        .post(&path)
        .tenant(&t.id)
        .header("x-booking-token", &token(&a))
        .json(json!({"reason": "changed plans"}))
        .send()
        .await;
    res.assert_status(200);
    assert_eq!(res.body["status"], "canceled");
    assert_eq!(available(&app, &t.id, &fx, &fx.slots[0]).await, 10);
    app.post(&path)
        .tenant(&t.id)
        .header("x-booking-token", &token(&a))
        .send()
        .await
        .assert_error(409, "INVALID_TRANSITION");
    assert_eq!(available(&app, &t.id, &fx, &fx.slots[0]).await, 10);
    app.assert_capacity_invariant(&t.id).await;
}

async fn confirmed(
    app: &TestApp,
    t: &str,
    fx: &BookingFixture,
    slot: &str,
    party: u32,
) -> (String, String) {
    let a = app.hold(t, fx, slot, party).await;
    a.assert_status(200);
    app.post(&format!("/api/v1/bookings/{}/confirm", a.str("id")))
        .tenant(t)
        .header("x-booking-token", &token(&a))
        .json(json!({"pricingHash": a.str("pricingHash"), "paymentMethod": "poa"}))
        .send()
        .await
        .assert_status(200);
    (a.str("id").to_owned(), token(&a))
}

#[tokio::test]
async fn customers_cannot_cancel_or_move_inside_the_policy_window_but_staff_can() {
    let (app, t, fx) = setup().await;
    // Tomorrow 10:00 Helsinki is 23 hours away: inside the standard 24-hour window.
    let (id, tok) = confirmed(&app, &t.id, &fx, &fx.slots[0], 2).await;
    let res = app
        .post(&format!("/api/v1/bookings/{id}/cancel"))
        .tenant(&t.id)
        .header("x-booking-token", &tok)
        .send()
        .await;
    res.assert_error(409, "OUTSIDE_WINDOW");
    assert_eq!(res.body["details"]["startTime"], "2026-11-22T08:00:00Z");
    app.post(&format!("/api/v1/bookings/{id}/reschedule"))
        .tenant(&t.id)
        .header("x-booking-token", &tok)
        .json(json!({"slotId": fx.slots[1]}))
        .send()
        .await
        .assert_error(409, "OUTSIDE_WINDOW");
    // A flexible policy allows changes until the start.
    app.patch(&format!("/api/v1/admin/sites/{}", fx.catalog.site_id))
        .tenant(&t.id)
        .token(&t.owner_token)
        .json(json!({"cancellationPolicy": "flexible"}))
        .send()
        .await
        .assert_status(200);
    app.post(&format!("/api/v1/bookings/{id}/reschedule"))
        .tenant(&t.id)
        .header("x-booking-token", &tok)
        .json(json!({"slotId": fx.slots[1]}))
        .send()
        .await
        .assert_status(200);
    // Staff are not bound by the window.
    app.patch(&format!("/api/v1/admin/sites/{}", fx.catalog.site_id))
        .tenant(&t.id)
        .token(&t.owner_token)
        .json(json!({"cancellationPolicy": "strict"}))
        .send()
        .await
        .assert_status(200);
    let slots = app
        .availability(&t.id, &fx.catalog, "2026-11-22", "2026-11-22", 1)
        .await;
    assert!(slots.text.contains(&fx.slots[0]));
    let res = app
        .post(&format!("/api/v1/bookings/{id}/cancel"))
        .tenant(&t.id)
        .token(&t.owner_token)
        .send()
        .await;
    res.assert_status(200);
    assert_eq!(res.body["status"], "canceled");
    app.assert_capacity_invariant(&t.id).await;
}

#[tokio::test]
async fn reschedule_moves_seats_atomically() {
    let (app, t, fx) = setup().await;
    let a = app.hold(&t.id, &fx, &fx.slots[0], 4).await;
    app.hold(&t.id, &fx, &fx.slots[1], 8)
        .await
        .assert_status(200);
    let path = format!("/api/v1/bookings/{}/reschedule", a.str("id"));
    // The target has 2 seats left: refused, nothing moves.
    app.post(&path)
        .tenant(&t.id)
        .header("x-booking-token", &token(&a))
        .json(json!({"slotId": fx.slots[1]}))
        .send()
        .await
        .assert_error(409, "SLOT_UNAVAILABLE");
    assert_eq!(available(&app, &t.id, &fx, &fx.slots[0]).await, 6);
    let res = app
        .post(&path)
        .tenant(&t.id)
        .header("x-booking-token", &token(&a))
        .json(json!({"slotId": fx.slots[2]}))
        .send()
        .await;
    res.assert_status(200);
    assert_eq!(res.body["slotId"], fx.slots[2].as_str());
    assert_eq!(res.body["startTime"], "2026-11-22T10:00:00Z");
    assert_eq!(available(&app, &t.id, &fx, &fx.slots[0]).await, 10);
    assert_eq!(available(&app, &t.id, &fx, &fx.slots[2]).await, 6);
    app.post(&path)
        .tenant(&t.id)
        .header("x-booking-token", &token(&a))
        .json(json!({}))
        .send()
        .await
        .assert_error(400, "VALIDATION_ERROR");
    app.post(&path)
        .tenant(&t.id)
        .header("x-booking-token", &token(&a))
        .json(json!({"slotId": "01890000-0000-7000-8000-000000000000"}))
        .send()
        .await
        .assert_error(404, "NOT_FOUND");
    app.assert_capacity_invariant(&t.id).await;
}

#[tokio::test]
async fn staff_run_a_booking_through_its_day() {
    let (app, t, fx) = setup().await;
    let (id, tok) = confirmed(&app, &t.id, &fx, &fx.slots[0], 2).await;
    // Customers cannot mark their own booking.
    app.post(&format!("/api/v1/bookings/{id}/mark-paid"))
        .tenant(&t.id)
        .header("x-booking-token", &tok)
        .send()
        .await
        .assert_error(401, "UNAUTHORIZED");
    app.staff(&t.id, "viewer", "viewer-pass-1", &[Role::Viewer])
        .await;
    let viewer = app.admin_token(&t.id, "viewer", "viewer-pass-1").await;
    app.post(&format!("/api/v1/bookings/{id}/mark-paid"))
        .tenant(&t.id)
        .token(&viewer)
        .send()
        .await
        .assert_error(403, "INSUFFICIENT_PERMISSIONS");
    // Tentative: arriving before paying is not in the table.
    app.post(&format!("/api/v1/bookings/{id}/mark-arrived"))
        .tenant(&t.id)
        .token(&t.owner_token)
        .send()
        .await
        .assert_error(409, "INVALID_TRANSITION");
    let res = app
        .post(&format!("/api/v1/bookings/{id}/mark-paid"))
        .tenant(&t.id)
        .token(&t.owner_token)
        .json(json!({"paymentMethod": "cash"}))
        .send()
        .await;
    res.assert_status(200);
    assert_eq!(res.body["status"], "paid");
    assert_eq!(res.body["paidAmount"], 40.0);
    assert_eq!(res.body["balanceDue"], 0.0);
    let res = app
        .post(&format!("/api/v1/bookings/{id}/mark-arrived"))
        .tenant(&t.id)
        .token(&t.owner_token)
        .send()
        .await;
    res.assert_status(200);
    assert_eq!(res.body["status"], "arrived");
    let res = app
        .patch(&format!("/api/v1/bookings/{id}/mark-no-show"))
        .tenant(&t.id)
        .token(&t.owner_token)
        .json(json!({"reason": "late correction"}))
        .send()
        .await;
    res.assert_status(200);
    assert_eq!(res.body["status"], "no_show");
    app.post(&format!("/api/v1/bookings/{id}/cancel"))
        .tenant(&t.id)
        .token(&t.owner_token)
        .send()
        .await
        .assert_error(409, "INVALID_TRANSITION");
    app.assert_capacity_invariant(&t.id).await;
}

#[tokio::test]
async fn staff_without_the_permission_are_refused_not_misled() {
    let (app, t, fx) = setup().await;
    let a = app.hold(&t.id, &fx, &fx.slots[0], 2).await;
    app.staff(&t.id, "viewer", "viewer-pass-1", &[Role::Viewer])
        .await;
    let viewer = app.admin_token(&t.id, "viewer", "viewer-pass-1").await;
    app.get(&format!("/api/v1/bookings/{}", a.str("id")))
        .tenant(&t.id)
        .token(&viewer)
        .send()
        .await
        .assert_status(200);
    for action in ["cancel", "reschedule", "confirm"] {
        app.post(&format!("/api/v1/bookings/{}/{action}", a.str("id")))
            .tenant(&t.id)
            .token(&viewer)
            .json(json!({}))
            .send()
            .await
            .assert_error(403, "INSUFFICIENT_PERMISSIONS");
    }
    assert_eq!(available(&app, &t.id, &fx, &fx.slots[0]).await, 8);
}

#[tokio::test]
async fn only_bookings_still_to_come_can_be_rescheduled() {
    let (app, t, fx) = setup().await;
    let (id, _) = confirmed(&app, &t.id, &fx, &fx.slots[0], 2).await;
    for action in ["mark-paid", "mark-arrived"] {
        app.post(&format!("/api/v1/bookings/{id}/{action}"))
            .tenant(&t.id)
            .token(&t.owner_token)
            .send()
            .await
            .assert_status(200);
    }
    let res = app
        .post(&format!("/api/v1/bookings/{id}/reschedule"))
        .tenant(&t.id)
        .token(&t.owner_token)
        .json(json!({"slotId": fx.slots[1]}))
        .send()
        .await;
    res.assert_error(409, "INVALID_TRANSITION");
    assert_eq!(res.body["details"]["currentStatus"], "arrived");
    assert_eq!(available(&app, &t.id, &fx, &fx.slots[1]).await, 10);
    app.assert_capacity_invariant(&t.id).await;
}
