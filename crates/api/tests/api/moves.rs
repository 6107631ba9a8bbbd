//! Two-phase booking moves (spec Part B 4.10): the precheck's conflicts, hard ones
//! blocking and soft ones needing the override; the commit all or nothing, with its
//! capacity updates and the projection version availability shows; MOVE_EXECUTION_FAILED
//! with nothing changed; a move and a hold racing for the last seats never oversell; two
//! moves of one booking at once apply one.

use kairos_testkit::{BookingFixture, TenantFixture, TestApp, TestResponse};
use serde_json::{Value, json};

/// A tenant with a bookable product (capacity 10, four slots tomorrow) at a site with
/// `policy`.
async fn venue(policy: &str) -> (TestApp, TenantFixture, BookingFixture) {
    let app = TestApp::builder()
        .limits(kairos_api::rate_limit::Limits::UNLIMITED)
        .spawn()
        .await;
    let t = app.tenant("acme").await;
    let fx = app.bookable(&t).await;
    app.patch(&format!("/api/v1/admin/sites/{}", fx.catalog.site_id))
        .tenant(&t.id)
        .token(&t.owner_token)
        .json(json!({"cancellationPolicy": policy}))
        .send()
        .await
        .assert_status(200);
    (app, t, fx)
}

/// A hold of `party` on `slot` for `email`: its id.
async fn held(
    app: &TestApp,
    t: &TenantFixture,
    fx: &BookingFixture,
    slot: &str,
    party: u32,
    email: &str,
) -> String {
    let res = app.hold_for(&t.id, &fx.catalog, slot, party, email).await;
    res.assert_status(200);
    res.str("id").to_owned()
}

/// The same, confirmed to pay on arrival (tentative).
async fn booked(
    app: &TestApp,
    t: &TenantFixture,
    fx: &BookingFixture,
    slot: &str,
    party: u32,
    email: &str,
) -> String {
    let res = app.hold_for(&t.id, &fx.catalog, slot, party, email).await;
    res.assert_status(200);
    app.post(&format!("/api/v1/bookings/{}/confirm", res.str("id")))
        .tenant(&t.id)
        .header("x-booking-token", res.str("bookingToken"))
        .json(json!({"pricingHash": res.str("pricingHash"), "paymentMethod": "poa"}))
        .send()
        .await
        .assert_status(200);
    res.str("id").to_owned()
}

async fn call(app: &TestApp, t: &TenantFixture, what: &str, body: Value) -> TestResponse {
    app.post(&format!("/api/v1/admin/calendar/{what}"))
        .tenant(&t.id)
        .token(&t.owner_token)
        .json(body)
        .send()
        .await
}

fn types(list: &Value) -> Vec<&str> {
    list.as_array()
        .map(|l| l.iter().filter_map(|c| c["type"].as_str()).collect())
        .unwrap_or_default()
}

