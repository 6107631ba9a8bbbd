use kairos_domain::TenantId;
use kairos_testkit::{TenantFixture, TestApp};
use serde_json::json;
use uuid::Uuid;

pub(crate) async fn slot_count(app: &TestApp, tenant: &str, product: &str) -> usize {
    let tenant = TenantId::parse(tenant).unwrap_or_else(|e| panic!("{e}"));
    let product = Uuid::parse_str(product).unwrap_or_else(|e| panic!("{e}"));
    let from = app.clock_now() - chrono::Duration::days(1);
    let to = app.clock_now() + chrono::Duration::days(90);
    app.store
        .list_slots(&tenant, product, from, to)
        .await
        .unwrap_or_else(|e| panic!("{e}"))
        .len()
}

pub(crate) async fn post(
    app: &TestApp,
    t: &TenantFixture,
    path: &str,
    body: serde_json::Value,
) -> kairos_testkit::TestResponse {
    app.post(path)
        .tenant(&t.id)
        .token(&t.owner_token)
        .json(body)
        .send()
        .await
}

#[tokio::test]
async fn a_template_generates_slots_to_the_horizon() {
    let app = TestApp::spawn().await;
    let t = app.tenant("acme").await;
    let fx = app.catalog(&t).await;
    let body = app
        .daily_hours(&t, "site", &fx.site_id, "10:00", "14:00")
        .await;
    // Now is 11:00 in Helsinki: today keeps 11:00, 12:00 and 13:00; then 60 days of four.
    assert_eq!(body["regeneration"]["created"], 243);
    assert_eq!(body["recurrenceKind"], "daily");
    assert_eq!(slot_count(&app, "acme", &fx.product_id).await, 243);
    let again = post(
        &app,
        &t,
        "/api/v1/admin/schedules/regenerate",
        json!({"scopeType": "site", "scopeId": fx.site_id}),
    )
    .await;
    again.assert_status(200);
    assert_eq!(again.body["created"], 0, "regeneration is idempotent");
    assert_eq!(again.body["kept"], 243);
}

#[tokio::test]
async fn template_validation_names_each_rule() {
    let app = TestApp::spawn().await;
    let t = app.tenant("acme").await;
    let fx = app.catalog(&t).await;
    let res = post(
        &app,
        &t,
        "/api/v1/admin/schedules/templates",
        json!({
            "scopeType": "room", "scopeId": "x", "startTime": "24:00", "endTime": "9:00"
        }),
    )
    .await;
    res.assert_error(400, "VALIDATION_ERROR");
    assert_eq!(
        res.error_fields(),
        ["scopeType", "scopeId", "startTime", "endTime"]
    );
    let res = post(&app, &t, "/api/v1/admin/schedules/templates", json!({
        "scopeType": "site", "scopeId": fx.site_id, "startTime": "18:00", "endTime": "09:00",
        "recurrenceKind": "weekly", "byDay": 200, "validFrom": "2026-12-31", "validTo": "2026-12-01"
    }))
    .await;
    assert_eq!(res.error_fields(), ["startTime", "byDay", "validFrom"]);
    let res = post(&app, &t, "/api/v1/admin/schedules/templates", json!({
        "scopeType": "site", "scopeId": fx.site_id, "startTime": "09:00", "endTime": "10:00", "recurrenceKind": "hourly"
    }))
    .await;
    assert_eq!(res.error_fields(), ["recurrenceKind"]);
}

#[tokio::test]
async fn schedules_of_unknown_or_foreign_scopes_are_not_found() {
    let app = TestApp::spawn().await;
    let a = app.tenant("alpha").await;
    let b = app.tenant("beta").await;
    let fx = app.catalog(&a).await;
    for scope in [fx.site_id.clone(), Uuid::now_v7().to_string()] {
        let res = post(&app, &b, "/api/v1/admin/schedules/templates", json!({
            "scopeType": "site", "scopeId": scope, "recurrenceKind": "daily", "startTime": "09:00", "endTime": "10:00"
        }))
        .await;
        res.assert_error(404, "NOT_FOUND");
    }
    let res = post(&app, &b, "/api/v1/admin/schedules/blackouts", json!({
        "scopeType": "product", "scopeId": fx.product_id, "kind": "closure", "dateFrom": "2026-12-01"
    }))
    .await;
    res.assert_error(404, "NOT_FOUND");
    assert_eq!(slot_count(&app, "alpha", &fx.product_id).await, 0);
}

