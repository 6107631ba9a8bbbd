//! Background workers. Each job is idempotent and safe with several instances running.

use crate::delivery::Mailer;
use kairos_api::state::AppState;
use kairos_domain::Clock;
use kairos_domain::scheduling::ScopeType;
use kairos_store::{DateSpan, Store};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::watch;

/// How often slot generation tops every product up to the horizon. Daily is enough for
/// the horizon to move; running hourly also repairs slots after a missed run.
const GENERATION_EVERY: Duration = Duration::from_secs(3600);

/// How often overdue holds are expired. Holds are also reclaimed by the next hold on their
/// slot, so capacity never waits for this worker.
const EXPIRY_EVERY: Duration = Duration::from_secs(5);

/// Holds expired per transaction. Each batch is one write transaction: on SQLite it holds
/// the one writer connection and requests queue behind it; on PostgreSQL it locks the
/// slots of its holds. Small batches keep a request's wait to one batch (milliseconds),
/// however many holds expire at once.
const EXPIRY_BATCH: i64 = 50;

/// How often due messages are looked for.
const DELIVERY_EVERY: Duration = Duration::from_secs(1);

/// How often automation rules are checked for bookings they came due for (a
/// confirmation goes out within this time of the booking).
const AUTOMATION_EVERY: Duration = Duration::from_secs(10);

/// How often bulk sends are started and continued (a send to start now begins within
/// this time).
const BULK_EVERY: Duration = Duration::from_secs(2);

/// Batches (of 100 bookings) one bulk send writes per pass before the next send gets a
/// turn.
const BULK_BATCHES_PER_PASS: usize = 20;

/// How often payments past their deadline are looked at.
const PAYMENTS_EVERY: Duration = Duration::from_secs(60);

/// How often what cancellations still owe is asked of the providers (a refund that could
/// not run when its booking was cancelled: another refund of the payment under way, or a
/// provider that did not answer).
const REFUNDS_EVERY: Duration = Duration::from_secs(30);

/// Runs the periodic jobs until `shutdown` turns true.
pub async fn run(state: AppState, mailer: Arc<Mailer>, mut shutdown: watch::Receiver<bool>) {
    let store = state.store.clone();
    let clock = state.clock.clone();
    let mut payments = tokio::time::interval(PAYMENTS_EVERY);
    payments.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    // Refunds talk to providers that may take their time: a task of its own, so a slow
    // provider never delays hold expiry or message delivery (and stopping drops a pass
    // mid-refund safely: the refund stays Processing and is resumed).
    let refunds = tokio::spawn(owed_refunds_every(state.clone(), shutdown.clone()));
    let mut tick = tokio::time::interval(Duration::from_secs(60));
    let mut delivery = tokio::time::interval(DELIVERY_EVERY);
    delivery.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut automation = tokio::time::interval(AUTOMATION_EVERY);
    automation.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut bulk = tokio::time::interval(BULK_EVERY);
    bulk.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut generation = tokio::time::interval(GENERATION_EVERY);
    let mut expiry = tokio::time::interval(EXPIRY_EVERY);
    loop {
        tokio::select! {
            _ = expiry.tick() => {
                expire_holds(&store, clock.as_ref()).await;
            }
            _ = automation.tick() => {
                run_automation(&store, clock.as_ref()).await;
            }
            _ = payments.tick() => {
                payment_deadlines(&state).await;
            }
            _ = bulk.tick() => {
                run_bulk_sends(&store, clock.as_ref()).await;
            }
            _ = delivery.tick() => {
                deliver_messages(&store, &mailer, clock.as_ref()).await;
            }
            _ = tick.tick() => {
                purge_idempotency_keys(&store, clock.as_ref()).await;
            }
            _ = generation.tick() => {
                generate_slots(&store, clock.as_ref()).await;
            }
            _ = shutdown.changed() => {
                if *shutdown.borrow() {
                    break;
                }
            }
        }
    }
    if let Err(e) = refunds.await {
        tracing::warn!(error = %e, "the owed-refunds task ended abnormally");
    }
    tracing::info!("workers stopped");
}

/// Moves overdue holds to `expired` and releases their seats, batch by batch.
pub async fn expire_holds(store: &Store, clock: &dyn Clock) -> u64 {
    let batch = EXPIRY_BATCH;
    let mut total = 0;
    loop {
        match store.expire_overdue_holds(clock.now(), batch).await {
            Ok(n) => {
                total += n;
                if n < u64::try_from(batch).unwrap_or(0) {
                    break;
                }
                // Requests waiting for the database go first (the write pool queues
                // fairly); the next batch waits its turn behind them.
                tokio::task::yield_now().await;
            }
            Err(e) => {
                tracing::warn!(error = %e, "hold expiry failed");
                break;
            }
        }
    }
    if total > 0 {
        tracing::info!(expired = total, "overdue holds expired");
    }
    total
}

