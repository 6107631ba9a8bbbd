//! The background jobs of a `kairos serve` or `kairos worker` process: the application's
//! list (`kairos_app::jobs::all`), each job a task of its own.

use kairos_app::App;
use kairos_app::messaging::delivery::Mailer;
use std::sync::Arc;
use tokio::sync::watch;

/// Runs every job until `shutdown` turns true (a pass under way is finished first).
pub async fn run(app: App, mailer: Arc<Mailer>, shutdown: watch::Receiver<bool>) {
    let handles = kairos_app::jobs::spawn(&app, kairos_app::jobs::all(mailer), &shutdown);
    for handle in handles {
        if let Err(e) = handle.await {
            tracing::warn!(error = %e, "a job task ended abnormally");
        }
    }
    tracing::info!("workers stopped");
}

#[cfg(test)]
mod tests {
    use kairos_app::jobs::{expire_holds, generate_slots};
    use kairos_domain::Clock;
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
        generate_slots(&app.store, app.clock_now())
            .await
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(count().await, before, "nothing new on the same day");

        app.clock.advance(chrono::Duration::days(1));
        generate_slots(&app.store, app.clock_now())
            .await
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            count().await,
            before + 4,
            "one more day of four slots at the horizon"
        );
        generate_slots(&app.store, app.clock_now())
            .await
            .unwrap_or_else(|e| panic!("{e}"));
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
            expire_holds(&app.store, app.clock_now())
                .await
                .unwrap_or_else(|e| panic!("{e}")),
            0,
            "none overdue yet"
        );
        app.clock.advance(chrono::Duration::minutes(6));
        assert_eq!(
            expire_holds(&app.store, app.clock_now())
                .await
                .unwrap_or_else(|e| panic!("{e}")),
            1,
            "the first is overdue"
        );
        assert_eq!(
            expire_holds(&app.store, app.clock_now())
                .await
                .unwrap_or_else(|e| panic!("{e}")),
            0,
            "and expires once"
        );
        app.clock.advance(chrono::Duration::minutes(10));
        assert_eq!(
            expire_holds(&app.store, app.clock_now())
                .await
                .unwrap_or_else(|e| panic!("{e}")),
            1
        );
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
        let sweep = tokio::spawn(async move { expire_holds(&store, clock.now()).await });
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
        let expired = sweep
            .await
            .unwrap_or_else(|e| panic!("{e}"))
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(expired, 160, "the sweep expired every overdue hold");
        assert_eq!(
            expire_holds(&app.store, app.clock_now())
                .await
                .unwrap_or_else(|e| panic!("{e}")),
            0
        );
        app.assert_capacity_invariant(&t.id).await;
    }
}
