//! Several `kairos serve` instances, workers on, on one PostgreSQL database act exactly
//! once. Three instances start together on a fresh database (migrating it at once), share
//! their token and sealing keys and one SMTP sink, and take customer traffic round robin:
//! concurrent holds asking for more seats than the slots have, confirmations that send
//! the confirmation email, holds left to expire (a one-minute time-to-live), and, against
//! localstripe (a Stripe-compatible server nobody here wrote, which all three reach;
//! `TEST_CARDPAY_URL`, set by `scripts/localstripe.sh` and CI), card payments never made,
//! which the payment deadline (one minute) cancels, and card payments made at the provider
//! whose event never arrives, which the deadline's poll of the provider settles. Then:
//! every message in the database reached the SMTP sink once and nothing else did; every
//! overdue hold expired once; no slot took more seats than it has; every deadline acted
//! once, with one audit entry and one email.
//!
//! PostgreSQL only (`TEST_DATABASE_URL`); without `TEST_CARDPAY_URL` the card payments
//! and their deadline are left out, with a note. About two and a half minutes: the
//! deadline is a minute, and the deadline job runs once a minute.

mod checks;
#[path = "../common/mod.rs"]
mod common;
mod instances;
mod traffic;

use instances::{Api, Instances, kairos};
use kairos_testkit::TestDb;
use kairos_testkit::smtp::SmtpSink;
use std::time::{Duration, Instant};
use traffic::{Fate, Held, confirm, hold_wave, venue};

const INSTANCES: usize = 3;
const SECRET_KEY: &str = "several-instances-secret-key-0123456789abcdef";
const JWT_SECRET: &str = "several-instances-jwt-secret-0123456789abcdef";
const CARD_KEY: &str = "sk_test_kairos_several_instances";
const OWNER_PASSWORD: &str = "owner-password-several";
const TENANT: &str = "acme";
/// Seats of each slot.
const CAPACITY: i64 = 10;

