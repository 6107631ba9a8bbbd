//! What the database and the mail server say once the work is done, each check printing
//! its counts.

use crate::TENANT;
use crate::instances::Api;
use crate::traffic::{Fate, Held};
use kairos_testkit::smtp::SmtpSink;
use sqlx::PgPool;
use std::collections::{BTreeMap, BTreeSet};
use std::time::{Duration, Instant};
use uuid::Uuid;

/// The kinds of message the traffic causes.
pub const KINDS: [&str; 3] = ["booking_confirmation", "payment_receipt", "cancellation"];

/// Per booking and key (a message kind, an audit trigger, a payment status), how many rows.
type Counts = BTreeMap<(Uuid, String), i64>;

/// Runs `sql`, which selects a booking id, a key and a count.
async fn counts(db: &PgPool, sql: &'static str) -> Counts {
    let rows: Vec<(Option<Uuid>, Option<String>, i64)> = sqlx::query_as(sql)
        .fetch_all(db)
        .await
        .unwrap_or_else(|e| panic!("{sql}: {e}"));
    rows.into_iter()
        .map(|(b, k, n)| ((b.unwrap_or_default(), k.unwrap_or_default()), n))
        .collect()
}

/// The sum of the counts of `key`.
fn total(counts: &Counts, key: &str) -> i64 {
    counts
        .iter()
        .filter(|((_, k), _)| k == key)
        .map(|(_, n)| n)
        .sum()
}

fn ids(held: &[Held]) -> Vec<Uuid> {
    held.iter().map(|h| h.id).collect()
}

fn count(held: &[Held], fate: Fate) -> usize {
    held.iter().filter(|h| h.fate == fate).count()
}

/// Waits (at most six minutes) until every booking is in its end state and `messages`
/// messages are delivered and received.
pub async fn wait_until_done(db: &PgPool, sink: &SmtpSink, held: &[Held], messages: i64) {
    let give_up = Instant::now() + Duration::from_secs(360);
    loop {
        let statuses: BTreeMap<Uuid, String> =
            sqlx::query_as("SELECT id, status FROM bookings WHERE id = ANY($1)")
                .bind(ids(held))
                .fetch_all(db)
                .await
                .unwrap_or_else(|e| panic!("{e}"))
                .into_iter()
                .collect();
        let pending: Vec<_> = held
            .iter()
            .filter(|h| statuses.get(&h.id).map(String::as_str) != Some(h.fate.end_status()))
            .map(|h| (h.fate, statuses.get(&h.id).cloned()))
            .collect();
        let delivered: i64 =
            sqlx::query_scalar("SELECT COUNT(*) FROM messages WHERE status = 'delivered'")
                .fetch_one(db)
                .await
                .unwrap_or_else(|e| panic!("{e}"));
        let received = i64::try_from(sink.received().len()).unwrap_or(i64::MAX);
        if pending.is_empty() && delivered >= messages && received >= messages {
            return;
        }
        assert!(
            Instant::now() < give_up,
            "not done in time: {pending:?} not in their end state; {delivered} of {messages} messages delivered, {received} received"
        );
        tokio::time::sleep(Duration::from_secs(2)).await;
    }
}

/// Every slot of the tenant: its seats taken within its capacity, and equal to the party
/// sizes of its live bookings.
pub async fn slots(db: &PgPool) {
    let rows: Vec<(chrono::DateTime<chrono::Utc>, i32, i32, i64)> = sqlx::query_as(
        "SELECT s.starts_at, s.capacity, s.booked,
                (SELECT COALESCE(SUM(b.party_size), 0) FROM bookings b
                  WHERE b.tenant_id = s.tenant_id AND b.slot_id = s.id
                    AND b.status NOT IN ('canceled', 'expired'))
           FROM slots s WHERE s.tenant_id = $1 ORDER BY s.starts_at",
    )
    .bind(TENANT)
    .fetch_all(db)
    .await
    .unwrap_or_else(|e| panic!("{e}"));
    for (start, capacity, booked, live) in &rows {
        assert!(
            booked <= capacity,
            "slot at {start} oversold: {booked} of {capacity}"
        );
        assert_eq!(
            i64::from(*booked),
            *live,
            "slot at {start}: seats taken are not its bookings'"
        );
        if *live > 0 {
            println!(
                "slot at {start}: capacity {capacity}, seats taken {booked}, live bookings' seats {live}"
            );
        }
    }
    let over = rows.iter().filter(|(_, c, b, _)| b > c).count();
    println!("slots of the tenant: {}, oversold: {over}", rows.len());
}

