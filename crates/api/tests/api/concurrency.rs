//! Races against the real server: the app served on a TCP port, many clients released
//! at once by a barrier. Capacity must never be oversold or released twice, no request
//! may fail with a 5xx, and moves in opposite directions must not deadlock.

use kairos_api::rate_limit::Limits;
use kairos_domain::TenantId;
use kairos_domain::bookings::BookingStatus;
use kairos_testkit::{BookingFixture, TenantFixture, TestApp, http};
use serde_json::{Value, json};
use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use tokio::sync::Barrier;
use uuid::Uuid;

struct Served {
    app: TestApp,
    t: TenantFixture,
    fx: BookingFixture,
    addr: SocketAddr,
}

/// A bookable tenant on a served app without rate limits.
async fn served() -> Served {
    let app = TestApp::builder().limits(Limits::UNLIMITED).spawn().await;
    let t = app.tenant("acme").await;
    let fx = app.bookable(&t).await;
    let addr = app.serve().await;
    Served { app, t, fx, addr }
}

/// Runs every future at once: each is spawned and waits at a shared barrier first.
pub(crate) async fn race<T, Fut>(futures: Vec<Fut>) -> Vec<T>
where
    T: Send + 'static,
    Fut: Future<Output = T> + Send + 'static,
{
    let barrier = Arc::new(Barrier::new(futures.len()));
    let handles: Vec<_> = futures
        .into_iter()
        .map(|fut| {
            let barrier = barrier.clone();
            tokio::spawn(async move {
                barrier.wait().await;
                fut.await
            })
        })
        .collect();
    let mut results = Vec::with_capacity(handles.len());
    for h in handles {
        results.push(
            h.await
                .unwrap_or_else(|e| panic!("racing task failed: {e}")),
        );
    }
    results
}

fn hold_body(fx: &BookingFixture, slot: &str, party: u32) -> Value {
    json!({
        "siteId": fx.catalog.site_id, "productId": fx.catalog.product_id,
        "slotId": slot, "partySize": party,
        "customer": {"name": "Ada Lovelace", "email": "ada@example.com", "phone": "+358 40 123 4567"}
    })
}

/// `POST /bookings/hold` on the served app.
async fn hold(s: &Served, slot: &str, party: u32) -> (u16, Value) {
    http(
        s.addr,
        "POST",
        "/api/v1/bookings/hold",
        &[("x-tenant-id", &s.t.id)],
        Some(hold_body(&s.fx, slot, party)),
    )
    .await
}

/// A hold that must succeed: (booking id, booking token).
async fn held(s: &Served, slot: &str, party: u32) -> (String, String) {
    let (status, body) = hold(s, slot, party).await;
    assert_eq!(status, 200, "hold: {body}");
    (text(&body, "id"), text(&body, "bookingToken"))
}

fn text(body: &Value, field: &str) -> String {
    body[field]
        .as_str()
        .unwrap_or_else(|| panic!("no {field} in {body}"))
        .to_owned()
}

fn uuid(raw: &str) -> Uuid {
    Uuid::parse_str(raw).unwrap_or_else(|e| panic!("{raw}: {e}"))
}

fn tenant_id(s: &Served) -> TenantId {
    TenantId::parse(&s.t.id).unwrap_or_else(|e| panic!("{e}"))
}

#[track_caller]
fn assert_no_server_error(what: &str, status: u16, body: &Value) {
    assert!(status < 500, "{what} answered {status}: {body}");
}

/// The `booked` count of a slot, read from the store.
async fn booked(s: &Served, slot: &str) -> i32 {
    let from = s.app.clock_now() - chrono::Duration::days(1);
    let to = s.app.clock_now() + chrono::Duration::days(3);
    let slots = s
        .app
        .store
        .list_slots(&tenant_id(s), uuid(&s.fx.catalog.product_id), from, to)
        .await
        .unwrap_or_else(|e| panic!("list slots: {e}"));
    slots
        .iter()
        .find(|x| x.id == uuid(slot))
        .map(|x| x.booked)
        .unwrap_or_else(|| panic!("slot {slot} not found"))
}