/// Fires the automation rules that came due (spec Part B 4.8).
pub async fn run_automation(store: &Store, clock: &dyn Clock) {
    match store.run_automation(clock.now()).await {
        Ok(r) if r.fired + r.skipped > 0 => tracing::info!(
            fired = r.fired,
            skipped = r.skipped,
            messages = r.messages,
            "automation rules fired"
        ),
        Ok(_) => {}
        Err(e) => tracing::warn!(error = %e, "automation pass failed"),
    }
}

/// Settles or cancels the online payments past their deadline.
pub async fn payment_deadlines(state: &AppState) {
    match kairos_api::payments::deadline::run_once(state).await {
        Ok(r) if r.settled + r.canceled > 0 => tracing::info!(
            settled = r.settled,
            canceled = r.canceled,
            skipped = r.skipped,
            "payments past their deadline handled"
        ),
        Ok(_) => {}
        Err(e) => tracing::warn!(error = %e, "payment deadline pass failed"),
    }
}

/// Runs [`owed_refunds`] every [`REFUNDS_EVERY`] until `shutdown` turns true.
async fn owed_refunds_every(state: AppState, mut shutdown: watch::Receiver<bool>) {
    let mut every = tokio::time::interval(REFUNDS_EVERY);
    every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            _ = every.tick() => owed_refunds(&state).await,
            _ = shutdown.changed() => {
                if *shutdown.borrow() {
                    break;
                }
            }
        }
    }
}

/// Refunds what cancellations still owe.
pub async fn owed_refunds(state: &AppState) {
    match kairos_api::payments::cancellation::finish_unfinished(state).await {
        Ok(r) if r.refunded + r.failed > 0 || r.stalled > 0 => tracing::info!(
            refunded = r.refunded,
            waiting = r.waiting,
            failed = r.failed,
            stalled = r.stalled,
            "owed refunds asked of their providers"
        ),
        Ok(_) => {}
        Err(e) => tracing::warn!(error = %e.message, "owed refunds pass failed"),
    }
}

/// Starts and continues the bulk sends that are due (spec Part B 4.8).
pub async fn run_bulk_sends(store: &Store, clock: &dyn Clock) {
    match store
        .run_bulk_sends(clock.now(), BULK_BATCHES_PER_PASS)
        .await
    {
        Ok(r) if r.started + r.messages + r.skipped + r.completed > 0 => tracing::info!(
            started = r.started,
            messages = r.messages,
            skipped = r.skipped,
            completed = r.completed,
            "bulk sends advanced"
        ),
        Ok(_) => {}
        Err(e) => tracing::warn!(error = %e, "bulk send pass failed"),
    }
}

/// Sends the messages that are due.
pub async fn deliver_messages(store: &Store, mailer: &Arc<Mailer>, clock: &dyn Clock) {
    match crate::delivery::deliver_due(store, mailer, clock.now()).await {
        Ok(round) if round.total() > 0 => tracing::info!(
            delivered = round.delivered,
            retrying = round.retrying,
            dead_lettered = round.dead_lettered,
            "messages sent"
        ),
        Ok(_) => {}
        Err(e) => tracing::warn!(error = %e, "message delivery failed"),
    }
}

/// Idempotency records live 24 hours (ARCHITECTURE section 5); expired ones go.
async fn purge_idempotency_keys(store: &Store, clock: &dyn Clock) {
    match store.purge_expired_idempotency_keys(clock.now()).await {
        Ok(0) => {}
        Ok(n) => tracing::info!(removed = n, "expired idempotency keys purged"),
        Err(e) => tracing::warn!(error = %e, "purging idempotency keys failed"),
    }
}