#[tokio::test]
async fn a_clean_move_is_committed_with_its_capacity_updates_and_projection_version() {
    let (app, t, fx) = venue("flexible").await;
    let id = booked(&app, &t, &fx, &fx.slots[0], 2, "ada@example.com").await;
    let body = json!({"booking_id": id, "new_slot_id": fx.slots[1], "actor_id": "mia",
        "reason": "customer asked"});
    let pre = call(&app, &t, "precheck-move", body.clone()).await;
    pre.assert_status(200);
    assert_eq!(pre.body["is_valid"], true, "{}", pre.text);
    assert_eq!(pre.body["can_proceed"], true);
    assert_eq!(
        pre.body["metadata"]["original_slot_id"],
        fx.slots[0].as_str()
    );
    assert_eq!(pre.body["metadata"]["new_slot_id"], fx.slots[1].as_str());
    assert!(pre.body["metadata"]["validation_duration_ms"].is_u64());
    let res = app
        .post("/api/v1/admin/calendar/commit-move")
        .tenant(&t.id)
        .token(&t.owner_token)
        .header("idempotency-key", "move-1")
        .json(body.clone())
        .send()
        .await;
    res.assert_status(200);
    assert_eq!(res.body["success"], true);
    assert_eq!(
        res.body["booking_update"]["previous_slot_id"],
        fx.slots[0].as_str()
    );
    assert_eq!(
        res.body["booking_update"]["new_slot_id"],
        fx.slots[1].as_str()
    );
    assert_eq!(res.body["booking_update"]["reason"], "customer asked");
    let updates = res.body["capacity_updates"].as_array().unwrap();
    assert_eq!(updates[0]["slot_id"], fx.slots[0].as_str());
    assert_eq!(
        (
            updates[0]["previous_count"].as_i64(),
            updates[0]["new_count"].as_i64()
        ),
        (Some(2), Some(0))
    );
    assert_eq!(
        (
            updates[1]["previous_count"].as_i64(),
            updates[1]["new_count"].as_i64()
        ),
        (Some(0), Some(2))
    );
    assert_eq!(updates[1]["available_capacity"], 8);
    assert_eq!(updates[1]["utilization_percentage"], 20.0);
    assert_eq!(res.body["projection_update"]["updated_slots_count"], 2);
    assert_eq!(res.body["metadata"]["validation_bypassed"], false);
    // Availability shows the same projection version on the slot.
    let avail = app
        .availability(&t.id, &fx.catalog, "2026-11-22", "2026-11-22", 1)
        .await;
    let slot = avail.body["slots"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["slotId"] == fx.slots[1].as_str())
        .unwrap();
    assert_eq!(
        slot["projectionVersion"],
        res.body["projection_update"]["projection_version"]
    );
    assert_eq!(slot["availableCapacity"], 8);
    // The same request again answers the first answer; the same move without the key
    // finds it made.
    let again = app
        .post("/api/v1/admin/calendar/commit-move")
        .tenant(&t.id)
        .token(&t.owner_token)
        .header("idempotency-key", "move-1")
        .json(body.clone())
        .send()
        .await;
    assert_eq!(again.body, res.body);
    let twice = call(&app, &t, "commit-move", body).await;
    twice.assert_error(409, "MOVE_EXECUTION_FAILED");
    assert_eq!(twice.body["details"]["reason"], "already_in_slot");
    let b = app
        .get(&format!("/api/v1/admin/bookings/{id}"))
        .tenant(&t.id)
        .token(&t.owner_token)
        .send()
        .await;
    assert_eq!(b.body["slot"]["slotId"], fx.slots[1].as_str(), "{}", b.text);
    let audit = app
        .store
        .list_audit(
            &kairos_domain::TenantId::parse("acme").unwrap(),
            "booking",
            &id,
        )
        .await
        .unwrap();
    let moved = audit.iter().find(|a| a.action == "booking.moved").unwrap();
    assert_eq!(moved.changes["outcome"], "committed");
    assert_eq!(moved.changes["reason"], "customer asked");
    assert_eq!(moved.changes["requestedBy"], "mia");
    assert_eq!(
        moved.changes["transactionId"],
        res.body["metadata"]["transaction_id"]
    );
    assert!(audit.iter().any(|a| a.action == "booking.move_failed"));
    app.assert_capacity_invariant(&t.id).await;
}

#[tokio::test]
async fn hard_conflicts_block_and_soft_ones_need_the_override() {
    let (app, t, fx) = venue("standard").await;
    // slot 2 is 7 of 10 full; slot 3 has a booking of the same customer right after slot 2.
    held(&app, &t, &fx, &fx.slots[2], 7, "crowd@example.com").await;
    let id = booked(&app, &t, &fx, &fx.slots[0], 4, "ada@example.com").await;
    let pre = call(
        &app,
        &t,
        "precheck-move",
        json!({"booking_id": id, "new_slot_id": fx.slots[2]}),
    )
    .await;
    pre.assert_status(200);
    assert_eq!(pre.body["is_valid"], false);
    assert_eq!(types(&pre.body["hard_conflicts"]), ["capacity_exceeded"]);
    assert_eq!(pre.body["hard_conflicts"][0]["severity"], "blocking");
    let res = call(
        &app,
        &t,
        "commit-move",
        json!({"booking_id": id, "new_slot_id": fx.slots[2],
        "confirmed_override": true}),
    )
    .await;
    res.assert_error(409, "MOVE_EXECUTION_FAILED");
    assert_eq!(res.body["details"]["reason"], "hard_conflicts");
    assert!(res.body["details"]["suggested_action"].is_string());
    assert_eq!(
        types(&res.body["details"]["hard_conflicts"]),
        ["capacity_exceeded"]
    );

    // To slot 1: inside the standard window (23 h before the start), 6 of 10 after, and
    // the customer's other booking on slot 2 right after it: soft conflicts.
    booked(&app, &t, &fx, &fx.slots[3], 1, "ada@example.com").await;
    held(&app, &t, &fx, &fx.slots[1], 5, "crowd2@example.com").await;
    let pre = call(
        &app,
        &t,
        "precheck-move",
        json!({"booking_id": id, "new_slot_id": fx.slots[2]}),
    )
    .await;
    assert!(types(&pre.body["hard_conflicts"]).contains(&"capacity_exceeded"));
    let to_slot1 = json!({"booking_id": id, "new_slot_id": fx.slots[1]});
    let pre = call(&app, &t, "precheck-move", to_slot1.clone()).await;
    assert_eq!(pre.body["is_valid"], true, "{}", pre.text);
    assert_eq!(pre.body["can_proceed"], false);
    let soft = types(&pre.body["soft_conflicts"]);
    assert!(soft.contains(&"policy_deviation"), "{soft:?}");
    assert!(soft.contains(&"overbooking_risk"), "{soft:?}");
    assert_eq!(pre.body["soft_conflicts"][0]["severity"], "warning");
    let res = call(&app, &t, "commit-move", to_slot1.clone()).await;
    res.assert_error(409, "MOVE_EXECUTION_FAILED");
    assert_eq!(
        res.body["details"]["reason"],
        "soft_conflicts_not_confirmed"
    );
    let mut confirmed = to_slot1;
    confirmed["confirmed_override"] = json!(true);
    let res = call(&app, &t, "commit-move", confirmed).await;
    res.assert_status(200);
    assert_eq!(res.body["metadata"]["validation_bypassed"], true);
    assert_eq!(
        res.body["metadata"]["soft_conflicts_overridden"].as_u64(),
        Some(soft.len() as u64)
    );
    app.assert_capacity_invariant(&t.id).await;
}