#[tokio::test]
async fn conflicting_templates_are_reported() {
    let app = TestApp::spawn().await;
    let t = app.tenant("acme").await;
    let fx = app.catalog(&t).await;
    let first = app
        .daily_hours(&t, "site", &fx.site_id, "10:00", "14:00")
        .await;
    assert_eq!(first["warnings"], json!([]));
    let second = app
        .daily_hours(&t, "site", &fx.site_id, "13:00", "16:00")
        .await;
    assert_eq!(second["warnings"][0]["type"], "template_conflict");
    assert_eq!(second["warnings"][0]["details"]["templateId"], first["id"]);
    let evening = app
        .daily_hours(&t, "site", &fx.site_id, "16:00", "18:00")
        .await;
    assert_eq!(
        evening["warnings"],
        json!([]),
        "touching hours do not conflict"
    );
}

#[tokio::test]
async fn preview_reports_without_writing() {
    let app = TestApp::spawn().await;
    let t = app.tenant("acme").await;
    let fx = app.catalog(&t).await;
    app.daily_hours(&t, "site", &fx.site_id, "10:00", "14:00")
        .await;
    let before = slot_count(&app, "acme", &fx.product_id).await;
    let preview = post(&app, &t, "/api/v1/admin/schedules/regenerate/preview", json!({
        "scopeType": "product", "scopeId": fx.product_id, "dateFrom": "2026-12-01", "dateTo": "2026-12-07"
    }))
    .await;
    preview.assert_status(200);
    assert_eq!(preview.body["dryRun"], true);
    assert_eq!(preview.body["kept"], 28);
    assert_eq!(preview.body["created"], 0);
    assert_eq!(slot_count(&app, "acme", &fx.product_id).await, before);

    let bad = post(&app, &t, "/api/v1/admin/schedules/regenerate/preview", json!({
        "scopeType": "product", "scopeId": fx.product_id, "dateFrom": "2026-12-07", "dateTo": "2026-12-01"
    }))
    .await;
    bad.assert_error(400, "VALIDATION_ERROR");
    let missing = post(
        &app,
        &t,
        "/api/v1/admin/schedules/regenerate",
        json!({"scopeType": "product", "scopeId": Uuid::now_v7()}),
    )
    .await;
    missing.assert_error(404, "NOT_FOUND");
}

#[tokio::test]
async fn deleting_a_template_removes_unbooked_slots() {
    let app = TestApp::spawn().await;
    let t = app.tenant("acme").await;
    let fx = app.catalog(&t).await;
    let tpl = app
        .daily_hours(&t, "product", &fx.product_id, "10:00", "12:00")
        .await;
    assert_eq!(tpl["scopeType"], "product");
    let id = tpl["id"].as_str().unwrap_or_default();
    let list = app
        .get(&format!(
            "/api/v1/admin/schedules/templates?scopeType=product&scopeId={}",
            fx.product_id
        ))
        .tenant("acme")
        .token(&t.owner_token)
        .send()
        .await;
    assert_eq!(list.body["items"].as_array().map(Vec::len), Some(1));
    let patched = app
        .patch(&format!("/api/v1/admin/schedules/templates/{id}"))
        .tenant("acme")
        .token(&t.owner_token)
        .json(json!({"endTime": "11:00"}))
        .send()
        .await;
    patched.assert_status(200);
    assert_eq!(patched.body["endTime"], "11:00");
    assert!(
        patched.body["regeneration"]["deleted"]
            .as_u64()
            .unwrap_or(0)
            >= 60
    );
    let gone = app
        .delete(&format!("/api/v1/admin/schedules/templates/{id}"))
        .tenant("acme")
        .token(&t.owner_token)
        .send()
        .await;
    gone.assert_status(200);
    assert_eq!(slot_count(&app, "acme", &fx.product_id).await, 0);
}