/// Seats of `held` per slot index.
fn seats<'a>(held: impl IntoIterator<Item = &'a Held>) -> [i64; 3] {
    let mut seats = [0; 3];
    for h in held {
        seats[h.slot] += h.party;
    }
    seats
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_instances_on_one_database_hold_send_expire_and_cancel_once() {
    let Ok(server) = std::env::var("TEST_DATABASE_URL") else {
        eprintln!("TEST_DATABASE_URL not set: the several-instances test skipped");
        return;
    };
    if !server.starts_with("postgres") {
        eprintln!("TEST_DATABASE_URL is not PostgreSQL: the several-instances test skipped");
        return;
    }
    let cardpay = std::env::var("TEST_CARDPAY_URL").ok();
    if cardpay.is_none() {
        eprintln!("TEST_CARDPAY_URL not set: card payments and their deadline left out");
    }
    let started = Instant::now();
    let db = TestDb::create().await;
    let sink = SmtpSink::start().await;
    let data = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let instances = Instances::start(db.url(), &sink.url(), cardpay.as_deref(), data.path());
    kairos(
        db.url(),
        &[
            "tenant",
            "create",
            "--id",
            TENANT,
            "--name",
            "Acme Climbing",
        ],
    );
    kairos(
        db.url(),
        &["admin", "create", "--tenant", TENANT, "--username", "owner"],
    );
    let pool = sqlx::PgPool::connect(db.url())
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let mut api = Api::new(&instances.addrs);
    api.sign_in().await;
    let venue = venue(&api, cardpay.is_some()).await;

    // Wave one: 20 holds of 1 to 3 people on each slot of 10 seats, all at once. Each
    // hold made is given a fate in turn, and the confirmations go out at once too.
    let wave_one = Instant::now();
    let one = hold_wave(&api, &venue, 20, &[1, 2, 1, 3], "a").await;
    let fates: &[Fate] = match cardpay {
        Some(_) => &[
            Fate::PayOnArrival,
            Fate::CardUnpaid,
            Fate::CardPaidEventLost,
            Fate::Expires,
        ],
        None => &[Fate::PayOnArrival, Fate::Expires],
    };
    let mut held = one.held;
    for (i, h) in held.iter_mut().enumerate() {
        h.fate = fates[i % fates.len()];
    }
    futures::future::join_all(held.iter_mut().map(|h| confirm(&api, h))).await;
    if let Some(base) = &cardpay {
        for h in held.iter().filter(|h| h.fate == Fate::CardPaidEventLost) {
            api.pay_at_provider(base, h.intent.as_deref().unwrap_or_default())
                .await;
        }
    }
    // Nothing is released within the holds' minute: what wave one got, the slots gave;
    // and a party was refused only when it did not fit in what was left.
    let took = wave_one.elapsed();
    assert!(took < Duration::from_secs(50), "wave one took {took:?}");
    let taken = seats(&held);
    for (s, seats) in taken.iter().enumerate() {
        assert!(
            *seats <= CAPACITY,
            "slot {s} oversold: {seats} of {CAPACITY}"
        );
        for (_, party) in one.refused.iter().filter(|(slot, _)| *slot == s) {
            assert!(
                *party > CAPACITY - seats,
                "slot {s} refused {party} with {seats} taken"
            );
        }
    }
    for fate in fates {
        assert!(
            held.iter().any(|h| h.fate == *fate),
            "no hold became {fate:?}"
        );
    }
    println!("{INSTANCES} instances, workers on, one database, requests round robin");
    println!(
        "wave one: {} holds at once asking {} seats of {} -> {} held ({} seats, per slot {taken:?}), {} refused SLOT_UNAVAILABLE; confirmed in {took:?}",
        one.attempts,
        one.seats_asked,
        3 * CAPACITY,
        held.len(),
        taken.iter().sum::<i64>(),
        one.refused.len()
    );

    // Wave two, once wave one's holds are overdue: new holds reclaim their seats, racing
    // the three instances' expiry workers; all are confirmed to pay on arrival.
    let expiring: Vec<uuid::Uuid> = held
        .iter()
        .filter(|h| h.fate == Fate::Expires)
        .map(|h| h.id)
        .collect();
    let overdue: Option<chrono::DateTime<chrono::Utc>> =
        sqlx::query_scalar("SELECT MAX(hold_expires_at) FROM bookings WHERE id = ANY($1)")
            .bind(&expiring)
            .fetch_one(&pool)
            .await
            .unwrap_or_else(|e| panic!("{e}"));
    let overdue = overdue.unwrap_or_else(chrono::Utc::now);
    let wait = (overdue - chrono::Utc::now()).to_std().unwrap_or_default();
    tokio::time::sleep(wait + Duration::from_millis(200)).await;
    let mut two = hold_wave(&api, &venue, 8, &[1, 2], "b").await;
    for h in &mut two.held {
        h.fate = Fate::PayOnArrival;
    }
    futures::future::join_all(two.held.iter_mut().map(|h| confirm(&api, h))).await;
    let wave_two_end = chrono::Utc::now();
    let kept = seats(
        held.iter()
            .filter(|h| h.fate != Fate::Expires)
            .chain(&two.held),
    );
    held.extend(two.held.iter().cloned());

    let expected: i64 = held
        .iter()
        .map(|h| {
            checks::KINDS
                .iter()
                .map(|k| h.fate.messages(k))
                .sum::<i64>()
        })
        .sum();
    checks::wait_until_done(&pool, &sink, &held, expected).await;
    // Long enough for another automation pass and many delivery passes on every instance:
    // a second send of anything would arrive meanwhile.
    tokio::time::sleep(Duration::from_secs(15)).await;
    let clean = instances.stop();

    // Wave two took no more than wave one left, unless a deadline had freed seats by then.
    let freed: Option<chrono::DateTime<chrono::Utc>> = sqlx::query_scalar(
        "SELECT MIN(canceled_at) FROM bookings WHERE tenant_id = $1 AND canceled_unpaid",
    )
    .bind(TENANT)
    .fetch_one(&pool)
    .await
    .unwrap_or_else(|e| panic!("{e}"));
    let bounded = freed.is_none_or(|t| t > wave_two_end);
    if bounded {
        for (s, seats) in kept.iter().enumerate() {
            assert!(*seats <= CAPACITY, "slot {s} oversold in wave two: {seats}");
        }
    }
    // Holds racing for the seats of overdue holds may be refused while those are being
    // given back (a reclaiming hold skips the holds another transaction has locked): how
    // many of the refused would have fit in what the slot had left afterwards.
    let fitted = two
        .refused
        .iter()
        .filter(|(s, party)| *party <= CAPACITY - kept[*s])
        .count();
    println!(
        "wave two, after the holds' minute: {} holds asking {} seats -> {} held, {} refused ({fitted} of them for no more seats than were still free afterwards); seats then taken per slot {kept:?}{}",
        two.attempts,
        two.seats_asked,
        two.held.len(),
        two.refused.len(),
        if bounded {
            ""
        } else {
            " (not checked: a deadline freed seats meanwhile)"
        }
    );
    println!(
        "fates: {} pay on arrival, {} card unpaid, {} card paid with its event lost, {} left to expire",
        held.iter().filter(|h| h.fate == Fate::PayOnArrival).count(),
        held.iter().filter(|h| h.fate == Fate::CardUnpaid).count(),
        held.iter()
            .filter(|h| h.fate == Fate::CardPaidEventLost)
            .count(),
        held.iter().filter(|h| h.fate == Fate::Expires).count()
    );

    checks::slots(&pool).await;
    checks::messages(&pool, &sink, &held, expected).await;
    checks::status_changes(&pool, &held).await;
    if let Some(base) = &cardpay {
        checks::payments(&pool, &api, base, &held).await;
    }
    println!(
        "stopped with SIGTERM, exit 0: {clean:?}; run time {:?}",
        started.elapsed()
    );
    assert!(
        clean.iter().all(|c| *c),
        "an instance did not stop cleanly: {clean:?}"
    );
}