/// Keeps every product's slots generated to the horizon (spec Part B 4.12). Idempotent
/// and serialised per product, so several instances may run it at once.
pub async fn generate_slots(store: &Store, clock: &dyn Clock) {
    let products = match store.all_products().await {
        Ok(p) => p,
        Err(e) => {
            tracing::warn!(error = %e, "slot generation could not list products");
            return;
        }
    };
    let mut created = 0;
    for (tenant, product) in products {
        match store
            .regenerate(
                &tenant,
                ScopeType::Product,
                product,
                DateSpan::default(),
                clock.now(),
                false,
            )
            .await
        {
            Ok(report) => created += report.created,
            Err(e) => {
                tracing::warn!(tenant_id = %tenant, product_id = %product, error = %e, "slot generation failed")
            }
        }
    }
    if created > 0 {
        tracing::info!(created, "slots generated to the horizon");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kairos_domain::TenantId;
    use kairos_testkit::TestApp;

    #[tokio::test]
    async fn generation_moves_the_horizon_forward_each_day_and_is_idempotent() {
        let app = TestApp::spawn().await;
        let t = app.tenant("acme").await;
        let fx = app.catalog(&t).await;
        app.daily_hours(&t, "site", &fx.site_id, "10:00", "14:00")
            .await;
        let tenant = TenantId::parse("acme").unwrap_or_else(|e| panic!("{e}"));
        let product = uuid::Uuid::parse_str(&fx.product_id).unwrap_or_else(|e| panic!("{e}"));
        let count = || async {
            let from = app.clock_now() - chrono::Duration::days(5);
            let to = app.clock_now() + chrono::Duration::days(90);
            app.store
                .list_slots(&tenant, product, from, to)
                .await
                .unwrap_or_default()
                .len()
        };
        let before = count().await;
        generate_slots(&app.store, &app.clock).await;
        assert_eq!(count().await, before, "nothing new on the same day");

        app.clock.advance(chrono::Duration::days(1));
        generate_slots(&app.store, &app.clock).await;
        assert_eq!(
            count().await,
            before + 4,
            "one more day of four slots at the horizon"
        );
        generate_slots(&app.store, &app.clock).await;
        assert_eq!(count().await, before + 4);
    }

    #[tokio::test]
    async fn hold_expiry_releases_overdue_holds_only() {
        let app = TestApp::spawn().await;
        let t = app.tenant("acme").await;
        let fx = app.bookable(&t).await;
        app.hold(&t.id, &fx, &fx.slots[0], 4)
            .await
            .assert_status(200);
        app.clock.advance(chrono::Duration::minutes(10));
        app.hold(&t.id, &fx, &fx.slots[1], 2)
            .await
            .assert_status(200);
        assert_eq!(
            expire_holds(&app.store, &app.clock).await,
            0,
            "none overdue yet"
        );
        app.clock.advance(chrono::Duration::minutes(6));
        assert_eq!(
            expire_holds(&app.store, &app.clock).await,
            1,
            "the first is overdue"
        );
        assert_eq!(
            expire_holds(&app.store, &app.clock).await,
            0,
            "and expires once"
        );
        app.clock.advance(chrono::Duration::minutes(10));
        assert_eq!(expire_holds(&app.store, &app.clock).await, 1);
        app.assert_capacity_invariant(&t.id).await;
        let open = app
            .availability(&t.id, &fx.catalog, "2026-11-22", "2026-11-22", 10)
            .await;
        assert_eq!(open.body["slots"].as_array().map(Vec::len), Some(4));
    }

    #[tokio::test]
    async fn a_request_waits_for_one_expiry_batch_not_the_whole_sweep() {
        let app = TestApp::builder()
            .limits(kairos_api::rate_limit::Limits::UNLIMITED)
            .spawn()
            .await;
        let t = app.tenant("acme").await;
        let fx = app.bookable(&t).await;
        let open = app
            .availability(&t.id, &fx.catalog, "2026-11-22", "2026-11-26", 1)
            .await;
        let slots = kairos_testkit::slot_ids(&open.body);
        assert_eq!(slots.len(), 20, "five days of four slots: {}", open.text);
        let (held, free) = slots.split_at(16);
        // 160 one-seat holds, more than three batches.
        let mut n = 0;
        for slot in held {
            for _ in 0..10 {
                n += 1;
                app.hold_for(
                    &t.id,
                    &fx.catalog,
                    slot,
                    1,
                    &format!("guest{n}@example.com"),
                )
                .await
                .assert_status(200);
            }
        }
        app.clock.advance(chrono::Duration::minutes(20));

        let store = app.store.clone();
        let clock = app.clock.clone();
        let sweep = tokio::spawn(async move { expire_holds(&store, &clock).await });
        // Let the sweep start its first batch, then hold a seat elsewhere: on SQLite the
        // hold needs the one writer connection, which the sweep gives up between batches.
        tokio::time::sleep(std::time::Duration::from_millis(2)).await;
        app.hold_for(&t.id, &fx.catalog, &free[0], 1, "late@example.com")
            .await
            .assert_status(200);
        assert!(
            !sweep.is_finished(),
            "the hold was served between two batches of the sweep, not after all of them"
        );
        let expired = sweep.await.unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(expired, 160, "the sweep expired every overdue hold");
        assert_eq!(expire_holds(&app.store, &app.clock).await, 0);
        app.assert_capacity_invariant(&t.id).await;
    }
}
