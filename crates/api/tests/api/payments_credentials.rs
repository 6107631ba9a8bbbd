//! Payment provider credentials (spec Part B 4.6): stored sealed, never returned, per
//! tenant or per site, changed by owners only, chosen site → tenant (→ env for bankpay).

use kairos_domain::TenantId;
use kairos_domain::payments::credentials::Provider;
use kairos_testkit::{TenantFixture, TestApp, TestResponse};
use serde_json::{Value, json};

const CREDENTIALS: &str = "/api/v1/admin/payments/credentials";

async fn put(app: &TestApp, t: &TenantFixture, provider: &str, body: Value) -> TestResponse {
    app.put(&format!("{CREDENTIALS}/{provider}"))
        .tenant(&t.id)
        .token(&t.owner_token)
        .json(body)
        .send()
        .await
}

#[tokio::test]
async fn owners_store_credentials_that_are_never_shown_again() {
    let app = TestApp::spawn().await;
    let t = app.tenant("acme").await;
    let res = put(
        &app,
        &t,
        "cardpay",
        json!({"secretKey": "sk_test_51Habcdefgh4242", "webhookSecret": "whsec_abcdefgh1234"}),
    )
    .await;
    res.assert_status(200);
    assert_eq!(res.body["provider"], "cardpay");
    assert_eq!(res.body["scope"], "tenant");
    assert_eq!(res.body["enabled"], true);
    assert_eq!(res.body["sandbox"], false);
    assert_eq!(res.body["secretKeyHint"], "…4242");
    assert_eq!(res.body["hasWebhookSecret"], true);
    assert_eq!(res.body["publishableKey"], Value::Null);
    assert!(!res.text.contains("sk_test_51Habcdefgh4242") && !res.text.contains("whsec_"));

    // Stored sealed: the database holds no secret in the clear.
    let stored = app
        .store
        .list_payment_credentials(&TenantId::parse("acme").unwrap())
        .await
        .unwrap();
    assert_eq!(stored.len(), 1);
    assert!(stored[0].secret_key.starts_with("v1:"));
    assert!(!stored[0].secret_key.contains("sk_test"));
    assert!(
        !stored[0]
            .webhook_secret
            .as_deref()
            .unwrap()
            .contains("whsec")
    );

    // An update may leave the secrets out: they are kept. The publishable key is not a
    // secret: it is shown, and kept when left out too.
    let res = put(
        &app,
        &t,
        "cardpay",
        json!({"publishableKey": "pk_test_51Habcdefgh"}),
    )
    .await;
    res.assert_status(200);
    assert_eq!(res.body["publishableKey"], "pk_test_51Habcdefgh");
    let res = put(&app, &t, "cardpay", json!({"enabled": false})).await;
    res.assert_status(200);
    assert_eq!(res.body["enabled"], false);
    assert_eq!(res.body["secretKeyHint"], "…4242");
    assert_eq!(res.body["publishableKey"], "pk_test_51Habcdefgh");

    let list = app
        .get(CREDENTIALS)
        .tenant(&t.id)
        .token(&t.owner_token)
        .send()
        .await;
    list.assert_status(200);
    assert_eq!(list.body["credentials"].as_array().unwrap().len(), 1);
    assert_eq!(list.body["environment"]["bankpay"], false);
    assert!(!list.text.contains("sk_test_51Habcdefgh4242"));

    // Another tenant sees none of it.
    let other = app.tenant("globex").await;
    let theirs = app
        .get(CREDENTIALS)
        .tenant(&other.id)
        .token(&other.owner_token)
        .send()
        .await;
    assert_eq!(theirs.body["credentials"], json!([]));

    // Removed once; a second removal finds nothing.
    for status in [200, 404] {
        app.delete(&format!("{CREDENTIALS}/cardpay"))
            .tenant(&t.id)
            .token(&t.owner_token)
            .send()
            .await
            .assert_status(status);
    }
}