/// Every message in the database was delivered, and reached the sink once (by its
/// Message-ID); nothing else reached it; each booking got the messages its fate says, once.
pub async fn messages(db: &PgPool, sink: &SmtpSink, held: &[Held], expected: i64) {
    let per_booking = counts(
        db,
        "SELECT booking_id, template_key, COUNT(*) FROM messages GROUP BY 1, 2",
    )
    .await;
    let rows: Vec<(Uuid, String, String)> =
        sqlx::query_as("SELECT id, channel, status FROM messages")
            .fetch_all(db)
            .await
            .unwrap_or_else(|e| panic!("{e}"));
    let received = sink.received();
    let mut arrivals: BTreeMap<String, usize> = BTreeMap::new();
    for mail in &received {
        let id = mail.header("Message-ID").unwrap_or_default();
        *arrivals.entry(id).or_default() += 1;
    }
    let twice: Vec<_> = arrivals.iter().filter(|(_, n)| **n > 1).collect();
    // A message claimed by two senders would have two attempts (the sink refuses nothing).
    let attempts: Vec<i32> =
        sqlx::query_scalar("SELECT attempts FROM outbox WHERE kind = 'message' ORDER BY id")
            .fetch_all(db)
            .await
            .unwrap_or_else(|e| panic!("{e}"));
    println!(
        "deliveries: {} outbox rows, {} attempts in all",
        attempts.len(),
        attempts.iter().map(|a| i64::from(*a)).sum::<i64>()
    );
    assert!(
        attempts.iter().all(|a| *a == 1),
        "attempts per message: {attempts:?}"
    );
    println!(
        "messages: {} in the database ({} confirmations, {} receipts, {} cancellations), {} emails received, {} distinct Message-IDs, {} received more than once",
        rows.len(),
        total(&per_booking, "booking_confirmation"),
        total(&per_booking, "payment_receipt"),
        total(&per_booking, "cancellation"),
        received.len(),
        arrivals.len(),
        twice.len()
    );
    assert!(
        twice.is_empty(),
        "emails received more than once: {twice:?}"
    );
    for (id, channel, status) in &rows {
        let what = (channel.as_str(), status.as_str());
        assert_eq!(what, ("email", "delivered"), "message {id}");
    }
    let sent: BTreeSet<String> = rows
        .iter()
        .map(|(id, ..)| format!("<{id}@kairos>"))
        .collect();
    let got: BTreeSet<String> = arrivals.into_keys().collect();
    assert_eq!(
        sent, got,
        "the sink received exactly the database's messages"
    );
    assert_eq!(
        i64::try_from(rows.len()).ok(),
        Some(expected),
        "{per_booking:?}"
    );
    for h in held {
        for key in KINDS {
            let n = per_booking
                .get(&(h.id, key.to_owned()))
                .copied()
                .unwrap_or(0);
            assert_eq!(
                n,
                h.fate.messages(key),
                "{key} of {:?} booking {}",
                h.fate,
                h.id
            );
        }
    }
}

/// Every status change of a booking is recorded once (`booking.status_changed` audit
/// entries), and each booking went through exactly the changes its fate says.
pub async fn status_changes(db: &PgPool, held: &[Held]) {
    let changes = counts(
        db,
        "SELECT entity_id::uuid, changes->>'trigger', COUNT(*) FROM audit_log
          WHERE action = 'booking.status_changed' GROUP BY 1, 2",
    )
    .await;
    let twice: Vec<_> = changes.iter().filter(|(_, n)| **n > 1).collect();
    println!(
        "holds expired: {} bookings, {} expiry audit entries; status changes recorded more than once: {}",
        count(held, Fate::Expires),
        total(&changes, "expire"),
        twice.len()
    );
    println!(
        "payment deadline: {} unpaid bookings, {} cancel audit entries; {} paid with the event lost, {} payment audit entries",
        count(held, Fate::CardUnpaid),
        total(&changes, "cancel"),
        count(held, Fate::CardPaidEventLost),
        total(&changes, "payment_recorded")
    );
    assert!(
        twice.is_empty(),
        "a status change recorded more than once: {twice:?}"
    );
    for h in held {
        let got: BTreeSet<&str> = changes
            .keys()
            .filter(|(b, _)| *b == h.id)
            .map(|(_, t)| t.as_str())
            .collect();
        let want: BTreeSet<&str> = h.fate.triggers().iter().copied().collect();
        assert_eq!(got, want, "status changes of {:?} booking {}", h.fate, h.id);
    }
    let reasons: Vec<Option<String>> = sqlx::query_scalar(
        "SELECT changes->>'reason' FROM audit_log
          WHERE action = 'booking.status_changed' AND changes->>'trigger' = 'cancel'",
    )
    .fetch_all(db)
    .await
    .unwrap_or_else(|e| panic!("{e}"));
    let by_deadline = |r: &Option<String>| {
        r.as_deref()
            .is_some_and(|r| r.starts_with("payment_deadline"))
    };
    assert!(reasons.iter().all(by_deadline), "{reasons:?}");
}

