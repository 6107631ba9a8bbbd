//! Message templates in use: resolving a key site, tenant, global then English, and
//! previews that render helpers, escape HTML and warn of unknown variables.

use super::messaging_templates::{BASE, assert_shape_b, error_fields};
use kairos_testkit::TestApp;
use serde_json::{Value, json};

#[tokio::test]
async fn resolution_goes_site_then_tenant_then_global_then_english() {
    let app = TestApp::spawn().await;
    let t = app.tenant("acme").await;
    let cat = app.catalog(&t).await;
    let create = |body: Value| {
        let app = &app;
        let token = t.owner_token.clone();
        async move {
            let res = app
                .post(BASE)
                .tenant("acme")
                .token(&token)
                .json(body)
                .send()
                .await;
            res.assert_status(201);
        }
    };
    let by_key = |q: String| {
        let app = &app;
        let token = t.owner_token.clone();
        async move {
            let res = app
                .get(&format!("{BASE}/key/booking_confirmation?{q}"))
                .tenant("acme")
                .token(&token)
                .send()
                .await;
            res.assert_status(200);
            res.body["subjectTemplate"].as_str().unwrap().to_owned()
        }
    };
    let global = by_key(String::new()).await;
    assert!(global.contains("{{bookingReference}}"), "{global}");
    assert_eq!(
        by_key("languageCode=fi".into()).await,
        global,
        "English fallback"
    );

    create(
        json!({"templateKey": "booking_confirmation", "languageCode": "fi",
        "subjectTemplate": "tenant fi", "bodyTemplate": "b"}),
    )
    .await;
    create(
        json!({"templateKey": "booking_confirmation", "languageCode": "fi",
        "subjectTemplate": "site fi", "bodyTemplate": "b", "siteId": cat.site_id}),
    )
    .await;
    create(
        json!({"templateKey": "booking_confirmation", "languageCode": "en",
        "subjectTemplate": "tenant en", "bodyTemplate": "b"}),
    )
    .await;
    let site = &cat.site_id;
    assert_eq!(
        by_key(format!("languageCode=fi&siteId={site}")).await,
        "site fi"
    );
    assert_eq!(by_key("languageCode=fi".into()).await, "tenant fi");
    assert_eq!(by_key("languageCode=sv".into()).await, "tenant en");
    assert_eq!(by_key(String::new()).await, "tenant en");

    // SMS of a key with no SMS anywhere, and a key of nobody's: 404 in shape B.
    let none = app
        .get(&format!("{BASE}/key/booking_confirmation?templateType=sms"))
        .tenant("acme")
        .token(&t.owner_token)
        .send()
        .await;
    assert_shape_b(&none, 404);
    let nobody = app
        .get(&format!("{BASE}/key/birthday_extras"))
        .tenant("acme")
        .token(&t.owner_token)
        .send()
        .await;
    assert_shape_b(&nobody, 404);
    let bad = app
        .get(&format!(
            "{BASE}/key/booking_confirmation?templateType=fax&siteId=x"
        ))
        .tenant("acme")
        .token(&t.owner_token)
        .send()
        .await;
    assert_shape_b(&bad, 400);
    assert_eq!(error_fields(&bad), ["templateType", "siteId"]);
}

#[tokio::test]
async fn preview_renders_helpers_escapes_html_and_warns_of_unknown_variables() {
    let app = TestApp::spawn().await;
    let t = app.tenant("acme").await;
    let preview = |body: Value| {
        let app = &app;
        let token = t.owner_token.clone();
        async move {
            app.post(&format!("{BASE}/preview"))
                .tenant("acme")
                .token(&token)
                .json(body)
                .send()
                .await
        }
    };
    let res = preview(json!({
        "subjectTemplate": "{{customerName}} on {{formatDate bookingDateTime \"MMMM d, yyyy\"}}",
        "bodyTemplate": "<p>{{customerName}} {{formatDate bookingDateTime \"dd/MM/yyyy h:mm a\"}} {{formatDate bookingDateTime \"HH:mm\"}} {{formatCurrency totalAmount currency}}{{#ifEquals status \"confirmed\"}} ok{{/ifEquals}}{{#unless supportPhone}} none{{/unless}}{{#if partySize}} {{partySize}}{{/if}} {{shoeSize}}</p>",
        "sampleData": {
            "customerName": "Tom & <Jerry>",
            "bookingDateTime": "2026-03-29T15:00:00Z",
            "timezone": "Europe/Helsinki",
            "totalAmount": 49.5,
            "currency": "EUR",
            "status": "confirmed",
            "supportPhone": "",
            "partySize": 3,
        },
    }))
    .await;
    res.assert_status(200);
    // Subjects are plain text; bodies are HTML with values escaped; 18:00 is +03:00 (DST).
    assert_eq!(res.body["subject"], "Tom & <Jerry> on March 29, 2026");
    assert_eq!(
        res.body["body"],
        "<p>Tom &amp; &lt;Jerry&gt; 29/03/2026 6:00 PM 18:00 €49.50 ok none 3 </p>"
    );
    assert_eq!(
        res.body["warnings"],
        json!(["unknown variable shoeSize: it renders empty"])
    );

    // SMS bodies are not escaped; New York's DST change is honoured.
    let sms = preview(json!({
        "subjectTemplate": "",
        "bodyTemplate": "{{customerName}} {{formatDate bookingDateTime \"HH:mm\"}}",
        "templateType": "sms",
        "sampleData": {"customerName": "A&B", "bookingDateTime": "2026-03-08T15:00:00Z", "timezone": "America/New_York"},
    }))
    .await;
    sms.assert_status(200);
    assert_eq!(sms.body["body"], "A&B 11:00");

    let bad =
        preview(json!({"subjectTemplate": "x", "bodyTemplate": "{{#if}}", "sampleData": []})).await;
    assert_shape_b(&bad, 400);
    assert_eq!(error_fields(&bad), ["sampleData"]);
    let broken = preview(json!({"bodyTemplate": "{{#if a}}"})).await;
    assert_shape_b(&broken, 400);
    assert_eq!(error_fields(&broken), ["bodyTemplate"]);
    let missing = preview(json!({})).await;
    assert_eq!(error_fields(&missing), ["bodyTemplate"]);
    // Nesting that would overflow the stack while rendering is refused first.
    let deep = "{{#if a}}".repeat(5_000) + &"{{/if}}".repeat(5_000);
    let refused = preview(json!({"bodyTemplate": deep})).await;
    assert_shape_b(&refused, 400);
    assert_eq!(error_fields(&refused), ["bodyTemplate"]);
}