#[tokio::test]
async fn each_provider_gets_the_fields_it_uses() {
    let app = TestApp::spawn().await;
    let t = app.tenant("acme").await;
    let res = put(
        &app,
        &t,
        "cardpay",
        json!({"secretKey": "sk_test_12345678"}),
    )
    .await;
    res.assert_error(400, "VALIDATION_ERROR");
    assert_eq!(res.error_fields(), vec!["webhookSecret"]);
    let res = put(
        &app,
        &t,
        "bankpay",
        json!({"secretKey": "SAIPPUAKAUPPIAS", "webhookSecret": "whsec_12345678"}),
    )
    .await;
    assert_eq!(res.error_fields(), vec!["webhookSecret"]);
    let res = put(&app, &t, "bankpay", json!({"secretKey": "SAIPPUAKAUPPIAS"})).await;
    assert_eq!(res.error_fields(), vec!["merchantId"]);
    // The publishable key is cardpay's, and never the secret key pasted in its place.
    let res = put(
        &app,
        &t,
        "bankpay",
        json!({"secretKey": "SAIPPUAKAUPPIAS", "merchantId": "375917",
            "publishableKey": "pk_test_12345678"}),
    )
    .await;
    assert_eq!(res.error_fields(), vec!["publishableKey"]);
    let res = put(
        &app,
        &t,
        "cardpay",
        json!({"secretKey": "sk_test_12345678", "webhookSecret": "whsec_12345678",
            "publishableKey": "sk_test_12345678"}),
    )
    .await;
    res.assert_error(400, "VALIDATION_ERROR");
    assert_eq!(res.error_fields(), vec!["publishableKey"]);
    assert!(res.text.contains("never the secret key"));
    let res = put(
        &app,
        &t,
        "cardpay",
        json!({"secretKey": "short", "webhookSecret": "has spaces in it", "merchantId": "1",
            "siteId": "nope"}),
    )
    .await;
    assert_eq!(
        res.error_fields(),
        vec!["siteId", "secretKey", "webhookSecret", "merchantId"]
    );
    let res = put(
        &app,
        &t,
        "bankpay",
        json!({"secretKey": "SAIPPUAKAUPPIAS", "merchantId": "375917"}),
    )
    .await;
    res.assert_status(200);
    assert_eq!(res.body["merchantId"], "375917");
    assert_eq!(res.body["hasWebhookSecret"], false);
    // No such provider, no such site.
    put(&app, &t, "paypal", json!({}))
        .await
        .assert_error(404, "NOT_FOUND");
    put(
        &app,
        &t,
        "bankpay",
        json!({"siteId": uuid::Uuid::new_v4(), "secretKey": "SAIPPUAKAUPPIAS",
            "merchantId": "375917"}),
    )
    .await
    .assert_error(404, "NOT_FOUND");
}

#[tokio::test]
async fn a_site_with_its_own_account_is_charged_through_it() {
    let app = TestApp::spawn().await;
    let t = app.tenant("acme").await;
    let fx = app.catalog(&t).await;
    let tenant = TenantId::parse("acme").unwrap();
    let site: uuid::Uuid = fx.site_id.parse().unwrap();
    put(
        &app,
        &t,
        "bankpay",
        json!({"secretKey": "TENANTSECRET", "merchantId": "1000"}),
    )
    .await
    .assert_status(200);
    let (site_creds, tenant_creds) = app
        .store
        .payment_credentials_for(&tenant, Provider::Bankpay, Some(site))
        .await
        .unwrap();
    assert!(site_creds.is_none());
    assert_eq!(tenant_creds.unwrap().merchant_id.as_deref(), Some("1000"));

    let res = put(
        &app,
        &t,
        "bankpay",
        json!({"siteId": fx.site_id, "secretKey": "SITESECRET1", "merchantId": "2000"}),
    )
    .await;
    res.assert_status(200);
    assert_eq!(res.body["scope"], "site");
    let (site_creds, _) = app
        .store
        .payment_credentials_for(&tenant, Provider::Bankpay, Some(site))
        .await
        .unwrap();
    assert_eq!(site_creds.unwrap().merchant_id.as_deref(), Some("2000"));
    // Switched off, the site's account is not used.
    put(
        &app,
        &t,
        "bankpay",
        json!({"siteId": fx.site_id, "enabled": false}),
    )
    .await
    .assert_status(200);
    let (site_creds, tenant_creds) = app
        .store
        .payment_credentials_for(&tenant, Provider::Bankpay, Some(site))
        .await
        .unwrap();
    assert!(site_creds.is_none() && tenant_creds.is_some());
    // The site's removal leaves the tenant's.
    app.delete(&format!("{CREDENTIALS}/bankpay?siteId={}", fx.site_id))
        .tenant(&t.id)
        .token(&t.owner_token)
        .send()
        .await
        .assert_status(200);
    let list = app
        .get(CREDENTIALS)
        .tenant(&t.id)
        .token(&t.owner_token)
        .send()
        .await;
    assert_eq!(list.body["credentials"].as_array().unwrap().len(), 1);
}
