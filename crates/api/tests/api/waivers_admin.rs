//! Staff's waivers: a booking's requirements, paper waivers, signing links, the
//! printable document, the signature list's pages, check-in by the product's setting and
//! the retention purge under a controlled clock.

use super::waivers::{PNG, booking, booking_at, product, sign, signer, status, venue};
use chrono::Duration;
use kairos_domain::TenantId;
use kairos_testkit::{TenantFixture, TestApp, TestResponse};
use serde_json::{Value, json};

async fn view(app: &TestApp, t: &TenantFixture, b: &str) -> Value {
    let res = app
        .get(&format!("/api/v1/admin/waivers/booking/{b}"))
        .tenant(&t.id)
        .token(&t.owner_token)
        .send()
        .await;
    res.assert_status(200);
    res.body
}

async fn manual(app: &TestApp, t: &TenantFixture, body: Value) -> TestResponse {
    app.post("/api/v1/admin/waivers/manual")
        .tenant(&t.id)
        .token(&t.owner_token)
        .json(body)
        .send()
        .await
}

async fn arrive(app: &TestApp, t: &TenantFixture, b: &str) -> TestResponse {
    app.post(&format!("/api/v1/bookings/{b}/mark-arrived"))
        .tenant(&t.id)
        .token(&t.owner_token)
        .send()
        .await
}

