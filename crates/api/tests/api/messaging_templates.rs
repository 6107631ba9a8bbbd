//! Message templates (spec Part B 2.7, 4.7, 7): the tenant's own beside the global
//! defaults, their administration, and shape B errors.

use kairos_testkit::{TestApp, TestResponse};
use serde_json::{Value, json};

pub(crate) const BASE: &str = "/api/v1/admin/messaging/templates";

pub(crate) fn assert_shape_b(res: &TestResponse, status: u16) {
    res.assert_status(status);
    assert_eq!(res.body["statusCode"], status, "{}", res.body);
    assert!(res.body["message"].is_string(), "{}", res.body);
    assert!(res.body["error"].is_string(), "{}", res.body);
    assert!(res.body.get("code").is_none(), "not shape A: {}", res.body);
    assert!(res.body["errorCode"].is_string(), "{}", res.body);
}

pub(crate) fn error_fields(res: &TestResponse) -> Vec<String> {
    res.body["errors"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .iter()
        .map(|e| e["field"].as_str().unwrap_or_default().to_owned())
        .collect()
}

#[tokio::test]
async fn global_defaults_are_listed_for_every_message_the_product_sends() {
    let app = TestApp::spawn().await;
    let t = app.tenant("acme").await;
    let types = app
        .get(&format!("{BASE}/types"))
        .tenant("acme")
        .token(&t.owner_token)
        .send()
        .await;
    types.assert_status(200);
    let keys: Vec<&str> = types
        .body
        .as_array()
        .unwrap()
        .iter()
        .map(|k| k["key"].as_str().unwrap())
        .collect();
    for key in [
        "booking_confirmation",
        "payment_receipt",
        "waiver_reminder",
        "pre_arrival_reminder",
        "arrival_confirmation",
        "post_visit_follow_up",
        "feedback_request",
        "cancellation",
        "welcome",
        "gift_card_delivery",
        "waitlist_offer",
    ] {
        assert!(keys.contains(&key), "{key} missing from types");
    }
    let gift = types
        .body
        .as_array()
        .unwrap()
        .iter()
        .find(|k| k["key"] == "gift_card_delivery")
        .unwrap();
    let vars = gift["availableVariables"].as_array().unwrap();
    assert!(vars.contains(&json!("voucherCode")));
    assert!(vars.contains(&json!("customerName")));
    assert!(gift["name"].is_string() && gift["description"].is_string());

    let list = app
        .get(BASE)
        .tenant("acme")
        .token(&t.owner_token)
        .send()
        .await;
    list.assert_status(200);
    let globals: Vec<&Value> = list.body["templates"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["isGlobal"] == true)
        .collect();
    for key in keys {
        assert!(
            globals.iter().any(|g| g["templateKey"] == key),
            "no global default for {key}"
        );
    }
    let sms = globals
        .iter()
        .find(|g| g["templateKey"] == "arrival_confirmation")
        .unwrap();
    assert_eq!(sms["templateType"], "sms");
    assert_eq!(sms["tenantId"], Value::Null);
    assert_eq!(sms["languageCode"], "en");

    // A global default is readable by id, and fixed.
    let id = sms["id"].as_str().unwrap();
    let got = app
        .get(&format!("{BASE}/{id}"))
        .tenant("acme")
        .token(&t.owner_token)
        .send()
        .await;
    got.assert_status(200);
    assert_eq!(got.body["isGlobal"], true);
    let put = app
        .put(&format!("{BASE}/{id}"))
        .tenant("acme")
        .token(&t.owner_token)
        .json(json!({"bodyTemplate": "changed"}))
        .send()
        .await;
    assert_shape_b(&put, 403);
    let del = app
        .delete(&format!("{BASE}/{id}"))
        .tenant("acme")
        .token(&t.owner_token)
        .send()
        .await;
    assert_shape_b(&del, 403);

    // includeGlobal=false leaves them out.
    let own = app
        .get(&format!("{BASE}?includeGlobal=false"))
        .tenant("acme")
        .token(&t.owner_token)
        .send()
        .await;
    own.assert_status(200);
    assert_eq!(own.body["total"], 0);
}

#[tokio::test]
async fn templates_are_created_filtered_changed_and_deleted() {
    let app = TestApp::spawn().await;
    let t = app.tenant("acme").await;
    let cat = app.catalog(&t).await;
    let created = app
        .post(BASE)
        .tenant("acme")
        .token(&t.owner_token)
        .json(json!({
            "templateKey": "booking_confirmation",
            "languageCode": "fi",
            "subjectTemplate": "Varaus {{bookingReference}}",
            "bodyTemplate": "<p>Hei {{customerName}}!</p>\n<p>Tervetuloa</p>",
            "siteId": cat.site_id,
        }))
        .send()
        .await;
    created.assert_status(201);
    let id = created.body["id"].as_str().unwrap().to_owned();
    assert_eq!(created.body["isGlobal"], false);
    assert_eq!(created.body["tenantId"], "acme");
    assert_eq!(created.body["templateType"], "email", "email by default");
    assert_eq!(created.body["siteId"], cat.site_id.as_str());

    // The same key, language, type and site again: 409 in shape B.
    let again = app
        .post(BASE)
        .tenant("acme")
        .token(&t.owner_token)
        .json(json!({
            "templateKey": "booking_confirmation", "languageCode": "fi",
            "subjectTemplate": "x", "bodyTemplate": "y", "siteId": cat.site_id,
        }))
        .send()
        .await;
    assert_shape_b(&again, 409);
    // Tenant-wide with the same key and language is another template.
    let wide = app
        .post(BASE)
        .tenant("acme")
        .token(&t.owner_token)
        .json(json!({
            "templateKey": "booking_confirmation", "languageCode": "fi",
            "subjectTemplate": "Varaus", "bodyTemplate": "Hei",
        }))
        .send()
        .await;
    wide.assert_status(201);
    let sms = app
        .post(BASE)
        .tenant("acme")
        .token(&t.owner_token)
        .json(json!({
            "templateKey": "arrival_confirmation", "templateType": "sms",
            "subjectTemplate": "", "bodyTemplate": "Tänään {{formatDate bookingDateTime \"HH:mm\"}}",
        }))
        .send()
        .await;
    sms.assert_status(201);
    assert_eq!(sms.body["languageCode"], "en");

    let list = |q: &'static str| {
        let app = &app;
        let token = t.owner_token.clone();
        async move {
            let res = app
                .get(&format!("{BASE}?{q}"))
                .tenant("acme")
                .token(&token)
                .send()
                .await;
            res.assert_status(200);
            res.body["templates"]
                .as_array()
                .unwrap()
                .iter()
                .map(|t| {
                    format!(
                        "{}/{}/{}/{}",
                        t["templateKey"].as_str().unwrap(),
                        t["languageCode"].as_str().unwrap(),
                        t["templateType"].as_str().unwrap(),
                        if t["isGlobal"] == true {
                            "global"
                        } else if t["siteId"].is_null() {
                            "tenant"
                        } else {
                            "site"
                        }
                    )
                })
                .collect::<Vec<_>>()
        }
    };
    assert_eq!(
        list("templateKey=booking_confirmation").await,
        [
            "booking_confirmation/en/email/global",
            "booking_confirmation/fi/email/tenant",
            "booking_confirmation/fi/email/site",
        ]
    );
    assert_eq!(
        list("templateType=sms&includeGlobal=false").await,
        ["arrival_confirmation/en/sms/tenant"]
    );
    assert_eq!(
        list("languageCode=fi&templateKey=booking_confirmation")
            .await
            .len(),
        2
    );
    let other_site = "0190f4c2-7b1e-7a3c-9d2e-5f6a7b8c9d0e";
    let for_other = app
        .get(&format!(
            "{BASE}?includeGlobal=false&templateKey=booking_confirmation&siteId={other_site}"
        ))
        .tenant("acme")
        .token(&t.owner_token)
        .send()
        .await;
    assert_eq!(
        for_other.body["total"], 1,
        "tenant-wide only: {}",
        for_other.body
    );

    // Partial update.
    let put = app
        .put(&format!("{BASE}/{id}"))
        .tenant("acme")
        .token(&t.owner_token)
        .json(json!({"subjectTemplate": "Varauksesi {{bookingReference}}"}))
        .send()
        .await;
    put.assert_status(200);
    assert_eq!(
        put.body["subjectTemplate"],
        "Varauksesi {{bookingReference}}"
    );
    assert_eq!(
        put.body["bodyTemplate"], "<p>Hei {{customerName}}!</p>\n<p>Tervetuloa</p>",
        "line breaks are kept in bodies"
    );
    // Moving it tenant-wide collides with the tenant-wide one.
    let clash = app
        .put(&format!("{BASE}/{id}"))
        .tenant("acme")
        .token(&t.owner_token)
        .json(json!({"siteId": null}))
        .send()
        .await;
    assert_shape_b(&clash, 409);

    let del = app
        .delete(&format!("{BASE}/{id}"))
        .tenant("acme")
        .token(&t.owner_token)
        .send()
        .await;
    del.assert_status(204);
    let gone = app
        .get(&format!("{BASE}/{id}"))
        .tenant("acme")
        .token(&t.owner_token)
        .send()
        .await;
    assert_shape_b(&gone, 404);
    let del_again = app
        .delete(&format!("{BASE}/{id}"))
        .tenant("acme")
        .token(&t.owner_token)
        .send()
        .await;
    assert_shape_b(&del_again, 404);
    let put_gone = app
        .put(&format!("{BASE}/{id}"))
        .tenant("acme")
        .token(&t.owner_token)
        .json(json!({"bodyTemplate": "x"}))
        .send()
        .await;
    assert_shape_b(&put_gone, 404);

    // Another tenant sees none of it.
    let other = app.tenant("other").await;
    let wide_id = wide.body["id"].as_str().unwrap();
    let foreign = app
        .get(&format!("{BASE}/{wide_id}"))
        .tenant("other")
        .token(&other.owner_token)
        .send()
        .await;
    assert_shape_b(&foreign, 404);
    let foreign_list = app
        .get(&format!("{BASE}?includeGlobal=false"))
        .tenant("other")
        .token(&other.owner_token)
        .send()
        .await;
    assert_eq!(foreign_list.body["total"], 0);
}