#[tokio::test]
async fn the_move_endpoints_refuse_what_they_cannot_do() {
    let (app, t, fx) = venue("flexible").await;
    let id = booked(&app, &t, &fx, &fx.slots[0], 2, "ada@example.com").await;
    let bad = call(&app, &t, "precheck-move", json!({"booking_id": "x"})).await;
    bad.assert_error(400, "VALIDATION_ERROR");
    let fields = bad.error_fields();
    assert!(
        fields.contains(&"booking_id".to_owned()) && fields.contains(&"new_slot_id".to_owned()),
        "{fields:?}"
    );
    call(
        &app,
        &t,
        "precheck-move",
        json!({"booking_id": uuid::Uuid::new_v4(), "new_slot_id": fx.slots[1]}),
    )
    .await
    .assert_error(404, "BOOKING_NOT_FOUND");
    call(
        &app,
        &t,
        "commit-move",
        json!({"booking_id": id, "new_slot_id": uuid::Uuid::new_v4()}),
    )
    .await
    .assert_error(404, "NOT_FOUND");
    call(
        &app,
        &t,
        "precheck-move",
        json!({"booking_id": id, "new_slot_id": fx.slots[0]}),
    )
    .await
    .assert_error(400, "VALIDATION_ERROR");
    // A started slot is a time conflict.
    app.clock.set(
        chrono::DateTime::parse_from_rfc3339("2026-11-22T09:30:00Z")
            .unwrap()
            .into(),
    );
    let token = app
        .admin_token(&t.id, &t.owner_username, &t.owner_password)
        .await;
    let pre = app
        .post("/api/v1/admin/calendar/precheck-move")
        .tenant(&t.id)
        .token(&token)
        .json(json!({"booking_id": id, "new_slot_id": fx.slots[1]}))
        .send()
        .await;
    assert_eq!(
        types(&pre.body["hard_conflicts"]),
        ["time_conflict"],
        "{}",
        pre.text
    );
    // A cancelled booking does not move.
    app.post(&format!("/api/v1/admin/bookings/{id}/cancel"))
        .tenant(&t.id)
        .token(&token)
        .json(json!({"reason": "duplicate"}))
        .send()
        .await
        .assert_status(200);
    let pre = app
        .post("/api/v1/admin/calendar/precheck-move")
        .tenant(&t.id)
        .token(&token)
        .json(json!({"booking_id": id, "new_slot_id": fx.slots[2]}))
        .send()
        .await;
    pre.assert_error(409, "INVALID_TRANSITION");
    let res = app
        .post("/api/v1/admin/calendar/commit-move")
        .tenant(&t.id)
        .token(&token)
        .json(json!({"booking_id": id, "new_slot_id": fx.slots[2]}))
        .send()
        .await;
    res.assert_error(409, "MOVE_EXECUTION_FAILED");
    assert_eq!(res.body["details"]["reason"], "booking_not_movable");
}

#[tokio::test]
async fn a_move_and_a_hold_racing_for_the_last_seats_never_oversell() {
    let (app, t, fx) = venue("flexible").await;
    for round in 0..4 {
        // The target slot keeps 2 seats; a booking of 2 moves in while a hold of 2 tries.
        let target = &fx.slots[3];
        let filler = held(
            &app,
            &t,
            &fx,
            target,
            8,
            &format!("fill{round}@example.com"),
        )
        .await;
        let mover = booked(
            &app,
            &t,
            &fx,
            &fx.slots[round % 3],
            2,
            &format!("m{round}@example.com"),
        )
        .await;
        let email = format!("h{round}@example.com");
        let (moved, hold) = tokio::join!(
            call(
                &app,
                &t,
                "commit-move",
                json!({"booking_id": mover, "new_slot_id": target,
                "confirmed_override": true})
            ),
            app.hold_for(&t.id, &fx.catalog, target, 2, &email),
        );
        let wins = usize::from(moved.status == 200) + usize::from(hold.status == 200);
        assert_eq!(
            wins, 1,
            "round {round}: move {} hold {}",
            moved.text, hold.text
        );
        app.assert_capacity_invariant(&t.id).await;
        // Free the slot for the next round.
        for id in [
            Some(filler),
            (hold.status == 200).then(|| hold.str("id").to_owned()),
            (moved.status == 200).then_some(mover),
        ]
        .into_iter()
        .flatten()
        {
            app.post(&format!("/api/v1/admin/bookings/{id}/cancel"))
                .tenant(&t.id)
                .token(&t.owner_token)
                .json(json!({"reason": "duplicate"}))
                .send()
                .await
                .assert_status(200);
        }
    }
}