/// Seats left on a slot for a party of one, as `GET /availability` on the served app
/// says (a slot that cannot take one more person is not listed: 0).
async fn available(s: &Served, slot: &str) -> i64 {
    let path = format!(
        "/api/v1/availability?product_id={}&site_id={}&date_from=2026-11-22&date_to=2026-11-22&party_size=1",
        s.fx.catalog.product_id, s.fx.catalog.site_id
    );
    let (status, body) = http(s.addr, "GET", &path, &[("x-tenant-id", &s.t.id)], None).await;
    assert_eq!(status, 200, "availability: {body}");
    body["slots"]
        .as_array()
        .and_then(|a| a.iter().find(|x| x["slotId"] == slot))
        .map(|x| x["availableCapacity"].as_i64().unwrap_or(-1))
        .unwrap_or(0)
}

/// The answer to one racing operation: what it was, on which booking, its status and body.
struct Answer {
    kind: &'static str,
    id: String,
    status: u16,
    body: Value,
}

type Op = std::pin::Pin<Box<dyn Future<Output = Answer> + Send>>;

/// `POST /bookings/{id}/cancel` with the booking token.
fn cancel_op(s: &Arc<Served>, id: &str, token: &str) -> Op {
    let (s, id, token) = (s.clone(), id.to_owned(), token.to_owned());
    Box::pin(async move {
        let (status, body) = http(
            s.addr,
            "POST",
            &format!("/api/v1/bookings/{id}/cancel"),
            &[("x-tenant-id", &s.t.id), ("x-booking-token", &token)],
            Some(json!({"reason": "racing the expiry"})),
        )
        .await;
        Answer {
            kind: "cancel",
            id,
            status,
            body,
        }
    })
}

/// `POST /bookings/{id}/reschedule` to `slot` with the booking token.
fn move_op(s: &Arc<Served>, id: &str, token: &str, slot: &str) -> Op {
    let (s, id, token, slot) = (s.clone(), id.to_owned(), token.to_owned(), slot.to_owned());
    Box::pin(async move {
        let (status, body) = http(
            s.addr,
            "POST",
            &format!("/api/v1/bookings/{id}/reschedule"),
            &[("x-tenant-id", &s.t.id), ("x-booking-token", &token)],
            Some(json!({"slotId": slot})),
        )
        .await;
        Answer {
            kind: "reschedule",
            id,
            status,
            body,
        }
    })
}

/// A new hold for one person on `slot`.
fn hold_op(s: &Arc<Served>, slot: &str) -> Op {
    let (s, slot) = (s.clone(), slot.to_owned());
    Box::pin(async move {
        let (status, body) = hold(&s, &slot, 1).await;
        Answer {
            kind: "hold",
            id: body["id"].as_str().unwrap_or_default().to_owned(),
            status,
            body,
        }
    })
}

