//! Booking groups under races against the real server: two groups competing for the last
//! seats of a shared slot never oversell, and the one that loses holds nothing at all;
//! groups taking the same slots in opposite orders do not deadlock.

use super::booking_groups::{hold_body, seats_left, selection, venue_on};
use super::concurrency::race;
use kairos_api::rate_limit::Limits;
use kairos_testkit::{TestApp, http};
use serde_json::Value;
use std::net::SocketAddr;

/// The two group holds `bodies`, sent at once to the server at `addr`.
async fn race_holds(addr: SocketAddr, tenant: &str, bodies: [Value; 2]) -> Vec<(u16, Value)> {
    let tenant = tenant.to_owned();
    race(
        bodies
            .into_iter()
            .map(|body| {
                let tenant = tenant.clone();
                async move {
                    http(
                        addr,
                        "POST",
                        "/api/v1/booking-groups/hold",
                        &[("x-tenant-id", tenant.as_str())],
                        Some(body),
                    )
                    .await
                }
            })
            .collect(),
    )
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn two_groups_for_the_last_seats_of_a_shared_slot_one_gets_everything_the_other_nothing() {
    let v = venue_on(TestApp::builder().limits(Limits::UNLIMITED).spawn().await).await;
    let (app, t) = (&v.app, &v.t);
    let addr = app.serve().await;
    // Each round: the room's slot (capacity 6) takes one party of 4; each group also
    // wants its own climbing slot, listed before or after the shared room.
    for round in 0..3 {
        let room = &v.room_slots[round];
        let mine = &v.climbing.slots[round];
        let theirs = &v.climbing.slots[3];
        let first = hold_body(
            4,
            vec![
                selection(&v.climbing.catalog, mine),
                selection(&v.room, room),
            ],
        );
        let second = hold_body(
            4,
            vec![
                selection(&v.room, room),
                selection(&v.climbing.catalog, theirs),
            ],
        );
        let before = [
            seats_left(app, &t.id, &v.climbing.catalog, mine).await,
            seats_left(app, &t.id, &v.climbing.catalog, theirs).await,
        ];
        let results = race_holds(addr, &t.id, [first, second]).await;
        let won: Vec<usize> = (0..2).filter(|&i| results[i].0 == 200).collect();
        assert_eq!(won.len(), 1, "round {round}: {results:?}");
        let lost = 1 - won[0];
        assert_eq!(results[lost].0, 409, "round {round}: {results:?}");
        assert_eq!(results[lost].1["error"], "SLOT_UNAVAILABLE");
        assert_eq!(seats_left(app, &t.id, &v.room, room).await, 2);
        // The winner holds its own climbing slot too; the loser holds nothing.
        let after = [
            seats_left(app, &t.id, &v.climbing.catalog, mine).await,
            seats_left(app, &t.id, &v.climbing.catalog, theirs).await,
        ];
        assert_eq!(after[won[0]], before[won[0]] - 4, "round {round}");
        assert_eq!(after[lost], before[lost], "round {round}");
        app.assert_capacity_invariant(&t.id).await;
    }
    app.assert_capacity_invariant(&t.id).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn groups_taking_the_same_slots_in_opposite_orders_do_not_deadlock() {
    let v = venue_on(TestApp::builder().limits(Limits::UNLIMITED).spawn().await).await;
    let (app, t) = (&v.app, &v.t);
    let addr = app.serve().await;
    for round in 0..4 {
        let (climb, room) = (&v.climbing.slots[round], &v.room_slots[round]);
        let forward = hold_body(
            4,
            vec![
                selection(&v.climbing.catalog, climb),
                selection(&v.room, room),
            ],
        );
        let backward = hold_body(
            4,
            vec![
                selection(&v.room, room),
                selection(&v.climbing.catalog, climb),
            ],
        );
        let results = race_holds(addr, &t.id, [forward, backward]).await;
        let mut codes: Vec<u16> = results.iter().map(|r| r.0).collect();
        codes.sort_unstable();
        assert_eq!(codes, vec![200, 409], "round {round}: {results:?}");
        assert_eq!(seats_left(app, &t.id, &v.room, room).await, 2);
        assert_eq!(seats_left(app, &t.id, &v.climbing.catalog, climb).await, 6);
    }
    app.assert_capacity_invariant(&t.id).await;
}