#[tokio::test]
async fn two_moves_of_one_booking_at_once_apply_one() {
    let (app, t, fx) = venue("flexible").await;
    let id = booked(&app, &t, &fx, &fx.slots[0], 2, "ada@example.com").await;
    let body = json!({"booking_id": id, "new_slot_id": fx.slots[2]});
    let (a, b) = tokio::join!(
        call(&app, &t, "commit-move", body.clone()),
        call(&app, &t, "commit-move", body),
    );
    let mut statuses = [a.status.as_u16(), b.status.as_u16()];
    statuses.sort_unstable();
    assert_eq!(statuses, [200, 409], "{} / {}", a.text, b.text);
    let failed = if a.status == 409 { &a } else { &b };
    assert_eq!(failed.body["details"]["reason"], "already_in_slot");
    app.assert_capacity_invariant(&t.id).await;
}

#[tokio::test]
async fn a_slot_the_schedule_no_longer_offers_is_a_blackout_window() {
    let (app, t, fx) = venue("flexible").await;
    // A booking keeps a slot of 23 November; a closure that day orphans it.
    let day = app
        .availability(&t.id, &fx.catalog, "2026-11-23", "2026-11-23", 1)
        .await;
    let closed = day.body["slots"][0]["slotId"].as_str().unwrap().to_owned();
    booked(&app, &t, &fx, &closed, 1, "keeper@example.com").await;
    app.post("/api/v1/admin/schedules/blackouts")
        .tenant(&t.id)
        .token(&t.owner_token)
        .json(
            json!({"scopeType": "site", "scopeId": fx.catalog.site_id, "kind": "closure",
            "dateFrom": "2026-11-23"}),
        )
        .send()
        .await
        .assert_status(200);
    let id = booked(&app, &t, &fx, &fx.slots[0], 2, "ada@example.com").await;
    let body = json!({"booking_id": id, "new_slot_id": closed, "confirmed_override": true});
    let pre = call(&app, &t, "precheck-move", body.clone()).await;
    assert_eq!(
        types(&pre.body["hard_conflicts"]),
        ["blackout_window"],
        "{}",
        pre.text
    );
    let res = call(&app, &t, "commit-move", body).await;
    res.assert_error(409, "MOVE_EXECUTION_FAILED");
    assert_eq!(
        types(&res.body["details"]["hard_conflicts"]),
        ["blackout_window"]
    );
}

#[tokio::test]
async fn a_booking_locked_past_the_lock_wait_fails_the_move_and_changes_nothing() {
    if !kairos_testkit::on_postgres() {
        // SQLite has one writer: a lock held elsewhere is its busy timeout, not a row lock.
        return;
    }
    let (app, t, fx) = venue("flexible").await;
    let id = booked(&app, &t, &fx, &fx.slots[0], 2, "ada@example.com").await;
    let pool = sqlx::PgPool::connect(app.database_url()).await.unwrap();
    let mut other = pool.begin().await.unwrap();
    sqlx::query("SELECT id FROM bookings WHERE id = $1 FOR UPDATE")
        .bind(uuid::Uuid::parse_str(&id).unwrap())
        .execute(&mut *other)
        .await
        .unwrap();
    let started = std::time::Instant::now();
    let res = call(
        &app,
        &t,
        "commit-move",
        json!({"booking_id": id, "new_slot_id": fx.slots[1]}),
    )
    .await;
    let waited = started.elapsed();
    res.assert_error(409, "MOVE_EXECUTION_FAILED");
    assert_eq!(
        res.body["details"]["reason"], "lock_timeout",
        "{}",
        res.text
    );
    assert!(waited >= std::time::Duration::from_secs(5), "{waited:?}");
    assert!(waited < std::time::Duration::from_secs(10), "{waited:?}");
    other.rollback().await.unwrap();
    let b = app
        .get(&format!("/api/v1/admin/bookings/{id}"))
        .tenant(&t.id)
        .token(&t.owner_token)
        .send()
        .await;
    assert_eq!(b.body["slot"]["slotId"], fx.slots[0].as_str());
    app.assert_capacity_invariant(&t.id).await;
}
