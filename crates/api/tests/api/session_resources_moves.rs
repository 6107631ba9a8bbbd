//! Bookings moving between sessions that need one room (spec Part B 4.12): a booking
//! leaving a session empty takes the room with it; a session whose room another session
//! holds refuses the move, and the booking stays where it was.

use crate::resource_setup::{call, resource};
use kairos_testkit::{TestApp, TestResponse, slot_ids};
use serde_json::json;

#[tokio::test]
async fn a_move_takes_the_room_along_or_is_refused_while_another_session_holds_it() {
    let app = TestApp::spawn().await;
    let t = app.tenant("acme").await;
    let fx = app.bookable(&t).await;
    let (site, product) = (&fx.catalog.site_id, &fx.catalog.product_id);
    // Customers may change bookings until the start; sessions keep 30 minutes of cleanup,
    // so each one overlaps the next.
    call(
        &app,
        &t,
        "PATCH",
        &format!("/api/v1/admin/sites/{site}"),
        Some(json!({"cancellationPolicy": "flexible"})),
    )
    .await
    .assert_status(200);
    call(
        &app,
        &t,
        "PATCH",
        &format!("/api/v1/admin/products/{product}"),
        Some(json!({"cleanupTime": 30})),
    )
    .await
    .assert_status(200);
    let room = resource(
        &app,
        &t,
        site,
        json!({"name": "Wall A", "resourceType": "ROOM", "sharedMode": "EXCLUSIVE"}),
    )
    .await;
    call(
        &app,
        &t,
        "PUT",
        &format!("/api/v1/admin/products/{product}/resources"),
        Some(json!({"resourceIds": [room]})),
    )
    .await
    .assert_status(200);
    let slots = fx.slots.clone();
    let offered = || async {
        let res = app
            .availability(&t.id, &fx.catalog, "2026-11-22", "2026-11-22", 1)
            .await;
        res.assert_status(200);
        slot_ids(&res.body)
    };
    // A customer's booking at 10:00, the session's only one.
    let held = app.hold(&t.id, &fx, &slots[0], 2).await;
    held.assert_status(200);
    let (id, token) = (
        held.str("id").to_owned(),
        held.str("bookingToken").to_owned(),
    );
    app.post(&format!("/api/v1/bookings/{id}/confirm"))
        .tenant(&t.id)
        .header("x-booking-token", &token)
        .json(json!({"pricingHash": held.str("pricingHash"), "paymentMethod": "poa"}))
        .send()
        .await
        .assert_status(200);
    let reschedule = |slot: String| {
        let (app, t, id, token) = (&app, &t, &id, &token);
        async move {
            app.post(&format!("/api/v1/bookings/{id}/reschedule"))
                .tenant(&t.id)
                .header("x-booking-token", token)
                .json(json!({"slotId": slot}))
                .send()
                .await
        }
    };
    // Moved to 11:00, which overlaps 10:00's cleanup: 10:00 is left empty and gives the
    // room up to the booking's new session.
    reschedule(slots[1].clone()).await.assert_status(200);
    let now = offered().await;
    assert!(
        !now.contains(&slots[0]) && now.contains(&slots[1]) && !now.contains(&slots[2]),
        "{now:?}"
    );
    // Staff move it back the same way.
    let back: TestResponse = call(
        &app,
        &t,
        "POST",
        "/api/v1/admin/calendar/commit-move",
        Some(
            json!({"booking_id": id, "new_slot_id": slots[0], "actor_id": "mia",
            "reason": "customer asked", "confirmed_override": true}),
        ),
    )
    .await;
    back.assert_status(200);
    // Another party takes 12:00; 11:00 now overlaps two sessions holding the room.
    app.hold(&t.id, &fx, &slots[2], 1).await.assert_status(200);
    let refused = reschedule(slots[1].clone()).await;
    refused.assert_status(409);
    assert_eq!(
        refused.body["error"], "SLOT_UNAVAILABLE",
        "{}",
        refused.text
    );
    assert_eq!(refused.body["details"]["reason"], "resource_unavailable");
    assert_eq!(refused.body["details"]["resourceId"], room.as_str());
    // Nothing moved: the booking is still at 10:00 and 10:00 still holds the room.
    let booking = app
        .get(&format!("/api/v1/bookings/{id}"))
        .tenant(&t.id)
        .header("x-booking-token", &token)
        .send()
        .await;
    booking.assert_status(200);
    assert_eq!(
        booking.body["slotId"],
        slots[0].as_str(),
        "{}",
        booking.text
    );
    let sheet = call(
        &app,
        &t,
        "GET",
        &format!("/api/v1/admin/day-sheet?siteId={site}&date=2026-11-22"),
        None,
    )
    .await;
    sheet.assert_status(200);
    assert_eq!(
        sheet.body["products"][0]["slots"][0]["resources"][0]["name"], "Wall A",
        "{}",
        sheet.text
    );
    app.assert_capacity_invariant(&t.id).await;
}