#[tokio::test]
async fn a_new_product_on_a_scheduled_site_gets_slots_at_once() {
    let app = TestApp::spawn().await;
    let t = app.tenant("acme").await;
    let fx = app.catalog(&t).await;
    app.daily_hours(&t, "site", &fx.site_id, "10:00", "14:00")
        .await;
    let res = post(&app, &t, "/api/v1/admin/products", json!({
        "siteId": fx.site_id, "name": "Second", "durationMins": 120, "capacity": 4, "basePrice": 30, "slotIntervalMin": 120
    }))
    .await;
    res.assert_status(200);
    // 10:00 and 12:00 each day; today only 12:00 is still ahead.
    assert_eq!(slot_count(&app, "acme", res.str("id")).await, 1 + 60 * 2);
}

/// The message of the validation error of `field`.
fn field_message(res: &kairos_testkit::TestResponse, field: &str) -> String {
    res.body["details"]["errors"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|e| e["field"] == field)
        .and_then(|e| e["message"].as_str())
        .unwrap_or_else(|| panic!("no error for {field}: {}", res.text))
        .to_owned()
}

#[tokio::test]
async fn an_unknown_scope_recurrence_or_blackout_kind_is_a_400_naming_the_field_and_its_choices() {
    let app = TestApp::spawn().await;
    let t = app.tenant("acme").await;
    let fx = app.catalog(&t).await;
    let site = json!(fx.site_id);
    let cases = [
        (
            "/api/v1/admin/schedules/templates",
            json!({"scopeType": "room", "scopeId": site, "startTime": "09:00", "endTime": "10:00"}),
            "scopeType",
            "site, product or resource",
        ),
        (
            "/api/v1/admin/schedules/templates",
            json!({"scopeType": "site", "scopeId": site, "startTime": "09:00", "endTime": "10:00",
                   "recurrenceKind": "Weekly"}),
            "recurrenceKind",
            "none, daily, weekly, monthly or annual",
        ),
        (
            "/api/v1/admin/schedules/overrides",
            json!({"scopeType": "site", "scopeId": site, "dateFrom": "2026-12-24",
                   "startTime": "09:00", "endTime": "10:00", "recurrence": "yearly"}),
            "recurrence",
            "none or annual",
        ),
        (
            "/api/v1/admin/schedules/blackouts",
            json!({"scopeType": "site", "scopeId": site, "dateFrom": "2026-12-24", "kind": "party"}),
            "kind",
            "maintenance, holiday, closure or event",
        ),
        (
            "/api/v1/admin/schedules/blackouts",
            json!({"scopeType": "site", "scopeId": site, "dateFrom": "2026-12-24", "kind": "closure",
                   "recurrence": "weekly"}),
            "recurrence",
            "none or annual",
        ),
        (
            "/api/v1/admin/schedules/regenerate",
            json!({"scopeType": "tenant", "scopeId": site}),
            "scopeType",
            "site, product or resource",
        ),
    ];
    for (path, body, field, choices) in cases {
        let res = post(&app, &t, path, body).await;
        res.assert_error(400, "VALIDATION_ERROR");
        assert_eq!(res.error_fields(), [field], "{path}");
        assert_eq!(field_message(&res, field), format!("must be {choices}"));
    }
    let listed = app
        .get(&format!(
            "/api/v1/admin/schedules/overrides?scopeType=room&scopeId={}",
            fx.site_id
        ))
        .tenant("acme")
        .token(&t.owner_token)
        .send()
        .await;
    listed.assert_error(400, "VALIDATION_ERROR");
    assert_eq!(listed.error_fields(), ["scopeType"]);

    // A change is checked like a creation; the stored template stays as it was.
    let tpl = app
        .daily_hours(&t, "site", &fx.site_id, "10:00", "12:00")
        .await;
    let id = tpl["id"].as_str().unwrap_or_default();
    let patched = app
        .patch(&format!("/api/v1/admin/schedules/templates/{id}"))
        .tenant("acme")
        .token(&t.owner_token)
        .json(json!({"recurrenceKind": "hourly"}))
        .send()
        .await;
    patched.assert_error(400, "VALIDATION_ERROR");
    assert_eq!(patched.error_fields(), ["recurrenceKind"]);
    let got = app
        .get(&format!("/api/v1/admin/schedules/templates/{id}"))
        .tenant("acme")
        .token(&t.owner_token)
        .send()
        .await;
    assert_eq!(got.body["recurrenceKind"], "daily");
    assert_eq!(got.body["scopeType"], "site");
}