#[tokio::test]
async fn staff_see_each_persons_waiver_collect_paper_ones_and_print_them() {
    let (app, t, fx, _) = venue().await;
    let b = booking(
        &app,
        &t,
        &fx,
        3,
        json!([{"firstName": "Ada", "lastName": "Lovelace"},
        {"firstName": "Tim", "lastName": "Young", "dateOfBirth": "2015-05-05"}]),
    )
    .await;
    let v = view(&app, &t, &b).await;
    assert_eq!(v["allWaiversComplete"], false);
    assert_eq!(v["canProceed"], true, "the product only warns");
    assert_eq!(v["missingCount"], 3);
    let reqs = v["requiredWaivers"].as_array().unwrap();
    assert_eq!(reqs.len(), 3, "one per person of the party: {v}");
    assert_eq!(reqs[0]["type"], "Climbing waiver");
    assert_eq!(reqs[0]["status"], "pending");
    assert_eq!(reqs[1]["participant"]["isMinor"], true);
    assert_eq!(reqs[2]["participant"]["participantId"], Value::Null);
    assert_eq!(reqs[2]["waiverRequestId"], b.as_str());

    // Ada signs online; Tim's paper waiver is collected at the desk; the third person is
    // added by their paper.
    let ada = reqs[0]["participant"]["participantId"]
        .as_str()
        .unwrap()
        .to_owned();
    sign(&app, &t, &b, &ada, signer()).await.assert_status(200);
    let paper = manual(
        &app,
        &t,
        json!({"bookingId": b, "participantName": "tim young",
        "signedInPerson": true, "signedBy": "Mary Young", "paperWaiverReference": "box 7/112",
        "notes": "Mother signed at the desk"}),
    )
    .await;
    paper.assert_status(201);
    assert_eq!(paper.body["method"], "paper");
    assert_eq!(paper.body["isMinor"], true);
    assert_eq!(paper.body["isGuardianSignature"], true);
    assert_eq!(paper.body["collectedBy"], "owner (test)");
    manual(
        &app,
        &t,
        json!({"bookingId": b, "participantName": "Tim Young", "signedBy": "M"}),
    )
    .await
    .assert_error(409, "ALREADY_SIGNED");
    manual(
        &app,
        &t,
        json!({"bookingId": b, "participantName": "Sam Third", "signedBy": "Sam",
        "signedInPerson": true}),
    )
    .await
    .assert_status(201);
    manual(
        &app,
        &t,
        json!({"bookingId": b, "participantName": "Nobody Else", "signedBy": "N"}),
    )
    .await
    .assert_error(409, "CONFLICT");
    manual(
        &app,
        &t,
        json!({"bookingId": b, "participantId": uuid::Uuid::new_v4(),
        "signedBy": "N"}),
    )
    .await
    .assert_error(404, "PARTICIPANT_NOT_FOUND");
    let bad = manual(&app, &t, json!({"bookingId": b, "signedInPerson": false})).await;
    bad.assert_error(400, "VALIDATION_ERROR");
    let mut fields = bad.error_fields();
    fields.sort();
    assert_eq!(fields, ["participantName", "signedBy", "signedInPerson"]);
    manual(
        &app,
        &t,
        json!({"bookingId": uuid::Uuid::new_v4(), "participantName": "X",
        "signedBy": "X"}),
    )
    .await
    .assert_error(404, "BOOKING_NOT_FOUND");

    let v = view(&app, &t, &b).await;
    assert_eq!(v["allWaiversComplete"], true, "{v}");
    let statuses: Vec<&str> = v["requiredWaivers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["status"].as_str().unwrap())
        .collect();
    assert_eq!(
        statuses,
        ["signed", "collected_offline", "collected_offline"]
    );

    // The printable document: the text, the signature, the evidence, escaped.
    let url = v["requiredWaivers"][0]["documentUrl"].as_str().unwrap();
    let doc = app
        .get(url)
        .tenant(&t.id)
        .token(&t.owner_token)
        .send()
        .await;
    doc.assert_status(200);
    assert!(doc.header("content-type").unwrap().starts_with("text/html"));
    assert!(
        doc.header("content-security-policy")
            .unwrap()
            .contains("default-src 'none'")
    );
    for expected in [
        "I climb at my own risk.",
        "Ada Lovelace",
        "grace@example.com",
        PNG,
        &kairos_domain::waivers::content_hash("I climb at my own risk."),
    ] {
        assert!(doc.text.contains(expected), "{expected} in {}", doc.text);
    }
    // Not for the public, nor another tenant.
    app.get(url).tenant(&t.id).send().await.assert_status(401);
    let other = app.tenant("other").await;
    app.get(url)
        .tenant(&other.id)
        .token(&other.owner_token)
        .send()
        .await
        .assert_error(404, "WAIVER_NOT_FOUND");
}

#[tokio::test]
async fn a_signing_link_goes_to_the_participant_or_the_customer_and_is_shown_as_sent() {
    let (app, t, fx, _) = venue().await;
    let b = booking(
        &app,
        &t,
        &fx,
        2,
        json!([{"firstName": "Ada", "lastName": "L",
        "email": "ada@example.com"}]),
    )
    .await;
    let ada = super::waivers::first_participant(&app, &t, &b).await;
    let remind = |id: String| {
        let app = &app;
        let t = &t;
        async move {
            app.post(&format!("/api/v1/admin/waivers/{id}/remind"))
                .tenant(&t.id)
                .token(&t.owner_token)
                .send()
                .await
        }
    };
    let res = remind(ada.clone()).await;
    res.assert_status(200);
    assert_eq!(res.body["sentTo"], "ada@example.com");
    assert!(res.body["messageId"].is_string(), "{}", res.text);
    let res = remind(b.clone()).await;
    res.assert_status(200);
    assert_eq!(res.body["sentTo"], "grace@example.com");
    let messages = app
        .store
        .list_messages(
            &TenantId::parse(&t.id).unwrap(),
            &kairos_store::MessageFilter {
                limit: 50,
                ..Default::default()
            },
        )
        .await
        .unwrap();
    let links: Vec<&kairos_store::Message> = messages
        .iter()
        .filter(|m| m.template_key.as_deref() == Some("waiver_reminder"))
        .collect();
    assert_eq!(links.len(), 2);
    let link = format!("/book/{}/waivers/{b}", t.id);
    assert!(
        links.iter().all(|m| m.body.contains(&link)),
        "{:?}",
        links[0].body
    );
    assert!(links.iter().any(|m| m.body.contains("Hello Ada L")));
    let v = view(&app, &t, &b).await;
    assert!(v["requiredWaivers"][0]["reminderSent"].is_string(), "{v}");
    remind(uuid::Uuid::new_v4().to_string())
        .await
        .assert_error(404, "WAIVER_NOT_FOUND");
    sign(&app, &t, &b, &ada, signer()).await.assert_status(200);
    remind(ada).await.assert_error(409, "ALREADY_SIGNED");
}

#[tokio::test]
async fn check_in_warns_or_refuses_by_the_products_setting() {
    let (app, t, fx, _) = venue().await;
    let b = booking(
        &app,
        &t,
        &fx,
        1,
        json!([{"firstName": "Ada", "lastName": "L"}]),
    )
    .await;
    let res = arrive(&app, &t, &b).await;
    res.assert_status(200);
    assert_eq!(res.body["status"], "arrived");
    let warning = res.body["warnings"][0].as_str().unwrap();
    assert!(warning.contains("1 of 1 waivers are missing"), "{warning}");

    product(
        &app,
        &t,
        &fx.catalog.product_id,
        json!({"waiverCheckIn": "refuse"}),
    )
    .await;
    let b = booking(
        &app,
        &t,
        &fx,
        2,
        json!([{"firstName": "Bo", "lastName": "K"}]),
    )
    .await;
    let refused = arrive(&app, &t, &b).await;
    refused.assert_error(409, "WAIVERS_INCOMPLETE");
    assert_eq!(refused.body["details"]["missingWaivers"], 2);
    let patch = app
        .patch(&format!("/api/v1/admin/bookings/{b}/status"))
        .tenant(&t.id)
        .token(&t.owner_token)
        .json(json!({"status": "arrived", "reason": "walked in"}))
        .send()
        .await;
    patch.assert_error(409, "WAIVERS_INCOMPLETE");
    let v = view(&app, &t, &b).await;
    assert_eq!(v["canProceed"], false);
    assert_eq!(v["checkIn"], "refuse");
    let bo = super::waivers::first_participant(&app, &t, &b).await;
    sign(&app, &t, &b, &bo, signer()).await.assert_status(200);
    manual(
        &app,
        &t,
        json!({"bookingId": b, "participantName": "Cy D", "signedBy": "Cy"}),
    )
    .await
    .assert_status(201);
    let ok = arrive(&app, &t, &b).await;
    ok.assert_status(200);
    assert!(ok.body.get("warnings").is_none(), "{}", ok.text);
    // A product that requires no waiver checks in whatever is signed.
    product(
        &app,
        &t,
        &fx.catalog.product_id,
        json!({"requiresWaiver": false}),
    )
    .await;
    let b = booking(&app, &t, &fx, 1, json!([])).await;
    arrive(&app, &t, &b).await.assert_status(200);
    app.patch(&format!("/api/v1/admin/products/{}", fx.catalog.product_id))
        .tenant(&t.id)
        .token(&t.owner_token)
        .json(json!({"waiverCheckIn": "sometimes"}))
        .send()
        .await
        .assert_error(400, "VALIDATION_ERROR");
}

#[tokio::test]
async fn the_signature_list_pages_by_twenty_and_filters() {
    let (app, t, fx, template_id) = venue().await;
    let people: Vec<Value> = (0..10)
        .map(|i| json!({"firstName": format!("P{i}"), "lastName": "X"}))
        .collect();
    let b1 = booking_at(&app, &t, &fx, 0, 10, json!(people)).await;
    let b2 = booking_at(&app, &t, &fx, 1, 10, json!(people)).await;
    let b3 = booking_at(&app, &t, &fx, 2, 10, json!(people)).await;
    for b in [&b1, &b2, &b3] {
        for p in status(&app, &t, b).await["participants"]
            .as_array()
            .unwrap()
        {
            sign(&app, &t, b, p["participantId"].as_str().unwrap(), signer())
                .await
                .assert_status(200);
            app.clock.advance(Duration::seconds(1));
        }
    }
    let list = |q: &str| {
        let app = &app;
        let t = &t;
        let q = q.to_owned();
        async move {
            let token = app
                .admin_token(&t.id, &t.owner_username, &t.owner_password)
                .await;
            app.get(&format!("/api/v1/waivers/signatures?{q}"))
                .tenant(&t.id)
                .token(&token)
                .send()
                .await
        }
    };
    let first = list("").await;
    first.assert_status(200);
    assert_eq!(first.body["pageSize"], 20);
    assert_eq!(first.body["total"], 30);
    assert_eq!(first.body["signatures"].as_array().unwrap().len(), 20);
    let last = list("page=2").await;
    assert_eq!(last.body["signatures"].as_array().unwrap().len(), 10);
    assert_eq!(list(&format!("bookingId={b2}")).await.body["total"], 10);
    assert_eq!(
        list(&format!("templateId={template_id}")).await.body["total"],
        30
    );
    assert_eq!(list("signedBefore=2026-11-20").await.body["total"], 0);
    assert_eq!(list("signedAfter=2026-11-21").await.body["total"], 30);
    list("pageSize=101")
        .await
        .assert_error(400, "VALIDATION_ERROR");
    list("signedAfter=yesterday")
        .await
        .assert_error(400, "VALIDATION_ERROR");
}

#[tokio::test]
async fn signatures_are_purged_after_the_retention_with_the_purge_audited() {
    let (app, t, _, _, b, p) = super::waivers::one_named().await;
    sign(&app, &t, &b, &p, signer()).await.assert_status(200);
    // A second venue, under other rules, keeps its waivers ten years.
    let beta = app.tenant("beta").await;
    let bfx = app.bookable(&beta).await;
    product(
        &app,
        &beta,
        &bfx.catalog.product_id,
        json!({"requiresWaiver": true}),
    )
    .await;
    super::waivers::template(
        &app,
        &beta,
        json!({"name": "W", "locale": "en", "content": "Risk."}),
    )
    .await
    .assert_status(201);
    let set = |body: Value| {
        let app = &app;
        let beta = &beta;
        async move {
            app.put("/api/v1/admin/waivers/retention")
                .tenant(&beta.id)
                .token(&beta.owner_token)
                .json(body)
                .send()
                .await
        }
    };
    set(json!({"retentionYears": 0}))
        .await
        .assert_error(400, "VALIDATION_ERROR");
    set(json!({"retentionYears": 10})).await.assert_status(200);
    let bb = booking(
        &app,
        &beta,
        &bfx,
        1,
        json!([{"firstName": "Bo", "lastName": "K"}]),
    )
    .await;
    let bp = super::waivers::first_participant(&app, &beta, &bb).await;
    sign(&app, &beta, &bb, &bp, signer())
        .await
        .assert_status(200);

    let tenant = TenantId::parse(&t.id).unwrap();
    let signed = app.clock_now();
    // Seven years less a day later: kept; a little over seven years: the first venue's go.
    app.clock.set(signed + Duration::days(7 * 365));
    assert_eq!(
        app.store
            .purge_waiver_signatures(app.clock_now())
            .await
            .unwrap(),
        0
    );
    app.clock.set(signed + Duration::days(7 * 366));
    assert_eq!(
        app.store
            .purge_waiver_signatures(app.clock_now())
            .await
            .unwrap(),
        1
    );
    let audit = app
        .store
        .list_audit(&tenant, "tenant", &t.id)
        .await
        .unwrap();
    let purge = audit
        .iter()
        .find(|e| e.action == "waiver_signatures_purged")
        .expect("the purge is audited");
    assert_eq!(purge.changes["count"], 1);
    assert_eq!(purge.changes["retentionYears"], 7);
    let (rows, total) = app
        .store
        .waiver_signatures(&tenant, kairos_store::SignatureFilter::default(), 1, 20)
        .await
        .unwrap();
    assert!(rows.is_empty() && total == 0);
    app.clock.set(signed + Duration::days(10 * 365));
    assert_eq!(
        app.store
            .purge_waiver_signatures(app.clock_now())
            .await
            .unwrap(),
        0
    );
    app.clock.set(signed + Duration::days(10 * 366));
    assert_eq!(
        app.store
            .purge_waiver_signatures(app.clock_now())
            .await
            .unwrap(),
        1
    );
}

#[tokio::test]
async fn a_signed_participant_stays_who_signed_and_links_are_not_sent_twice_a_minute() {
    let (app, t, fx, _) = venue().await;
    let b = booking(
        &app,
        &t,
        &fx,
        2,
        json!([{"firstName": "Ada", "lastName": "L",
        "dateOfBirth": "1990-01-01"}]),
    )
    .await;
    let p = super::waivers::first_participant(&app, &t, &b).await;
    sign(&app, &t, &b, &p, signer()).await.assert_status(200);
    let patch = |body: Value| {
        app.patch(&format!("/api/v1/bookings/{b}/participants/{p}"))
            .tenant(&t.id)
            .token(&t.owner_token)
            .json(body)
            .send()
    };
    patch(json!({"firstName": "Someone", "dateOfBirth": "2019-06-01"}))
        .await
        .assert_error(409, "ALREADY_SIGNED");
    patch(json!({"ageAtBooking": 9}))
        .await
        .assert_error(409, "ALREADY_SIGNED");
    patch(json!({"emergencyContact": "+358 40 2"}))
        .await
        .assert_status(200);

    let remind = || {
        app.post(&format!("/api/v1/admin/waivers/{b}/remind"))
            .tenant(&t.id)
            .token(&t.owner_token)
            .send()
    };
    remind().await.assert_status(200);
    let again = remind().await;
    again.assert_error(409, "CONFLICT");
    assert!(
        again.text.contains("less than a minute ago"),
        "{}",
        again.text
    );
    app.clock.advance(Duration::minutes(2));
    let token = app
        .admin_token(&t.id, &t.owner_username, &t.owner_password)
        .await;
    app.post(&format!("/api/v1/admin/waivers/{b}/remind"))
        .tenant(&t.id)
        .token(&token)
        .send()
        .await
        .assert_status(200);
}

#[tokio::test]
async fn publishing_the_text_in_use_again_is_a_retry_and_the_active_waiver_keeps_to_its_scope() {
    let (app, t, fx, en) = venue().await;
    let again = super::waivers::template(
        &app,
        &t,
        json!({"name": "Climbing waiver",
        "locale": "EN", "content": "I climb at my own risk."}),
    )
    .await;
    again.assert_status(200);
    assert_eq!(
        again.str("id"),
        en,
        "the same text again, without a version, is a retry"
    );
    let scoped = super::waivers::template(
        &app,
        &t,
        json!({"name": "Course waiver",
        "locale": "en-gb", "content": "Children climb with an instructor.",
        "productIds": [fx.catalog.product_id]}),
    )
    .await;
    scoped.assert_status(201);
    assert_eq!(scoped.str("locale"), "en-GB");
    let active = |q: String| {
        let app = &app;
        let t = &t;
        async move {
            app.get(&format!("/api/v1/waivers/active?{q}"))
                .tenant(&t.id)
                .send()
                .await
        }
    };
    // Without a product only a waiver for every product answers.
    let res = active("locale=en-GB".into()).await;
    assert_eq!(res.body["data"]["id"], en.as_str(), "{}", res.text);
    let res = active(format!("locale=en-GB&productId={}", fx.catalog.product_id)).await;
    assert_eq!(res.body["data"]["id"], scoped.str("id"));
    active(format!("productId={}", uuid::Uuid::new_v4()))
        .await
        .assert_error(404, "WAIVER_NOT_FOUND");
    super::waivers::template(
        &app,
        &t,
        json!({"name": "\u{200b}", "locale": "en",
        "content": "\u{200b}"}),
    )
    .await
    .assert_error(400, "VALIDATION_ERROR");
}