/// The hold expiry worker's pass (`store.expire_overdue_holds`), as 200 with the number
/// expired or 500 with the error.
fn expire_op(s: &Arc<Served>, batch: i64) -> Op {
    let s = s.clone();
    Box::pin(async move {
        let (status, body) = match s
            .app
            .store
            .expire_overdue_holds(s.app.clock_now(), batch)
            .await
        {
            Ok(n) => (200, json!(n)),
            Err(e) => (500, json!(e.to_string())),
        };
        Answer {
            kind: "expire",
            id: String::new(),
            status,
            body,
        }
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn two_hundred_racing_holds_fill_a_slot_exactly() {
    let s = Arc::new(served().await);
    let slot = s.fx.slots[0].clone();
    let results = race(
        (0..200)
            .map(|_| {
                let s = s.clone();
                let slot = slot.clone();
                async move { hold(&s, &slot, 1).await }
            })
            .collect(),
    )
    .await;
    let mut created = 0;
    let mut full = 0;
    for (status, body) in &results {
        assert_no_server_error("hold", *status, body);
        match *status {
            200 => created += 1,
            409 if body["error"] == "SLOT_UNAVAILABLE" => full += 1,
            _ => panic!("unexpected answer {status}: {body}"),
        }
    }
    assert_eq!((created, full), (10, 190));
    s.app.assert_capacity_invariant(&s.t.id).await;
    assert_eq!(booked(&s, &slot).await, 10);
    assert_eq!(available(&s, &slot).await, 0);
    assert_eq!(available(&s, &s.fx.slots[1]).await, 10);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn cancel_and_expiry_racing_on_overdue_holds_release_capacity_once() {
    let s = Arc::new(served().await);
    let slot = s.fx.slots[0].clone();
    let mut canceled = Vec::new();
    for round in 0..20 {
        // Three holds, overdue once the clock moves past their 15 minutes; the previous
        // round's new holds become overdue with them.
        let mut holds = Vec::new();
        for _ in 0..3 {
            holds.push(held(&s, &slot, 1).await);
        }
        s.app.clock.advance(chrono::Duration::minutes(16));
        // Each overdue hold canceled while two expiry passes and three new holds on the
        // same slot (which expire the slot's overdue holds themselves) run.
        let mut ops: Vec<Op> = holds
            .iter()
            .map(|(id, tok)| cancel_op(&s, id, tok))
            .collect();
        ops.extend([expire_op(&s, 1), expire_op(&s, 100)]);
        ops.extend((0..3).map(|_| hold_op(&s, &slot)));
        for a in race(ops).await {
            let what = format!("round {round}: {} {}", a.kind, a.id);
            assert_no_server_error(&what, a.status, &a.body);
            match a.kind {
                "cancel" => {
                    assert!(
                        a.status == 200
                            || (a.status == 409 && a.body["error"] == "INVALID_TRANSITION"),
                        "{what} answered {}: {}",
                        a.status,
                        a.body
                    );
                    canceled.push((a.id, a.status));
                }
                // Every overdue hold gives its seat back before the new holds count.
                "hold" => assert_eq!(a.status, 200, "{what}: {}", a.body),
                _ => {}
            }
        }
        s.app.assert_capacity_invariant(&s.t.id).await;
        // Only this round's three new holds hold seats.
        assert_eq!(booked(&s, &slot).await, 3, "round {round}");
    }
    for (id, status) in canceled {
        let b = s
            .app
            .store
            .get_booking(&tenant_id(&s), uuid(&id))
            .await
            .unwrap_or_else(|e| panic!("{e}"))
            .unwrap_or_else(|| panic!("booking {id} is gone"));
        if status == 200 {
            assert_eq!(b.status, BookingStatus::Canceled, "{id}");
        } else {
            assert_eq!(b.status, BookingStatus::Expired, "{id}");
        }
    }
    assert_eq!(available(&s, &slot).await, 7);
    s.app.assert_capacity_invariant(&s.t.id).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn fifty_racing_holds_with_one_idempotency_key_book_once() {
    let s = Arc::new(served().await);
    let slot = s.fx.slots[0].clone();
    let results = race(
        (0..50)
            .map(|_| {
                let s = s.clone();
                let body = hold_body(&s.fx, &slot, 2);
                async move {
                    http(
                        s.addr,
                        "POST",
                        "/api/v1/bookings/hold",
                        &[("x-tenant-id", &s.t.id), ("Idempotency-Key", "race-hold-1")],
                        Some(body),
                    )
                    .await
                }
            })
            .collect(),
    )
    .await;
    let mut ids = Vec::new();
    for (status, body) in &results {
        assert_no_server_error("hold", *status, body);
        match *status {
            200 => ids.push(text(body, "id")),
            409 if body["error"] == "IDEMPOTENCY_KEY_IN_FLIGHT" => {}
            _ => panic!("unexpected answer {status}: {body}"),
        }
    }
    assert!(!ids.is_empty(), "no hold was created");
    assert!(
        ids.iter().all(|id| *id == ids[0]),
        "one booking for the key: {ids:?}"
    );
    assert_eq!(booked(&s, &slot).await, 2);
    assert_eq!(available(&s, &slot).await, 8);
    s.app.assert_capacity_invariant(&s.t.id).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn racing_moves_in_opposite_directions_neither_deadlock_nor_leak_seats() {
    let s = Arc::new(served().await);
    let (a, b) = (s.fx.slots[0].clone(), s.fx.slots[1].clone());
    // Five one-person holds on each slot: together they fit in either slot.
    let mut bookings = Vec::new();
    for slot in [&a, &b] {
        for _ in 0..5 {
            let (id, token) = held(&s, slot, 1).await;
            bookings.push((id, token, slot.clone()));
        }
    }
    for round in 0..30 {
        let ops: Vec<Op> = bookings
            .iter()
            .map(|(id, token, at)| move_op(&s, id, token, if *at == a { &b } else { &a }))
            .collect();
        for ((id, _, at), answer) in bookings.iter_mut().zip(race(ops).await) {
            let what = format!("round {round}: reschedule {id}");
            assert_no_server_error(&what, answer.status, &answer.body);
            assert_eq!(answer.status, 200, "{what}: {}", answer.body);
            let target = if *at == a { b.clone() } else { a.clone() };
            assert_eq!(answer.body["slotId"], target.as_str(), "{what}");
            *at = target;
        }
    }
    s.app.assert_capacity_invariant(&s.t.id).await;
    for slot in [&a, &b] {
        let expected = bookings.iter().filter(|(_, _, at)| at == slot).count();
        assert_eq!(
            booked(&s, slot).await,
            i32::try_from(expected).unwrap_or(-1)
        );
    }
}

/// A move locks both slot rows and then expires the target slot's overdue holds, while
/// cancels and the expiry worker hold those booking rows and wait for the slot row. The
/// reclaim skips locked rows, so this must not deadlock on PostgreSQL.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn moves_into_a_slot_race_the_expiry_of_its_overdue_holds() {
    let s = Arc::new(served().await);
    let (a, b) = (s.fx.slots[0].clone(), s.fx.slots[1].clone());
    for round in 0..10 {
        // Overdue holds on the target slot B, fresh holds on A to move there: each move
        // expires B's overdue holds while they are being canceled and expired elsewhere.
        let mut overdue = Vec::new();
        for _ in 0..4 {
            overdue.push(held(&s, &b, 1).await);
        }
        s.app.clock.advance(chrono::Duration::minutes(16));
        let mut movers = Vec::new();
        for _ in 0..4 {
            movers.push(held(&s, &a, 1).await);
        }
        let mut ops: Vec<Op> = movers
            .iter()
            .map(|(id, tok)| move_op(&s, id, tok, &b))
            .collect();
        ops.extend(overdue.iter().map(|(id, tok)| cancel_op(&s, id, tok)));
        ops.push(expire_op(&s, 100));
        for answer in race(ops).await {
            let what = format!("round {round}: {} {}", answer.kind, answer.id);
            assert_no_server_error(&what, answer.status, &answer.body);
            if answer.kind != "expire" {
                // B has room for the movers even before any overdue hold is released.
                assert_eq!(answer.status, 200, "{what}: {}", answer.body);
            }
        }
        s.app.assert_capacity_invariant(&s.t.id).await;
        assert_eq!(booked(&s, &a).await, 0, "round {round}");
        assert_eq!(booked(&s, &b).await, 4, "round {round}");
        // Start the next round empty.
        s.app.clock.advance(chrono::Duration::minutes(16));
        s.app
            .store
            .expire_overdue_holds(s.app.clock_now(), 1000)
            .await
            .unwrap_or_else(|e| panic!("{e}"));
    }
}