#[tokio::test]
async fn bad_templates_are_400_in_shape_b_naming_each_field() {
    let app = TestApp::spawn().await;
    let t = app.tenant("acme").await;
    let post = |body: Value| {
        let app = &app;
        let token = t.owner_token.clone();
        async move {
            app.post(BASE)
                .tenant("acme")
                .token(&token)
                .json(body)
                .send()
                .await
        }
    };
    let missing = post(json!({})).await;
    assert_shape_b(&missing, 400);
    assert_eq!(
        error_fields(&missing),
        ["templateKey", "subjectTemplate", "bodyTemplate"]
    );
    assert_eq!(missing.body["error"], "Bad Request");

    let bad = post(json!({
        "templateKey": "Bad Key!", "languageCode": "english", "templateType": "fax",
        "subjectTemplate": "s", "bodyTemplate": "b", "siteId": "nope",
    }))
    .await;
    assert_shape_b(&bad, 400);
    assert_eq!(
        error_fields(&bad),
        ["templateType", "siteId", "templateKey", "languageCode"]
    );

    let unparsable = post(json!({
        "templateKey": "booking_confirmation", "subjectTemplate": "Hi {{customerName",
        "bodyTemplate": "ok",
    }))
    .await;
    assert_shape_b(&unparsable, 400);
    assert_eq!(error_fields(&unparsable), ["subjectTemplate"]);

    let unclosed = post(json!({
        "templateKey": "booking_confirmation", "subjectTemplate": "ok",
        "bodyTemplate": "{{#if customerName}}open",
    }))
    .await;
    assert_shape_b(&unclosed, 400);
    assert_eq!(error_fields(&unclosed), ["bodyTemplate"]);

    let helper_misuse = post(json!({
        "templateKey": "booking_confirmation", "subjectTemplate": "ok",
        "bodyTemplate": "{{formatDate bookingDateTime}}",
    }))
    .await;
    assert_shape_b(&helper_misuse, 400);
    assert_eq!(error_fields(&helper_misuse), ["bodyTemplate"]);

    let long_sms = post(json!({
        "templateKey": "arrival_confirmation", "templateType": "sms",
        "subjectTemplate": "", "bodyTemplate": "x".repeat(1601),
    }))
    .await;
    assert_shape_b(&long_sms, 400);
    let empty_subject = post(json!({
        "templateKey": "booking_confirmation", "subjectTemplate": " ", "bodyTemplate": "b",
    }))
    .await;
    assert_eq!(error_fields(&empty_subject), ["subjectTemplate"]);

    let unknown_site = post(json!({
        "templateKey": "booking_confirmation", "subjectTemplate": "s", "bodyTemplate": "b",
        "siteId": "0190f4c2-7b1e-7a3c-9d2e-5f6a7b8c9d0e",
    }))
    .await;
    assert_shape_b(&unknown_site, 404);
    assert_eq!(unknown_site.body["message"], "Site not found");

    // Malformed JSON and wrong types are shape B too.
    let malformed = app
        .post(BASE)
        .tenant("acme")
        .token(&t.owner_token)
        .header("content-type", "application/json")
        .raw("{\"templateKey\": ")
        .send()
        .await;
    assert_shape_b(&malformed, 400);
    let wrong_type =
        post(json!({"templateKey": 7, "subjectTemplate": "s", "bodyTemplate": "b"})).await;
    assert_shape_b(&wrong_type, 400);
    assert_eq!(error_fields(&wrong_type), ["templateKey"]);

    // Authentication and tenancy failures of these endpoints are shape B too.
    let unknown_tenant = app
        .get(BASE)
        .tenant("nobody")
        .token(&t.owner_token)
        .send()
        .await;
    assert_shape_b(&unknown_tenant, 404);
    let no_token = app.get(BASE).tenant("acme").send().await;
    assert_shape_b(&no_token, 401);

    // Nothing was written.
    let list = app
        .get(&format!("{BASE}?includeGlobal=false"))
        .tenant("acme")
        .token(&t.owner_token)
        .send()
        .await;
    assert_eq!(list.body["total"], 0);
}

#[tokio::test]
async fn notification_writes_are_limited_to_30_and_reads_to_100_a_minute() {
    let app = TestApp::spawn().await;
    let t = app.tenant("acme").await;
    let read = app
        .get(&format!("{BASE}/types"))
        .tenant("acme")
        .token(&t.owner_token)
        .send()
        .await;
    assert_eq!(read.header("x-ratelimit-limit"), Some("100"));
    for i in 0..30 {
        let res = app
            .post(&format!("{BASE}/preview"))
            .tenant("acme")
            .token(&t.owner_token)
            .json(json!({"bodyTemplate": "n"}))
            .send()
            .await;
        assert_eq!(res.header("x-ratelimit-limit"), Some("30"), "request {i}");
        res.assert_status(200);
    }
    let over = app
        .post(&format!("{BASE}/preview"))
        .tenant("acme")
        .token(&t.owner_token)
        .json(json!({"bodyTemplate": "n"}))
        .send()
        .await;
    over.assert_status(429);
    assert!(over.header("retry-after").is_some());
    // Reads are counted apart.
    let read = app
        .get(BASE)
        .tenant("acme")
        .token(&t.owner_token)
        .send()
        .await;
    read.assert_status(200);
}
