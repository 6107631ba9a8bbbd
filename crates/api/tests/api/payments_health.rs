//! The webhook health endpoints (spec Part B 4.6) tell each caller only what is theirs:
//! anyone the status, a tenant's staff that tenant's event counts, never another tenant's.
#![expect(clippy::unwrap_used, reason = "test helpers fail the test loudly")]

use kairos_app::payments::providers::sandbox::webhook_secret;
use kairos_domain::TenantId;
use kairos_domain::auth::Role;
use kairos_domain::payments::cardpay_signature::header;
use kairos_domain::payments::credentials::Provider;
use kairos_testkit::{TenantFixture, TestApp, TestResponse};
use serde_json::{Value, json};

const CARD: &str = "/payments/cardpay/webhook/health";
const BANK: &str = "/webhooks/bankpay/health";

/// Delivers the signed card event `id` (about no payment: acknowledged, counted) for `t`.
async fn card_event(app: &TestApp, t: &TenantFixture, secret: &str, id: &str) {
    let body = json!({"id": id, "object": "event", "type": "customer.created",
        "data": {"object": {"id": "cus_1", "object": "customer"}}})
    .to_string();
    let signature = header(secret, app.clock_now().timestamp(), body.as_bytes());
    app.post(&format!("/payments/cardpay/webhook?tenant={}", t.id))
        .header("content-type", "application/json")
        .header("cardpay-signature", &signature)
        .raw(body.into_bytes())
        .send()
        .await
        .assert_status(200);
}

/// `n` bank callbacks whose processing failed, recorded for `tenant` as the callback does.
async fn failed_bank_events(app: &TestApp, tenant: &str, n: usize) {
    let tenant = TenantId::parse(tenant).unwrap();
    for i in 0..n {
        app.store
            .record_failed_event(
                &tenant,
                Provider::Bankpay,
                &format!("txn-{tenant}-{i}:ok"),
                "ok",
                "the database was unavailable",
                app.clock_now(),
            )
            .await
            .unwrap();
    }
}

async fn health(
    app: &TestApp,
    path: &str,
    tenant: Option<&str>,
    token: Option<&str>,
) -> TestResponse {
    let mut req = app.post(path);
    if let Some(tenant) = tenant {
        req = req.tenant(tenant);
    }
    if let Some(token) = token {
        req = req.token(token);
    }
    req.send().await
}

/// The counts of a health answer: processed, last hour, duplicates, failed.
fn counts(res: &TestResponse) -> [i64; 4] {
    res.assert_status(200);
    let stats = &res.body["stats"];
    [
        "total_events_processed",
        "events_last_hour",
        "duplicate_events_rejected",
        "failed_events",
    ]
    .map(|k| {
        stats[k]
            .as_i64()
            .unwrap_or_else(|| panic!("no {k} in {}", res.body))
    })
}

#[tokio::test]
async fn webhook_health_gives_counts_only_to_staff_and_only_their_tenants() {
    let app = TestApp::spawn().await;
    let a = app.tenant("acme").await;
    let b = app.tenant("globex").await;
    for t in [&a, &b] {
        let key = app.sandbox_cardpay(t).await;
        let secret = webhook_secret(&app.state.config.payments.secrets, &key);
        let events = if t.id == a.id { 2 } else { 1 };
        for i in 0..events {
            card_event(&app, t, &secret, &format!("evt_{}_{i}", t.id)).await;
        }
        if t.id == a.id {
            // A repeat is a duplicate of acme's.
            card_event(&app, t, &secret, "evt_acme_0").await;
        }
    }
    failed_bank_events(&app, &a.id, 1).await;
    failed_bank_events(&app, &b.id, 3).await;

    // Anyone: the status alone, with or without a tenant named.
    for tenant in [None, Some(a.id.as_str())] {
        for path in [CARD, BANK] {
            let res = health(&app, path, tenant, None).await;
            res.assert_status(200);
            assert_eq!(res.body["status"], "ok");
            assert!(res.body["timestamp"].is_string());
            let fields: Vec<&String> = res.body.as_object().unwrap().keys().collect();
            assert_eq!(fields, ["status", "timestamp"], "{path}: {}", res.body);
        }
    }

    // Each tenant's staff: their own counts.
    app.staff(&a.id, "viewer", "viewer-password-1", &[Role::Viewer])
        .await;
    let viewer = app.admin_token(&a.id, "viewer", "viewer-password-1").await;
    for token in [&a.owner_token, &viewer] {
        let card = health(&app, CARD, Some(&a.id), Some(token)).await;
        assert_eq!(counts(&card), [2, 2, 1, 0], "acme's card events");
        let bank = health(&app, BANK, Some(&a.id), Some(token)).await;
        assert_eq!(counts(&bank), [0, 1, 0, 1], "acme's bank events");
    }
    let card = health(&app, CARD, Some(&b.id), Some(&b.owner_token)).await;
    assert_eq!(counts(&card), [1, 1, 0, 0], "globex's card events alone");
    let bank = health(&app, BANK, Some(&b.id), Some(&b.owner_token)).await;
    assert_eq!(counts(&bank), [0, 3, 0, 3], "globex's bank events alone");

    // A token that is given is checked, and nothing is counted for the wrong caller.
    let customer = app.customer_token(&a.id, "guest@example.com").await;
    for path in [CARD, BANK] {
        let res = health(&app, path, Some(&b.id), Some(&a.owner_token)).await;
        res.assert_error(403, "TENANT_MISMATCH");
        assert_eq!(res.body.get("stats"), None::<&Value>);
        health(&app, path, Some(&a.id), Some(&customer))
            .await
            .assert_status(403);
        health(&app, path, Some(&a.id), Some("not-a-token"))
            .await
            .assert_status(401);
        health(&app, path, None, Some(&a.owner_token))
            .await
            .assert_error(400, "VALIDATION_ERROR");
    }
}