/// Each unpaid card payment was cancelled, here and at the provider `base`; each payment
/// whose event was lost was settled once, for its booking's total (not twice it), under
/// one poll event.
pub async fn payments(db: &PgPool, api: &Api, base: &str, held: &[Held]) {
    let statuses = counts(
        db,
        "SELECT booking_id, status, COUNT(*) FROM payments GROUP BY 1, 2",
    )
    .await;
    let events: BTreeSet<String> = sqlx::query_scalar("SELECT event_id FROM payment_events")
        .fetch_all(db)
        .await
        .unwrap_or_else(|e| panic!("{e}"))
        .into_iter()
        .collect();
    let amounts: BTreeMap<Uuid, (i64, i64)> = sqlx::query_as::<_, (Uuid, i64, i64)>(
        "SELECT id, total, paid_amount FROM bookings WHERE id = ANY($1)",
    )
    .bind(ids(held))
    .fetch_all(db)
    .await
    .unwrap_or_else(|e| panic!("{e}"))
    .into_iter()
    .map(|(id, t, p)| (id, (t, p)))
    .collect();
    let mut canceled_at_provider = 0;
    for h in held.iter().filter(|h| h.intent.is_some()) {
        let intent = h.intent.as_deref().unwrap_or_default();
        let polled = events.contains(&format!("poll:{intent}:succeeded"));
        let (total, paid) = amounts.get(&h.id).copied().unwrap_or_default();
        if h.fate == Fate::CardUnpaid {
            let one = statuses.get(&(h.id, "CANCELED".to_owned()));
            assert_eq!(one, Some(&1), "{h:?}: {statuses:?}");
            assert!(!polled && paid == 0, "{h:?}: paid {paid}");
            assert_eq!(api.intent_status(base, intent).await, "canceled", "{h:?}");
            canceled_at_provider += 1;
        } else {
            let one = statuses.get(&(h.id, "COMPLETED".to_owned()));
            assert_eq!(one, Some(&1), "{h:?}: {statuses:?}");
            assert!(polled && paid == total, "{h:?}: paid {paid} of {total}");
        }
    }
    // Evidence that the instances raced: polls of a settled payment refused as duplicates,
    // and unpaid payments looked at again after their booking was cancelled.
    let refused: i64 =
        sqlx::query_scalar("SELECT COALESCE(SUM(duplicates), 0)::BIGINT FROM payment_events")
            .fetch_one(db)
            .await
            .unwrap_or_else(|e| panic!("{e}"));
    let looked_again: i64 = sqlx::query_scalar(
        "SELECT COUNT(*) FROM payments p JOIN bookings b
            ON b.tenant_id = p.tenant_id AND b.id = p.booking_id
          WHERE b.canceled_unpaid AND p.updated_at > b.canceled_at",
    )
    .fetch_one(db)
    .await
    .unwrap_or_else(|e| panic!("{e}"));
    println!(
        "payments: {} cancelled here and {canceled_at_provider} at the provider ({looked_again} looked at again by another instance after); {} settled by the poll, {} provider events processed, {refused} repeats by other instances refused as duplicates",
        statuses.keys().filter(|(_, s)| s == "CANCELED").count(),
        statuses.keys().filter(|(_, s)| s == "COMPLETED").count(),
        events.len()
    );
    assert_eq!(
        events.len(),
        count(held, Fate::CardPaidEventLost),
        "{events:?}"
    );
}
