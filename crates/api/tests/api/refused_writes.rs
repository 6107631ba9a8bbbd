//! A refused write ends its transaction before it answers, so the rows it locked are free
//! the moment the answer comes (a transaction only dropped would keep its locks until its
//! connection is next used).

use super::booking_groups::{hold, hold_body, selection, venue};
use serde_json::json;
use sqlx::Connection;

#[tokio::test]
async fn a_refused_write_lets_go_of_its_rows_at_once() {
    if !kairos_testkit::on_postgres() {
        return; // SQLite has one writer and no row locks.
    }
    let v = venue().await;
    let group = hold(
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
    group.assert_status(200);
    let child = group.body["bookings"][0]["bookingId"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    let mut other = sqlx::PgConnection::connect(v.app.database_url())
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let id = uuid::Uuid::parse_str(&child).unwrap_or_else(|e| panic!("{e}"));
    for _ in 0..20 {
        // Refused after it locked the booking's row; the row is free the moment the
        // answer comes.
        v.app
            .post(&format!("/api/v1/bookings/{child}/apply-promo"))
            .tenant(&v.t.id)
            .token(&v.t.owner_token)
            .json(json!({"promotion_code": "ANY"}))
            .send()
            .await
            .assert_error(409, "INVALID_TRANSITION");
        let locked = sqlx::query("SELECT id FROM bookings WHERE id = $1 FOR UPDATE NOWAIT")
            .bind(id)
            .fetch_optional(&mut other)
            .await;
        assert!(locked.is_ok(), "the row is still locked: {locked:?}");
    }
}
