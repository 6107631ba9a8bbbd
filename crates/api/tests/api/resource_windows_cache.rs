//! A resource add-on's windows are availability answers: kept briefly per instance,
//! forgotten at once on a write of the tenant through the instance, and seen from
//! another instance's writes after the time-to-live.

use crate::resource_setup::{room_cached, shift};
use kairos_testkit::TestApp;
use serde_json::json;

#[tokio::test]
async fn windows_are_kept_briefly_and_forgotten_on_writes() {
    let r = room_cached("EXCLUSIVE", 1, json!({}), std::time::Duration::from_secs(1)).await;
    let (app, t) = (&r.app, &r.t);
    let hold = r.hold(0, 2).await;
    let (starts, ends) = (
        hold.str("startTime").to_owned(),
        hold.str("endTime").to_owned(),
    );
    let windows = || async {
        let res = app
            .get(&format!(
                "/api/v1/availability/resource-addons/{}/windows?activity_starts_at={}&activity_ends_at={}",
                r.config,
                starts.replace('+', "%2B"),
                ends.replace('+', "%2B")
            ))
            .tenant(&t.id)
            .send()
            .await;
        res.assert_status(200);
        assert_eq!(res.body["configId"], json!(r.config));
        res.body["windows"]
            .as_array()
            .map(|w| {
                w.iter()
                    .map(|w| w["isAvailable"] == true)
                    .collect::<Vec<_>>()
            })
            .unwrap_or_default()
    };
    assert_eq!(windows().await, [true, true, true]);

    // Another instance of the deployment gives the hour after to another party.
    let other = TestApp::builder().same_database_as(app).spawn().await;
    let second = other.hold_in(&t.id, &r.fx.catalog, &r.fx.slots[1], 1).await;
    second.assert_status(200);
    other
        .post(&format!(
            "/api/v1/bookings/{}/resource-addons",
            second.str("id")
        ))
        .tenant(&t.id)
        .header("x-booking-token", second.str("bookingToken"))
        .json(
            json!({"selections": [{"configId": r.config, "startsAt": ends,
            "endsAt": shift(&ends, 60), "durationMins": 60}]}),
        )
        .send()
        .await
        .assert_status(200);
    // Seen here once the answer has run out.
    assert_eq!(windows().await, [true, true, true]);
    app.clock.advance(chrono::Duration::seconds(1));
    assert_eq!(windows().await, [true, true, false]);

    // A write through this instance drops the answer at once.
    app.post(&format!("/api/v1/admin/resources/{}/blackouts", r.resource))
        .tenant(&t.id)
        .token(&t.owner_token)
        .json(json!({"kind": "maintenance", "startsAt": shift(&starts, -60), "endsAt": starts}))
        .send()
        .await
        .assert_status(200);
    assert_eq!(windows().await, [false, true, false]);
}
