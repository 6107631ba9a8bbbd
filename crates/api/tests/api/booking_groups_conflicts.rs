//! A group write that another change meets, and that the database gives up (a PostgreSQL
//! deadlock, SQLite busy past its timeout), is answered 409 CONFLICT with `Retry-After`:
//! nothing of it is written, and it is not the stored answer of its `Idempotency-Key`, so
//! the same request sent again succeeds.

use super::booking_groups::{hold, hold_body, selection, venue};
use kairos_testkit::on_postgres;
use serde_json::json;
use std::time::Duration;
use uuid::Uuid;

#[tokio::test]
async fn a_group_confirmation_the_database_gives_up_is_a_conflict_to_send_again() {
    let v = venue().await;
    let g = hold(
        &v.app,
        &v.t.id,
        hold_body(
            2,
            vec![
                selection(&v.climbing.catalog, &v.climbing.slots[0]),
                selection(&v.room, &v.room_slots[1]),
            ],
        ),
    )
    .await;
    g.assert_status(200);
    let id = g.str("id").to_owned();
    let confirm = || {
        v.app
            .post(&format!("/api/v1/admin/booking-groups/{id}/confirm"))
            .tenant(&v.t.id)
            .token(&v.t.owner_token)
            .header("Idempotency-Key", "group-confirm-1")
            .json(json!({"paymentMethod": "INVOICE"}))
            .send()
    };
    let res = if on_postgres() {
        // Another transaction holds the group's first booking, then asks for the group
        // row the confirmation holds while it waits for that booking: a deadlock, and
        // the confirmation (waiting first, so checking first) is the one given up.
        let mut first: Vec<Uuid> = g.body["bookings"]
            .as_array()
            .map(|b| {
                b.iter()
                    .filter_map(|x| x["bookingId"].as_str()?.parse().ok())
                    .collect()
            })
            .unwrap_or_default();
        first.sort();
        let pool = sqlx::PgPool::connect(v.app.database_url())
            .await
            .unwrap_or_else(|e| panic!("{e}"));
        let mut other = pool.begin().await.unwrap_or_else(|e| panic!("{e}"));
        sqlx::query("SELECT id FROM bookings WHERE id = $1 FOR UPDATE")
            .bind(first[0])
            .execute(&mut *other)
            .await
            .unwrap_or_else(|e| panic!("{e}"));
        let group: Uuid = id.parse().unwrap_or_else(|e| panic!("{e}"));
        let (res, _) = tokio::join!(confirm(), async {
            tokio::time::sleep(Duration::from_millis(300)).await;
            sqlx::query("SELECT id FROM booking_groups WHERE id = $1 FOR UPDATE")
                .bind(group)
                .execute(&mut *other)
                .await
        });
        other.rollback().await.unwrap_or_else(|e| panic!("{e}"));
        res
    } else {
        // Another process holds SQLite's one write lock past the busy timeout (5 s).
        let pool = sqlx::SqlitePool::connect(v.app.database_url())
            .await
            .unwrap_or_else(|e| panic!("{e}"));
        let mut other = pool.acquire().await.unwrap_or_else(|e| panic!("{e}"));
        sqlx::query("BEGIN IMMEDIATE")
            .execute(&mut *other)
            .await
            .unwrap_or_else(|e| panic!("{e}"));
        let res = confirm().await;
        sqlx::query("ROLLBACK")
            .execute(&mut *other)
            .await
            .unwrap_or_else(|e| panic!("{e}"));
        res
    };
    res.assert_error(409, "CONFLICT");
    assert_eq!(res.header("retry-after"), Some("1"), "{}", res.text);
    // Nothing of it was written.
    let now = v
        .app
        .get(&format!("/api/v1/admin/booking-groups/{id}"))
        .tenant(&v.t.id)
        .token(&v.t.owner_token)
        .send()
        .await;
    assert_eq!(now.body["status"], "HOLD", "{}", now.text);
    // Sent again with the same key, it runs (the conflict was not its stored answer).
    let again = confirm().await;
    again.assert_status(200);
    assert_eq!(again.body["status"], "CONFIRMED", "{}", again.text);
    v.app.assert_capacity_invariant(&v.t.id).await;
}
