//! Resources are never given beyond their shared mode, whatever arrives at once: 100
//! concurrent requests for one room's overlapping windows, one wins; a SHARED resource
//! gives its capacity in bookings, a POOLED one its capacity in people; buffers are kept
//! free; a request is taken whole or not at all. On both backends (PostgreSQL also refuses
//! an overlap by its exclusion constraint).

use crate::resource_setup::{Room, room, shift};
use serde_json::json;

/// `n` holds of `party` spread over the fixture's four slots, each with the window of
/// the add-on that covers the second slot's hour: after the first slot, during the
/// second, before the third (an hour) and before the fourth (two hours).
async fn holds_with_windows(r: &Room, n: usize, party: u32) -> Vec<(String, String, String, i64)> {
    let mut out = Vec::new();
    for i in 0..n {
        let slot = i % 4;
        let h = r.hold(slot, party).await;
        let (start, end) = (h.str("startTime").to_owned(), h.str("endTime").to_owned());
        let (s, e, mins) = match slot {
            0 => (end.clone(), shift(&end, 60), 60),
            1 => (start.clone(), end.clone(), 60),
            2 => (shift(&start, -60), start.clone(), 60),
            _ => (shift(&start, -120), start.clone(), 120),
        };
        out.push((h.str("id").to_owned(), s, e, mins));
    }
    out
}

/// Sends one request per window at once (then the same windows again, up to `total`
/// requests); how many were taken. Every refusal is 409 CONFLICT.
async fn race(r: &Room, windows: &[(String, String, String, i64)], total: usize) -> usize {
    let requests = (0..total).map(|i| {
        let (booking, s, e, mins) = &windows[i % windows.len()];
        r.add(booking, s, e, *mins)
    });
    let answers = futures::future::join_all(requests).await;
    let mut won = 0;
    for a in answers {
        match a.status.as_u16() {
            200 => {
                assert_eq!(a.body["allocations"][0]["status"], "HELD", "{}", a.text);
                won += 1;
            }
            409 => {
                assert_eq!(a.body["error"], "CONFLICT", "{}", a.text);
                assert_eq!(a.body["details"]["resourceId"], r.resource.as_str());
            }
            other => panic!("{other}: {}", a.text),
        }
    }
    won
}

fn selectable() -> serde_json::Value {
    json!({"durationMode": "SELECTABLE", "selectableDurations": [60, 120]})
}

#[tokio::test]
async fn a_hundred_requests_for_one_rooms_overlapping_windows_one_wins() {
    let r = room("EXCLUSIVE", 1, selectable()).await;
    let windows = holds_with_windows(&r, 40, 1).await;
    assert_eq!(race(&r, &windows, 100).await, 1);
    // The one taken is the only live allocation, in its booking's audit log.
    let mut taken = Vec::new();
    for (booking, ..) in &windows {
        let addons = r.addons(booking).await;
        if let Some(list) = addons.body["addons"].as_array()
            && !list.is_empty()
        {
            assert_eq!(list.len(), 1, "{}", addons.text);
            taken.push(booking.clone());
        }
    }
    assert_eq!(taken.len(), 1);
    let detail = r
        .app
        .get(&format!("/api/v1/admin/bookings/{}", taken[0]))
        .tenant(&r.t.id)
        .token(&r.t.owner_token)
        .send()
        .await;
    let changed = detail.body["auditLog"]
        .as_array()
        .unwrap_or_else(|| panic!("{}", detail.text))
        .iter()
        .filter(|e| e["action"] == "booking.resource_addons_changed")
        .count();
    assert_eq!(changed, 1, "{}", detail.text);
}

#[tokio::test]
async fn a_shared_resource_gives_its_capacity_in_bookings_and_a_pooled_one_in_people() {
    let r = room("SHARED", 3, selectable()).await;
    let windows = holds_with_windows(&r, 40, 1).await;
    assert_eq!(race(&r, &windows, 40).await, 3);
    let r = room("POOLED", 10, selectable()).await;
    // Four people each: two fit in ten.
    let windows = holds_with_windows(&r, 8, 4).await;
    assert_eq!(race(&r, &windows, 8).await, 2);
}

#[tokio::test]
async fn buffers_are_kept_free_and_a_request_is_taken_whole_or_not_at_all() {
    let r = room("EXCLUSIVE", 1, json!({"bufferMinsAfter": 10})).await;
    let (a, b, c) = (r.hold(0, 1).await, r.hold(1, 1).await, r.hold(2, 1).await);
    let after = |h: &kairos_testkit::TestResponse| {
        let end = h.str("endTime").to_owned();
        (shift(&end, 0), shift(&end, 60))
    };
    let (s, e) = after(&a);
    r.add(a.str("id"), &s, &e, 60).await.assert_status(200);
    // The next hour starts when the first ends, inside its ten minutes of cleanup.
    let (s, e) = after(&b);
    let refused = r.add(b.str("id"), &s, &e, 60).await;
    refused.assert_status(409);
    // An hour later is free.
    let (s, e) = after(&c);
    r.add(c.str("id"), &s, &e, 60).await.assert_status(200);
    // Two windows of one request that meet each other: neither is kept.
    let d = r.hold(3, 1).await;
    let (s, e) = after(&d);
    let both = r
        .app
        .post(&format!("/api/v1/bookings/{}/resource-addons", d.str("id")))
        .tenant(&r.t.id)
        .token(&r.t.owner_token)
        .json(json!({"selections": [
            {"configId": r.config, "startsAt": s, "endsAt": e, "durationMins": 60},
            {"configId": r.config, "startsAt": s, "endsAt": e, "durationMins": 60}]}))
        .send()
        .await;
    both.assert_status(409);
    let addons = r.addons(d.str("id")).await;
    assert_eq!(addons.body["addons"], json!([]), "{}", addons.text);
}
