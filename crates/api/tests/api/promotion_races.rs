//! Promotion uses and voucher balances under races, against the real server: many holds
//! apply one code or one voucher at once. The limit is never passed, the balance never
//! goes below zero, nothing answers 5xx, and afterwards every usage count equals its use
//! records and every balance its ledger.

use kairos_api::rate_limit::Limits;
use kairos_domain::TenantId;
use kairos_testkit::{CatalogFixture, TestApp, http, slot_ids};
use serde_json::{Value, json};
use std::net::SocketAddr;
use std::sync::Arc;
use tokio::sync::Barrier;

/// A served app whose product has room for `holds` people on one slot, and that many
/// holds of one person each (20.00, different customers): (app, addr, owner token,
/// [(booking id, token)]).
async fn holds(holds: usize) -> (TestApp, SocketAddr, String, Vec<(String, String)>) {
    let app = TestApp::builder().limits(Limits::UNLIMITED).spawn().await;
    let t = app.tenant("acme").await;
    let base = app.catalog(&t).await;
    let product = app
        .post("/api/v1/admin/products")
        .tenant("acme")
        .token(&t.owner_token)
        .json(json!({
            "siteId": base.site_id, "name": "Big hall", "durationMins": 60,
            "capacity": holds + 10, "basePrice": 20.0, "priceType": "per_person", "taxRate": 24,
            "slotIntervalMin": 60
        }))
        .send()
        .await;
    product.assert_status(200);
    let catalog = CatalogFixture {
        site_id: base.site_id.clone(),
        product_id: product.str("id").to_owned(),
    };
    app.daily_hours(&t, "site", &catalog.site_id, "10:00", "14:00")
        .await;
    let res = app
        .availability("acme", &catalog, "2026-11-22", "2026-11-22", 1)
        .await;
    res.assert_status(200);
    let slot = slot_ids(&res.body)
        .first()
        .cloned()
        .unwrap_or_else(|| panic!("no slot: {}", res.text));
    let mut made = Vec::with_capacity(holds);
    for i in 0..holds {
        let res = app
            .hold_for("acme", &catalog, &slot, 1, &format!("guest{i}@example.com"))
            .await;
        res.assert_status(200);
        made.push((res.str("id").to_owned(), res.str("bookingToken").to_owned()));
    }
    let addr = app.serve().await;
    (app, addr, t.owner_token, made)
}

/// POSTs `body_of(booking)` to `path_of(booking)` for every hold at once, with its token:
/// the (status, body) of each.
async fn race(
    addr: SocketAddr,
    holds: &[(String, String)],
    path_of: impl Fn(&str) -> String,
    body_of: impl Fn(&str) -> Value,
) -> Vec<(u16, Value)> {
    let barrier = Arc::new(Barrier::new(holds.len()));
    let tasks: Vec<_> = holds
        .iter()
        .map(|(id, token)| {
            let (barrier, token) = (barrier.clone(), token.clone());
            let (path, body) = (path_of(id), body_of(id));
            tokio::spawn(async move {
                barrier.wait().await;
                http(
                    addr,
                    "POST",
                    &path,
                    &[("x-tenant-id", "acme"), ("x-booking-token", &token)],
                    Some(body),
                )
                .await
            })
        })
        .collect();
    let mut out = Vec::new();
    for t in tasks {
        out.push(t.await.unwrap_or_else(|e| panic!("task: {e}")));
    }
    out
}

async fn assert_invariants(app: &TestApp) {
    let tenant = TenantId::parse("acme").unwrap_or_else(|e| panic!("{e}"));
    let uses = app.store.promotion_usage_mismatches(&tenant).await;
    assert_eq!(uses.ok(), Some(vec![]), "usage counts equal usage records");
    let ledgers = app.store.voucher_ledger_mismatches(&tenant).await;
    assert_eq!(ledgers.ok(), Some(vec![]), "balances equal their ledgers");
    app.assert_capacity_invariant("acme").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_hundred_holds_race_for_ten_uses_and_exactly_ten_win() {
    let (app, addr, owner, holds) = holds(100).await;
    let res = app
        .post("/api/v1/admin/promotions")
        .tenant("acme")
        .token(&owner)
        .json(json!({
            "code": "RUSH", "name": "Rush hour", "type": "fixed_amount", "discount_value": 5,
            "starts_at": "2026-11-01T00:00:00Z", "usage_limit": 10
        }))
        .send()
        .await;
    res.assert_status(200);
    let id = res.str("/promotion/id").to_owned();
    let results = race(
        addr,
        &holds,
        |_| "/api/v1/promotions/apply".to_owned(),
        |booking| json!({"booking_id": booking, "promotion_code": "RUSH"}),
    )
    .await;
    let won = results.iter().filter(|(s, _)| *s == 200).count();
    for (status, body) in &results {
        assert!(
            *status == 200 || (*status == 409 && body["error"] == "USAGE_LIMIT_EXCEEDED"),
            "{status}: {body}"
        );
    }
    assert_eq!(won, 10, "exactly the usage limit succeeds");
    let promotion = app
        .get(&format!("/api/v1/admin/promotions/{id}"))
        .tenant("acme")
        .token(&owner)
        .send()
        .await;
    assert_eq!(promotion.body["usage_count"], 10);
    assert_invariants(&app).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn fifty_holds_share_one_voucher_and_spend_exactly_its_balance() {
    let (app, addr, owner, holds) = holds(50).await;
    // 110.00 pays five holds of 20.00 in full and half of a sixth.
    let res = app
        .post("/api/v1/admin/vouchers")
        .tenant("acme")
        .token(&owner)
        .json(json!({"code": "SHARED", "type": "multi_use", "original_value": 110}))
        .send()
        .await;
    res.assert_status(200);
    let results = race(
        addr,
        &holds,
        |booking| format!("/api/v1/bookings/{booking}/apply-voucher"),
        |_| json!({"voucher_code": "SHARED"}),
    )
    .await;
    let mut applied = 0.0;
    let mut won = 0;
    for (status, body) in &results {
        match status {
            200 => {
                won += 1;
                applied += body["applied_voucher"]["applied_amount"]
                    .as_f64()
                    .unwrap_or(f64::NAN);
            }
            400 => assert_eq!(body["error"], "INSUFFICIENT_FUNDS", "{body}"),
            _ => panic!("{status}: {body}"),
        }
    }
    assert_eq!(won, 6);
    assert!((applied - 110.0).abs() < 1e-9, "applied {applied}");
    let balance = app
        .get("/api/v1/vouchers/SHARED/balance")
        .tenant("acme")
        .send()
        .await;
    assert_eq!(balance.body["voucher"]["current_balance"], 0.0);
    assert_invariants(&app).await;
}
